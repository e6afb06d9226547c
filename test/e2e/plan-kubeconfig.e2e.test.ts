// `plan --kubeconfig` on the test control plane (Kueue v0.19.2, no KubeRay operator): the live
// cluster's queues and the RayJob Kueue already admitted are replayed before the new manifest, so the
// plan says what happens if it is applied now.
import * as fs from 'fs';
import * as path from 'path';
import { planCommand, planMain } from '../../src/cli/plan';
import { replayOrder } from '../../src/cli/plan-cluster';
import { PlanResult, topologyAssignmentOf } from '../../src/policy/plan';
import { tmpdir } from '../support/synth';
import { TestCluster } from './support/cluster';
import { waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const K = 'kueue.x-k8s.io/v1beta2';

const container = (name: string, cpu: string) =>
  ({ name, image: 'rayproject/ray:2.46.0', resources: { requests: { cpu, memory: '1Gi' }, limits: { cpu, memory: '1Gi' } } });
const job = (name: string, priority: string) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob',
  metadata: { name, namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': priority } },
  spec: {
    entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: true, submissionMode: 'HTTPMode',
    rayClusterSpec: {
      headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head', '1')] } } },
      workerGroupSpecs: [{ groupName: 'workers', replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {},
        template: { spec: { containers: [container('ray-worker', '1')] } } }],
    },
  },
});
const QUEUES = [
  { apiVersion: K, kind: 'ResourceFlavor', metadata: { name: 'default-flavor' }, spec: {} },
  { apiVersion: K, kind: 'ClusterQueue', metadata: { name: 'cluster-queue' }, spec: {
    namespaceSelector: {}, preemption: { withinClusterQueue: 'LowerPriority' },
    resourceGroups: [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ name: 'default-flavor', resources: [{ name: 'cpu', nominalQuota: '3' }, { name: 'memory', nominalQuota: '6Gi' }] }] }],
  } },
  { apiVersion: K, kind: 'LocalQueue', metadata: { name: 'user-queue', namespace: 'default' }, spec: { clusterQueue: 'cluster-queue' } },
  { apiVersion: K, kind: 'WorkloadPriorityClass', metadata: { name: 'dev-priority' }, value: 100 },
  { apiVersion: K, kind: 'WorkloadPriorityClass', metadata: { name: 'prod-priority' }, value: 1000 },
];

describeOnPair('plan --kubeconfig', PAIR)('plan --kubeconfig on Kueue v0.19.2', () => {
  let cluster: TestCluster;
  let dir: string;

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], kubeRayOperator: false });
    dir = tmpdir();
    for (const o of QUEUES) await cluster.client.apply(o);
    await cluster.client.create(job('running', 'dev-priority'));
    await waitFor('the running job admitted', async () => {
      const wls = await cluster.client.list(K, 'Workload', 'default');
      return wls.some((w) => (w.status?.conditions ?? []).some((c: any) => c.type === 'QuotaReserved' && c.status === 'True'));
    }, 60000);
  }, 240000);

  afterAll(async () => {
    await cluster?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 60000);

  const plan = async (file: string, live: boolean): Promise<PlanResult> => JSON.parse(live
    ? await planMain([file, '--kubeconfig', cluster.kubeconfig, '--output', 'json'])
    : planCommand([file, '--output', 'json']));
  const outcome = (p: PlanResult, name: string) => p.workloads.find((w) => w.name === name);

  test('a dev job that fits an empty queue stays pending behind the job the cluster already runs', async () => {
    const file = path.join(dir, 'dev.yaml');
    fs.writeFileSync(file, `${JSON.stringify(job('next', 'dev-priority'))}\n`);
    const live = await plan(file, true);
    expect(outcome(live, 'running')?.outcome).toBe('admitted');
    expect(outcome(live, 'next')?.outcome).toBe('pending');
    expect(outcome(live, 'next')?.pending?.category).toBe('quota');
    expect(live.notes.join('\n')).toMatch(/1 queued Ray workload\(s\) \(1 with quota reserved\)/);
    // The same file with the cluster's queues but not its workloads would be admitted: the live state decides.
    const queues = path.join(dir, 'queues.yaml');
    fs.writeFileSync(queues, `${QUEUES.map((q) => JSON.stringify(q)).join('\n---\n')}\n---\n${JSON.stringify(job('next', 'dev-priority'))}\n`);
    expect(outcome(await plan(queues, false), 'next')?.outcome).toBe('admitted');
  });

  test('a prod job preempts the running dev job', async () => {
    const file = path.join(dir, 'prod.yaml');
    fs.writeFileSync(file, `${JSON.stringify(job('urgent', 'prod-priority'))}\n`);
    const live = await plan(file, true);
    expect(outcome(live, 'urgent')?.outcome).toBe('admitted-by-preempting');
    expect(outcome(live, 'urgent')?.preempted?.map((v) => v.workload)).toEqual(['RayJob default/running']);
  });

  test('the Configuration is read from the cluster when the files install none: fair sharing on there is modelled, and noted', async () => {
    const file = path.join(dir, 'fs.yaml');
    fs.writeFileSync(file, `${JSON.stringify(job('fair', 'dev-priority'))}\n`);
    const before = await plan(file, true);
    expect(before.notes.join('\n')).not.toMatch(/Configuration|configuration read from/);
    await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kueue-system' } });
    await cluster.client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kueue-manager-config', namespace: 'kueue-system' },
      data: { 'controller_manager_config.yaml': 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n'
        + '  preemptionStrategies: [LessThanOrEqualToFinalShare]\n' } });
    try {
      const after = await plan(file, true);
      expect(after.notes).toContain('Kueue v0.19.2 configuration read from the cluster (ConfigMap kueue-system/kueue-manager-config): fair '
        + 'sharing on (preemption strategies LessThanOrEqualToFinalShare). The plan orders each cohort\'s heads and picks preemption victims by '
        + 'fair sharing\'s dominant resource shares, as Kueue does.');
      // A Configuration in the files wins over the cluster's: none read from the cluster then.
      const withInstall = path.join(dir, 'fs-install.yaml');
      const emptyConfig = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kueue-manager-config', namespace: 'kueue-system' },
        data: { 'controller_manager_config.yaml': 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n' } };
      fs.writeFileSync(withInstall, `${JSON.stringify(emptyConfig)}\n---\n${JSON.stringify(job('fair', 'dev-priority'))}\n`);
      expect((await plan(withInstall, true)).notes.join('\n')).not.toMatch(/configuration read from the cluster/);
    } finally {
      await cluster.client.delete('/api/v1/namespaces/kueue-system/configmaps/kueue-manager-config');
    }
  });

  test('the Kueue version is read from the cluster\'s manager image when no flag or file gives one', async () => {
    const file = path.join(dir, 'version.yaml');
    fs.writeFileSync(file, `${JSON.stringify(job('versioned', 'dev-priority'))}\n`);
    const before = await plan(file, true);
    expect(before.notes.join('\n')).toMatch(/Kueue v0\.19\.2 \(the default: no install in the files or the cluster records a Kueue version/);
    await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kueue-system' } });
    // The manager as Kueue's release manifest names it; no kubelet runs its pod here, only its image tag is read.
    const manager = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kueue-controller-manager', namespace: 'kueue-system' },
      spec: {
        selector: { matchLabels: { 'control-plane': 'controller-manager' } },
        template: { metadata: { labels: { 'control-plane': 'controller-manager' } },
          spec: { containers: [{ name: 'manager', image: 'registry.k8s.io/kueue/kueue:v0.17.0',
            args: ['--config=/controller_manager_config.yaml'] }] } },
      },
    };
    await cluster.client.apply(manager);
    try {
      const after = await plan(file, true);
      expect(after.kueueVersion).toBe('v0.17.0');
      expect(after.notes).toContain('Kueue v0.17.0: the version the cluster runs (its manager\'s image), as no flag or file gives one');
      expect(outcome(after, 'running')?.outcome).toBe('admitted');
      // The flag wins, and says what the cluster runs.
      const flagged = JSON.parse(await planMain([file, '--kubeconfig', cluster.kubeconfig, '--output', 'json', '--kueue-version', 'v0.19.2']));
      expect(flagged.kueueVersion).toBe('v0.19.2');
      expect(flagged.notes).toContain('the cluster runs Kueue v0.17.0, but the plan is for v0.19.2 (the flag)');
    } finally {
      await cluster.client.delete('/apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager');
    }
  });

  test('topology-aware scheduling: the cluster\'s nodes and bound pods are read, the admitted workload keeps its nodes, and the plan '
    + 'places the new one where Kueue then places it', async () => {
    const c = cluster.client;
    const RACK = 'example.com/rack', HOST = 'kubernetes.io/hostname';
    await c.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tas' } });
    for (const [name, rack] of [['live-1', 'r1'], ['live-2', 'r1'], ['live-3', 'r2'], ['live-4', 'r2']]) {
      await c.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [RACK]: rack, [HOST]: name, pool: 'live' } } });
      const now = new Date().toISOString();
      await c.request('PATCH', `/api/v1/nodes/${name}/status`, { status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' },
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'test node', lastHeartbeatTime: now,
          lastTransitionTime: now }] } },
      'application/merge-patch+json');
      // The API server's TaintNodesByCondition admission taints a new Node not-ready; no node controller runs here to lift it.
      await c.mergePatch(`/api/v1/nodes/${name}`, { spec: { taints: null } });
    }
    for (const o of [
      { apiVersion: K, kind: 'Topology', metadata: { name: 'live-racks' }, spec: { levels: [{ nodeLabel: RACK }, { nodeLabel: HOST }] } },
      { apiVersion: K, kind: 'ResourceFlavor', metadata: { name: 'tas-live' }, spec: { topologyName: 'live-racks', nodeLabels: { pool: 'live' } } },
      { apiVersion: K, kind: 'ClusterQueue', metadata: { name: 'tas-cq' }, spec: { namespaceSelector: {}, resourceGroups: [{
        coveredResources: ['cpu', 'memory'], flavors: [{ name: 'tas-live', resources: [{ name: 'cpu', nominalQuota: '64' },
          { name: 'memory', nominalQuota: '64Gi' }] }] }] } },
      { apiVersion: K, kind: 'LocalQueue', metadata: { name: 'tas-lq', namespace: 'tas' }, spec: { clusterQueue: 'tas-cq' } },
    ]) await c.apply(o);
    const racked = (name: string, workers: number) => ({ apiVersion: 'ray.io/v1', kind: 'RayCluster',
      metadata: { name, namespace: 'tas', labels: { 'kueue.x-k8s.io/queue-name': 'tas-lq' } },
      spec: { headGroupSpec: { rayStartParams: {}, template: { metadata: { annotations: { 'kueue.x-k8s.io/podset-required-topology': RACK } },
        spec: { containers: [container('ray-head', '1')] } } },
      workerGroupSpecs: [{ groupName: 'workers', replicas: workers, minReplicas: 0, maxReplicas: 8, rayStartParams: {}, template: {
        metadata: { annotations: { 'kueue.x-k8s.io/podset-required-topology': RACK } },
        spec: { containers: [container('ray-worker', '1')] } } }] } });
    const placementOf = async (name: string) => waitFor(`${name} admitted by Kueue`, async () => {
      const wl = (await c.list(K, 'Workload', 'tas')).find((w) => w.metadata.ownerReferences?.[0]?.name === name);
      const ok = (wl?.status?.conditions ?? []).some((x: any) => x.type === 'QuotaReserved' && x.status === 'True');
      return ok && (wl.status.admission.podSetAssignments as any[]).map((p) => `${p.name}:`
        + `${(topologyAssignmentOf(p.topologyAssignment)?.domains ?? [])
        .map((d) => `${d.values.join('/')}x${d.count}`).sort().join(',')}`).join(' ');
    }, 60000);
    await c.create(racked('first', 3));
    const first = await placementOf('first');
    // Then a pod bound to the host of first's workers (no kubelet: it stays Pending there, which Kueue counts), 3 CPUs:
    // placed again with it, first would go elsewhere; kept as admitted, it stays where Kueue put it.
    const busy = /workers:([^/x,]+)x/.exec(first)![1];
    await c.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'daemon', namespace: 'tas' },
      spec: { nodeName: busy, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '3' } } }] } });
    const file = path.join(dir, 'tas.yaml');
    fs.writeFileSync(file, `${JSON.stringify(racked('second', 4))}\n`);
    const live = await plan(file, true);
    const planned = (name: string) => (outcome(live, name)?.admission ?? []).map((a) => `${a.podSet}:${(a.topology?.domains ?? [])
      .map((d) => `${d.values.join('/')}x${d.count}`).sort().join(',')}`).join(' ');
    expect(live.notes).toContain('topology-aware scheduling: flavor tas-live (Topology live-racks: 4 node(s), 4 kubernetes.io/hostname domain(s))');
    // The admitted one is where Kueue put it, not placed again.
    expect(planned('first')).toBe(first);
    await c.create(racked('second', 4));
    expect(planned('second')).toBe(await placementOf('second'));
    expect(planned('second')).not.toContain(busy);
  });

  test('replay order: reserved quota first by reservation time, then pending by creation; finished and KubeRay children left out', () => {
    const ray = (name: string, uid: string, extra: any = {}) => ({
      kind: 'RayJob', metadata: { name, uid, labels: { 'kueue.x-k8s.io/queue-name': 'q' }, creationTimestamp: '2026-01-01T00:00:00Z', ...extra },
    });
    const wl = (uid: string, created: string, conds: any[]) => ({
      metadata: { ownerReferences: [{ uid }], creationTimestamp: created }, status: { conditions: conds },
    });
    const reserved = (t: string) => ({ type: 'QuotaReserved', status: 'True', lastTransitionTime: t });
    const { existing } = replayOrder(
      [ray('p2', '5'), ray('a2', '2'), ray('p1', '4'), ray('a1', '1'), ray('done', '3'),
        { ...ray('child', '6'), metadata: { ...ray('child', '6').metadata, ownerReferences: [{ kind: 'RayJob' }] } }],
      [wl('1', '2026-01-01T00:00:05Z', [reserved('2026-01-01T00:01:00Z')]), wl('2', '2026-01-01T00:00:01Z', [reserved('2026-01-01T00:02:00Z')]),
        wl('3', '2026-01-01T00:00:00Z', [{ type: 'Finished', status: 'True' }]), wl('4', '2026-01-01T00:00:02Z', []),
        wl('5', '2026-01-01T00:00:03Z', [])],
    );
    expect(existing.map((o) => o.metadata?.name)).toEqual(['a1', 'a2', 'p1', 'p2']);
  });
});
