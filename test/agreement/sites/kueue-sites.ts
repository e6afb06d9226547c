/**
 * Every refusal site of Kueue's Ray validation (enumerate.ts: jobframework, its TAS checks, the Ray
 * webhooks, the admission-gated-by annotation), mapped like KubeRay's (kuberay-sites.ts). A mutant is a
 * CREATE (`object`) or an UPDATE (`old` → `object`) of a queued object in the agreement suite's namespace;
 * the suite (upstream.e2e.test.ts) sends it to the real Kueue webhook of the pair, which must deny it with
 * the site's message, and checks that the mapped rule refuses it too. `todo`: a site no rule covers yet,
 * listed in the table as such.
 */
import { kueueCapabilities } from '../../../src/policy/versions';
import { clusterSpec, head, rayCluster, rayJob, rayService, worker } from '../support/ray-objects';
import type { Covered } from './sites';

export interface KueueMutant {
  readonly object: any;
  /** For an UPDATE: the object as stored before. */
  readonly old?: any;
}

export interface KueueSiteMapping extends Covered {
  readonly mutant?: (kueue: string) => KueueMutant;
  /** Kueue reads a cache the suite just wrote (a LocalQueue): the mutant is retried for a few seconds. */
  readonly eventual?: boolean;
  /**
   * Why the mutant cannot reach the site at this Kueue version (a gate off by default, which the policy
   * assumes; another check that refuses first), if so: the table then counts it as unreachable there.
   */
  readonly unreachable?: (kueue: string) => string | undefined;
}

const NS = 'agreement';
/** A namespace of the suite with a LocalQueue named default (Kueue then defaults unlabelled objects there). */
export const DEFAULT_LQ_NAMESPACE = 'agreement-default-lq';
const QUEUE = { 'kueue.x-k8s.io/queue-name': 'user-queue' };
const queued = (o: any, labels: Record<string, string> = {}, annotations?: Record<string, string>, unlabelled = false) => ({
  ...o, metadata: { ...o.metadata, namespace: NS, labels: unlabelled ? labels : { ...QUEUE, ...labels }, ...(annotations ? { annotations } : {}) },
});
const job = (spec: Record<string, unknown> = {}, labels: Record<string, string> = {}, annotations?: Record<string, string>) =>
  queued(rayJob('job', spec), labels, annotations);
const cluster = (spec: Record<string, unknown> = {}, labels: Record<string, string> = {}, annotations?: Record<string, string>) =>
  queued(rayCluster('cluster', spec), labels, annotations);
const workers = (n: number) => Array.from({ length: n }, (_, i) => worker(`g${i}`));
const running = (o: any) => ({ ...o, spec: { ...o.spec, suspend: false } });
const ELASTIC = { 'kueue.x-k8s.io/elastic-job': 'true' };
const TAS = {
  req: 'kueue.x-k8s.io/podset-required-topology', pref: 'kueue.x-k8s.io/podset-preferred-topology',
  unc: 'kueue.x-k8s.io/podset-unconstrained-topology', sliceReq: 'kueue.x-k8s.io/podset-slice-required-topology',
  size: 'kueue.x-k8s.io/podset-slice-size', layers: 'kueue.x-k8s.io/podset-slice-required-topology-constraints',
  group: 'kueue.x-k8s.io/podset-group-name',
};
const annotated = (template: any, annotations: Record<string, string>) => ({ ...template, metadata: { ...template.metadata, annotations } });
const tasHead = (a: Record<string, string>) => job({ rayClusterSpec: clusterSpec({ headGroupSpec: { ...head(), template: annotated(head().template,
  a) } }) });
const tasWorker = (a: Record<string, string>, replicas = 1) => {
  const w = worker('small', { replicas, minReplicas: replicas, maxReplicas: Math.max(replicas, 3) });
  return job({ rayClusterSpec: clusterSpec({ workerGroupSpecs: [{ ...w, template: annotated(w.template, a) }] }) });
};
/** Two worker groups of `a` and `b` pods in one TAS group, on the topologies given. */
const grouped = (a: number, b: number, ta: string, tb: string) => job({ rayClusterSpec: clusterSpec({ workerGroupSpecs: [[a, ta], [b, tb]]
  .map(([n, t], i) => { const w = worker(`g${i}`, { replicas: n, minReplicas: n, maxReplicas: n });
    return { ...w, template: annotated(w.template, { [TAS.req]: String(t), [TAS.group]: 'pair' }) }; }) }) });
/** The multi-layer constraints annotation is refused by its off-by-default gate on 0.17 (and absent before). */
const layersOff = (kueue: string) => (kueueCapabilities(kueue).tasAnnotations === 'multi-layer' ? undefined
  : 'the TASMultiLayerTopology gate is off by default at this version: the gate\'s own site refuses the annotation first');

const GATED_BY = 'kueue.x-k8s.io/admission-gated-by';

/**
 * A refusal of one field as Kubernetes words a field error, `<path>: <type>: <detail>`: `path` is the end of the field's
 * path, literally (`annotations[kueue.x-k8s.io/podset-group-name]`); `type` and `detail` are regex sources.
 */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const fieldError = (path: string, type: string, detail = '') => new RegExp(`${literal(path)}: ${type}:.*${detail}`, 's');
const annotation = (key: string) => `annotations[${key}]`;

/**
 * A `may not be set when '%s' is specified` refusal of `func` on the field `callPath` (a regex source of the call's path) at `field`:
 * one site, and one mapping, per slice annotation it names (the mutant sets both).
 */
const whenSliceSet = (func: string, callPath: string, field: string, extra: Pick<KueueSiteMapping, 'mutant' | 'unreachable'>) =>
  (['PodSetSliceSizeAnnotation', 'PodSetSliceRequiredTopologyAnnotation'] as const).map((constant): KueueSiteMapping => ({
    match: new RegExp(`^${func}: field.Forbidden\\(${callPath}, fmt.Sprintf\\("may not be set when '%s' is specified", \\w+.${constant}\\)`),
    rule: 'topologyAnnotations', ...extra, message: fieldError(annotation(field), 'Forbidden',
      `may not be set when '${literal(constant === 'PodSetSliceSizeAnnotation' ? TAS.size : TAS.sliceReq)}' is specified`) }));
/** The AdmissionGatedBy gate is Alpha and off by default on 0.17 (the policy assumes the defaults). */
const gatedByOff = (kueue: string) => (kueueCapabilities(kueue).admissionGatedBy ? undefined
  : 'the AdmissionGatedBy gate is Alpha and off by default at this version: Kueue does not check the annotation');

export const KUEUE_SITES: readonly KueueSiteMapping[] = [
  // ---- jobframework/validation.go
  { match: /validateCreateForPrebuiltWorkload: field.Forbidden/,
    na: 'every Ray kind Kueue integrates is in supportedPrebuiltWlJobGVKs at each pinned version (MultiKueue creates the workers\' copies with it)' },
  { match: /ValidateLabelAsCRDName:/, rule: 'kueueLabelValues', message: /labels\[kueue\.x-k8s\.io\/[^\]]+\]: Invalid value:.*RFC 1123/s, mutant: () => ({ object: job({}, { 'kueue.x-k8s.io/queue-name': 'User_Queue' }) }) },
  // Before 0.15 it checks the queue-name annotation; from 0.18 the prebuilt Workload's name annotation.
  { match: /ValidateAnnotationAsCRDName:/, rule: 'kueueLabelValues', message: /annotations\[kueue\.x-k8s\.io\/[^\]]+\]: Invalid value:.*RFC 1123/s,
    mutant: (k) => ({ object: kueueCapabilities(k).queueNameAnnotation
      ? queued(rayJob('job'), {}, { 'kueue.x-k8s.io/queue-name': 'User_Queue' }, true)
      : job({}, {}, { 'kueue.x-k8s.io/prebuilt-workload-name': `W${'x'.repeat(70)}` }) }) },
  { match: /validateUpdateForQueueName: field.Invalid\(queueNameLabelPath, "", "queue-name must not be empty in namespace with default queue"/,
    rule: 'kueueWebhookOnUpdate', mutant: () => {
      // Suspended: the immutable-while-running check would refuse first.
      const inLq = (o: any) => ({ ...o, metadata: { ...o.metadata, namespace: DEFAULT_LQ_NAMESPACE } });
      const removed = inLq(job({ suspend: true }));
      delete removed.metadata.labels['kueue.x-k8s.io/queue-name'];
      return { old: inLq(job({ suspend: true })), object: removed };
    }, eventual: true,
    // Before 0.18 Kueue validates an update only when the new object has a queue name: removing it skips every check.
    unreachable: (k) => (kueueCapabilities(k).validatesUpdateOfFormerlyQueued ? undefined
      : 'Kueue checks an update only when the new object has a queue name before 0.18') },
  { match: /validateUpdateForQueueName: errors of apivalidation.ValidateImmutableField/, rule: 'kueueWebhookOnUpdate',
    message: fieldError('labels[kueue.x-k8s.io/queue-name]', 'Invalid value', 'field is immutable'),
    mutant: () => ({ old: running(job()), object: running(job({}, { 'kueue.x-k8s.io/queue-name': 'other-queue' })) }) },
  { match: /validateImmutablePodGroupPodSpecPath:/, na: 'checks the pod groups of Kueue\'s Pod integration, not a Ray object' },
  { match: /validatedUpdateForEnabledWorkloadSlice:/, rule: 'kueueWebhookOnUpdate',
    // Before 0.19 Kueue names the annotation's path as a label's.
    message: /(labels|annotations)\[kueue\.x-k8s\.io\/elastic-job\]: Invalid value:.*field is immutable/s,
    mutant: () => ({ old: running(cluster({}, {}, ELASTIC)), object: running(cluster()) }) },
  { match: /validateCreateForMaxExecTime: field.Invalid\(maxExecTimeLabelPath, strVal, err.Error\(\)\)/, rule: 'kueueLabelValues',
    message: fieldError('labels[kueue.x-k8s.io/max-exec-time-seconds]', 'Invalid value', 'strconv'),
    mutant: () => ({ object: job({}, { 'kueue.x-k8s.io/max-exec-time-seconds': '1h' }) }) },
  { match: /validateCreateForMaxExecTime: .*should be greater than 0/, rule: 'kueueLabelValues',
    mutant: () => ({ object: job({}, { 'kueue.x-k8s.io/max-exec-time-seconds': '0' }) }) },
  { match: /ValidateUpdateForWorkloadPriorityClassName: .*cannot be added to a non-suspended workload/, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: running(job()), object: running(job({}, { 'kueue.x-k8s.io/priority-class': 'dev-priority' })) }) },
  { match: /ValidateUpdateForWorkloadPriorityClassName: .*cannot be removed from a workload/, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: job({}, { 'kueue.x-k8s.io/priority-class': 'dev-priority' }), object: job() }) },
  // 0.14: the priority class is immutable while the object runs (later versions word the two cases apart, below).
  { match: /^ValidateUpdateForWorkloadPriorityClassName: errors of apivalidation.ValidateImmutableField/, rule: 'kueueWebhookOnUpdate',
    message: fieldError('labels[kueue.x-k8s.io/priority-class]', 'Invalid value', 'field is immutable'),
    mutant: () => ({ old: running(job({}, { 'kueue.x-k8s.io/priority-class': 'dev-priority' })),
      object: running(job({}, { 'kueue.x-k8s.io/priority-class': 'prod-priority' })) }) },
  { match: /^validateUpdateForMaxExecTime: errors of apivalidation.ValidateImmutableField/,
    message: fieldError('labels[kueue.x-k8s.io/max-exec-time-seconds]', 'Invalid value', 'field is immutable'), rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: running(job({}, { 'kueue.x-k8s.io/max-exec-time-seconds': '3600' })),
      object: running(job({}, { 'kueue.x-k8s.io/max-exec-time-seconds': '7200' })) }) },
  { match: /^validateUpdateForPrebuiltWorkload: errors of apivalidation.ValidateImmutableField/,
    message: /prebuilt-workload-name\]: Invalid value:.*field is immutable/s, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: running(job({}, { 'kueue.x-k8s.io/prebuilt-workload-name': 'wl-a' })),
      object: running(job({}, { 'kueue.x-k8s.io/prebuilt-workload-name': 'wl-b' })) }) },
  { match: /ValidateElasticJobAnnotation:/, na: 'RayJob, RayCluster and RayService are all in supportedElasticJobGVKs' },
  { match: /ValidateJobOn(Create|Update): errors of webhook.ValidateAdmissionGatedBy/,
    na: 'wraps the admission-gated-by checks (validation_admissiongatedby.go, mapped below)' },

  // ---- the admission-gated-by annotation (0.17 alpha, off by default; 0.19 beta, on)
  { match: /^ValidateAdmissionGatedByAnnotationOnUpdate: .*cannot add admission gate after creation/, rule: 'kueueWebhookOnUpdate',
    unreachable: gatedByOff, mutant: () => ({ old: job(), object: job({}, {}, { [GATED_BY]: 'example.com/gate' }) }) },
  { match: /^ValidateAdmissionGatedByAnnotationOnUpdate: .*can only remove gates, not add new ones/, rule: 'kueueWebhookOnUpdate',
    unreachable: gatedByOff,
    mutant: () => ({ old: job({}, {}, { [GATED_BY]: 'example.com/a' }), object: job({}, {}, { [GATED_BY]: 'example.com/a,example.com/b' }) }) },
  { match: /^validateAdmissionGatedByAnnotationFormat: .*cannot contain empty gate names/, rule: 'admissionGatedBy', unreachable: gatedByOff,
    mutant: () => ({ object: job({}, {}, { [GATED_BY]: 'example.com/a,,example.com/b' }) }) },
  { match: /^validateAdmissionGatedByAnnotationFormat: .*duplicate gate name/, rule: 'admissionGatedBy', unreachable: gatedByOff,
    mutant: () => ({ object: cluster({}, {}, { [GATED_BY]: 'example.com/a, example.com/a' }) }) },
  { match: /^validateAdmissionGatedByAnnotationFormat: errors of validation.IsDomainPrefixedPath/, rule: 'admissionGatedBy',
    message: fieldError(annotation(GATED_BY), 'Invalid value', 'domain-prefixed path'),
    unreachable: gatedByOff, mutant: () => ({ object: job({}, {}, { [GATED_BY]: 'my-gate' }) }) },
  { match: /^validateAdmissionGatedByAnnotationFormat: field.TooLong/, rule: 'admissionGatedBy', unreachable: gatedByOff,
    message: fieldError(annotation(GATED_BY), 'Too long'),
    mutant: () => ({ object: job({}, {}, { [GATED_BY]: `example.com/${'g'.repeat(52)}` }) }) },

  // ---- Topology-aware scheduling annotations on the pod templates (jobframework/tas_validation.go)
  { match: /^ValidateTASPodSetRequest: .*must not contain more than one topology annotation/, rule: 'topologyAnnotations',
    mutant: () => ({ object: tasHead({ [TAS.req]: 'rack', [TAS.pref]: 'rack' }) }) },
  // The group name with a slice annotation: one site per annotation (the mutant sets both).
  ...whenSliceSet('ValidateTASPodSetRequest', 'annotationsPath.Key\\(\\w+.PodSetGroupName\\)', TAS.group,
    { mutant: () => ({ object: tasWorker({ [TAS.req]: 'rack', [TAS.group]: 'g', [TAS.sliceReq]: 'host', [TAS.size]: '1' }) }) }),
  { match: /^ValidateTASPodSetRequest: .*may not be set when neither/, rule: 'topologyAnnotations',
    mutant: () => ({ object: tasHead({ [TAS.group]: 'g' }) }) },
  { match: /^ValidateTASPodSetRequest: field.Required\(.*must be set when/, rule: 'topologyAnnotations',
    mutant: () => ({ object: tasWorker({ [TAS.sliceReq]: 'host' }) }) },
  { match: /^ValidateTASPodSetRequest: field.Forbidden\(.*PodSetSliceSizeAnnotation\), fmt.Sprintf\("may not be set when '%s' is not specified"/,
    rule: 'topologyAnnotations', mutant: () => ({ object: tasWorker({ [TAS.size]: '1' }) }) },
  { match: /^ValidateTASPodSetRequest: errors of metavalidation.ValidateLabelName/, rule: 'topologyAnnotations',
    message: /annotations\[kueue\.x-k8s\.io\/podset-(required|preferred|slice-required)-topology\]: Invalid value/,
    mutant: () => ({ object: tasWorker({ [TAS.req]: 'a/b/c' }) }) },
  { match: /^validateTASUnconstrained:/, rule: 'topologyAnnotations', mutant: () => ({ object: tasHead({ [TAS.unc]: 'yes' }) }) },
  { match: /^(validateSliceSizeAnnotation|ValidateSliceSizeAnnotationUpperBound): .*must be a numeric value/, rule: 'topologyAnnotations',
    mutant: () => ({ object: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: 'four' }) }) },
  { match: /^validateSliceSizeAnnotation: .*must be greater than or equal to 1/, rule: 'topologyAnnotations',
    message: fieldError(annotation(TAS.size), 'Invalid value', 'must be greater than or equal to 1'),
    mutant: () => ({ object: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: '0' }) }) },
  { match: /^validatePodSetGroupNameAnnotation:/, rule: 'topologyAnnotations', mutant: () => ({ object: tasHead({ [TAS.req]: 'rack',
    [TAS.group]: '42' }) }) },
  { match: /^ValidateSliceSizeAnnotationUpperBound: field.Invalid\(annotationsPath.Key\(\w+.PodSetSliceSizeAnnotation\), sliceSizeValue, fmt.Sprintf/,
    message: fieldError(annotation(TAS.size), 'Invalid value', 'must not be greater than pod set count'),
    rule: 'topologyAnnotations', mutant: () => ({ object: tasWorker({ [TAS.sliceReq]: 'host', [TAS.size]: '3' }, 2) }) },
  { match: /^ValidateSliceSizeAnnotationUpperBound: .*PodSetSliceRequiredTopologyConstraintsAnnotation/, rule: 'topologyAnnotations',
    message: fieldError(annotation(TAS.layers), 'Invalid value', 'must not be greater than pod set count'),
    unreachable: (k) => layersOff(k), mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"block","size":4}]' }, 2) }) },
  { match: /^ValidatePodSetGroupingTopology: .*can only define groups of exactly 2 pod sets/, rule: 'topologyAnnotations',
    mutant: () => ({ object: tasHead({ [TAS.req]: 'rack', [TAS.group]: 'g' }) }) },
  { match: /^ValidatePodSetGroupingTopology: .*sizeErrorMessage/, rule: 'topologyAnnotations',
    message: /can only define groups where at least one pod set has only 1 replica/, mutant: () => ({ object: grouped(2, 3, 'rack', 'rack') }) },
  { match: /^ValidatePodSetGroupingTopology: .*errorMessageTemplate/, rule: 'topologyAnnotations',
    message: /topology consistent with '.*' in group/s, mutant: () => ({ object: grouped(1, 1, 'rack', 'block') }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: .*feature gate must be enabled/, rule: 'topologyAnnotations',
    unreachable: (k) => (layersOff(k) ? undefined : 'the TASMultiLayerTopology gate is on by default'),
    mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]' }) }) },
  ...whenSliceSet('validateSliceRequiredTopologyConstraintsAnnotation', 'fldPath', TAS.layers, { unreachable: (k) => layersOff(k),
    mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.sliceReq]: 'host', [TAS.size]: '1' }) }) }),
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: field.Forbidden\(annotationsPath.Key\(\w+.PodSetGroupName\)/,
    rule: 'topologyAnnotations', message: fieldError(annotation(TAS.group), 'Forbidden', `may not be set when '${literal(TAS.layers)}' is specified`),
    unreachable: (k) => layersOff(k),
    mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":1}]', [TAS.req]: 'rack', [TAS.group]: 'g' }) }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: .*must be a valid JSON array/, rule: 'topologyAnnotations',
    unreachable: (k) => layersOff(k), mutant: () => ({ object: tasWorker({ [TAS.layers]: 'rack=4' }) }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: .*errTopologyConstraintsLayerCount/, rule: 'topologyAnnotations',
    message: /topology constraints must contain between/,
    unreachable: (k) => layersOff(k), mutant: () => ({ object: tasWorker({ [TAS.layers]: '[]' }) }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: errors of metavalidation.ValidateLabelName/, rule: 'topologyAnnotations',
    message: /podset-slice-required-topology-constraints\]\[\d+\]\.topology: Invalid value/,
    unreachable: (k) => layersOff(k), mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"rack block","size":1}]' }) }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: .*must be greater than or equal to 1/, rule: 'topologyAnnotations',
    message: /podset-slice-required-topology-constraints\]\[\d+\]\.size: Invalid value:.*must be greater than or equal to 1/s,
    unreachable: (k) => layersOff(k), mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":0}]' }) }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: field.Duplicate/, rule: 'topologyAnnotations',
    unreachable: (k) => layersOff(k),
    mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"rack","size":4},{"topology":"rack","size":2}]' }, 4) }) },
  { match: /^validateSliceRequiredTopologyConstraintsAnnotation: .*must evenly divide/, rule: 'topologyAnnotations',
    unreachable: (k) => layersOff(k),
    mutant: () => ({ object: tasWorker({ [TAS.layers]: '[{"topology":"block","size":4},{"topology":"rack","size":3}]' }, 4) }) },

  // ---- the Ray webhooks
  { match: /Default: errors.New\("RayJob should enable workload slicing if autoscaling is enabled"\)/, rule: 'autoscalingOnlyWhenElastic',
    mutant: () => ({ object: job({ rayClusterSpec: clusterSpec({ enableInTreeAutoscaling: true }) }) }) },
  { match: /Default: errors.New\("RayJob should not set suspend to true if autoscaling is enabled"\)/, rule: 'elasticRayJobNoSuspend',
    mutant: () => ({ object: job({ suspend: true, rayClusterSpec: clusterSpec({ enableInTreeAutoscaling: true }) }, {}, ELASTIC) }) },
  { match: /validateCreate: .*a kueue managed job should not use an existing cluster/, rule: 'rayJobClusterSource',
    mutant: () => ({ object: job({ clusterSelector: { 'ray.io/cluster': 'existing' } }) }) },
  { match: /validateCreate: .*rayClusterSpec is required for Kueue-managed jobs/, rule: 'rayJobClusterSource',
    mutant: () => ({ object: job({ rayClusterSpec: undefined }) }) },
  { match: /validateCreate: .*a kueue managed job should delete the cluster after finishing/, rule: 'rayJobShutdownAfterFinish',
    mutant: () => ({ object: job({ shutdownAfterJobFinishes: false }) }) },
  // A RayCluster's own check, and the one on a RayJob's or RayService's cluster spec (common.go; rayjob_webhook.go before 0.17).
  { match: /validateCreate: field.Invalid\(specPath.Child\("enableInTreeAutoscaling"\)/,
    rule: 'autoscalingOnlyWhenElastic', mutant: () => ({ object: cluster({ enableInTreeAutoscaling: true }) }) },
  { match: /(validateCreate|ValidateCreate): field.Invalid\((clusterSpecPath|rayClusterSpecPath).Child\("enableInTreeAutoscaling"\)/,
    rule: 'autoscalingOnlyWhenElastic',
    mutant: () => ({ object: job({ rayClusterSpec: clusterSpec({ enableInTreeAutoscaling: true }) }) }),
    // On 0.14's short-term elastic RayJob path the mutating webhook refuses such a job first (its Default site).
    unreachable: (k) => (kueueCapabilities(k).elasticRayJob === 'short-term'
      ? 'the mutating webhook refuses the autoscaling RayJob first' : undefined) },
  // A RayCluster's own worker groups (specPath), and a RayJob's or RayService's cluster spec: one site each, told apart by the path.
  { match: /(validateCreate|ValidateCreate): field.TooMany\(specPath/, rule: 'workerGroupLimit', message: /(^|\[|, )spec\.workerGroupSpecs: Too many/,
    mutant: () => ({ object: cluster({ workerGroupSpecs: workers(18) }) }) },
  { match: /(validateCreate|ValidateCreate): field.TooMany\((clusterSpecPath|rayClusterSpecPath)/, rule: 'workerGroupLimit',
    message: /spec\.(rayClusterSpec|rayClusterConfig)\.workerGroupSpecs: Too many/,
    mutant: () => ({ object: job({ rayClusterSpec: clusterSpec({ workerGroupSpecs: workers(18) }) }) }) },
  { match: /(validateCreate|ValidateCreate): field.Forbidden\(specPath.*is reserved for the head group/, rule: 'podSetNames',
    message: /(^|\[|, )spec\.workerGroupSpecs\[\d+\]\.groupName: Forbidden: .*is reserved for the head group/,
    mutant: () => ({ object: cluster({ workerGroupSpecs: [worker('head')] }) }) },
  { match: /(validateCreate|ValidateCreate): field.Forbidden\((clusterSpecPath|rayClusterSpecPath).*is reserved for the head group/, rule: 'podSetNames',
    message: /spec\.(rayClusterSpec|rayClusterConfig)\.workerGroupSpecs\[\d+\]\.groupName: Forbidden: .*is reserved for the head group/,
    mutant: () => ({ object: job({ rayClusterSpec: clusterSpec({ workerGroupSpecs: [worker('head')] }) }) }) },
  { match: /validateElasticJob: field.Invalid\(.*schedulingGates/,
    na: 'Kueue\'s own mutating webhook adds the ElasticJobSchedulingGate to an elastic RayCluster before it validates the create' },
  { match: /validateElasticJob: .*in-tree autoscaling is not supported for a MultiKueue-managed elastic RayCluster/,
    rule: 'multiKueueElasticAutoscaling',
    mutant: () => ({ object: cluster({ enableInTreeAutoscaling: true, managedBy: 'kueue.x-k8s.io/multikueue' }, {}, ELASTIC) }) },
  { match: /accountForRedisCleanupInHeadPodSet:/, rule: 'podTemplateContainers',
    mutant: () => ({ object: cluster({ gcsFaultToleranceOptions: { redisAddress: 'redis:6379' },
      headGroupSpec: { ...head(), template: { spec: { containers: [] } } } }) }) },
  { match: /(UpdatePodSets|UpdateRayClusterSpecToRunWithPodSetsInfo|ParsePodSetReplicaSizes|GetWorkloadslicingRayClusterCustomAnnotations):/,
    na: 'an error of Kueue\'s reconciler (reading or patching the RayCluster it admits), not a refusal of the user\'s object' },
];

/** A service, for the RayService webhook's sites (the same checks on spec.rayClusterConfig). */
export const kueueRayService = (spec: Record<string, unknown> = {}) => queued(rayService('service', spec));
