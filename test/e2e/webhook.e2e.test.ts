// The admission webhook on a real kube-apiserver with the real Kueue and KubeRay, registered by URL:
// its mutating configuration sorts before Kueue's, its validating one runs beside Kueue's. The
// controller is the shipped image's (support/image.ts), its view of the cluster from its informers.
import * as fs from 'fs';
import * as https from 'https';
import { examples, synthAll } from '../support/synth';
import { freePort, TestCluster } from './support/cluster';
import { FILES_MOUNT, ImageController, startImageController } from './support/image';
import { KubeError, waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const describeWebhook = describeOnPair('webhook', PAIR);

describeWebhook(`webhook on Kueue ${PAIR[0]} + KubeRay ${PAIR[1]}`, () => {
  let cluster: TestCluster;
  let controller: ImageController;

  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1] });
    const c = cluster.client;
    const objs = synthAll(examples({ kueue: PAIR[0], kubeRay: PAIR[1], scenarios: ['queues', 'tenants'] }))
      .filter((o) => o.metadata?.name && o.kind !== 'RayJob');
    for (const o of objs.filter((x) => x.kind === 'Namespace')) await c.apply(o);
    for (const o of objs.filter((x) => x.kind !== 'Namespace')) await c.apply(o);
    await c.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cdk8s-kueue-ray-system' } }); // the reconciler's Lease
    const pki = (cluster as any).pki;
    const port = await freePort();
    controller = await startImageController({
      args: ['controller', `--kueue-version=${PAIR[0]}`, `--kuberay-version=${PAIR[1]}`, '--namespace=cdk8s-kueue-ray-system',
        `--kubeconfig=${FILES_MOUNT}/kubeconfig`,
        `--tls-cert-file=${FILES_MOUNT}/tls.crt`, `--tls-key-file=${FILES_MOUNT}/tls.key`, '--host=127.0.0.1', `--port=${port}`,
        '--admission-workers=2'], // reviews are decided in admission worker threads (the controller runs one by default)
      files: { kubeconfig: fs.readFileSync(cluster.kubeconfig), 'tls.crt': fs.readFileSync(pki.servingCrt),
        'tls.key': fs.readFileSync(pki.servingKey) },
      env: { POD_NAME: 'webhook-e2e' },
    });
    // Informers synced (the view holds the applied queues) before the reconciler starts; /readyz says so too.
    await controller.waitForLog(/"msg":"reconciler started"/, 60000);
    const readyz = () => new Promise<number>((resolve) => https.get({ host: '127.0.0.1', port, path: '/readyz', ca: fs.readFileSync(pki.caCrt) },
      (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', () => resolve(0)));
    await waitFor('the controller ready', async () => (await readyz()) === 200, 30000);
    const caBundle = fs.readFileSync(pki.caCrt).toString('base64');
    const rules = [{ apiGroups: ['ray.io'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'],
      resources: ['rayjobs', 'rayclusters', 'rayservices'] }];
    const hook = (name: string, p: string) => ({ name, clientConfig: { url: `https://127.0.0.1:${port}${p}`, caBundle }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', timeoutSeconds: 5 });
    // "cdk8s-kueue-ray-..." sorts before "kueue-...": our defaults (queue label + suspend) are in place when Kueue's mutating webhook runs.
    await c.apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'cdk8s-kueue-ray-mutating' }, webhooks: [{ ...hook('mray.cdk8s-kueue-ray.io', '/mutate'), reinvocationPolicy: 'Never' }] });
    await c.apply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'cdk8s-kueue-ray-validating' }, webhooks: [hook('vray.cdk8s-kueue-ray.io', '/validate')] });
  }, 300000);

  afterAll(async () => {
    const code = await controller?.stop();
    await cluster?.stop();
    expect(code).toBe(0); // drained and stopped on SIGTERM
  }, 60000);

  const job = (ns: string, labels: Record<string, string>, workers: number) => ({
    apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { generateName: 'hooked-', namespace: ns, labels },
    spec: {
      entrypoint: 'python x.py', shutdownAfterJobFinishes: true,
      rayClusterSpec: {
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
          resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] } } },
        workerGroupSpecs: [{ groupName: 'w', replicas: workers, minReplicas: workers, maxReplicas: workers, rayStartParams: {},
          template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0',
            resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } }] } } }],
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
    await cluster.client.apply({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue', metadata: { name: 'late-queue', namespace: 'default' },
      spec: { clusterQueue: 'cluster-queue' } });
    await waitFor('the webhook to accept the job once the queue exists', async () => cluster.client.create(job2).then(() => true, () => false),
      30000);
  });

  test('a RayJob in a tenant namespace is defaulted: queue, priority and suspend, then admitted by Kueue', async () => {
    const created = await cluster.client.create(job('team-a', {}, 1));
    expect(created.metadata.labels).toMatchObject({ 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    expect(created.spec.suspend).toBe(true);
    await waitFor('Kueue to create and admit its Workload', async () => {
      const wls = await cluster.client.list('kueue.x-k8s.io/v1beta2', 'Workload', 'team-a');
      return wls.some((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === created.metadata.uid)
        && (w.status?.conditions ?? []).some((c: any) => c.type === 'Admitted' && c.status === 'True'));
    }, 120000);
  });
});
