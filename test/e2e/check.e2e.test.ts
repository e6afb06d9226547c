// `check --kubeconfig` against a real kube-apiserver with the real Kueue CRDs: the queues, priority
// classes and namespace labels come from the cluster (listed through the controller's kube client),
// and give the same findings as the same objects given as files (--queues). The bundled bin runs it.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { TestCluster } from './support/cluster';
import { describeOnPair } from './support/pairs';
import { tmpdir } from '../support/synth';
import { bundledBin } from '../support/bundle';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const API = 'kueue.x-k8s.io/v1beta2';

const quota = (cpu: string) => [{ coveredResources: ['cpu', 'memory'],
  flavors: [{ name: 'default-flavor', resources: [{ name: 'cpu', nominalQuota: cpu }, { name: 'memory', nominalQuota: '6G' }] }] }];
const QUEUE_OBJECTS = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ml', labels: { team: 'ml' } } },
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } },
  { apiVersion: API, kind: 'ResourceFlavor', metadata: { name: 'default-flavor' }, spec: {} },
  { apiVersion: API, kind: 'ClusterQueue', metadata: { name: 'cluster-queue' }, spec: { namespaceSelector: {}, resourceGroups: quota('3') } },
  { apiVersion: API, kind: 'ClusterQueue', metadata: { name: 'ml-only' },
    spec: { namespaceSelector: { matchLabels: { team: 'ml' } }, resourceGroups: quota('8') } },
  { apiVersion: API, kind: 'LocalQueue', metadata: { name: 'user-queue', namespace: 'default' }, spec: { clusterQueue: 'cluster-queue' } },
  { apiVersion: API, kind: 'LocalQueue', metadata: { name: 'ml-queue', namespace: 'ml' }, spec: { clusterQueue: 'ml-only' } },
  { apiVersion: API, kind: 'LocalQueue', metadata: { name: 'ml-queue', namespace: 'other' }, spec: { clusterQueue: 'ml-only' } },
  { apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: 'dev-priority' }, value: 100 },
];

function job(name: string, namespace: string, queue: string, workerCpu: string, priority = 'dev-priority'): any {
  const res = (cpu: string) => ({ requests: { cpu, memory: '1Gi' }, limits: { cpu, memory: '1Gi' } });
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name, namespace, labels: { 'kueue.x-k8s.io/queue-name': queue, 'kueue.x-k8s.io/priority-class': priority } },
    spec: {
      entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: true,
      rayClusterSpec: {
        headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0', resources: res('1') }] } } },
        workerGroupSpecs: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1,
          template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0', resources: res(workerCpu) }] } } }],
      },
    },
  };
}

describeOnPair('check --kubeconfig', PAIR)('check --kubeconfig', () => {
  let cluster: TestCluster;
  let bin: string;
  let dir: string;
  beforeAll(async () => {
    bin = bundledBin();
    dir = tmpdir();
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], controllers: false });
    for (const o of QUEUE_OBJECTS) await cluster.client.apply(o);
    fs.writeFileSync(path.join(dir, 'queues.yaml'), QUEUE_OBJECTS.map((o) => stringify(o)).join('---\n'));
    fs.writeFileSync(path.join(dir, 'jobs.yaml'), [
      job('fits', 'default', 'user-queue', '1'),
      job('too-big', 'default', 'user-queue', '2'),
      job('in-ml', 'ml', 'ml-queue', '4'),
      job('in-other', 'other', 'ml-queue', '1'),
      job('no-queue', 'default', 'missing', '1'),
      job('no-class', 'default', 'user-queue', '1', 'gold'),
    ].map((o) => stringify(o)).join('---\n'));
  }, 300000);
  afterAll(async () => { await cluster?.stop(); }, 60000);

  const check = (...args: string[]) => {
    const r = spawnSync(process.execPath, [bin, 'check', ...args], { cwd: dir, encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  test('queues, priority classes and namespace labels from the cluster; the same findings as with the objects as files', () => {
    const live = check('jobs.yaml', `--kubeconfig=${cluster.kubeconfig}`, '--output=json');
    expect(live.err).toBe('');
    expect(live.code).toBe(1);
    const report = JSON.parse(live.out);
    expect(report.inventory).toMatchObject({ from: ['cluster'], localQueues: 3, clusterQueues: 2, priorityClasses: 1 });
    expect(report.inventory.namespaces).toBeGreaterThanOrEqual(5); // default, kube-system, ... ml, other
    const byObject = (r: any) => r.findings.map((f: any) => `${f.object} ${f.rule} ${f.severity} ${f.location.line}`).sort();
    expect(report.findings.map((f: any) => `${f.object} ${f.rule} ${f.severity}`).sort()).toEqual([
      'RayJob default/no-class priorityClassAllowed error',
      'RayJob default/no-queue queueExists error',
      'RayJob default/too-big gangCanEverFit error',
      'RayJob other/in-other clusterQueueAdmitsNamespace error',
    ]);
    // "other" exists in the cluster without the team label: the selector's mismatch is known, an error.
    expect(report.findings.find((f: any) => f.rule === 'clusterQueueAdmitsNamespace').message).toMatch(/does not match namespace "other"/);
    const files = JSON.parse(check('jobs.yaml', '--queues=queues.yaml', '--output=json').out);
    expect(byObject(files)).toEqual(byObject(report));
  });

  test('the Kueue version and elastic gate from the cluster\'s kueue-controller-manager Deployment and ConfigMap', async () => {
    fs.writeFileSync(path.join(dir, 'elastic.yaml'), stringify({
      apiVersion: 'ray.io/v1', kind: 'RayCluster',
      metadata: { name: 'el', namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' },
        annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
      spec: { headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
        resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } } },
    }));
    // Before the install: defaults (v0.19.2, whose gate is on by default; unknown here, so no finding).
    const before = JSON.parse(check('elastic.yaml', `--kubeconfig=${cluster.kubeconfig}`, '--output=json').out);
    expect(before.context).toMatchObject({ kueue: 'v0.19.2', kueueFrom: 'default', elasticGate: 'unknown', elasticGateFrom: 'default' });
    await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kueue-system' } });
    await cluster.client.apply({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kueue-manager-config', namespace: 'kueue-system' },
      data: { 'controller_manager_config.yaml': stringify({ apiVersion: 'config.kueue.x-k8s.io/v1beta1', kind: 'Configuration',
        featureGates: { ElasticJobsViaWorkloadSlices: false } }) },
    });
    await cluster.client.apply({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kueue-controller-manager', namespace: 'kueue-system' },
      spec: {
        replicas: 0, selector: { matchLabels: { app: 'kueue' } },
        template: { metadata: { labels: { app: 'kueue' } }, spec: { containers: [{ name: 'manager', image: 'registry.k8s.io/kueue/kueue:v0.19.2',
          args: ['--config=/controller_manager_config.yaml'] }] } },
      },
    });
    const after = check('elastic.yaml', `--kubeconfig=${cluster.kubeconfig}`, '--output=json');
    const r = JSON.parse(after.out);
    expect(r.context).toMatchObject({ kueue: 'v0.19.2', kueueFrom: 'cluster', elasticGate: 'off', elasticGateFrom: 'cluster' });
    const annotationLine = fs.readFileSync(path.join(dir, 'elastic.yaml'), 'utf8').split('\n')
      .findIndex((l) => l.includes('kueue.x-k8s.io/elastic-job')) + 1;
    expect(r.findings.map((f: any) => [f.rule, f.severity, f.location.line])).toEqual([['elasticFeatureGate', 'error', annotationLine]]);
    expect(after.code).toBe(1);
  });

  test('text output on the live queues, and a clean file passes', () => {
    fs.writeFileSync(path.join(dir, 'fits.yaml'), stringify(job('fits', 'ml', 'ml-queue', '4')));
    const ok = check('fits.yaml', `--kubeconfig=${cluster.kubeconfig}`);
    expect(ok.err).toBe('');
    expect(ok.out).toMatch(/^check: 0 errors, 0 warnings in 1 Ray object \(1 file\); .*queues from the cluster \(3 LocalQueues, 2 ClusterQueues/m);
    expect(ok.code).toBe(0);
  });
});
