// The admission webhook on a real kube-apiserver with the real Kueue and KubeRay, registered by URL:
// its mutating configuration sorts before Kueue's, its validating one runs beside Kueue's.
import * as fs from 'fs';
import { InventoryCache } from '../../src/controller/inventory-cache';
import { WebhookServer } from '../../src/controller/server';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { examples, synthAll } from '../support/synth';
import { TestCluster } from './support/cluster';
import { KubeError, waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const describeWebhook = describeOnPair('webhook', PAIR);

describeWebhook(`webhook on Kueue ${PAIR[0]} + KubeRay ${PAIR[1]}`, () => {
  let cluster: TestCluster;
  let server: WebhookServer;
  let cache: InventoryCache;

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1] });
    const c = cluster.client;
    const objs = synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues', 'tenants'] })).filter((o) => o.metadata?.name && o.kind !== 'RayJob');
    for (const o of objs.filter((x) => x.kind === 'Namespace')) await c.apply(o);
    for (const o of objs.filter((x) => x.kind !== 'Namespace')) await c.apply(o);
    // The webhook's view comes from client-node informers, as in the controller.
    cache = new InventoryCache({ kubeconfigFile: cluster.kubeconfig, kueueApiVersion: 'v1beta2' });
    await cache.start();
    await waitFor('the inventory informers to sync', async () => cache.ready() && cache.view().inventory.localQueues.length >= 3, 60000);
    const pki = (cluster as any).pki;
    server = new WebhookServer({
      cert: fs.readFileSync(pki.servingCrt), key: fs.readFileSync(pki.servingKey),
      config: { kueue: kueueCapabilities(PAIR[0]), kubeRay: kubeRayCapabilities(PAIR[1]), elasticGate: 'on' },
      view: () => cache.view(), ready: () => cache.ready(),
      workers: 2, // reviews are decided in admission worker threads (the controller runs one by default)
    });
    const port = await server.listen();
    const caBundle = fs.readFileSync(pki.caCrt).toString('base64');
    const rules = [{ apiGroups: ['ray.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['rayjobs', 'rayclusters', 'rayservices'] }];
    const hook = (name: string, p: string) => ({ name, clientConfig: { url: `https://127.0.0.1:${port}${p}`, caBundle }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', timeoutSeconds: 5 });
    // "cdk8s-kueue-ray-..." sorts before "kueue-...": our defaults (queue label + suspend) are in place when Kueue's mutating webhook runs.
    await c.apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'cdk8s-kueue-ray-mutating' }, webhooks: [{ ...hook('mray.cdk8s-kueue-ray.io', '/mutate'), reinvocationPolicy: 'Never' }] });
    await c.apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'cdk8s-kueue-ray-validating' }, webhooks: [hook('vray.cdk8s-kueue-ray.io', '/validate')] });
  }, 300000);

  afterAll(async () => {
    await cache?.stop();
    await server?.stop();
    await cluster?.stop();
  }, 60000);

  const job = (ns: string, labels: Record<string, string>, workers: number) => ({
    apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { generateName: 'hooked-', namespace: ns, labels },
    spec: {
      entrypoint: 'python x.py', shutdownAfterJobFinishes: true,
      rayClusterSpec: {
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] } } },
        workerGroupSpecs: [{ groupName: 'w', replicas: workers, minReplicas: workers, maxReplicas: workers, rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] } } }],
      },
    },
  });

  test('a RayJob whose gang can never fit is denied with our message (Kueue itself would accept it and leave it pending)', async () => {
    const bad = job('default', { 'kueue.x-k8s.io/queue-name': 'user-queue' }, 4);
    const err = await cluster.client.create(bad).then(() => undefined, (e: KubeError) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect(err!.message).toMatch(/admission webhook "vray.cdk8s-kueue-ray.io" denied the request: RayJob default\/hooked-[a-z0-9]+: .*PodSet "w" needs cpu 4, memory 4Gi \(4 pods\) in one flavor.*can never be admitted\. Fix: /);
  });

  test('a queue created later is seen by the webhook (informers keep the view current)', async () => {
    const job2 = job('default', { 'kueue.x-k8s.io/queue-name': 'late-queue' }, 1);
    const denied = await cluster.client.create(job2).then(() => undefined, (e: KubeError) => e);
    expect(denied?.message).toMatch(/LocalQueue "late-queue" does not exist in namespace "default"/);
    await cluster.client.apply({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', metadata: { name: 'late-queue', namespace: 'default' }, spec: { clusterQueue: 'cluster-queue' } });
    await waitFor('the webhook to accept the job once the queue exists', async () => cluster.client.create(job2).then(() => true, () => false), 30000);
  });

  test('a RayJob in a tenant namespace is defaulted: queue, priority and suspend, then admitted by Kueue', async () => {
    const created = await cluster.client.create(job('team-a', {}, 1));
    expect(created.metadata.labels).toMatchObject({ 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    expect(created.spec.suspend).toBe(true);
    await waitFor('Kueue to create and admit its Workload', async () => {
      const wls = await cluster.client.list('kueue.x-k8s.io/v1beta2', 'Workload', 'team-a');
      return wls.some((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === created.metadata.uid) && (w.status?.conditions ?? []).some((c: any) => c.type === 'Admitted' && c.status === 'True'));
    }, 120000);
  });
});
