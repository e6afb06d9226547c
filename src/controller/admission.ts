/**
 * Admission decisions for Ray objects, as pure functions of an AdmissionReview, the configured
 * versions and a view of the cluster (queues, quotas, tenants). The HTTPS server (server.ts) only
 * parses, calls these and serializes; the rules are the same policy functions the constructs run at
 * synth (src/policy).
 */
import {
  bookkeepingOnlyUpdate, childWriteFindings, DEFAULT_TRUSTED_WRITERS, evaluateRayObject, Finding, MAX_LIST_LENGTH, formatFinding, Inventory, isRecord,
  KubeRayCapabilities, KueueCapabilities, kueueValidatesUpdate, kueueWebhookOnUpdate, listOf, PolicyContext, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL,
  ratchetUpdate, RayObject, rayKindNamed, selectsExistingClusterOnly, suspendFieldAtCreate, tenantOf, tenantQueueLabel, trustedWriterRole,
  TrustedWriters,
} from '../policy';

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind?: { readonly group?: string; readonly version?: string; readonly kind?: string };
  readonly namespace?: string;
  readonly operation?: string;
  readonly object?: any;
  readonly oldObject?: any;
  /** Who sends the request: the skips are decided by this, never by what the object claims. */
  readonly userInfo?: { readonly username?: string; readonly groups?: readonly string[] };
  readonly dryRun?: boolean;
  /** "status" for a write of the status subresource. */
  readonly subResource?: string;
}

export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code: number; readonly reason?: string; readonly message: string };
  readonly warnings?: string[];
  readonly patchType?: 'JSONPatch';
  /** base64 of the JSON patch. */
  readonly patch?: string;
}

export interface AdmissionConfig {
  readonly kueue: KueueCapabilities;
  readonly kubeRay: KubeRayCapabilities;
  readonly elasticGate?: 'on' | 'off' | 'unknown';
  /**
   * Opt-in graceful preemption for Ray pods (kuberay#5004): pod templates without a
   * terminationGracePeriodSeconds get this one, and Ray containers without a preStop hook get a
   * `sleep` preStop so in-flight work can drain before the pod is killed.
   */
  readonly gracefulPreemption?: { readonly terminationGracePeriodSeconds: number; readonly preStopSleepSeconds: number };
  /**
   * KubeRay's, Kueue's and Kubernetes' controllers: their requests pass untouched.
   * @default DEFAULT_TRUSTED_WRITERS (the installs' ServiceAccounts)
   */
  readonly writers?: TrustedWriters;
}

/** What the controller knows about the cluster (filled by informers). */
export interface ClusterView {
  readonly inventory: Inventory;
}

/** The per-rule decision counts the metrics export. */
export interface Decision {
  readonly response: AdmissionResponse;
  readonly findings: readonly Finding[];
}

const MAX_WARNING = 480; // the API server truncates longer warnings

function deny(uid: string, message: string, code = 403, reason = 'Forbidden'): AdmissionResponse {
  return { uid, allowed: false, status: { code, reason, message } };
}

function isRayObject(req: AdmissionRequest): boolean {
  const kind = rayKindNamed(req.kind?.kind);
  return kind !== undefined && req.kind?.group === kind.group;
}

/** A request of KubeRay, Kueue, Kubernetes' controllers or the controller itself: never blocked, never changed. */
function fromTrustedWriter(req: AdmissionRequest, config: AdmissionConfig): boolean {
  const name = req.userInfo?.username;
  return typeof name === 'string' && trustedWriterRole(name, config.writers ?? DEFAULT_TRUSTED_WRITERS) !== undefined;
}

/** The object as the policy sees it: namespace filled from the request. */
function asRayObject(req: AdmissionRequest, obj: any = req.object): RayObject {
  const o = obj ?? {};
  return { ...o, metadata: { ...(o.metadata ?? {}), namespace: o.metadata?.namespace ?? req.namespace } };
}

/** Every rule, plus the final-state check that a tenant's object ended up with its queue label. */
function findingsOf(obj: RayObject, ctx: PolicyContext): Finding[] {
  return [...evaluateRayObject(obj, ctx), ...tenantQueueLabel(obj, ctx)];
}

/**
 * Validating webhook: the shared policy plus tenant rules and the final state (queue label). Denials
 * name the field and the fix. An UPDATE is judged as a transition (policy/admission.ts): bookkeeping
 * passes, and only an error the update introduced on a field it changed denies it; DELETE always passes.
 */
export function validateRayObject(req: AdmissionRequest, config: AdmissionConfig, view: ClusterView): Decision {
  if (!req.uid) return { response: deny('', 'the AdmissionReview has no request.uid', 400, 'BadRequest'), findings: [] };
  if (!isRayObject(req)) return { response: { uid: req.uid, allowed: true }, findings: [] };
  if (req.operation === 'DELETE' || req.operation === 'CONNECT') return { response: { uid: req.uid, allowed: true }, findings: [] };
  if (!req.object || typeof req.object !== 'object') return { response: deny(req.uid, 'request.object is missing', 400, 'BadRequest'), findings: [] };
  if (fromTrustedWriter(req, config)) return { response: { uid: req.uid, allowed: true }, findings: [] };
  if (req.subResource !== undefined && req.subResource !== '') {
    // Kueue reads a Ray object's status to tell it finished (and release its quota); only KubeRay writes it.
    const message = `${req.kind?.kind} ${req.namespace}/${req.object?.metadata?.name}: ${req.subResource}: only KubeRay's operator writes the ${req.subResource} of a Ray object (Kueue reads it to release the quota)`;
    return { response: deny(req.uid, `${message}. Fix: leave the ${req.subResource} to KubeRay [rayStatusWriter]`, 403, 'Forbidden'), findings: [] };
  }
  const update = req.operation === 'UPDATE' && req.oldObject && typeof req.oldObject === 'object';
  const obj = asRayObject(req);
  const old = update ? asRayObject(req, req.oldObject) : undefined;
  // A child of a RayJob or RayService: only its metadata is anyone else's to change.
  const child = childWriteFindings({ operation: update ? 'UPDATE' : 'CREATE', object: obj, oldObject: old, username: req.userInfo?.username }, config.writers ?? DEFAULT_TRUSTED_WRITERS);
  if (child.length) return { response: deny(req.uid, child.map(formatFinding).join('; '), 403, 'Forbidden'), findings: child };
  if (update && bookkeepingOnlyUpdate(req.oldObject, req.object)) return { response: { uid: req.uid, allowed: true }, findings: [] };
  const ctx: PolicyContext = { kueue: config.kueue, kubeRay: config.kubeRay, elasticGate: config.elasticGate, inventory: view.inventory, audience: 'tenant' };
  let findings = findingsOf(obj, ctx);
  if (old) {
    // Errors this update did not introduce on a field it changed are reported, as warnings.
    const transition = kueueWebhookOnUpdate(old, obj, ctx);
    const verdict = ratchetUpdate(old, obj, findingsOf(old, ctx), findings, transition, kueueValidatesUpdate(old, obj, ctx));
    findings = [...verdict.deny, ...verdict.warn.map((f): Finding => (f.severity === 'error' ? { ...f, severity: 'warning' } : f))];
  }
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning').map((f) => truncate(formatFinding(f)));
  if (errors.length) {
    const message = errors.map(formatFinding).join('; ');
    return { response: { ...deny(req.uid, message, 422, 'Invalid'), ...(warnings.length ? { warnings } : {}) }, findings };
  }
  return { response: { uid: req.uid, allowed: true, ...(warnings.length ? { warnings } : {}) }, findings };
}

function truncate(s: string): string {
  return s.length > MAX_WARNING ? `${s.slice(0, MAX_WARNING - 1)}…` : s;
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Mutating webhook (CREATE): tenant defaults (queue-name and priority-class for a tenant namespace),
 * `suspend: true` whenever it adds the queue label (Kueue's own webhook may already have run: mutating
 * configurations run in name order), and opt-in graceful-preemption defaults. Documented patches
 * only; what KubeRay, Kueue and Kubernetes' controllers create is never touched (decided by the
 * requesting user, not by labels or owner references the object carries).
 */
export function mutateRayObject(req: AdmissionRequest, config: AdmissionConfig, view: ClusterView): Decision {
  if (!req.uid) return { response: deny('', 'the AdmissionReview has no request.uid', 400, 'BadRequest'), findings: [] };
  if (!isRayObject(req) || req.operation !== 'CREATE') return { response: { uid: req.uid, allowed: true }, findings: [] };
  const obj = req.object;
  if (!obj || typeof obj !== 'object') return { response: deny(req.uid, 'request.object is missing', 400, 'BadRequest'), findings: [] };
  if (fromTrustedWriter(req, config)) return { response: { uid: req.uid, allowed: true }, findings: [] };
  const ops: any[] = [];
  const labels = isRecord(obj.metadata?.labels) ? obj.metadata.labels : undefined;
  const tenant = tenantOf(view.inventory, obj.metadata?.namespace ?? req.namespace);
  const addLabel = (k: string, v: string) => {
    if (!labels && !ops.some((o) => o.path === '/metadata/labels')) ops.push({ op: 'add', path: '/metadata/labels', value: {} });
    ops.push({ op: 'add', path: `/metadata/labels/${esc(k)}`, value: v });
  };
  // Before 0.15 Kueue also reads the queue name from the annotation; from 0.15 only the label counts, so
  // the label is added whatever the annotation says (the validating webhook warns that it is ignored).
  const annotated = config.kueue.queueNameAnnotation && typeof obj.metadata?.annotations?.[QUEUE_NAME_LABEL] === 'string' && obj.metadata.annotations[QUEUE_NAME_LABEL] !== '';
  // A RayJob on an existing cluster is not Kueue's (it makes no Workload): with a queue label Kueue's own
  // webhook would suspend it for good, and KubeRay refuses a suspended clusterSelector RayJob.
  const onExistingCluster = selectsExistingClusterOnly(obj, config.kueue.rayJobClusterSelectorRules);
  const labelsWritable = labels !== undefined || obj.metadata?.labels === undefined;
  if (tenant?.queue && !onExistingCluster && !labels?.[QUEUE_NAME_LABEL] && !annotated && labelsWritable) {
    addLabel(QUEUE_NAME_LABEL, tenant.queue.name);
    for (const op of suspendOps(obj, req.kind!.kind!, config)) ops.push(op);
  }
  if (tenant?.rules.defaultPriorityClass && !labels?.[PRIORITY_CLASS_LABEL] && labelsWritable) {
    addLabel(PRIORITY_CLASS_LABEL, tenant.rules.defaultPriorityClass);
  }
  // No spread: a cluster with 100,000 worker groups gives 300,000 operations, past push(...)'s argument limit.
  if (config.gracefulPreemption) for (const op of gracefulOps(obj, req.kind!.kind!, config.gracefulPreemption)) ops.push(op);
  if (!ops.length) return { response: { uid: req.uid, allowed: true }, findings: [] };
  return { response: { uid: req.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') }, findings: [] };
}

function suspendOps(obj: any, kind: string, config: AdmissionConfig): any[] {
  const autoscaling = (rayKindNamed(kind)?.clusterSpecValue(obj) as any)?.enableInTreeAutoscaling === true;
  const field = suspendFieldAtCreate(kind, autoscaling, config.kueue);
  if (!field) return [];
  const parent = field.split('.').slice(0, -1).reduce((o: any, k) => o?.[k], obj);
  if (!isRecord(parent)) return [];
  return [{ op: 'add', path: `/${field.replace(/\./g, '/')}`, value: true }];
}

function gracefulOps(obj: any, kind: string, g: { terminationGracePeriodSeconds: number; preStopSleepSeconds: number }): any[] {
  const adapter = rayKindNamed(kind);
  if (!adapter) return [];
  const base = `/${adapter.clusterSpecPath.replace(/\./g, '/')}`;
  const cluster: any = adapter.clusterSpecValue(obj);
  // Only well-typed parts are patched: a patch into a field of the wrong type would fail the create with
  // a JSON-patch error instead of the schema's message.
  if (!isRecord(cluster)) return [];
  // Past the bound the validating webhook refuses the object (objectShape), and the patch would be
  // megabytes (three operations per worker group): no defaults are added.
  if (listOf(cluster.workerGroupSpecs).length > MAX_LIST_LENGTH) return [];
  const ops: any[] = [];
  const templates: Array<[string, any]> = [[`${base}/headGroupSpec/template`, cluster.headGroupSpec?.template]];
  listOf(cluster.workerGroupSpecs).forEach((g2: any, i: number) => templates.push([`${base}/workerGroupSpecs/${i}/template`, g2?.template]));
  for (const [p, t] of templates) {
    if (!isRecord(t?.spec)) continue;
    if (t.spec.terminationGracePeriodSeconds === undefined) ops.push({ op: 'add', path: `${p}/spec/terminationGracePeriodSeconds`, value: g.terminationGracePeriodSeconds });
    const c0 = listOf(t.spec.containers)[0];
    if (isRecord(c0) && (c0.lifecycle === undefined || isRecord(c0.lifecycle)) && !c0.lifecycle?.preStop) {
      if (!c0.lifecycle) ops.push({ op: 'add', path: `${p}/spec/containers/0/lifecycle`, value: {} });
      ops.push({ op: 'add', path: `${p}/spec/containers/0/lifecycle/preStop`, value: { exec: { command: ['/bin/sh', '-c', `sleep ${g.preStopSleepSeconds}`] } } });
    }
  }
  return ops;
}
