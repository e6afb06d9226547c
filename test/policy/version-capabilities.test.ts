/**
 * Facts across capabilities of the supported versions. (The first versions behind the "needs >= vX" messages are
 * read from the feature table, so they need no test to keep them in step with it.)
 */
import {
  kubeRayCapabilities, kueueCapabilities, RUN_KUBERAY_VERSIONS, SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS,
} from '../../src/policy/versions';
import { rayServicePair } from '../../src/policy/pair-verdict';

test('only Kueue without any elastic path refuses autoscaling outright', () => {
  for (const v of SUPPORTED_KUEUE_VERSIONS) {
    const k = kueueCapabilities(v);
    expect(k.refusesAutoscaling).toBe(!k.elasticRayCluster && k.elasticRayJob === 'none');
  }
});

test('KubeRay v1.7.0 is modelled, not run: the only version with a reason, and the RayService pairs its suspend change breaks', () => {
  expect(RUN_KUBERAY_VERSIONS).toEqual(SUPPORTED_KUBERAY_VERSIONS.filter((v) => v !== 'v1.7.0'));
  expect(kubeRayCapabilities('v1.7.0').notRunBecause).toMatch(/module proxy does not serve .*ray-operator v1\.7/);
  // No pinned Kueue sets the top-level spec.suspend KubeRay 1.7 expects, so the native RayService path is broken on 1.7.0 ...
  for (const k of SUPPORTED_KUEUE_VERSIONS) {
    const kueue = kueueCapabilities(k);
    expect(kueue.rayServiceTopLevelSuspend).toBe(false);
    const verdict = rayServicePair(kueue, kubeRayCapabilities('v1.7.0'));
    // ... and the RayCluster path works again: 1.7.0 keeps the cluster's own suspend, which older Kueue toggles.
    expect(verdict.status).toBe(kueue.rayServiceQueueing === 'native' ? 'broken' : 'works');
    if (verdict.status === 'broken') expect(verdict.reason).toMatch(/only when it creates the RayCluster .*spec\.suspend/);
  }
});
