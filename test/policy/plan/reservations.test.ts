/**
 * A cycle's reservations: held usage goes back at the cycle's end, last held first; a tree nothing else changed since
 * gets its versions back too, one the cycle changed keeps new ones (its state is new).
 */
import { addUsage, rootOf } from '../../../src/policy/plan/quota-tree';
import { CycleReservations } from '../../../src/policy/plan/reservations';
import { twoQueueTree } from './fixtures';

function tree() {
  const { snapshot, a, b, id } = twoQueueTree();
  const cpu = (n: number) => new Map([[id, snapshot.toUnits('cpu', BigInt(n) * 1000n)]]);
  const state = () => [a.usage[id], b.usage[id], a.parent!.usage[id]];
  const versions = () => [a.usageVersion, b.usageVersion, a.parent!.usageVersion, rootOf(a).treeVersion];
  return { a, b, id, cpu, state, versions };
}

describe('cycle reservations', () => {
  test('held in two ClusterQueues of a tree, given back: usage and versions as before', () => {
    const { a, b, cpu, state, versions } = tree();
    const r = new CycleReservations();
    const before = { state: state(), versions: versions() };
    r.hold(a, cpu(3));
    r.hold(b, cpu(1));
    expect(state()).not.toEqual(before.state);
    r.releaseAll();
    expect(state()).toEqual(before.state);
    expect(versions()).toEqual(before.versions);
  });

  test('the tree changed after a reservation (an admission): its usage stays changed and its versions are new', () => {
    const { a, b, id, cpu, state, versions } = tree();
    const r = new CycleReservations();
    const before = versions();
    r.hold(a, cpu(1));
    addUsage(b, id, cpu(1).get(id)!);
    const changed = state();
    r.releaseAll();
    expect(state()).toEqual([changed[0] - cpu(1).get(id)!, changed[1], changed[2]]);
    expect(versions()[3]).not.toBe(before[3]);
    // Released once: a second release gives nothing back again.
    r.releaseAll();
    expect(state()).toEqual([0, cpu(1).get(id)!, 0]);
  });
});
