/**
 * The plan's snapshot on its own: quotas read through the inventory (one reading of resourceGroups),
 * the unit of each resource, the quota tree, cohort links, inactive ClusterQueues and the memo per tree.
 */
import { inventoryFromObjects } from '../../../src/policy/inventory-objects';
import { available, NO_LIMIT, potentialAvailable } from '../../../src/policy/plan/quota-tree';
import { buildSnapshot, Snapshot } from '../../../src/policy/plan/snapshot';
import { B, fixture } from './fixtures';
import { clusterQueue, cohort, flavor, localQueue, rayCluster } from './scenarios';

const cpuOf = (s: Snapshot, name: string, f = 'f1') => {
  const cq = s.clusterQueues.get(name)!;
  const id = s.flavorResourceOf(f, 'cpu');
  return {
    nominal: s.format(id, cq.nominal[id]), available: s.format(id, available(cq, id)), maximum: s.format(id, potentialAvailable(cq, id)),
    borrowingLimit: cq.borrowingLimit[id] === NO_LIMIT ? undefined : s.format(id, cq.borrowingLimit[id]),
    lendingLimit: cq.lendingLimit[id] === NO_LIMIT ? undefined : s.format(id, cq.lendingLimit[id]),
  };
};

describe('plan snapshot', () => {
  test.each([
    {
      name: 'a lone ClusterQueue: its nominal quota, nothing to borrow',
      queues: [clusterQueue(B, 'a', { quotas: [{ flavor: 'f1', cpu: '4' }] })],
      expected: { a: { nominal: '4', available: '4', maximum: '4', borrowingLimit: undefined, lendingLimit: undefined } },
    },
    {
      name: 'two ClusterQueues in a cohort: each may borrow the other\'s quota',
      queues: [clusterQueue(B, 'a', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] }),
        clusterQueue(B, 'b', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '3' }] })],
      expected: {
        a: { nominal: '2', available: '5', maximum: '5', borrowingLimit: undefined, lendingLimit: undefined },
        b: { nominal: '3', available: '5', maximum: '5', borrowingLimit: undefined, lendingLimit: undefined },
      },
    },
    {
      name: 'a borrowingLimit caps what a ClusterQueue can take, a lendingLimit what it gives',
      queues: [
        clusterQueue(B, 'a', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2', borrowingLimit: '500m' }] }),
        clusterQueue(B, 'b', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '3', lendingLimit: '1' }] }),
      ],
      expected: {
        a: { nominal: '2', available: '2.5', maximum: '2.5', borrowingLimit: '0.5', lendingLimit: undefined },
        b: { nominal: '3', available: '5', maximum: '5', borrowingLimit: undefined, lendingLimit: '1' },
      },
    },
    {
      name: 'a cohort\'s own quota is lent to its ClusterQueues',
      queues: [cohort(B, 'co', undefined, { flavor: 'f1', cpu: '2' }), clusterQueue(B, 'a', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '1' }] })],
      expected: { a: { nominal: '1', available: '3', maximum: '3', borrowingLimit: undefined, lendingLimit: undefined } },
    },
  ])('$name', ({ queues, expected }) => {
    const s = buildSnapshot([flavor(B, 'f1'), ...queues], []);
    for (const [name, cpu] of Object.entries(expected)) expect(cpuOf(s, name)).toEqual(cpu);
  });

  test('resourceGroups are read once, by the inventory the admission rules read', () => {
    const objects = [flavor(B, 'f1'), flavor(B, 'f2'), cohort(B, 'co', undefined, { flavor: 'f1', cpu: '2' }),
      clusterQueue(B, 'a',
        { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2', borrowingLimit: '1' }, { flavor: 'f2', cpu: '1500m', lendingLimit: '1' }] })];
    const s = buildSnapshot(objects, []);
    const lenient = inventoryFromObjects({
      clusterQueues: objects.filter((o) => o.kind === 'ClusterQueue'), cohorts: objects.filter((o) => o.kind === 'Cohort'),
      localQueues: [], priorityClasses: [], namespaces: [],
    });
    expect(s.inventory.clusterQueues.map((c) => c.resourceGroups)).toEqual(lenient.clusterQueues.map((c) => c.resourceGroups));
    expect(s.inventory.cohorts.map((c) => c.resourceGroups)).toEqual(lenient.cohorts.map((c) => c.resourceGroups));
    // The tree holds the same numbers: f2's 1.5 CPU in the unit chosen for cpu.
    expect(cpuOf(s, 'a', 'f2')).toEqual({ nominal: '1.5', available: '1.5', maximum: '1.5', borrowingLimit: undefined, lendingLimit: '1' });
  });

  test('a quota that does not parse is an error for the plan (the admission inventory reads it as absent)', () => {
    const bad = clusterQueue(B, 'a', { quotas: [{ flavor: 'f1', cpu: 'lots' }] });
    expect(() => buildSnapshot([flavor(B, 'f1'), bad], [])).toThrow(/lots/);
    const lenient = inventoryFromObjects({ clusterQueues: [bad], cohorts: [], localQueues: [], priorityClasses: [], namespaces: [] });
    expect(lenient.clusterQueues[0].resourceGroups[0].flavors[0].resources[0].nominal).toBe(0n);
  });

  test.each([
    { name: 'the greatest common divisor of quotas and requests', quota: '3', request: '500m', unitMilli: 500n },
    { name: 'whole units when everything is whole', quota: '4', request: '2', unitMilli: 2000n },
    { name: 'a finer request makes a finer unit', quota: '4', request: '250m', unitMilli: 250n },
  ])('the cpu unit: $name', ({ quota, request, unitMilli }) => {
    const { snapshot } = fixture([flavor(B, 'f1'), clusterQueue(B, 'a', { quotas: [{ flavor: 'f1', cpu: quota }] }), localQueue(B, 'lq', 'a')],
      [rayCluster('r', { lq: 'lq', headCpu: request })]);
    expect(snapshot.units.get('cpu')).toBe(unitMilli);
    const id = snapshot.flavorResourceOf('f1', 'cpu');
    expect(snapshot.format(id, snapshot.clusterQueues.get('a')!.nominal[id])).toBe(quota);
  });

  test('quantities past what a double holds exactly are refused', () => {
    const huge = clusterQueue(B, 'a', { quotas: [{ flavor: 'f1', cpu: '9007199254740993m' }] });
    expect(() => buildSnapshot([flavor(B, 'f1'), huge, clusterQueue(B, 'b', { quotas: [{ flavor: 'f1', cpu: '1m' }] })], [])).toThrow(/2\^53/);
  });

  test('a cohort cycle is noted and its link ignored; each tree has its own search memo', () => {
    const s = buildSnapshot([
      flavor(B, 'f1'), cohort(B, 'x', 'y'), cohort(B, 'y', 'x'),
      clusterQueue(B, 'a', { cohort: 'x', quotas: [{ flavor: 'f1', cpu: '1' }] }),
      clusterQueue(B, 'b', { cohort: 'x', quotas: [{ flavor: 'f1', cpu: '1' }] }),
      clusterQueue(B, 'c', { quotas: [{ flavor: 'f1', cpu: '1' }] }),
    ], []);
    expect(s.notes).toEqual(['Cohort y: parent x makes a cycle; the link is ignored, as Kueue ignores such trees']);
    expect(s.cohorts.get('x')!.parent?.name).toBe('y');
    expect(s.cohorts.get('y')!.parent).toBeUndefined();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => s.clusterQueues.get(n)!);
    expect(a.memo).toBe(b.memo);
    expect(a.memo).not.toBe(c.memo);
  });

  test.each([
    { name: 'stopPolicy Hold', spec: { quotas: [{ flavor: 'f1', cpu: '1' }], stopPolicy: 'Hold' },
      reason: 'ClusterQueue a is inactive: stopPolicy Hold' },
    { name: 'a missing flavor', spec: { quotas: [{ flavor: 'nope', cpu: '1' }] }, reason: 'ClusterQueue a is inactive: flavor nope not found' },
    { name: 'nothing wrong', spec: { quotas: [{ flavor: 'f1', cpu: '1' }] }, reason: undefined },
  ])('inactive ClusterQueue: $name', ({ spec, reason }) => {
    const s = buildSnapshot([flavor(B, 'f1'), clusterQueue(B, 'a', spec)], []);
    expect(s.clusterQueues.get('a')!.inactiveReason).toBe(reason);
  });

  test('flavor fungibility and preemption policies as the ClusterQueue spells them', () => {
    const s = buildSnapshot([flavor(B, 'f1'), clusterQueue(B, 'a', {
      cohort: 'co', quotas: [{ flavor: 'f1', cpu: '1' }], within: 'LowerPriority', reclaim: 'Any', borrowWithinCohort: 'LowerPriority',
      whenCanBorrow: 'try', whenCanPreempt: 'stop', strict: true,
    })], []);
    const a = s.clusterQueues.get('a')!;
    expect({ preemption: a.preemption, tryNextOnBorrow: a.tryNextOnBorrow, tryNextOnPreempt: a.tryNextOnPreempt, strict: a.strict }).toEqual({
      preemption: { within: 'LowerPriority', reclaim: 'Any', borrowPolicy: 'LowerPriority', threshold: undefined },
      tryNextOnBorrow: true, tryNextOnPreempt: false, strict: true,
    });
  });
});
