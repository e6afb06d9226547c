import { Construct } from 'constructs';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { resolveVersions } from '../platform/versions';
import { FIRST_KUEUE_VERSION } from '../policy/versions';
import { MULTIKUEUE_CONTROLLER_NAME } from '../policy/rules/multikueue';
import { AdmissionCheck, IAdmissionCheck } from './admission-check';
import { MultiKueueCluster } from './multikueue-cluster';
import { MultiKueueConfig } from './multikueue-config';
import { IMultiKueueWorker, MultiKueueWorker } from './multikueue-worker';

/** Settings of MultiKueue on the manager cluster: the worker clusters it dispatches to and their kubeconfig Secrets. */
export interface MultiKueueProps {
  /** The worker clusters, most preferred first. Define each with MultiKueueWorker in its own App. */
  readonly workers: IMultiKueueWorker[];
  /**
   * Name of the AdmissionCheck and of its MultiKueueConfig (a DNS-1123 label, at most 63 characters).
   * @default - the construct id
   */
  readonly name?: string;
}

/**
 * The manager side of MultiKueue: one MultiKueueCluster per worker (kubeconfig from a Secret), a
 * MultiKueueConfig listing them and the AdmissionCheck with controller kueue.x-k8s.io/multikueue.
 * Give `admissionCheck` to the manager's ClusterQueues: their Ray workloads are then dispatched to a worker
 * with room, and the Ray constructs set spec.managedBy for it.
 *
 * Keep the manager and each worker in separate Apps (one chart set per cluster): the policy reads each
 * MultiKueueWorker's App for the worker's queues and checks that every dispatched workload's LocalQueue
 * exists there and that its gang fits some worker.
 */
export class MultiKueue extends Construct {
  /** The MultiKueue AdmissionCheck: pass it to ClusterQueue `admissionChecks`. */
  public readonly admissionCheck: IAdmissionCheck;
  /** The MultiKueueConfig listing the worker clusters. */
  public readonly config: MultiKueueConfig;
  /** One MultiKueueCluster per worker, each reading its kubeconfig Secret. */
  public readonly clusters: MultiKueueCluster[];
  private readonly workers: IMultiKueueWorker[];

  public constructor(scope: Construct, id: string, props: MultiKueueProps) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    const where = `MultiKueue '${this.node.path}'`;
    if (!caps.multiKueueRayKinds.length) {
      throw new Error(`${where}: this library offers MultiKueue from Kueue ${FIRST_KUEUE_VERSION.multiKueueRay} (the first pinned version whose Ray `
        + `adapters it checked), not ${caps.version}. Fix: choose KueueVersion.V0_14_8 or newer.`);
    }
    if (!props.workers.length) throw new Error(`${where}: workers is empty. Fix: pass at least one MultiKueueWorker.`);
    const name = props.name ?? id;
    this.workers = [...props.workers];
    for (const w of this.workers) {
      if (w instanceof MultiKueueWorker && w.kueueVersion !== caps.version) {
        throw new Error(`${where}: worker "${w.clusterName}" runs Kueue ${w.kueueVersion}, the manager ${caps.version}; the worker's RBAC and the `
          + 'Workload copies follow one version. Fix: use the same KueueVersion in the manager\'s and the workers\' Apps.');
      }
      if (w instanceof MultiKueueWorker && w.node.root === this.node.root) {
        throw new Error(`${where}: worker "${w.clusterName}" is in the manager's App; each cluster needs its own App (its own chart set and queues `
          + 'of the same names). Fix: create the MultiKueueWorker in the worker\'s App.');
      }
    }
    this.clusters = this.workers.map((w) => new MultiKueueCluster(this, w.clusterName, { kubeconfigSecretName: w.kubeconfigSecretName }));
    this.config = new MultiKueueConfig(this, 'Config', { name, clusters: this.clusters });
    this.admissionCheck = new AdmissionCheck(this, 'AdmissionCheck', {
      name, controllerName: MULTIKUEUE_CONTROLLER_NAME,
      parameters: { apiGroup: 'kueue.x-k8s.io', kind: 'MultiKueueConfig', name: this.config.multiKueueConfigName },
    });
    const inv = AppInventory.of(this);
    inv.register({ node: this.node,
      _inventoryEntry: (): InventoryEntry => ({ kind: 'MultiKueueCheck', entry: { name, clusters: this.config.clusterNames } }) });
    for (const w of this.workers) {
      const workerInv = w instanceof MultiKueueWorker ? AppInventory.of(w) : undefined;
      if (workerInv) inv.link(workerInv);
      inv.register({ node: w.node,
        _inventoryEntry: (): InventoryEntry => ({ kind: 'WorkerCluster', entry: { name: w.clusterName, inventory: workerInv?.snapshot() } }) });
    }
  }
}
