/**
 * Fair sharing's order of a cycle's heads (issue 44, stage 3): Kueue v0.19.2's TestEntryComparerLess
 * (pkg/scheduler/scheduler_test.go:8394) case by case, then the tournament inside the plan: with fair
 * sharing on, the head whose ClusterQueue borrows least goes first where the classical order takes the
 * older one; hierarchical cohorts compare subtrees; v0.14.8 has no non-borrowing-first step.
 */
import { Drs } from '../../../src/policy/plan/fair-share';
import { entryLess } from '../../../src/policy/plan/fair-iterator';
import { KueueConfig, simulatePlan } from '../../../src/policy/plan';
import { kueueCapabilities } from '../../../src/policy/versions';
import { fairSharingTimelineScenarios } from './fair-sharing-scenarios';
import type { PlanScenario } from './scenarios';

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

describe('the tournament in the plan (the fair-sharing timeline scenarios, which agree with the real Kueue)', () => {
  const V = 'v0.19.2';
  const FS: KueueConfig = { fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] },
    gates: { AdmissionFairSharing: 'on', TopologyAwareScheduling: 'on', FairSharingPreemptWithinNominal: 'on',
      FairSharingPrioritizeNonBorrowing: 'on' } };
  const [lowerShare, weight, hierarchical] = fairSharingTimelineScenarios(V);
  /** When each of the two waiting workloads starts (seconds), planned classically and with fair sharing. */
  const starts = (s: PlanScenario, names: [string, string], kueueConfig?: KueueConfig) => {
    const r = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: V, kueueConfig });
    return names.map((n) => r.workloads.find((w) => w.name === n)!.admittedAt);
  };

  test('two queues: classically both heads borrow and the older a2 starts at 10m; with fair sharing b, which borrows less, goes first', () => {
    expect(starts(lowerShare, ['a2', 'b2'])).toEqual([600, 900]);
    expect(starts(lowerShare, ['a2', 'b2'], FS)).toEqual([900, 600]);
  });

  test('a weight changes the winner: with weight 4, a\'s share with a2 is 600 / 4 = 150, under b\'s 200', () => {
    expect(starts(weight, ['a2', 'b2'], FS)).toEqual([600, 900]);
  });

  test('hierarchical cohorts: at the root the tournament compares cohort x\'s share (444) with ClusterQueue c\'s (222)', () => {
    expect(starts(hierarchical, ['a2', 'c2'])).toEqual([600, 900]);
    expect(starts(hierarchical, ['a2', 'c2'], FS)).toEqual([900, 600]);
  });
});
