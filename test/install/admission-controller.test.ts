// The AdmissionController construct: what it deploys, its least-privilege RBAC and webhook scoping.
import { Duration, Testing } from 'cdk8s';
import { AdmissionController, AntiAffinity, IssuerKind, KueueRayVersions, KueueVersion } from '../../src';

function synth(props = {}) {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.V0_17_8 });
  return new AdmissionController(app, 'controller', props).toJson();
}
const find = (objs: any[], kind: string) => objs.find((o) => o.kind === kind);

test('deploys namespace, service account, RBAC, a 2-replica Deployment with PDB, Service and both webhooks', () => {
  const objs = synth();
  expect(objs.map((o: any) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'MutatingWebhookConfiguration', 'Namespace',
    'NetworkPolicy', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'Secret', 'Service', 'ServiceAccount',
    'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'ValidatingWebhookConfiguration']);
  expect(find(objs, 'Namespace').metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  const dep = find(objs, 'Deployment');
  expect(dep.spec.replicas).toBe(2);
  expect(dep.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey)
    .toBe('kubernetes.io/hostname');
  const c = dep.spec.template.spec.containers[0];
  expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
    capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
  expect(c.args).toEqual(expect.arrayContaining(['controller', '--kueue-version=v0.17.8', '--kuberay-version=v1.6.2']));
  expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'webhook', scheme: 'HTTPS' });
  expect(find(objs, 'PodDisruptionBudget').spec.minAvailable).toBe(1);
  expect(dep.spec.template.spec.priorityClassName).toBe('system-cluster-critical');
  expect(find(synth({ priorityClassName: '' }), 'Deployment').spec.template.spec.priorityClassName).toBeUndefined();
});

test('the default image is the one released with this package version (scripts/image/build.sh tags it so)', () => {
  const { version } = require('../../package.json');
  expect(find(synth(), 'Deployment').spec.template.spec.containers[0].image).toBe(`ghcr.io/cdk8s-kueue-ray/controller:${version}`);
  expect(find(synth({ image: 'registry.example.com/c:1' }), 'Deployment').spec.template.spec.containers[0].image).toBe('registry.example.com/c:1');
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
  // Both fail closed in tenant namespaces: no tenant rule may depend on a webhook that fails open.
  expect(m.webhooks[0].failurePolicy).toBe('Fail');
  expect(v.webhooks[0].failurePolicy).toBe('Fail');
  expect(v.webhooks.map((w: any) => w.name)).toEqual(['vray.cdk8s-kueue-ray.io', 'vraypods.cdk8s-kueue-ray.io']);
  // Every other namespace, with validateAllNamespaces: a third webhook that fails open.
  const all = find(synth({ validateAllNamespaces: true }), 'ValidatingWebhookConfiguration').webhooks;
  expect(all.map((w: any) => [w.name, w.failurePolicy, w.namespaceSelector.matchExpressions[0].operator])).toEqual([
    ['vray.cdk8s-kueue-ray.io', 'Fail', 'Exists'], ['vraypods.cdk8s-kueue-ray.io', 'Fail', 'Exists'],
    ['vray-all.cdk8s-kueue-ray.io', 'Ignore', 'DoesNotExist'],
  ]);
});

test('the Ray pods webhook: CREATE and UPDATE of pods and every pod-making workload in tenant namespaces, called only for a pod (template) '
  + 'with KubeRay\'s labels and never for a trusted controller', () => {
  const w = find(synth(), 'ValidatingWebhookConfiguration').webhooks[1];
  expect(w).toMatchObject({ name: 'vraypods.cdk8s-kueue-ray.io', failurePolicy: 'Fail', sideEffects: 'None', timeoutSeconds: 5,
    namespaceSelector: { matchExpressions: [{ key: 'cdk8s-kueue-ray.io/tenant', operator: 'Exists' }] } });
  expect(w.clientConfig.service.path).toBe('/validate');
  expect(w.rules).toEqual([
    { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods', 'replicationcontrollers'] },
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'],
      resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets'] },
    { apiGroups: ['batch'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['jobs', 'cronjobs'] },
  ]);
  expect(w.matchConditions.map((c: any) => c.name)).toEqual(['not-a-trusted-controller', 'claims-kuberay-pod-labels']);
  expect(w.matchConditions[0]).toEqual(find(synth(), 'ValidatingWebhookConfiguration').webhooks[0].matchConditions[0]);
  expect(w.matchConditions[1].expression).toBe("(request.kind.kind in ['Pod'] ? object.?metadata.?labels : "
    + "request.kind.kind in ['ReplicationController', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job'] ? "
    + "object.?spec.?template.?metadata.?labels : request.kind.kind in ['CronJob'] ? object.?spec.?jobTemplate.?spec.?template.?metadata.?labels : "
    + "optional.none()).orValue({}).exists(k, k in ['ray.io/cluster', 'ray.io/node-type'])");
});

test('RBAC is least privilege: no secrets or leases cluster-wide, webhook patches only by name, no delete anywhere', () => {
  const objs = synth();
  const cr = find(objs, 'ClusterRole').rules;
  const all = cr.flatMap((r: any) => r.resources.map((res: string) => ({ res, verbs: r.verbs, names: r.resourceNames })));
  expect(all.some((r: any) => r.res === 'secrets' || r.res === 'leases')).toBe(false);
  expect(cr.flatMap((r: any) => r.verbs)).not.toContain('delete');
  // Webhook configurations: only its own two, by name, read and patch (no list/watch/update).
  const hooks = all.filter((x: any) => x.res.endsWith('webhookconfigurations'));
  expect(hooks).toHaveLength(2);
  for (const r of hooks) {
    expect(r.names).toHaveLength(1);
    expect(r.verbs.sort()).toEqual(['get', 'patch']);
  }
  // Secrets: only the one the chart creates empty, get and update (no create); Leases: create, and get/update its own.
  const role = find(objs, 'Role').rules;
  expect(role).toEqual(expect.arrayContaining([
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['cdk8s-kueue-ray-controller-tls'], verbs: ['get', 'update'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['cdk8s-kueue-ray-controller'], verbs: ['get', 'update'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  ]));
  expect(role).toHaveLength(3);
  const secret = find(objs, 'Secret');
  expect(secret.metadata).toMatchObject({ name: 'cdk8s-kueue-ray-controller-tls', namespace: 'cdk8s-kueue-ray-system' });
  expect(secret.data).toBeUndefined(); // the controller fills it; a re-apply does not own (or wipe) the data
});

test('neither webhook is called for KubeRay, Kueue, Kubernetes\' controllers or the controller itself (by user, not by any '
  + 'label a tenant can set)', () => {
  const objs = synth({ kubeRayServiceAccount: { namespace: 'ray-ops', name: 'kuberay' } });
  for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
    const w = find(objs, kind).webhooks[0];
    expect(w.objectSelector).toBeUndefined();
    expect(w.matchConditions).toEqual([{
      name: 'not-a-trusted-controller',
      expression: "!(request.userInfo.username in ['system:serviceaccount:ray-ops:kuberay', "
        + "'system:serviceaccount:kueue-system:kueue-controller-manager', 'system:kube-controller-manager', "
        + "'system:serviceaccount:kube-system:generic-garbage-collector', 'system:serviceaccount:kube-system:namespace-controller', "
        + "'system:serviceaccount:kube-system:deployment-controller', 'system:serviceaccount:kube-system:replicaset-controller', "
        + "'system:serviceaccount:kube-system:statefulset-controller', 'system:serviceaccount:kube-system:daemon-set-controller', "
        + "'system:serviceaccount:kube-system:job-controller', 'system:serviceaccount:kube-system:cronjob-controller', "
        + "'system:serviceaccount:kube-system:replication-controller', "
        + "'system:serviceaccount:cdk8s-kueue-ray-system:cdk8s-kueue-ray-controller'])",
    }]);
  }
  const args = find(objs, 'Deployment').spec.template.spec.containers[0].args;
  expect(args).toEqual(expect.arrayContaining(['--kuberay-service-account=ray-ops/kuberay',
    '--kueue-service-account=kueue-system/kueue-controller-manager']));
  expect(() => synth({ kueueServiceAccount: { namespace: 'Bad NS', name: 'x' } })).toThrow(/kueueServiceAccount .* is not a ServiceAccount reference/);
});

test('/metrics has its own port; the NetworkPolicy admits the webhook port from anywhere (or the CIDRs given) and the metrics port '
  + 'from the scrapers only', () => {
  const objs = synth();
  const c = find(objs, 'Deployment').spec.template.spec.containers[0];
  expect(c.ports).toEqual([{ name: 'webhook', containerPort: 9443, protocol: 'TCP' }, { name: 'metrics', containerPort: 8080, protocol: 'TCP' }]);
  expect(c.args).toContain('--metrics-port=8080');
  const np = find(objs, 'NetworkPolicy');
  expect(np.spec.policyTypes).toEqual(['Ingress']);
  expect(np.spec.podSelector).toEqual({ matchLabels: { 'app.kubernetes.io/name': 'cdk8s-kueue-ray-controller' } });
  expect(np.spec.ingress).toEqual([
    { ports: [{ port: 9443, protocol: 'TCP' }] },
    { ports: [{ port: 8080, protocol: 'TCP' }],
      from: [{ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['monitoring'] }] } }] },
  ]);
  const narrowed = find(synth({ webhookSourceCidrs: ['10.0.0.0/24'], metricsScraperNamespaces: [] }), 'NetworkPolicy');
  expect(narrowed.spec.ingress).toEqual([{ ports: [{ port: 9443, protocol: 'TCP' }], from: [{ ipBlock: { cidr: '10.0.0.0/24' } }] }]);
  expect(find(synth({ networkPolicy: false }), 'NetworkPolicy')).toBeUndefined();
  expect(() => synth({ webhookSourceCidrs: ['10.0.0.1'] })).toThrow(/webhookSourceCidrs '10.0.0.1' is not a CIDR/);
  expect(() => synth({ webhookSourceCidrs: [] })).toThrow(/webhookSourceCidrs is empty, so the API server could not reach the webhook/);
});

test('anti-affinity is preferred with 2+ replicas (no replica Pending on one node), required on request (one pod replaced at a time), '
  + 'none for one replica', () => {
  const spec = (p = {}) => find(synth(p), 'Deployment').spec;
  expect(spec().template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey)
    .toBe('kubernetes.io/hostname');
  expect(spec().template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution).toBeUndefined();
  expect(spec().strategy).toBeUndefined();
  const required = spec({ antiAffinity: AntiAffinity.REQUIRED });
  expect(required.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey)
    .toBe('kubernetes.io/hostname');
  expect(required.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
  expect(spec({ replicas: 1 }).template.spec.affinity).toBeUndefined();
});

test('a ValidatingAdmissionPolicy lets the controller\'s ServiceAccount change only the caBundle of its two configurations', () => {
  const objs = synth();
  const vap = find(objs, 'ValidatingAdmissionPolicy');
  expect(vap.spec.matchConstraints.resourceRules.map((r: any) => [r.resources[0], r.resourceNames, r.operations])).toEqual([
    ['mutatingwebhookconfigurations', ['cdk8s-kueue-ray-mutating'], ['UPDATE']],
    ['validatingwebhookconfigurations', ['cdk8s-kueue-ray-validating'], ['UPDATE']],
  ]);
  expect(vap.spec.matchConditions[0].expression)
    .toBe("request.userInfo.username == 'system:serviceaccount:cdk8s-kueue-ray-system:cdk8s-kueue-ray-controller'");
  expect(vap.spec.validations[0].expression).not.toMatch(/caBundle/);
  expect(find(objs, 'ValidatingAdmissionPolicyBinding').spec).toEqual({ policyName: vap.metadata.name, validationActions: ['Deny'] });
  expect(find(synth({ caBundleOnlyPolicy: false }), 'ValidatingAdmissionPolicy')).toBeUndefined();
  expect(find(synth({ certManager: {} }), 'ValidatingAdmissionPolicy')).toBeUndefined();
});

test('admission workers default to 1 and are passed to the controller; a bad count names the field', () => {
  const args = (p = {}) => find(synth(p), 'Deployment').spec.template.spec.containers[0].args;
  expect(args()).toContain('--admission-workers=1');
  expect(args({ admissionWorkers: 0 })).toContain('--admission-workers=0');
  expect(() => synth({ admissionWorkers: 1.5 })).toThrow(/admissionWorkers 1.5 must be a whole number from 0 to 16/);
});

describe('cert-manager certificates', () => {
  test('bootstraps a self-signed CA, issues the serving certificate for the Service names, and mounts it', () => {
    const objs = synth({ certManager: {} });
    const cm = objs.filter((o: any) => o.apiVersion === 'cert-manager.io/v1');
    expect(cm.map((o: any) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'Certificate/cdk8s-kueue-ray-controller-ca', 'Certificate/cdk8s-kueue-ray-controller-serving',
      'Issuer/cdk8s-kueue-ray-controller-ca', 'Issuer/cdk8s-kueue-ray-controller-selfsigned',
    ]);
    const serving = cm.find((o: any) => o.metadata.name === 'cdk8s-kueue-ray-controller-serving');
    expect(serving.metadata.namespace).toBe('cdk8s-kueue-ray-system');
    expect(serving.spec.dnsNames).toContain('cdk8s-kueue-ray-controller.cdk8s-kueue-ray-system.svc');
    expect(serving.spec).toMatchObject({ secretName: 'cdk8s-kueue-ray-controller-tls', duration: '2160h', renewBefore: '720h',
      issuerRef: { name: 'cdk8s-kueue-ray-controller-ca', kind: 'Issuer' } });
    // The Service the webhooks call is the name the certificate is for.
    const svc = find(objs, 'Service');
    expect(find(objs, 'MutatingWebhookConfiguration').webhooks[0].clientConfig.service)
      .toMatchObject({ name: svc.metadata.name, namespace: svc.metadata.namespace });
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      expect(find(objs, kind).metadata.annotations)
        .toEqual({ 'cert-manager.io/inject-ca-from': 'cdk8s-kueue-ray-system/cdk8s-kueue-ray-controller-serving' });
    }
    const pod = find(objs, 'Deployment').spec.template.spec;
    expect(pod.volumes).toEqual([{ name: 'tls', secret: { secretName: 'cdk8s-kueue-ray-controller-tls', defaultMode: 0o440 } }]);
    expect(pod.securityContext.fsGroup).toBe(65532);
    expect(pod.containers[0].volumeMounts).toEqual([{ name: 'tls', mountPath: '/etc/cdk8s-kueue-ray/tls', readOnly: true }]);
    expect(pod.containers[0].args)
      .toEqual(expect.arrayContaining(['--tls-cert-file=/etc/cdk8s-kueue-ray/tls/tls.crt', '--tls-key-file=/etc/cdk8s-kueue-ray/tls/tls.key']));
  });

  test('RBAC loses Secrets and the webhook-configuration verbs the controller no longer needs', () => {
    const objs = synth({ certManager: {} });
    expect(find(objs, 'Role').rules.map((r: any) => r.resources[0])).toEqual(['leases', 'leases']);
    expect(find(objs, 'Secret')).toBeUndefined();
    expect(find(objs, 'ClusterRole').rules.some((r: any) => r.apiGroups.includes('admissionregistration.k8s.io'))).toBe(false);
    // Self-managed mode keeps them (and has no cert-manager objects or annotations).
    const self = synth();
    expect(self.some((o: any) => o.apiVersion === 'cert-manager.io/v1')).toBe(false);
    expect(find(self, 'MutatingWebhookConfiguration').metadata.annotations).toBeUndefined();
    expect(find(self, 'Deployment').spec.template.spec.volumes).toBeUndefined();
  });

  test('an existing ClusterIssuer is used as is, with the lifetimes given', () => {
    const objs = synth({ certManager: { issuerName: 'corp-ca', issuerKind: IssuerKind.CLUSTER_ISSUER, duration: Duration.days(30),
      renewBefore: Duration.days(10) } });
    const cm = objs.filter((o: any) => o.apiVersion === 'cert-manager.io/v1');
    expect(cm.map((o: any) => o.kind)).toEqual(['Certificate']);
    expect(cm[0].spec)
      .toMatchObject({ issuerRef: { name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' }, duration: '720h', renewBefore: '240h' });
  });

  test('graceful preemption reaches Ray objects outside tenant namespaces too, through a second mutating webhook that fails open', () => {
    const hooks = (objs: any[]) => objs.find((o: any) => o.kind === 'MutatingWebhookConfiguration').webhooks;
    expect(hooks(synth()).map((w: any) => w.name)).toEqual(['mray.cdk8s-kueue-ray.io']);
    const [tenant, all] = hooks(synth({ gracefulPreemption: { terminationGracePeriod: Duration.seconds(60), preStopSleep: Duration.seconds(20) } }));
    expect(tenant)
      .toMatchObject({ failurePolicy: 'Fail', namespaceSelector: { matchExpressions: [{ key: 'cdk8s-kueue-ray.io/tenant', operator: 'Exists' }] } });
    expect(all).toMatchObject({
      name: 'mray-all.cdk8s-kueue-ray.io', failurePolicy: 'Ignore', rules: tenant.rules, matchConditions: tenant.matchConditions,
      clientConfig: tenant.clientConfig, namespaceSelector: { matchExpressions: [{ key: 'cdk8s-kueue-ray.io/tenant', operator: 'DoesNotExist' }] },
    });
  });

  test('bad cert-manager settings name the field and the fix', () => {
    expect(() => synth({ certManager: { issuerName: 'x', issuerKind: 'Issuers' as IssuerKind } })).toThrow(/certManager.issuerKind 'Issuers' must be IssuerKind.ISSUER or IssuerKind.CLUSTER_ISSUER/);
    expect(() => synth({ certManager: { issuerName: 'x', duration: Duration.minutes(30) } })).toThrow(/certManager.duration is 1800 s; cert-manager requires at least 1 hour/);
    expect(() => synth({ certManager: { renewBefore: Duration.days(100) } })).toThrow(/renewBefore \(8640000 s\) must be shorter than certManager.duration \(7776000 s\)/);
    expect(() => synth({ gracefulPreemption: { terminationGracePeriod: Duration.seconds(20), preStopSleep: Duration.seconds(20) } })).toThrow(/preStopSleep \(20 s\) must be shorter than terminationGracePeriod \(20 s\)/);
    expect(() => synth({ certManager: { issuerKind: IssuerKind.CLUSTER_ISSUER } })).toThrow(/certManager.issuerKind is set but certManager.issuerName is not/);
  });
});
