// Only Kueue unsuspends (issue 40, item 1), pure: the rule, and the verdict the webhook gives through the
// controller's handler. test/attack/tenants.e2e.test.ts runs the same against the real control plane.
import { AdmissionConfig, validateRayObject } from '../../../src/controller/admission';
import {
  admissionVerdict, DEFAULT_TRUSTED_WRITERS, Inventory, KUEUE_CONTROLLER_SERVICE_ACCOUNT, onlyKueueUnsuspends, serviceAccountUser,
  TrustedWriters, unsuspendFields,
} from '../../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../../src/policy/versions';

const KUEUE = serviceAccountUser(KUEUE_CONTROLLER_SERVICE_ACCOUNT.namespace, KUEUE_CONTROLLER_SERVICE_ACCOUNT.name);
const KUBERAY = DEFAULT_TRUSTED_WRITERS.kubeRay[0];
const TENANT = 'mallory';
const inventory: Inventory = {
  localQueues: [{ namespace: 'team-a', name: 'default', clusterQueue: 'team-a', tenant: {}, tenantLabelled: true },
    { namespace: 'default', name: 'user-queue', clusterQueue: 'cq' }],
  clusterQueues: [], cohorts: [], priorityClasses: [],
  namespaces: [{ name: 'team-a', labels: { 'cdk8s-kueue-ray.io/tenant': 'team-a' } }],
};
const config = (kueue = 'v0.19.2', kubeRay = 'v1.6.2', extra: Partial<AdmissionConfig> = {}): AdmissionConfig =>
  ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay), elasticGate: 'on', ...extra });
const ctxOf = (c: AdmissionConfig = config()) => ({ ...c, inventory });
const ruleCtx = (kueue = 'v0.19.2', kubeRay = 'v1.6.2', writers: TrustedWriters = DEFAULT_TRUSTED_WRITERS) =>
  ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay), inventory, writers });

const container = (name: string) => ({ name, image: 'rayproject/ray:2.46.0',
  resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } });
const cluster = () => ({ headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
  workerGroupSpecs: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {},
    template: { spec: { containers: [container('ray-worker')] } } }] });
const meta = (ns: string, queued: boolean) =>
  ({ name: 'x', namespace: ns, ...(queued ? { labels: { 'kueue.x-k8s.io/queue-name': 'default' } } : {}) });

/** A queued, suspended object of each kind as the webhooks leave it in team-a. */
function pending(kind: 'RayJob' | 'RayCluster' | 'RayService', ns = 'team-a', queued = true): any {
  if (kind === 'RayJob') return { apiVersion: 'ray.io/v1', kind, metadata: meta(ns, queued),
    spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: true, suspend: true, rayClusterSpec: cluster() } };
  if (kind === 'RayCluster') return { apiVersion: 'ray.io/v1', kind, metadata: meta(ns, queued), spec: { ...cluster(), suspend: true } };
  return { apiVersion: 'ray.io/v1', kind, metadata: meta(ns, queued),
    spec: { serveConfigV2: 'applications: []', rayClusterConfig: { ...cluster(), suspend: true } } };
}
const copy = (o: any) => JSON.parse(JSON.stringify(o));
/** The object with its suspend field at `field` set (undefined: removed). */
function withSuspend(o: any, field: string, value: unknown): any {
  const c = copy(o);
  const keys = field.split('.');
  const parent = keys.slice(0, -1).reduce((x: any, k) => x[k], c);
  if (value === undefined) delete parent[keys[keys.length - 1]];
  else parent[keys[keys.length - 1]] = value;
  return c;
}
const FIELD = { RayJob: 'spec.suspend', RayCluster: 'spec.suspend', RayService: 'spec.rayClusterConfig.suspend' } as const;

describe.each(['RayJob', 'RayCluster', 'RayService'] as const)('%s in a tenant namespace', (kind) => {
  const field = FIELD[kind];
  const old = pending(kind);

  test.each([['to false', false], ['off by removing it', undefined]])('a tenant turning suspend %s is forbidden, naming the field and Kueue',
    (_what, value) => {
      const v = admissionVerdict(withSuspend(old, field, value), old, 'UPDATE', ctxOf(), { username: TENANT, namespace: 'team-a' });
      expect(v.outcome).toBe('forbidden');
      expect(v.message).toBe(`${kind} team-a/x: ${field}: user "mallory" may not turn ${field} off: the object is queued in LocalQueue "default", `
      + 'and Kueue unsuspends it when it admits its Workload (the quota is charged then). Turned off by anyone else, KubeRay would start its '
      + `RayCluster and pods outside the queue's quota. Only Kueue's controller (${KUEUE}) turns it off. Fix: leave ${field}: true and let `
      + `Kueue admit the object (kubectl -n team-a get workloads says why it waits); to re-apply, keep ${field}: true in the file (server-side `
      + 'apply removes it otherwise) or use cdk8s-kueue-ray apply, which keeps the live value [onlyKueueUnsuspends]');
      expect(v.findings.map((f) => f.rule)).toEqual(['onlyKueueUnsuspends']);
    });

  test('Kueue\'s controller turns it off (admission) and on (preemption); KubeRay\'s writes pass', () => {
    const off = withSuspend(old, field, false);
    expect(admissionVerdict(off, old, 'UPDATE', ctxOf(), { username: KUEUE }).outcome).toBe('allowed');
    expect(admissionVerdict(old, off, 'UPDATE', ctxOf(), { username: KUEUE }).outcome).toBe('allowed');
    expect(admissionVerdict(off, old, 'UPDATE', ctxOf(), { username: KUBERAY }).outcome).toBe('allowed');
    // The rule itself names only Kueue: the other trusted writers never reach it (matchConditions, fromTrustedWriter).
    expect(onlyKueueUnsuspends({ oldObject: old, object: off, username: KUEUE }, ruleCtx())).toEqual([]);
    expect(onlyKueueUnsuspends({ oldObject: old, object: off, username: KUBERAY }, ruleCtx()).map((f) => f.field)).toEqual([field]);
  });

  test('a tenant\'s ordinary updates pass: suspending, a label, the suspended spec left as it is; deletions always', () => {
    const running = withSuspend(old, field, false);
    expect(admissionVerdict(old, running, 'UPDATE', ctxOf(), { username: TENANT }).outcome).toBe('allowed');
    const labelled = copy(old);
    labelled.metadata.labels.note = 'mine';
    expect(admissionVerdict(labelled, old, 'UPDATE', ctxOf(), { username: TENANT }).outcome).toBe('allowed');
    // A running object (Kueue unsuspended it) keeps suspend false through a tenant's update.
    const runningLabelled = withSuspend(labelled, field, false);
    expect(admissionVerdict(runningLabelled, running, 'UPDATE', ctxOf(), { username: TENANT }).outcome).toBe('allowed');
    expect(admissionVerdict(undefined, old, 'DELETE', ctxOf(), { username: TENANT }).outcome).toBe('allowed');
  });

  test('outside tenant namespaces, and on unqueued objects, the rule does not apply', () => {
    const other = pending(kind, 'default');
    expect(onlyKueueUnsuspends({ oldObject: other, object: withSuspend(other, field, false), username: TENANT }, ruleCtx())).toEqual([]);
    const unqueued = pending(kind, 'team-a', false);
    expect(onlyKueueUnsuspends({ oldObject: unqueued, object: withSuspend(unqueued, field, false), username: TENANT }, ruleCtx())).toEqual([]);
    // Dropping the queue label in the same update does not make it unqueued.
    const dropped = withSuspend(old, field, false);
    delete dropped.metadata.labels;
    expect(onlyKueueUnsuspends({ oldObject: old, object: dropped, username: TENANT }, ruleCtx()).map((f) => f.field)).toEqual([field]);
  });

  test('the controller\'s handler answers 403 with the message', () => {
    const r = validateRayObject({ uid: 'u', kind: { group: 'ray.io', version: 'v1', kind }, namespace: 'team-a', operation: 'UPDATE',
      object: withSuspend(old, field, false), oldObject: old, userInfo: { username: TENANT } }, config(), { inventory });
    expect(r.response).toMatchObject({ allowed: false, status: { code: 403, reason: 'Forbidden',
      message: expect.stringContaining(`${field}: user "mallory" may not turn ${field} off`) } });
    expect(r.findings.map((f) => f.rule)).toEqual(['onlyKueueUnsuspends']);
  });
});

test('the fields per version: where Kueue suspends the kind, and KubeRay 1.7\'s RayService spec.suspend', () => {
  const fields = (kind: string, kueue: string, kubeRay: string) => unsuspendFields(kind, ruleCtx(kueue, kubeRay));
  expect(fields('RayJob', 'v0.14.8', 'v1.4.2')).toEqual(['spec.suspend']);
  expect(fields('RayCluster', 'v0.19.2', 'v1.6.2')).toEqual(['spec.suspend']);
  expect(fields('RayService', 'v0.19.2', 'v1.6.2')).toEqual(['spec.rayClusterConfig.suspend']);
  expect(fields('RayService', 'v0.19.2', 'v1.7.0')).toEqual(['spec.rayClusterConfig.suspend', 'spec.suspend']);
  // Before 0.17 Kueue queues a RayService through its RayCluster, which only KubeRay may change (rayChildWriter).
  expect(fields('RayService', 'v0.14.8', 'v1.4.2')).toEqual([]);
  expect(fields('Pod', 'v0.19.2', 'v1.6.2')).toEqual([]);
  const svc = withSuspend(pending('RayService'), 'spec.suspend', true);
  const found = onlyKueueUnsuspends({ oldObject: svc, object: withSuspend(svc, 'spec.suspend', false), username: TENANT },
    ruleCtx('v0.19.2', 'v1.7.0'));
  expect(found.map((f) => f.field)).toEqual(['spec.suspend']);
});

test('Kueue\'s service account is the configured one (--kueue-service-account), not a fixed name', () => {
  const writers: TrustedWriters = { ...DEFAULT_TRUSTED_WRITERS, kueue: ['system:serviceaccount:queues:kueue'] };
  const old = pending('RayJob');
  const off = withSuspend(old, 'spec.suspend', false);
  expect(onlyKueueUnsuspends({ oldObject: old, object: off, username: 'system:serviceaccount:queues:kueue' }, ruleCtx(undefined, undefined, writers)))
    .toEqual([]);
  const byDefaultName = onlyKueueUnsuspends({ oldObject: old, object: off, username: KUEUE }, ruleCtx(undefined, undefined, writers));
  expect(byDefaultName[0].message).toMatch(/Only Kueue's controller \(system:serviceaccount:queues:kueue\) turns it off/);
  expect(admissionVerdict(off, old, 'UPDATE', ctxOf(config(undefined, undefined, { writers })), { username: 'system:serviceaccount:queues:kueue' })
    .outcome).toBe('allowed');
});

test('odd input never throws and never blocks on its own', () => {
  const old = pending('RayJob');
  const odd: any[] = [null, 7, 'x', [], { kind: 'RayJob' }, { kind: 'RayJob', spec: [] }, { kind: 'RayJob', spec: { suspend: 'false' } },
    { kind: 'RayService', spec: { rayClusterConfig: [true] } }, { kind: 'RayJob', metadata: { namespace: 5 }, spec: { suspend: false } },
    { kind: 'RayJob', metadata: { namespace: 'team-a', labels: [] }, spec: { suspend: false } }];
  for (const o of odd) {
    for (const [a, b] of [[old, o], [o, old], [o, o]]) {
      expect(() => onlyKueueUnsuspends({ oldObject: a, object: b, username: TENANT }, ruleCtx())).not.toThrow();
      expect(() => admissionVerdict(b, a, 'UPDATE', ctxOf(), { username: TENANT, namespace: 'team-a' })).not.toThrow();
    }
  }
  // A suspend that is not `true` before was not on: nothing to turn off.
  const stringly = { ...old, spec: { ...old.spec, suspend: 'true' } };
  expect(onlyKueueUnsuspends({ oldObject: stringly, object: withSuspend(old, 'spec.suspend', false), username: TENANT }, ruleCtx())).toEqual([]);
  // A new object whose spec is not an object has its suspend gone: refused (the API server's schema refuses it first anyway).
  expect(onlyKueueUnsuspends({ oldObject: old, object: { ...old, spec: [] }, username: TENANT }, ruleCtx()).map((f) => f.field))
    .toEqual(['spec.suspend']);
});

// The table: what onlyKueueUnsuspends (the rule src/policy/rules/kueue-unsuspend.ts defines) refuses, with its field, message and fix,
// and what it accepts.
describe('onlyKueueUnsuspends', () => {
  const job = pending('RayJob');
  const service = pending('RayService');
  test.each([
    ['a tenant turning a RayJob\'s spec.suspend off', job, withSuspend(job, 'spec.suspend', false), TENANT, 'spec.suspend'],
    ['a tenant removing a RayService\'s rayClusterConfig.suspend', service, withSuspend(service, 'spec.rayClusterConfig.suspend', undefined),
      TENANT, 'spec.rayClusterConfig.suspend'],
  ] as const)('refuses %s', (_name, oldObject, object, username, field) => {
    const findings = onlyKueueUnsuspends({ oldObject, object, username }, ruleCtx());
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: 'onlyKueueUnsuspends', severity: 'error', field });
    expect(findings[0].message).toMatch(/may not turn .* off/);
    expect(findings[0].fix.length).toBeGreaterThan(10);
  });

  test.each([
    ['Kueue\'s controller unsuspending on admission', job, withSuspend(job, 'spec.suspend', false), KUEUE],
    ['a tenant suspending nothing new (a label added)', job,
      { ...copy(job), metadata: { ...job.metadata, labels: { ...job.metadata.labels, a: 'b' } } }, TENANT],
    ['a tenant unsuspending outside tenant namespaces', pending('RayJob', 'default'),
      withSuspend(pending('RayJob', 'default'), 'spec.suspend', false), TENANT],
  ] as const)('accepts %s', (_name, oldObject, object, username) => {
    expect(onlyKueueUnsuspends({ oldObject, object, username }, ruleCtx())).toEqual([]);
  });
});
