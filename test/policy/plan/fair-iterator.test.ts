/**
 * Fair sharing's order of a cycle's heads (issue 44, stage 3): Kueue v0.19.2's TestEntryComparerLess
 * (pkg/scheduler/scheduler_test.go:8394) case by case, then the tournament inside the plan: with fair
 * sharing on, the head whose ClusterQueue borrows least goes first where the classical order takes the
 * older one; hierarchical cohorts compare subtrees; v0.14.8 has no non-borrowing-first step.
 */
import { Drs } from '../../../src/policy/plan/fair-share';
import { entryLess } from '../../../src/policy/plan/fair-iterator';
import { KueueConfig, PlanResult, simulatePlan } from '../../../src/policy/plan';
import { EXPECTED_DURATION_ANNOTATION, PLAN_ARRIVAL_ANNOTATION } from '../../../src/policy';
import { kueueCapabilities } from '../../../src/policy/versions';
import { builder, clusterQueue, cohort, flavor, localQueue, rayCluster } from './scenarios';

describe('entryLess: Kueue v0.19.2 TestEntryComparerLess', () => {
  const CPU = 0;
  const drs = (over: Partial<Drs>): Drs => ({
    weight: 0, unweightedRatio: 0, share: 0, resource: '', borrowing: false, borrowed: [], arithmetic: 'float', ...over,
  });
  // schdcache.BorrowingDRS(cpuDefault): borrowing on it, ratio 0; NegativeDRS(): ratio -1, weight 1; {}: all zero.
  const BORROWING = drs({ borrowing: true, borrowed: [CPU] });
  const NEGATIVE = drs({ unweightedRatio: -1, share: -1, weight: 1 });
  const ZERO = drs({});
  const asks = new Map([[CPU, 1]]);
  const side = (d: Drs, created: number, usage = asks) => ({ drs: d, usage, workload: { priority: 0, created } });
  test.each([
    ['non-borrowing subtree preferred over borrowing subtree', side(ZERO, 1), side(BORROWING, 0), true],
    ['both borrowing on requested flavors falls through to FIFO', side(BORROWING, 1), side(BORROWING, 0), false],
    ['lower DRS preferred over higher DRS', side(NEGATIVE, 1, new Map()), side(ZERO, 0, new Map()), true],
    ['both non-borrowing falls through to FIFO', side(ZERO, 0, new Map()), side(ZERO, 1, new Map()), true],
    // PrioritizePreemptorWorkloads (Alpha, off in every modelled version) is not modelled: with it off, the
    // preemptor borrowing loses to the other, which is not.
    ['a is preemptor, b not, feature disabled', side(BORROWING, 0), side(ZERO, 0), false],
  ])('%s', (_name, a, b, want) => {
    expect(entryLess(a, b, kueueCapabilities('v0.19.2').fairSharingPrioritizeNonBorrowingGate === 'on')).toBe(want);
  });

  // Not translated: "a is preemptor, b not, feature enabled" and "both are preemptors, feature enabled" need
  // PrioritizePreemptorWorkloads, Alpha and off in every modelled version, which the plan does not model.

  test('without FairSharingPrioritizeNonBorrowing (v0.14.8) the share decides: a borrower with the lower share goes first', () => {
    const low = drs({ borrowing: true, borrowed: [CPU], unweightedRatio: 10, share: 10, weight: 1 });
    const high = drs({ borrowing: true, borrowed: [CPU], unweightedRatio: 20, share: 20, weight: 1 });
    expect(entryLess(side(low, 1), side(ZERO, 0), false)).toBe(false);
    expect(entryLess(side(low, 1), side(high, 0), false)).toBe(true);
    // Priority, then arrival, on equal shares.
    expect(entryLess({ ...side(ZERO, 1), workload: { priority: 5, created: 1 } }, side(ZERO, 0), false)).toBe(true);
  });
});

describe('the tournament in the plan', () => {
  const V = 'v0.19.2';
  const b = builder(V);
  const FS: KueueConfig = { fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] },
    gates: { AdmissionFairSharing: 'on', TopologyAwareScheduling: 'on', FairSharingPreemptWithinNominal: 'on',
      FairSharingPrioritizeNonBorrowing: 'on' } };
  const job = (name: string, lq: string, cpu: number, t: { duration?: string; arrival?: string } = {}) => {
    const o = rayCluster(name, { lq, headCpu: String(cpu) });
    o.metadata.annotations = { ...(t.duration ? { [EXPECTED_DURATION_ANNOTATION]: t.duration } : {}),
      ...(t.arrival ? { [PLAN_ARRIVAL_ANNOTATION]: t.arrival } : {}) };
    return o;
  };
  const admittedAt = (r: PlanResult, name: string) => r.workloads.find((w) => w.name === name)!.admittedAt;

  /**
   * Cohort co: a and b with 2 CPU each, lender l with 6. a runs 6 (borrows 4), b runs 2, l runs 2: full.
   * a2 then b2 (2 CPU each) wait; when l's job finishes at 10m both heads meet in one cycle, with room for one.
   */
  const objects = [flavor(b, 'f'), clusterQueue(b, 'a', { cohort: 'co', quotas: [{ flavor: 'f', cpu: '2' }] }),
    clusterQueue(b, 'b', { cohort: 'co', quotas: [{ flavor: 'f', cpu: '2' }] }),
    clusterQueue(b, 'l', { cohort: 'co', quotas: [{ flavor: 'f', cpu: '6' }] }),
    localQueue(b, 'qa', 'a'), localQueue(b, 'qb', 'b'), localQueue(b, 'ql', 'l')];
  const arrivals = [job('a1', 'qa', 6), job('b1', 'qb', 2), job('l1', 'ql', 2, { duration: '10m' }),
    job('a2', 'qa', 2, { arrival: '1m' }), job('b2', 'qb', 2, { arrival: '2m' })];

  test('classical: both borrow, so the older head (a2) goes first; fair sharing: b borrows less, so b2 goes first', () => {
    const classical = simulatePlan({ kueueObjects: objects, arrivals, kueueVersion: V });
    expect([admittedAt(classical, 'a2'), admittedAt(classical, 'b2')]).toEqual([600, null]);
    const fair = simulatePlan({ kueueObjects: objects, arrivals, kueueVersion: V, kueueConfig: FS });
    expect([admittedAt(fair, 'a2'), admittedAt(fair, 'b2')]).toEqual([null, 600]);
  });

  test('a weight changes the winner: with weight 4, a\'s share with a2 is 600 / 4 = 150, under b\'s 200', () => {
    const weighted = objects.map((o) => (o.kind === 'ClusterQueue' && o.metadata.name === 'a'
      ? { ...o, spec: { ...o.spec, fairSharing: { weight: '4' } } } : o));
    const fair = simulatePlan({ kueueObjects: weighted, arrivals, kueueVersion: V, kueueConfig: FS });
    expect([admittedAt(fair, 'a2'), admittedAt(fair, 'b2')]).toEqual([600, null]);
  });

  test('hierarchical cohorts: at the root the tournament compares cohort x\'s share with ClusterQueue c\'s', () => {
    // root (own quota 4) over cohort x (a 2, b 2) and c (1): 9 CPU. a runs 4, b 2 (x borrows 2), c 1 and 2 (c borrows 2): full.
    const h = [flavor(b, 'f'), cohort(b, 'root', undefined, { flavor: 'f', cpu: '4' }), cohort(b, 'x', 'root'),
      clusterQueue(b, 'a', { cohort: 'x', quotas: [{ flavor: 'f', cpu: '2' }] }),
      clusterQueue(b, 'b', { cohort: 'x', quotas: [{ flavor: 'f', cpu: '2' }] }),
      clusterQueue(b, 'c', { cohort: 'root', quotas: [{ flavor: 'f', cpu: '1' }] }),
      localQueue(b, 'qa', 'a'), localQueue(b, 'qb', 'b'), localQueue(b, 'qc', 'c')];
    const jobs = [job('a1', 'qa', 4), job('b1', 'qb', 2), job('c0', 'qc', 1), job('c1', 'qc', 2, { duration: '10m' }),
      job('a2', 'qa', 2, { arrival: '1m' }), job('c2', 'qc', 2, { arrival: '2m' })];
    // At 10m c1 finishes: 2 CPU free, room for one. Both heads borrow at the root's level, so the classical order takes
    // the older, a2. Under the root, x with a2 borrows 4 of 9 (share 444), c with c2 borrows 2 of 9 (222): c2 goes first.
    const classical = simulatePlan({ kueueObjects: h, arrivals: jobs, kueueVersion: V });
    expect([admittedAt(classical, 'a2'), admittedAt(classical, 'c2')]).toEqual([600, null]);
    const fair = simulatePlan({ kueueObjects: h, arrivals: jobs, kueueVersion: V, kueueConfig: FS });
    expect([admittedAt(fair, 'a2'), admittedAt(fair, 'c2')]).toEqual([null, 600]);
  });
});
