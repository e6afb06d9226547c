// The AdmissionController construct: what it deploys, its least-privilege RBAC and webhook scoping.
import { Testing } from 'cdk8s';
import { AdmissionController, KueueRayVersions, KueueVersion } from '../src';

function synth(props = {}) {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.V0_17_8 });
  return new AdmissionController(app, 'controller', props).toJson();
}
const find = (objs: any[], kind: string) => objs.find((o) => o.kind === kind);

test('deploys namespace, service account, RBAC, a 2-replica Deployment with PDB, Service and both webhooks', () => {
  const objs = synth();
  expect(objs.map((o: any) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'MutatingWebhookConfiguration', 'Namespace', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'Service', 'ServiceAccount', 'ValidatingWebhookConfiguration']);
  expect(find(objs, 'Namespace').metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  const dep = find(objs, 'Deployment');
  expect(dep.spec.replicas).toBe(2);
  expect(dep.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey).toBe('kubernetes.io/hostname');
  const c = dep.spec.template.spec.containers[0];
  expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
  expect(c.args).toEqual(expect.arrayContaining(['controller', '--kueue-version=v0.17.8', '--kuberay-version=v1.6.2']));
  expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'webhook', scheme: 'HTTPS' });
  expect(find(objs, 'PodDisruptionBudget').spec.minAvailable).toBe(1);
});

test('the mutating configuration sorts before Kueue\'s and both are scoped to tenant namespaces with documented policies', () => {
  const objs = synth();
  const m = find(objs, 'MutatingWebhookConfiguration');
  const v = find(objs, 'ValidatingWebhookConfiguration');
  expect([m.metadata.name, 'kueue-mutating-webhook-configuration'].sort()[0]).toBe(m.metadata.name);
  for (const w of [m.webhooks[0], v.webhooks[0]]) {
    expect(w.namespaceSelector).toEqual({ matchExpressions: [{ key: 'cdk8s-kueue-ray.io/tenant', operator: 'Exists' }] });
    expect(w.sideEffects).toBe('None');
    expect(w.timeoutSeconds).toBe(5);
  }
  expect(m.webhooks[0].failurePolicy).toBe('Fail');
  expect(v.webhooks[0].failurePolicy).toBe('Ignore');
  expect(find(synth({ validateAllNamespaces: true }), 'ValidatingWebhookConfiguration').webhooks[0].namespaceSelector).toBeUndefined();
});

test('RBAC is least privilege: no secrets or leases cluster-wide, webhook patches only by name, no delete anywhere', () => {
  const objs = synth();
  const cr = find(objs, 'ClusterRole').rules;
  const all = cr.flatMap((r: any) => r.resources.map((res: string) => ({ res, verbs: r.verbs, names: r.resourceNames })));
  expect(all.some((r: any) => r.res === 'secrets' || r.res === 'leases')).toBe(false);
  expect(cr.flatMap((r: any) => r.verbs)).not.toContain('delete');
  for (const r of all.filter((x: any) => x.res.endsWith('webhookconfigurations') && x.verbs.includes('patch'))) expect(r.names).toHaveLength(1);
  expect(find(objs, 'Role').rules.map((r: any) => r.resources[0]).sort()).toEqual(['leases', 'secrets']);
});
