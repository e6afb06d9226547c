/** RayService (Kueue pkg/controller/jobs/rayservice/ from v0.17; KubeRay ray-operator/apis/ray/v1/rayservice_types.go). */
import { isRecord } from '../json';
import { FIRST_KUEUE_VERSION } from '../versions';
import { RayKind, RayObject } from './kind';

export const RAY_SERVICE: RayKind = {
  kind: 'RayService',
  group: 'ray.io',
  version: 'v1',
  apiVersion: 'ray.io/v1',
  plural: 'rayservices',
  clusterSpecPath: 'spec.rayClusterConfig',
  clusterSpecValue: (obj: RayObject) => obj.spec?.rayClusterConfig,
  maxNameLength: 47,
  kueueFramework: 'ray.io/rayservice',
  // Before its native integration, Kueue queues a RayService through the RayCluster KubeRay creates.
  kueueFrameworkFor: (kueue) => (kueue.rayServiceQueueing === 'native' ? 'ray.io/rayservice' : 'ray.io/raycluster'),
  suspendField: 'spec.rayClusterConfig.suspend',
  // Natively Kueue admits a RayService through rayClusterConfig.suspend; before, it suspends the child RayCluster itself.
  // Never KubeRay 1.7's top-level spec.suspend, even on 1.7: no pinned Kueue reads it (rayServiceTopLevelSuspend), so a
  // RayService suspended there would be admitted and hold quota while KubeRay keeps it torn down. Suspend where Kueue does.
  suspendFieldAtCreate: (_autoscaling, kueue) => (kueue.rayServiceQueueing === 'native' ? RAY_SERVICE.suspendField : undefined),
  isSuspended: (obj) => obj?.spec?.rayClusterConfig?.suspend === true,
  // Kueue skips neither: a queued RayCluster or RayService is always its.
  skipsKueue: () => false,
  elasticSupport: (kueue) => ({ supported: kueue.elasticRayService, first: FIRST_KUEUE_VERSION.elasticRayService }),
  firstMultiKueueVersion: FIRST_KUEUE_VERSION.multiKueueRayService,
  hasSubmitterPodSet: () => false,
  specFieldTypes: [['rayClusterConfig', 'object']],
  ownsRayCluster: true,
  is: (obj) => isRecord(obj) && obj.kind === 'RayService',
};
