/**
 * One AdmissionReview body in, one HTTP answer out: parse, check the envelope, decide (admission.ts),
 * serialize. The server runs it on its own thread or, by default, in the admission workers
 * (admission-pool.ts); both give the same answer for the same body.
 */
import { AdmissionConfig, AdmissionRequest, ClusterView, Decision, mutateRayObject, validateRayObject } from './admission';

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

export function reviewAdmission(webhook: Webhook, body: string, config: AdmissionConfig, view: ClusterView): ReviewOutcome {
  let review: any;
  try {
    review = JSON.parse(body);
  } catch (e) {
    return errorOutcome(400, `malformed JSON: ${(e as Error).message}`);
  }
  if (review?.apiVersion !== 'admission.k8s.io/v1' || review?.kind !== 'AdmissionReview' || typeof review.request !== 'object' || review.request === null) {
    return errorOutcome(400, 'expected an admission.k8s.io/v1 AdmissionReview with a request');
  }
  let decision: Decision;
  let internalError: string | undefined;
  let uid: string | undefined;
  try {
    const r = review.request as AdmissionRequest;
    decision = webhook === 'mutate' ? mutateRayObject(r, config, view) : validateRayObject(r, config, view);
  } catch (e) {
    // A bug must not become an outage or an accidental allow: deny with the reason.
    internalError = (e as Error).message;
    uid = String(review.request.uid ?? '');
    decision = { response: { uid, allowed: false, status: { code: 500, reason: 'InternalError', message: `cdk8s-kueue-ray webhook error: ${internalError}` } }, findings: [] };
  }
  const r = decision.response;
  return {
    status: 200,
    body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: r }),
    verdict: r.allowed ? (r.patch ? 'mutated' : 'allowed') : 'denied',
    rules: decision.findings.map((f) => `${f.severity} ${f.rule}`),
    ...(internalError !== undefined ? { internalError, uid } : {}),
  };
}
