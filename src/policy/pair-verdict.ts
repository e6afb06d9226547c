/**
 * Kueue × KubeRay pairs for a queued RayService, judged from the two versions' capabilities (versions.ts): the verdict
 * the compatibility rule, the test fixtures and the scenarios e2e read. Pure.
 */
import type { KubeRayCapabilities, KueueCapabilities } from './versions';

export type PairStatus = 'works' | 'broken' | 'suspect';

export interface PairVerdict {
  readonly status: PairStatus;
  readonly reason: string;
}

/**
 * Kueue × KubeRay pairs known to break for RayService (rayServiceQueueing × rayServiceSuspendSync; kuberay#4686). RayJob and RayCluster work
 * with every supported pair.
 */
export function rayServicePair(kueue: KueueCapabilities, kubeRay: KubeRayCapabilities): PairVerdict {
  if (kueue.rayServiceQueueing === 'native') {
    if (!kubeRay.rayServiceSuspendSync) {
      // KubeRay 1.7 moved a RayService's suspension to its top-level spec.suspend (kuberay#4841), which this Kueue does not set.
      const why = kubeRay.rayServiceSuspend && !kueue.rayServiceTopLevelSuspend
        ? `KubeRay ${kubeRay.version} applies only when it creates the RayCluster (it expects spec.suspend, which Kueue ${kueue.version} does `
          + 'not set): after admission the cluster stays suspended with no head pod (kuberay#4686 again, since kuberay#4841).'
        : `KubeRay ${kubeRay.version} does not copy onto the running RayCluster: the cluster stays suspended with no head pod (kuberay#4686).`;
      return {
        status: 'broken',
        reason: `Kueue ${kueue.version} queues a RayService through spec.rayClusterConfig.suspend, which ${why} Use KubeRay v1.5.2 or v1.6.1+ `
          + '(v1.6.2 is the tested pair).',
      };
    }
    return { status: 'works', reason: `Kueue ${kueue.version} with KubeRay ${kubeRay.version} is an upstream-tested RayService pair.` };
  }
  if (kubeRay.rayServiceSuspendSync) {
    return {
      status: 'suspect',
      reason: `Kueue ${kueue.version} suspends the RayService's RayCluster directly, but KubeRay ${kubeRay.version} resets the cluster's suspend to `
        + 'the RayService value, so pods may start before admission and be re-suspended. KubeRay v1.4.2 is the tested pair for this Kueue line.',
    };
  }
  return { status: 'works',
    reason: `Kueue ${kueue.version} queues a RayService through its RayCluster; KubeRay ${kubeRay.version} keeps the cluster's own suspend.` };
}
