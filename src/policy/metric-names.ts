/**
 * The controller's own Prometheus metrics: the webhook server writes them, QueueObservability's alert
 * rules and dashboard query them, so their names and buckets are stated once, here.
 */

/** Histogram of admission request latency, by `path` ("/mutate", "/validate"). */
export const ADMISSION_DURATION = 'kueue_ray_admission_duration_seconds';
/** Counter of decisions and policy findings, by `webhook`, `decision` and `rule`. */
export const ADMISSION_DECISIONS = 'kueue_ray_admission_decisions_total';
/**
 * Counter of reviews that got no decision, by `path` and `code`: the HTTP status of a refused request
 * (400 unusable body, 408 body too slow) or 500 where the policy threw (the request is then denied).
 */
export const ADMISSION_ERRORS = 'kueue_ray_admission_errors_total';
/**
 * Counter of connections closed before any HTTP, by `reason`: "peer-limit" (the peer address already
 * holds maxConnectionsPerPeer), "server-limit" (maxConnections) or "tls" (the handshake failed or timed
 * out). The API server sees such a close as EOF and applies the failurePolicy.
 */
export const CONNECTIONS_CLOSED = 'kueue_ray_webhook_connections_closed_total';
/**
 * Counter of the server thread's stalls while reviews waited (a deadline check more than 50 ms late: a
 * CPU-starved pod, a long GC), and of the seconds they lasted. The admission workers' deadlines are
 * extended by each stall, so a review answered late despite its deadline shows here.
 */
export const WEBHOOK_THREAD_STALLS = 'kueue_ray_webhook_thread_stalls_total';
export const WEBHOOK_THREAD_STALL_SECONDS = 'kueue_ray_webhook_thread_stall_seconds_total';
/** Upper bounds of the latency histogram's finite buckets, in seconds. */
export const ADMISSION_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
