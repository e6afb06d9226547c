// Who may call the webhook (issue 19, escape 6): with `webhookClientCa`, the controller reviews only
// requests that present a client certificate the CA signs. A real kube-apiserver presents one when its
// --admission-control-config-file names a WebhookAdmissionConfiguration kubeConfigFile (self-managed
// control planes): tenant creates through it are decided; a pod's direct review gets 401.
import * as fs from 'fs';
import * as https from 'https';
import { App, Chart } from 'cdk8s';
import {
  AdmissionController, KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, ResourceFlavor, ResourceName, TenantQueue, WorkloadPriorityClass,
} from '../../src';
import { tmpdir } from '../support/synth';
import { TestCluster } from '../e2e/support/cluster';
import { ControllerFront, frontController, tenantRbac } from '../e2e/support/controller-front';
import { KubeError } from '../e2e/support/kube';
import { describeOnPair } from '../e2e/support/pairs';

const PAIR: [string, string] = [KueueVersion.V0_19_2.version, KubeRayVersion.V1_6_2.version];

describeOnPair('webhook-client-auth', PAIR)(`webhook client certificates, on Kueue ${PAIR[0]} + KubeRay ${PAIR[1]}`, () => {
  let cluster: TestCluster;
  let front: ControllerFront;

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], webhookClientCertificate: true });
    const app = new App({ outdir: tmpdir() });
    KueueRayVersions.use(app, { kueue: KueueVersion.V0_19_2, kubeRay: KubeRayVersion.V1_6_2 });
    const chart = new Chart(app, 'tenants');
    const flavor = new ResourceFlavor(chart, 'auth-flavor');
    const dev = new WorkloadPriorityClass(chart, 'auth-dev', { value: 100 });
    new TenantQueue(chart, 'auth', {
      namespace: 'auth', defaultPriorityClass: dev, allowedPriorityClasses: [dev],
      resourceGroups: [{ flavors: [{ flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(4) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(8) },
      ] }] }],
    });
    const pki = (cluster as any).pki;
    const controller = new AdmissionController(app, 'controller', { webhookClientCa: fs.readFileSync(pki.caCrt, 'utf8') });
    const objs = chart.toJson();
    for (const x of objs.filter((t) => t.kind === 'Namespace')) await cluster.client.apply(x);
    for (const x of objs.filter((t) => t.kind !== 'Namespace')) await cluster.client.apply(x);
    for (const x of tenantRbac('mallory', ['auth'])) await cluster.client.apply(x);
    // The chart ships the CA in a ConfigMap and the flag; here the same CA goes to the in-process server.
    const deployment = controller.toJson().find((o: any) => o.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers[0].args).toContain('--client-ca-file=/etc/cdk8s-kueue-ray/client-ca/ca.crt');
    front = await frontController(cluster, controller.toJson(), PAIR, (c) => c.view().inventory.localQueues.some((q) => q.namespace === 'auth'),
      { clientCa: fs.readFileSync(pki.caCrt) });
  }, 300000);

  afterAll(async () => {
    await front?.stop();
    await cluster?.stop();
  }, 60000);

  test('through the API server (which presents its certificate) a tenant create is decided: defaulted, or refused with our message', async () => {
    const tenant = cluster.client.as('mallory');
    const job = (labels: Record<string, string> = {}) => ({
      apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { generateName: 'auth-', namespace: 'auth', labels },
      spec: {
        entrypoint: 'python x.py', shutdownAfterJobFinishes: true,
        rayClusterSpec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
          resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } } },
      },
    });
    const created = await tenant.create(job());
    expect(created.metadata.labels).toMatchObject({ 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'auth-dev' });
    const refused = await tenant.create(job({ 'kueue.x-k8s.io/priority-class': 'nope' })).then(() => undefined, (e: KubeError) => e);
    expect(refused?.message).toMatch(/admission webhook "vray.cdk8s-kueue-ray.io" denied the request: .*WorkloadPriorityClass "nope" does not exist/);
  }, 60000);

  test('a direct review from anything without the certificate gets 401; the probes stay open', async () => {
    const pki = (cluster as any).pki;
    const post = (path: string, method = 'POST') => new Promise<number>((resolve) => {
      const req = https.request({ host: '127.0.0.1', port: front.port, path, method, ca: fs.readFileSync(pki.caCrt), servername: 'localhost' },
        (res) => { res.resume(); resolve(res.statusCode ?? 0); });
      req.on('error', () => resolve(-1));
      req.end(method === 'POST' ? JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'x' } }) : undefined);
    });
    expect(await post('/validate')).toBe(401);
    expect(await post('/mutate')).toBe(401);
    expect(await post('/readyz', 'GET')).toBe(200);
  }, 30000);
});
