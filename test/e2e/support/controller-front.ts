/**
 * The controller's webhook in front of a test control plane, as the AdmissionController chart
 * configures it (namespaceSelector, matchConditions, failure policies), registered by URL: the
 * webhook server runs in this process, fed by the same informers as in the image.
 */
import * as fs from 'fs';
import { InventoryCache } from '../../../src/controller/inventory-cache';
import { WebhookServer, WebhookServerOptions } from '../../../src/controller/server';
import { kubeRayCapabilities, kueueCapabilities } from '../../../src/policy/versions';
import { TestCluster } from './cluster';
import { waitFor } from './kube';

export interface ControllerFront {
  readonly server: WebhookServer;
  readonly cache: InventoryCache;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Listens, then waits until the server is ready (/readyz would answer 200: the admission workers loaded), as a
 * Deployment's readiness probe keeps its Service from routing to it before; only then may a webhook point at its port.
 * Without the wait, a loaded machine had the API server's first call time out at 5 s while the worker was still loading
 * (cold CI of 2026-12-07: webhook-client-auth, 'context deadline exceeded', then /readyz 503).
 */
export async function listenReady(s: WebhookServer): Promise<number> {
  const port = await s.listen();
  await waitFor('the webhook server ready (/readyz)', async () => s.isReady(), 120000, 100);
  return port;
}

/**
 * Starts the webhook and registers the chart's two configurations (`controller` is the chart's JSON)
 * pointed at it. Resolves once the informers see `ready()`.
 */
export async function frontController(
  cluster: TestCluster, controller: any[], pair: [string, string], ready: (c: InventoryCache) => boolean,
  server: Partial<WebhookServerOptions> = {},
): Promise<ControllerFront> {
  const cache = new InventoryCache({ kubeconfigFile: cluster.kubeconfig, kueueApiVersion: kueueCapabilities(pair[0]).apiVersion.split('/')[1] });
  await cache.start();
  await waitFor('the inventory informers to see the tenants', async () => cache.ready() && ready(cache), 60000);
  const pki = (cluster as any).pki;
  const s = new WebhookServer({
    cert: fs.readFileSync(pki.servingCrt), key: fs.readFileSync(pki.servingKey), workers: 1,
    config: { kueue: kueueCapabilities(pair[0]), kubeRay: kubeRayCapabilities(pair[1]), elasticGate: 'on' },
    view: () => cache.view(), ready: () => cache.ready(), ...server,
  });
  const port = await listenReady(s);
  const caBundle = fs.readFileSync(pki.caCrt).toString('base64');
  for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
    const cfg = JSON.parse(JSON.stringify(controller.find((x) => x.kind === kind)));
    for (const w of cfg.webhooks) w.clientConfig = { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle };
    await cluster.client.apply(cfg);
  }
  let stopped = false;
  return {
    server: s, cache, port,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await s.stop();
      await cache.stop();
    },
  };
}

/** A tenant user with edit rights on Ray objects (and reads on its queue and pods) in its namespaces, as `kubectl create rolebinding --clusterrole=edit` gives. */
export function tenantRbac(user: string, namespaces: readonly string[]): any[] {
  return namespaces.flatMap((ns) => [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant-edit', namespace: ns },
      rules: [
        { apiGroups: ['ray.io'], resources: ['rayjobs', 'rayclusters', 'rayservices', 'rayjobs/status', 'rayclusters/status', 'rayservices/status'],
          verbs: ['*'] },
        { apiGroups: [''], resources: ['pods', 'services', 'configmaps', 'serviceaccounts'], verbs: ['*'] },
        { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: ['*'] },
        { apiGroups: ['apps'], resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets'], verbs: ['*'] },
        { apiGroups: ['kueue.x-k8s.io'], resources: ['localqueues', 'workloads'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant-edit', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant-edit' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  ]);
}
