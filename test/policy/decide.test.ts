// The admission decisions as data (src/policy/decide.ts): what the controller's webhooks answer is the
// wire form of these, and `check` calls the defaulter directly.
import { applyPatch } from 'fast-json-patch';
import { mutateRayObject, validateRayObject } from '../../src/controller/admission';
import { admissionDefaults, applyDefaulting, decide, Inventory } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';

const ns = (name: string, labels: Record<string, string> = {}, annotations?: Record<string,
  string>) => ({ name, labels: { 'kubernetes.io/metadata.name': name, ...labels }, annotations });
const inventory: Inventory = {
  localQueues: [{ namespace: 't', name: 'default', clusterQueue: 'cq', tenant: {}, tenantLabelled: true }],
  clusterQueues: [], cohorts: [], priorityClasses: [{ name: 'dev', value: 10 }],
  namespaces: [ns('t', { 'cdk8s-kueue-ray.io/tenant': 't' }, { 'cdk8s-kueue-ray.io/default-priority-class': 'dev' })],
};
const settings = (kueue = 'v0.19.2') => ({
  kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' as const,
  gracefulPreemption: { terminationGracePeriodSeconds: 120, preStopSleepSeconds: 30 },
});
const service = () => ({
  apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 's', namespace: 't' },
  spec: { rayClusterConfig: { headGroupSpec: { template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.9.0' }] } } },
    workerGroupSpecs: [{ groupName: 'w', replicas: 1,
      template: { spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'w', image: 'i', lifecycle: {} }] } } }] } },
});
const review = (o: any, operation = 'CREATE') => ({ uid: 'u', kind: { group: 'ray.io', version: 'v1', kind: o.kind }, namespace: 't', operation,
  object: o, userInfo: { username: 'alice' } });

test('the defaults are data: the labels, the suspend field of the kind and version, graceful-preemption per pod template', () => {
  expect(admissionDefaults(service(), 'CREATE', { ...settings(), inventory }, { username: 'alice' })).toEqual({
    labels: [{ key: 'kueue.x-k8s.io/queue-name', value: 'default' }, { key: 'kueue.x-k8s.io/priority-class', value: 'dev' }],
    suspend: 'spec.rayClusterConfig.suspend',
    podTemplates: [
      { template: 'spec.rayClusterConfig.headGroupSpec.template', terminationGracePeriodSeconds: 120, preStopSleepSeconds: 30,
        createLifecycle: true },
      { template: 'spec.rayClusterConfig.workerGroupSpecs[0].template', preStopSleepSeconds: 30 },
    ],
  });
  // Kueue before 0.17 suspends the RayService's RayCluster itself: no suspend field on the RayService.
  expect(admissionDefaults(service(), 'CREATE', { ...settings('v0.14.8'), inventory }).suspend).toBeUndefined();
  // Not on UPDATE, and never for a trusted writer.
  expect(admissionDefaults(service(), 'UPDATE', { ...settings(), inventory }).labels).toEqual([]);
  const kuberay = { username: 'system:serviceaccount:kuberay-system:kuberay-operator' };
  expect(admissionDefaults(service(), 'CREATE', { ...settings(), inventory }, kuberay)).toEqual({ labels: [], podTemplates: [] });
});

test.each(['v0.19.2',
  'v0.14.8'])('Kueue %s: the mutating webhook\'s patch gives the object applyDefaulting gives, and the verdicts agree', (kueue) => {
  const config = settings(kueue);
  const patch = mutateRayObject(review(service()), config, { inventory }).response.patch!;
  const patched = applyPatch(service(), JSON.parse(Buffer.from(patch, 'base64').toString())).newDocument;
  const d = decide(service(), undefined, 'CREATE', { ...config, inventory }, { username: 'alice', namespace: 't' });
  expect(d.object).toEqual(patched);
  expect(applyDefaulting(service(), d.defaulting)).toEqual(patched);
  expect(service().metadata).toEqual({ name: 's', namespace: 't' }); // the input is not changed
  const webhook = validateRayObject(review(patched), config, { inventory }).response;
  expect(d.verdict.outcome === 'allowed').toBe(webhook.allowed);
  expect(d.verdict.warnings).toEqual(webhook.warnings ?? []);
});

test('the verdict: forbidden for a status write, invalid for a broken rule, allowed for DELETE', () => {
  const ctx = { ...settings(), inventory };
  expect(decide(service(), service(), 'UPDATE', ctx, { username: 'alice', subResource: 'status', namespace: 't' }).verdict.outcome).toBe('forbidden');
  const unlabelled = service();
  expect(decide(unlabelled, undefined, 'DELETE', ctx).verdict.outcome).toBe('allowed');
  const badName = { ...service(), metadata: { name: 'x'.repeat(60), namespace: 't' } };
  const v = decide(badName, undefined, 'CREATE', ctx, { username: 'alice' }).verdict;
  expect(v.outcome).toBe('invalid');
  expect(v.message).toMatch(/KubeRay refuses RayService names longer than 47/);
});
