// The reconciler's work queue (pure scheduling logic): bounded concurrency, one item per key at a
// time, the newest item wins, the event loop is yielded between items, failures retried unless superseded.
import { WorkQueue } from '../../src/controller/work-queue';

const defer = () => {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};
const ticks = async (n = 5) => { for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r)); };

test('never more than `concurrency` items in flight, and every item runs', async () => {
  let running = 0;
  let peak = 0;
  const done: string[] = [];
  const q = new WorkQueue<number>({
    concurrency: 4,
    handle: async (key) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 1));
      running--;
      done.push(key);
    },
  });
  for (let i = 0; i < 100; i++) q.add(`k${i}`, i);
  await q.idle();
  expect(peak).toBe(4);
  expect(done.sort()).toEqual(Array.from({ length: 100 }, (_, i) => `k${i}`).sort());
});

test('adding a burst runs nothing synchronously, and other macrotasks run between items', async () => {
  const order: string[] = [];
  const q = new WorkQueue<number>({ concurrency: 1, handle: async (key) => { order.push(key); } });
  for (let i = 0; i < 3; i++) q.add(`k${i}`, i);
  expect(order).toEqual([]);
  setImmediate(() => order.push('other'));
  await q.idle();
  // 'other' was queued after the first item's turn, and ran before the queue finished.
  expect(order.indexOf('other')).toBeGreaterThan(0);
  expect(order.indexOf('other')).toBeLessThan(order.length - 1);
});

test('one key is never handled twice at once; the newest item replaces a waiting one', async () => {
  const seen: number[] = [];
  const gate = defer();
  let concurrentSameKey = 0;
  let active = 0;
  const q = new WorkQueue<number>({
    concurrency: 4,
    handle: async (_key, item) => {
      active++;
      concurrentSameKey = Math.max(concurrentSameKey, active);
      seen.push(item);
      if (item === 1) await gate.promise;
      active--;
    },
  });
  q.add('a', 1);
  await ticks();
  q.add('a', 2);
  q.add('a', 3);
  await ticks();
  expect(seen).toEqual([1]); // 2 and 3 wait for 1
  gate.resolve();
  await q.idle();
  expect(seen).toEqual([1, 3]); // 2 was superseded
  expect(concurrentSameKey).toBe(1);
});

test('clear() drops what waits; forget() drops one key', async () => {
  const seen: string[] = [];
  const q = new WorkQueue<number>({ concurrency: 1, handle: async (key) => { seen.push(key); } });
  q.add('a', 1);
  q.add('b', 2);
  q.add('c', 3);
  q.forget('b');
  await q.idle();
  expect(seen).toEqual(['a', 'c']);
  q.add('d', 4);
  q.clear();
  await q.idle();
  expect(seen).toEqual(['a', 'c']);
});

test('a failed item is retried, unless a newer item for its key came meanwhile', async () => {
  const seen: Array<[string, number]> = [];
  const errors: string[] = [];
  let failA = true;
  const q = new WorkQueue<number>({
    concurrency: 2, retryMs: 10,
    handle: async (key, item) => {
      seen.push([key, item]);
      if (key === 'a' && failA) { failA = false; throw new Error('boom'); }
      if (key === 'b' && item === 1) throw new Error('boom');
    },
    onError: (key) => errors.push(key),
  });
  q.add('a', 1);
  q.add('b', 1);
  await q.idle();
  q.add('b', 2); // supersedes the failed b:1 before its retry
  await new Promise((r) => setTimeout(r, 50));
  await q.idle();
  expect(errors.sort()).toEqual(['a', 'b']);
  expect(seen.filter(([k]) => k === 'a')).toEqual([['a', 1], ['a', 1]]);
  expect(seen.filter(([k]) => k === 'b')).toEqual([['b', 1], ['b', 2]]);
  q.stop();
});
