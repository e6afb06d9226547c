/**
 * One AdmissionReview body in, one HTTP answer out: parse, check the envelope, decide (admission.ts),
 * serialize. The server runs it on its own thread or, by default, in the admission workers
 * (admission-pool.ts); both give the same answer for the same body.
 */
import { isRecord } from '../policy';
import { AdmissionConfig, AdmissionRequest, AdmissionResponse, ClusterView, Decision, mutateRayObject, validateRayObject } from './admission';

export type Webhook = 'mutate' | 'validate';

/** What the server sends back, plus what the metrics count. */
export interface ReviewOutcome {
  readonly status: number;
  readonly body: string;
  /** allowed | mutated | denied, or undefined when the body was not a usable AdmissionReview. */
  readonly verdict?: 'allowed' | 'mutated' | 'denied';
  /** "severity rule" for every finding, for the decisions-by-rule metric. */
  readonly rules: readonly string[];
  /** Set when a policy function threw: the request is denied with the reason and the server logs it. */
  readonly internalError?: string;
  /** The request's uid, when internalError is set (to find the request in the API server's audit log). */
  readonly uid?: string;
}

/** An HTTP error answer (no AdmissionReview): 400 for an unusable body, 500 when no decision could be made. */
export const errorOutcome = (status: number, message: string): ReviewOutcome => ({ status, body: JSON.stringify({ message }), rules: [] });

const OPERATIONS: readonly unknown[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** A request whose envelope envelopeProblem found sound: its uid a string, its kind a {group, version, kind} of strings. */
type Envelope = AdmissionRequest & { readonly kind: { readonly group: string; readonly version: string; readonly kind: string } };

/**
 * What is wrong with the request's envelope, before any of it is used: the fields the API server always
 * sets, with their types. A uid that is not a short string cannot be echoed back (the API server
 * rejects a response with another uid), so such a review gets an HTTP error.
 */
function envelopeProblem(r: Record<string, unknown>): string | undefined {
  if (typeof r.uid !== 'string' || r.uid === '' || r.uid.length > 128) return 'request.uid must be a non-empty string of at most 128 characters';
  const k = r.kind;
  if (!isRecord(k) || typeof k.group !== 'string' || typeof k.version !== 'string' || typeof k.kind !== 'string') return 'request.kind must be a '
    + '{group, version, kind} of strings';
  if (!OPERATIONS.includes(r.operation)) return `request.operation must be one of ${OPERATIONS.join(', ')}`;
  if (r.namespace !== undefined && r.namespace !== null && typeof r.namespace !== 'string') return 'request.namespace must be a string';
  if (r.subResource !== undefined && r.subResource !== null && typeof r.subResource !== 'string') return 'request.subResource must be a string';
  for (const f of ['object', 'oldObject']) if (r[f] !== undefined && r[f] !== null && !isRecord(r[f])) return `request.${f} must be an object`;
  return undefined;
}

/**
 * The object must be of the kind the request names: the policy picks its rules by object.kind and the
 * webhook's scope by request.kind, so a disagreement would let an object through with no rule run.
 */
function kindProblem(r: Envelope): string | undefined {
  for (const f of ['object', 'oldObject'] as const) {
    const o = r[f];
    if (!isRecord(o)) continue;
    const apiVersion = r.kind.group ? `${r.kind.group}/${r.kind.version}` : r.kind.version;
    if (o.kind !== r.kind.kind || o.apiVersion !== apiVersion) {
      return `request.${f} is ${typeof o.kind === 'string' ? o.kind.slice(0, 64) : 'of no kind'} `
        + `${typeof o.apiVersion === 'string' ? o.apiVersion.slice(0, 64) : '(no apiVersion)'}, but request.kind says ${r.kind.kind} ${apiVersion}`;
    }
  }
  return undefined;
}

// The API server truncates what it shows; a tenant must not make the webhook answer megabytes.
const MAX_MESSAGE = 8 * 1024;
const MAX_WARNINGS = 20;

function bounded(r: AdmissionResponse): AdmissionResponse {
  const message = r.status?.message;
  const tooLong = message !== undefined && message.length > MAX_MESSAGE;
  const tooMany = r.warnings !== undefined && r.warnings.length > MAX_WARNINGS;
  if (!tooLong && !tooMany) return r;
  return {
    ...r,
    ...(tooLong ? { status: { ...r.status!, message: `${message.slice(0, MAX_MESSAGE - 40)}… (${message.length} characters in all)` } } : {}),
    ...(tooMany ? { warnings: [...r.warnings.slice(0, MAX_WARNINGS - 1), `… and ${r.warnings.length - MAX_WARNINGS + 1} more warnings`] } : {}),
  };
}

export function reviewAdmission(webhook: Webhook, body: string, config: AdmissionConfig, view: ClusterView): ReviewOutcome {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (e) {
    return errorOutcome(400, `malformed JSON: ${(e as Error).message}`);
  }
  if (!isRecord(review) || review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview' || typeof review.request !== 'object'
    || review.request === null) {
    return errorOutcome(400, 'expected an admission.k8s.io/v1 AdmissionReview with a request');
  }
  // An object: a list too, which has none of the fields envelopeProblem asks for.
  const request: unknown = review.request;
  const problem = envelopeProblem(request as Record<string, unknown>);
  if (problem) return errorOutcome(400, problem);
  const envelope = request as Envelope;
  const uid = envelope.uid;
  const mismatch = kindProblem(envelope);
  if (mismatch) {
    const response: AdmissionResponse = { uid, allowed: false,
      status: { code: 400, reason: 'BadRequest', message: `cdk8s-kueue-ray webhook: ${mismatch}` } };
    return { status: 200, body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }), verdict: 'denied',
      rules: [] };
  }
  let decision: Decision;
  let internalError: string | undefined;
  try {
    decision = webhook === 'mutate' ? mutateRayObject(envelope, config, view) : validateRayObject(envelope, config, view);
  } catch (e) {
    // A bug must not become an outage or an accidental allow: deny with the reason.
    internalError = e instanceof Error ? e.message : 'non-Error exception';
    decision = { response: { uid, allowed: false,
      status: { code: 500, reason: 'InternalError', message: `cdk8s-kueue-ray webhook error: ${internalError}` } }, findings: [] };
  }
  const r = bounded(decision.response);
  return {
    status: 200,
    body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: r }),
    verdict: r.allowed ? (r.patch ? 'mutated' : 'allowed') : 'denied',
    rules: decision.findings.map((f) => `${f.severity} ${f.rule}`),
    ...(internalError !== undefined ? { internalError, uid } : {}),
  };
}
