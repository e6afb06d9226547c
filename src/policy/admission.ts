/**
 * Admission-only policy (pure): the final-state check of the tenant queue label, and UPDATE reviewed
 * as a transition, the way Kueue's ValidateJobOnUpdate and Kubernetes' CRD validation ratcheting do.
 * An update is denied only for an error the old object did not have, on a field the update changed;
 * updates of bookkeeping only (metadata, finalizers, status, suspend, what the Ray autoscaler
 * writes) always pass. So Kueue's suspend flips, KubeRay's finalizer removal and the reconciler's
 * annotation patch are never blocked by a quota lowered, a queue deleted or a stricter rule.
 */
import { PolicyContext } from './context';
import { Finding, objectRef } from './findings';
import { clusterSpecOf, RAY_KINDS, RayObject, skipsKueue } from './kinds';
import { isRecord } from './json';
import { ELASTIC_JOB_ANNOTATION, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL, queueNameAnnotationOf, queueNameOf } from './ray-object';
import { ADMISSION_GATED_BY_ANNOTATION } from './rules/kueue-admission-gated-by';
import { MAX_EXEC_TIME_LABEL, PREBUILT_WORKLOAD_NAME } from './rules/kueue-webhook';
import { RuleRecord } from './rules/rule';
import { tenantOf } from './tenant';
import { FIRST_KUEUE_VERSION } from './versions';

const QUEUE_FIELD = `metadata.labels[${QUEUE_NAME_LABEL}]`;
const QUEUE_ANNOTATION_FIELD = `metadata.annotations[${QUEUE_NAME_LABEL}]`;

/** The rule record of tenantQueueLabel (its findings are built here, not through a Reporter). */
export const TENANT_QUEUE_LABEL_RULE: RuleRecord<typeof tenantQueueLabel> = {
  name: 'tenantQueueLabel', source: 'app', kinds: RAY_KINDS,
  description: 'A Ray object in a tenant namespace carries the tenant\'s queue label.',
  check: tenantQueueLabel,
};

/**
 * Final state: a Ray object in a tenant namespace carries a queue name that the configured Kueue reads
 * (the label; before 0.15 also the annotation). The mutating webhook adds it on create; an object that
 * missed it, another webhook, or an update that removed it would otherwise run outside the tenant's
 * quota. Only requests of KubeRay, Kueue and Kubernetes' controllers skip this (writers.ts).
 */
export function tenantQueueLabel(obj: RayObject, ctx: Pick<PolicyContext, 'kueue' | 'inventory'>): Finding[] {
  const ns = obj.metadata?.namespace;
  const tenant = ctx.inventory ? tenantOf(ctx.inventory, ns) : undefined;
  // A RayJob on an existing cluster runs on that (queued) cluster; clusterSelectorSubmitter bounds the rest.
  if (!tenant || skipsKueue(obj, ctx.kueue)) return [];
  const out: Finding[] = [];
  const annotation = queueNameAnnotationOf(obj);
  if (annotation !== undefined && !ctx.kueue.queueNameAnnotation) {
    out.push({
      rule: TENANT_QUEUE_LABEL_RULE.name, severity: queueNameOf(obj, ctx.kueue) ? 'warning' : 'error', object: objectRef(obj),
      field: QUEUE_ANNOTATION_FIELD, source: 'kueue-workload',
      message: `Kueue ${ctx.kueue.version} reads the queue name only from the label (the annotation is ignored since `
        + `${FIRST_KUEUE_VERSION.queueNameLabelOnly})${queueNameOf(obj, ctx.kueue) ? '' : ', so this object would run outside the tenant\'s quota'}`,
      fix: `set the label ${QUEUE_NAME_LABEL}${tenant.queue ? `: ${tenant.queue.name}` : ''} instead of the annotation`,
    });
  }
  // One finding per problem: an ignored annotation already says why the object is unqueued.
  if (queueNameOf(obj, ctx.kueue) || out.length) return out;
  out.push({
    rule: TENANT_QUEUE_LABEL_RULE.name, severity: 'error', object: objectRef(obj), field: QUEUE_FIELD, source: TENANT_QUEUE_LABEL_RULE.source,
    message: tenant.queue
      ? `namespace "${ns}" is a tenant namespace, but the object has no queue name, so it would run outside Kueue's quota (the tenant's mutating `
        + 'webhook adds it on create; another webhook or an update removed it)'
      : `namespace "${ns}" is a tenant namespace, but it has no tenant LocalQueue (yet), so the object would run outside Kueue's quota`,
    fix: tenant.queue
      ? `set the label ${QUEUE_NAME_LABEL}: ${tenant.queue.name} (the tenant's LocalQueue), or keep the label the webhook added`
      : `create the tenant's LocalQueue (TenantQueue) first, then the object with the label ${QUEUE_NAME_LABEL}`,
  });
  return out;
}

type Segment = string | number;

/** Parses a finding's field ("spec.a[0].b", "metadata.labels[kueue.x-k8s.io/queue-name]") into segments. */
export function fieldSegments(field: string): Segment[] {
  const out: Segment[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(field)) !== null) {
    if (m[1] !== undefined) out.push(m[1]);
    else out.push(/^[0-9]+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return out;
}

/**
 * Structural equality of two JSON values, key order ignored. Iterative, so no nesting depth can
 * overflow the stack.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    // A list or a JSON object: both are walked, and a list never equals an object.
    if (!(Array.isArray(x) || isRecord(x)) || !(Array.isArray(y) || isRecord(y)) || Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
      // A list's keys are its indices: both are read as JSON objects.
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}

/**
 * Whether the value at `field` differs between the two objects. A path that does not resolve in
 * either object (a map key holding dots, such as `requests.nvidia.com/gpu`) is compared at its
 * longest prefix that does: when in doubt the field counts as changed.
 */
export function fieldChanged(oldObj: unknown, newObj: unknown, field: string): boolean {
  let a: unknown = oldObj;
  let b: unknown = newObj;
  for (const seg of fieldSegments(field)) {
    // A segment indexes a list as well as a JSON object.
    const na = Array.isArray(a) || isRecord(a) ? (a as Record<string, unknown>)[seg] : undefined;
    const nb = Array.isArray(b) || isRecord(b) ? (b as Record<string, unknown>)[seg] : undefined;
    if (na === undefined && nb === undefined) break;
    a = na;
    b = nb;
  }
  return !jsonEqual(a, b);
}

/** Label and annotation keys under metadata that carry Kueue semantics: not bookkeeping. */
// Kueue keeps the maximum execution time and the prebuilt Workload fixed while the object runs.
const SEMANTIC_LABELS = [QUEUE_NAME_LABEL, PRIORITY_CLASS_LABEL, MAX_EXEC_TIME_LABEL, PREBUILT_WORKLOAD_NAME];
// Kueue checks a change of the admission-gated-by annotation (gates may only be removed): not bookkeeping either.
const SEMANTIC_ANNOTATIONS = [QUEUE_NAME_LABEL, ELASTIC_JOB_ANNOTATION, ADMISSION_GATED_BY_ANNOTATION, PREBUILT_WORKLOAD_NAME];

/** What a rule's finding depends on besides its own field (the gang rule reports on the queue label). */
function causeFields(f: Finding, obj: RayObject): string[] {
  // Kueue's rules apply to queued (and elastic) objects: adding the label makes an old problem Kueue's.
  // Kueue's webhook validates the whole new object on update: any change to the spec can bring one of them in.
  if (f.source === 'kueue-webhook') return [f.field, 'spec', QUEUE_FIELD, `metadata.annotations[${ELASTIC_JOB_ANNOTATION}]`];
  if (f.rule !== 'gangCanEverFit') return [f.field];
  const cs = clusterSpecOf(obj);
  return [f.field, ...(cs ? [cs.path] : ['spec']), 'spec.submitterPodTemplate', 'spec.submissionMode'];
}

/** Worker groups without what the Ray autoscaler writes (replicas, scaleStrategy). */
export function withoutScale(groups: readonly unknown[]): unknown[] {
  return groups.map((g) => {
    if (!(Array.isArray(g) || isRecord(g))) return g; // a list in place of a group is rebuilt as an object too
    const rest: Record<string, unknown> = { ...g };
    delete rest.replicas;
    delete rest.scaleStrategy;
    return rest;
  });
}

/**
 * The object without what an update may always change: metadata other than the Kueue queue and
 * priority labels (and the queue annotation), status, the suspend fields Kueue flips, and, on an
 * autoscaling cluster, the worker replicas and scale strategy the Ray autoscaler writes.
 */
function semanticPart(value: unknown): unknown {
  // A list is walked like a JSON object here, as always (a list spec is spread into an object): Array.isArray || isRecord.
  if (!(Array.isArray(value) || isRecord(value))) return value;
  // A list is read by its keys (its indices), as a JSON object.
  const obj = value as Record<string, unknown>;
  const md = Array.isArray(obj.metadata) || isRecord(obj.metadata) ? obj.metadata as Record<string, unknown> : {};
  const pick = (m: unknown, keys: string[]) => {
    if (!(Array.isArray(m) || isRecord(m))) return [];
    const o = m as Record<string, unknown>;
    return keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]);
  };
  const spec: unknown = Array.isArray(obj.spec) || isRecord(obj.spec) ? { ...(obj.spec as Record<string, unknown>) } : obj.spec;
  if (isRecord(spec)) { // never a list: a list spec was spread into an object above
    delete spec.suspend;
    const config: unknown = spec.rayClusterConfig;
    if (Array.isArray(config) || isRecord(config)) {
      const copy: Record<string, unknown> = { ...(config as Record<string, unknown>) };
      spec.rayClusterConfig = copy;
      delete copy.suspend;
    }
    // Only the kind and the spec are read: the object as a RayObject.
    const cs = clusterSpecOf({ ...obj, spec });
    if (cs && cs.spec.enableInTreeAutoscaling === true && Array.isArray(cs.spec.workerGroupSpecs)) {
      const groups = withoutScale(cs.spec.workerGroupSpecs);
      if (cs.path === 'spec') spec.workerGroupSpecs = groups;
      else {
        const key = cs.path.split('.')[1];
        spec[key] = { ...(spec[key] as Record<string, unknown>), workerGroupSpecs: groups };
      }
    }
  }
  return {
    apiVersion: obj.apiVersion, kind: obj.kind, spec,
    labels: pick(md.labels, SEMANTIC_LABELS), annotations: pick(md.annotations, SEMANTIC_ANNOTATIONS),
    ...Object.fromEntries(Object.entries(obj).filter(([k]) => !['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(k))),
  };
}

/**
 * True when the update changes only bookkeeping: metadata (finalizers, annotations other than Kueue's
 * queue, elastic-job and admission-gated-by ones, labels other than Kueue's queue and priority labels, owner references), status, `spec.suspend` and
 * `spec.rayClusterConfig.suspend`, and an autoscaling cluster's worker replicas and scaleStrategy.
 * Such an update always passes: Kueue, KubeRay, the Ray autoscaler and the reconciler write these.
 */
export function bookkeepingOnlyUpdate(oldObj: unknown, newObj: unknown): boolean {
  return jsonEqual(semanticPart(oldObj), semanticPart(newObj));
}

export interface UpdateVerdict {
  /** Errors the update introduced on a field it changed: the update is denied for these. */
  readonly deny: readonly Finding[];
  /** Everything else found on the new object: errors already there or not caused by this update, and warnings. */
  readonly warn: readonly Finding[];
}

/**
 * Ratcheting: an error of the new object denies the update only when the old object did not have
 * it (same rule and field) and the update changed its field (for the gang rule, also the pod sets).
 * Other errors come back as warnings: nothing found is dropped. `transition` holds the findings on the
 * change itself (kueueWebhookOnUpdate): its errors always deny, since Kueue's webhook denies them too.
 * `kueueChecksUpdate` false (kueueValidatesUpdate) lets Kueue's rules pass, as Kueue's webhook does.
 */
export function ratchetUpdate(
  oldObj: RayObject, newObj: RayObject, oldFindings: readonly Finding[], newFindings: readonly Finding[], transition: readonly Finding[] = [],
  kueueChecksUpdate = true,
): UpdateVerdict {
  const before = new Set(oldFindings.filter((f) => f.severity === 'error').map((f) => `${f.rule}\u0000${f.field}`));
  // Findings about the transition itself (Kueue's immutable fields) deny whenever they are errors.
  const deny: Finding[] = transition.filter((f) => f.severity === 'error');
  const warn: Finding[] = transition.filter((f) => f.severity !== 'error');
  for (const f of newFindings) {
    // An update Kueue's webhook does not check (unqueued new object) is not denied for Kueue's rules either.
    const kueueSkips = f.source === 'kueue-webhook' && !kueueChecksUpdate;
    if (f.severity === 'error' && !kueueSkips && !before.has(`${f.rule}\u0000${f.field}`)
      && causeFields(f, newObj).some((p) => fieldChanged(oldObj, newObj, p))) deny.push(f);
    else warn.push(f);
  }
  return { deny, warn };
}
