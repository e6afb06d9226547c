/**
 * The version table is keyed by feature: adding a version is the version plus one step per feature that changes.
 */
import {
  deriveKubeRayCapabilities, deriveKueueCapabilities, featureAt, FIRST_KUBERAY_VERSION, FIRST_KUEUE_VERSION, firstVersionWhere,
  KUBERAY_FEATURES, kubeRayCapabilities, KUEUE_FEATURES, kueueCapabilities, SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS,
} from '../../src/policy/versions';

test('a feature takes the value of its last step at or before the version', () => {
  const steps = KUEUE_FEATURES.elasticRayJob;
  expect(featureAt(steps, 'v0.13.4')).toBe('none');
  expect(featureAt(steps, 'v0.14.7')).toBe('short-term');
  expect(featureAt(steps, 'v0.15.3')).toBe('short-term');
  expect(featureAt(steps, 'v0.15.4')).toBe('top-level');
});

test('every feature starts with a step before any modelled version, and its steps are in version order', () => {
  for (const table of [KUEUE_FEATURES, KUBERAY_FEATURES] as const) {
    for (const [name, steps] of Object.entries(table)) {
      expect([name, steps[0].version]).toEqual([name, 'v0.0.0']);
      const versions = (steps as ReadonlyArray<{ version: string }>).map((s) => s.version);
      expect([name, versions]).toEqual([name, [...versions].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))]);
    }
  }
});

test('the "needs >= vX" versions are the steps where the value starts', () => {
  expect(FIRST_KUEUE_VERSION.elasticRayJobTopLevel).toBe('v0.15.4');
  expect(FIRST_KUEUE_VERSION.queueNameLabelOnly).toBe('v0.15.0');
  expect(FIRST_KUBERAY_VERSION.deletionStrategy).toBe('v1.5.0');
  expect(firstVersionWhere(KUEUE_FEATURES, 'maxPodSets', (n) => n > 8)).toBe('v0.18.0');
  expect(() => firstVersionWhere(KUEUE_FEATURES, 'maxPodSets', (n) => n > 100)).toThrow(/no step of maxPodSets/);
});

test('a hypothetical next Kueue: the version and one changed feature, everything else as the newest supported', () => {
  const newest = SUPPORTED_KUEUE_VERSIONS[SUPPORTED_KUEUE_VERSIONS.length - 1];
  const next = 'v0.20.0';
  const table = { ...KUEUE_FEATURES, rayServiceTopLevelSuspend: [...KUEUE_FEATURES.rayServiceTopLevelSuspend, { version: next, value: true }] };
  const caps = deriveKueueCapabilities(next, table);
  // servedApiVersions already has a step past the newest modelled version (v1beta1 unserved from 0.20): its own value.
  expect(caps).toEqual({ ...kueueCapabilities(newest), version: next, rayServiceTopLevelSuspend: true,
    servedApiVersions: ['kueue.x-k8s.io/v1beta2'] });
  // The supported versions are untouched by the new step, and the new value has its first version.
  for (const v of SUPPORTED_KUEUE_VERSIONS) expect(deriveKueueCapabilities(v, table)).toEqual(kueueCapabilities(v));
  expect(firstVersionWhere(table, 'rayServiceTopLevelSuspend', (on) => on)).toBe(next);
});

test('a hypothetical next KubeRay: the version and one changed feature', () => {
  const newest = SUPPORTED_KUBERAY_VERSIONS[SUPPORTED_KUBERAY_VERSIONS.length - 1];
  const next = 'v1.8.0';
  const table = { ...KUBERAY_FEATURES, batchSchedulers: [...KUBERAY_FEATURES.batchSchedulers, { version: next, value: ['volcano', 'yunikorn'] }] };
  const { notRunBecause: _, ...newestRun } = kubeRayCapabilities(newest);
  expect(deriveKubeRayCapabilities(next, table)).toEqual({
    ...newestRun, version: next, operatorImage: `quay.io/kuberay/operator:${next}`, batchSchedulers: ['volcano', 'yunikorn'],
  });
});
