// Self-managed certificates on a real API server: the Secret, the caBundle of both webhook
// configurations, and renewal before expiry that keeps the CA. And the cert-manager option: its
// objects are accepted by the real cert-manager CRDs (pinned module zip) on the same API server.
// The shipped image's controller manages its certificate the same way when given no certificate files.
import { X509Certificate } from 'crypto';
import * as fs from 'fs';
import * as https from 'https';
import * as tls from 'tls';
import { App } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { CertificateStore } from '../../src/controller/certificate-store';
import { WebhookServer } from '../../src/controller/server';
import { AdmissionController, AdmissionControllerProps } from '../../src/install/admission-controller/admission-controller';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { freePort, TestCluster } from './support/cluster';
import { listenReady } from './support/controller-front';
import { FILES_MOUNT, startImageController } from './support/image';
import { waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';
import { readCertManagerCrd } from '../support/upstream';

const PAIR: [string, string] = ['v0.19.2', 'v1.6.2'];
const describeCerts = describeOnPair('certificates', PAIR);
const MUTATING = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/cdk8s-kueue-ray-mutating';

const controllerObjects = (props: AdmissionControllerProps = {}) => new AdmissionController(new App({ outdir: '/tmp/unused' }), 'controller',
  props).toJson();

describeCerts('controller certificates', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue: PAIR[0], kubeRay: PAIR[1], controllers: false });
    for (const o of controllerObjects().filter((x: any) => ['Namespace', 'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration'].includes(x.kind))) await cluster.client.apply(o);
  }, 300000);
  afterAll(async () => { await cluster?.stop(); }, 60000);

  const newStore = () => new CertificateStore({
    kubeconfigFile: cluster.kubeconfig, namespace: 'cdk8s-kueue-ray-system', service: 'cdk8s-kueue-ray-controller',
    mutatingWebhookConfiguration: 'cdk8s-kueue-ray-mutating', validatingWebhookConfiguration: 'cdk8s-kueue-ray-validating',
  });

  test('issues once, stores the Secret, patches both caBundles, and renews before expiry keeping the CA', async () => {
    const store = newStore();
    const first = await store.ensure();
    expect(first.issued).toBe('no certificate stored');
    const secret = await cluster.client.get('/api/v1/namespaces/cdk8s-kueue-ray-system/secrets/cdk8s-kueue-ray-controller-tls');
    expect(Buffer.from(secret.data['tls.crt'], 'base64').toString()).toBe(first.cert);
    const ca = Buffer.from(first.caCert).toString('base64');
    for (const p of ['mutatingwebhookconfigurations/cdk8s-kueue-ray-mutating', 'validatingwebhookconfigurations/cdk8s-kueue-ray-validating']) {
      const cfg = await cluster.client.get(`/apis/admissionregistration.k8s.io/v1/${p}`);
      expect(cfg.webhooks.map((w: any) => w.clientConfig.caBundle)).toEqual(cfg.webhooks.map(() => ca));
    }
    const again = await store.ensure();
    expect(again.issued).toBeUndefined();
    expect(again.cert).toBe(first.cert);
    const later = await store.ensure(new Date(Date.now() + 340 * 86400_000));
    expect(later.issued).toMatch(/stored certificate expires/);
    expect(later.cert).not.toBe(first.cert);
    expect(later.caCert).toBe(first.caCert);
  });

  test('a webhook configuration applied (or re-applied) after the controller started gets its caBundle within seconds', async () => {
    const store = newStore();
    const pair = await store.ensure();
    store.start(() => undefined, 3600_000, 200);
    try {
      const mwc = controllerObjects().find((o: any) => o.kind === 'MutatingWebhookConfiguration');
      await cluster.client.delete(MUTATING);
      await cluster.client.create(mwc); // as the ordered apply does: without a caBundle
      const want = Buffer.from(pair.caCert).toString('base64');
      await waitFor('the caBundle restored', async () => (await cluster.client.get(MUTATING)).webhooks[0].clientConfig.caBundle === want, 5000, 100);
    } finally {
      store.stop();
    }
  });

  test('the serving certificate rotated while 200 reviews per second arrive through the API server: no admission fails', async () => {
    // A separate Secret, so the renewal below starts from a fresh pair valid for 127.0.0.1 (the URL the API server calls).
    const store = new CertificateStore({
      kubeconfigFile: cluster.kubeconfig, namespace: 'cdk8s-kueue-ray-system', service: 'cdk8s-kueue-ray-controller',
      secretName: 'rotation-under-load-tls',
      mutatingWebhookConfiguration: 'rotation-none', validatingWebhookConfiguration: 'rotation-none', extraIps: ['127.0.0.1'],
    });
    const pair = await store.ensure();
    const renewing = new CertificateStore({
      kubeconfigFile: cluster.kubeconfig, namespace: 'cdk8s-kueue-ray-system', service: 'cdk8s-kueue-ray-controller',
      secretName: 'rotation-under-load-tls',
      mutatingWebhookConfiguration: 'rotation-none', validatingWebhookConfiguration: 'rotation-none', extraIps: ['127.0.0.1'], renewBeforeDays: 400,
    });
    const empty = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
    const server = new WebhookServer({ cert: pair.cert, key: pair.key, workers: 1,
      config: { kueue: kueueCapabilities(PAIR[0]), kubeRay: kubeRayCapabilities(PAIR[1]), elasticGate: 'on' }, view: () => ({ inventory: empty }) });
    const port = await listenReady(server);
    const cfgPath = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/rotation-under-load';
    try {
      // failurePolicy Fail, every namespace: any TLS or connection error during the rotation fails the create.
      await cluster.client.apply({
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'rotation-under-load' },
        webhooks: [{
          name: 'rotation.cdk8s-kueue-ray.io', clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle: Buffer.from(pair.caCert).toString('base64') },
          rules: [{ apiGroups: ['ray.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['rayjobs'] }], failurePolicy: 'Fail',
          sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 5,
        }],
      });
      const job = (i: number) => ({
        apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: `rot-${i}`, namespace: 'default' },
        spec: { entrypoint: 'x', shutdownAfterJobFinishes: true,
          rayClusterSpec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
            resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } } } },
      });
      await waitFor('the API server to call the webhook', async () => cluster.client.create(job(0), true).then(() => true, () => false), 30000, 200);
      const served = () => (server.metrics.render().match(/kueue_ray_admission_duration_seconds_count\{path="\/validate"\} (\d+)/)?.[1] ?? '0');
      const before = Number(served());
      // Open loop: 20 dry-run creates every 100 ms for 5 s; the certificate is renewed (CA kept) at 2.5 s.
      const results: Array<Promise<number>> = [];
      const failures: string[] = [];
      let rotation: Promise<{ cert: string; caCert: string }> | undefined;
      for (let tick = 0; tick < 50; tick++) {
        for (let k = 0; k < 20; k++) {
          const i = tick * 20 + k + 1;
          results.push(cluster.client.request('POST', '/apis/ray.io/v1/namespaces/default/rayjobs?dryRun=All', job(i)).then((r) => {
            if (r.status !== 201) failures.push(`${r.status} ${r.body?.message ?? JSON.stringify(r.body)}`);
            return r.status;
          }, (e) => { failures.push(String(e)); return 0; }));
        }
        if (tick === 25) {
          // Renewal due now (renewBeforeDays above the 365-day lifetime): a pair valid from now, same CA.
          rotation = renewing.ensure().then((renewed) => {
            server.reloadCertificate(renewed.cert, renewed.key);
            return renewed;
          });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const renewed = await rotation!;
      expect(renewed.caCert).toBe(pair.caCert);
      const statuses = await Promise.all(results);
      const failed = statuses.filter((st) => st !== 201);
      const closed = server.metrics.render().match(/^kueue_ray_webhook_connections_closed_total\{.*$/gm) ?? [];
      process.stdout.write(`[certificates] ${statuses.length} dry-run creates over the rotation, ${failed.length} `
        + `failed, ${Number(served()) - before} reviews served; connections closed before HTTP: ${closed.join(', ') || 'none'}\n`);
      expect(failures).toEqual([]);
      expect(failed).toEqual([]);
      expect(Number(served()) - before).toBe(statuses.length);
      // New connections get the renewed certificate.
      const peer = await new Promise<string>((resolve, reject) => {
        const sock = tls.connect({ host: '127.0.0.1', port, ca: pair.caCert, servername: 'cdk8s-kueue-ray-controller.cdk8s-kueue-ray-system.svc' },
          () => { resolve(sock.getPeerX509Certificate()!.toString()); sock.end(); });
        sock.on('error', reject);
      });
      expect(new X509Certificate(renewed.cert).serialNumber).toBe(new X509Certificate(peer).serialNumber);
    } finally {
      await cluster.client.delete(cfgPath);
      await server.stop();
    }
  }, 120000);

  test('the image\'s controller without certificate files issues and stores its own, patches both caBundles and serves it', async () => {
    const SECRET = '/api/v1/namespaces/cdk8s-kueue-ray-system/secrets/cdk8s-kueue-ray-controller-tls';
    await cluster.client.delete(SECRET).catch(() => undefined); // left by the tests above
    const port = await freePort();
    const controller = await startImageController({
      args: ['controller', '--namespace=cdk8s-kueue-ray-system', '--service=cdk8s-kueue-ray-controller',
        '--webhook-configurations=cdk8s-kueue-ray-mutating,cdk8s-kueue-ray-validating',
        `--kubeconfig=${FILES_MOUNT}/kubeconfig`, '--host=127.0.0.1', `--port=${port}`],
      files: { kubeconfig: fs.readFileSync(cluster.kubeconfig) },
    });
    try {
      await controller.waitForLog(/"msg":"webhook listening"/, 60000);
      await controller.waitForLog(/"msg":"reconciler started"/, 60000); // start-up done: SIGTERM handled from here
      const secret = await cluster.client.get(SECRET);
      const ca = Buffer.from(secret.data['ca.crt'], 'base64').toString();
      for (const p of ['mutatingwebhookconfigurations/cdk8s-kueue-ray-mutating', 'validatingwebhookconfigurations/cdk8s-kueue-ray-validating']) {
        const cfg = await cluster.client.get(`/apis/admissionregistration.k8s.io/v1/${p}`);
        expect(cfg.webhooks.map((w: any) => Buffer.from(w.clientConfig.caBundle, 'base64').toString())).toEqual(cfg.webhooks.map(() => ca));
      }
      // What the API server does: trust the caBundle, check the Service's DNS name.
      const served = await new Promise<string>((resolve, reject) => {
        https.get({ host: '127.0.0.1', port, path: '/healthz', ca, servername: 'cdk8s-kueue-ray-controller.cdk8s-kueue-ray-system.svc',
          agent: false }, (res) => {
          res.resume();
          resolve((res.socket as any).getPeerCertificate(false).raw.toString('base64'));
        }).on('error', reject);
      });
      const stored = Buffer.from(secret.data['tls.crt'], 'base64').toString().split('-----')[2].replace(/\s+/g, '');
      expect(served).toBe(stored);
    } finally {
      expect(await controller.stop()).toBe(0);
    }
  });

  test('cert-manager mode: the Issuers, Certificates and annotated webhook configurations apply against the real cert-manager CRDs', async () => {
    for (const plural of ['certificates', 'issuers']) {
      for (const d of parseAllDocuments(await readCertManagerCrd(plural))) if (d.toJS()) await cluster.client.apply(d.toJS());
    }
    await waitFor('cert-manager CRDs Established', async () => {
      const crds = await Promise.all(['certificates',
        'issuers'].map((p) => cluster.client.get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${p}.cert-manager.io`)));
      return crds.every((c) => c.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True'));
    }, 10000, 100);
    const objs = controllerObjects({ certManager: {} });
    const cm = objs.filter((o: any) => o.apiVersion === 'cert-manager.io/v1');
    expect(cm).toHaveLength(4);
    for (const o of objs) await cluster.client.apply(o);
    const cert = await cluster.client.get(
      '/apis/cert-manager.io/v1/namespaces/cdk8s-kueue-ray-system/certificates/cdk8s-kueue-ray-controller-serving');
    expect(cert.spec.dnsNames).toContain('cdk8s-kueue-ray-controller.cdk8s-kueue-ray-system.svc');
    const mwc = await cluster.client.get(MUTATING);
    expect(mwc.metadata.annotations['cert-manager.io/inject-ca-from']).toBe('cdk8s-kueue-ray-system/cdk8s-kueue-ray-controller-serving');
    // The schema is enforced: the same Certificate with an unknown key algorithm is refused.
    const bad = JSON.parse(JSON.stringify(cm.find((o: any) => o.metadata.name === 'cdk8s-kueue-ray-controller-serving')));
    bad.spec.privateKey.algorithm = 'DSA';
    await expect(cluster.client.apply(bad, { dryRun: true })).rejects.toThrow(/privateKey.algorithm|Unsupported value/);
  });
});
