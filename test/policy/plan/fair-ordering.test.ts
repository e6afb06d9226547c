/**
 * The order of fair-sharing preemption's target ClusterQueues (TargetOrdering, Kueue's TargetClusterQueueOrdering)
 * against Kueue's own test: TestMakeClusterQueueOrdering (7 cases) of
 * pkg/scheduler/preemption/fairsharing/ordering_test.go at v0.19.2, case by case. Each case sets up the same
 * ClusterQueues and Cohorts, admits the same workloads (their usage makes the targets borrow, as upstream's
 * admitted workloads do), takes those of the candidate ClusterQueues as the candidates, walks the ordering from
 * the preemptor's ClusterQueue, dropping or popping the yielded ClusterQueue as the case says (pop when it says
 * nothing; popping takes a candidate without releasing its usage, as upstream's PopWorkload), and compares the
 * sequence of yielded ClusterQueues.
 */
import { dominantResourceShare } from '../../../src/policy/plan/fair-share';
import { TargetOrdering } from '../../../src/policy/plan/fair-preemptor';
import type { ClusterQueue, Workload } from '../../../src/policy/plan/snapshot';
import { admit, B, fixture } from './fixtures';
import { localQueue, rayCluster } from './scenarios';

const API = 'kueue.x-k8s.io/v1beta2';

/** A ClusterQueue: its cohort, if any, and the nominal cpu of the "default" flavor. */
interface CQ { readonly cohort?: string; readonly cpu: string }

/** An admitted workload: [name, ClusterQueue, cpu], all in the "default" flavor. */
type Admitted = readonly [string, string, string];

interface Case {
  readonly name: string;
  /** Line of the case in ordering_test.go at v0.19.2. */
  readonly line: number;
  readonly queues: Record<string, CQ>;
  /** Cohort objects: name and parent. */
  readonly cohorts?: Record<string, { readonly parent?: string }>;
  readonly admitted: readonly Admitted[];
  readonly preemptor: string;
  /** Only the admitted workloads of these ClusterQueues are candidates. */
  readonly candidateCQs: readonly string[];
  /** Per yielded ClusterQueue, in turn: drop it or pop its next candidate; pop once the list is used up, as upstream. */
  readonly actions?: ReadonlyArray<'drop' | 'pop'>;
  readonly want: readonly string[];
}

const cqObject = (name: string, s: CQ) => ({
  apiVersion: API, kind: 'ClusterQueue', metadata: { name },
  spec: {
    namespaceSelector: {}, ...(s.cohort ? { cohortName: s.cohort } : {}),
    resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'default', resources: [{ name: 'cpu', nominalQuota: s.cpu }] }] }],
  },
});
const cohortObject = (name: string, parent?: string) => ({
  apiVersion: API, kind: 'Cohort', metadata: { name }, spec: { ...(parent ? { parentName: parent } : {}) },
});

/** The names of the ClusterQueues the ordering yields, with the case's actions between two. */
function orderOf(c: Case): string[] {
  const objects = [{ apiVersion: API, kind: 'ResourceFlavor', metadata: { name: 'default' }, spec: {} },
    ...Object.entries(c.cohorts ?? {}).map(([n, s]) => cohortObject(n, s.parent)),
    ...Object.entries(c.queues).map(([n, s]) => cqObject(n, s)),
    ...Object.keys(c.queues).map((n) => localQueue(B, `lq-${n}`, n))];
  const arrivals = c.admitted.map(([n, q, cpu]) => rayCluster(n, { lq: `lq-${q}`, headCpu: cpu }));
  const { snapshot, workloads } = fixture(objects, arrivals);
  for (const [n] of c.admitted) admit(snapshot, workloads.get(n)!, 'default', 0);

  // Upstream groups the candidates by ClusterQueue in the order of the admitted list.
  const byQueue = new Map<ClusterQueue, Workload[]>();
  for (const [n, q] of c.admitted) {
    if (!c.candidateCQs.includes(q)) continue;
    const cq = snapshot.clusterQueues.get(q)!;
    byQueue.set(cq, [...(byQueue.get(cq) ?? []), workloads.get(n)!]);
  }
  const candidates = new Map([...byQueue].map(([q, list]) => {
    let at = 0;
    return [q, { peek: () => list[at], next: () => list[at++] }] as const;
  }));

  const preemptor = snapshot.clusterQueues.get(c.preemptor)!;
  const units = snapshot.shareUnits();
  const ordering = new TargetOrdering(preemptor, candidates, (node) => dominantResourceShare(node, units, 'float'), 'float');
  const got: string[] = [];
  for (const t of ordering.targets()) {
    if (c.actions?.[got.length] === 'drop') ordering.drop(t);
    else ordering.pop(t);
    got.push(t.name);
    if (got.length > 50) throw new Error('exceeded 50 iterations, likely an infinite loop');
  }
  return got;
}

/** preemptor (4), high (2) and low (2) in cohort "all". */
const HIGH_LOW: Record<string, CQ> = {
  preemptor: { cohort: 'all', cpu: '4' }, high: { cohort: 'all', cpu: '2' }, low: { cohort: 'all', cpu: '2' },
};

const CASES: Case[] = [
  { name: 'no cohort: preemptor CQ yielded for in-CQ preemption; repro for nil pointer panic issue', line: 53,
    queues: { preemptor: { cpu: '4' } }, admitted: [['wl1', 'preemptor', '1']],
    preemptor: 'preemptor', candidateCQs: ['preemptor'], want: ['preemptor'] },
  { name: 'no cohort: DropQueue ends the iteration with candidates remaining', line: 68,
    queues: { preemptor: { cpu: '4' } }, admitted: [['wl1', 'preemptor', '1'], ['wl2', 'preemptor', '1']],
    preemptor: 'preemptor', candidateCQs: ['preemptor'], actions: ['drop'], want: ['preemptor'] },
  { name: 'non-borrowing CQ is pruned even with candidates', line: 86,
    queues: { preemptor: { cohort: 'all', cpu: '4' }, target: { cohort: 'all', cpu: '5' } }, admitted: [['t1', 'target', '2']],
    preemptor: 'preemptor', candidateCQs: ['target'], want: [] },
  { name: 'higher DRS CQ returned before lower DRS CQ', line: 104,
    queues: HIGH_LOW, admitted: [['h1', 'high', '5'], ['l1', 'low', '3']],
    preemptor: 'preemptor', candidateCQs: ['high', 'low'], want: ['high', 'low'] },
  { name: 'CQ with highest DRS returned again while it still has candidates', line: 128,
    queues: HIGH_LOW, admitted: [['h1', 'high', '3'], ['h2', 'high', '2'], ['l1', 'low', '3']],
    preemptor: 'preemptor', candidateCQs: ['high', 'low'], want: ['high', 'high', 'low'] },
  { name: 'drop queue prevents CQ from being returned again', line: 155,
    queues: HIGH_LOW, admitted: [['h1', 'high', '3'], ['h2', 'high', '2'], ['l1', 'low', '3']],
    preemptor: 'preemptor', candidateCQs: ['high', 'low'], actions: ['drop', 'pop'], want: ['high', 'low'] },
  { name: 'hierarchical cohorts: higher-DRS subtree visited first', line: 183,
    queues: { 'preemptor-cq': { cohort: 'root', cpu: '4' }, 'left-cq': { cohort: 'left-cohort', cpu: '2' },
      'right-cq': { cohort: 'right-cohort', cpu: '2' } },
    cohorts: { 'root': {}, 'left-cohort': { parent: 'root' }, 'right-cohort': { parent: 'root' } },
    admitted: [['lc1', 'left-cq', '5'], ['rc1', 'right-cq', '3']],
    preemptor: 'preemptor-cq', candidateCQs: ['left-cq', 'right-cq'], want: ['left-cq', 'right-cq'] },
];

describe('TargetOrdering: Kueue v0.19.2 TestMakeClusterQueueOrdering', () => {
  test.each(CASES)('$name (ordering_test.go:$line)', (c) => {
    expect(orderOf(c)).toEqual(c.want);
  });
});
