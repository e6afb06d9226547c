// Construct behaviour: versions, emitted API versions, namespaces, tenants, escape hatches and synth-time refusals.
import { App, Chart, Duration, Testing } from 'cdk8s';
import {
  ClusterQueue, Cohort, ElasticRayCluster, ElasticRayService, FungibilityPolicy, KubeRayVersion, KueueRayVersions, KueueVersion,
  LocalQueue, NamespaceSelector, Quantity, QueuedRayCluster, QueuedRayJob, QueuedRayService, ResourceFlavor, ResourceName, StopPolicy,
  SubmissionMode, TenantQueue, WorkloadPriorityClass,
} from '../src';

function setup(kueue = 'v0.19.2', kubeRay = 'v1.6.2') {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  const chart = new Chart(app, 'c');
  const flavor = new ResourceFlavor(chart, 'default-flavor');
  const cq = new ClusterQueue(chart, 'cq', {
    resourceGroups: [{ flavors: [{ flavor, quotas: [
      { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(8) },
      { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) },
    ] }] }],
  });
  const lq = new LocalQueue(chart, 'lq', { clusterQueue: cq });
  const dev = new WorkloadPriorityClass(chart, 'dev', { value: 100 });
  return { app, chart, flavor, cq, lq, dev };
}

const head = { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) } };
const worker = (extra: object = {}) => ({ groupName: 'workers', replicas: 1, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) },
  ...extra });
const synth = (app: App) => app.node.findAll().filter((c): c is Chart => c instanceof Chart).flatMap((c) => c.toJson());

describe('versions', () => {
  test('default pair is Kueue v0.19.2 + KubeRay v1.6.2, emitting v1beta2', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    const f = new ResourceFlavor(chart, 'f');
    expect(KueueRayVersions.of(chart)).toEqual({ kueueVersion: 'v0.19.2', kubeRayVersion: 'v1.6.2', elasticGateEnabled: undefined });
    expect(f.apiObject.toJson().apiVersion).toBe('kueue.x-k8s.io/v1beta2');
  });

  test('an unknown version is refused with the supported list', () => {
    expect(() => KueueVersion.of('v0.15.2'))
      .toThrow("Kueue version 'v0.15.2' is not supported: choose one of v0.13.4, v0.14.8, v0.17.0, v0.17.8, v0.19.2");
    expect(() => KubeRayVersion.of('1.8.0')).toThrow("KubeRay version '1.8.0' is not supported");
    const app = Testing.app();
    app.node.setContext('cdk8s-kueue-ray:kueueVersion', 'v9.9.9');
    expect(() => new ResourceFlavor(new Chart(app, 'c'), 'f')).toThrow(/v9.9.9.*is not supported.*context at 'c\/f'/);
  });

  test.each([['v0.13.4', 'kueue.x-k8s.io/v1beta1', 'cohort'], ['v0.14.8', 'kueue.x-k8s.io/v1beta1', 'cohort'],
    ['v0.17.0', 'kueue.x-k8s.io/v1beta2', 'cohortName'], ['v0.19.2', 'kueue.x-k8s.io/v1beta2', 'cohortName']])(
    'Kueue %s emits %s with spec.%s', (kueue, apiVersion, field) => {
      const { app, chart, flavor } = setup(kueue, 'v1.4.2');
      const cq = new ClusterQueue(chart, 'borrower', {
        cohort: Cohort.fromCohortName(chart, 'pool', 'pool'),
        resourceGroups: [{ flavors: [{
          flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1), borrowingLimit: Quantity.cpu(2) }],
        }] }],
      });
      const out = cq.apiObject.toJson();
      expect(out.apiVersion).toBe(apiVersion);
      expect(out.spec[field]).toBe('pool');
      expect(synth(app).every((o) => o.apiVersion !== undefined)).toBe(true);
    });

  test('fungibility values are checked against the emitted API version', () => {
    const { chart, flavor } = setup('v0.19.2');
    const groups = [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] }] }];
    expect(() => new ClusterQueue(chart, 'x', { resourceGroups: groups, flavorFungibility: { whenCanBorrow: FungibilityPolicy.BORROW } }))
      .toThrow(/whenCanBorrow "Borrow" is not valid for Kueue v0.19.2 .*use FungibilityPolicy.MAY_STOP_SEARCH/);
    const old = setup('v0.14.8');
    expect(() => new ClusterQueue(old.chart, 'x', { resourceGroups: [{ flavors: [{ flavor: old.flavor, quotas: [{ resource: ResourceName.CPU,
      nominalQuota: Quantity.cpu(1) }] }] }], flavorFungibility: { whenCanPreempt: FungibilityPolicy.MAY_STOP_SEARCH } }))
      .toThrow(/whenCanPreempt "MayStopSearch" is not valid for Kueue v0.14.8/);
  });
});

describe('Kueue objects', () => {
  test('cluster-scoped objects carry no namespace, even in a namespaced chart', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c', { namespace: 'team-x' });
    const flavor = new ResourceFlavor(chart, 'f');
    const cq = new ClusterQueue(chart, 'cq',
      { resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] }] }] });
    new WorkloadPriorityClass(chart, 'p', { value: 1 });
    new Cohort(chart, 'co');
    new TenantQueue(chart, 't', { namespace: 't', clusterQueue: cq });
    const out = chart.toJson();
    for (const o of out.filter((x: any) => ['ResourceFlavor', 'ClusterQueue', 'WorkloadPriorityClass', 'Cohort', 'Namespace'].includes(x.kind))) {
      expect([o.kind, o.metadata.namespace]).toEqual([o.kind, undefined]);
    }
    expect(out.find((o: any) => o.kind === 'LocalQueue').metadata.namespace).toBe('t');
  });

  test('every ClusterQueue field reaches the output (nothing dropped by the generated L1)', () => {
    const { chart, flavor } = setup();
    const gpu = new ResourceFlavor(chart, 'gpu',
      { nodeLabels: { pool: 'gpu' }, tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists' as any, effect: 'NoSchedule' as any }] });
    const cq = new ClusterQueue(chart, 'full', {
      cohort: new Cohort(chart, 'research', { fairSharingWeight: 2 }),
      namespaceSelector: NamespaceSelector.matchLabels({ team: 'ml' }),
      queueingStrategy: 'StrictFIFO' as any,
      preemption: { withinClusterQueue: 'LowerPriority' as any, reclaimWithinCohort: 'Any' as any, borrowWithinCohort: 'LowerPriority' as any,
        borrowWithinCohortMaxPriorityThreshold: 100 },
      flavorFungibility: { whenCanBorrow: FungibilityPolicy.TRY_NEXT_FLAVOR, whenCanPreempt: FungibilityPolicy.MAY_STOP_SEARCH },
      fairSharingWeight: 3,
      stopPolicy: StopPolicy.HOLD,
      resourceGroups: [
        { flavors: [{ flavor, quotas: [
          { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(2.5), borrowingLimit: Quantity.cpu(1), lendingLimit: Quantity.millicpu(500) },
        ] }] },
      ],
    });
    cq.addResourceGroup({ flavors: [{ flavor: gpu, quotas: [{ resource: ResourceName.NVIDIA_GPU, nominalQuota: Quantity.count(8) }] }] });
    expect(cq.apiObject.toJson().spec).toEqual({
      cohortName: 'research',
      namespaceSelector: { matchLabels: { team: 'ml' } },
      queueingStrategy: 'StrictFIFO',
      preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any',
        borrowWithinCohort: { policy: 'LowerPriority', maxPriorityThreshold: 100 } },
      flavorFungibility: { whenCanBorrow: 'TryNextFlavor', whenCanPreempt: 'MayStopSearch' },
      fairSharing: { weight: '3' },
      stopPolicy: 'Hold',
      resourceGroups: [
        { coveredResources: ['cpu'],
          flavors: [{ name: 'default-flavor', resources: [{ name: 'cpu', nominalQuota: '2500m', borrowingLimit: '1', lendingLimit: '500m' }] }] },
        { coveredResources: ['nvidia.com/gpu'], flavors: [{ name: 'gpu', resources: [{ name: 'nvidia.com/gpu', nominalQuota: '8' }] }] },
      ],
    });
    expect(gpu.apiObject.toJson().spec)
      .toEqual({ nodeLabels: { pool: 'gpu' }, tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] });
  });

  test('quota rules are refused eagerly with the field and the fix', () => {
    const { chart, flavor } = setup();
    const cpu = (extra: object) => [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1), ...extra }] }] }];
    expect(() => new ClusterQueue(chart, 'a', { resourceGroups: cpu({ borrowingLimit: Quantity.cpu(1) }) })).toThrow(/borrowingLimit\/lendingLimit must be nil when cohort is empty/);
    expect(() => new ClusterQueue(chart, 'b', { cohort: Cohort.fromCohortName(chart, 'x-cohort', 'x'), resourceGroups: cpu({ lendingLimit: Quantity.cpu(2) }) })).toThrow(/lendingLimit 2 must be less than or equal to the nominalQuota 1/);
    const other = new ResourceFlavor(chart, 'other');
    expect(() => new ClusterQueue(chart, 'c2', { resourceGroups: [{ flavors: [
      { flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(1) },
      ] },
      { flavor: other, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] },
    ] }] })).toThrow(/flavor "other"\) lists resources \[cpu\] but the group covers \[cpu, memory\]/);
    expect(() => Quantity.parse('lots')).toThrow(/'lots' is not a Kubernetes quantity/);
    expect(() => Quantity.cpu(0.0005)).toThrow(/millicore precision/);
  });

  test('duplicate names are refused at synth', () => {
    const { app, chart } = setup();
    new ResourceFlavor(chart, 'dup', { name: 'default-flavor' });
    expect(() => app.synth()).toThrow(/ResourceFlavor "default-flavor" is also defined at 'c\/default-flavor'/);
  });

  test('a ClusterQueue without quota is refused at synth', () => {
    const { app, chart } = setup();
    new ClusterQueue(chart, 'empty');
    expect(() => app.synth()).toThrow(/spec.resourceGroups is empty, so the queue admits nothing/);
  });
});

describe('TenantQueue', () => {
  test('creates the namespace, its own ClusterQueue limited to it, and records the priority rules', () => {
    const { app, chart, flavor, dev } = setup();
    const prod = new WorkloadPriorityClass(chart, 'prod', { value: 1000 });
    const t = new TenantQueue(chart, 'team-a', {
      namespace: 'team-a', cohort: Cohort.fromCohortName(chart, 'research', 'research'), defaultPriorityClass: dev,
      allowedPriorityClasses: [dev, prod],
      resourceGroups: [{ flavors: [{ flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(4) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(8) },
      ] }] }],
    });
    const job = new QueuedRayJob(chart, 'j', { queue: t, entrypoint: 'python x.py', headGroup: head, workerGroups: [worker()] });
    const out = synth(app);
    const ns = out.find((o) => o.kind === 'Namespace');
    expect(ns.metadata).toMatchObject({ name: 'team-a', labels: { 'cdk8s-kueue-ray.io/tenant': 'team-a' } });
    const cq = out.find((o) => o.kind === 'ClusterQueue' && o.metadata.name === 'team-a');
    expect(cq.spec.namespaceSelector).toEqual({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }] });
    expect(cq.spec.preemption).toEqual({ withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'LowerPriority' });
    const lq = out.find((o) => o.kind === 'LocalQueue' && o.metadata.namespace === 'team-a');
    expect(lq.metadata).toMatchObject({ name: 'default',
      annotations: { 'cdk8s-kueue-ray.io/allowed-priority-classes': 'dev,prod', 'cdk8s-kueue-ray.io/default-priority-class': 'dev' } });
    expect(job.toManifest().metadata)
      .toMatchObject({ namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev' } });
  });

  test('a priority class the tenant does not allow is refused at synth', () => {
    const { app, chart, cq, dev } = setup();
    const prod = new WorkloadPriorityClass(chart, 'prod', { value: 1000 });
    const t = new TenantQueue(chart, 'b', { namespace: 'team-b', clusterQueue: cq, allowedPriorityClasses: [dev] });
    new QueuedRayJob(chart, 'j', { queue: t, priorityClass: prod, entrypoint: 'python x.py', headGroup: head });
    expect(() => app.synth()).toThrow(/priority class "prod" is not allowed for the tenant of namespace "team-b" \(allowed: dev\)/);
  });

  test('own-queue options with a shared ClusterQueue are refused instead of ignored', () => {
    const { chart, cq } = setup();
    expect(() => new TenantQueue(chart, 'x', { namespace: 'x', clusterQueue: cq, cohort: Cohort.fromCohortName(chart, 'c-cohort', 'c') })).toThrow(/would be ignored/);
    expect(() => new TenantQueue(chart, 'y', { namespace: 'y' })).toThrow(/exactly one of 'clusterQueue'/);
  });
});

describe('Ray workloads', () => {
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

  test('ElasticRayService suspends through rayClusterConfig on Kueue >= 0.17 only', () => {
    for (const [kueue, suspend] of [['v0.14.8', undefined], ['v0.17.8', true]] as const) {
      const { chart, lq } = setup(kueue, 'v1.5.2');
      const s = new ElasticRayService(chart, 's',
        { queue: lq, serveConfig: { applications: [] }, headGroup: head, workerGroups: [worker({ maxReplicas: 3 })] });
      expect(s.toManifest().spec.rayClusterConfig.suspend).toBe(suspend);
      expect(s.toManifest().spec.serveConfigV2).toBe('applications: []\n');
    }
  });

  test('ElasticRayService\'s head has the port named serve KubeRay routes Serve traffic through; a RayCluster\'s has not', () => {
    const { chart, lq } = setup();
    const s = new ElasticRayService(chart, 's',
      { queue: lq, serveConfig: { applications: [] }, headGroup: head, workerGroups: [worker({ maxReplicas: 3 })] });
    const ports = (spec: any) => spec.headGroupSpec.template.spec.containers[0].ports;
    expect(ports(s.toManifest().spec.rayClusterConfig)).toContainEqual({ containerPort: 8000, name: 'serve' });
    const c = new ElasticRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker({ maxReplicas: 3 })] });
    expect(ports(c.toManifest().spec).map((p: any) => p.name)).toEqual(['gcs-server', 'dashboard', 'client']);
  });

  test('QueuedRayCluster is a fixed gang: no autoscaler, no elastic annotation, suspended, counted as written', () => {
    const { chart, lq, dev } = setup();
    const c = new QueuedRayCluster(chart, 'c', { queue: lq, priorityClass: dev, headGroup: head, workerGroups: [worker({ replicas: 2 })] });
    const out = c.apiObject.toJson();
    expect(out).toEqual(c.toManifest());
    expect(out.metadata).toEqual({ name: 'c', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'lq', 'kueue.x-k8s.io/priority-class': 'dev' } });
    expect(out.spec.suspend).toBe(true);
    expect(out.spec.enableInTreeAutoscaling).toBeUndefined();
    expect(out.spec.autoscalerOptions).toBeUndefined();
    expect(out.spec.workerGroupSpecs[0]).toMatchObject({ replicas: 2, minReplicas: 2, maxReplicas: 2 });
    expect(c.elastic).toBe(false);
    // The hand-written gang: head 1 CPU / 2Gi + 2 x (1 CPU / 2Gi), nothing added.
    expect(c.gang.totalRequests).toEqual({ cpu: '3', memory: '6Gi' });
    expect(c.gang.podSets.map((p) => [p.name, p.count, p.extras])).toEqual([['head', 1, []], ['workers', 2, []]]);
  });

  test('QueuedRayService: serve port, suspend through rayClusterConfig on Kueue >= 0.17 only, no autoscaler', () => {
    for (const [kueue, suspend] of [['v0.14.8', undefined], ['v0.17.8', true]] as const) {
      const { chart, lq } = setup(kueue, 'v1.5.2');
      const s = new QueuedRayService(chart, 's',
        { queue: lq, serveConfigV2Yaml: 'applications: []\n', headGroup: head, workerGroups: [worker()] });
      const spec = s.toManifest().spec;
      expect(spec.serveConfigV2).toBe('applications: []\n');
      expect(spec.rayClusterConfig.suspend).toBe(suspend);
      expect(spec.rayClusterConfig.enableInTreeAutoscaling).toBeUndefined();
      expect(spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports).toContainEqual({ containerPort: 8000, name: 'serve' });
      expect(s.toManifest().metadata.annotations).toBeUndefined();
      expect(s.gang.totalRequests).toEqual({ cpu: '2', memory: '4Gi' });
    }
    const { chart, lq } = setup();
    expect(() => new QueuedRayService(chart, 'x', { queue: lq, headGroup: head })).toThrow(/give exactly one of 'serveConfig' or 'serveConfigV2Yaml'/);
  });

  test('the fixed-size siblings run the same rules: a gang that can never fit, a broken RayService pair', () => {
    const { app, chart, lq } = setup();
    new QueuedRayCluster(chart, 'big', { queue: lq, headGroup: head, workerGroups: [worker({ replicas: 8 })] });
    expect(() => app.synth()).toThrow(/RayCluster .*the gang needs cpu 9, memory 18Gi .* but ClusterQueue "cq" can provide at most cpu 8, memory 16Gi/);
    const broken = setup('v0.17.8', 'v1.4.2');
    new QueuedRayService(broken.chart, 's', { queue: broken.lq, serveConfig: { applications: [] }, headGroup: head });
    expect(() => broken.app.synth()).toThrow(/kuberay#4686/);
  });

  test('KubeRay v1.7.0: a RayService is never suspended through spec.suspend; it synthesizes on Kueue < 0.17 and is refused on native Kueue', () => {
    const old = setup('v0.14.8', 'v1.7.0');
    const s = new QueuedRayService(old.chart, 's', { queue: old.lq, serveConfig: { applications: [] }, headGroup: head });
    old.app.synth();
    expect(s.toManifest().spec.suspend).toBeUndefined();
    expect(s.toManifest().spec.rayClusterConfig.suspend).toBeUndefined();
    const native = setup('v0.19.2', 'v1.7.0');
    const n = new QueuedRayService(native.chart, 's', { queue: native.lq, serveConfig: { applications: [] }, headGroup: head });
    // Kueue 0.19 suspends through rayClusterConfig.suspend, which 1.7.0 applies only when it creates the RayCluster.
    expect(n.toManifest().spec.suspend).toBeUndefined();
    expect(n.toManifest().spec.rayClusterConfig.suspend).toBe(true);
    expect(() => native.app.synth()).toThrow(/KubeRay v1.7.0 applies only when it creates the RayCluster/);
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

  test('an elastic workload needs maxReplicas, at construction', () => {
    const { chart, lq } = setup();
    expect(() => new ElasticRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker()] })).toThrow(/maxReplicas is required for an elastic workload/);
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

  test('a TenantQueue gives its default priority class through the queue interface', () => {
    const { chart, cq, dev } = setup();
    const tenant = new TenantQueue(chart, 't', { namespace: 'team-t', clusterQueue: cq, defaultPriorityClass: dev });
    const j = new QueuedRayJob(chart, 'j', { queue: tenant, entrypoint: 'x', headGroup: head });
    expect(j.workloadPriorityClassName).toBe('dev');
    expect(j.toManifest().metadata.labels['kueue.x-k8s.io/priority-class']).toBe('dev');
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

  test('borrowing and gate warnings are available without failing synth', () => {
    const { chart, lq } = setup('v0.17.8');
    const c = new ElasticRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker({ maxReplicas: 20 })] });
    const w = c.policyWarnings().join('\n');
    expect(w).toMatch(/ElasticJobsViaWorkloadSlices is Alpha and off by default on Kueue v0.17.8/);
    expect(w).toMatch(/at maxReplicas the cluster needs cpu 21/);
    expect(w).toMatch(/does not count the autoscaler sidecar/);
  });
});
