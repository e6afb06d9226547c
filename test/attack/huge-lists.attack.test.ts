// Huge lists inside the 3 MiB the API server accepts: a million worker groups or containers, tens of
// thousands of init containers or resources, 230,000 labels. The running controller must decide each
// within its admission worker's deadline (2 s), with a denial that names the list, and the policy's
// findings and messages must stay bounded whatever the number of entries wrong in the same way.
import * as path from 'path';
import type { AdmissionPool as Pool } from '../../src/controller/admission-pool';
import { mutateRayObject } from '../../src/controller/admission';
import { reviewAdmission } from '../../src/controller/admission-review';
import { MAX_FINDINGS_PER_RULE, MAX_LIST_LENGTH } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { compileController, Controller, OUT, post, rayJob, responseOf, review, startController } from './support';

jest.setTimeout(120000);

beforeAll(() => compileController(), 180000);

const API_SERVER_LIMIT = 3 * 1024 * 1024;
const fill = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const ray = (extra: Record<string,
  unknown> = {}) => ({ name: 'ray', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu: '1', memory: '1Gi' } }, ...extra });
const cluster = (spec: Record<string, unknown>) => ({ apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'c', namespace: 'team-a' },
  spec: { headGroupSpec: { template: { spec: { containers: [ray()] } } }, ...spec } });
const head = (spec: Record<string, unknown>) => cluster({ headGroupSpec: { template: { spec } } });

/** The largest review of `make(n)` that fits the API server's request limit, and its n. */
function largest(make: (n: number) => unknown): { n: number; body: string } {
  let lo = 1;
  let hi = 1_200_000;
  const body = (n: number) => JSON.stringify(review(make(n)));
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (body(mid).length <= API_SERVER_LIMIT) lo = mid;
    else hi = mid - 1;
  }
  return { n: lo, body: body(lo) };
}

describe('the running controller', () => {
  let ctl: Controller;
  afterAll(async () => { await ctl?.stop(); });

  // Each was past the worker deadline (HTTP 500, so the API server applied the failure policy): a
  // million empty worker groups or containers took 4-9 s, 38,000 sidecar init containers with distinct
  // resources about 110 s (a quadratic pod-request sum), 125,000 resources of one container 2 s.
  const lists: Array<[string, (n: number) => unknown, RegExp]> = [
    ['worker groups', (n) => cluster({ workerGroupSpecs: fill(n, () => ({})) }), /spec\.workerGroupSpecs: has \d+ entries, more than the 1000/],
    ['containers', (n) => head({ containers: fill(n, () => ({})) }), /spec\.headGroupSpec\.template\.spec\.containers: has \d+ entries/],
    ['sidecar init containers with distinct resources', (n) => head({ containers: [ray()], initContainers: fill(n, (i) => ({ name: `i${i}`, restartPolicy: 'Always', resources: { requests: { [`r${i}`]: '1' } } })) }), /initContainers: has \d+ entries/],
    ['resources of one container', (n) => head({ containers: [ray({ resources: { requests: Object.fromEntries(fill(n, (i) => [`example.com/r${i}`, '1'])) } })] }), /containers\[0\]\.resources\.requests: has \d+ entries/],
  ];
  test.each(lists)('3 MiB of %s: refused within the deadline, naming the list', async (_what, make, message) => {
    ctl ??= await startController();
    const { n, body } = largest(make);
    expect(n).toBeGreaterThan(MAX_LIST_LENGTH);
    const a = await post(ctl.port, '/validate', body);
    expect({ status: a.status, body: a.status === 200 ? '' : a.body }).toEqual({ status: 200, body: '' });
    expect(responseOf(a)).toMatchObject({ allowed: false, status: { code: 422, message: expect.stringMatching(message) } });
    // The mutating webhook decides it too (it leaves the list alone).
    expect((await post(ctl.port, '/mutate', body)).status).toBe(200);
    expect(ctl.alive()).toBe(true);
  });

  test('3 MiB of labels or annotations: decided within the deadline', async () => {
    ctl ??= await startController();
    for (const field of ['labels', 'annotations']) {
      const { body } = largest((n) => rayJob({}, { [field]: Object.fromEntries(fill(n, (i) => [`example.com/k${i}`, 'v'])) }));
      const a = await post(ctl.port, '/validate', body);
      expect({ field, status: a.status }).toEqual({ field, status: 200 });
      expect(responseOf(a).allowed).toBe(true);
    }
  });
});

describe('the admission worker, with an inventory (the gang is summed)', () => {
  test('a queued pod with 200 sidecars naming 200,000 resources and 800 more init containers: refused within the deadline', async () => {
    // The pod-request sum copied the running sidecar total at every init container: 800 copies of
    // 200,000 entries, minutes for 2.6 MiB. Now it is linear, and a pod is checked for at most 1,000
    // resource names.
    const { AdmissionPool } = require(path.join(OUT, 'src', 'controller', 'admission-pool.js')) as { AdmissionPool: typeof Pool };
    const rg = [{ coveredResources: ['cpu', 'memory'],
      flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: 64000n }, { resource: 'memory', nominal: 1n << 50n }] }] }];
    const inventory = { localQueues: [{ namespace: 'team-a', name: 'q', clusterQueue: 'cq' }],
      clusterQueues: [{ name: 'cq', namespaceSelector: {}, resourceGroups: rg }], cohorts: [], priorityClasses: [], namespaces: [] };
    const config = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const };
    const pool = new AdmissionPool({ size: 1, config, view: () => ({ inventory }), deadlineMs: 2000 });
    try {
      const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
      const queued = (initContainers: unknown[]) => ({ ...head({ containers: [ray()], initContainers }),
        metadata: { name: 'c', namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'q' } } });
      // The worker has loaded and decides a small pod with sidecars and init containers.
      let warm = 0;
      for (let i = 0; i < 10 && warm !== 200; i++) {
        warm = (await pool.review('validate',
          bytes(review(queued([{ name: 's', image: 'i', restartPolicy: 'Always', resources: { requests: { cpu: '1' } } }]))))).status;
        if (warm !== 200) await new Promise((r) => setTimeout(r, 1000));
      }
      expect(warm).toBe(200);
      const init = [
        ...fill(200, (s) => ({ name: `s${s}`, image: 'i', restartPolicy: 'Always',
          resources: { requests: Object.fromEntries(fill(1000, (k) => [`r${s * 1000 + k}`, '1'])) } })),
        ...fill(800, (n) => ({ name: `n${n}`, image: 'i', resources: { requests: { cpu: '1' } } })),
      ];
      const body = bytes(review(queued(init)));
      expect(body.byteLength).toBeLessThan(API_SERVER_LIMIT);
      const o = await pool.review('validate', body);
      expect({ status: o.status, body: o.status === 200 ? '' : o.body }).toEqual({ status: 200, body: '' });
      expect(JSON.parse(o.body).response).toMatchObject({ allowed: false, status: { message: expect.stringMatching(/spec\.headGroupSpec\.template\.spec: its containers name more than 1000 different resources/) } });
    } finally {
      await pool.close();
    }
  });
});

describe('findings and messages stay bounded', () => {
  const config = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const,
    gracefulPreemption: { terminationGracePeriodSeconds: 60, preStopSleepSeconds: 20 } };
  const view = { inventory: { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] } };

  test('a thousand worker groups wrong in the same ways: at most 20 findings per rule, and one more that counts the rest', () => {
    // Named "head" twice over, no containers, replicas outside their bounds: every group is wrong for
    // four rules. Before, each rule listed all 1,000 (several thousand findings, a message of megabytes).
    const groups = fill(MAX_LIST_LENGTH,
      () => ({ groupName: 'head', replicas: 5, minReplicas: 1, maxReplicas: 2, template: { spec: { containers: [] } } }));
    const out = reviewAdmission('validate', JSON.stringify(review(cluster({ workerGroupSpecs: groups }))), config, view);
    const r = JSON.parse(out.body).response;
    expect(r.allowed).toBe(false);
    const perRule = new Map<string, number>();
    for (const f of out.rules) perRule.set(f, (perRule.get(f) ?? 0) + 1);
    expect([...perRule.values()].every((c) => c <= MAX_FINDINGS_PER_RULE + 1)).toBe(true);
    expect(perRule.get('error podTemplateContainers')).toBe(MAX_FINDINGS_PER_RULE + 1);
    expect(r.status.message).toMatch(/spec\.workerGroupSpecs\[20\]\.template\.spec\.containers: 980 more errors of this rule, from here on, are not listed \(the first 20 are\)/);
  });

  test('the graceful-preemption patch of 75,000 worker groups neither throws nor grows to megabytes', () => {
    // Three patch operations per group: 225,000 arguments to push(...) threw RangeError, so the mutating
    // webhook (failurePolicy Fail) answered with an internal error.
    const { body } = largest((n) => cluster({ workerGroupSpecs: fill(n, () => ({ template: { spec: { containers: [{}] } } })) }));
    const req = JSON.parse(body).request;
    const d = mutateRayObject(req, config, view);
    expect(d.response.allowed).toBe(true);
    expect((d.response.patch ?? '').length).toBeLessThan(64 * 1024);
    // At the bound, the defaults are still added to every group.
    const atBound = cluster({ workerGroupSpecs: fill(MAX_LIST_LENGTH, () => ({ template: { spec: { containers: [{}] } } })) });
    const ops = JSON.parse(Buffer.from(mutateRayObject(review(atBound).request, config, view).response.patch!, 'base64').toString());
    expect(ops.filter((o: any) => /workerGroupSpecs\/\d+\/template\/spec\/terminationGracePeriodSeconds$/.test(o.path))).toHaveLength(MAX_LIST_LENGTH);
  });
});
