/**
 * Rules Kueue's own admission webhooks apply to Ray objects (Kueue pkg/controller/jobs/rayjob/rayjob_webhook.go,
 * jobs/raycluster/raycluster_webhook.go, jobframework/validation.go; version facts from the table in versions.ts).
 * Failing any of these makes `kubectl apply` fail with Kueue's message; the library says it first,
 * with the fix.
 */
import { hasDefaultLocalQueue } from '../kueue-defaults';
import { DEFAULT_KUEUE_VERSION } from '../versions';
import { asWritten } from '../json';
import { clusterSpecOf, hasSubmitterPodSet, RAY_CLUSTER, RAY_JOB, RAY_KINDS, rayKindOf, RayObject, selectsCluster, skipsKueue } from '../kinds';
import { isDns1123Label, isDns1123Subdomain } from '../k8s-names';
import {
  ELASTIC_JOB_ANNOTATION, isElastic, isQueued, isRecord, namespaceOf, PRIORITY_CLASS_LABEL, priorityClassOf,
  QUEUE_NAME_LABEL, queueNameOf, shown, usesAutoscaling, workerGroupsOf,
} from '../ray-object';
import { admissionGatedBy, admissionGatedByOnUpdate } from './kueue-admission-gated-by';
import { defineRule, Reporter, Rule, RuleRecord } from './rule';

/** A queued RayJob must delete its cluster when it finishes, or its quota would never be released. */
export const rayJobShutdownAfterFinish = defineRule({
  name: 'rayJobShutdownAfterFinish', source: 'kueue-webhook', kinds: ['RayJob'],
  description: 'A queued RayJob sets shutdownAfterJobFinishes: true, or its quota is never released (Kueue webhook).',
}, (r, obj, ctx) => {
  if (!RAY_JOB.is(obj) || !isQueued(obj, ctx.kueue) || skipsKueue(obj, ctx.kueue)) return r.findings;
  if (obj.spec?.shutdownAfterJobFinishes !== true) {
    // With deletionRules the usual fix leads into KubeRay's next refusal (the two are mutually exclusive): say so first.
    const rules = isRecord(obj.spec?.deletionStrategy) && obj.spec.deletionStrategy.deletionRules !== undefined;
    r.error('spec.shutdownAfterJobFinishes', rules
      ? 'a kueue managed job should delete the cluster after finishing (Kueue webhook), and KubeRay refuses shutdownAfterJobFinishes together '
        + 'with deletionStrategy.deletionRules: a Kueue-managed RayJob cannot use deletionRules'
      : 'a kueue managed job should delete the cluster after finishing (Kueue webhook)',
    rules ? 'replace spec.deletionStrategy.deletionRules with onSuccess/onFailure policies (or remove deletionStrategy), then set '
        + 'spec.shutdownAfterJobFinishes: true'
      : 'set spec.shutdownAfterJobFinishes: true; use spec.ttlSecondsAfterFinished to keep the cluster around briefly');
  }
  return r.findings;
});

/** clusterSelector and rayClusterSpec together, or neither, are refused; clusterSelector alone is ignored by Kueue. */
export const rayJobClusterSource = defineRule({
  name: 'rayJobClusterSource', source: 'kueue-webhook', kinds: ['RayJob'],
  description: 'A queued RayJob has rayClusterSpec and no clusterSelector (Kueue webhook).',
}, (r, obj, ctx) => {
  if (!RAY_JOB.is(obj) || !isQueued(obj, ctx.kueue)) return r.findings;
  const hasSelector = selectsCluster(obj);
  const hasSpec = !!obj.spec?.rayClusterSpec;
  if (hasSelector && (hasSpec || !ctx.kueue.rayJobClusterSelectorRules)) {
    r.error('spec.clusterSelector', 'a kueue managed job should not use an existing cluster (Kueue webhook)',
      'remove spec.clusterSelector and let the job create its own cluster, or drop the queue-name label and run on the existing, '
        + 'already-admitted cluster');
  } else if (hasSelector) {
    r.warn(`metadata.labels[${QUEUE_NAME_LABEL}]`,
      `Kueue ${ctx.kueue.version} ignores a RayJob that selects an existing cluster: the queue-name label has no effect`,
      'drop the queue-name label (the selected RayCluster holds the quota), or replace clusterSelector with a rayClusterSpec');
  } else if (!hasSpec) {
    r.error('spec.rayClusterSpec', "rayClusterSpec is required for Kueue-managed jobs that don't use clusterSelector (Kueue webhook)",
      'give the job a spec.rayClusterSpec (headGroupSpec and workerGroupSpecs) for the cluster it runs on');
  }
  return r.findings;
});

function elasticKindSupport(obj: RayObject, ctx: Parameters<Rule>[1]): { supported: boolean; first: string; what: string } {
  const kind = rayKindOf(obj);
  if (!kind) return { supported: false, first: '?', what: `elastic ${shown(obj.kind)}` };
  // No spread: a spread followed by a new key costs about 0.5 µs in Node 20 (a fresh hidden class each time), and three rules ask.
  const { supported, first } = kind.elasticSupport(ctx.kueue);
  return { supported, first, what: `elastic ${kind.kind}` };
}

/** An elastic or autoscaling Ray object on a Kueue version that cannot admit it. */
export const elasticNeedsKueueVersion = defineRule({
  name: 'elasticNeedsKueueVersion', source: 'version', kinds: RAY_KINDS,
  description: 'Elastic or autoscaling Ray objects need a Kueue version that can admit them.',
}, (r, obj, ctx) => {
  if (!isQueued(obj, ctx.kueue) || !(isElastic(obj) || usesAutoscaling(obj))) return r.findings;
  const s = elasticKindSupport(obj, ctx);
  if (!s.supported) {
    const field = isElastic(obj) ? `metadata.annotations[${ELASTIC_JOB_ANNOTATION}]` : `${clusterSpecOf(obj)?.path}.enableInTreeAutoscaling`;
    // Kueue's webhook sees only the kinds it integrates itself (a RayService before 0.17 is queued through its RayCluster).
    const kind = rayKindOf(obj);
    const msg = ctx.kueue.refusesAutoscaling && kind !== undefined && kind.kueueFrameworkFor(ctx.kueue) === kind.kueueFramework
      ? `${s.what} needs Kueue >= ${s.first}; Kueue ${ctx.kueue.version} refuses it ("a kueue managed job should not use autoscaling")`
      : `${s.what} needs Kueue >= ${s.first}; the chosen Kueue is ${ctx.kueue.version}`;
    r.error(field, msg,
      `choose Kueue >= ${s.first} (${DEFAULT_KUEUE_VERSION} is the default), or remove autoscaling and the elastic annotation to `
        + 'run a fixed-size gang');
  }
  return r.findings;
});

/** Autoscaling is allowed only as an elastic job (annotation + gate), with version-specific messages. */
export const autoscalingOnlyWhenElastic = defineRule({
  name: 'autoscalingOnlyWhenElastic', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'A queued Ray object autoscales only as an elastic job (Kueue webhook).',
}, (r, obj, ctx) => {
  if (!usesAutoscaling(obj) || isElastic(obj)) return r.findings;
  // The 0.14.7+ short-term RayJob path checks every RayJob with autoscaling, queued or not.
  const shortTermRayJob = RAY_JOB.is(obj) && ctx.kueue.elasticRayJob === 'short-term';
  if (!isQueued(obj, ctx.kueue) && !shortTermRayJob) return r.findings;
  if (!elasticKindSupport(obj, ctx).supported) return r.findings; // elasticNeedsKueueVersion reports it
  const path = `${clusterSpecOf(obj)?.path}.enableInTreeAutoscaling`;
  let msg: string;
  if (shortTermRayJob) msg = 'RayJob should enable workload slicing if autoscaling is enabled';
  else if (!RAY_CLUSTER.is(obj)) msg = 'a kueue managed job should only use autoscaling when workload slicing is enabled';
  else if (ctx.kueue.rayClusterAutoscalingNamesAnnotation) msg = 'a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the '
    + 'ElasticJobsViaWorkloadSlices feature gate and set the "kueue.x-k8s.io/elastic-job": "true" annotation';
  else msg = 'a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on and the job is an elastic job';
  r.error(path, `${msg} (Kueue webhook)`,
    `add metadata.annotations ${ELASTIC_JOB_ANNOTATION}: "true", or set enableInTreeAutoscaling: false`);
  return r.findings;
});

/** The elastic feature gate must be on for an elastic workload to be admitted as one. */
export const elasticFeatureGate = defineRule({
  name: 'elasticFeatureGate', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'Elastic workloads need the ElasticJobsViaWorkloadSlices feature gate on.',
}, (r, obj, ctx) => {
  if (!isQueued(obj, ctx.kueue) || !isElastic(obj) || !elasticKindSupport(obj, ctx).supported) return r.findings;
  const gate = ctx.elasticGate ?? 'unknown';
  const field = `metadata.annotations[${ELASTIC_JOB_ANNOTATION}]`;
  if (gate === 'off') {
    r.error(field,
      `the ElasticJobsViaWorkloadSlices feature gate is off, so Kueue ${ctx.kueue.version} treats the object as `
        + `non-elastic${usesAutoscaling(obj) ? ' and refuses its autoscaling' : ''}`,
      'enable --feature-gates=ElasticJobsViaWorkloadSlices=true on kueue-controller-manager (the Kueue install construct does it when the app '
        + 'holds elastic workloads)');
  } else if (gate === 'unknown' && !ctx.kueue.elasticGateDefaultOn) {
    r.warn(field,
      `ElasticJobsViaWorkloadSlices is Alpha and off by default on Kueue ${ctx.kueue.version}; without it the object is refused or `
        + 'admitted as a fixed gang',
      'enable the gate on kueue-controller-manager (--feature-gates=ElasticJobsViaWorkloadSlices=true), or declare it with KueueRayVersions.use(app, '
        + '{ elasticGateEnabled: true }) once it is on');
  }
  return r.findings;
});

/** 0.14.7–0.16.0 short-term elastic RayJob: Kueue's webhook refuses suspend: true with autoscaling. */
export const elasticRayJobNoSuspend = defineRule({
  name: 'elasticRayJobNoSuspend', source: 'kueue-webhook', kinds: ['RayJob'],
  description: 'An autoscaling RayJob does not set suspend: true on Kueue 0.14.7 to 0.16.0 (Kueue webhook).',
}, (r, obj, ctx) => {
  if (RAY_JOB.is(obj) && ctx.kueue.elasticRayJob === 'short-term' && usesAutoscaling(obj) && obj.spec?.suspend === true) {
    r.error('spec.suspend',
      `RayJob should not set suspend to true if autoscaling is enabled (Kueue ${ctx.kueue.version} webhook; its child RayCluster is queued instead)`,
      'remove spec.suspend from an autoscaling RayJob on this Kueue version');
  }
  return r.findings;
});

/**
 * Worker groups within the PodSet limit. Kueue's webhook cap ignores the K8sJobMode submitter PodSet,
 * so a RayJob can pass the webhook and still have its Workload rejected.
 */
export const workerGroupLimit = defineRule({
  name: 'workerGroupLimit', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'Worker groups stay within Kueue\'s PodSet limit, the submitter PodSet included.',
}, (r, obj, ctx) => {
  if (!isQueued(obj, ctx.kueue)) return r.findings;
  const cs = clusterSpecOf(obj);
  if (!cs) return r.findings;
  const workers = workerGroupsOf(obj).length;
  const submitter = hasSubmitterPodSet(obj) ? 1 : 0;
  const max = ctx.kueue.maxPodSets;
  const maxWorkers = max - 1 - submitter;
  const field = `${cs.path}.workerGroupSpecs`;
  const fix = `use at most ${maxWorkers} worker groups on `
    + `Kueue ${ctx.kueue.version}${submitter ? ' (the K8sJobMode submitter takes one PodSet; HTTPMode/SidecarMode does not)' : ''}, or merge groups `
    + 'with the same pod shape';
  if (ctx.kueue.workerGroupCapStyle === 'seven-workers' && workers > 7) {
    r.error(field, `Too many: ${workers}: must have at most 7 items (Kueue webhook)`, fix);
  } else if (ctx.kueue.workerGroupCapStyle === 'workers-plus-head' && workers + 1 > max) {
    r.error(field, `Too many: ${workers + 1}: must have at most ${max} items (Kueue webhook)`, fix);
  } else if (workers + 1 + submitter > max) {
    r.error(field,
      `${workers} worker groups + head + submitter = ${workers + 1 + submitter} PodSets, above the Workload limit of ${max}: Kueue's webhook accepts `
        + 'the object but its Workload is rejected, so it never runs',
      fix, 'kueue-workload');
  }
  return r.findings;
});

/** Worker group names become PodSet names: `head`, `submitter` and case-insensitive duplicates collide. */
export const podSetNames = defineRule({
  name: 'podSetNames', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'Worker group names make valid, distinct PodSet names (not head or submitter).',
}, (r, obj, ctx) => {
  if (!isQueued(obj, ctx.kueue)) return r.findings;
  const cs = clusterSpecOf(obj);
  const seen = new Map<string, number>();
  workerGroupsOf(obj).forEach((g, i) => {
    if (g?.groupName !== undefined && typeof g.groupName !== 'string') return; // uniqueWorkerGroupNames reports the type
    const name: string = g?.groupName ?? '';
    if (!name) return; // Kueue admits a PodSet named "" (uniqueWorkerGroupNames warns)
    const field = `${cs?.path}.workerGroupSpecs[${i}].groupName`;
    if (name === 'head') {
      r.error(field, '"head" is reserved for the head group (Kueue webhook)', 'rename the worker group, e.g. "workers"');
      return;
    }
    const lower = name.toLowerCase();
    if (lower === 'submitter' && hasSubmitterPodSet(obj)) {
      r.error(field, 'worker group "submitter" collides with the K8sJobMode submitter PodSet, so the Workload is invalid', 'rename the worker group',
        'kueue-workload');
    }
    if (!isDns1123Label(lower)) {
      r.error(field, `PodSet name "${lower}" (the lower-cased group name) is not a DNS-1123 label, so the Workload is invalid`,
        'use lowercase letters, digits and "-" (at most 63 characters)', 'kueue-workload');
    }
    if (seen.has(lower) && name !== String(workerGroupsOf(obj)[seen.get(lower)!]?.groupName)) {
      r.error(field, `"${name}" and "${workerGroupsOf(obj)[seen.get(lower)!]?.groupName}" give the same PodSet name "${lower}"`,
        'give worker groups names that differ in more than case', 'kueue-workload');
    }
    seen.set(lower, i);
  });
  return r.findings;
});

/** The queue-name and priority-class labels must be valid object names. */
export const kueueLabelValues = defineRule({
  name: 'kueueLabelValues', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'The queue-name and priority-class labels are valid object names, and max-exec-time-seconds a positive whole number.',
}, (r, obj, ctx) => {
  if (skipsKueue(obj, ctx.kueue)) return r.findings; // Kueue does not manage it
  const q = queueNameOf(obj, ctx.kueue);
  if (q !== undefined && !isDns1123Subdomain(q)) {
    r.error(`metadata.labels[${QUEUE_NAME_LABEL}]`, `"${q}" is not a valid LocalQueue name (a DNS-1123 subdomain)`,
      'use the metadata.name of a LocalQueue in this namespace');
  }
  const p = priorityClassOf(obj);
  if (p !== undefined && !isDns1123Subdomain(p)) {
    r.error(`metadata.labels[${PRIORITY_CLASS_LABEL}]`, `"${p}" is not a valid WorkloadPriorityClass name`,
      'use the metadata.name of a WorkloadPriorityClass', 'kueue-workload');
  }
  // jobframework ValidatePrebuiltWorkloadName: the prebuilt Workload's name, from the annotation (0.18+) or the label.
  // Kueue's Ray webhooks run ValidateJobOnCreate (this check and max-exec-time's) on every object, queued or not.
  const { name, field } = prebuiltWorkloadName(obj, ctx);
  if (typeof name === 'string' && !isDns1123Subdomain(name)) {
    r.error(field, `"${name}" is not a valid Workload name (a DNS-1123 subdomain)`,
      'name an existing Workload (lowercase letters, digits, "-" and ".")');
  }
  // jobframework validateCreateForMaxExecTime: strconv.Atoi, then > 0.
  const max = isRecord(obj.metadata?.labels) ? obj.metadata.labels[MAX_EXEC_TIME_LABEL] : undefined;
  if (typeof max === 'string') {
    const whole = /^[-+]?\d+$/.test(max) && Math.abs(Number(max)) < 2 ** 63;
    if (!whole || Number(max) <= 0) {
      r.error(`metadata.labels[${MAX_EXEC_TIME_LABEL}]`, whole ? `must be greater than 0, not ${max} (Kueue webhook)`
        : `"${max}" is not a whole number of seconds (Kueue webhook)`, 'give the maximum run time in whole seconds, e.g. "3600"');
    }
  }
  return r.findings;
});

/** Kueue's label for a workload's maximum execution time, in whole seconds. */
export const MAX_EXEC_TIME_LABEL = 'kueue.x-k8s.io/max-exec-time-seconds';
/** The prebuilt Workload's name: a label, and from 0.18 also an annotation. */
export const PREBUILT_WORKLOAD_NAME = 'kueue.x-k8s.io/prebuilt-workload-name';

/** MultiKueue does not dispatch an autoscaling elastic RayCluster (Kueue 0.19 refuses it; earlier versions do not check). */
export const multiKueueElasticAutoscaling = defineRule({
  name: 'multiKueueElasticAutoscaling', source: 'kueue-webhook', kinds: ['RayCluster'],
  description: 'A RayCluster dispatched by MultiKueue does not autoscale as an elastic job (Kueue 0.19 webhook).',
}, (r, obj, ctx) => {
  if (!RAY_CLUSTER.is(obj) || !isQueued(obj, ctx.kueue) || !ctx.kueue.refusesMultiKueueElasticAutoscaling) return r.findings;
  if (elasticEnabled(obj, ctx) && obj.spec?.enableInTreeAutoscaling === true && obj.spec?.managedBy === 'kueue.x-k8s.io/multikueue') {
    r.error('spec.enableInTreeAutoscaling', 'in-tree autoscaling is not supported for a MultiKueue-managed elastic RayCluster (Kueue webhook)',
      'turn autoscaling off for a RayCluster dispatched by MultiKueue, or run it on one cluster (no managedBy)');
  }
  return r.findings;
});

export const KUEUE_WEBHOOK_RULES: readonly RuleRecord[] = [
  rayJobShutdownAfterFinish, rayJobClusterSource, elasticNeedsKueueVersion, autoscalingOnlyWhenElastic,
  elasticFeatureGate, elasticRayJobNoSuspend, workerGroupLimit, podSetNames, kueueLabelValues, multiKueueElasticAutoscaling, admissionGatedBy,
];

/** Whether Kueue's webhook checks an UPDATE at all: the new object is queued, or (0.18+, ValidateRayAndSparkJobUpdates) the old one was. */
export function kueueValidatesUpdate(oldObj: RayObject, newObj: RayObject, ctx: Parameters<Rule>[1]): boolean {
  return isQueued(newObj, ctx.kueue) || (ctx.kueue.validatesUpdateOfFormerlyQueued && isQueued(oldObj, ctx.kueue));
}

/** Kueue's IsSuspended per kind (the kind table): RayService through its cluster config. */
function kueueSuspended(obj: RayObject): boolean {
  return (rayKindOf(obj) ?? RAY_CLUSTER).isSuspended(obj);
}

function elasticEnabled(obj: RayObject, ctx: Parameters<Rule>[1]): boolean {
  const gate = ctx.elasticGate === 'on' || ((ctx.elasticGate ?? 'unknown') === 'unknown' && ctx.kueue.elasticGateDefaultOn);
  return gate && isElastic(obj);
}

/**
 * What Kueue's webhook refuses in an UPDATE besides the create rules on the new object
 * (jobframework.ValidateJobOnUpdate): the queue name changed while the new object runs, the
 * priority class added to a running object or removed (before 0.17: changed while running or removed),
 * the elastic-job annotation toggled, and (0.19+) an admission gate added. Kueue checks an update when the new object has a queue name,
 * and from 0.18 (ValidateRayAndSparkJobUpdates, on by default) also when the old one had.
 */
/** The prebuilt Workload's name as Kueue reads it (PrebuiltWorkloadNameFor): the annotation (0.18+) or the label, with its field. */
function prebuiltWorkloadName(obj: RayObject, ctx: Parameters<Rule>[1]): { readonly name: unknown; readonly field: string } {
  const key = PREBUILT_WORKLOAD_NAME;
  const fromAnnotation = isRecord(obj.metadata?.annotations) ? obj.metadata.annotations[key] : undefined;
  const useAnnotation = typeof fromAnnotation === 'string' && fromAnnotation !== ''
    && (ctx.kueue.prebuiltWorkloadAnnotation || fromAnnotation.length > 63);
  const name = useAnnotation ? fromAnnotation : (isRecord(obj.metadata?.labels) ? obj.metadata.labels[key] : undefined);
  return { name, field: `metadata.${useAnnotation ? 'annotations' : 'labels'}[${key}]` };
}

export function kueueWebhookOnUpdate(oldObj: RayObject, newObj: RayObject, ctx: Parameters<Rule>[1]): ReturnType<Rule> {
  const r = new Reporter(KUEUE_WEBHOOK_ON_UPDATE_RULE, newObj);
  if (!kueueValidatesUpdate(oldObj, newObj, ctx)) return r.findings;
  const running = !kueueSuspended(newObj);
  const oldQ = queueNameOf(oldObj, ctx.kueue) ?? '';
  const newQ = queueNameOf(newObj, ctx.kueue) ?? '';
  if (running && oldQ !== newQ) {
    r.error(`metadata.labels[${QUEUE_NAME_LABEL}]`,
      `the queue name cannot change from "${oldQ}" to "${newQ}" while the object is not suspended: field is immutable (Kueue webhook)`,
      'suspend the object first (or delete and recreate it in the other queue)');
  }
  if (!newQ && oldQ && hasDefaultLocalQueue(ctx.inventory, namespaceOf(newObj))) {
    r.error(`metadata.labels[${QUEUE_NAME_LABEL}]`, 'queue-name must not be empty in namespace with default queue (Kueue webhook)',
      `keep the label ${QUEUE_NAME_LABEL} (Kueue would queue the object to the namespace's "default" LocalQueue otherwise)`);
  }
  const oldP = priorityClassOf(oldObj) ?? '';
  const newP = priorityClassOf(newObj) ?? '';
  const pField = `metadata.labels[${PRIORITY_CLASS_LABEL}]`;
  if (ctx.kueue.priorityClassUpdate === 'immutable-while-running') {
    if ((running || !newP) && oldP !== newP) {
      r.error(pField,
        `the WorkloadPriorityClass cannot change from "${oldP}" to "${newP}"${running ? ' while the object is not suspended' : ''}: field is `
          + 'immutable (Kueue webhook)',
        newP ? 'suspend the object before changing its priority class' : 'keep the priority-class label');
    }
  } else if (running && !oldP && newP) {
    r.error(pField, 'WorkloadPriorityClass cannot be added to a non-suspended workload (Kueue webhook)',
      'set the priority class at creation, or suspend the object first');
  } else if (!newP && oldP) {
    r.error(pField, 'WorkloadPriorityClass cannot be removed from a workload (Kueue webhook)', `keep the label ${PRIORITY_CLASS_LABEL}: ${oldP}`);
  }
  if (elasticEnabled(oldObj, ctx) !== elasticEnabled(newObj, ctx)) {
    r.error(`metadata.annotations[${ELASTIC_JOB_ANNOTATION}]`,
      `the elastic-job annotation cannot be ${isElastic(newObj) ? 'added' : 'removed'} after creation: field is immutable (Kueue webhook)`,
      'recreate the object to change whether it is elastic');
  }
  // jobframework validateUpdateForMaxExecTime: the label changes only while the object was and stays suspended.
  const maxOf = (o: RayObject) => (isRecord(o.metadata?.labels) ? o.metadata.labels[MAX_EXEC_TIME_LABEL] : undefined) ?? '';
  if ((running || !kueueSuspended(oldObj)) && maxOf(oldObj) !== maxOf(newObj)) {
    r.error(`metadata.labels[${MAX_EXEC_TIME_LABEL}]`, `the maximum execution time cannot change from "${maxOf(oldObj)}" to "${maxOf(newObj)}" `
      + 'unless the object was and stays suspended: field is immutable (Kueue webhook)', 'suspend the object first, or keep the label as it was');
  }
  // jobframework validateUpdateForPrebuiltWorkload: fixed once the object runs, unless it is elastic (its slices are new Workloads).
  const oldWl = prebuiltWorkloadName(oldObj, ctx);
  const newWl = prebuiltWorkloadName(newObj, ctx);
  if (running && !elasticEnabled(oldObj, ctx) && (oldWl.name ?? '') !== (newWl.name ?? '')) {
    const written = (v: unknown) => (v == null ? '' : asWritten(v));
    r.error(newWl.field, `the prebuilt Workload cannot change from "${written(oldWl.name)}" to "${written(newWl.name)}" `
      + 'while the object runs: field is immutable (Kueue webhook)', 'keep the prebuilt Workload name, or suspend the object first');
  }
  admissionGatedByOnUpdate(oldObj, newObj, ctx, r);
  return r.findings;
}

/** The UPDATE rule (run by the webhook's decision on an update, besides every rule on the new object). */
export const KUEUE_WEBHOOK_ON_UPDATE_RULE: RuleRecord<typeof kueueWebhookOnUpdate> = {
  name: 'kueueWebhookOnUpdate', source: 'kueue-webhook', kinds: RAY_KINDS,
  description: 'An update keeps what Kueue makes immutable: the queue name while running, the priority class, the elastic annotation, '
    + 'the maximum execution time and the prebuilt Workload, and adds no admission gate.',
  check: kueueWebhookOnUpdate,
};
