// The constructs' tests' shared app: Kueue and KubeRay versions, a ClusterQueue of 8 CPU / 16Gi, its LocalQueue "lq",
// a priority class "dev", and the head and worker groups the Ray workloads are built from.
import { App, Chart, Testing } from 'cdk8s';
import { ClusterQueue, KubeRayVersion, KueueRayVersions, KueueVersion, LocalQueue, Quantity, ResourceFlavor, ResourceName,
  WorkloadPriorityClass } from '../../src';

export function setup(kueue = 'v0.19.2', kubeRay = 'v1.6.2') {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  const chart = new Chart(app, 'c');
  const flavor = new ResourceFlavor(chart, 'default-flavor');
  const cq = new ClusterQueue(chart, 'cq', {
    resourceGroups: [{ flavors: [{ flavor, quotas: [
      { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(8) },
      { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) },
    ] }] }],
  });
  const lq = new LocalQueue(chart, 'lq', { clusterQueue: cq });
  const dev = new WorkloadPriorityClass(chart, 'dev', { value: 100 });
  return { app, chart, flavor, cq, lq, dev };
}

export const head = { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) } };
export const worker = (extra: object = {}) =>
  ({ groupName: 'workers', replicas: 1, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) }, ...extra });
export const synth = (app: App) => app.node.findAll().filter((c): c is Chart => c instanceof Chart).flatMap((c) => c.toJson());
