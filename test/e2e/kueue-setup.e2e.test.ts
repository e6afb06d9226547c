/**
 * check's findings on Kueue's TAS setup (issue 44, item 4) against the real Kueue v0.19.2, where the outcome can be
 * seen: a flavor whose Topology is missing leaves its ClusterQueue inactive (TopologyNotFound), and a pod template's
 * topology annotation naming a level the Topology lacks leaves the RayJob's Workload pending with Kueue's "Flavor ... does
 * not contain the requested level" message, while the same job asking for a level the Topology has is admitted. Kueue's TAS needs only
 * Node objects with labels, allocatable and a Ready condition: no kubelet.
 */
import { KUEUE_SETUP_RULES, kueueSetupFindings } from '../../src/policy/rules/kueue-setup';
import { kueueSetupInput } from '../support/kueue-setup-input';
import { TestCluster } from './support/cluster';
import { cond, isAdmitted, waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const API = 'kueue.x-k8s.io/v1beta2';
const RACK = 'cloud.example.com/rack';
const HOST = 'kubernetes.io/hostname';
const NS = 'tas';

const rule = (name: string) => KUEUE_SETUP_RULES.find((r) => r.name === name)!.name;
// Kueue's CRD requires a TAS flavor to select its nodes by at least one label.
const flavor = (name: string, topologyName: string) => ({ apiVersion: API, kind: 'ResourceFlavor', metadata: { name },
  spec: { topologyName, nodeLabels: { pool: 'tas' } } });
const clusterQueue = (name: string, flavorName: string) => ({ apiVersion: API, kind: 'ClusterQueue', metadata: { name }, spec: {
  namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ name: flavorName, resources: [
    { name: 'cpu', nominalQuota: '16' }, { name: 'memory', nominalQuota: '64Gi' }] }] }],
} });
const localQueue = (name: string, cq: string) => ({ apiVersion: API, kind: 'LocalQueue', metadata: { name, namespace: NS },
  spec: { clusterQueue: cq } });
const topology = { apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'Topology', metadata: { name: 'racks' },
  spec: { levels: [{ nodeLabel: RACK }, { nodeLabel: HOST }] } };
const rayJob = (name: string, queue: string, level: string) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name, namespace: NS, labels: { 'kueue.x-k8s.io/queue-name': queue } },
  spec: { entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: true, rayClusterSpec: {
    headGroupSpec: { rayStartParams: {}, template: {
      metadata: { annotations: { 'kueue.x-k8s.io/podset-required-topology': level } },
      spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } },
  } },
});

describeOnPair('Kueue setup findings', PAIR)(`check's TAS findings on the real Kueue ${PAIR[0]}`, () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], kubeRayOperator: false });
    const c = cluster.client;
    await c.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const name of ['n1', 'n2']) {
      await c.create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [RACK]: 'r1', [HOST]: name, pool: 'tas' } } });
      const patched = await c.request('PATCH', `/api/v1/nodes/${name}/status`, { status: {
        allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, capacity: { cpu: '8', memory: '32Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'test node', lastHeartbeatTime: new Date().toISOString(),
          lastTransitionTime: new Date().toISOString() }],
      } }, 'application/merge-patch+json');
      expect(patched.status).toBe(200);
      // The API server's TaintNodesByCondition admission taints a new Node not-ready; no node controller runs here to lift it.
      await c.mergePatch(`/api/v1/nodes/${name}`, { spec: { taints: null } });
    }
  }, 300000);
  afterAll(async () => { await cluster?.stop(); }, 60000);

  test('a flavor whose Topology is missing: the rule warns, and Kueue keeps its ClusterQueue inactive (TopologyNotFound)', async () => {
    const objects = [flavor('no-topology', 'missing'), clusterQueue('orphan', 'no-topology')];
    const found = kueueSetupFindings(kueueSetupInput(objects, undefined, PAIR[0])).map((p) => [p.index, p.finding.rule, p.finding.severity]);
    expect(found).toEqual([[0, rule('tasFlavorTopology'), 'warning']]);
    for (const o of objects) await cluster.client.create(o);
    const active = await waitFor('the ClusterQueue\'s Active condition', async () =>
      cond(await cluster.client.get(`/apis/${API}/clusterqueues/orphan`), 'Active'), 60000);
    expect([active.status, active.reason]).toEqual(['False', 'TopologyNotFound']);
    expect(active.message).toContain('there is no Topology "missing" for TAS flavor "no-topology"');
  }, 120000);

  test('a level the Topology lacks: the rule refuses it, and Kueue keeps the Workload pending with its message; a level it has is '
    + 'admitted', async () => {
    const queues = [topology, flavor('tas', 'racks'), clusterQueue('tas-cq', 'tas'), localQueue('lq', 'tas-cq')];
    const wrong = rayJob('wrong-level', 'lq', 'cloud.example.com/block');
    const right = rayJob('right-level', 'lq', RACK);
    expect(kueueSetupFindings(kueueSetupInput([...queues, wrong], undefined, PAIR[0])).map((p) => [p.index, p.finding.rule]))
      .toEqual([[4, rule('podSetTopologyLevel')]]);
    expect(kueueSetupFindings(kueueSetupInput([...queues, right], undefined, PAIR[0]))).toEqual([]);
    const c = cluster.client;
    for (const o of queues) await c.create(o);
    await c.create(wrong);
    const workloadOf = async (name: string) => (await c.list(API, 'Workload', NS))
      .find((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.kind === 'RayJob' && o.name === name));
    const pending = await waitFor('the wrong level\'s Workload to report why it waits', async () => {
      const w = await workloadOf('wrong-level');
      const qr = cond(w, 'QuotaReserved');
      return qr?.status === 'False' && qr.message ? qr : undefined;
    }, 90000);
    expect(pending.message).toContain('Flavor "tas" does not contain the requested level');
    // The rule quotes Kueue's message.
    const [finding] = kueueSetupFindings(kueueSetupInput([...queues, wrong], undefined, PAIR[0]));
    expect(finding.finding.message).toContain('Flavor "tas" does not contain the requested level');
    await c.create(right);
    await waitFor('the right level\'s Workload to be admitted', async () => {
      const w = await workloadOf('right-level');
      if (w && isAdmitted(w)) return true;
      throw new Error(w ? `not admitted: ${cond(w, 'QuotaReserved')?.message ?? 'not evaluated yet'}` : 'no Workload yet');
    }, 90000);
    expect(isAdmitted(await workloadOf('wrong-level'))).toBe(false);
  }, 240000);
});
