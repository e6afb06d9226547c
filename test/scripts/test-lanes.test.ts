// npm test's lanes (scripts/test-lanes.js) run each suite in exactly one part: a suite in no part would
// silently leave CI, one in two would run twice. jest's own --listTests resolves each part's patterns. The
// pool is one part that both lanes take suites from, each suite once.
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
type Part = { label: string; gated?: boolean; pool?: boolean; args: string[] };
interface SlotsLike { free: number; acquire(): Promise<void>; release(): void }
const { lanes, JEST, POOL, POOL_ONLY, POOL_SLOTS, Slots } = require('../../scripts/test-lanes.js') as {
  lanes: Array<{ name: string; poolWorkers?: number; parts: Part[] }>; JEST: string; POOL: Part;
  POOL_ONLY: Record<string, { lane: string; needs: string }>; POOL_SLOTS: number; Slots: new (n: number) => SlotsLike;
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
}, 60000);

test('the pool runs at most POOL_SLOTS suites at once, more workers than slots, a freed slot going to the longest waiter', async () => {
  // Three workers (the rest lane's two, the node lane's one) share two slots: beside the real-node part, the rest
  // lane runs two pooled suites; once the node lane joins, still two at once.
  expect(POOL_SLOTS).toBe(2);
  expect(lanes.reduce((n, l) => n + (l.parts.includes(POOL) ? l.poolWorkers ?? 1 : 0), 0)).toBe(3);
  const slots = new Slots(2);
  const order: string[] = [];
  await slots.acquire();
  await slots.acquire();
  expect(slots.free).toBe(0);
  const waiters = ['first', 'second'].map((n) => slots.acquire().then(() => order.push(n)));
  await Promise.resolve();
  expect(order).toEqual([]);
  slots.release();
  await waiters[0];
  expect(order).toEqual(['first']);
  slots.release();
  await waiters[1];
  expect(order).toEqual(['first', 'second']);
  slots.release();
  slots.release();
  expect(slots.free).toBe(2);
});
