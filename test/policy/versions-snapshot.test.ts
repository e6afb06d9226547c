/**
 * The guard of the version table: every capability of every supported Kueue and KubeRay version, field by field,
 * and the first versions behind the "needs >= vX" messages, equal the values written out per version before the
 * table was keyed by feature (versions.snapshot.json). A change to a modelled version's facts shows here.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  FIRST_KUBERAY_VERSION, FIRST_KUEUE_VERSION, kubeRayCapabilities, kueueCapabilities, RUN_KUBERAY_VERSIONS,
  SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS,
} from '../../src/policy/versions';

const SNAPSHOT = JSON.parse(fs.readFileSync(path.join(__dirname, 'versions.snapshot.json'), 'utf8'));

function fields(caps: object, snap: object): Array<[string, unknown, unknown]> {
  const keys = [...new Set([...Object.keys(caps), ...Object.keys(snap)])].sort();
  // JSON has no undefined: a field absent from the snapshot must be undefined in the capabilities.
  return keys.map((k) => [k, (caps as Record<string, unknown>)[k], (snap as Record<string, unknown>)[k]]);
}

test('the snapshot lists exactly the supported versions', () => {
  expect(Object.keys(SNAPSHOT.kueue)).toEqual([...SUPPORTED_KUEUE_VERSIONS]);
  expect(Object.keys(SNAPSHOT.kubeRay)).toEqual([...SUPPORTED_KUBERAY_VERSIONS]);
});

describe.each([...SUPPORTED_KUEUE_VERSIONS])('Kueue %s', (v) => {
  test.each(fields(kueueCapabilities(v), SNAPSHOT.kueue[v]))('%s', (_field, derived, snap) => {
    expect(derived).toEqual(snap);
  });
});

describe.each([...SUPPORTED_KUBERAY_VERSIONS])('KubeRay %s', (v) => {
  test.each(fields(kubeRayCapabilities(v), SNAPSHOT.kubeRay[v]))('%s', (_field, derived, snap) => {
    expect(derived).toEqual(snap);
  });
});

test('the first versions and the run versions', () => {
  expect({ ...FIRST_KUEUE_VERSION }).toEqual(SNAPSHOT.firstKueue);
  expect({ ...FIRST_KUBERAY_VERSION }).toEqual(SNAPSHOT.firstKubeRay);
  expect([...RUN_KUBERAY_VERSIONS]).toEqual(SNAPSHOT.runKubeRay);
});
