import type { AdmissionPool } from '../../src/controller/admission-pool';
import type { ReviewOutcome } from '../../src/controller/admission-review';

/**
 * Sends a review through the pool, then keeps this thread busy for `busyMs` outside the timers phase
 * (as TLS work in I/O callbacks is): the next loop iteration runs the pool's deadline check, a timer,
 * before it reads the worker's answer, a message. So the pool sees a stall of its own thread.
 */
export function reviewWhileBusy(pool: AdmissionPool, body: Uint8Array, busyMs: number): Promise<ReviewOutcome> {
  return new Promise((resolve) => setImmediate(() => {
    void pool.review('validate', body).then(resolve);
    const until = Date.now() + busyMs;
    while (Date.now() < until) { /* the server thread is busy */ }
  }));
}
