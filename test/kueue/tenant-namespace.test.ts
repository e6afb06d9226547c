// What TenantQueue writes into its namespace (the managed-namespace label, the ResourceQuota backstop, the
// NetworkPolicies around its Ray pods), how KueueInstall's Configuration meets it, and Ray's token
// authentication on the Ray constructs: defaults, opt-outs and the errors that name the prop and the fix.
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { parse as parseYaml } from 'yaml';
import {
  ClusterQueue, Cohort, KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion, LocalQueue, Quantity, QueuedRayCluster,
  QueuedRayJob, ResourceFlavor, ResourceName, TenantQueue,
} from '../../src';
import { vendorDir } from '../support/upstream';

const VENDOR = vendorDir();
const head = { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) } };

function setup(kueue = 'v0.19.2', kubeRay = 'v1.6.2') {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  const chart = new Chart(app, 'c');
  const flavor = new ResourceFlavor(chart, 'default-flavor');
  const quota = (cpu: number, borrowCpu?: number) => [{ flavors: [{ flavor, quotas: [
    { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(cpu), borrowingLimit: borrowCpu !== undefined ? Quantity.cpu(borrowCpu) : undefined },
    { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(8) },
  ] }] }];
  return { app, chart, flavor, quota };
}
const synth = (app: App) => app.node.findAll().filter((c): c is Chart => c instanceof Chart).flatMap((c) => c.toJson());
const find = (out: any[], kind: string, name?: string) => out.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

function kueueInstall(app: App, version: string, props: Record<string, any> = {}): KueueInstall {
  if (!VENDOR) throw new Error('needs ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
  return new KueueInstall(app, 'kueue', { manifestFile: path.join(VENDOR, 'kueue', version, 'manifests.yaml'), ...props });
}
const configuration = (k: KueueInstall) => parseYaml(k.toJson().find((o: any) => o.kind === 'ConfigMap'
  && o.metadata.name === 'kueue-manager-config').data['controller_manager_config.yaml']);

describe('TenantQueue namespace', () => {
  test('by default: the managed-namespace label, a ResourceQuota at the admission ceiling, the two NetworkPolicies', () => {
    const { app, chart, quota } = setup();
    const cohort = new Cohort(chart, 'org');
    const a = new TenantQueue(chart, 'team-a', { namespace: 'team-a', cohort, resourceGroups: quota(4, 2) });
    // team-b has no borrowing limit: the cohort's total (4 + 6) bounds it.
    new TenantQueue(chart, 'team-b', { namespace: 'team-b', cohort, resourceGroups: quota(6) });
    expect(a.manageAllWorkloads).toBe(true);
    const out = synth(app);
    const ns = find(out, 'Namespace', 'team-a')[0];
    expect(ns.metadata.labels).toEqual({ 'cdk8s-kueue-ray.io/tenant': 'team-a', 'cdk8s-kueue-ray.io/kueue-managed': 'true' });
    const quotas = find(out, 'ResourceQuota');
    expect(quotas.map((q) => [q.metadata.namespace, q.metadata.name, q.spec.hard])).toEqual([
      ['team-a', 'tenant-admission-cap', { 'requests.cpu': '6', 'requests.memory': '16Gi' }],
      ['team-b', 'tenant-admission-cap', { 'requests.cpu': '10', 'requests.memory': '16Gi' }],
    ]);
    const policies = find(out, 'NetworkPolicy').filter((p) => p.metadata.namespace === 'team-a');
    expect(policies.map((p) => p.metadata.name)).toEqual(['tenant-ray-pods', 'tenant-ray-serve']);
    expect(policies[0].spec.ingress[1].from[0].namespaceSelector).toEqual({ matchLabels: { 'kubernetes.io/metadata.name': 'kuberay-system' } });
    expect(policies[0].spec.ingress[2].from[0].namespaceSelector.matchExpressions[0].values).toEqual(['monitoring']);
  });

  test('a shared ClusterQueue caps the tenant at the whole queue; options reach the policies', () => {
    const { app, chart, flavor } = setup();
    const shared = new ClusterQueue(chart, 'shared', { resourceGroups: [{ flavors: [{ flavor, quotas: [
      { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(3) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse('6G') }] }] }] });
    new TenantQueue(chart, 't', { namespace: 't', clusterQueue: shared, metricsScraperNamespaces: ['prom-a', 'prom-b'],
      kubeRayOperatorNamespace: 'ray-ops' });
    const out = synth(app);
    expect(find(out, 'ResourceQuota')[0].spec.hard).toEqual({ 'requests.cpu': '3', 'requests.memory': '6G' });
    const ray = find(out, 'NetworkPolicy', 'tenant-ray-pods')[0];
    expect(ray.spec.ingress[1].from[0].namespaceSelector.matchLabels).toEqual({ 'kubernetes.io/metadata.name': 'ray-ops' });
    expect(ray.spec.ingress[2].from[0].namespaceSelector.matchExpressions[0].values).toEqual(['prom-a', 'prom-b']);
  });

  test('the operator rule selects the pods KubeRayInstall makes, in its namespace (even when constructed after the tenant)', () => {
    if (!VENDOR) throw new Error('needs ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
    const { app, chart, quota } = setup();
    new TenantQueue(chart, 't', { namespace: 't', resourceGroups: quota(2) });
    const kr = new KubeRayInstall(app, 'kuberay', { namespace: 'ray-ops',
      crdDir: path.join(VENDOR, 'kuberay', 'v1.6.2', 'ray-operator', 'config', 'crd', 'bases') });
    const ray = find(synth(app), 'NetworkPolicy', 'tenant-ray-pods')[0];
    const rule = ray.spec.ingress[1].from[0];
    expect(rule.namespaceSelector.matchLabels['kubernetes.io/metadata.name']).toBe('ray-ops');
    const podLabels = kr.deployment.toJson().spec.template.metadata.labels;
    for (const [k, v] of Object.entries(rule.podSelector.matchLabels)) expect(podLabels[k]).toBe(v);
  });

  test('KubeRayInstalls in two namespaces: the operator namespace must be named', () => {
    if (!VENDOR) throw new Error('needs ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
    const { app, chart, quota } = setup();
    new TenantQueue(chart, 't', { namespace: 't', resourceGroups: quota(2) });
    const crdDir = path.join(VENDOR, 'kuberay', 'v1.6.2', 'ray-operator', 'config', 'crd', 'bases');
    new KubeRayInstall(app, 'kuberay-a', { namespace: 'ray-a', crdDir });
    new KubeRayInstall(app, 'kuberay-b', { namespace: 'ray-b', crdDir });
    expect(() => app.synth()).toThrow(/KubeRayInstalls run the operator in ray-a, ray-b.*Fix: set kubeRayOperatorNamespace/);
  });

  test('opt-outs: no label, no ResourceQuota, no NetworkPolicy', () => {
    const { app, chart, quota } = setup();
    const t = new TenantQueue(chart, 't', { namespace: 't', resourceGroups: quota(2), manageAllWorkloads: false, resourceQuota: false,
      networkPolicies: false });
    const out = synth(app);
    expect(find(out, 'Namespace')[0].metadata.labels).toEqual({ 'cdk8s-kueue-ray.io/tenant': 't' });
    expect(find(out, 'ResourceQuota')).toEqual([]);
    expect(find(out, 'NetworkPolicy')).toEqual([]);
    expect(t.resourceQuota).toBeUndefined();
    expect(t.networkPolicies).toEqual([]);
  });

  test('a ResourceQuota for a ClusterQueue the app does not define is refused, naming the prop and the fix', () => {
    const { app, chart } = setup();
    new TenantQueue(chart, 't', { namespace: 't', clusterQueue: ClusterQueue.fromClusterQueueName(chart, 'ext', 'elsewhere') });
    expect(() => app.synth()).toThrow(/TenantQueue 'c\/t': resourceQuota needs the quota of ClusterQueue "elsewhere".*Fix: .*resourceQuota: false/);
  });

  test('bad namespace names are refused at construction', () => {
    const { chart, quota } = setup();
    expect(() => new TenantQueue(chart, 'a', { namespace: 'a', resourceGroups: quota(1), metricsScraperNamespaces: ['Prom'] }))
      .toThrow(/metricsScraperNamespaces entry "Prom" is not a valid namespace name/);
    expect(() => new TenantQueue(chart, 'b', { namespace: 'b', resourceGroups: quota(1), kubeRayOperatorNamespace: 'ray_ops' }))
      .toThrow(/kubeRayOperatorNamespace "ray_ops"/);
  });
});

describe('KueueInstall and managed tenant namespaces', () => {
  test.each(['v0.19.2', 'v0.14.8'])('Kueue %s: the Configuration selects the labelled namespaces and turns on the integrations', (v) => {
    const { app, chart, quota } = setup(v, 'v1.6.2');
    new TenantQueue(chart, 't', { namespace: 't', resourceGroups: quota(2) });
    const config = configuration(kueueInstall(app, v));
    expect(config.manageJobsWithoutQueueName).toBe(true);
    expect(config.managedJobsNamespaceSelector).toEqual({ matchLabels: { 'cdk8s-kueue-ray.io/kueue-managed': 'true' } });
    for (const f of ['batch/job', 'pod', 'deployment', 'statefulset']) expect(config.integrations.frameworks).toContain(f);
  });

  test('no managed tenant: the Configuration is the release\'s; manageTenantNamespaces: true writes the selector anyway', () => {
    const a = setup();
    new TenantQueue(a.chart, 't', { namespace: 't', resourceGroups: a.quota(2), manageAllWorkloads: false });
    const plain = configuration(kueueInstall(a.app, 'v0.19.2'));
    expect(plain.manageJobsWithoutQueueName).toBeUndefined();
    expect(plain.managedJobsNamespaceSelector).toBeUndefined();
    const b = setup();
    const forced = configuration(kueueInstall(b.app, 'v0.19.2', { manageTenantNamespaces: true }));
    expect(forced.managedJobsNamespaceSelector).toEqual({ matchLabels: { 'cdk8s-kueue-ray.io/kueue-managed': 'true' } });
  });

  test('a LocalQueue outside the managed tenant namespaces is refused: Kueue filters every job by the selector', () => {
    const a = setup();
    new TenantQueue(a.chart, 't', { namespace: 't', resourceGroups: a.quota(2) });
    const cq = new ClusterQueue(a.chart, 'cq', { resourceGroups: a.quota(2) });
    new LocalQueue(a.chart, 'user-queue', { namespace: 'default', clusterQueue: cq });
    kueueInstall(a.app, 'v0.19.2');
    expect(() => a.app.synth()).toThrow(/also queues jobs in namespace "default": Kueue applies that selector to every job.*Fix: set manageAllWorkloads: false on the TenantQueues/s);
    // The same app with the tenant not managed whole synthesizes, and Kueue's Configuration has no selector.
    const b = setup();
    new TenantQueue(b.chart, 't', { namespace: 't', resourceGroups: b.quota(2), manageAllWorkloads: false });
    const cqB = new ClusterQueue(b.chart, 'cq', { resourceGroups: b.quota(2) });
    new LocalQueue(b.chart, 'user-queue', { namespace: 'default', clusterQueue: cqB });
    const k = kueueInstall(b.app, 'v0.19.2');
    expect(() => b.app.synth()).not.toThrow();
    expect(configuration(k).managedJobsNamespaceSelector).toBeUndefined();
  });

  test('props that contradict managed tenants are refused with the fix', () => {
    const a = setup();
    new TenantQueue(a.chart, 't', { namespace: 't', resourceGroups: a.quota(2) });
    kueueInstall(a.app, 'v0.19.2', { manageTenantNamespaces: false });
    expect(() => a.app.synth()).toThrow(/manageTenantNamespaces is false, but the TenantQueues of t have Kueue manage.*Fix: remove manageTenantNamespaces: false, or set manageAllWorkloads: false/);
    const b = setup();
    new TenantQueue(b.chart, 't', { namespace: 't', resourceGroups: b.quota(2) });
    kueueInstall(b.app, 'v0.19.2', { manageJobsWithoutQueueName: false });
    expect(() => b.app.synth()).toThrow(/manageJobsWithoutQueueName is false, but tenant namespaces are managed whole.*Fix:/);
  });
});

describe('Ray token authentication', () => {
  const job = (chart: Chart, id: string, extra: Record<string, any> = {}) => new QueuedRayJob(chart, id, {
    queueName: 'lq', namespace: 'default', entrypoint: 'python x.py', headGroup: head, ...extra });
  const cluster = (chart: Chart, id: string, extra: Record<string, any> = {}) => new QueuedRayCluster(chart, id, {
    queueName: 'lq', namespace: 'default', headGroup: head, ...extra });

  test('on by default where KubeRay and Ray support it; off with the default Ray 2.46.0 and on KubeRay 1.4', () => {
    const { chart } = setup();
    expect(job(chart, 'new', { rayVersion: '2.52.0' }).toManifest().spec.rayClusterSpec.authOptions).toEqual({ mode: 'token' });
    expect(cluster(chart, 'rc', { rayVersion: '2.53.0' }).toManifest().spec.authOptions).toEqual({ mode: 'token' });
    const old = job(chart, 'old');
    expect(old.tokenAuthentication).toBe(false);
    expect(old.toManifest().spec.rayClusterSpec.authOptions).toBeUndefined();
    const k14 = setup('v0.14.8', 'v1.4.2');
    expect(job(k14.chart, 'j', { rayVersion: '2.52.0' }).toManifest().spec.rayClusterSpec.authOptions).toBeUndefined();
  });

  test('authentication: false turns it off; true where it cannot work is refused at the call, naming the prop and the fix', () => {
    const { chart } = setup();
    expect(job(chart, 'off', { rayVersion: '2.52.0', authentication: false }).toManifest().spec.rayClusterSpec.authOptions).toBeUndefined();
    expect(() => job(chart, 'bad', { authentication: true }))
      .toThrow(/RayJob 'c\/bad': authentication is true, but Ray 2.46.0 has no token authentication.*Fix: use rayVersion "2.52.0" or later/);
    const k14 = setup('v0.14.8', 'v1.4.2');
    expect(() => job(k14.chart, 'j', { rayVersion: '2.52.0', authentication: true })).toThrow(/KubeRay v1.4.2 has no authOptions/);
  });
});
