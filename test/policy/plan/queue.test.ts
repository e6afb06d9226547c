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

  test('a hash found inadmissible stays so until the next requeue, and groups emptied and refilled keep their order', () => {
    const q = new WorkloadQueue<W>();
    q.markInadmissible(1);
    expect([q.isInadmissible(1), q.isInadmissible(2)]).toEqual([true, false]);
    for (const x of [w('a1', 5, 1, 1), w('b1', 5, 2, 2)]) q.push(x);
    // Emptied by pops, parked, requeued, and pushed to again: the same groups serve each time.
    for (let round = 0; round < 3; round++) {
      expect(drain(q)).toEqual(['a1', 'b1']);
      q.park(w('a1', 5, 1, 1));
      q.park(w('b1', 5, 2, 2));
      q.requeueParked();
      expect(q.isInadmissible(1)).toBe(false);
      q.markInadmissible(2);
      expect(q.size).toBe(2);
    }
    expect(q.isInadmissible(2)).toBe(true);
    q.parkHash(2);
    expect(drain(q)).toEqual(['a1']);
    q.requeueParked();
    expect([q.isInadmissible(2), q.size]).toEqual([false, 1]);
  });
});

describe('WorkloadQueue with admission fair sharing (LocalQueue usage first)', () => {
  interface L extends W { readonly lqIndex: number }
  const l = (name: string, priority: number, created: number, hash: number, lqIndex: number): L => ({ name, priority, created, hash, lqIndex });
  const drainL = (q: WorkloadQueue<L>, first?: L) => {
    const out: string[] = [];
    for (let x = q.pop(first); x; x = q.pop()) out.push(x.name);
    return out;
  };

  test('the idler LocalQueue first, above priority and the sticky workload; equal usage falls back to sticky, priority, creation', () => {
    const usage = [5, 1, 5];
    const q = new WorkloadQueue<L>((i) => usage[i]);
    const sticky = l('busy-sticky', 1, 9, 4, 0);
    for (const x of [l('busy-high', 9, 1, 1, 0), l('idle-low', 1, 2, 2, 1), sticky, l('other-mid', 5, 3, 3, 2)]) q.push(x);
    expect(q.pop(sticky)?.name).toBe('idle-low');
    // LocalQueues 0 and 2 tie: the sticky one, then priority.
    expect(drainL(q, sticky)).toEqual(['busy-sticky', 'busy-high', 'other-mid']);
  });

  test('equivalent workloads of two LocalQueues are grouped apart, parked together, and requeued to their own groups', () => {
    const usage = [3, 2];
    const q = new WorkloadQueue<L>((i) => usage[i]);
    for (const x of [l('a1', 5, 1, 7, 0), l('b1', 5, 2, 7, 1), l('a2', 5, 3, 7, 0), l('b2', 5, 4, 7, 1)]) q.push(x);
    // Same hash: Kueue's bulk move parks the workloads of both LocalQueues.
    q.parkHash(7);
    expect(q.size).toBe(0);
    q.requeueParked();
    expect(q.size).toBe(4);
    // Each LocalQueue's oldest is its group's head; the usage changes between pops.
    expect(q.pop()?.name).toBe('b1');
    usage[1] = 4;
    expect(q.pop()?.name).toBe('a1');
    expect(drainL(q)).toEqual(['a2', 'b2']);
  });
});
