// Tenancy and writers (pure): who is a tenant, which rules apply, and who may write a RayJob's or
// RayService's RayCluster. The e2e (test/attack/tenants.e2e.test.ts) shows the same on the real control plane.
import { AdmissionConfig, mutateRayObject, validateRayObject } from '../../src/controller/admission';
import {
  childWriteFindings, DEFAULT_TRUSTED_WRITERS, Inventory, narrowestRules, parseServiceAccount, rayParentOf, RULES, tenantOf, tenantQueueLabel,
  trustedWriterRole, untrustedRequestCel,
} from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { Chart, Testing } from 'cdk8s';
import { applyPatch } from 'fast-json-patch';
import { Quantity, ResourceFlavor, ResourceName, TenantQueue } from '../../src';

const KUBERAY = 'system:serviceaccount:kuberay-system:kuberay-operator';
const base: Inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
const ns = (name: string, labels: Record<string, string> = {}, annotations?: Record<string,
  string>) => ({ name, labels: { 'kubernetes.io/metadata.name': name, ...labels }, annotations });

describe('tenantOf', () => {
  test('a namespace labelled by TenantQueue is a tenant even with no rules and no queue yet', () => {
    const inv = { ...base, namespaces: [ns('t', { 'cdk8s-kueue-ray.io/tenant': 't' })] };
    expect(tenantOf(inv, 't')).toEqual({ namespace: 't', queue: undefined,
      rules: { allowedPriorityClasses: undefined, defaultPriorityClass: undefined, allowedPodPriorityClasses: undefined } });
    expect(tenantOf(inv, 'other')).toBeUndefined();
    // And the final-state rule refuses an unqueued object there, naming the missing queue.
    const obj = { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'c', namespace: 't' }, spec: {} };
    expect(tenantQueueLabel(obj, { kueue: kueueCapabilities('v0.19.2'), inventory: inv })[0].message).toMatch(/has no tenant LocalQueue \(yet\)/);
  });

  test('a LocalQueue with the tenant label makes a tenant without annotations; it is preferred over an annotated one', () => {
    const inv: Inventory = {
      ...base,
      localQueues: [
        { namespace: 't', name: 'aaa', clusterQueue: 'x', tenant: { allowedPriorityClasses: ['dev'] } },
        { namespace: 't', name: 'main', clusterQueue: 'x', tenant: {}, tenantLabelled: true },
      ],
    };
    expect(tenantOf(inv, 't')?.queue?.name).toBe('main');
  });

  test('the Namespace\'s rules win (the tenant cannot write it); without them, a tenant-made queue can only narrow the rules', () => {
    const queues = [
      { namespace: 't', name: 'default', clusterQueue: 'x', tenant: { allowedPriorityClasses: ['dev'], defaultPriorityClass: 'dev' },
        tenantLabelled: true },
      { namespace: 't', name: 'mine', clusterQueue: 'x',
        tenant: { allowedPriorityClasses: ['dev', 'prod'], defaultPriorityClass: 'prod', allowedPodPriorityClasses: ['system-cluster-critical'] } },
    ];
    const narrowed = tenantOf({ ...base, localQueues: queues }, 't')!.rules;
    expect(narrowed)
      .toEqual({ allowedPriorityClasses: ['dev'], defaultPriorityClass: undefined, allowedPodPriorityClasses: ['system-cluster-critical'] });
    // The pod classes: only one queue sets them, so the narrowest is that one; the Namespace's record overrides all of it.
    const tenantNs = ns('t', { 'cdk8s-kueue-ray.io/tenant': 't' }, { 'cdk8s-kueue-ray.io/allowed-priority-classes': 'dev' });
    const fromNs = tenantOf({ ...base, localQueues: queues, namespaces: [tenantNs] }, 't')!.rules;
    expect(fromNs).toEqual({ allowedPriorityClasses: ['dev'], defaultPriorityClass: undefined, allowedPodPriorityClasses: undefined });
    expect(narrowestRules([{ allowedPriorityClasses: ['a', 'b'], defaultPriorityClass: 'b' }, { defaultPriorityClass: 'b' }]))
      .toEqual({ allowedPriorityClasses: ['a', 'b'], defaultPriorityClass: 'b', allowedPodPriorityClasses: undefined });
  });
});

describe('writers', () => {
  const child = (replicas: number, extra: Record<string, any> = {}) => ({
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name: 'job-x', namespace: 't',
      ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'job', uid: 'u', controller: true }] },
    spec: { enableInTreeAutoscaling: true, headGroupSpec: { template: { spec: {} } },
      workerGroupSpecs: [{ groupName: 'w', replicas, minReplicas: 0, maxReplicas: 4 }], ...extra },
  });

  test('the trusted users and the CEL the webhooks match with', () => {
    expect(trustedWriterRole(KUBERAY, DEFAULT_TRUSTED_WRITERS)).toBe('kuberay');
    expect(trustedWriterRole('system:serviceaccount:kube-system:generic-garbage-collector', DEFAULT_TRUSTED_WRITERS)).toBe('system');
    expect(trustedWriterRole('alice', DEFAULT_TRUSTED_WRITERS)).toBeUndefined();
    expect(trustedWriterRole(undefined, DEFAULT_TRUSTED_WRITERS)).toBeUndefined();
    expect(untrustedRequestCel(DEFAULT_TRUSTED_WRITERS)).toMatch(/^!\(request\.userInfo\.username in \['system:serviceaccount:kuberay-system:kuberay-operator', /);
    expect(parseServiceAccount('ray-ops/kuberay', '--x')).toBe('system:serviceaccount:ray-ops:kuberay');
    expect(() => parseServiceAccount('kuberay', '--kuberay-service-account')).toThrow(/--kuberay-service-account takes NAMESPACE\/NAME/);
  });

  test('only a controller reference of ray.io kind RayJob or RayService makes a child', () => {
    expect(rayParentOf(child(1))).toEqual({ kind: 'RayJob', name: 'job' });
    expect(rayParentOf({ metadata: { ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'j' }] } })).toBeUndefined();
    expect(rayParentOf({ metadata: { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'RayJob', name: 'j', controller: true }] } }))
      .toBeUndefined();
    expect(rayParentOf({ metadata: { ownerReferences: 'nope' } })).toBeUndefined();
  });

  test('create by anyone but KubeRay is refused; so is turning an object into a child', () => {
    expect(childWriteFindings({ operation: 'CREATE', object: child(1), username: KUBERAY }, DEFAULT_TRUSTED_WRITERS)).toEqual([]);
    const f = childWriteFindings({ operation: 'CREATE', object: child(1), username: 'alice' }, DEFAULT_TRUSTED_WRITERS);
    expect(f.map((x) => [x.field, x.rule])).toEqual([['metadata.ownerReferences', 'rayChildWriter']]);
    const orphan = { ...child(1), metadata: { ...child(1).metadata, ownerReferences: [] } };
    expect(childWriteFindings({ operation: 'UPDATE', object: child(1), oldObject: orphan, username: 'alice' }, DEFAULT_TRUSTED_WRITERS)[0].message).toMatch(/may not turn into a RayCluster controlled by RayJob "job"/);
  });

  test('the autoscaler (the head\'s ServiceAccount, by default named after the cluster) scales workers within bounds; no one '
    + 'else changes the spec', () => {
    const autoscaler = 'system:serviceaccount:t:job-x';
    const up = { operation: 'UPDATE' as const, object: child(3), oldObject: child(1) };
    expect(childWriteFindings({ ...up, username: autoscaler }, DEFAULT_TRUSTED_WRITERS)).toEqual([]);
    expect(childWriteFindings({ ...up, username: 'alice' }, DEFAULT_TRUSTED_WRITERS)[0].message).toMatch(/user "alice" may not change the spec of a RayCluster controlled by RayJob "job".*and the Ray autoscaler its worker replicas/);
    expect(childWriteFindings({ ...up, object: child(5), username: autoscaler }, DEFAULT_TRUSTED_WRITERS)[0].field)
      .toBe('spec.workerGroupSpecs[0].replicas');
    // Its ServiceAccount when the head template names one.
    const named = (r: number) => child(r, { headGroupSpec: { template: { spec: { serviceAccountName: 'ray-head' } } } });
    expect(childWriteFindings({ operation: 'UPDATE', object: named(2), oldObject: named(1), username: 'system:serviceaccount:t:ray-head' },
      DEFAULT_TRUSTED_WRITERS)).toEqual([]);
    expect(childWriteFindings({ operation: 'UPDATE', object: named(2), oldObject: named(1), username: autoscaler }, DEFAULT_TRUSTED_WRITERS))
      .toHaveLength(1);
    // Anything beyond replicas, even from the autoscaler's user, is refused; metadata alone is anyone's.
    const resized = child(1, { headGroupSpec: { template: { spec: { containers: [{ name: 'h', resources: { requests: { cpu: '64' } } }] } } } });
    expect(childWriteFindings({ operation: 'UPDATE', object: resized, oldObject: child(1), username: autoscaler }, DEFAULT_TRUSTED_WRITERS)[0].field)
      .toBe('spec.headGroupSpec');
    const labelled = { ...child(1), metadata: { ...child(1).metadata, labels: { a: 'b' } } };
    expect(childWriteFindings({ operation: 'UPDATE', object: labelled, oldObject: child(1), username: 'alice' }, DEFAULT_TRUSTED_WRITERS))
      .toEqual([]);
    // Without autoscaling, no replicas change from anyone but KubeRay and Kueue.
    const fixed = (r: number) => child(r, { enableInTreeAutoscaling: false });
    expect(childWriteFindings({ operation: 'UPDATE', object: fixed(2), oldObject: fixed(1), username: 'system:serviceaccount:t:job-x' },
      DEFAULT_TRUSTED_WRITERS)).toHaveLength(1);
  });
});

describe('the webhook on the queue-name annotation, per Kueue version', () => {
  const inventory: Inventory = { ...base, localQueues: [{ namespace: 't', name: 'default', clusterQueue: 'cq', tenant: {}, tenantLabelled: true }],
    namespaces: [ns('t', { 'cdk8s-kueue-ray.io/tenant': 't' })] };
  const config = (kueue: string): AdmissionConfig => ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' });
  const obj = () => ({ apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'c', namespace: 't',
    annotations: { 'kueue.x-k8s.io/queue-name': 'default' } }, spec: { headGroupSpec: { template: { spec: {} } } } });
  const review = (o: any, operation = 'CREATE') => ({ uid: 'u', kind: { group: 'ray.io', version: 'v1', kind: 'RayCluster' }, namespace: 't',
    operation, object: o, userInfo: { username: 'alice' } });

  test('>= 0.15 reads only the label: the mutation adds it and suspend, and an object left with only the annotation is refused', () => {
    const d = mutateRayObject(review(obj()), config('v0.19.2'), { inventory });
    const out = applyPatch(obj(), JSON.parse(Buffer.from(d.response.patch!, 'base64').toString())).newDocument as any;
    expect(out.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('default');
    expect(out.spec.suspend).toBe(true);
    const v = validateRayObject(review(obj()), config('v0.19.2'), { inventory });
    expect(v.response.status?.message).toMatch(/metadata\.annotations\[kueue\.x-k8s\.io\/queue-name\]: Kueue v0\.19\.2 reads the queue name only from the label .*v0\.15\.0.*outside the tenant's quota/);
    // With the label, the annotation is reported as ignored, not refused.
    expect(validateRayObject(review(out), config('v0.19.2'), { inventory }).response.warnings?.join()).toMatch(/reads the queue name only from the label/);
  });

  test('before 0.15 Kueue honours the annotation: no label is added and the object passes', () => {
    expect(mutateRayObject(review(obj()), config('v0.14.8'), { inventory }).response.patch).toBeUndefined();
    const v = validateRayObject(review(obj()), config('v0.14.8'), { inventory });
    expect(v.findings.filter((f) => f.rule === 'tenantQueueLabel')).toEqual([]);
    expect(validateRayObject(review(obj()), config('v0.19.2'), { inventory }).findings.filter((f) => f.rule === 'tenantQueueLabel')).toHaveLength(1);
  });
});

describe('what a denial shows a tenant', () => {
  const inventory: Inventory = {
    ...base,
    localQueues: [
      { namespace: 'team-a', name: 'default', clusterQueue: 'a', tenant: { allowedPriorityClasses: ['dev'] }, tenantLabelled: true },
      { namespace: 'team-b', name: 'secret-queue', clusterQueue: 'b', tenant: { allowedPriorityClasses: ['vip'] }, tenantLabelled: true },
    ],
    priorityClasses: [{ name: 'dev', value: 1 }, { name: 'vip', value: 100 }],
  };
  const job = (labels: Record<string,
    string>) => ({ apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'j', namespace: 'team-a', labels }, spec: {} });
  const ctx = (audience?: 'tenant') => ({ kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), inventory, audience });

  test('no other namespace holding a queue of that name, and no priority class beyond the tenant\'s own', () => {
    const queue = job({ 'kueue.x-k8s.io/queue-name': 'secret-queue' });
    expect(RULES.queueExists(queue, ctx())[0].message).toMatch(/it exists in team-b/);
    expect(RULES.queueExists(queue, ctx('tenant'))[0].message).not.toMatch(/team-b/);
    const missing = job({ 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'nope' });
    expect(RULES.priorityClassAllowed(missing, ctx())[0].fix).toMatch(/"vip"/);
    const shown = RULES.priorityClassAllowed(missing, ctx('tenant')).map((f: any) => `${f.message} ${f.fix}`).join(' ');
    expect(shown).toMatch(/"dev"/);
    expect(shown).not.toMatch(/vip|team-b/);
  });
});

describe('TenantQueue on an existing namespace', () => {
  test('createNamespace: false still labels the namespace (the webhooks see only labelled ones), with nothing else of it', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    const flavor = new ResourceFlavor(chart, 'f');
    new TenantQueue(chart, 't', {
      namespace: 'existing', createNamespace: false, allowedPodPriorityClasses: ['batch-low'],
      resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(1) }] }] }],
    });
    const ns = Testing.synth(chart).find((o: any) => o.kind === 'Namespace');
    expect(ns.metadata).toEqual({ name: 'existing', labels: { 'cdk8s-kueue-ray.io/tenant': 'existing', 'cdk8s-kueue-ray.io/kueue-managed': 'true' },
      annotations: { 'cdk8s-kueue-ray.io/allowed-pod-priority-classes': 'batch-low' } });
    expect(Object.keys(ns).sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec'].filter((k) => k in ns));
  });
});
