/** RayCluster (Kueue pkg/controller/jobs/raycluster/; KubeRay ray-operator/apis/ray/v1/raycluster_types.go). */
import { isRecord } from '../json';
import { FIRST_KUEUE_VERSION } from '../versions';
import { RayKind, RayObject } from './kind';

export const RAY_CLUSTER: RayKind = {
  kind: 'RayCluster',
  group: 'ray.io',
  version: 'v1',
  apiVersion: 'ray.io/v1',
  plural: 'rayclusters',
  clusterSpecPath: 'spec',
  clusterSpecValue: (obj: RayObject) => obj.spec,
  // KubeRay's validation: services and pods are named after the cluster.
  maxNameLength: 53,
  kueueFramework: 'ray.io/raycluster',
  kueueFrameworkFor: () => 'ray.io/raycluster',
  suspendField: 'spec.suspend',
  suspendFieldAtCreate: () => RAY_CLUSTER.suspendField,
  isSuspended: (obj) => obj?.spec?.suspend === true,
  // Kueue skips neither: a queued RayCluster or RayService is always its.
  skipsKueue: () => false,
  elasticSupport: (kueue) => ({ supported: kueue.elasticRayCluster, first: FIRST_KUEUE_VERSION.elasticRayCluster }),
  firstMultiKueueVersion: FIRST_KUEUE_VERSION.multiKueueRay,
  hasSubmitterPodSet: () => false,
  specFieldTypes: [],
  ownsRayCluster: false,
  is: (obj) => isRecord(obj) && obj.kind === 'RayCluster',
};
