/**
 * Each boolean version capability starts at the FIRST_*_VERSION entry that names it, as a gate in Kueue's
 * kube_features.go starts at its {Version}: the table and the "needs >= vX" messages cannot drift apart.
 */
import {
  compareVersions, FIRST_KUBERAY_VERSION, FIRST_KUEUE_VERSION, kubeRayCapabilities, kueueCapabilities, rayServicePair, RUN_KUBERAY_VERSIONS,
  SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS,
} from '../../src/policy/versions';

const KUEUE_FROM: Array<[string, (v: string) => unknown, unknown, string]> = [
  ['rayClusterAutoscalingNamesAnnotation', (v) => kueueCapabilities(v).rayClusterAutoscalingNamesAnnotation, true,
    FIRST_KUEUE_VERSION.validateRayUpdates],
  ['validatesUpdateOfFormerlyQueued', (v) => kueueCapabilities(v).validatesUpdateOfFormerlyQueued, true, FIRST_KUEUE_VERSION.validateRayUpdates],
  ['refusesMultiKueueElasticAutoscaling', (v) => kueueCapabilities(v).refusesMultiKueueElasticAutoscaling, true,
    FIRST_KUEUE_VERSION.multiKueueElasticAutoscalingRefused],
  ['priorityClassUpdate', (v) => kueueCapabilities(v).priorityClassUpdate, 'no-add-while-running', FIRST_KUEUE_VERSION.priorityClassAddWhenSuspended],
  ['queueNameAnnotation (off)', (v) => !kueueCapabilities(v).queueNameAnnotation, true, FIRST_KUEUE_VERSION.queueNameLabelOnly],
  ['countsAutoscalerSidecar', (v) => kueueCapabilities(v).countsAutoscalerSidecar, true, FIRST_KUEUE_VERSION.autoscalerAccounting],
  ['countsSidecarSubmitter', (v) => kueueCapabilities(v).countsSidecarSubmitter, true, FIRST_KUEUE_VERSION.sidecarModeAccounting],
  ['rayServiceQueueing native', (v) => kueueCapabilities(v).rayServiceQueueing, 'native', FIRST_KUEUE_VERSION.nativeRayService],
  ['tasAnnotations multi-layer', (v) => kueueCapabilities(v).tasAnnotations, 'multi-layer', FIRST_KUEUE_VERSION.tasMultiLayerTopologyOn],
  ['admissionGatedBy', (v) => kueueCapabilities(v).admissionGatedBy, true, FIRST_KUEUE_VERSION.admissionGatedByOn],
  ['batchedInadmissibleRequeue', (v) => kueueCapabilities(v).batchedInadmissibleRequeue, true, FIRST_KUEUE_VERSION.batchedInadmissibleRequeue],
];

const KUBERAY_FROM: Array<[string, (v: string) => unknown, unknown, string]> = [
  ['clusterSelectorNeedsClusterKey', (v) => kubeRayCapabilities(v).clusterSelectorNeedsClusterKey, true,
    FIRST_KUBERAY_VERSION.clusterSelectorClusterKey],
  ['autoscalerV2EnvNeedsAutoscaling', (v) => kubeRayCapabilities(v).autoscalerV2EnvNeedsAutoscaling, true,
    FIRST_KUBERAY_VERSION.clusterSelectorClusterKey],
  ['rayServiceManagedBy', (v) => kubeRayCapabilities(v).rayServiceManagedBy, true, FIRST_KUBERAY_VERSION.rayServiceManagedBy],
  ['preRunningDeadline', (v) => kubeRayCapabilities(v).preRunningDeadline, true, FIRST_KUBERAY_VERSION.preRunningDeadline],
  ['deletionStrategy', (v) => kubeRayCapabilities(v).deletionField, 'deletionStrategy', FIRST_KUBERAY_VERSION.deletionStrategy],
  ['rayServiceSuspend', (v) => kubeRayCapabilities(v).rayServiceSuspend, true, FIRST_KUBERAY_VERSION.rayServiceSuspend],
  ['workerGroupPriority', (v) => kubeRayCapabilities(v).workerGroupPriority, true, FIRST_KUBERAY_VERSION.workerGroupPriority],
  ['historyServerCollector', (v) => kubeRayCapabilities(v).historyServerCollector, true, FIRST_KUBERAY_VERSION.historyServer],
  ['historyServerOptions gated', (v) => kubeRayCapabilities(v).alphaGatedFields.historyServerOptions, 'RayClusterHistoryServer',
    FIRST_KUBERAY_VERSION.historyServer],
];

describe.each(KUEUE_FROM)('Kueue capability %s', (_name, read, on, first) => {
  test.each([...SUPPORTED_KUEUE_VERSIONS])(`%s: on exactly from ${first}`, (v) => {
    expect(read(v) === on).toBe(compareVersions(v, first) >= 0);
  });
});

describe.each(KUBERAY_FROM)('KubeRay capability %s', (_name, read, on, first) => {
  test.each([...SUPPORTED_KUBERAY_VERSIONS])(`%s: on exactly from ${first}`, (v) => {
    expect(read(v) === on).toBe(compareVersions(v, first) >= 0);
  });
});

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
