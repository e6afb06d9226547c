// Only KubeRay makes Ray pods (issue 40, item 2), pure: the rule, and the verdict the webhook gives through the
// controller's handler. test/attack/tenants.e2e.test.ts runs the same against the real control plane, where the
// webhook's matchConditions decide which requests reach it at all.
import { AdmissionConfig, validateRayObject } from '../../../src/controller/admission';
import {
  DEFAULT_TRUSTED_WRITERS, Inventory, onlyKubeRayMakesRayPods, POD_TEMPLATE_KINDS, podTemplateKindOf, serviceAccountUser,
} from '../../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../../src/policy/versions';

const TENANT = 'mallory';
const inventory: Inventory = {
  localQueues: [{ namespace: 'team-a', name: 'default', clusterQueue: 'team-a', tenant: {}, tenantLabelled: true }],
  clusterQueues: [], cohorts: [], priorityClasses: [],
  namespaces: [{ name: 'team-a', labels: { 'cdk8s-kueue-ray.io/tenant': 'team-a' } }],
};
const config: AdmissionConfig = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' };
const ctx = { inventory, writers: DEFAULT_TRUSTED_WRITERS };
const RAY_LABELS = { 'ray.io/cluster': 'blocker-abcde', 'ray.io/node-type': 'worker', 'ray.io/group': 'w' };
const podSpec = { containers: [{ name: 'w', image: 'rayproject/ray:2.46.0',
  command: ['ray', 'start', '--address=blocker-head-svc:6379', '--block'] }] };

/** An object of the kind in `ns`, its pod (template) labelled `labels`. */
function objectOf(kind: string, labels: Record<string, string> | undefined, ns = 'team-a'): any {
  const k = POD_TEMPLATE_KINDS.find((x) => x.kind === kind)!;
  const podMeta = labels ? { labels } : {};
  const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
  if (kind === 'Pod') return { apiVersion, kind, metadata: { name: 'joiner', namespace: ns, ...podMeta }, spec: podSpec };
  const template = { metadata: podMeta, spec: podSpec };
  const spec = kind === 'CronJob' ? { schedule: '* * * * *', jobTemplate: { spec: { template } } } : { template };
  return { apiVersion, kind, metadata: { name: 'joiner', namespace: ns }, spec };
}
const review = (kind: string, object: any, extra: any = {}) => {
  const k = POD_TEMPLATE_KINDS.find((x) => x.kind === kind)!;
  return { uid: 'u1', kind: { group: k.group, version: k.version, kind }, namespace: object.metadata.namespace, operation: 'CREATE', object,
    userInfo: { username: TENANT }, ...extra };
};

describe.each(POD_TEMPLATE_KINDS.map((k) => k.kind))('%s', (kind) => {
  const k = podTemplateKindOf(POD_TEMPLATE_KINDS.find((x) => x.kind === kind)!.group, kind)!;
  const prefix = kind === 'Pod' ? 'metadata' : kind === 'CronJob' ? 'spec.jobTemplate.spec.template.metadata' : 'spec.template.metadata';

  test('a tenant\'s create with KubeRay\'s labels is refused (403), one finding per label, naming the field and the fix', () => {
    const f = onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, RAY_LABELS), username: TENANT }, ctx);
    expect(f.map((x) => x.field)).toEqual([`${prefix}.labels[ray.io/cluster]`, `${prefix}.labels[ray.io/node-type]`]);
    expect(f[0]).toMatchObject({ rule: 'onlyKubeRayMakesRayPods', severity: 'error', object: `${kind} team-a/joiner` });
    expect(f[0].message).toMatch(/^user "mallory" may not give (a pod|a \w+'s pods) KubeRay's label ray\.io\/cluster: namespace "team-a" is a tenant namespace, where only KubeRay's operator makes Ray pods/);
    expect(f[0].fix).toMatch(/^remove the label ray\.io\/cluster; for more Ray workers raise the RayCluster's worker group replicas/);
    const d = validateRayObject(review(kind, objectOf(kind, RAY_LABELS)), config, { inventory });
    expect(d.response).toMatchObject({ allowed: false, status: { code: 403, reason: 'Forbidden' } });
    expect(d.response.status!.message).toContain(`${kind} team-a/joiner: ${prefix}.labels[ray.io/cluster]: user "mallory" may not give`);
    expect(d.response.status!.message).toMatch(/\[onlyKubeRayMakesRayPods\]$/);
  });

  test('one label is enough; other labels, other namespaces and trusted writers pass', () => {
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, { 'ray.io/node-type': 'head' }), username: TENANT }, ctx)).toHaveLength(1);
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, { app: 'x', 'ray.io/group': 'w' }), username: TENANT }, ctx)).toEqual([]);
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, undefined), username: TENANT }, ctx)).toEqual([]);
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, RAY_LABELS, 'default'), username: TENANT }, ctx)).toEqual([]);
    for (const user of [DEFAULT_TRUSTED_WRITERS.kubeRay[0], serviceAccountUser('kube-system', 'job-controller'),
      serviceAccountUser('kube-system', 'replicaset-controller'), 'system:kube-controller-manager']) {
      expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, RAY_LABELS), username: user }, ctx)).toEqual([]);
    }
    // The request's namespace stands in for an object that names none (generateName creates).
    const o = objectOf(kind, RAY_LABELS);
    delete o.metadata.namespace;
    expect(onlyKubeRayMakesRayPods({ kind: k, object: o, username: TENANT, namespace: 'team-a' }, ctx)).toHaveLength(2);
  });

  test('UPDATE: adding or changing a label is refused; keeping, removing and every other change pass; DELETE always passes', () => {
    const old = objectOf(kind, RAY_LABELS);
    const annotated = { ...objectOf(kind, RAY_LABELS), metadata: { ...old.metadata, annotations: { note: 'x' } } };
    expect(onlyKubeRayMakesRayPods({ kind: k, object: annotated, oldObject: old, username: TENANT }, ctx)).toEqual([]);
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, { app: 'x' }), oldObject: old, username: TENANT }, ctx)).toEqual([]);
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, { ...RAY_LABELS, 'ray.io/cluster': 'other' }), oldObject: old,
      username: TENANT }, ctx).map((f) => f.field)).toEqual([`${prefix}.labels[ray.io/cluster]`]);
    expect(onlyKubeRayMakesRayPods({ kind: k, object: objectOf(kind, RAY_LABELS), oldObject: objectOf(kind, { app: 'x' }), username: TENANT },
      ctx)).toHaveLength(2);
    const del = validateRayObject(review(kind, objectOf(kind, RAY_LABELS), { operation: 'DELETE' }), config, { inventory });
    expect(del.response.allowed).toBe(true);
  });
});

test('malformed objects never throw: labels or templates of the wrong type count as none', () => {
  const pod = podTemplateKindOf('', 'Pod')!;
  const job = podTemplateKindOf('batch', 'Job')!;
  for (const object of [null, 7, 'x', [], { metadata: 'x' }, { metadata: { labels: ['ray.io/cluster'] } }, { spec: { template: 3 } },
    { metadata: { namespace: 'team-a', labels: null } }]) {
    expect(onlyKubeRayMakesRayPods({ kind: pod, object, username: TENANT, namespace: 'team-a' }, ctx)).toEqual([]);
    expect(onlyKubeRayMakesRayPods({ kind: job, object, oldObject: object, username: TENANT, namespace: 'team-a' }, ctx)).toEqual([]);
  }
  // A kind of another group with the same name is no pod kind; neither is an unknown one.
  expect(podTemplateKindOf('example.com', 'Job')).toBeUndefined();
  expect(podTemplateKindOf(undefined, 'Pod')).toBe(pod);
  const other = validateRayObject({ uid: 'u', kind: { group: 'example.com', version: 'v1', kind: 'Job' }, operation: 'CREATE',
    object: objectOf('Job', RAY_LABELS), userInfo: { username: TENANT } }, config, { inventory });
  expect(other.response.allowed).toBe(true);
});

// The table: what onlyKubeRayMakesRayPods (the rule src/policy/rules/kuberay-pod-claims.ts defines) refuses, with its field, message and
// fix, and what it accepts.
describe('onlyKubeRayMakesRayPods', () => {
  const pod = podTemplateKindOf('', 'Pod')!;
  const deployment = podTemplateKindOf('apps', 'Deployment')!;
  test.each([
    ['a tenant\'s Pod with ray.io/cluster', pod, objectOf('Pod', { 'ray.io/cluster': 'c' }), 'metadata.labels[ray.io/cluster]'],
    ['a tenant\'s Deployment whose pods get ray.io/node-type', deployment, objectOf('Deployment', { 'ray.io/node-type': 'worker' }),
      'spec.template.metadata.labels[ray.io/node-type]'],
  ] as const)('refuses %s', (_name, kind, object, field) => {
    const findings = onlyKubeRayMakesRayPods({ kind, object, username: TENANT }, ctx);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: 'onlyKubeRayMakesRayPods', severity: 'error', field });
    expect(findings[0].message).toMatch(/may not give .* KubeRay's label/);
    expect(findings[0].fix.length).toBeGreaterThan(10);
  });

  test.each([
    ['a tenant\'s Pod with other ray.io labels', pod, objectOf('Pod', { 'ray.io/group': 'w' }), TENANT],
    ['KubeRay\'s operator labelling its Pod', pod, objectOf('Pod', RAY_LABELS), DEFAULT_TRUSTED_WRITERS.kubeRay[0]],
    ['a Deployment with KubeRay\'s labels outside tenant namespaces', deployment, objectOf('Deployment', RAY_LABELS, 'default'), TENANT],
  ] as const)('accepts %s', (_name, kind, object, username) => {
    expect(onlyKubeRayMakesRayPods({ kind, object, username }, ctx)).toEqual([]);
  });
});
