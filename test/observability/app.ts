// An app with every queue shape the rules distinguish: tenants with their own ClusterQueue in a cohort
// (one with a borrowing limit), a tenant alone without a cohort, and two tenants sharing a ClusterQueue.
import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import {
  AdmissionController, ClusterQueue, Cohort, KubeRayInstall, KueueInstall, KueueRayVersions, KueueVersion, KubeRayVersion, Quantity,
  QueueObservability, QueueObservabilityProps, ResourceFlavor, ResourceName, TenantQueue,
} from '../../src';
import { KUBERAY_CRDS } from '../../src/install/releases';
import { tmpdir } from '../support/synth';
import { vendorDir } from '../support/upstream';

export const VENDOR = vendorDir();
const trimmed = new Map<string, string>();

/**
 * A Kueue release with only the kinds these tests read (the manager's Deployment and ConfigMap, the Services,
 * the ClusterRoles): the whole file's CRDs take seconds to parse, for every app.
 */
export function kueueManifest(tag = 'v0.19.2'): string {
  let file = trimmed.get(tag);
  if (!file) {
    const docs = fs.readFileSync(path.join(VENDOR!, 'kueue', tag, 'manifests.yaml'), 'utf8').split(/^---$/m);
    file = path.join(tmpdir(), `kueue-${tag}.yaml`);
    fs.writeFileSync(file, docs.filter((d) => /^kind: (Deployment|ConfigMap|Service|ClusterRole)$/m.test(d)).join('---'));
    trimmed.set(tag, file);
  }
  return file;
}
let crdStubs: string | undefined;

/** A crdDir whose CRDs are names only: the operator's objects are what these tests read, not the schemas. */
export function kubeRayCrds(tag = 'v1.6.2'): string {
  if (!crdStubs) {
    crdStubs = tmpdir();
    for (const file of Object.keys(KUBERAY_CRDS[tag])) {
      const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: file } };
      fs.writeFileSync(path.join(crdStubs, file), JSON.stringify(crd));
    }
  }
  return crdStubs;
}

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
