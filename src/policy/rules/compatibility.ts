/**
 * Version-pair rules: Kueue × KubeRay combinations known to break, and quota a version under-counts.
 */
import { clusterSpecOf, RAY_JOB, RAY_KINDS, RAY_SERVICE } from '../kinds';
import { isQueued, isRecord, usesAutoscaling } from '../ray-object';
import {
  DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, FIRST_KUBERAY_VERSION, FIRST_KUEUE_VERSION, kubeRayCapabilities,
  SUPPORTED_KUBERAY_VERSIONS,
} from '../versions';
import { rayServicePair } from '../pair-verdict';
import { defineRule, RuleRecord } from './rule';

/** The supported KubeRay versions that copy rayClusterConfig.suspend onto the running RayCluster (or do not). */
function kubeRayWithSuspendSync(sync: boolean): string {
  return SUPPORTED_KUBERAY_VERSIONS.filter((v) => kubeRayCapabilities(v).rayServiceSuspendSync === sync).join(' or ');
}

/** A queued RayService on a Kueue × KubeRay pair that deadlocks or misbehaves (rayServicePair in pair-verdict.ts). */
export const rayServiceVersionPair = defineRule({
  name: 'rayServiceVersionPair', source: 'version', kinds: ['RayService'],
  description: 'A queued RayService runs on a Kueue and KubeRay pair that works together.',
}, (r, obj, ctx) => {
  if (!RAY_SERVICE.is(obj) || !isQueued(obj, ctx.kueue)) return r.findings;
  const v = rayServicePair(ctx.kueue, ctx.kubeRay);
  const fix = ctx.kueue.rayServiceQueueing === 'native'
    ? `choose KubeRay ${kubeRayWithSuspendSync(true)} (the default pair is Kueue ${DEFAULT_KUEUE_VERSION} + KubeRay ${DEFAULT_KUBERAY_VERSION})`
    : `choose KubeRay ${kubeRayWithSuspendSync(false)} for Kueue ${ctx.kueue.version}, or Kueue >= ${FIRST_KUEUE_VERSION.nativeRayService} with `
      + `KubeRay ${DEFAULT_KUBERAY_VERSION}`;
  if (v.status === 'broken') r.error('metadata.labels[kueue.x-k8s.io/queue-name]', v.reason, fix);
  if (v.status === 'suspect') r.warn('metadata.labels[kueue.x-k8s.io/queue-name]', v.reason, fix);
  return r.findings;
});

/** Quota the chosen Kueue does not count: the pods then run above what was admitted. */
export const underCountedQuota = defineRule({
  name: 'underCountedQuota', source: 'version', kinds: RAY_KINDS,
  description: 'Resources the chosen Kueue does not count toward quota are flagged.',
}, (r, obj, ctx) => {
  if (!isQueued(obj, ctx.kueue)) return r.findings;
  if (RAY_JOB.is(obj) && obj.spec?.submissionMode === 'SidecarMode' && !ctx.kueue.countsSidecarSubmitter) {
    r.warn('spec.submissionMode',
      `Kueue ${ctx.kueue.version} does not count the SidecarMode submitter container (500m CPU / 200Mi) in the head PodSet: the head runs `
        + 'above its admitted quota',
      `choose Kueue >= ${FIRST_KUEUE_VERSION.sidecarModeAccounting}, or keep that headroom outside the ClusterQueue's nominal quota`);
  }
  if (usesAutoscaling(obj) && !ctx.kueue.countsAutoscalerSidecar) {
    r.warn(`${clusterSpecOf(obj)?.path}.enableInTreeAutoscaling`,
      `Kueue ${ctx.kueue.version} does not count the autoscaler sidecar (500m CPU / 512Mi by default) in the head PodSet: the head runs `
        + 'above its admitted quota',
      `choose Kueue >= ${FIRST_KUEUE_VERSION.autoscalerAccounting}, or keep that headroom outside the ClusterQueue's nominal quota`);
  }
  const history = clusterSpecOf(obj)?.spec.historyServerOptions;
  if (ctx.kubeRay.historyServerCollector && isRecord(history?.collectorOptions) && !ctx.kueue.countsHistoryServerCollector) {
    const res = history.collectorOptions.resources?.requests;
    const requests = isRecord(res) ? Object.entries(res).map(([k, v]) => `${String(v)} ${k}`).join(' / ') : '50m CPU / 64Mi by default';
    r.warn(`${clusterSpecOf(obj)?.path}.historyServerOptions.collectorOptions`,
      `Kueue ${ctx.kueue.version} does not count the history-server collector container KubeRay ${ctx.kubeRay.version} adds to every head and `
        + `worker pod (${requests} requests each): the pods run above their admitted quota`,
      'keep that headroom per pod outside the ClusterQueue\'s nominal quota');
  }
  return r.findings;
});

/**
 * KubeRay 1.7's top-level RayService spec.suspend: unknown before (the API server drops it); on a queued RayService, a
 * suspension Kueue does not see, since no pinned Kueue reads it (it suspends through spec.rayClusterConfig.suspend).
 */
export const rayServiceSuspend = defineRule({
  name: 'rayServiceSuspend', source: 'version', kinds: ['RayService'],
  description: 'RayService spec.suspend is used only on a KubeRay that has it, and a queued one is not stopped behind Kueue\'s back.',
}, (r, obj, ctx) => {
  if (!RAY_SERVICE.is(obj) || !isRecord(obj.spec) || obj.spec.suspend === undefined || obj.spec.suspend === null) return r.findings;
  if (!ctx.kubeRay.rayServiceSuspend) {
    r.error('spec.suspend', `KubeRay ${ctx.kubeRay.version} has no RayService spec.suspend: the API server drops it and the service keeps running`,
      `remove spec.suspend, or choose KubeRay >= ${FIRST_KUBERAY_VERSION.rayServiceSuspend}`, 'kubernetes');
  } else if (obj.spec.suspend === true && isQueued(obj, ctx.kueue) && !ctx.kueue.rayServiceTopLevelSuspend) {
    r.warn('spec.suspend', `Kueue ${ctx.kueue.version} does not read RayService spec.suspend: KubeRay ${ctx.kubeRay.version} deletes the service's `
      + 'RayClusters while Kueue keeps its Workload admitted, holding the quota', 'to give the quota back, deactivate the Workload '
      + '(spec.active: false) or delete the RayService; Kueue itself suspends through spec.rayClusterConfig.suspend');
  }
  return r.findings;
});

export const COMPATIBILITY_RULES: readonly RuleRecord[] = [rayServiceVersionPair, underCountedQuota, rayServiceSuspend];
