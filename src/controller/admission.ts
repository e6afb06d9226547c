/**
 * The wire format of the admission decisions: an AdmissionReview's request in, an AdmissionResponse
 * out (uid, HTTP status, base64 JSON patch). The decisions themselves are the policy's
 * (src/policy/decide.ts: admissionDefaults, admissionVerdict), the same policy the constructs run at
 * synth and the CLI runs in `check`.
 */
import {
  AdmissionContext, admissionDefaults, AdmissionSettings, admissionVerdict, Defaulting, Finding, Inventory, podTemplateKindOf, podVerdict,
  preStopSleep, rayKindNamed, Verdict,
} from '../policy';

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind?: { readonly group?: string; readonly version?: string; readonly kind?: string };
  readonly namespace?: string;
  readonly operation?: string;
  /** The object as written: whatever JSON the user sent (the API server has not checked it against the CRD yet). */
  readonly object?: unknown;
  readonly oldObject?: unknown;
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

/** The controller's flags (versions, elastic gate, graceful preemption, trusted writers). */
export type AdmissionConfig = AdmissionSettings;

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

/**
 * Validating webhook: the policy's verdict (admissionVerdict for Ray objects, podVerdict for pods and
 * pod-making workloads), as an AdmissionResponse. Denials name the field and the fix: 403 for a write only others may make, 422 for an object that breaks a rule.
 */
export function validateRayObject(req: AdmissionRequest, config: AdmissionConfig, view: ClusterView): Decision {
  if (!req.uid) return { response: deny('', 'the AdmissionReview has no request.uid', 400, 'BadRequest'), findings: [] };
  if (req.operation === 'DELETE' || req.operation === 'CONNECT') return { response: { uid: req.uid, allowed: true }, findings: [] };
  // Pods and pod-making workloads (the Ray pods webhook): only KubeRay labels a pod as a Ray node.
  const ray = isRayObject(req);
  const podKind = ray ? undefined : podTemplateKindOf(req.kind?.group, req.kind?.kind);
  if (!ray && !podKind) return { response: { uid: req.uid, allowed: true }, findings: [] };
  if (!req.object || typeof req.object !== 'object') return { response: deny(req.uid, 'request.object is missing', 400, 'BadRequest'), findings: [] };
  const v: Verdict = podKind ? podVerdict(podKind, req.object, req.oldObject, req.operation, contextOf(config, view), requester(req))
    : admissionVerdict(req.object, req.oldObject, req.operation, contextOf(config, view), requester(req));
  const warnings = v.warnings.map(truncate);
  const withWarnings = warnings.length ? { warnings } : {};
  if (v.outcome === 'forbidden') return { response: deny(req.uid, v.message ?? '', 403, 'Forbidden'), findings: v.findings };
  if (v.outcome === 'invalid') {
    const denial = deny(req.uid, v.message ?? '', 422, 'Invalid');
    // Keys listed, not spread: a spread followed by a new key is slow in Node 20.
    const response = warnings.length ? { uid: denial.uid, allowed: denial.allowed, status: denial.status, warnings } : denial;
    return { response, findings: v.findings };
  }
  return { response: { uid: req.uid, allowed: true, ...withWarnings }, findings: v.findings };
}

/**
 * The decision context of a view: the flags plus the inventory, built once per inventory snapshot. In Node 20
 * `{ ...config, inventory }` costs about 0.5 µs and gives every result its own hidden class, which makes each
 * later read of it slow too.
 */
const CONTEXTS = new WeakMap<Inventory, { readonly config: AdmissionConfig; readonly ctx: AdmissionContext }>();

function contextOf(config: AdmissionConfig, view: ClusterView): AdmissionContext {
  const hit = CONTEXTS.get(view.inventory);
  if (hit && hit.config === config) return hit.ctx;
  const ctx = { ...config, inventory: view.inventory };
  CONTEXTS.set(view.inventory, { config, ctx });
  return ctx;
}

function requester(req: AdmissionRequest) {
  return { username: req.userInfo?.username, namespace: req.namespace, subResource: req.subResource, kind: req.kind?.kind };
}

function truncate(s: string): string {
  return s.length > MAX_WARNING ? `${s.slice(0, MAX_WARNING - 1)}…` : s;
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** A dotted field path (`spec.rayClusterSpec.workerGroupSpecs[0].template`) as a JSON pointer. */
const pointer = (field: string) => `/${field.replace(/\[(\d+)\]/g, '.$1').split('.').map(esc).join('/')}`;

/**
 * `f` remembering its answers: the patches name the same few label keys and fields over and over. Only short
 * inputs, and a bounded number, are kept (a tenant can write arbitrarily many long ones).
 */
function remembered(f: (s: string) => string): (s: string) => string {
  const answers = new Map<string, string>();
  return (s) => {
    let v = answers.get(s);
    if (v === undefined) {
      v = f(s);
      if (answers.size < 1000 && s.length <= 256) answers.set(s, v);
    }
    return v;
  };
}

const escapedKey = remembered(esc);
const pointerOf = remembered(pointer);

/**
 * Mutating webhook (CREATE): the policy's defaults (admissionDefaults) as a JSON patch of documented
 * add operations only.
 */
export function mutateRayObject(req: AdmissionRequest, config: AdmissionConfig, view: ClusterView): Decision {
  if (!req.uid) return { response: deny('', 'the AdmissionReview has no request.uid', 400, 'BadRequest'), findings: [] };
  if (!isRayObject(req) || req.operation !== 'CREATE') return { response: { uid: req.uid, allowed: true }, findings: [] };
  const obj = req.object;
  if (!obj || typeof obj !== 'object') return { response: deny(req.uid, 'request.object is missing', 400, 'BadRequest'), findings: [] };
  const ops = patchOf(obj, admissionDefaults(obj, req.operation, contextOf(config, view), requester(req)));
  if (!ops.length) return { response: { uid: req.uid, allowed: true }, findings: [] };
  return { response: { uid: req.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') },
    findings: [] };
}

/** One operation of the mutating webhook's JSON patch: only `add` is ever written. */
interface PatchOperation {
  readonly op: 'add';
  readonly path: string;
  readonly value: unknown;
}

/** The JSON patch of a Defaulting. No spread: a cluster with 100,000 worker groups gives 300,000 operations, past push(...)'s argument limit. */
function patchOf(obj: { readonly metadata?: { readonly labels?: unknown } }, d: Defaulting): PatchOperation[] {
  const ops: PatchOperation[] = [];
  if (d.labels.length && obj.metadata?.labels === undefined) ops.push({ op: 'add', path: '/metadata/labels', value: {} });
  for (const l of d.labels) ops.push({ op: 'add', path: `/metadata/labels/${escapedKey(l.key)}`, value: l.value });
  if (d.suspend) ops.push({ op: 'add', path: pointerOf(d.suspend), value: true });
  for (const t of d.podTemplates) {
    const p = pointerOf(t.template);
    if (t.terminationGracePeriodSeconds !== undefined) ops.push({ op: 'add', path: `${p}/spec/terminationGracePeriodSeconds`,
      value: t.terminationGracePeriodSeconds });
    if (t.preStopSleepSeconds !== undefined) {
      if (t.createLifecycle) ops.push({ op: 'add', path: `${p}/spec/containers/0/lifecycle`, value: {} });
      ops.push({ op: 'add', path: `${p}/spec/containers/0/lifecycle/preStop`, value: preStopSleep(t.preStopSleepSeconds) });
    }
  }
  return ops;
}
