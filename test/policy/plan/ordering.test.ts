/**
 * Preemption candidate ordering on its own (Kueue's CandidatesOrdering): runs merged by priority and
 * admission, the contested-resource and creation filters, evicted first, other ClusterQueues first,
 * and the ties only a UID separates.
 */
import { CandidateList, candidateListOf, contestedOf, orderCandidates, Run, tiesButForUid } from '../../../src/policy/plan/ordering';
import { admittedOrder, buildSnapshot, ClusterQueue, Workload } from '../../../src/policy/plan/snapshot';
import { newWorkload } from '../../../src/policy/plan/workload';
import { mulberry32 } from '../../support/random';
import { B } from './fixtures';
import { clusterQueue, flavor } from './scenarios';

const snapshot = buildSnapshot([flavor(B, 'f1'), flavor(B, 'f2'),
  clusterQueue(B, 'own', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '4' }, { flavor: 'f2', cpu: '4' }] }),
  clusterQueue(B, 'other', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '4' }] })], []);
const own = snapshot.clusterQueues.get('own')!, other = snapshot.clusterQueues.get('other')!;
const F1 = snapshot.flavorResourceOf('f1', 'cpu'), F2 = snapshot.flavorResourceOf('f2', 'cpu');

let nextId = 0;
interface CandidateSpec {
  readonly priority?: number;
  readonly admittedAt: number;
  readonly cq?: ClusterQueue;
  readonly created?: number;
  readonly evicted?: boolean;
  readonly id?: number;
  /** The flavor/resource it uses (one unit of it). */
  readonly uses?: number;
}

function candidate(name: string, o: CandidateSpec): Workload {
  const w = newWorkload({
    id: o.id ?? nextId++, ref: name, kind: 'RayCluster', namespace: 'plan', name, arrival: o.created ?? 0, created: o.created ?? 0, obj: {} as any,
    podSets: [], state: 'admitted', priority: o.priority ?? 0, clusterQueue: o.cq ?? own, clusterQueueName: (o.cq ?? own).name,
  });
  w.admittedAt = o.admittedAt;
  w.evicted = o.evicted ?? false;
  const uses = o.uses ?? F1;
  w.usage = new Map([[uses, 1]]);
  w.usageMask = 1 << uses;
  return w;
}

const run = (admitted: Workload[], o: Partial<Run> = {}): Run => ({
  priority: admitted[0]?.priority ?? 0, admitted: [...admitted].sort(admittedOrder), variant: 'WithinCQ', byCreation: false, ...o,
});
const names = (l: CandidateList) => l.workloads.map((w) => w.ref);
const empty = (): CandidateList => ({ workloads: [], runs: [] });

describe('candidate ordering', () => {
  test.each([
    { name: 'most recently admitted first', a: { admittedAt: 5, id: 1 }, b: { admittedAt: 3, id: 0 }, expected: -1 },
    { name: 'older admission later', a: { admittedAt: 3, id: 0 }, b: { admittedAt: 5, id: 1 }, expected: 1 },
    { name: 'same admission: the lower UID (workload number) first', a: { admittedAt: 4, id: 2 }, b: { admittedAt: 4, id: 7 }, expected: -1 },
  ])('admittedOrder: $name', ({ a, b, expected }) => {
    expect(Math.sign(admittedOrder(candidate('a', a), candidate('b', b)))).toBe(expected);
  });

  test('runs: lower priority first; one priority of two ClusterQueues merged by admission', () => {
    const low1 = candidate('low-own-old', { priority: 1, admittedAt: 1 }),
      low2 = candidate('low-other-new', { priority: 1, admittedAt: 4, cq: other });
    const low3 = candidate('low-own-mid', { priority: 1, admittedAt: 2 }), mid = candidate('mid', { priority: 5, admittedAt: 9 });
    const list = candidateListOf([run([mid]), run([low1, low3]), run([low2], { variant: 'ReclaimWithoutBorrowing' })], contestedOf([F1], 2), 0);
    expect(names(list)).toEqual(['low-other-new', 'low-own-mid', 'low-own-old', 'mid']);
    // Each candidate keeps the run it came from (its variant decides its reason).
    expect(list.runs.map((r) => r.variant)).toEqual(['ReclaimWithoutBorrowing', 'WithinCQ', 'WithinCQ', 'WithinCQ']);
  });

  test('several ClusterQueues\' runs of one priority, with the filters: the order of a sort of all their candidates', () => {
    // Seeded: four priorities, up to four runs each, admissions that tie (the workload number decides), some on F2.
    const r = mulberry32(7);
    const runs: Run[] = [];
    for (let p = 0; p < 4; p++) {
      for (let k = 1 + Math.floor(r() * 4); k > 0; k--) {
        const ws = Array.from({ length: 3 + Math.floor(r() * 8) }, () => candidate(`w${nextId}`,
          { priority: p, admittedAt: Math.floor(r() * 5), created: Math.floor(r() * 10), uses: r() < 0.3 ? F2 : F1, cq: k % 2 ? own : other }));
        runs.push(run(ws, { priority: p, byCreation: r() < 0.2 }));
      }
    }
    const expected = runs.flatMap((x) => x.admitted.filter((w) => w.usage.has(F1) && !(x.byCreation && !(4 < w.created))).map((w) => ({ w, x })))
      .sort((a, b) => a.x.priority - b.x.priority || admittedOrder(a.w, b.w));
    const list = candidateListOf([...runs].reverse(), contestedOf([F1], 2), 4);
    expect(names(list)).toEqual(expected.map((e) => e.w.ref));
    expect(list.runs.every((x, i) => x === expected[i].x)).toBe(true);
    expect(list.workloads.length).toBeGreaterThan(20);
  });

  test.each([
    { name: 'a candidate that uses none of the contested flavor/resources is left out', contested: [F1], expected: ['on-f1'] },
    { name: 'either contested flavor/resource makes a candidate', contested: [F1, F2], expected: ['on-f2', 'on-f1'] },
    { name: 'the filter without bits (a large table) gives the same', contested: [F2], tableSize: 40, expected: ['on-f2'] },
  ])('contested filter: $name', ({ contested, tableSize, expected }) => {
    const onF1 = candidate('on-f1', { admittedAt: 1, uses: F1 }), onF2 = candidate('on-f2', { admittedAt: 2, uses: F2 });
    expect(names(candidateListOf([run([onF1, onF2])], contestedOf(contested, tableSize ?? 2), 0))).toEqual(expected);
  });

  test.each([
    { name: 'byCreation: only workloads newer than the preemptor', byCreation: true, expected: ['newer'] },
    { name: 'without it: every workload of the run', byCreation: false, expected: ['newer', 'older'] },
  ])('equal priority, $name', ({ byCreation, expected }) => {
    const older = candidate('older', { admittedAt: 1, created: 1 }), newer = candidate('newer', { admittedAt: 2, created: 8 });
    expect(names(candidateListOf([run([older, newer], { byCreation })], contestedOf([F1], 2), 5))).toEqual(expected);
  });

  test('the order: evicted first, then hierarchical, by priority, own ClusterQueue', () => {
    const same = candidate('same', { admittedAt: 1 }), sameEvicted = candidate('same-evicted', { admittedAt: 2, evicted: true });
    const hierarchical = candidate('hierarchical', { admittedAt: 3, cq: other }), byPriority = candidate('by-priority', { admittedAt: 4, cq: other });
    const list = (...ws: Workload[]): CandidateList => ({ workloads: ws, runs: ws.map((w) => run([w])) });
    const lists = { sameQueue: list(same, sameEvicted), hierarchical: list(hierarchical), byPriority: list(byPriority) };
    const ordered = orderCandidates(lists, own, () => {});
    expect(names(ordered)).toEqual(['same-evicted', 'hierarchical', 'by-priority', 'same']);
  });

  test('adjacent candidates that tie but for the UID are reported, each pair once per list', () => {
    const a = candidate('a', { admittedAt: 3, priority: 1 }), b = candidate('b', { admittedAt: 3, priority: 1 }),
      c = candidate('c', { admittedAt: 2, priority: 1 });
    const ties: string[] = [];
    orderCandidates({ sameQueue: { workloads: [a, b, c], runs: [a, b, c].map((w) => run([w])) }, hierarchical: empty(), byPriority: empty() }, own,
      (x, y) => ties.push(`${x.ref}=${y.ref}`));
    expect(ties).toEqual(['a=b']);
  });

  test.each([
    { name: 'same admission, priority, eviction and side', b: {}, expected: true },
    { name: 'another admission time', b: { admittedAt: 4 }, expected: false },
    { name: 'another priority', b: { priority: 2 }, expected: false },
    { name: 'evicted and not', b: { evicted: true }, expected: false },
    { name: 'one in the preemptor\'s ClusterQueue, one not', b: { cq: other }, expected: false },
  ])('tiesButForUid: $name', ({ b, expected }) => {
    const base = { admittedAt: 3, priority: 1 };
    expect(tiesButForUid(candidate('a', base), candidate('b', { ...base, ...b }), own)).toBe(expected);
  });
});
