// RULE_RECORDS and evaluateRayObject (src/policy/evaluate.ts): every rule comes from a rule file whose table test
// (test/policy/rules/<file>.test.ts) has a refused case and an accepted object for it; the valid base objects pass.
import * as fs from 'fs';
import * as path from 'path';
import { evaluateRayObject, formatFinding, RULES } from '../../src/policy';
import { ctx, elasticCluster, job, rulesOf, service } from './rules/fixtures';

const RULES_DIR = path.join(__dirname, '../../src/policy/rules');
const TESTS_DIR = path.join(__dirname, 'rules');

test('the valid base objects produce no errors on the default pair', () => {
  for (const o of [job(), elasticCluster(), service()]) {
    expect(evaluateRayObject(o, ctx()).filter((f) => f.severity === 'error').map(formatFinding)).toEqual([]);
  }
});

test('every rule has at least one failing-input case: each is defined by a rule file that has a table test', () => {
  // Each table test checks that every rule its file defines has a refused and an accepted row (coversEveryRule).
  const files = fs.readdirSync(RULES_DIR).filter((f) => f.endsWith('.ts') && f !== 'rule.ts').map((f) => f.replace(/\.ts$/, ''));
  const definedBy = new Map<string, string[]>();
  for (const file of files) {
    for (const rule of rulesOf(require(path.join(RULES_DIR, file)))) definedBy.set(rule, [...definedBy.get(rule) ?? [], file]);
  }
  const withoutTable = Object.keys(RULES).filter((r) => (definedBy.get(r) ?? []).length !== 1
    || !fs.existsSync(path.join(TESTS_DIR, `${definedBy.get(r)![0]}.test.ts`)))
    .map((r) => [r, definedBy.get(r) ?? []]);
  expect(withoutTable).toEqual([]);
});
