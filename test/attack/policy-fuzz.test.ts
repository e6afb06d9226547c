// Wrong types everywhere: random JSON values substituted at random paths of valid Ray objects (seeded,
// deterministic). Every rule, the whole policy and both admission handlers must answer: a wrong type is
// a finding, never an exception.
import { mutateRayObject, validateRayObject } from '../../src/controller/admission';
import { reviewAdmission } from '../../src/controller/admission-review';
import { evaluateRayObject, RULES } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { rayJob } from './support';
import { mulberry32 as prng } from '../support/random';

const ITERATIONS = 4000;


const rayCluster = () => ({ apiVersion: 'ray.io/v1', kind: 'RayCluster',
  metadata: { name: 'c', namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'q' }, annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
  spec: { ...rayJob().spec.rayClusterSpec, enableInTreeAutoscaling: true, autoscalerOptions: { version: 'v2' } } });
const rayService = () => ({ apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 's', namespace: 'team-a',
  labels: { 'kueue.x-k8s.io/queue-name': 'q', 'kueue.x-k8s.io/priority-class': 'p' } }, spec: { rayClusterConfig: rayJob().spec.rayClusterSpec } });
const queued = { labels: { 'kueue.x-k8s.io/queue-name': 'q' } };
const bases = [() => rayJob({}, queued), () => rayJob({ submissionMode: 'SidecarMode', runtimeEnvYAML: 'pip: [requests]' }, queued), rayCluster,
  rayService];

function randomValue(rnd: () => number, depth = 0): unknown {
  const pick = Math.floor(rnd() * 16);
  switch (pick) {
    case 0: return null;
    case 1: return rnd() < 0.5;
    case 2: return Math.floor(rnd() * 2e9) - 1e9;
    case 3: return rnd() * 10;
    case 4: return ['', '1e1000000000', '3', '-1', 'Ki', '__proto__', 'constructor', '\u0000', '\ud800', 'é'.repeat(70), '[[[[', '{a: [b',
      'SidecarMode'][Math.floor(rnd() * 13)];
    case 5: return { toString: null, valueOf: null };
    case 6: return JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}');
    case 7: return [];
    case 8: return {};
    case 9: return depth < 3 ? [randomValue(rnd, depth + 1), randomValue(rnd, depth + 1)] : [];
    case 10: return depth < 3 ? { name: randomValue(rnd, depth + 1), resources: randomValue(rnd, depth + 1) } : {};
    case 11: return 1e308;
    case 12: return { requests: { cpu: randomValue(rnd, depth + 1) } };
    case 13: return JSON.parse('['.repeat(200) + ']'.repeat(200));
    case 14: return '1' + '0'.repeat(Math.floor(rnd() * 40));
    default: return undefined;
  }
}

/** Every path of a JSON value (objects and lists), the root excluded. */
function paths(v: any, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      paths(v[k], p, out);
    }
  }
  return out;
}

function mutateAt(obj: any, path: Array<string | number>, value: unknown): void {
  let o = obj;
  for (const k of path.slice(0, -1)) o = o[k];
  if (value === undefined) delete o[path[path.length - 1]];
  else o[path[path.length - 1]] = value;
}

const configs = [
  { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const,
    gracefulPreemption: { terminationGracePeriodSeconds: 60, preStopSleepSeconds: 20 } },
  { kueue: kueueCapabilities('v0.14.8'), kubeRay: kubeRayCapabilities('v1.4.2'), elasticGate: 'unknown' as const },
];
const inventory = {
  localQueues: [{ namespace: 'team-a', name: 'q', clusterQueue: 'cq', tenant: { allowedPriorityClasses: ['p'], defaultPriorityClass: 'p' } }],
  clusterQueues: [{ name: 'cq', namespaceSelector: {}, resourceGroups: [{ coveredResources: ['cpu', 'memory'],
    flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: 8000n }, { resource: 'memory', nominal: 32n * 1024n ** 3n * 1000n }] }] }] }],
  cohorts: [], priorityClasses: [{ name: 'p', value: 1 }], namespaces: [{ name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } }],
};

test(`${ITERATIONS} objects with random values at random paths: no rule throws, every review is answered`, () => {
  const rnd = prng(20240611);
  const failures: string[] = [];
  let denied = 0;
  for (let i = 0; i < ITERATIONS && failures.length < 5; i++) {
    const obj = bases[i % bases.length]();
    // The request names the kind as the API server would; the object's own kind may be substituted.
    const kind = { group: 'ray.io', version: 'v1', kind: obj.kind };
    const all = paths(obj);
    const n = 1 + Math.floor(rnd() * 3);
    for (let j = 0; j < n; j++) {
      const live = paths(obj);
      const p = (live.length ? live : all)[Math.floor(rnd() * (live.length || 1))];
      if (p) mutateAt(obj, p, randomValue(rnd));
    }
    // As the API server would send it: JSON (a deleted list element becomes null, not a hole).
    const sent = JSON.parse(JSON.stringify(obj));
    const config = configs[i % configs.length];
    const ctx = { ...config, inventory };
    for (const [name, rule] of Object.entries(RULES)) {
      try { rule(sent, ctx); } catch (e) { failures.push(`#${i} rule ${name}: ${(e as Error).message} on ${JSON.stringify(sent).slice(0, 400)}`); }
    }
    try {
      evaluateRayObject(sent, ctx);
      const req = { uid: `u${i}`, kind, namespace: 'team-a', operation: 'CREATE', object: sent };
      if (!validateRayObject(req, config, { inventory }).response.allowed) denied++;
      mutateRayObject(req, config, { inventory });
    } catch (e) {
      failures.push(`#${i} policy: ${(e as Error).message} on ${JSON.stringify(sent).slice(0, 400)}`);
    }
    for (const webhook of ['validate', 'mutate'] as const) {
      const out = reviewAdmission(webhook, JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
        request: { uid: `u${i}`, kind, namespace: 'team-a', operation: 'CREATE', object: sent } }), config, { inventory });
      if (out.internalError !== undefined || out.status !== 200 || JSON.parse(out.body).response?.uid !== `u${i}`) {
        failures.push(`#${i} ${webhook}: ${out.status} ${out.internalError ?? out.body.slice(0, 200)}`);
      }
    }
  }
  expect(failures).toEqual([]);
  // The substitutions hit fields the policy reads: many objects are refused, not all.
  expect(denied).toBeGreaterThan(ITERATIONS / 10);
  expect(denied).toBeLessThan(ITERATIONS);
  expect(({} as any).polluted).toBeUndefined();
});
