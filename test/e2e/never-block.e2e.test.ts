// The controller must never block Kueue, KubeRay or a deletion (issue 11), on the real control plane
// with the real Kueue and KubeRay. The webhook configurations are the AdmissionController chart's
// own (namespaceSelector, objectSelector, failure policies), registered by URL; the cluster-side
// RBAC and the caBundle-only ValidatingAdmissionPolicy are the chart's too.
import * as fs from 'fs';
import * as https from 'https';
import { App, Chart } from 'cdk8s';
import { InventoryCache } from '../../src/controller/inventory-cache';
import { caBundlePatch } from '../../src/controller/certificates';
import { WebhookServer } from '../../src/controller/server';
import { AdmissionController, KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, ResourceFlavor, ResourceName, TenantQueue,
  WorkloadPriorityClass } from '../../src';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { tmpdir } from '../support/synth';
import { TestCluster } from './support/cluster';
import { listenReady } from './support/controller-front';
import { KubeError, readKubeconfig, waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = [KueueVersion.V0_19_2.version, KubeRayVersion.V1_6_2.version];
const describeNeverBlock = describeOnPair('never-block', PAIR);
const TENANTS = ['nb-quota', 'nb-queue', 'nb-down'];
const SA = 'system:serviceaccount:cdk8s-kueue-ray-system:cdk8s-kueue-ray-controller';

/** The tenants (each its own ClusterQueue of 8 CPU) and the controller chart, as the library synthesizes them. */
function objects(): { tenants: any[]; controller: any[] } {
  const app = new App({ outdir: tmpdir() });
  KueueRayVersions.use(app, { kueue: KueueVersion.V0_19_2, kubeRay: KubeRayVersion.V1_6_2 });
  const chart = new Chart(app, 'tenants');
  const flavor = new ResourceFlavor(chart, 'nb-flavor');
  const dev = new WorkloadPriorityClass(chart, 'nb-dev', { value: 100 });
  for (const ns of TENANTS) {
    new TenantQueue(chart, ns, {
      namespace: ns, defaultPriorityClass: dev, allowedPriorityClasses: [dev],
      resourceGroups: [{ flavors: [{ flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) },
      ] }] }],
    });
  }
  const controller = new AdmissionController(app, 'controller');
  return { tenants: chart.toJson(), controller: controller.toJson() };
}

const container = (name: string) => ({ name, image: 'rayproject/ray:2.46.0',
  resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } });
/** A tenant's RayJob as a user writes it: no queue label (the mutating webhook adds it), 1 + 2 workers + submitter = 3.5 CPU. */
const job = (ns: string) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { generateName: 'nb-', namespace: ns },
  spec: {
    entrypoint: 'python x.py', shutdownAfterJobFinishes: true,
    rayClusterSpec: {
      headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
      workerGroupSpecs: [{ groupName: 'w', replicas: 2, minReplicas: 2, maxReplicas: 2, rayStartParams: {},
        template: { spec: { containers: [container('ray-worker')] } } }],
    },
  },
});

describeNeverBlock(`never block Kueue, KubeRay or a deletion, on Kueue ${PAIR[0]} + KubeRay ${PAIR[1]}`, () => {
  let cluster: TestCluster;
  let server: WebhookServer;
  let cache: InventoryCache;
  let controller: any[];
  let serverStopped = false;
  const c = () => cluster.client;
  const jobPath = (ns: string, name: string) => `/apis/ray.io/v1/namespaces/${ns}/rayjobs/${name}`;
  const workloadOf = async (ns: string, uid: string) => (await c().list('kueue.x-k8s.io/v1beta2', 'Workload',
    ns)).find((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));
  const admitted = (w: any) => (w?.status?.conditions ?? []).some((x: any) => x.type === 'Admitted' && x.status === 'True');
  const clusterOf = async (ns: string, uid: string) =>
    (await c().list('ray.io/v1', 'RayCluster', ns)).find((rc) => (rc.metadata.ownerReferences ?? []).some((o: any) => o.uid === uid));

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1] });
    const o = objects();
    controller = o.controller;
    for (const x of o.tenants.filter((t) => t.kind === 'Namespace')) await c().apply(x);
    for (const x of o.tenants.filter((t) => t.kind !== 'Namespace')) await c().apply(x);
    cache = new InventoryCache({ kubeconfigFile: cluster.kubeconfig, kueueApiVersion: 'v1beta2' });
    await cache.start();
    await waitFor('the inventory informers to see the tenants',
      async () => cache.ready() && TENANTS.every((ns) => cache.view().inventory.localQueues.some((q) => q.namespace === ns && q.tenant)), 60000);
    const pki = (cluster as any).pki;
    server = new WebhookServer({
      cert: fs.readFileSync(pki.servingCrt), key: fs.readFileSync(pki.servingKey), workers: 1,
      config: { kueue: kueueCapabilities(PAIR[0]), kubeRay: kubeRayCapabilities(PAIR[1]), elasticGate: 'on' },
      view: () => cache.view(), ready: () => cache.ready(),
    });
    const port = await listenReady(server);
    const caBundle = fs.readFileSync(pki.caCrt).toString('base64');
    // The chart's configurations, pointed at this process instead of the in-cluster Service.
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      const cfg = JSON.parse(JSON.stringify(controller.find((x) => x.kind === kind)));
      for (const w of cfg.webhooks) w.clientConfig = { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle };
      await c().apply(cfg);
    }
  }, 300000);

  afterAll(async () => {
    await cache?.stop();
    if (!serverStopped) await server?.stop();
    await cluster?.stop();
  }, 60000);

  test('the controller\'s ServiceAccount may patch the caBundle of its two configurations and nothing else', async () => {
    for (const x of controller.filter((o) => ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding'].includes(o.kind))) await c().apply(x);
    const creds = readKubeconfig(cluster.kubeconfig);
    const asController = (method: string, path: string, body: unknown, type = 'application/json-patch+json') =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const url = new URL(creds.server);
        const data = JSON.stringify(body);
        const req = https.request({ method, host: url.hostname, port: url.port, path, ca: creds.ca, cert: creds.cert, key: creds.key,
          headers: { 'Impersonate-User': SA, 'Impersonate-Group': 'system:serviceaccounts', 'Content-Type': type,
            'Content-Length': Buffer.byteLength(data) } }, (res) => {
          let b = '';
          res.on('data', (d) => { b += d; });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b ? JSON.parse(b) : undefined }));
        });
        req.on('error', reject);
        req.end(data);
      });
    const path = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/cdk8s-kueue-ray-mutating';
    const cfg = await c().get(path);
    const ca = cfg.webhooks[0].clientConfig.caBundle;
    // The policy is in force a moment after its binding exists: probe with dry runs (admission runs,
    // nothing is stored), so a change let through before then cannot stick.
    const toIgnore = [{ op: 'test', path: '/webhooks/0/name', value: 'mray.cdk8s-kueue-ray.io' },
      { op: 'replace', path: '/webhooks/0/failurePolicy', value: 'Ignore' }];
    await waitFor('the caBundle-only policy to be in force', async () => (await asController('PATCH', `${path}?dryRun=All`, toIgnore)).status === 403,
      30000, 500);
    const refused = await asController('PATCH', path, toIgnore);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/cdk8s-kueue-ray-controller-cabundle-only.*may change only clientConfig\.caBundle of cdk8s-kueue-ray-mutating and cdk8s-kueue-ray-validating/);
    expect((await asController('PATCH', path, [{ op: 'add', path: '/metadata/annotations', value: { 'cert-manager.io/inject-ca-from': 'x/y' } }])).body.message).toMatch(/may not change the labels or annotations/);
    // What the controller writes: its caBundle, through the same patch it sends.
    const changed = await asController('PATCH', path,
      caBundlePatch({ webhooks: [{ name: cfg.webhooks[0].name, clientConfig: {} }] }, Buffer.from('not-a-ca').toString('base64')));
    expect(changed.status).toBe(200);
    expect((await asController('PATCH', path, caBundlePatch({ webhooks: [{ name: cfg.webhooks[0].name, clientConfig: {} }] }, ca))).status).toBe(200);
    expect((await c().get(path)).webhooks[0].failurePolicy).toBe('Fail');
    // RBAC: no other configuration, and no Secrets cluster-wide.
    expect((await asController('PATCH', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/kueue-mutating-webhook-configuration',
      [])).status).toBe(403);
  }, 120000);

  test('a ClusterQueue\'s quota lowered below a running RayJob\'s gang: Kueue can still suspend it and the user can still delete it', async () => {
    const ns = 'nb-quota';
    const created = await c().create(job(ns));
    expect(created.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('default'); // our mutating webhook ran
    await waitFor('Kueue to admit the job and KubeRay to create its RayCluster',
      async () => admitted(await workloadOf(ns, created.metadata.uid)) && clusterOf(ns, created.metadata.uid), 120000);
    const cqPath = `/apis/kueue.x-k8s.io/v1beta2/clusterqueues/${ns}`;
    const cq = await c().get(cqPath);
    cq.spec.resourceGroups[0].flavors[0].resources.find((r: any) => r.name === 'cpu').nominalQuota = '2';
    await c().request('PUT', cqPath, cq).then((r) => expect(r.status).toBe(200));
    // The webhook now refuses the same job on create, so it is in the path of every update below.
    const refused = await waitFor('the webhook to refuse the same gang on create', async () => {
      const e = await c().create({ ...job(ns), metadata: { name: 'nb-probe', namespace: ns } }, true).then(() => undefined, (x: KubeError) => x);
      return e?.message.match(/the gang needs cpu 3\.5.*can provide at most cpu 2/) ? e : undefined;
    }, 30000, 500);
    expect(refused.message).toMatch(/admission webhook "vray.cdk8s-kueue-ray.io" denied the request/);
    // Kueue evicts the deactivated Workload and suspends the RayJob: an UPDATE our webhook must let through.
    const wl = await workloadOf(ns, created.metadata.uid);
    await c().mergePatch(`/apis/kueue.x-k8s.io/v1beta2/namespaces/${ns}/workloads/${wl.metadata.name}`, { spec: { active: false } });
    await waitFor('Kueue to suspend the RayJob', async () => (await c().get(jobPath(ns, created.metadata.name))).spec.suspend === true, 60000);
    // The user deletes it: KubeRay's finalizer removal is an UPDATE too.
    await c().delete(jobPath(ns, created.metadata.name));
    await waitFor('the RayJob to be gone', async () => (await c().getOrUndefined(jobPath(ns, created.metadata.name))) === undefined, 60000);
  }, 300000);

  test('a LocalQueue deleted, then its RayJob: the deletion completes, and so does the namespace\'s', async () => {
    const ns = 'nb-queue';
    const created = await c().create(job(ns));
    await waitFor('KubeRay to take the job (finalizer)',
      async () => ((await c().get(jobPath(ns, created.metadata.name))).metadata.finalizers ?? []).includes('ray.io/rayjob-finalizer'), 60000);
    await c().delete(`/apis/kueue.x-k8s.io/v1beta2/namespaces/${ns}/localqueues/default`);
    await waitFor('the webhook to see the queue gone', async () => !cache.view().inventory.localQueues.some((q) => q.namespace === ns), 30000);
    await c().delete(jobPath(ns, created.metadata.name));
    await waitFor('the RayJob to be gone', async () => (await c().getOrUndefined(jobPath(ns, created.metadata.name))) === undefined, 60000);
    await c().delete(`/api/v1/namespaces/${ns}`);
    await waitFor('the namespace to be gone', async () => (await c().getOrUndefined(`/api/v1/namespaces/${ns}`)) === undefined, 120000, 1000);
  }, 300000);

  test('the controller stopped: an admitted tenant RayJob still gets its RayCluster; a new tenant RayJob is '
    + 'refused, naming our webhook', async () => {
    const ns = 'nb-down';
    const cqPath = `/apis/kueue.x-k8s.io/v1beta2/clusterqueues/${ns}`;
    // Hold admission so the job is admitted, and its RayCluster created, only once the controller is down.
    await c().mergePatch(cqPath, { spec: { stopPolicy: 'Hold' } });
    const created = await c().create(job(ns));
    expect(created.spec.suspend).toBe(true);
    await server.stop();
    serverStopped = true;
    await c().mergePatch(cqPath, { spec: { stopPolicy: 'None' } });
    const rc = await waitFor('KubeRay to create the RayCluster of the admitted job', async () => clusterOf(ns, created.metadata.uid), 120000);
    expect(rc.metadata.labels['ray.io/originated-from-crd']).toBe('RayJob');
    const err = await c().create(job(ns)).then(() => undefined, (e: KubeError) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect(err!.message).toMatch(/Internal error occurred: failed calling webhook "mray\.cdk8s-kueue-ray\.io": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/mutate\?timeout=5s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused/);
  }, 300000);

  test('the API server restarted: the webhook\'s informers resync and see a queue created afterwards', async () => {
    const t0 = Date.now();
    await cluster.restartApiServer();
    const t1 = Date.now();
    await waitFor('the API server to answer again', async () => c().list('v1', 'Namespace').then(() => true, () => false), 30000);
    await c().apply({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', metadata: { name: 'after-restart', namespace: 'nb-quota' },
      spec: { clusterQueue: 'nb-quota' } });
    await waitFor('the inventory to see the queue created after the restart',
      async () => cache.view().inventory.localQueues.some((q) => q.namespace === 'nb-quota' && q.name === 'after-restart'), 60000);
    process.stdout.write(`[never-block] API server restarted in ${t1 - t0} ms; the inventory saw a new queue ${Date.now() - t1} ms `
      + 'after it was back\n');
    expect(cache.ready()).toBe(true);
  }, 180000);
});
