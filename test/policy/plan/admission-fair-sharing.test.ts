/**
 * Admission fair sharing in the plan (issue 44, stage 5) against Kueue's own tests at v0.19.2:
 * TestScheduleForAFS (pkg/scheduler/scheduler_afs_test.go, 8 cases) and TestFsAdmission
 * (pkg/cache/queue/cluster_queue_test.go, 6 cases), case by case, through the whole simulator: the same
 * ClusterQueue, LocalQueues with the same weights and the same usage (as the LocalQueues' persisted status,
 * which is where the plan reads it from a cluster), and a RayCluster per workload with the same request, all queued
 * before the first cycle as the upstream tables set them up (`queuedAtStart`).
 * Two TestScheduleForAFS cases delete a LocalQueue after its workloads are queued, which a plan (objects at its
 * start) cannot express; they are listed, not replayed. Then the ledger's arithmetic against Kueue's formulas,
 * the usage on a timeline, and a half-life of 0 (kueue#11134).
 */
import { planToText } from '../../../src/plan/text';
import { simulatePlan } from '../../../src/policy/plan';
import { AfsLedger, alphaRate, decayedConsumed } from '../../../src/policy/plan/afs';
import { KueueConfig, kueueConfigOf } from '../../../src/policy/plan/kueue-config';
import type { PlanResult } from '../../../src/policy/plan/schema';
import { CONFIG_V1BETA2, kueueCapabilities } from '../../../src/policy/versions';
import { admissionFairSharingTimelineScenarios, AGREEMENT_AFS } from './fair-sharing-scenarios';
import type { PlanScenario } from './scenarios';

const V = 'v0.19.2';
const API = 'kueue.x-k8s.io/v1beta2';
const NS = 'default';
const GPU = 'example.com/gpu';

interface Afs { readonly usageHalfLifeTime?: string; readonly usageSamplingInterval?: string; readonly resourceWeights?: Record<string, number> }

/** Kueue's Configuration with admission fair sharing (TestScheduleForAFS: half-life 10s, sampling 1s), the gate as given. */
function config(afs: Afs | undefined, gate = true) {
  return kueueConfigOf({
    config: { apiVersion: CONFIG_V1BETA2, kind: 'Configuration', ...(afs ? { admissionFairSharing: afs } : {}) },
    args: [`--feature-gates=AdmissionFairSharing=${gate}`], where: 'test',
  }, kueueCapabilities(V));
}
const TEST_AFS: Afs = { usageHalfLifeTime: '10s', usageSamplingInterval: '1s' };

function clusterQueue(cpu: string, mode = 'UsageBasedAdmissionFairSharing', resources: Array<[string, string]> = []) {
  return {
    apiVersion: API, kind: 'ClusterQueue', metadata: { name: 'cq1' },
    spec: {
      namespaceSelector: {}, admissionScope: { admissionMode: mode },
      resourceGroups: [{
        coveredResources: ['cpu', 'memory', ...resources.map(([r]) => r)],
        flavors: [{ name: 'default', resources: [{ name: 'cpu', nominalQuota: cpu }, { name: 'memory', nominalQuota: '8Gi' },
          ...resources.map(([name, nominalQuota]) => ({ name, nominalQuota }))] }],
      }],
    },
  };
}

/** A LocalQueue of cq1, with its weight and the usage its status holds (consumedResources). */
function localQueue(name: string, weight?: string, consumed?: Record<string, string>) {
  return {
    apiVersion: API, kind: 'LocalQueue', metadata: { name, namespace: NS },
    spec: { clusterQueue: 'cq1', ...(weight === undefined ? {} : { fairSharing: { weight } }) },
    ...(consumed ? { status: { fairSharing: { weightedShare: 0, admissionFairSharingStatus: { consumedResources: consumed,
      lastUpdate: '2026-12-06T00:00:00Z' } } } } : {}),
  };
}

const objects = (...more: unknown[]) => [
  { apiVersion: API, kind: 'ResourceFlavor', metadata: { name: 'default' }, spec: {} },
  { apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: 'p1' }, value: 1 },
  { apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: 'p2' }, value: 2 },
  ...more,
];

/** A RayCluster of one head pod: Kueue's one-pod workload of the test. */
function workload(name: string, lq: string, cpu: string, priority?: string) {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name, namespace: NS,
      labels: { 'kueue.x-k8s.io/queue-name': lq, ...(priority ? { 'kueue.x-k8s.io/priority-class': priority } : {}) } },
    spec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'head', image: 'rayproject/ray:2.46.0',
      resources: { requests: { cpu } } }] } } } },
  };
}

const admitted = (p: PlanResult) => p.workloads.filter((w) => w.outcome === 'admitted').map((w) => w.workload.split('/')[1]).sort();
const pendingMessage = (p: PlanResult, name: string) => p.workloads.find((w) => w.workload.endsWith(`/${name}`))?.pending?.message;

const lqs = (usage: Record<string, string | undefined>) => [
  localQueue('lq-a', '1', usage['lq-a'] === undefined ? undefined : { cpu: usage['lq-a'] }),
  localQueue('lq-b', '1', usage['lq-b'] === undefined ? undefined : { cpu: usage['lq-b'] }),
  localQueue('lq-c', '1', usage['lq-c'] === undefined ? undefined : { cpu: usage['lq-c'] }),
  localQueue('lq-zero', '0', usage['lq-zero'] === undefined ? undefined : { cpu: usage['lq-zero'] }),
];

describe('TestScheduleForAFS (v0.19.2), through the plan', () => {
  const plan = (usage: Record<string, string>, arrivals: unknown[], gate = true) => simulatePlan({
    kueueObjects: objects(clusterQueue('8'), ...lqs(usage)), arrivals: arrivals as any, kueueVersion: V, kueueConfig: config(TEST_AFS, gate),
    queuedAtStart: arrivals.length,
  });

  test('admits workload from less active localqueue', () => {
    const p = plan({ 'lq-a': '8', 'lq-b': '2' }, [workload('wl-a1', 'lq-a', '8'), workload('wl-b1', 'lq-b', '8')]);
    expect(admitted(p)).toEqual(['wl-b1']);
    expect(pendingMessage(p, 'wl-a1')).toContain('insufficient unused quota for cpu in flavor default, 8 more needed');
  });

  test('does not prioritize a zero-weight localqueue', () => {
    const p = plan({ 'lq-a': '0', 'lq-zero': '0' }, [workload('wl-z1', 'lq-zero', '8'), workload('wl-a1', 'lq-a', '8')]);
    expect(admitted(p)).toEqual(['wl-a1']);
    expect(pendingMessage(p, 'wl-z1')).toContain('insufficient unused quota for cpu in flavor default, 8 more needed');
  });

  test('without AFS: classic admission decision ignores queue usage', () => {
    const p = plan({ 'lq-a': '8', 'lq-b': '2' }, [workload('wl-a1', 'lq-a', '8'), workload('wl-b1', 'lq-b', '8')], false);
    expect(admitted(p)).toEqual(['wl-a1']);
    expect(pendingMessage(p, 'wl-b1')).toContain('insufficient unused quota for cpu in flavor default, 8 more needed');
  });

  test('admits one workload from each localqueue when quota is limited (the entry penalty puts lq-a behind lq-b)', () => {
    const p = plan({ 'lq-a': '4', 'lq-b': '4' }, [workload('wl-a1', 'lq-a', '4'), workload('wl-a2', 'lq-a', '4'), workload('wl-b1', 'lq-b', '4'),
      workload('wl-b2', 'lq-b', '4')]);
    expect(admitted(p)).toEqual(['wl-a1', 'wl-b1']);
    expect(pendingMessage(p, 'wl-a2')).toContain('insufficient unused quota for cpu in flavor default, 4 more needed');
    // Kueue: "wl-b2 has no Pending condition because SchedulingEquivalenceHashing bulk-moves it to inadmissible".
    expect(p.workloads.find((w) => w.workload.endsWith('/wl-b2'))?.outcome).toBe('pending');
  });

  test('schedules normally when queues have equal usage', () => {
    const p = plan({ 'lq-a': '2', 'lq-b': '2', 'lq-c': '2' }, [workload('wl-a1', 'lq-a', '4'), workload('wl-b1', 'lq-b', '3'),
      workload('wl-c1', 'lq-c', '1')]);
    expect(admitted(p)).toEqual(['wl-a1', 'wl-b1', 'wl-c1']);
  });

  test('admits workload from lq-b with uninitialized cache', () => {
    const p = plan({ 'lq-a': '8' }, [workload('wl-a1', 'lq-a', '8'), workload('wl-b1', 'lq-b', '8')]);
    expect(admitted(p)).toEqual(['wl-b1']);
  });

  test.each([
    ['admits workload when another LQ is deleted'],
    ['admits workload even if its localqueue was deleted'],
  ])('not replayed: %s (a LocalQueue deleted after its workloads were queued; a plan reads the objects at its start)', (name) => {
    // The plan's answer for a LocalQueue that is not there at all is Kueue's for a new workload: it is not queued.
    const p = plan({ 'lq-a': '0' }, [workload('wl-x', 'lq-missing', '4')]);
    expect([name, pendingMessage(p, 'wl-x')]).toEqual([name, `LocalQueue ${NS}/lq-missing doesn't exist`]);
  });
});

describe('TestFsAdmission (v0.19.2): the head of a ClusterQueue, through the plan', () => {
  // The ClusterQueue fits one workload, so the head is the one admitted. Kueue's workloads request nothing; here 1 CPU.
  // Upstream builds `config.AdmissionFairSharing{}` and sets the ledger directly: a half-life of 0, whose first
  // LocalQueue reconcile would reset the usage on a running Kueue. Here the usage is the LocalQueues' status, so the
  // half-life is 1h (what the cases compare, the usage at the first pop, is the same).
  const H: Afs = { usageHalfLifeTime: '1h' };
  const head = (cq: unknown, queues: unknown[], afs: Afs | undefined, arrivals: unknown[]) => admitted(simulatePlan({
    kueueObjects: objects(cq, ...queues), arrivals: arrivals as any, kueueVersion: V, kueueConfig: config(afs), queuedAtStart: arrivals.length,
  }));
  const AB = [workload('wlA-high', 'lqA', '1', 'p2'), workload('wlB-low', 'lqB', '1', 'p1')];

  test('workloads are ordered by LQ usage, instead of priorities', () => {
    expect(head(clusterQueue('1'), [localQueue('lqA', '1', { cpu: '2' }), localQueue('lqB', '1', { cpu: '1' })], H, AB)).toEqual(['wlB-low']);
  });

  test('workloads are ordered by LQ usage with respect to resource weights', () => {
    const queues = [localQueue('lqA', '1', { cpu: '1', [GPU]: '10' }), localQueue('lqB', '1', { cpu: '1000', [GPU]: '1' })];
    expect(head(clusterQueue('1', undefined, [[GPU, '1']]), queues, { ...H, resourceWeights: { cpu: 0, [GPU]: 1 } }, AB)).toEqual(['wlB-low']);
    // Unweighted, lqB's 1,000 CPUs count.
    expect(head(clusterQueue('1', undefined, [[GPU, '1']]), queues, H, AB)).toEqual(['wlA-high']);
  });

  test("workloads are ordered by LQ usage with respect to LQs' fair sharing weights", () => {
    expect(head(clusterQueue('1'), [localQueue('lqA', '1', { cpu: '10' }), localQueue('lqB', '2', { cpu: '6' })], H, AB)).toEqual(['wlB-low']);
  });

  test('workloads with the same LQ usage are ordered by priority', () => {
    const arrivals = [workload('wlA-low', 'lqA', '1', 'p1'), workload('wlA-high', 'lqA', '1', 'p2')];
    expect(head(clusterQueue('1'), [localQueue('lqA', '1', { cpu: '10' })], H, arrivals)).toEqual(['wlA-high']);
  });

  test('workloads with NoFairSharing CQ are ordered by priority', () => {
    const arrivals = [workload('wlA-low', 'lqA', '1', 'p1'), workload('wlA-high', 'lqA', '1', 'p2')];
    expect(head(clusterQueue('1', 'NoAdmissionFairSharing'), [localQueue('lqA')], H, arrivals)).toEqual(['wlA-high']);
  });

  test('workloads with no FS config are ordered by priority', () => {
    const arrivals = [workload('wlA-low', 'lqA', '1', 'p1'), workload('wlA-high', 'lqA', '1', 'p2')];
    expect(head(clusterQueue('1', 'NoAdmissionFairSharing'), [localQueue('lqA')], undefined, arrivals)).toEqual(['wlA-high']);
  });
});

describe('the LocalQueue ledger, against Kueue\'s formulas', () => {
  test('alpha, decay and the entry penalty (rounded down to 9 decimals, as MulByFloat)', () => {
    // calculateAlphaRate(1, 10) = 1 - 0.5^0.1.
    expect(alphaRate(1, 10)).toBeCloseTo(0.066967008463193, 15);
    expect(alphaRate(5, 0)).toBe(0);
    // CalculateDecayedConsumed({cpu: 8}, {cpu: 2}, 10 s, 10 s): 8 × 0.5 + 2 × 0.5.
    expect(decayedConsumed(new Map([['cpu', 8]]), new Map([['cpu', 2]]), 10, 10)).toEqual(new Map([['cpu', 5]]));
    const ledger = new AfsLedger({ usageHalfLifeTime: 10, usageSamplingInterval: 1, resourceWeights: {} }, new Map([['ns/a', 2]]));
    ledger.seed('ns/a', new Map([['cpu', 4]]), 0);
    // Admitted at 0 with 4 CPUs: 4 + 4 × α(1 s); the LocalQueue's weight 2 halves the usage.
    ledger.admit('ns/a', 0, new Map([['cpu', 4]]), new Map([['cpu', 4]]));
    expect(ledger.entry('ns/a')!.consumed.get('cpu')).toBe(4.267868033);
    expect(ledger.usage('ns/a')).toBeCloseTo(4.267868033 / 2, 12);
    // 10 s of sampling with the 4 CPUs still admitted pulls the history towards 4.
    ledger.sampleUntil(10, () => new Map([['cpu', 4]]));
    const after = ledger.entry('ns/a')!;
    expect(after.lastUpdate).toBe(10);
    expect(after.consumed.get('cpu')!).toBeGreaterThan(4);
    expect(after.consumed.get('cpu')!).toBeLessThan(4.267868033);
    expect(after.consumed.get('cpu')!).toBeCloseTo(4 + 0.267868033 * 0.5, 6);
  });

  test('a long quiet stretch is folded at once, close to one reconcile at a time', () => {
    const settings = { usageHalfLifeTime: 600, usageSamplingInterval: 5, resourceWeights: {} };
    const fast = new AfsLedger(settings, new Map());
    const slow = new AfsLedger(settings, new Map());
    for (const l of [fast, slow]) l.seed('ns/a', new Map([['cpu', 100]]), 0);
    fast.sampleUntil(7 * 24 * 3600, () => new Map([['cpu', 3]]));
    for (let t = 5; t <= 7 * 24 * 3600; t += 5) slow.sampleUntil(t, () => new Map([['cpu', 3]]));
    expect(fast.entry('ns/a')!.lastUpdate).toBe(slow.entry('ns/a')!.lastUpdate);
    expect(fast.entry('ns/a')!.consumed.get('cpu')!).toBeCloseTo(slow.entry('ns/a')!.consumed.get('cpu')!, 6);
  });
});

describe('admission fair sharing on the timeline', () => {
  // Two teams share a ClusterQueue that runs one 4-CPU job at a time; team a submits six jobs, then team b six.
  const arrivals = (n: number) => [
    ...Array.from({ length: n }, (_, i) => workload(`a${i}`, 'lq-a', '4')),
    ...Array.from({ length: n }, (_, i) => workload(`b${i}`, 'lq-b', '4')),
  ].map((o) => ({ ...o, metadata: { ...o.metadata, annotations: { 'cdk8s-kueue-ray.io/expected-duration': '10m' } } }));
  const order = (p: PlanResult) => p.workloads.filter((w) => w.admittedAt !== null).sort((x, y) => x.admittedAt! - y.admittedAt!)
    .map((w) => w.workload.split('/')[1]);
  const run = (afs: Afs | undefined) => simulatePlan({
    kueueObjects: objects(clusterQueue('4'), localQueue('lq-a', '1'), localQueue('lq-b', '1')), arrivals: arrivals(6) as any, kueueVersion: V,
    kueueConfig: config(afs),
  });

  test('the queues take turns as their usage decays; without it, first come first served', () => {
    const fair = run({ usageHalfLifeTime: '30m', usageSamplingInterval: '1m', resourceWeights: { memory: 0 } });
    // a0 first (both idle, created first); then b0 (lq-a has a0's usage), then they alternate.
    expect(order(fair)).toEqual(['a0', 'b0', 'a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4', 'b4', 'a5', 'b5']);
    expect(order(run(undefined))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
    expect(fair.notes.join('\n')).toContain('admission fair sharing: ClusterQueue cq1 orders workloads by LocalQueue usage (half-life 1800 s');
    // The usage at the end, in the JSON and the text; none without admission fair sharing.
    expect(fair.localQueues?.map((l) => [l.name, l.clusterQueue, l.weight, l.lastUpdate > 0, l.usage > 0, Object.keys(l.consumed)]))
      .toEqual([['default/lq-a', 'cq1', 1, true, true, ['cpu']], ['default/lq-b', 'cq1', 1, true, true, ['cpu']]]);
    expect(planToText(fair)).toMatch(/LocalQueue usage \(admission fair sharing, at the end; the lower goes first in its ClusterQueue\):\n {2}default\/lq-a → cq1: [\d.]+; consumed cpu [\d.]+\n/);
    expect('localQueues' in run(undefined)).toBe(false);
  });

  test('a half-life of 0 plans exactly as without admission fair sharing (kueue#11134), and says so', () => {
    const zero = run({ usageHalfLifeTime: '0s', usageSamplingInterval: '1m' });
    const off = run(undefined);
    expect(order(zero)).toEqual(order(off));
    expect(zero.workloads).toEqual(off.workloads);
    expect(zero.notes.join('\n')).toContain('usageHalfLifeTime 0s resets the usage at once');
  });

  test('a ClusterQueue that asks for it without the Configuration says so, and orders by priority and creation', () => {
    const p = simulatePlan({ kueueObjects: objects(clusterQueue('4'), localQueue('lq-a', '1')), arrivals: arrivals(1) as any, kueueVersion: V });
    expect(p.notes.join('\n')).toContain('ClusterQueue cq1 asks for UsageBasedAdmissionFairSharing, but the Kueue Configuration has no '
      + 'admissionFairSharing');
  });
});

describe('CandidatesOrdering with admission fair sharing (TestCandidatesOrdering, "workloads with higher LQ usage first")', () => {
  // With fair sharing on, Kueue's fair preemption orders the candidates of one ClusterQueue by their LocalQueue's usage
  // (the busier first) before priority; classical preemption does not read it.
  const plan = (afs: Afs | undefined, fairSharing: boolean) => simulatePlan({
    kueueObjects: objects(
      { ...clusterQueue('2'), spec: { ...clusterQueue('2').spec, preemption: { withinClusterQueue: 'LowerPriority' } } },
      localQueue('lq-busy', '1', { cpu: '10' }), localQueue('lq-idle', '1'),
      { apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: 'p3' }, value: 3 }),
    arrivals: [workload('busy', 'lq-busy', '1', 'p2'), workload('idle', 'lq-idle', '1', 'p1'), workload('urgent', 'lq-idle', '1', 'p3')] as any,
    kueueVersion: V,
    kueueConfig: kueueConfigOf({ config: { apiVersion: CONFIG_V1BETA2, kind: 'Configuration', ...(afs ? { admissionFairSharing: afs } : {}),
      ...(fairSharing ? { fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] } } : {}) },
    where: 'test' }, kueueCapabilities(V)),
  });
  const victim = (p: PlanResult) => p.workloads.find((w) => w.workload.endsWith('/urgent'))?.preempted?.map((v) => v.workload);

  test('the busier LocalQueue\'s workload is preempted, though its priority is higher; by priority otherwise', () => {
    expect(victim(plan({ usageHalfLifeTime: '1h' }, true))).toEqual(['RayCluster default/busy']);
    expect(victim(plan(undefined, true))).toEqual(['RayCluster default/idle']);
    // Classical preemption (fair sharing off) orders by priority, admission fair sharing or not.
    expect(victim(plan({ usageHalfLifeTime: '1h' }, false))).toEqual(['RayCluster default/idle']);
  });
});

describe('workloads Kueue admitted already (a live cluster)', () => {
  test('an arrival admitted already pays no entry penalty again: its LocalQueue keeps the usage its status holds', () => {
    const run = (given: boolean) => simulatePlan({
      kueueObjects: objects(clusterQueue('8'), ...lqs({ 'lq-a': '2' })), arrivals: [workload('wl-a1', 'lq-a', '4')] as any, kueueVersion: V,
      kueueConfig: config(TEST_AFS), admitted: given ? [{ podSets: [{ name: 'head', flavors: { cpu: 'default' } }] }] : undefined,
    }).localQueues!.find((l) => l.name === `${NS}/lq-a`)!.consumed.cpu;
    expect(run(true)).toBe(2);
    // Scheduled, the same workload pays the entry penalty: 4 × (1 − 0.5^(1/10)) on top.
    expect(run(false)).toBeGreaterThan(2.25);
  });
});

describe('admission fair sharing by Kueue version', () => {
  const at = (version: string, usage: Record<string, string>, arrivals: unknown[]) => {
    const caps = kueueCapabilities(version);
    const kueueConfig = kueueConfigOf({
      config: { apiVersion: caps.configApiVersions.at(-1), kind: 'Configuration', admissionFairSharing: TEST_AFS },
      args: ['--feature-gates=AdmissionFairSharing=true'], where: 'test',
    }, caps);
    const api = caps.apiVersion;
    const objs = objects(clusterQueue('8'), ...lqs(usage))
      .map((o: any) => ({ ...o, apiVersion: o.apiVersion.startsWith('kueue') ? api : o.apiVersion }));
    return simulatePlan({ kueueObjects: objs, arrivals: arrivals as any, kueueVersion: version, kueueConfig, queuedAtStart: arrivals.length });
  };
  const zeroFirst = [workload('wl-z1', 'lq-zero', '8'), workload('wl-a1', 'lq-a', '8')];

  test('before 0.19.1 an idle zero-weight LocalQueue divides 0 by 0: NaN, which Go\'s cmp.Compare sorts first', () => {
    expect(admitted(at('v0.17.0', { 'lq-a': '0', 'lq-zero': '0' }, zeroFirst))).toEqual(['wl-z1']);
    expect(admitted(at('v0.14.8', { 'lq-a': '0', 'lq-zero': '0' }, zeroFirst))).toEqual(['wl-z1']);
    expect(admitted(at('v0.19.2', { 'lq-a': '0', 'lq-zero': '0' }, zeroFirst))).toEqual(['wl-a1']);
    // With some usage the division gives +Inf on every version: last.
    expect(admitted(at('v0.17.0', { 'lq-a': '0', 'lq-zero': '1' }, zeroFirst))).toEqual(['wl-a1']);
  });

  test('0.14 and later order by LocalQueue usage; 0.13.4 (usage read from the LocalQueue status) is not modelled and says so', () => {
    const lessActive = [workload('wl-a1', 'lq-a', '8'), workload('wl-b1', 'lq-b', '8')];
    for (const v of ['v0.14.8', 'v0.17.0', 'v0.17.8']) expect([v, admitted(at(v, { 'lq-a': '8', 'lq-b': '2' }, lessActive))]).toEqual([v, ['wl-b1']]);
    const old = at('v0.13.4', { 'lq-a': '8', 'lq-b': '2' }, lessActive);
    expect(admitted(old)).toEqual(['wl-a1']);
    expect(old.notes.join('\n')).toContain('Kueue v0.13.4 reads LocalQueue usage from the LocalQueues\' status, which the plan does not model');
  });
});

describe('the agreement scenarios (admissionFairSharingTimelineScenarios)', () => {
  test.each(['v0.14.8', 'v0.17.0', 'v0.19.2'])('on %s: weighted turns and usage above priority; classically the other order', (version) => {
    const caps = kueueCapabilities(version);
    const kueueConfig = kueueConfigOf({ config: { apiVersion: caps.configApiVersions.at(-1), kind: 'Configuration',
      admissionFairSharing: AGREEMENT_AFS }, args: ['--feature-gates=AdmissionFairSharing=true'], where: 'test' }, caps);
    const starts = (s: PlanScenario, config?: KueueConfig) => simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: version,
      kueueConfig: config }).workloads.filter((w) => w.admittedAt !== null).sort((x, y) => x.admittedAt! - y.admittedAt!)
      .map((w) => `${w.name}@${w.admittedAt! / 60}m`);
    const [turns, abovePriority] = admissionFairSharingTimelineScenarios(version);
    expect(starts(turns, kueueConfig)).toEqual(['a1@0m', 'b1@10m', 'b2@20m', 'a2@30m']);
    expect(starts(turns)).toEqual(['a1@0m', 'a2@10m', 'b1@20m', 'b2@30m']);
    expect(starts(abovePriority, kueueConfig)).toEqual(['a1@0m', 'b-low@10m', 'a-high@15m']);
    expect(starts(abovePriority)).toEqual(['a1@0m', 'a-high@10m', 'b-low@15m']);
  });
});
