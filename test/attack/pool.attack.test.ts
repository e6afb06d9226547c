// Attack 6: the admission worker's deadline. A review the worker spends too long on fails alone
// (HTTP 500, so the API server applies the failurePolicy) well before the webhook timeout; the
// reviews queued behind it on the same worker are decided by its replacement, not failed with it.
import * as path from 'path';
import type { AdmissionPool as Pool } from '../../src/controller/admission-pool';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { compileController, OUT, rayJob, review } from './support';

jest.setTimeout(60000);

// The compiled pool, so its worker starts as in the image (compiled JavaScript, not ts-node).
let AdmissionPool: typeof Pool;
beforeAll(() => {
  compileController();
  AdmissionPool = require(path.join(OUT, 'src', 'controller', 'admission-pool.js')).AdmissionPool;
}, 180000);

const config = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const };
const inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
const bytes = (s: string) => new TextEncoder().encode(s);

test('6. a review past the deadline fails alone; the reviews queued behind it are decided', async () => {
  const deadlineMs = 40;
  // The stalls of this thread that the pool forgave (each one reported; its warning is rate-limited), per attempt.
  const forgiven: number[] = [];
  const pool = new AdmissionPool({ size: 1, config, view: () => ({ inventory }), deadlineMs, onStall: (ms) => forgiven.push(ms) });
  try {
    // Warm up until the worker has loaded and decided one review.
    let warm = 0;
    for (let i = 0; i < 10 && warm !== 200; i++) {
      warm = (await pool.review('validate', bytes(JSON.stringify(review(rayJob()))))).status;
      if (warm !== 200) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(warm).toBe(200);
    // A legitimate but slow review: 15 MiB of small objects takes 350-420 ms to decide here, nine
    // times the deadline (3.9 MiB took 60 ms, close enough that one CI run decided it in time).
    const env = Array.from({ length: 500000 }, (_, i) => ({ name: `E${i}`, value: 'v' }));
    const slow = JSON.stringify(review(rayJob({ rayClusterSpec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i',
      env }] } } } } })));
    // The pool forgives a stall of its own thread (a sweep more than 50 ms late: the answers may be waiting
    // behind it), by design, and reports it. On a loaded machine that can cover the whole slow review, so an
    // attempt during which the pool forgave a stall is repeated; an attempt without one must fail the slow review.
    // Encoded before the clock starts: 15 MiB through TextEncoder is the caller's time, not the pool's.
    const slowBytes = bytes(slow);
    let decided = false;
    for (let attempt = 1; attempt <= 5 && !decided; attempt++) {
      forgiven.length = 0;
      const t0 = Date.now();
      const slowAnswer = pool.review('validate', slowBytes).then((o) => ({ o, ms: Date.now() - t0 }));
      const queued = Array.from({ length: 5 }, (_, i) => pool.review('validate', bytes(JSON.stringify(review(rayJob(), { uid: `q${i}` })))));
      const s = await slowAnswer;
      const rest = await Promise.all(queued);
      if (s.o.status === 200 && forgiven.length) {
        process.stdout.write(`[pool.attack] attempt ${attempt}: the pool forgave stalls of its thread (${forgiven.join(', ')} ms); again\n`);
        continue;
      }
      expect(s.o.status).toBe(500);
      expect(s.o.body).toMatch(/not decided within 40 ms/);
      // Well before the API server's webhook timeout (seconds); posting 15 MiB to the worker and replacing it
      // took up to 0.9 s in a loaded CI run, so the bound is not the deadline itself. The stalls of this thread that
      // the pool forgave lengthen the deadline by design (each is reported): they are the machine's, not the pool's.
      // A cold CI run on two cores took 3.4 s against the bare bound; with two busy loops beside the test, 426 ms, of
      // which the pool forgave 382 ms of stalls (the pool's own part: the 40 ms deadline and one sweep).
      const stalled = forgiven.reduce((a, b) => a + b, 0);
      if (stalled) process.stdout.write(`[pool.attack] attempt ${attempt}: failed after ${s.ms} ms, ${stalled} ms of them stalls the pool forgave\n`);
      expect(s.ms - stalled).toBeLessThan(2000);
      expect(rest.map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);
      expect(rest.map((o) => JSON.parse(o.body).response.uid)).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
      decided = true;
    }
    expect(decided).toBe(true); // five stalled attempts in a row: the deadline could not be observed
  } finally {
    await pool.close();
  }
});
