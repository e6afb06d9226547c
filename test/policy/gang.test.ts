// Gang accounting: the PodSets and totals Kueue admits, with the guide's numbers and each version's extras.
import { App, Chart } from 'cdk8s';
import { ElasticQueues } from '../../examples/elastic-queues';
import { ElasticRayClusterScenario } from '../../examples/elastic-raycluster';
import { ElasticRayServiceScenario } from '../../examples/elastic-rayservice';
import { GuideQueues } from '../../examples/guide-queues';
import { toyJobProps } from '../../examples/toy-job';
import { KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, QueuedRayJob, SubmissionMode } from '../../src';
import { computeGang, formatResources, parseQuantity, podRequests } from '../../src/policy';
import { kueueCapabilities } from '../../src/policy/versions';
import { KUEUE_VERSIONS } from '../support/versions';

function appFor(kueue: string, kubeRay = 'v1.6.2') {
  const app = new App({ outdir: '/tmp/unused' });
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  const queues = new GuideQueues(app, 'queues');
  return { app, queues, chart: new Chart(app, 'jobs') };
}

describe.each(KUEUE_VERSIONS)('the toy RayJob on Kueue %s', (kueue) => {
  test('is one gang of head + worker + default submitter = 2.5 CPU / 4296Mi', () => {
    const { queues, chart } = appFor(kueue);
    const job = new QueuedRayJob(chart, 'toy', toyJobProps(queues.userQueue, queues.devPriority));
    const gang = job.gang;
    expect(gang.podSets.map((p) => [p.name, p.count, p.perPodRequests])).toEqual([
      ['head', 1, { cpu: '1', memory: '2Gi' }],
      ['small-group', 1, { cpu: '1', memory: '2Gi' }],
      ['submitter', 1, { cpu: '0.5', memory: '200Mi' }],
    ]);
    expect(gang.totalRequests).toEqual({ cpu: '2.5', memory: '4296Mi' });
  });

  test('so two toy jobs cannot both fit the 3 CPU / 6G queue, although one pod more would', () => {
    const { queues, chart } = appFor(kueue);
    const job = new QueuedRayJob(chart, 'toy', toyJobProps(queues.userQueue, queues.devPriority));
    const total = computeGang(job.toManifest(), kueueCapabilities(kueue)).total;
    const cpuQuota = parseQuantity('3');
    const memQuota = parseQuantity('6G');
    expect(total.get('cpu')!).toBeLessThanOrEqual(cpuQuota); // one gang fits
    expect(total.get('memory')!).toBeLessThanOrEqual(memQuota);
    expect(2n * total.get('cpu')!).toBeGreaterThan(cpuQuota); // two do not: the second stays pending
    expect(total.get('cpu')! + parseQuantity('1')).toBeGreaterThan(cpuQuota); // not even the second head pod
    expect(job.policyFindings()).toEqual([]); // each one alone is admissible
  });
});

describe('version extras in the head PodSet', () => {
  test('the guide elastic RayCluster peaks at 5.5 CPU on 0.19 (autoscaler sidecar counted) and 5 CPU before', () => {
    for (const [kueue, head, max] of [['v0.19.2', '1.5', '5.5'], ['v0.17.8', '1', '5'], ['v0.14.8', '1', '5']]) {
      const { app, queues } = appFor(kueue);
      const elastic = new ElasticQueues(app, 'eq', queues.defaultFlavor);
      const c = new ElasticRayClusterScenario(app, 'rc', elastic).cluster;
      expect(c.gang.podSets[0].perPodRequests.cpu).toBe(head);
      const atMax = computeGang(c.toManifest(), kueueCapabilities(kueue), { workerReplicas: (g) => g.maxReplicas });
      expect(formatResources(new Map([['cpu', atMax.total.get('cpu')!]]))).toBe(`cpu ${max}`);
    }
  });

  test('the guide elastic RayService peaks at 6.5 CPU on 0.19', () => {
    const { app, queues } = appFor('v0.19.2');
    const elastic = new ElasticQueues(app, 'eq', queues.defaultFlavor);
    const s = new ElasticRayServiceScenario(app, 'rs', elastic).service;
    const atMax = computeGang(s.toManifest(), kueueCapabilities('v0.19.2'), { workerReplicas: (g) => g.maxReplicas });
    expect(atMax.total.get('cpu')).toBe(parseQuantity('6.5'));
    expect(s.gang.podSets[0].extras).toEqual(['autoscaler sidecar 500m/512Mi']);
  });

  test('autoscalerOptions.resources replace the 500m/512Mi default', () => {
    const { app, queues } = appFor('v0.19.2');
    const elastic = new ElasticQueues(app, 'eq', queues.defaultFlavor);
    const chart = new Chart(app, 'c');
    const { ElasticRayCluster } = require('../../src');
    const c = new ElasticRayCluster(chart, 'rc', {
      queue: elastic.localQueue,
      autoscaling: { resources: { cpu: Quantity.millicpu(200), memory: Quantity.mebibytes(256) } },
      headGroup: { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } },
      workerGroups: [{ groupName: 'w', maxReplicas: 2, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } }],
    });
    expect(c.gang.podSets[0].perPodRequests).toEqual({ cpu: '1.2', memory: '1280Mi' });
  });

  test('SidecarMode submitter is counted from 0.17.7 (0.17.8) but not on 0.17.0', () => {
    for (const [kueue, headCpu, podSets] of [['v0.17.8', '1.5', 2], ['v0.17.0', '1', 2], ['v0.19.2', '1.5', 2]] as const) {
      const { queues, chart } = appFor(kueue);
      const job = new QueuedRayJob(chart, 'sc',
        { ...toyJobProps(queues.userQueue, queues.devPriority), submissionMode: SubmissionMode.SIDECAR_MODE });
      expect(job.gang.podSets.map((p) => p.name)).toHaveLength(podSets); // no submitter PodSet in SidecarMode
      expect(job.gang.podSets[0].perPodRequests.cpu).toBe(headCpu);
    }
  });

  test('HTTPMode has no submitter PodSet', () => {
    const { queues, chart } = appFor('v0.19.2');
    const job = new QueuedRayJob(chart, 'http', { ...toyJobProps(queues.userQueue, queues.devPriority), submissionMode: SubmissionMode.HTTP_MODE });
    expect(job.gang.totalRequests).toEqual({ cpu: '2', memory: '4Gi' });
  });

  test('GCS fault-tolerance Redis cleanup is max-merged into the head Ray container from 0.17.6', () => {
    const obj: any = {
      kind: 'RayCluster',
      metadata: { name: 'ft', annotations: { 'ray.io/ft-enabled': 'true' } },
      spec: { headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head',
        resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } } } },
    };
    expect(formatResources(computeGang(obj, kueueCapabilities('v0.17.8')).total)).toBe('cpu 0.2, memory 256Mi');
    expect(formatResources(computeGang(obj, kueueCapabilities('v0.17.0')).total)).toBe('cpu 0.1, memory 128Mi');
  });

  test('custom submitter resources replace the default submitter PodSet', () => {
    const { queues, chart } = appFor('v0.19.2');
    const job = new QueuedRayJob(chart, 'sub',
      { ...toyJobProps(queues.userQueue, queues.devPriority), submitterResources: { cpu: Quantity.millicpu(100), memory: Quantity.mebibytes(100) } });
    expect(job.gang.podSets[2]).toEqual({ name: 'submitter', count: 1, perPodRequests: { cpu: '0.1', memory: '100Mi' }, extras: [] });
  });
});

describe('pod requests follow Kubernetes PodRequests', () => {
  const q = (s: string) => parseQuantity(s);
  test('limits stand in for missing requests; init containers are max-ed; sidecars add; overhead adds', () => {
    const pod = {
      containers: [
        { name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' } } },
        { name: 'b', resources: { requests: { cpu: '500m' }, limits: { cpu: '2', 'nvidia.com/gpu': '1' } } },
      ],
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '100m', memory: '64Mi' } } },
        { name: 'init', resources: { requests: { cpu: '3', memory: '100Mi' } } },
      ],
      overhead: { cpu: '10m' },
    };
    const r = podRequests(pod, 'spec');
    // regular 1.5 CPU + sidecar 0.1 = 1.6; init 3 + sidecar 0.1 = 3.1 wins; + overhead 0.01
    expect(r.get('cpu')).toBe(q('3.11'));
    expect(r.get('memory')).toBe(q('1Gi') + q('64Mi'));
    expect(r.get('nvidia.com/gpu')).toBe(q('1'));
  });

  test('workers count replicas × numOfHosts', () => {
    const obj: any = {
      kind: 'RayCluster', metadata: { name: 'tpu' },
      spec: {
        headGroupSpec: { template: { spec: { containers: [{ name: 'h', resources: { requests: { cpu: '1' } } }] } } },
        workerGroupSpecs: [{ groupName: 'TPU', replicas: 2, numOfHosts: 4,
          template: { spec: { containers: [{ name: 'w', resources: { requests: { 'google.com/tpu': '4' } } }] } } }],
      },
    };
    const g = computeGang(obj, kueueCapabilities('v0.19.2'));
    expect(g.podSets[1]).toMatchObject({ name: 'tpu', count: 8 });
    expect(g.total.get('google.com/tpu')).toBe(q('32'));
  });

  test('a bad quantity names the field', () => {
    expect(() => podRequests({ containers: [{ name: 'a', resources: { requests: { cpu: 'lots' } } }] }, 'spec.x'))
      .toThrow("spec.x.containers[0].resources.requests.cpu: 'lots' is not a Kubernetes quantity");
  });
});
