/** The ClusterQueue queue of the plan simulator (pure): order, parking by equivalence hash, requeue. */
import { WorkloadQueue } from '../../../src/policy/plan/queue';

interface W { readonly name: string; readonly priority: number; readonly created: number; readonly hash: number }
const w = (name: string, priority: number, created: number, hash = created): W => ({ name, priority, created, hash });

function drain(q: WorkloadQueue<W>, first?: W): string[] {
  const out: string[] = [];
  for (let x = q.pop(first); x; x = q.pop()) out.push(x.name);
  return out;
}

describe('WorkloadQueue', () => {
  test('pops by priority, then creation, across and within hash groups', () => {
    const q = new WorkloadQueue<W>();
    for (const x of [w('low-old', 1, 1, 7), w('high-new', 9, 5, 8), w('high-old', 9, 2, 8), w('mid', 5, 3, 9), w('low-new', 1, 4, 7)]) q.push(x);
    expect(q.size).toBe(5);
    expect(drain(q)).toEqual(['high-old', 'high-new', 'mid', 'low-old', 'low-new']);
    expect(q.size).toBe(0);
  });

  test('a sticky head comes first while it is queued', () => {
    const q = new WorkloadQueue<W>();
    const sticky = w('sticky', 1, 9);
    for (const x of [w('a', 5, 1), sticky, w('b', 5, 2)]) q.push(x);
    expect(drain(q, sticky)).toEqual(['sticky', 'a', 'b']);
    q.push(w('c', 1, 3));
    expect(q.pop(sticky)?.name).toBe('c');
  });

  test('parking a hash takes all its queued members; requeue brings every parked one back in order', () => {
    const q = new WorkloadQueue<W>();
    for (const x of [w('a1', 5, 1, 1), w('b1', 5, 2, 2), w('a2', 5, 3, 1), w('a3', 5, 4, 1)]) q.push(x);
    q.park(w('a0', 5, 0, 1));
    q.parkHash(1);
    expect(q.size).toBe(1);
    expect(drain(q)).toEqual(['b1']);
    q.push(w('c', 5, 5, 3));
    q.requeueParked();
    expect(q.size).toBe(5);
    expect(drain(q)).toEqual(['a0', 'a1', 'a2', 'a3', 'c']);
  });

  test('parkAll parks every queued workload', () => {
    const q = new WorkloadQueue<W>();
    for (const x of [w('a', 5, 1, 1), w('b', 5, 2, 2)]) q.push(x);
    q.parkAll();
    expect(q.size).toBe(0);
    expect(q.pop()).toBeUndefined();
    q.requeueParked();
    expect(drain(q)).toEqual(['a', 'b']);
  });
});
