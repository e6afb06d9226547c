// npm test's lanes (scripts/test-lanes.js) run each suite in exactly one part: a suite in no part would
// silently leave CI, one in two would run twice. jest's own --listTests resolves each part's patterns. The
// pool is one part that both lanes take suites from, each suite once.
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
type Part = { label: string; gated?: boolean; pool?: boolean; growsPool?: boolean; args: string[] };
interface PoolLike {
  slots: number; running: Set<string>; fits(f: string): boolean; take<T>(pick: () => T | undefined): Promise<T>;
  start(f: string): void; done(f: string): void; grow(n: number): void;
}
const {
  lanes, JEST, POOL, POOL_ONLY, POOL_SLOTS, POOL_SLOTS_AFTER_NODE, QUIET_READERS, Pool, poolOrder,
} = require('../../scripts/test-lanes.js') as {
  lanes: Array<{ name: string; poolWorkers?: number; parts: Part[] }>; JEST: string; POOL: Part;
  POOL_ONLY: Record<string, { lane: string; needs: string }>; POOL_SLOTS: number; POOL_SLOTS_AFTER_NODE: number;
  QUIET_READERS: Set<string>; Pool: new (n: number) => PoolLike; poolOrder: (files: string[]) => string[];
};

function listTests(args: string[]): string[] {
  const out = execFileSync(process.execPath, [JEST, '--listTests', '--json', ...args], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(out) as string[]).map((f) => path.relative(ROOT, f)).sort();
}

test('every suite runs in exactly one lane part, and the e2e suites wait for the whole Go build', () => {
  const all = listTests([]);
  const seen = new Map<string, string[]>();
  const parts = new Map<Part, string>();
  for (const lane of lanes) for (const part of lane.parts) parts.set(part, part === POOL ? 'pool' : lane.name);
  // The pool is in both lanes, and counted once.
  expect(lanes.map((l) => l.parts.includes(POOL))).toEqual([true, true]);
  for (const [part, where] of parts) {
    for (const f of listTests(part.args)) seen.set(f, [...(seen.get(f) ?? []), `${where}: ${part.label}${part.gated ? ' (gated)' : ''}`]);
  }
  expect(all.length).toBeGreaterThan(80);
  expect(all.filter((f) => !seen.has(f))).toEqual([]);
  expect([...seen].filter(([, parts]) => parts.length > 1)).toEqual([]);
  // Every suite that starts a test control plane on every pair is in a gated part.
  const e2e = all.filter((f) => f.startsWith('test/e2e/') || f.startsWith('test/agreement/') || /^test\/attack\/.*\.e2e\.test\.ts$/.test(f));
  expect(e2e.filter((f) => !seen.get(f)![0].endsWith('(gated)'))).toEqual([]);
  // The network-policy suite's enforcer (kube-router) is built after the rest stage: pooled, for the node lane
  // only (it runs a real node), once kube-router is built.
  expect(seen.get('test/node/network-policy.e2e.test.ts')).toEqual([`pool: ${POOL.label} (gated)`]);
  expect(POOL_ONLY['test/node/network-policy.e2e.test.ts']).toEqual({ lane: 'node', needs: 'kube-router-status' });
  for (const f of Object.keys(POOL_ONLY)) expect(seen.get(f)).toEqual([`pool: ${POOL.label} (gated)`]);
  expect(seen.get('test/node/guide.e2e.test.ts')).toEqual(['node: real node']);
  // promtool is built in the rest stage (only its suite runs it): that suite is pooled.
  expect(seen.get('test/observability/promtool.test.ts')).toEqual([`pool: ${POOL.label} (gated)`]);
}, 60000);

test('the pool runs POOL_SLOTS suites at once, and one more once the guide is done, never beside a settle-window suite', async () => {
  // Three workers (the rest lane's two, the node lane's one). Beside the real-node part the rest lane runs two
  // pooled suites; once the node lane's own part is done (the part that grows the pool), three at once.
  expect([POOL_SLOTS, POOL_SLOTS_AFTER_NODE]).toEqual([2, 3]);
  expect(lanes.reduce((n, l) => n + (l.parts.includes(POOL) ? l.poolWorkers ?? 1 : 0), 0)).toBe(3);
  expect(lanes.flatMap((l) => l.parts.filter((p) => p.growsPool).map((p) => `${l.name}: ${p.label}`))).toEqual(['node: real node']);
  const all = listTests(POOL.args);
  for (const f of QUIET_READERS) expect(all).toContain(f);
  // They come first (the third slot never runs them), then the longest.
  const sorted = poolOrder(all);
  expect(sorted.slice(0, QUIET_READERS.size).sort()).toEqual([...QUIET_READERS].sort());
  expect(sorted[QUIET_READERS.size]).toBe('test/e2e/scenarios.e2e.test.ts');

  const pool = new Pool(POOL_SLOTS);
  const [reader] = [...QUIET_READERS];
  const queue = ['a', reader, 'b', 'c', 'd'];
  const order: string[] = [];
  const worker = (name: string) => pool.take(() => {
    const at = queue.findIndex((f) => pool.fits(f));
    if (at < 0) return undefined;
    const [f] = queue.splice(at, 1);
    pool.start(f);
    order.push(`${name}: ${f}`);
    return f;
  });
  await worker('w1');
  await worker('w2');
  expect([...pool.running]).toEqual(['a', reader]);
  // Two slots: the third worker waits.
  let third: string | undefined;
  const w3 = worker('w3').then((f) => { third = f; });
  await new Promise((r) => setImmediate(r));
  expect(third).toBeUndefined();
  // A third slot, but a settle-window suite runs: nothing starts beside it.
  pool.grow(POOL_SLOTS_AFTER_NODE);
  await new Promise((r) => setImmediate(r));
  expect(third).toBeUndefined();
  expect(pool.fits('b')).toBe(false);
  // It ends: the waiting worker takes the next suite, and one more may start beside the two.
  pool.done(reader);
  await w3;
  expect(third).toBe('b');
  expect(await worker('w1')).toBe('c');
  expect([...pool.running].sort()).toEqual(['a', 'b', 'c']);
  expect(pool.fits('d')).toBe(false);
  // With three running, a settle-window suite waits for two to end.
  queue.unshift(reader);
  pool.done('a');
  expect(pool.fits(reader)).toBe(false);
  pool.done('b');
  expect(pool.fits(reader)).toBe(true);
  expect(order).toEqual(['w1: a', `w2: ${reader}`, 'w3: b', 'w1: c']);
});
