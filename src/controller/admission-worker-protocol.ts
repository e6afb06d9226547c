/**
 * The messages between the server thread (admission-pool.ts) and an admission worker
 * (admission-worker.ts), defined once for both. An answer is a flat tuple of strings and numbers, not
 * the ReviewOutcome object: every review crosses the threads once each way, and a flat message is
 * the cheaper one to serialize and read back.
 */
import { ClusterView } from './admission';
import { ReviewOutcome, Webhook } from './admission-review';

/** To a worker: the current cluster view, or a review (its body's bytes, transferred). */
export type ToWorker =
  | { readonly view: ClusterView }
  | { readonly id: number; readonly webhook: Webhook; readonly body: ArrayBuffer };

/**
 * From a worker: `{ ready: true }` once its modules are loaded, then one answer per review:
 * [id, status, body, verdict, the rules joined by newlines, internalError, uid], null for what is absent.
 */
export type Answer = readonly [number, number, string, string | null, string, string | null, string | null];
export type FromWorker = { readonly ready: true } | Answer;

// Rule entries are "severity rule" (no newline: rule names are identifiers), so a newline joins them.
const SEPARATOR = '\n';

export function answerOf(id: number, o: ReviewOutcome): Answer {
  return [id, o.status, o.body, o.verdict ?? null, o.rules.join(SEPARATOR), o.internalError ?? null, o.uid ?? null];
}

/** The ReviewOutcome an answer carries: the same fields, each present exactly when it was (even when empty). */
export function outcomeOf(a: Answer): ReviewOutcome {
  const [, status, body, verdict, rules, internalError, uid] = a;
  return {
    status, body, rules: rules === '' ? [] : rules.split(SEPARATOR),
    ...(verdict !== null ? { verdict: verdict as ReviewOutcome['verdict'] } : {}),
    ...(internalError !== null ? { internalError } : {}),
    ...(uid !== null ? { uid } : {}),
  };
}
