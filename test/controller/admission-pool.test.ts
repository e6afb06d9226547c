// The admission worker pool: the same answers as deciding on the server thread, a view change reaches
// the workers before the next review, and a dead or stuck worker fails its requests (HTTP 500, so the
// API server applies failurePolicy) and is replaced instead of wedging the webhook.
import { ClusterView } from '../../src/controller/admission';
import { AdmissionPool, InFlight, Pending } from '../../src/controller/admission-pool';
import { reviewAdmission, Webhook } from '../../src/controller/admission-review';
import { Inventory, parseQuantity } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { reviewWhileBusy } from '../support/busy-thread';

const config = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const };
const empty: Inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
const withTenant: Inventory = {
  ...empty,
  localQueues: [{ namespace: 'team-a', name: 'default', clusterQueue: 'team-a',
    tenant: { allowedPriorityClasses: ['dev'], defaultPriorityClass: 'dev' } }],
  clusterQueues: [{ name: 'team-a', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ flavor: 'f',
    resources: [{ resource: 'cpu', nominal: parseQuantity('2') }, { resource: 'memory', nominal: parseQuantity('8Gi') }] }] }] }],
  priorityClasses: [{ name: 'dev', value: 10 }],
};

const buf = (s: string) => new TextEncoder().encode(s);

// Random reviews: valid and invalid jobs, clusters and services, tenant and plain namespaces, junk.
function randomBody(rnd: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  if (rnd() < 0.05) return pick(['{', '[]', '{"apiVersion":"admission.k8s.io/v1"}', 'null', '"x"']);
  const kind = pick(['RayJob', 'RayCluster', 'RayService']);
  const cpu = pick(['1', '500m', '3', '64', 'x']);
  const template = { spec: { containers: [{ name: 'ray', image: pick(['i', '']),
    resources: { requests: { cpu, memory: pick(['1Gi', '40Gi']) } } }] } };
  const cluster: any = { headGroupSpec: { template },
    workerGroupSpecs: [{ groupName: 'w', replicas: pick([0, 1, 4]), minReplicas: pick([0, 1]), maxReplicas: pick([1, 4]), template }] };
  const labels: any = rnd() < 0.5 ? { 'kueue.x-k8s.io/queue-name': pick(['default', 'nope']) } : {};
  if (rnd() < 0.3) labels['kueue.x-k8s.io/priority-class'] = pick(['dev', 'prod']);
  const spec = kind === 'RayJob' ? { entrypoint: 'x', shutdownAfterJobFinishes: rnd() < 0.8, suspend: rnd() < 0.5, rayClusterSpec: cluster }
    : kind === 'RayService' ? { rayClusterConfig: cluster } : { ...cluster, suspend: rnd() < 0.5 };
  const object = { apiVersion: 'ray.io/v1', kind, metadata: { name: 'o', namespace: pick(['team-a', 'default']), labels }, spec };
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `u${Math.floor(rnd() * 1e6)}`,
    kind: { group: 'ray.io', version: 'v1', kind }, operation: pick(['CREATE', 'UPDATE']), namespace: object.metadata.namespace, object } });
}

function lcg(seed: number) {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
}

describe('AdmissionPool', () => {
  let view: ClusterView = { inventory: withTenant };
  const pool = new AdmissionPool({ size: 2, config, view: () => view });
  afterAll(() => pool.close());

  test('2,000 random reviews get exactly the answer the server thread would give', async () => {
    const rnd = lcg(7);
    const cases = Array.from({ length: 2000 }, () => ({ webhook: (rnd() < 0.5 ? 'mutate' : 'validate') as Webhook, body: randomBody(rnd) }));
    const outcomes = await Promise.all(cases.map((c) => pool.review(c.webhook, buf(c.body))));
    const verdicts = new Set<string>();
    cases.forEach((c, i) => {
      expect(outcomes[i]).toEqual(reviewAdmission(c.webhook, c.body, config, view));
      verdicts.add(`${outcomes[i].status} ${outcomes[i].verdict}`);
    });
    // The corpus exercises every kind of answer, so the equality above is not vacuous.
    expect([...verdicts].sort()).toEqual(['200 allowed', '200 denied', '200 mutated', '400 undefined']);
  });

  test('a view change reaches the workers before the next review', async () => {
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      request: { uid: 'v', kind: { group: 'ray.io', version: 'v1', kind: 'RayCluster' }, operation: 'CREATE', namespace: 'team-a',
        object: { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'c', namespace: 'team-a' },
          spec: { headGroupSpec: { template: { spec: { containers: [{ name: 'h', image: 'i' }] } } } } } } });
    expect((await pool.review('mutate', buf(body))).verdict).toBe('mutated'); // tenant defaults
    view = { inventory: empty };
    expect((await pool.review('mutate', buf(body))).verdict).toBe('allowed'); // no tenant any more
    view = { inventory: withTenant };
  });

  test('a worker that dies fails its in-flight reviews with 500 and is replaced', async () => {
    const body = randomBody(lcg(3));
    const inFlight = pool.review('validate', buf(body));
    await (pool as any).slots[0].worker.terminate();
    await (pool as any).slots[1].worker.terminate();
    const first = await inFlight;
    // Either the worker answered before it died, or the request fails cleanly; it never hangs.
    if (first.status === 500) expect(JSON.parse(first.body).message).toMatch(/admission worker exited/);
    else expect(first).toEqual(reviewAdmission('validate', body, config, view));
    const after = await pool.review('validate', buf(body));
    expect(after).toEqual(reviewAdmission('validate', body, config, view));
  });
});

/** Waits until every worker has loaded its modules (what /readyz waits for): deadlines count from then on. */
async function loaded(pool: AdmissionPool): Promise<void> {
  for (const t0 = Date.now(); !pool.online(); await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() - t0 > 60_000) throw new Error('the admission worker did not load within 60 s');
  }
}

test('a review not decided within the deadline fails with 500 and its worker is replaced', async () => {
  // A worker that never answers: a stand-in for a pathological object.
  const pool = new AdmissionPool({ size: 1, config, view: () => ({ inventory: empty }), deadlineMs: 300 });
  try {
    // Once loaded (the deadline counts from then on), the worker stops answering.
    await loaded(pool);
    const slot = (pool as any).slots[0];
    const stuck = slot.worker;
    stuck.removeAllListeners('message');
    const started = Date.now();
    const r = await pool.review('validate', buf(randomBody(lcg(5))));
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body).message).toMatch(/not decided within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(slot.worker).not.toBe(stuck);
  } finally {
    await pool.close();
  }
});

test('a server thread busy for longer than the deadline does not blame an idle worker', async () => {
  // The scale run: the server thread (TLS, HTTP, the reconciler) stalled, the worker's answer waited
  // in its queue, and the deadline check replaced the worker and failed the review.
  const pool = new AdmissionPool({ size: 1, config, view: () => ({ inventory: empty }), deadlineMs: 300 });
  try {
    await loaded(pool);
    const slot = (pool as any).slots[0];
    const worker = slot.worker;
    const r = await reviewWhileBusy(pool, buf(randomBody(lcg(5))), 1000);
    expect(r.status).toBe(200);
    expect(slot.worker).toBe(worker);
  } finally {
    await pool.close();
  }
});

test('each stall of the server thread while reviews wait is reported; the warning comes at most once per interval, with the count', async () => {
  const stalls: number[] = [];
  const warnings: Record<string, unknown>[] = [];
  const pool = new AdmissionPool({ size: 1, config, view: () => ({ inventory: empty }), deadlineMs: 5000,
    onStall: (ms) => stalls.push(ms), log: (e) => { if (/^webhook thread stalled/.test(String(e.msg))) warnings.push(e); } });
  try {
    await loaded(pool);
    // Three times: a review sent, then this thread busy for 200 ms before it can read the answer.
    for (let i = 0; i < 3; i++) expect((await reviewWhileBusy(pool, buf(randomBody(lcg(7 + i))), 200)).status).toBe(200);
    expect(stalls.length).toBeGreaterThanOrEqual(3); // a loaded machine may add a stall of its own
    for (const ms of stalls) expect(ms).toBeGreaterThan(50);
    // All three within STALL_WARNING_EVERY_MS: one warning, for the first.
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toMatchObject({ level: 'warn', stalls: 1, stallMs: stalls[0], longestStallMs: stalls[0] });
  } finally {
    await pool.close();
  }
});

test('size below 1 is refused', () => {
  expect(() => new AdmissionPool({ size: 0, config, view: () => ({ inventory: empty }) })).toThrow(/size must be at least 1/);
});

test('a policy function that throws denies the request with the reason and the uid, in a worker too', async () => {
  const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: { uid: 'boom-1', kind: { group: 'ray.io', version: 'v1', kind: 'RayCluster' }, operation: 'CREATE', namespace: 'team-a',
      object: { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'c', namespace: 'team-a' }, spec: {} } } });
  // A broken view (no inventory) makes the mutating handler throw: it must not become an allow.
  const broken = { inventory: undefined as unknown as Inventory };
  const inThread = reviewAdmission('mutate', body, config, broken);
  expect(inThread).toMatchObject({ status: 200, verdict: 'denied', uid: 'boom-1' });
  expect(inThread.internalError).toBeTruthy();
  expect(JSON.parse(inThread.body).response).toMatchObject({ uid: 'boom-1', allowed: false, status: { code: 500, reason: 'InternalError' } });
  const pool = new AdmissionPool({ size: 1, config, view: () => broken });
  try {
    expect(await pool.review('mutate', buf(body))).toEqual(inThread);
  } finally {
    await pool.close();
  }
});

test('the reviews in flight: answers taken oldest first or by id, an unknown id ignored, the rest drained in the order sent', () => {
  const q = new InFlight();
  const answered: number[] = [];
  const review = (id: number): Pending => ({ id, webhook: 'validate', body: new Uint8Array(0), resolve: () => answered.push(id) });
  for (const id of [1, 2, 3, 4]) q.push(review(id));
  expect(q.size).toBe(4);
  expect(q.take(1)?.id).toBe(1); // the oldest, as the worker answers
  expect(q.take(3)?.id).toBe(3); // out of order: a replaced worker's answer for a review sent again
  expect(q.take(3)).toBeUndefined();
  expect(q.take(99)).toBeUndefined();
  expect(q.size).toBe(2);
  expect(q.drain().map((p) => p.id)).toEqual([2, 4]);
  expect(q.size).toBe(0);
  expect(answered).toEqual([]); // taking does not answer: the pool does
});
