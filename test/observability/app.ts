// An app with every queue shape the rules distinguish: tenants with their own ClusterQueue in a cohort
// (one with a borrowing limit), a tenant alone without a cohort, and two tenants sharing a ClusterQueue.
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import {
  AdmissionController, ClusterQueue, Cohort, KubeRayInstall, KueueInstall, KueueRayVersions, KueueVersion, KubeRayVersion, Quantity,
  QueueObservability, QueueObservabilityProps, ResourceFlavor, ResourceName, TenantQueue,
} from '../../src';
import { vendorDir } from '../support/upstream';

export const VENDOR = vendorDir();
export const kueueManifest = (tag = 'v0.19.2') => path.join(VENDOR!, 'kueue', tag, 'manifests.yaml');
export const kubeRayCrds = (tag = 'v1.6.2') => path.join(VENDOR!, 'kuberay', tag, 'ray-operator', 'config', 'crd', 'bases');

export interface ObsApp {
  readonly app: App;
  readonly obs: QueueObservability;
  readonly kueue?: KueueInstall;
}

export function queuesChart(app: App): Chart {
  const chart = new Chart(app, 'queues');
  const flavor = new ResourceFlavor(chart, 'default-flavor');
  const cohort = new Cohort(chart, 'research');
  const quota = (cpu: number, borrowingLimit?: number) => [{ flavors: [{ flavor, quotas: [
    { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(cpu),
      ...(borrowingLimit !== undefined ? { borrowingLimit: Quantity.cpu(borrowingLimit) } : {}) },
  ] }] }];
  new TenantQueue(chart, 'alpha', { namespace: 'alpha', resourceGroups: quota(4, 2), cohort });
  new TenantQueue(chart, 'beta', { namespace: 'beta', resourceGroups: quota(4), cohort });
  new TenantQueue(chart, 'solo', { namespace: 'solo', resourceGroups: quota(2) });
  const shared = new ClusterQueue(chart, 'shared', { name: 'shared', resourceGroups: quota(8),
    namespaceSelector: undefined });
  new TenantQueue(chart, 'gamma', { namespace: 'gamma', clusterQueue: shared });
  new TenantQueue(chart, 'delta', { namespace: 'delta', clusterQueue: shared, queueName: 'batch' });
  return chart;
}

/** The full app: installs, queues, then the observability chart. */
export function obsApp(props: QueueObservabilityProps = {}, opts: { installs?: boolean; kueueProps?: object } = {}): ObsApp {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of('v0.19.2'), kubeRay: KubeRayVersion.of('v1.6.2') });
  let kueue: KueueInstall | undefined;
  if (opts.installs ?? true) {
    kueue = new KueueInstall(app, 'kueue', { manifestFile: kueueManifest(), ...(opts.kueueProps ?? {}) });
    new KubeRayInstall(app, 'kuberay', { crdDir: kubeRayCrds() });
    new AdmissionController(app, 'controller');
  }
  queuesChart(app);
  const obs = new QueueObservability(app, 'observability', props);
  return { app, obs, kueue };
}
