/**
 * Admission decisions for Ray objects, as data: the defaulter (what the mutating webhook adds on
 * CREATE) and the validator (what the validating webhook allows), apart from the wire format, as
 * Kueue's jobframework/webhook keeps Default and ValidateCreate/ValidateUpdate apart from
 * controller-runtime's plumbing, and as Pepr hands its handlers a request. The controller turns a
 * decision into an AdmissionResponse (uid, base64 JSON patch, HTTP status); the CLI calls it directly.
 * Pure.
 */
import { bookkeepingOnlyUpdate, ratchetUpdate, tenantQueueLabel } from './admission';
import { Inventory, PolicyContext } from './context';
import { evaluateRayObject } from './evaluate';
import { Finding, formatFinding } from './findings';
import { isRecord, listOf } from './json';
import { withKueueDefaults } from './kueue-defaults';
import { PodTemplateJson, RayClusterSpecJson, RayObject, rayKindNamed, skipsKueue, SuspendField } from './kinds';
import { namespaceOf, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL } from './ray-object';
import { kueueValidatesUpdate, kueueWebhookOnUpdate } from './rules/kueue-webhook';
import { onlyKubeRayMakesRayPods, PodTemplateKind } from './rules/kuberay-pod-claims';
import { onlyKueueUnsuspends } from './rules/kueue-unsuspend';
import { MAX_LIST_LENGTH } from './rules/object-shape';
import { tenantOf } from './tenant';
import { KubeRayCapabilities, KueueCapabilities } from './versions';
import { childWriteFindings, DEFAULT_TRUSTED_WRITERS, trustedWriterRole, TrustedWriters } from './writers';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * Opt-in graceful preemption for Ray pods (kuberay#5004): pod templates without a
 * terminationGracePeriodSeconds get this one, and Ray containers without a preStop hook get a
 * `sleep` preStop so in-flight work can drain before the pod is killed.
 */
export interface GracefulPreemption {
  readonly terminationGracePeriodSeconds: number;
  readonly preStopSleepSeconds: number;
}

/** What the admission decisions are configured with (the controller's flags). */
export interface AdmissionSettings {
  readonly kueue: KueueCapabilities;
  readonly kubeRay: KubeRayCapabilities;
  readonly elasticGate?: 'on' | 'off' | 'unknown';
  readonly gracefulPreemption?: GracefulPreemption;
  /**
   * KubeRay's, Kueue's and Kubernetes' controllers: their requests pass untouched.
   * @default DEFAULT_TRUSTED_WRITERS (the installs' ServiceAccounts)
   */
  readonly writers?: TrustedWriters;
}

/** The settings and what is known of the cluster (queues, quotas, tenants). */
export interface AdmissionContext extends AdmissionSettings {
  readonly inventory: Inventory;
}

/** The parts of an admission request a decision reads besides the objects and the operation. */
export interface AdmissionRequester {
  /** Who sends the request: the skips are decided by this, never by what the object claims. */
  readonly username?: string;
  /** The request's namespace, for an object that names none. */
  readonly namespace?: string;
  /** "status" for a write of the status subresource. */
  readonly subResource?: string;
  /** The kind the request is for. @default the object's kind */
  readonly kind?: string;
}

export interface Verdict {
  /** 'forbidden': a write only others may make (HTTP 403); 'invalid': the object breaks a rule (422). */
  readonly outcome: 'allowed' | 'forbidden' | 'invalid';
  /** Why it is denied, with the field, the fix and the rule. */
  readonly message?: string;
  /** The warning findings, formatted (a denial may carry some too). */
  readonly warnings: readonly string[];
  /** Every finding the decision was taken on (for the per-rule metrics). */
  readonly findings: readonly Finding[];
}

export interface LabelDefault {
  readonly key: string;
  readonly value: string;
}

/** Graceful-preemption defaults for one pod template. */
export interface PodTemplateDefault {
  /** The pod template, e.g. `spec.rayClusterSpec.workerGroupSpecs[0].template`. */
  readonly template: string;
  /** Set spec.terminationGracePeriodSeconds. */
  readonly terminationGracePeriodSeconds?: number;
  /** Give the first container a `sleep` preStop hook of this many seconds. */
  readonly preStopSleepSeconds?: number;
  /** The first container has no lifecycle yet: it is created for the preStop hook. */
  readonly createLifecycle?: boolean;
}

/** What the mutating webhook adds to a new object, in the order it adds it. */
export interface Defaulting {
  /** Labels to add (the queue name, then the priority class). */
  readonly labels: readonly LabelDefault[];
  /** The suspend field set to true, with the queue label. */
  readonly suspend?: SuspendField;
  readonly podTemplates: readonly PodTemplateDefault[];
}

/** Both decisions for one request, as the API server takes them: defaults first, then validation of the defaulted object. */
export interface AdmissionDecision {
  readonly defaulting: Defaulting;
  /** The object with the defaults applied. */
  readonly object: RayObject;
  readonly verdict: Verdict;
}

const NO_DEFAULTS: Defaulting = { labels: [], podTemplates: [] };

/** A request of KubeRay, Kueue, Kubernetes' controllers or the controller itself: never blocked, never changed. */
export function fromTrustedWriter(request: AdmissionRequester, settings: Pick<AdmissionSettings, 'writers'>): boolean {
  const name = request.username;
  return typeof name === 'string' && trustedWriterRole(name, settings.writers ?? DEFAULT_TRUSTED_WRITERS) !== undefined;
}

/** The object as the policy sees it: namespace filled from the request. */
function withNamespace(obj: unknown, namespace: string | undefined): RayObject {
  // Read as a Ray object: the rules check the type of every field they use (objectShape reports a wrong one).
  const o = (obj ?? {}) as RayObject;
  return { ...o, metadata: { ...(o.metadata ?? {}), namespace: o.metadata?.namespace ?? namespace } };
}

/** Every rule, plus the final-state check that a tenant's object ended up with its queue label. */
function findingsOf(obj: RayObject, ctx: PolicyContext): Finding[] {
  return [...evaluateRayObject(obj, ctx), ...tenantQueueLabel(obj, ctx)];
}

const allowed = (findings: readonly Finding[] = [], warnings: readonly string[] = []): Verdict => ({ outcome: 'allowed', warnings, findings });

/**
 * The validator: the shared policy plus tenant rules and the final state (queue label). An UPDATE is
 * judged as a transition (admission.ts): bookkeeping passes, and only an error the update introduced
 * on a field it changed denies it, except that only Kueue turns a queued tenant object's suspend off
 * (kueue-unsuspend.ts); DELETE and CONNECT always pass.
 */
export function admissionVerdict(
  obj: unknown, oldObj: unknown, operation: string | undefined, ctx: AdmissionContext, request: AdmissionRequester = {},
): Verdict {
  if (operation === 'DELETE' || operation === 'CONNECT') return allowed();
  if (fromTrustedWriter(request, ctx)) return allowed();
  if (request.subResource !== undefined && request.subResource !== '') {
    // Kueue reads a Ray object's status to tell it finished (and release its quota); only KubeRay writes it.
    const sub = request.subResource;
    const named = obj as RayObject | null | undefined; // only printed
    const message = `${request.kind ?? named?.kind} ${request.namespace}/${named?.metadata?.name}: ${sub}: only KubeRay's operator writes `
      + `the ${sub} of a Ray object (Kueue reads it to release the quota)`;
    return { outcome: 'forbidden', message: `${message}. Fix: leave the ${sub} to KubeRay [rayStatusWriter]`, warnings: [], findings: [] };
  }
  const update = operation === 'UPDATE' && oldObj && typeof oldObj === 'object';
  const object = withNamespace(obj, request.namespace);
  const old = update ? withNamespace(oldObj, request.namespace) : undefined;
  // A child of a RayJob or RayService: only its metadata is anyone else's to change.
  const writers = ctx.writers ?? DEFAULT_TRUSTED_WRITERS;
  const child = childWriteFindings({ operation: update ? 'UPDATE' : 'CREATE', object, oldObject: old, username: request.username }, writers);
  if (child.length) return { outcome: 'forbidden', message: child.map(formatFinding).join('; '), warnings: [], findings: child };
  // Before the bookkeeping pass: suspend is bookkeeping for Kueue's flips, but turning it off is Kueue's alone.
  const unsuspend = old ? onlyKueueUnsuspends({ oldObject: old, object, username: request.username },
    { kueue: ctx.kueue, kubeRay: ctx.kubeRay, inventory: ctx.inventory, writers }) : [];
  if (unsuspend.length) return { outcome: 'forbidden', message: unsuspend.map(formatFinding).join('; '), warnings: [], findings: unsuspend };
  if (update && bookkeepingOnlyUpdate(oldObj, obj)) return allowed();
  const policy: PolicyContext = { kueue: ctx.kueue, kubeRay: ctx.kubeRay, elasticGate: ctx.elasticGate, inventory: ctx.inventory,
    audience: 'tenant' };
  let findings = findingsOf(object, policy);
  if (old) {
    // Errors this update did not introduce on a field it changed are reported, as warnings.
    const transition = kueueWebhookOnUpdate(old, object, policy);
    const verdict = ratchetUpdate(old, object, findingsOf(old, policy), findings, transition, kueueValidatesUpdate(old, object, policy));
    findings = [...verdict.deny, ...verdict.warn.map((f): Finding => (f.severity === 'error' ? { ...f, severity: 'warning' } : f))];
  }
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning').map(formatFinding);
  if (errors.length) return { outcome: 'invalid', message: errors.map(formatFinding).join('; '), warnings, findings };
  return allowed(findings, warnings);
}

/**
 * The validator for pods and pod-making workloads in tenant namespaces: only KubeRay's operator (and
 * Kubernetes' controllers, from a template judged here) writes KubeRay's labels on a pod
 * (kuberay-pod-claims.ts). Every other write of such an object passes, deletion above all.
 */
export function podVerdict(
  kind: PodTemplateKind, obj: unknown, oldObj: unknown, operation: string | undefined, ctx: AdmissionContext,
  request: AdmissionRequester = {},
): Verdict {
  if (operation !== 'CREATE' && operation !== 'UPDATE') return allowed();
  if (request.subResource !== undefined && request.subResource !== '') return allowed();
  const findings = onlyKubeRayMakesRayPods({ kind, object: obj, oldObject: operation === 'UPDATE' ? oldObj : undefined,
    username: request.username, namespace: request.namespace }, { inventory: ctx.inventory, writers: ctx.writers ?? DEFAULT_TRUSTED_WRITERS });
  if (findings.length) return { outcome: 'forbidden', message: findings.map(formatFinding).join('; '), warnings: [], findings };
  return allowed();
}

/**
 * The defaulter (CREATE): tenant defaults (queue-name and priority-class for a tenant namespace),
 * `suspend: true` whenever it adds the queue label (Kueue's own webhook may already have run: mutating
 * configurations run in name order), and opt-in graceful-preemption defaults. What KubeRay, Kueue and
 * Kubernetes' controllers create is never touched (decided by the requesting user, not by labels or
 * owner references the object carries).
 */
export function admissionDefaults(
  input: unknown, operation: string | undefined, ctx: AdmissionContext, request: AdmissionRequester = {},
): Defaulting {
  if (operation !== 'CREATE' || !input || typeof input !== 'object' || fromTrustedWriter(request, ctx)) return NO_DEFAULTS;
  // A JSON object, read as a Ray object: each field read below is checked first.
  const obj = input as RayObject;
  const kind = request.kind ?? obj.kind;
  const labels = isRecord(obj.metadata?.labels) ? obj.metadata.labels : undefined;
  const tenant = tenantOf(ctx.inventory, obj.metadata?.namespace ?? request.namespace);
  const added: LabelDefault[] = [];
  let suspend: SuspendField | undefined;
  // Before 0.15 Kueue also reads the queue name from the annotation; from 0.15 only the label counts, so
  // the label is added whatever the annotation says (the validating webhook warns that it is ignored).
  const annotated = ctx.kueue.queueNameAnnotation && typeof obj.metadata?.annotations?.[QUEUE_NAME_LABEL] === 'string'
    && obj.metadata.annotations[QUEUE_NAME_LABEL] !== '';
  // A RayJob on an existing cluster is not Kueue's (it makes no Workload): with a queue label Kueue's own
  // webhook would suspend it for good, and KubeRay refuses a suspended clusterSelector RayJob.
  const onExistingCluster = skipsKueue(obj, ctx.kueue);
  const labelsWritable = labels !== undefined || obj.metadata?.labels === undefined;
  if (tenant?.queue && !onExistingCluster && !labels?.[QUEUE_NAME_LABEL] && !annotated && labelsWritable) {
    added.push({ key: QUEUE_NAME_LABEL, value: tenant.queue.name });
    suspend = suspendAtCreate(obj, kind, ctx.kueue);
  }
  if (tenant?.rules.defaultPriorityClass && !labels?.[PRIORITY_CLASS_LABEL] && labelsWritable) {
    added.push({ key: PRIORITY_CLASS_LABEL, value: tenant.rules.defaultPriorityClass });
  }
  const podTemplates = ctx.gracefulPreemption ? gracefulDefaults(obj, kind, ctx.gracefulPreemption) : [];
  if (!added.length && !suspend && !podTemplates.length) return NO_DEFAULTS;
  // Keys in the order the interface lists them; a conditional spread between literal keys is slow in Node 20.
  return suspend ? { labels: added, suspend, podTemplates } : { labels: added, podTemplates };
}

/** The suspend field to set, when its parent is a JSON object (a patch below a field of the wrong type would fail the create). */
function suspendAtCreate(obj: RayObject, kind: string | undefined, kueue: KueueCapabilities): SuspendField | undefined {
  const adapter = rayKindNamed(kind);
  const spec = adapter?.clusterSpecValue(obj);
  const autoscaling = isRecord(spec) && spec.enableInTreeAutoscaling === true;
  const field = adapter ? adapter.suspendFieldAtCreate(autoscaling, kueue) : 'spec.suspend';
  if (!field) return undefined;
  // The fields on the way are read only in JSON objects (a list or a scalar has none of these keys).
  const parent = field.split('.').slice(0, -1).reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), obj);
  return isRecord(parent) ? field : undefined;
}

function gracefulDefaults(obj: RayObject, kind: string | undefined, g: GracefulPreemption): PodTemplateDefault[] {
  const adapter = rayKindNamed(kind);
  if (!adapter) return [];
  const base = adapter.clusterSpecPath;
  const spec = adapter.clusterSpecValue(obj);
  // Only well-typed parts are defaulted: a patch into a field of the wrong type would fail the create with
  // a JSON-patch error instead of the schema's message.
  if (!isRecord(spec)) return [];
  const cluster = spec as RayClusterSpecJson;
  // Past the bound the validating webhook refuses the object (objectShape), and the patch would be
  // megabytes (three operations per worker group): no defaults are added.
  if (listOf(cluster.workerGroupSpecs).length > MAX_LIST_LENGTH) return [];
  const templates: Array<[string, PodTemplateJson | undefined]> = [[`${base}.headGroupSpec.template`, cluster.headGroupSpec?.template]];
  listOf(cluster.workerGroupSpecs).forEach((group, i) => templates.push([`${base}.workerGroupSpecs[${i}].template`, group?.template]));
  const out: PodTemplateDefault[] = [];
  for (const [template, t] of templates) {
    if (!isRecord(t?.spec)) continue;
    const grace = t.spec.terminationGracePeriodSeconds === undefined;
    const c0 = listOf(t.spec.containers)[0];
    const preStop = isRecord(c0) && (c0.lifecycle === undefined || isRecord(c0.lifecycle)) && !c0.lifecycle?.preStop;
    if (!grace && !preStop) continue;
    out.push({
      template,
      ...(grace ? { terminationGracePeriodSeconds: g.terminationGracePeriodSeconds } : {}),
      ...(preStop ? { preStopSleepSeconds: g.preStopSleepSeconds, ...(c0.lifecycle ? {} : { createLifecycle: true }) } : {}),
    });
  }
  return out;
}

/** The preStop hook graceful preemption gives a Ray container. */
export function preStopSleep(seconds: number): { exec: { command: string[] } } {
  return { exec: { command: ['/bin/sh', '-c', `sleep ${seconds}`] } };
}

/** The object with the defaults applied (a copy; the input is not changed). */
export function applyDefaulting(obj: RayObject, d: Defaulting): RayObject {
  if (!d.labels.length && !d.suspend && !d.podTemplates.length) return obj;
  const copy = JSON.parse(JSON.stringify(obj)) as WritableJson;
  if (d.labels.length) {
    const metadata: WritableJson = isRecord(copy.metadata) ? copy.metadata : {};
    copy.metadata = metadata;
    const labels: WritableJson = isRecord(metadata.labels) ? metadata.labels : {};
    metadata.labels = labels;
    for (const l of d.labels) labels[l.key] = l.value;
  }
  if (d.suspend) {
    const keys = d.suspend.split('.');
    objectAt(copy, keys.slice(0, -1))[keys[keys.length - 1]] = true;
  }
  for (const t of d.podTemplates) {
    const template = objectAt(copy, t.template.replace(/\[(\d+)\]/g, '.$1').split('.'));
    if (t.terminationGracePeriodSeconds !== undefined) {
      (template.spec as WritableJson).terminationGracePeriodSeconds = t.terminationGracePeriodSeconds;
    }
    if (t.preStopSleepSeconds !== undefined) {
      const c0 = ((template.spec as WritableJson).containers as WritableJson[])[0];
      if (t.createLifecycle) c0.lifecycle = {};
      (c0.lifecycle as WritableJson).preStop = preStopSleep(t.preStopSleepSeconds);
    }
  }
  return copy;
}

/** A copy of user JSON that applyDefaulting writes into. */
type WritableJson = Record<string, unknown>;

/**
 * The value at `keys` below `root`, read as a JSON object: applyDefaulting writes only where admissionDefaults
 * found JSON objects (anything else throws the TypeError of reading or writing a field of undefined).
 */
function objectAt(root: WritableJson, keys: readonly string[]): WritableJson {
  return keys.reduce((o, k) => o[k] as WritableJson, root);
}

/**
 * Both decisions for a request, in the API server's order: the defaulter on the object, then the
 * validator on the defaulted object (what `cdk8s-kueue-ray check` reports for a tenant's object).
 */
export function decide(
  obj: unknown, oldObj: unknown, operation: AdmissionOperation, ctx: AdmissionContext, request: AdmissionRequester = {},
): AdmissionDecision {
  const defaulting = admissionDefaults(obj, operation, ctx, request);
  // Defaults are added only to a JSON object; anything else comes back as it was given.
  const object = applyDefaulting(obj as RayObject, defaulting);
  return { defaulting, object, verdict: admissionVerdict(object, oldObj, operation, ctx, request) };
}

/** A new object as the webhooks leave it, and what each added. */
export interface Created {
  readonly obj: RayObject;
  /** Labels the controller's mutating webhook added (the TenantQueue's defaults, decide.ts). */
  readonly ours: readonly LabelDefault[];
  /** The queue Kueue's webhook defaulted, if it did. */
  readonly kueueQueue?: string;
}

/**
 * A CREATE as the API server runs the mutating webhooks: ours first (configurations run in name order),
 * then Kueue's. `check` judges, and `plan` schedules, the object this returns.
 */
export function asCreated(obj: RayObject, ctx: AdmissionContext): Created {
  const d = admissionDefaults(obj, 'CREATE', ctx, { namespace: namespaceOf(obj), kind: obj.kind as string });
  const k = withKueueDefaults(applyDefaulting(obj, d), ctx.kueue, ctx.inventory);
  return { obj: k.obj, ours: d.labels, kueueQueue: k.queue };
}
