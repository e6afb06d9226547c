// QueuedRayJob: what it emits, the podTemplate escape hatch, and the refusals at construction or synth.
import { ApiObject, Duration, JsonPatch } from 'cdk8s';
import { LocalQueue, Quantity, QueuedRayCluster, QueuedRayJob, RayWorkload, SubmissionMode, WorkloadPriorityClass } from '../../src';
import { setup, head, worker } from '../support/constructs';

describe('QueuedRayJob', () => {
  test('QueuedRayJob emits the queue label, suspend, shutdownAfterJobFinishes and generateName', () => {
    const { chart, lq, dev } = setup();
    const job = new QueuedRayJob(chart, 'j', { queue: lq, priorityClass: dev, generateName: 'train-', entrypoint: 'python x.py',
      runtimeEnv: { pip: ['torch'] }, headGroup: head, workerGroups: [worker()] });
    const out = job.apiObject.toJson();
    expect(out.metadata).toEqual({ generateName: 'train-', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'lq', 'kueue.x-k8s.io/priority-class': 'dev' } });
    expect(out.spec).toMatchObject({ suspend: true, shutdownAfterJobFinishes: true, ttlSecondsAfterFinished: 0, entrypoint: 'python x.py',
      runtimeEnvYAML: '{"pip":["torch"]}' });
    expect(out).toEqual(job.toManifest()); // the policy saw exactly what is emitted
  });

  test('the workload is its own ApiObject: one construct, patched and found as cdk8s-plus resources are', () => {
    const { app, chart, lq } = setup();
    const job = new QueuedRayJob(chart, 'j', { queue: lq, entrypoint: 'python x.py', headGroup: head });
    expect(job.apiObject).toBe(job);
    expect(ApiObject.of(job)).toBe(job);
    expect(job instanceof ApiObject).toBe(true);
    expect(job instanceof QueuedRayJob && job instanceof RayWorkload).toBe(true);
    expect(lq.apiObject instanceof ApiObject).toBe(true);
    expect(lq.apiObject instanceof RayWorkload || lq.apiObject instanceof QueuedRayJob || job instanceof QueuedRayCluster).toBe(false);
    expect(job.node.children).toEqual([]);
    job.apiObject.addJsonPatch(JsonPatch.add('/spec/entrypointNumCpus', 1));
    const out = chart.toJson().find((o: any) => o.kind === 'RayJob');
    expect(out.spec.entrypointNumCpus).toBe(1);
    expect(out.metadata.name).toBe('j');
    // A refused workload is not left in the tree.
    expect(() => new QueuedRayJob(chart, 'bad', { entrypoint: 'x', headGroup: head } as any)).toThrow(/RayJob 'c\/bad': give exactly one of 'queue'/);
    expect(chart.node.tryFindChild('bad')).toBeUndefined();
    app.synth();
  });

  test('an elastic RayJob on the 0.14 short-term path is emitted without suspend; on 0.19 with it', () => {
    for (const [kueue, suspend] of [['v0.14.8', undefined], ['v0.19.2', true]] as const) {
      const { chart, lq } = setup(kueue, 'v1.4.2');
      const job = new QueuedRayJob(chart, 'j',
        { queue: lq, entrypoint: 'x', autoscaling: {}, headGroup: head, workerGroups: [worker({ replicas: 0, maxReplicas: 3 })] });
      const out = job.toManifest();
      expect(out.spec.suspend).toBe(suspend);
      expect(out.metadata.annotations).toEqual({ 'kueue.x-k8s.io/elastic-job': 'true' });
      expect(out.spec.rayClusterSpec).toMatchObject({ enableInTreeAutoscaling: true, autoscalerOptions: { idleTimeoutSeconds: 60 } });
    }
  });

  test('silent mistakes are warned about: a mistyped priority class defined elsewhere, a worker group of 0 without autoscaling', () => {
    const { chart, lq } = setup();
    new WorkloadPriorityClass(chart, 'prod-priority', { value: 1000 });
    const typo = WorkloadPriorityClass.fromWorkloadPriorityClassName(chart, 'typo', 'prod-priorty');
    const job = new QueuedRayJob(chart, 'j', { queue: lq, priorityClass: typo, entrypoint: 'x', headGroup: head, workerGroups: [worker()] });
    expect(job.policyWarnings().join('\n')).toMatch(/WorkloadPriorityClass "prod-priorty" is not defined in this app, which defines "prod-priority": did you mean/);
    const other = WorkloadPriorityClass.fromWorkloadPriorityClassName(chart, 'other', 'batch-low');
    const fine = new QueuedRayJob(chart, 'k', { queue: lq, priorityClass: other, entrypoint: 'x', headGroup: head, workerGroups: [worker()] });
    expect(fine.policyWarnings().join('\n')).not.toMatch(/did you mean/);
    const idle = new QueuedRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker({ replicas: 0 })] });
    expect(idle.policyWarnings().join('\n')).toMatch(/worker group "workers" has 0 replicas and autoscaling is off: it never runs a pod/);
  });

  test('the podTemplate escape hatch keeps every field and merges containers by name', () => {
    const { chart, lq } = setup();
    const job = new QueuedRayJob(chart, 'j', {
      queue: lq, entrypoint: 'x', headGroup: head,
      workerGroups: [worker({
        env: { A: '1' },
        podTemplate: {
          metadata: { labels: { app: 'train' } },
          spec: {
            nodeSelector: { pool: 'a' }, volumes: [{ name: 'data', emptyDir: {} }],
            containers: [{ name: 'ray-worker', env: [{ name: 'B', value: '2' }], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
              { name: 'log-shipper', image: 'busybox' }],
          },
        },
      })],
    });
    const tpl = job.toManifest().spec.rayClusterSpec.workerGroupSpecs[0].template;
    expect(tpl.metadata).toEqual({ labels: { app: 'train' } });
    expect(tpl.spec.nodeSelector).toEqual({ pool: 'a' });
    expect(tpl.spec.containers.map((c: any) => c.name)).toEqual(['ray-worker', 'log-shipper']);
    expect(tpl.spec.containers[0]).toMatchObject({ image: 'rayproject/ray:2.46.0', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
      volumeMounts: [{ name: 'data', mountPath: '/data' }], resources: { requests: { cpu: '1', memory: '2Gi' } } });
  });

  test('a named container from podTemplate is appended; a podTemplate that puts another container first is refused', () => {
    const { chart, lq } = setup();
    const ok = new QueuedRayJob(chart, 'j',
      { queue: lq, entrypoint: 'x', headGroup: { ...head, podTemplate: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } });
    expect(ok.toManifest().spec.rayClusterSpec.headGroupSpec.template.spec.containers.map((c: any) => c.name)).toEqual(['ray-head', 'sidecar']);
    expect(() => new QueuedRayJob(chart, 'k', { queue: lq, entrypoint: 'x', headGroup: { ...head, podTemplate: { spec: { containers: [{ image: 'busybox' }] } } } })).toThrow(/podTemplate puts another container first; KubeRay treats containers\[0\] as the Ray container/);
  });

  test('addWorkerGroup after construction is synthesized and checked', () => {
    const { app, chart, lq } = setup();
    const job = new QueuedRayJob(chart, 'j', { queue: lq, entrypoint: 'x', headGroup: head });
    job.addWorkerGroup(worker({ groupName: 'head' }));
    expect(job.toManifest().spec.rayClusterSpec.workerGroupSpecs[0].groupName).toBe('head');
    expect(() => app.synth()).toThrow(/"head" is reserved for the head group/);
  });

  test('a gang that can never fit is refused at synth with the numbers', () => {
    const { app, chart, lq } = setup();
    new QueuedRayJob(chart, 'big', { queue: lq, entrypoint: 'x', headGroup: head, workerGroups: [worker({ replicas: 8 })] });
    expect(() => app.synth()).toThrow(/the gang needs cpu 9.5, memory 18632Mi .* but ClusterQueue "cq" can provide at most cpu 8, memory 16Gi/);
  });

  test('a synth error is printed as a finding line before cdk8s throws it with its stack', () => {
    const { app, chart, lq } = setup();
    new QueuedRayJob(chart, 'big', { queue: lq, entrypoint: 'x', headGroup: head, workerGroups: [worker({ replicas: 8 })] });
    const lines: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((s: any) => { lines.push(String(s)); return true; });
    const quiet = process.env.CDK8S_KUEUE_RAY_QUIET;
    delete process.env.CDK8S_KUEUE_RAY_QUIET;
    try {
      expect(() => app.synth()).toThrow(/Validation failed/);
    } finally {
      write.mockRestore();
      if (quiet !== undefined) process.env.CDK8S_KUEUE_RAY_QUIET = quiet;
    }
    expect(lines[0]).toMatch(/^\[cdk8s-kueue-ray\] error: RayJob default\/big: .*the gang needs cpu 9.5/);
  });

  test('a queue name not defined in the app is refused, one declared external is not', () => {
    const { app, chart } = setup();
    new QueuedRayJob(chart, 'a', { queueName: 'nope', entrypoint: 'x', headGroup: head });
    expect(() => app.synth()).toThrow(/LocalQueue "nope" does not exist in namespace "default"/);
    const ok = setup();
    const j = new QueuedRayJob(ok.chart, 'b', { queue: LocalQueue.fromLocalQueueName(ok.chart, 'shared', 'ml', 'shared'),
      priorityClass: WorkloadPriorityClass.fromWorkloadPriorityClassName(ok.chart, 'theirs', 'theirs'), entrypoint: 'x', headGroup: head });
    expect(j.namespace).toBe('ml');
    expect(() => ok.app.synth()).not.toThrow();
  });

  test('a workload outside its queue namespace is refused eagerly', () => {
    const { chart, lq } = setup();
    expect(() => new QueuedRayJob(chart, 'j', { queue: lq, namespace: 'other', entrypoint: 'x', headGroup: head })).toThrow(/differs from the queue's namespace "default"/);
  });

  test('the reserved Kueue labels cannot be set by hand', () => {
    const { chart, lq } = setup();
    expect(() => new QueuedRayJob(chart, 'j', { queue: lq, entrypoint: 'x', headGroup: head, labels: { 'kueue.x-k8s.io/queue-name': 'x' } })).toThrow(/labels must not set "kueue.x-k8s.io\/queue-name"/);
  });

  test('an imported queue that the app defines is checked like one of its own (the inventory decides)', () => {
    const { app, chart } = setup();
    const imported = LocalQueue.fromLocalQueueName(chart, 'imported-lq', 'default', 'lq');
    new QueuedRayJob(chart, 'big', { queue: imported, entrypoint: 'x', headGroup: head, workerGroups: [worker({ replicas: 8 })] });
    expect(() => app.synth()).toThrow(/ClusterQueue "cq" can provide at most cpu 8/);
  });

  test('bad worker groups and submitter settings throw at the call, not at synth', () => {
    const { chart, lq } = setup();
    expect(() => new QueuedRayJob(chart, 'neg', { queue: lq, entrypoint: 'x', headGroup: head, workerGroups: [worker({ replicas: -1 })] })).toThrow(/replicas -1 must be a whole number >= 0/);
    expect(() => new QueuedRayJob(chart, 'mode', {
      queue: lq, entrypoint: 'x', headGroup: head, submissionMode: SubmissionMode.HTTP_MODE, submitterResources: { cpu: Quantity.cpu(1) },
    })).toThrow(/submitterResources\/submitterPodTemplate apply only to K8sJobMode, not HTTPMode/);
    const ok = new QueuedRayJob(chart, 'ok', { queue: lq, entrypoint: 'x', headGroup: head });
    expect(() => ok.addWorkerGroup(worker({ replicas: 1.5 }))).toThrow(/replicas 1.5 must be a whole number/);
    // The refused group is not kept.
    expect(ok.toManifest().spec.rayClusterSpec.workerGroupSpecs).toEqual([]);
    expect(() => new QueuedRayJob(chart, 'ttl', { queue: lq, entrypoint: 'x', headGroup: head, ttlAfterFinished: Duration.millis(1500) })).toThrow(/ttlAfterFinished is 1500 ms; the field takes whole seconds/);
    const t = new QueuedRayJob(chart, 'ttl-ok',
      { queue: lq, entrypoint: 'x', headGroup: head, ttlAfterFinished: Duration.minutes(2), activeDeadline: Duration.hours(1) });
    expect(t.toManifest().spec).toMatchObject({ ttlSecondsAfterFinished: 120, activeDeadlineSeconds: 3600 });
  });
});
