// npm test's lanes (scripts/test-lanes.js) run each suite in exactly one part: a suite in no part would
// silently leave CI, one in two would run twice. jest's own --listTests resolves each part's patterns.
import { execFileSync } from 'child_process';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const { lanes, JEST } = require('../../scripts/test-lanes.js') as {
  lanes: Array<{ name: string; parts: Array<{ label: string; gated?: boolean; args: string[] }> }>; JEST: string;
};

function listTests(args: string[]): string[] {
  const out = execFileSync(process.execPath, [JEST, '--listTests', '--json', ...args], { cwd: ROOT, encoding: 'utf8' });
  return (JSON.parse(out) as string[]).map((f) => path.relative(ROOT, f)).sort();
}

test('every suite runs in exactly one lane part, and the e2e suites wait for the whole Go build', () => {
  const all = listTests([]);
  const seen = new Map<string, string[]>();
  for (const lane of lanes) {
    for (const part of lane.parts) {
      for (const f of listTests(part.args)) seen.set(f, [...(seen.get(f) ?? []), `${lane.name}: ${part.label}${part.gated ? ' (gated)' : ''}`]);
    }
  }
  expect(all.length).toBeGreaterThan(80);
  expect(all.filter((f) => !seen.has(f))).toEqual([]);
  expect([...seen].filter(([, parts]) => parts.length > 1)).toEqual([]);
  // Every suite that starts a test control plane on every pair is in a gated part.
  const e2e = all.filter((f) => f.startsWith('test/e2e/') || f.startsWith('test/agreement/') || /^test\/attack\/.*\.e2e\.test\.ts$/.test(f));
  expect(e2e.filter((f) => !seen.get(f)![0].endsWith('(gated)'))).toEqual([]);
  // The network-policy suite's enforcer (kube-router) comes from the rest stage: gated, in the node lane's second part.
  expect(seen.get('test/node/network-policy.e2e.test.ts')).toEqual(['node: upstream agreement, network policy (gated)']);
  expect(seen.get('test/node/guide.e2e.test.ts')).toEqual(['node: real node']);
}, 60000);
