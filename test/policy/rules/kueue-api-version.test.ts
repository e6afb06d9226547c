// src/policy/rules/kueue-api-version.ts: a Kueue object of an API version its Kueue does not serve (v1beta2 from
// 0.15, v1beta1 no longer from 0.20). Its input is any object and the Kueue version asked for, not a Ray object, so
// it has its own table; check runs it on every object of the files (test/cli/check-kueue-api.test.ts).
import { KUEUE_API_VERSION_RULE } from '../../../src/policy/rules/kueue-api-version';

const obj = (apiVersion: string, kind = 'ClusterQueue', namespace?: string) => ({ apiVersion, kind, metadata: { name: 'q', namespace } });
const V1 = 'kueue.x-k8s.io/v1beta1';
const V2 = 'kueue.x-k8s.io/v1beta2';

test.each([
  [V1, 'v0.20.0', 'ClusterQueue q', /^Kueue v0\.20\.0 does not serve kueue\.x-k8s\.io\/v1beta1 \(it serves kueue\.x-k8s\.io\/v1beta2\)/, /cohortName/],
  [V1, 'v0.21.3', 'ClusterQueue q', /does not serve kueue\.x-k8s\.io\/v1beta1/, /^write it as kueue\.x-k8s\.io\/v1beta2/],
  [V2, 'v0.14.8', 'ClusterQueue q', /^Kueue v0\.14\.8 does not serve kueue\.x-k8s\.io\/v1beta2 \(it serves kueue\.x-k8s\.io\/v1beta1\)/,
    /^write it as kueue\.x-k8s\.io\/v1beta1, or target/],
])('refused: %s on Kueue %s', (apiVersion, kueue, object, message, fix) => {
  expect(KUEUE_API_VERSION_RULE.check(obj(apiVersion), kueue)).toEqual([{ rule: 'kueueApiVersionServed', severity: 'error', object,
    field: 'apiVersion', source: 'kubernetes', message: expect.stringMatching(message), fix: expect.stringMatching(fix) }]);
});

test('a namespaced object is named with its namespace', () => {
  expect(KUEUE_API_VERSION_RULE.check(obj(V1, 'LocalQueue', 'team-a'), 'v0.20.0')[0].object).toBe('LocalQueue team-a/q');
});

test.each([
  [V1, 'v0.13.4'], [V1, 'v0.19.2'], [V2, 'v0.15.0'], [V2, 'v0.19.2'], [V2, 'v0.20.0'],
  ['ray.io/v1', 'v0.20.0'], ['v1', 'v0.20.0'], [undefined, 'v0.20.0'],
])('accepted: %s on Kueue %s', (apiVersion, kueue) => {
  expect(KUEUE_API_VERSION_RULE.check({ apiVersion, kind: 'X', metadata: { name: 'q' } }, kueue)).toEqual([]);
  expect(KUEUE_API_VERSION_RULE.check(null, kueue)).toEqual([]);
});
