/**
 * Every refusal site of Kueue's Ray validation (enumerate.ts: jobframework, its TAS checks, the Ray
 * webhooks, the admission-gated-by annotation), mapped like KubeRay's (kuberay-sites.ts). A mutant is a
 * CREATE (`object`) or an UPDATE (`old` → `object`) of a queued object in the agreement suite's namespace;
 * the suite (upstream.e2e.test.ts) sends it to the real Kueue webhook of the pair, which must deny it with
 * the site's message, and checks that the mapped rule refuses it too. `todo`: a site no rule covers yet,
 * listed in the table as such.
 */
import { clusterSpec, head, rayCluster, rayJob, rayService, worker } from '../support/ray-objects';

export interface KueueMutant {
  readonly object: any;
  /** For an UPDATE: the object as stored before. */
  readonly old?: any;
}

export interface KueueSiteMapping {
  readonly match: RegExp;
  readonly rule?: string;
  readonly na?: string;
  readonly todo?: string;
  readonly mutant?: (kueue: string) => KueueMutant;
}

const NS = 'agreement';
const QUEUE = { 'kueue.x-k8s.io/queue-name': 'user-queue' };
const queued = (o: any, labels: Record<string, string> = {}, annotations?: Record<string, string>) => ({
  ...o, metadata: { ...o.metadata, namespace: NS, labels: { ...QUEUE, ...labels }, ...(annotations ? { annotations } : {}) },
});
const job = (spec: Record<string, unknown> = {}, labels: Record<string, string> = {}, annotations?: Record<string, string>) =>
  queued(rayJob('job', spec), labels, annotations);
const cluster = (spec: Record<string, unknown> = {}, labels: Record<string, string> = {}, annotations?: Record<string, string>) =>
  queued(rayCluster('cluster', spec), labels, annotations);
const workers = (n: number) => Array.from({ length: n }, (_, i) => worker(`g${i}`));
const running = (o: any) => ({ ...o, spec: { ...o.spec, suspend: false } });
const ELASTIC = { 'kueue.x-k8s.io/elastic-job': 'true' };

export const KUEUE_SITES: readonly KueueSiteMapping[] = [
  // ---- jobframework/validation.go
  { match: /validateCreateForPrebuiltWorkload: field.Forbidden/,
    na: 'every Ray kind Kueue integrates is in supportedPrebuiltWlJobGVKs at each pinned version (MultiKueue creates the workers\' copies with it)' },
  { match: /ValidateLabelAsCRDName:/, rule: 'kueueLabelValues', mutant: () => ({ object: job({}, { 'kueue.x-k8s.io/queue-name': 'User_Queue' }) }) },
  { match: /ValidateAnnotationAsCRDName:/, rule: 'kueueLabelValues',
    mutant: () => ({ object: job({}, {}, { 'kueue.x-k8s.io/prebuilt-workload-name': `W${'x'.repeat(70)}` }) }) },
  { match: /validateUpdateForQueueName: field.Invalid\(queueNameLabelPath, "", "queue-name must not be empty in namespace with default queue"/,
    todo: 'needs a LocalQueue named default in the namespace: modelled by Kueue\'s LocalQueue defaulting (issue 23 §2), not yet' },
  { match: /validateUpdateForQueueName: errors of apivalidation.ValidateImmutableField/, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: running(job()), object: running(job({}, { 'kueue.x-k8s.io/queue-name': 'other-queue' })) }) },
  { match: /validateImmutablePodGroupPodSpecPath:/, na: 'checks the pod groups of Kueue\'s Pod integration, not a Ray object' },
  { match: /validatedUpdateForEnabledWorkloadSlice:/, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: running(cluster({}, {}, ELASTIC)), object: running(cluster()) }) },
  { match: /validateCreateForMaxExecTime: field.Invalid\(maxExecTimeLabelPath, strVal, err.Error\(\)\)/, rule: 'kueueLabelValues',
    mutant: () => ({ object: job({}, { 'kueue.x-k8s.io/max-exec-time-seconds': '1h' }) }) },
  { match: /validateCreateForMaxExecTime: .*should be greater than 0/, rule: 'kueueLabelValues',
    mutant: () => ({ object: job({}, { 'kueue.x-k8s.io/max-exec-time-seconds': '0' }) }) },
  { match: /ValidateUpdateForWorkloadPriorityClassName: .*cannot be added to a non-suspended workload/, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: running(job()), object: running(job({}, { 'kueue.x-k8s.io/priority-class': 'dev-priority' })) }) },
  { match: /ValidateUpdateForWorkloadPriorityClassName: .*cannot be removed from a workload/, rule: 'kueueWebhookOnUpdate',
    mutant: () => ({ old: job({}, { 'kueue.x-k8s.io/priority-class': 'dev-priority' }), object: job() }) },
  { match: /ValidateElasticJobAnnotation:/, na: 'RayJob, RayCluster and RayService are all in supportedElasticJobGVKs' },
  { match: /ValidateJobOn(Create|Update): errors of webhook.ValidateAdmissionGatedBy/,
    na: 'wraps the admission-gated-by checks (validation_admissiongatedby.go, mapped below)' },

  // ---- the admission-gated-by annotation (0.17 alpha, off by default; 0.19 beta, on)
  { match: /^(validateAdmissionGatedByAnnotationFormat|ValidateAdmissionGatedByAnnotationOn(Create|Update)):/,
    todo: 'the kueue.x-k8s.io/admission-gated-by annotation\'s format and update rules (on by default from 0.19) are not modelled yet' },

  // ---- Topology-aware scheduling annotations on the pod templates
  { match: new RegExp('^(ValidateTASPodSetRequest|validateTASUnconstrained|validateSliceSizeAnnotation|validatePodSetGroupNameAnnotation'
    + '|ValidateSliceSizeAnnotationUpperBound|ValidatePodSetGroupingTopology|validateSliceRequiredTopologyConstraintsAnnotation):'),
    todo: 'the podset topology annotations (topology-aware scheduling) are not modelled yet' },

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
  { match: /(validateCreate|ValidateCreate): field.Invalid\((clusterSpecPath|rayClusterSpecPath|specPath).Child\("enableInTreeAutoscaling"\)/,
    rule: 'autoscalingOnlyWhenElastic', mutant: () => ({ object: cluster({ enableInTreeAutoscaling: true }) }) },
  { match: /(validateCreate|ValidateCreate): field.TooMany/, rule: 'workerGroupLimit',
    mutant: () => ({ object: cluster({ workerGroupSpecs: workers(18) }) }) },
  { match: /(validateCreate|ValidateCreate): field.Forbidden\(.*is reserved for the head group/, rule: 'podSetNames',
    mutant: () => ({ object: cluster({ workerGroupSpecs: [worker('head')] }) }) },
  { match: /validateElasticJob: field.Invalid\(.*schedulingGates/,
    na: 'Kueue\'s own mutating webhook adds the ElasticJobSchedulingGate to an elastic RayCluster before it validates the create' },
  { match: /validateElasticJob: .*in-tree autoscaling is not supported for a MultiKueue-managed elastic RayCluster/, rule: 'multiKueueElasticAutoscaling',
    mutant: () => ({ object: cluster({ enableInTreeAutoscaling: true, managedBy: 'kueue.x-k8s.io/multikueue' }, {}, ELASTIC) }) },
  { match: /accountForRedisCleanupInHeadPodSet:/, rule: 'podTemplateContainers',
    mutant: () => ({ object: cluster({ gcsFaultToleranceOptions: { redisAddress: 'redis:6379' },
      headGroupSpec: { ...head(), template: { spec: { containers: [] } } } }) }) },
  { match: /(UpdatePodSets|UpdateRayClusterSpecToRunWithPodSetsInfo|ParsePodSetReplicaSizes|GetWorkloadslicingRayClusterCustomAnnotations):/,
    na: 'an error of Kueue\'s reconciler (reading or patching the RayCluster it admits), not a refusal of the user\'s object' },
];

/** A service, for the RayService webhook's sites (the same checks on spec.rayClusterConfig). */
export const kueueRayService = (spec: Record<string, unknown> = {}) => queued(rayService('service', spec));
