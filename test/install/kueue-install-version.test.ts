/**
 * KueueInstall installs the app's Kueue (KueueRayVersions): another version fails at synth, naming both and the fix,
 * so the cluster never runs a Kueue other than the one every construct checks against.
 */
import { Testing } from 'cdk8s';
import { KueueInstall, KueueRayVersions, KueueVersion } from '../../src';
import { DEFAULT_KUEUE_VERSION } from '../../src/policy/versions';

test('version unset, or equal to the app\'s, installs the app\'s Kueue', () => {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.V0_17_8 });
  expect(new KueueInstall(app, 'a').version).toBe('v0.17.8');
  expect(new KueueInstall(app, 'b', { version: KueueVersion.V0_17_8 }).version).toBe('v0.17.8');
  expect(new KueueInstall(Testing.app(), 'c').version).toBe(DEFAULT_KUEUE_VERSION);
});

test('a version other than the app\'s fails, naming both and the fix', () => {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.V0_17_8 });
  expect(() => new KueueInstall(app, 'k', { version: KueueVersion.V0_19_2 }))
    .toThrow(/version v0\.19\.2 is not the app's Kueue v0\.17\.8 .*Fix: .*KueueRayVersions\.use\(app, \{ kueue: KueueVersion\.of\('v0\.19\.2'\) \}\)/);
  // With no version chosen for the app, its Kueue is the default.
  expect(() => new KueueInstall(Testing.app(), 'k', { version: KueueVersion.V0_13_4 }))
    .toThrow(new RegExp(`version v0\\.13\\.4 is not the app's Kueue ${DEFAULT_KUEUE_VERSION.replace(/\./g, '\\.')}`));
});
