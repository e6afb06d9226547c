// The installs' Helm-level settings, read by the real components: Kueue starts with the Configuration
// KueueInstall synthesized (and the feature gates of its Deployment), the KubeRay operator with the
// flags of the synthesized Deployment; each setting is then seen doing what it says. On the default
// pair (v1beta2 Configuration, waitForPodsReady on by default) and on v0.14.8 (v1beta1: enable switches).
import * as https from 'https';
import * as http from 'http';
import * as path from 'path';
import { Duration, Testing } from 'cdk8s';
import { parse as parseYaml } from 'yaml';
import { KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion } from '../../src';
import { kueueCapabilities } from '../../src/policy/versions';
import { vendorDir } from '../support/upstream';
import { TestCluster } from './support/cluster';
import { cond, waitFor } from './support/kube';
import { describeOnPair } from './support/pairs';

const VENDOR = vendorDir();
const PAIRS: Array<[string, string]> = [['v0.19.2', 'v1.6.2'], ['v0.14.8', 'v1.4.2']];
// Flags the harness owns to run the operator out of cluster; every other synthesized flag is passed as is.
const HARNESS_FLAGS = /^--(enable-leader-election|log-stdout-encoder|log-file-encoder|metrics-addr|health-probe-bind-address)\b/;

/** The synthesized Configuration, Kueue's feature gates and the operator's flags, as the installs write them. */
function synthesize(kueue: string, kubeRay: string): { config: any; gates: Record<string, boolean>; kubeRayArgs: string[] } {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  const k = new KueueInstall(app, 'kueue', {
    manifestFile: path.join(VENDOR!, 'kueue', kueue, 'manifests.yaml'),
    waitForPodsReady: { timeout: Duration.seconds(15), requeuingBackoffLimitCount: 1 },
    manageJobsWithoutQueueName: true, fairSharing: {}, clusterQueueResourceMetrics: true,
  });
  const r = new KubeRayInstall(app, 'kuberay', { crdDir: path.join(VENDOR!, 'kuberay', kubeRay, 'ray-operator', 'config', 'crd', 'bases'),
    batchScheduler: 'yunikorn', enableMetrics: true });
  const objs = k.toJson();
  const cm = objs.find((o: any) => o.kind === 'ConfigMap' && o.metadata.name === 'kueue-manager-config');
  const args: string[] = objs.find((o: any) => o.kind === 'Deployment').spec.template.spec.containers[0].args;
  const gates: Record<string, boolean> = {};
  for (const a of args.filter((x) => x.startsWith('--feature-gates='))) {
    for (const kv of a.slice('--feature-gates='.length).split(',')) gates[kv.split('=')[0]] = kv.split('=')[1] === 'true';
  }
  const opArgs: string[] = r.deployment.toJson().spec.template.spec.containers[0].args;
  // The flag and its value are one entry or two (--log-stdout-encoder json): drop the harness's with their values.
  const kubeRayArgs: string[] = [];
  for (let i = 0; i < opArgs.length; i++) {
    if (HARNESS_FLAGS.test(opArgs[i])) { if (!opArgs[i].includes('=') && opArgs[i + 1] && !opArgs[i + 1].startsWith('--')) i++; continue; }
    kubeRayArgs.push(opArgs[i]);
  }
  return { config: parseYaml(cm.data['controller_manager_config.yaml']), gates, kubeRayArgs };
}

function get(url: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https') ? https : http).get(url, opts, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

const rayJob = (name: string, namespace: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name, namespace, labels },
  spec: { entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: true, rayClusterSpec: { rayVersion: '2.46.0',
    headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
      resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } },
    workerGroupSpecs: [{ groupName: 'w', replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {},
      template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0',
        resources: { requests: { cpu: '1', memory: '1Gi' } } }] } } }] } },
});

for (const pair of PAIRS) {
  describeOnPair('install-settings', pair)(`install settings read by Kueue ${pair[0]} and KubeRay ${pair[1]}`, () => {
    let cluster: TestCluster;
    const kueueApi = kueueCapabilities(pair[0]).apiVersion;

    beforeAll(async () => {
      if (!VENDOR) throw new Error('install-settings needs ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
      const s = synthesize(pair[0], pair[1]);
      cluster = await TestCluster.start({ kueue: pair[0], kubeRay: pair[1], kueueConfiguration: s.config, kueueFeatureGates: s.gates,
        kubeRayArgs: s.kubeRayArgs });
      for (const ns of ['team', 'plain']) await cluster.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await cluster.client.apply({ apiVersion: kueueApi, kind: 'ResourceFlavor', metadata: { name: 'default-flavor' } });
      await cluster.client.apply({ apiVersion: kueueApi, kind: 'ClusterQueue', metadata: { name: 'cq' }, spec: {
        namespaceSelector: {}, ...(kueueApi.endsWith('v1beta2') ? { cohortName: 'org' } : { cohort: 'org' }),
        resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ name: 'default-flavor', resources: [
          { name: 'cpu', nominalQuota: '4' }, { name: 'memory', nominalQuota: '8Gi' }] }] }] } });
      await cluster.client.apply({ apiVersion: kueueApi, kind: 'LocalQueue', metadata: { name: 'lq', namespace: 'team' },
        spec: { clusterQueue: 'cq' } });
    }, 300000);

    afterAll(async () => {
      await cluster?.stop();
    }, 60000);

    test('manageJobsWithoutQueueName: Kueue suspends a RayJob that has no queue label', async () => {
      const created = await cluster.client.create(rayJob('unlabelled', 'plain'));
      expect(created.spec.suspend).toBe(true);
    }, 60000);

    test('fairSharing: the ClusterQueue reports its weighted share', async () => {
      const cq = await waitFor('fair-sharing status', async () => {
        const o = await cluster.client.get(`/apis/${kueueApi}/clusterqueues/cq`);
        return o.status?.fairSharing ? o : undefined;
      }, 60000);
      expect(cq.status.fairSharing).toHaveProperty('weightedShare');
    }, 90000);

    test('waitForPodsReady (15 s, one requeue): an admitted job whose pods never get ready is evicted for PodsReadyTimeout; '
      + 'its pods go to the batch scheduler', async () => {
      await cluster.client.create(rayJob('never-ready', 'team', { 'kueue.x-k8s.io/queue-name': 'lq' }));
      // No kubelet here: the pods KubeRay creates stay Pending, so they are never ready.
      const head = await waitFor('a head pod', async () => (await cluster.client.list('v1', 'Pod', 'team'))
        .find((p) => p.metadata.labels?.['ray.io/node-type'] === 'head'), 90000);
      expect(head.spec.schedulerName).toBe('yunikorn');
      const wl = await waitFor('eviction for PodsReadyTimeout', async () => {
        const w = (await cluster.client.list(kueueApi, 'Workload', 'team')).find((x) => x.metadata.ownerReferences?.[0]?.name === 'never-ready');
        const evicted = w && cond(w, 'Evicted');
        return evicted?.status === 'True' ? w : undefined;
      }, 120000, 1000);
      expect(cond(wl, 'Evicted').reason).toBe('PodsReadyTimeout');
    }, 240000);

    test('clusterQueueResourceMetrics: Kueue reports the ClusterQueue quota; KubeRay its job metrics', async () => {
      const c = cluster.client;
      await c.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'scraper', namespace: 'default' } });
      await c.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'scraper' },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] });
      await c.apply({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'scraper' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'scraper' },
        subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: 'default' }] });
      const tr = await c.request('POST', '/api/v1/namespaces/default/serviceaccounts/scraper/token',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } });
      expect(tr.status).toBe(201);
      // Kueue out of cluster serves metrics with the pair at its hard-coded path, which an earlier run may have written:
      // its CA is not known here, and this test is about what Kueue serves, not its certificate.
      const kueueMetrics = await waitFor('kueue_cluster_queue_nominal_quota', async () => {
        const r = await get(`https://127.0.0.1:${cluster.kueueMetricsPort}/metrics`, { rejectUnauthorized: false,
          headers: { Authorization: `Bearer ${tr.body.status.token}` } });
        if (r.status !== 200) return undefined;
        return /kueue_cluster_queue_nominal_quota\{[^}]*cluster_queue="cq"/.test(r.body) ? r.body : undefined;
      }, 60000, 1000);
      expect(kueueMetrics).toMatch(/kueue_cluster_queue_resource_usage\{[^}]*cluster_queue="cq"/);
      const ray = await waitFor('kuberay_job_info', async () => {
        const r = await get(`http://127.0.0.1:${cluster.kubeRayMetricsPort}/metrics`);
        return /kuberay_job_info\{[^}]*name="never-ready"/.test(r.body) ? r.body : undefined;
      }, 60000, 1000);
      expect(ray).toMatch(/kuberay_job_info/);
    }, 180000);
  });
}
