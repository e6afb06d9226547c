/**
 * The preemptor on its own: which admitted workloads a preemptor may take (policy within the
 * ClusterQueue, reclaim in the cohort, borrowWithinCohort), the minimal set, the bound, and the
 * oracle the flavor assigner asks.
 */
import { granular, NO_CANDIDATES, PREEMPT, RECLAIM } from '../../../src/policy/plan/assignment';
import { Preemptor } from '../../../src/policy/plan/preemptor';
import { addUsage, rootOf } from '../../../src/policy/plan/quota-tree';
import { admit, B, fixture } from './fixtures';
import { clusterQueue, CQSpec, flavor, localQueue, rayCluster, wpc } from './scenarios';

const PRIORITIES = [wpc(B, 'low', 10), wpc(B, 'mid', 50), wpc(B, 'high', 100)];
const rc = (name: string, lq: string, cpu: number, priority: string) => rayCluster(name, { lq, priority, headCpu: String(cpu) });

interface Case {
  readonly name: string;
  readonly queues: Record<string, CQSpec>;
  /** Admitted before, in this order (arrival order), in flavor f1: [name, queue, cpu, priority]. */
  readonly admitted: ReadonlyArray<readonly [string, string, number, string]>;
  /** The preemptor: [queue, cpu, priority]; it arrives first unless `preemptorLast`. */
  readonly preemptor: readonly [string, number, string];
  readonly preemptorLast?: boolean;
  /** Victims and their reasons, or [] for none. */
  readonly expected: string[];
  readonly boundFails?: boolean;
  /** Every admission at this arrival (else each at its own). */
  readonly sameAdmission?: number;
}

function setUp(c: Case) {
  const queues = Object.entries(c.queues);
  const arrivals = c.admitted.map(([name, q, cpu, p]) => rc(name, `lq-${q}`, cpu, p));
  const preemptor = rc('preemptor', `lq-${c.preemptor[0]}`, c.preemptor[1], c.preemptor[2]);
  if (c.preemptorLast) arrivals.push(preemptor);
  else arrivals.unshift(preemptor);
  const objects = [flavor(B, 'f1'), ...PRIORITIES, ...queues.map(([n, s]) => clusterQueue(B, n, s)),
    ...queues.map(([n]) => localQueue(B, `lq-${n}`, n))];
  const { snapshot, workloads } = fixture(objects, arrivals);
  c.admitted.forEach(([name], i) => admit(snapshot, workloads.get(name)!, 'f1', c.sameAdmission ?? i));
  const ties: string[] = [];
  const preemptorObject = new Preemptor(snapshot, true, (a, b) => ties.push(`${a.name}=${b.name}`));
  return { snapshot, workloads, preemptor: preemptorObject, w: workloads.get('preemptor')!, ties };
}

function targetsOf(c: Case) {
  const s = setUp(c);
  const id = s.snapshot.flavorResourceOf('f1', 'cpu');
  const value = s.snapshot.toUnits('cpu', BigInt(c.preemptor[1]) * 1000n);
  const considered: string[] = [];
  const targets = s.preemptor.getTargets(s.w, s.w.clusterQueue!, [id], [id], [value], considered);
  return { ...s, targets, considered, id, value };
}

const IN_COHORT = (s: Partial<CQSpec>): CQSpec => ({ cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }], ...s });

describe('preemptor', () => {
  test.each<Case>([
    {
      name: 'within the ClusterQueue: the most recently admitted of the lowest priority that frees enough',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      admitted: [['low-a', 'a', 1, 'low'], ['low-b', 'a', 2, 'low'], ['mid', 'a', 1, 'mid']],
      preemptor: ['a', 2, 'high'], expected: ['low-b InClusterQueue'],
    },
    {
      name: 'fill back: a victim that is not needed once a later one is taken stays',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      admitted: [['low-big', 'a', 3, 'low'], ['low-small', 'a', 1, 'low']],
      preemptor: ['a', 3, 'high'], expected: ['low-big InClusterQueue'],
    },
    {
      name: 'two victims when one is not enough, lowest priority first',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      admitted: [['low', 'a', 2, 'low'], ['mid', 'a', 2, 'mid']],
      preemptor: ['a', 3, 'high'], expected: ['low InClusterQueue', 'mid InClusterQueue'],
    },
    {
      name: 'LowerPriority never takes an equal priority',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      admitted: [['peer', 'a', 3, 'mid']],
      preemptor: ['a', 2, 'mid'], expected: [], boundFails: true,
    },
    {
      name: 'LowerOrNewerEqualPriority takes an equal priority created after the preemptor',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerOrNewerEqualPriority' } },
      admitted: [['newer', 'a', 3, 'mid']],
      preemptor: ['a', 2, 'mid'], expected: ['newer InClusterQueue'],
    },
    {
      name: 'LowerOrNewerEqualPriority leaves an equal priority created before',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerOrNewerEqualPriority' } },
      admitted: [['older', 'a', 3, 'mid']],
      preemptor: ['a', 2, 'mid'], preemptorLast: true, expected: [],
    },
    {
      name: 'withinClusterQueue Never: nothing',
      queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }] } },
      admitted: [['low', 'a', 3, 'low']],
      preemptor: ['a', 2, 'high'], expected: [], boundFails: true,
    },
    {
      name: 'reclaim in the cohort from a ClusterQueue that borrows',
      queues: { a: IN_COHORT({}), b: IN_COHORT({ reclaim: 'LowerPriority' }) },
      admitted: [['borrower', 'a', 3, 'low']],
      preemptor: ['b', 2, 'high'], expected: ['borrower InCohortReclamation'],
    },
    {
      name: 'reclaimWithinCohort Any takes a higher priority too',
      queues: { a: IN_COHORT({}), b: IN_COHORT({ reclaim: 'Any' }) },
      admitted: [['borrower', 'a', 3, 'high']],
      preemptor: ['b', 2, 'low'], expected: ['borrower InCohortReclamation'],
    },
    {
      name: 'reclaimWithinCohort Never: a borrower keeps its quota',
      queues: { a: IN_COHORT({}), b: IN_COHORT({}) },
      admitted: [['borrower', 'a', 3, 'low']],
      preemptor: ['b', 2, 'high'], expected: [], boundFails: true,
    },
    {
      name: 'a ClusterQueue within its nominal quota is not reclaimed from',
      queues: { a: IN_COHORT({ quotas: [{ flavor: 'f1', cpu: '3' }] }), b: IN_COHORT({ reclaim: 'Any' }) },
      admitted: [['owner', 'a', 3, 'low']],
      preemptor: ['b', 3, 'high'], expected: [], boundFails: true,
    },
    {
      name: 'borrowWithinCohort: a preemptor that borrows reclaims from a lower priority that borrows',
      queues: { a: IN_COHORT({ reclaim: 'LowerPriority', borrowWithinCohort: 'LowerPriority' }), b: IN_COHORT({}) },
      admitted: [['borrower', 'b', 3, 'low']],
      preemptor: ['a', 3, 'high'], expected: ['borrower InCohortReclaimWhileBorrowing'],
    },
    {
      name: 'without borrowWithinCohort, a preemptor that must borrow reclaims nothing (the bound says so)',
      queues: { a: IN_COHORT({ reclaim: 'LowerPriority' }), b: IN_COHORT({}) },
      admitted: [['borrower', 'b', 3, 'low']],
      preemptor: ['a', 3, 'high'], expected: [], boundFails: true,
    },
  ])('$name', (c) => {
    const { targets, preemptor } = targetsOf(c);
    expect(targets.map((t) => `${t.workload.name} ${t.reason}`)).toEqual(c.expected);
    expect(preemptor.lastEndedAtBound).toBe(c.boundFails ?? false);
  });

  test('a victim\'s explanation names the policy and the priorities', () => {
    const { targets } = targetsOf({
      name: '', queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      admitted: [['low', 'a', 3, 'low']], preemptor: ['a', 2, 'high'], expected: [],
    });
    expect(targets[0].explanation).toMatch(/^in the same ClusterQueue a \(withinClusterQueue: LowerPriority\); priority 10 < 100; admitted at arrival 0/);
  });

  test('the search is memoised until the tree changes; the trace gets the candidates looked at', () => {
    const c: Case = {
      name: '', queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      admitted: [['low-a', 'a', 2, 'low'], ['low-b', 'a', 2, 'low']], preemptor: ['a', 2, 'high'], expected: [],
    };
    const s = targetsOf(c);
    expect(s.considered).toEqual(['RayCluster plan/low-b', 'RayCluster plan/low-a']);
    const cq = s.w.clusterQueue!;
    expect(s.preemptor.getTargets(s.w, cq, [s.id], [s.id], [s.value], undefined)).toBe(s.targets);
    cq.memo.version++;
    const again = s.preemptor.getTargets(s.w, cq, [s.id], [s.id], [s.value], undefined);
    expect(again).not.toBe(s.targets);
    expect(again.map((t) => t.workload.name)).toEqual(['low-b']);
  });

  test('candidates that only a UID separates are reported', () => {
    const s = setUp({
      name: '', queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
      // Both admitted at the same arrival: Kueue orders them by UID.
      admitted: [['low-a', 'a', 2, 'low'], ['low-b', 'a', 2, 'low']], preemptor: ['a', 2, 'high'], expected: [], sameAdmission: 7,
    });
    const id = s.snapshot.flavorResourceOf('f1', 'cpu');
    s.preemptor.getTargets(s.w, s.w.clusterQueue!, [id], [id], [s.snapshot.toUnits('cpu', 2000n)], undefined);
    expect(s.ties).toEqual(['low-a=low-b']);
  });

  test.each([
    {
      name: 'a victim in the ClusterQueue: Preempt', a: { within: 'LowerPriority' },
      admitted: [['own', 'a', 2, 'low'], ['other', 'b', 1, 'low']] as const, expected: granular(PREEMPT, 0),
    },
    { name: 'a victim in another ClusterQueue only: Reclaim', a: { reclaim: 'Any' }, admitted: [['borrower', 'b', 3, 'low']] as const,
      expected: granular(RECLAIM, 0) },
    { name: 'no victim: NoCandidates at the borrowing level it was given', a: {}, admitted: [['borrower', 'b', 3, 'low']] as const,
      expected: granular(NO_CANDIDATES, 3) },
  ])('the oracle: $name', ({ a, admitted, expected }) => {
    const s = setUp({
      name: '', queues: { a: IN_COHORT({ quotas: [{ flavor: 'f1', cpu: '3' }], ...a }), b: IN_COHORT({ quotas: [{ flavor: 'f1', cpu: '1' }] }) },
      admitted, preemptor: ['a', 3, 'high'], expected: [],
    });
    const id = s.snapshot.flavorResourceOf('f1', 'cpu');
    expect(s.preemptor.simulatePreemption(s.w, s.w.clusterQueue!, id, s.snapshot.toUnits('cpu', 3000n), 3)).toBe(expected);
  });
});

describe('the bound\'s failures, kept per tree version', () => {
  const c: Case = {
    name: 'a peer of equal priority', queues: { a: { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' } },
    admitted: [['peer', 'a', 3, 'mid']], preemptor: ['a', 2, 'mid'], expected: [],
  };

  test('a request at least as large as a failed one, or no larger than a passed one, on an unchanged tree is not bounded again', () => {
    const s = setUp(c);
    const bound = jest.spyOn(Preemptor.prototype as any, 'mayPreemptEnough');
    try {
      const id = s.snapshot.flavorResourceOf('f1', 'cpu');
      const cpu = (n: number) => s.snapshot.toUnits('cpu', BigInt(n) * 1000n);
      const cq = s.w.clusterQueue!;
      const ask = (n: number) => s.preemptor.getTargets(s.w, cq, [id], [id], [cpu(n)], undefined);
      const tree = rootOf(cq).treeVersion;
      expect(ask(2)).toEqual([]);
      expect(s.preemptor.lastEndedAtBound).toBe(true);
      expect(bound).toHaveBeenCalledTimes(1);
      // The bound's removals were undone exactly: the tree keeps its version.
      expect(rootOf(cq).treeVersion).toBe(tree);
      expect(ask(3)).toEqual([]);
      expect(s.preemptor.lastEndedAtBound).toBe(true);
      expect(bound).toHaveBeenCalledTimes(1);
      ask(1);
      expect(s.preemptor.lastEndedAtBound).toBe(false);
      expect(bound).toHaveBeenCalledTimes(2);
      // It passed (1 CPU is free): no larger request was asked, and the same one passes again without the bound.
      ask(1);
      expect(s.preemptor.lastEndedAtBound).toBe(false);
      expect(bound).toHaveBeenCalledTimes(2);
      // The tree's usage changed (as an admission or a release changes it): the failure is not taken as known.
      addUsage(cq, id, cpu(1));
      expect(rootOf(cq).treeVersion).not.toBe(tree);
      ask(3);
      expect(bound).toHaveBeenCalledTimes(3);
    } finally {
      bound.mockRestore();
    }
  });

  test('a request of several flavor/resources: kept by ClusterQueue, priority and shape, and taken as failing when no smaller', () => {
    // a and b share the tree (and its memo). The preemptor's peer in a is of its own priority; b's workload is lower.
    const cq = (): CQSpec => ({ cohort: 'co', quotas: [{ flavor: 'f1', cpu: '4' }, { flavor: 'f2', cpu: '4' }], within: 'LowerPriority' });
    const objects = [flavor(B, 'f1'), flavor(B, 'f2'), ...PRIORITIES, clusterQueue(B, 'a', cq()), clusterQueue(B, 'b', cq()),
      localQueue(B, 'lq-a', 'a'), localQueue(B, 'lq-b', 'b')];
    const { snapshot, workloads } = fixture(objects, [rc('preemptor', 'lq-a', 2, 'mid'), rc('peer', 'lq-a', 4, 'mid'), rc('low', 'lq-b', 4, 'low')]);
    admit(snapshot, workloads.get('peer')!, 'f1', 1);
    admit(snapshot, workloads.get('low')!, 'f1', 2);
    const preemptor = new Preemptor(snapshot, false, () => undefined);
    const w = workloads.get('preemptor')!;
    const [f1, f2] = ['f1', 'f2'].map((f) => snapshot.flavorResourceOf(f, 'cpu'));
    const cpu = (n: number) => snapshot.toUnits('cpu', BigInt(n) * 1000n);
    const bound = jest.spyOn(Preemptor.prototype as any, 'mayPreemptEnough');
    try {
      const ask = (q: string, one: number, two: number) => {
        preemptor.getTargets(w, snapshot.clusterQueues.get(q)!, [f1], [f1, f2], [cpu(one), cpu(two)], undefined);
        return preemptor.lastEndedAtBound;
      };
      // In units of 2 CPUs, the input's greatest common divisor: requests of whole units.
      expect(ask('a', 2, 2)).toBe(true);
      expect(ask('a', 4, 2)).toBe(true);
      expect(bound).toHaveBeenCalledTimes(1);
      expect(ask('a', 2, 0)).toBe(true);
      expect(bound).toHaveBeenCalledTimes(2);
      // The same priority and shape in b, which may preempt its lower workload: not a's failure.
      expect(ask('b', 4, 2)).toBe(false);
      expect(bound).toHaveBeenCalledTimes(3);
    } finally {
      bound.mockRestore();
    }
  });

  test('the oracle\'s search and trial removal of its targets leave the tree\'s version as it was', () => {
    const s = setUp({ ...c, admitted: [['low', 'a', 3, 'low']], preemptor: ['a', 2, 'high'] });
    const id = s.snapshot.flavorResourceOf('f1', 'cpu');
    const cq = s.w.clusterQueue!;
    const tree = rootOf(cq).treeVersion;
    expect(s.preemptor.simulatePreemption(s.w, cq, id, s.snapshot.toUnits('cpu', 2000n), 0)).toBe(granular(PREEMPT, 0));
    expect(rootOf(cq).treeVersion).toBe(tree);
  });
});
