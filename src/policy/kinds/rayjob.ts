/** RayJob (Kueue pkg/controller/jobs/rayjob/rayjob_controller.go; KubeRay ray-operator/apis/ray/v1/rayjob_types.go). */
import { isRecord } from '../json';
import { FIRST_KUEUE_VERSION } from '../versions';
import { RayKind, RayObject } from './kind';

/** The RayJob names an existing RayCluster by a non-empty clusterSelector (Kueue reads `len(ClusterSelector) > 0`). */
export function selectsCluster(obj: RayObject): boolean {
  return isRecord(obj.spec?.clusterSelector) && Object.keys(obj.spec.clusterSelector).length > 0;
}

export const RAY_JOB: RayKind = {
  kind: 'RayJob',
  group: 'ray.io',
  version: 'v1',
  apiVersion: 'ray.io/v1',
  plural: 'rayjobs',
  clusterSpecPath: 'spec.rayClusterSpec',
  clusterSpecValue: (obj: RayObject) => obj.spec?.rayClusterSpec,
  // KubeRay's validation: the RayCluster and the submitter Job are named after the RayJob.
  maxNameLength: 47,
  kueueFramework: 'ray.io/rayjob',
  kueueFrameworkFor: () => 'ray.io/rayjob',
  suspendField: 'spec.suspend',
  // The 0.14.7-0.16.0 short-term elastic path refuses suspend on an autoscaling RayJob.
  suspendFieldAtCreate: (autoscaling, kueue) => (autoscaling && kueue.elasticRayJob === 'short-term' ? undefined : RAY_JOB.suspendField),
  isSuspended: (obj) => obj?.spec?.suspend === true,
  // RayJob's Skip: one that runs on an existing cluster (a non-empty clusterSelector, no rayClusterSpec), from
  // the version with the clusterSelector rules; the cluster it selects is queued on its own.
  skipsKueue: (obj, kueue) => kueue.rayJobClusterSelectorRules && selectsCluster(obj) && !obj.spec?.rayClusterSpec,
  submitterTemplatePath: 'spec.submitterPodTemplate',
  // K8sJobMode (the CRD default) runs the submitter as a Job: Kueue counts it as a PodSet of its own.
  elasticSupport: (kueue) => ({ supported: kueue.elasticRayJob !== 'none', first: FIRST_KUEUE_VERSION.elasticRayJob }),
  firstMultiKueueVersion: FIRST_KUEUE_VERSION.multiKueueRay,
  hasSubmitterPodSet: (obj) => (obj.spec?.submissionMode ?? 'K8sJobMode') === 'K8sJobMode',
  specFieldTypes: [
    ['submissionMode', 'string'], ['runtimeEnvYAML', 'string'], ['entrypoint', 'string'],
    ['suspend', 'boolean'], ['shutdownAfterJobFinishes', 'boolean'],
    ['backoffLimit', 'integer'], ['ttlSecondsAfterFinished', 'integer'], ['activeDeadlineSeconds', 'integer'],
    ['clusterSelector', 'string map'], ['rayClusterSpec', 'object'], ['submitterPodTemplate', 'object'],
  ],
  ownsRayCluster: true,
  is: (obj) => isRecord(obj) && obj.kind === 'RayJob',
};
