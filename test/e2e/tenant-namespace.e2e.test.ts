// A TenantQueue's namespace on the real kube-apiserver with real Kueue (issue 40, items 2 and 3): Kueue
// runs with the Configuration edit KueueInstall makes for managed tenant namespaces, so a bare Pod, a batch
// Job and a Deployment that a tenant creates without a queue label are gated or suspended and charged to
// the tenant's LocalQueue (held, with no queue, where that queue is not named "default"), while a namespace
// without the label is left alone; the ResourceQuota caps a pod
// Kueue does not manage (one that names an admitted-or-pending Ray cluster as its owner, as the round-two
// attack did); the NetworkPolicies are stored as written; a Ray construct's authOptions passes the CRD.
import * as fs from 'fs';
import { App, Chart, Testing } from 'cdk8s';
import { parse as parseYaml } from 'yaml';
import {
  Cohort, KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, QueuedRayCluster, ResourceFlavor, ResourceName, TenantQueue,
} from '../../src';
import { editConfiguration } from '../../src/install/kueue-configuration';
import { kueueManagedNamespaceSelector, MANAGED_NAMESPACE_FRAMEWORKS } from '../../src/policy/tenant-namespace';
import { kueueCapabilities } from '../../src/policy/versions';
import { readKueueFile } from '../support/upstream';
import { TestCluster } from './support/cluster';
import { KubeClient, KubeError, waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIRS: Array<[string, string]> = [['v0.19.2', 'v1.6.2'], ['v0.17.0', 'v1.6.2'], ['v0.14.8', 'v1.6.2']];
const TENANT = 'tenant-user';
const NS = 'team-a';
const ADMISSION_GATE = 'kueue.x-k8s.io/admission';
const QUEUE_LABEL = 'kueue.x-k8s.io/queue-name';

/** team-a: 4 CPU nominal, 2 CPU borrowing limit, in a cohort with team-b (4 CPU); 16Gi memory each. */
function tenantObjects(kueue: string, kubeRay: string): { objects: any[]; rayCluster: any } {
  const app: App = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  const chart = new Chart(app, 'tenants');
  const flavor = new ResourceFlavor(chart, 'tn-flavor');
  const cohort = new Cohort(chart, 'tn-cohort');
  const quota = (borrow?: number) => [{ flavors: [{ flavor, quotas: [
    { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(4), borrowingLimit: borrow !== undefined ? Quantity.cpu(borrow) : undefined },
    { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) },
  ] }] }];
  const a = new TenantQueue(chart, 'team-a', { namespace: NS, cohort, resourceGroups: quota(2) });
  // team-b's LocalQueue is not named "default", so Kueue's LocalQueueDefaulting does not label its workloads.
  new TenantQueue(chart, 'team-b', { namespace: 'team-b', cohort, resourceGroups: quota(), queueName: 'main' });
  // Ray 2.52.0: token authentication on by default where KubeRay has authOptions.
  const rc = new QueuedRayCluster(chart, 'authed', { queue: a, rayVersion: '2.52.0',
    headGroup: { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } } });
  return { objects: chart.toJson(), rayCluster: rc.toManifest() };
}

/** The release's Configuration with what KueueInstall adds for managed tenant namespaces (the same edit function). */
async function managedConfiguration(kueue: string): Promise<Record<string, any>> {
  const release = parseYaml(await readKueueFile(kueue, 'config/components/manager/controller_manager_config.yaml'));
  const edit = editConfiguration(release, { managedNamespaceSelector: kueueManagedNamespaceSelector(),
    frameworks: ['ray.io/rayjob', 'ray.io/raycluster', ...MANAGED_NAMESPACE_FRAMEWORKS] }, kueueCapabilities(kueue), 'e2e');
  return edit.config!;
}

/**
 * The harness registers only Kueue's ray.io and kueue.x-k8s.io webhooks: this adds its pod, batch/job, deployment
 * and statefulset webhooks from the same release, pointed at the same local server.
 */
async function registerWorkloadWebhooks(cluster: TestCluster, kueue: string): Promise<number> {
  const text = await readKueueFile(kueue, 'config/components/webhook/manifests.yaml');
  const caBundle = fs.readFileSync(cluster.kueueWebhook!.caFile).toString('base64');
  const groups = new Set(['', 'batch', 'apps']);
  let count = 0;
  for (const doc of text.split(/^---$/m).map((d) => parseYaml(d)).filter(Boolean)) {
    const webhooks = (doc.webhooks ?? []).filter((w: any) => (w.rules ?? []).some((r: any) => (r.apiGroups ?? []).some((g: string) => groups.has(g))
      && (r.resources ?? []).some((x: string) => ['pods', 'jobs', 'deployments', 'statefulsets'].includes(x))));
    if (!webhooks.length) continue;
    count += webhooks.length;
    await cluster.client.apply({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: doc.kind,
      metadata: { name: `kueue-workloads-e2e-${doc.kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating'}` },
      webhooks: webhooks.map((w: any) => ({ ...w,
        clientConfig: { url: `https://127.0.0.1:${cluster.kueueWebhook!.port}${w.clientConfig.service.path}`, caBundle } })),
    });
  }
  return count;
}

const tenantRole = (ns: string) => [
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant-edit', namespace: ns }, rules: [
    { apiGroups: ['ray.io'], resources: ['rayjobs', 'rayclusters', 'rayservices'], verbs: ['*'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['*'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['*'] },
    { apiGroups: ['apps'], resources: ['deployments', 'statefulsets'], verbs: ['*'] },
  ] },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant-edit', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant-edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: TENANT }] },
];

const container = (cpu: string) => ({ name: 'main', image: 'busybox', command: ['sleep', '3600'],
  resources: { requests: { cpu, memory: '256Mi' }, limits: { cpu, memory: '256Mi' } } });
const pod = (name: string, namespace: string, cpu = '1', metadata: Record<string, any> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...metadata }, spec: { restartPolicy: 'Never', containers: [container(cpu)] },
});
const refused = (p: Promise<unknown>) => p.then(() => undefined, (e: KubeError) => e);

for (const pair of PAIRS) {
  describeOnPair('tenant-namespace', pair)(`a TenantQueue namespace on Kueue ${pair[0]} + KubeRay ${pair[1]}`, () => {
    let cluster: TestCluster;
    let tenant: KubeClient;
    let synthesized: { objects: any[]; rayCluster: any };
    const WL = kueueCapabilities(pair[0]).apiVersion;
    const workloadOf = async (uid: string) => (await cluster.client.list(WL, 'Workload', NS))
      .find((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));
    const admittedTo = (w: any) => ((w?.status?.conditions ?? []).some((c: any) => c.type === 'Admitted' && c.status === 'True')
      ? w.status.admission?.clusterQueue : undefined);

    beforeAll(async () => {
      cluster = await TestCluster.start({ kueue: pair[0], kubeRay: pair[1], kueueConfiguration: await managedConfiguration(pair[0]) });
      expect(await registerWorkloadWebhooks(cluster, pair[0])).toBeGreaterThanOrEqual(4);
      synthesized = tenantObjects(pair[0], pair[1]);
      const c = cluster.client;
      for (const o of synthesized.objects.filter((x) => x.kind === 'Namespace')) await c.apply(o);
      await c.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'plain' } });
      // The Ray construct is only dry-run below: its pods would race the quota status the admin records.
      for (const o of synthesized.objects.filter((x) => x.kind !== 'Namespace' && x.kind !== 'RayCluster')) await c.apply(o);
      for (const o of [...tenantRole(NS), ...tenantRole('team-b'), ...tenantRole('plain')]) await c.apply(o);
      tenant = c.as(TENANT);
      // This control plane runs no quota controller (only garbage collection and namespaces): the admin records
      // the initial status it would, after which the API server's quota admission charges every pod it admits.
      const rq = await c.get(`/api/v1/namespaces/${NS}/resourcequotas/tenant-admission-cap`);
      const zero = Object.fromEntries(Object.keys(rq.spec.hard).map((k) => [k, '0']));
      const put = await c.request('PUT', `/api/v1/namespaces/${NS}/resourcequotas/tenant-admission-cap/status`,
        { ...rq, status: { hard: rq.spec.hard, used: zero } });
      expect(put.status).toBe(200);
      // Kueue's pod webhook reads the namespace and the LocalQueue from its cache: wait until it defaults a dry-run pod.
      await waitFor('Kueue manages the tenant namespace', async () => {
        const r = await tenant.request('POST', `/api/v1/namespaces/${NS}/pods?dryRun=All`, pod('probe', NS));
        return r.status === 201 && r.body.metadata.labels?.[QUEUE_LABEL] === 'default';
      }, 60000, 500);
    }, 300000);

    afterAll(async () => {
      await cluster?.stop();
    }, 60000);

    test('the ResourceQuota and the NetworkPolicies are stored as synthesized', async () => {
      const rq = await cluster.client.get(`/api/v1/namespaces/${NS}/resourcequotas/tenant-admission-cap`);
      // 4 nominal + 2 borrowing limit; memory has none: 16Gi + the cohort's other 16Gi.
      expect(rq.spec.hard).toEqual({ 'requests.cpu': '6', 'requests.memory': '32Gi' });
      for (const np of synthesized.objects.filter((o) => o.kind === 'NetworkPolicy')) {
        const stored = await cluster.client.get(`/apis/networking.k8s.io/v1/namespaces/${np.metadata.namespace}/networkpolicies/${np.metadata.name}`);
        expect(stored.spec).toEqual(np.spec);
        // And a server-side dry-run re-apply changes nothing.
        const again = await cluster.client.apply(np, { dryRun: true });
        expect(again.spec).toEqual(np.spec);
      }
      expect(synthesized.objects.filter((o) => o.kind === 'NetworkPolicy').map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort())
        .toEqual(['team-a/tenant-ray-pods', 'team-a/tenant-ray-serve', 'team-b/tenant-ray-pods', 'team-b/tenant-ray-serve']);
    }, 60000);

    test('a bare Pod without a queue label is gated, queued in the tenant\'s LocalQueue and admitted on its quota', async () => {
      const created = await tenant.create(pod('bare', NS));
      expect(created.spec.schedulingGates).toEqual(expect.arrayContaining([{ name: ADMISSION_GATE }]));
      expect(created.metadata.labels[QUEUE_LABEL]).toBe('default');
      const wl = await waitFor('the bare pod\'s Workload admitted', async () => {
        const w = await workloadOf(created.metadata.uid);
        return admittedTo(w) ? w : undefined;
      }, 60000, 500);
      expect(wl.spec.queueName).toBe('default');
      expect(admittedTo(wl)).toBe(NS);
      // Admitted: Kueue lifts its gate.
      const after = await waitFor('the gate lifted', async () => {
        const p = await cluster.client.get(`/api/v1/namespaces/${NS}/pods/bare`);
        return (p.spec.schedulingGates ?? []).some((g: any) => g.name === ADMISSION_GATE) ? undefined : p;
      }, 30000, 500);
      expect(after.metadata.name).toBe('bare');
    }, 120000);

    test('a batch Job without a queue label is suspended at creation and admitted on the tenant\'s quota', async () => {
      const created = await tenant.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'batch', namespace: NS },
        spec: { suspend: false, template: { spec: { restartPolicy: 'Never', containers: [container('1')] } } } });
      expect(created.spec.suspend).toBe(true);
      expect(created.metadata.labels?.[QUEUE_LABEL]).toBe('default');
      const wl = await waitFor('the Job\'s Workload admitted', async () => {
        const w = await workloadOf(created.metadata.uid);
        return admittedTo(w) ? w : undefined;
      }, 60000, 500);
      expect(wl.spec.queueName).toBe('default');
      expect(admittedTo(wl)).toBe(NS);
    }, 120000);

    test('a Deployment without a queue label gets the queue for its pods; a namespace without the label is left alone', async () => {
      const d = await tenant.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS }, spec: {
        replicas: 1, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container('100m')] } } } });
      expect(d.spec.template.metadata.labels[QUEUE_LABEL]).toBe('default');
      const plain = await tenant.create(pod('free', 'plain'));
      expect(plain.spec.schedulingGates ?? []).toEqual([]);
      expect(plain.metadata.labels?.[QUEUE_LABEL]).toBeUndefined();
      const job = await tenant.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'free', namespace: 'plain' },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [container('1')] } } } });
      expect(job.spec.suspend ?? false).toBe(false);
    }, 60000);

    test('where the LocalQueue is not named "default", an unlabelled Pod and Job are held, not run (manageJobsWithoutQueueName)', async () => {
      const p = await tenant.create(pod('held', 'team-b'));
      expect(p.spec.schedulingGates).toEqual(expect.arrayContaining([{ name: ADMISSION_GATE }]));
      expect(p.metadata.labels?.[QUEUE_LABEL]).toBeUndefined();
      const j = await tenant.create({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'held', namespace: 'team-b' },
        spec: { suspend: false, template: { spec: { restartPolicy: 'Never', containers: [container('1')] } } } });
      expect(j.spec.suspend).toBe(true);
      // Nothing admits them: no queue names them.
      await new Promise((r) => setTimeout(r, 3000));
      expect((await cluster.client.get('/api/v1/namespaces/team-b/pods/held')).spec.schedulingGates)
        .toEqual(expect.arrayContaining([{ name: ADMISSION_GATE }]));
      expect((await cluster.client.get('/apis/batch/v1/namespaces/team-b/jobs/held')).spec.suspend).toBe(true);
      const admitted = (await cluster.client.list(WL, 'Workload', 'team-b')).filter((w) => admittedTo(w));
      expect(admitted).toEqual([]);
    }, 60000);

    test('the ResourceQuota caps a pod Kueue does not manage: one that names the tenant\'s Ray cluster as its owner', async () => {
      // A RayCluster that can never be admitted (64 CPU): Kueue manages it, so it leaves any pod it owns to it.
      const rc = await tenant.create({ apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'owner', namespace: NS }, spec: {
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
          resources: { requests: { cpu: '64', memory: '1Gi' }, limits: { cpu: '64', memory: '1Gi' } } }] } } } } });
      expect(rc.spec.suspend).toBe(true);
      const owned = (name: string, cpu: string) => pod(name, NS, cpu, {
        labels: { 'ray.io/cluster': 'owner', 'ray.io/node-type': 'worker' },
        ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayCluster', name: 'owner', uid: rc.metadata.uid, controller: true }],
      });
      // Kueue's webhook looks the owner up in its informer cache: wait until it sees the new RayCluster.
      await waitFor('Kueue sees the owner', async () => (await tenant.request('POST', `/api/v1/namespaces/${NS}/pods?dryRun=All`,
        owned('probe', '100m'))).status === 201, 30000, 250);
      /** CPU charged to the quota, in millicores. */
      const usedMilli = async () => {
        const v: string = (await cluster.client.get(`/api/v1/namespaces/${NS}/resourcequotas/tenant-admission-cap`)).status.used['requests.cpu'];
        return v.endsWith('m') ? Number(v.slice(0, -1)) : Number(v) * 1000;
      };
      const before = await usedMilli();
      expect(before).toBeGreaterThanOrEqual(1000); // the bare pod is charged
      const over = await refused(tenant.create(owned('smuggled-big', `${6000 - before + 1000}m`)));
      expect(over?.status).toBe(403);
      expect(String(over?.body?.message)).toMatch(/exceeded quota: tenant-admission-cap.*requests\.cpu/);
      // Up to the cap it is created, and Kueue does not gate it: only the quota bounds it.
      const fits = await tenant.create(owned('smuggled-fits', `${6000 - before}m`));
      expect(fits.spec.schedulingGates ?? []).toEqual([]);
      expect(fits.metadata.labels?.[QUEUE_LABEL]).toBeUndefined();
      expect(await usedMilli()).toBe(6000);
      const more = await refused(tenant.create(owned('smuggled-more', '100m')));
      expect(more?.status).toBe(403);
    }, 120000);

    test('a Ray construct\'s token authentication passes the pinned KubeRay CRD', async () => {
      const rc = synthesized.rayCluster;
      expect(rc.spec.authOptions).toEqual({ mode: 'token' });
      const stored = await cluster.client.create(rc, true);
      expect(stored.spec.authOptions).toEqual({ mode: 'token' });
    }, 60000);
  });
}
