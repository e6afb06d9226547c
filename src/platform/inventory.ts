import { IConstruct } from 'constructs';
import {
  ClusterQueueEntry, CohortEntry, Inventory, LocalQueueEntry, MultiKueueCheckEntry, NamespaceEntry, PriorityClassEntry, WorkerClusterEntry,
} from '../policy/context';

/** Something the app defines that cross-object rules need to see. @internal */
export interface InventoryMember {
  readonly node: IConstruct['node'];
  /** @internal */
  _inventoryEntry(): InventoryEntry;
}

/** @internal */
export type InventoryEntry =
  | { kind: 'LocalQueue'; entry: LocalQueueEntry }
  | { kind: 'ClusterQueue'; entry: ClusterQueueEntry }
  | { kind: 'Cohort'; entry: CohortEntry }
  | { kind: 'WorkloadPriorityClass'; entry: PriorityClassEntry }
  | { kind: 'ResourceFlavor'; entry: { name: string } }
  | { kind: 'Namespace'; entry: NamespaceEntry }
  | { kind: 'MultiKueueCheck'; entry: MultiKueueCheckEntry }
  | { kind: 'WorkerCluster'; entry: WorkerClusterEntry };

const REGISTRIES = new WeakMap<IConstruct, AppInventory>();

/**
 * The Kueue objects of one app, registered as they are constructed so that validating a thousand
 * workloads does not walk the construct tree a thousand times. @internal
 */
export class AppInventory {
  public static of(scope: IConstruct): AppInventory {
    const root = scope.node.root;
    let reg = REGISTRIES.get(root);
    if (!reg) {
      reg = new AppInventory();
      REGISTRIES.set(root, reg);
    }
    return reg;
  }

  /**
   * Changes with every change here or in a linked inventory (a MultiKueue worker's, which lives in another
   * App), so memoized policy results know when to re-run.
   */
  public get version(): number {
    let v = this.ownVersion;
    for (const l of this.linked) v += l.version;
    return v;
  }
  private ownVersion = 0;
  private readonly linked: AppInventory[] = [];
  private readonly members: InventoryMember[] = [];
  private cache?: { version: number; inventory: Inventory; duplicates: Map<InventoryMember, readonly string[]> };

  /** Ray workloads of the app (kind and whether elastic), for the installs. */
  public readonly workloads: Array<{ kind: string; elastic: boolean }> = [];

  /** The state of Kueue's elastic gate that a KueueInstall in the app will set, if there is one. */
  public installElasticGate?: 'on' | 'off';

  /** Tenant namespaces whose every workload Kueue is to manage (TenantQueue manageAllWorkloads), for KueueInstall. */
  public readonly kueueManagedNamespaces: string[] = [];

  /**
   * The namespaces the app's KubeRayInstalls run the operator in, for the TenantQueue's NetworkPolicies: the
   * install registers here so that the tenant queue, a layer below it, need not import it.
   */
  public readonly kubeRayOperatorNamespaces: string[] = [];

  public registerWorkload(kind: string, elastic: boolean): void {
    this.workloads.push({ kind, elastic });
  }

  public register(member: InventoryMember): void {
    this.members.push(member);
    this.invalidate();
  }

  /** Call when a member's entry changes after construction (e.g. addResourceGroup). */
  public invalidate(): void {
    this.cache = undefined;
    this.ownVersion++;
  }

  /** Makes this inventory's results depend on another (a MultiKueue worker's queues). */
  public link(other: AppInventory): void {
    if (other === this || this.linked.includes(other)) return;
    this.linked.push(other);
    this.invalidate();
  }

  public snapshot(): Inventory {
    return this.build().inventory;
  }

  /**
   * Construct paths of other members of the same kind and name (for duplicate-name errors). Found once per
   * version: every queue asks at each of cdk8s's validations, one per chart.
   */
  public duplicatesOf(member: InventoryMember): readonly string[] {
    return this.build().duplicates.get(member) ?? NO_DUPLICATES;
  }

  private build() {
    const version = this.version;
    if (this.cache && this.cache.version === version) return this.cache;
    const inv = {
      localQueues: [] as LocalQueueEntry[], clusterQueues: [] as ClusterQueueEntry[], cohorts: [] as CohortEntry[],
      priorityClasses: [] as PriorityClassEntry[], namespaces: [] as NamespaceEntry[],
      multiKueueChecks: undefined as MultiKueueCheckEntry[] | undefined, workerClusters: undefined as WorkerClusterEntry[] | undefined,
    };
    const byKey = new Map<string, InventoryMember[]>();
    for (const m of this.members) {
      const e = m._inventoryEntry();
      const key = `${e.kind}\u0000${entryKey(e)}`;
      const same = byKey.get(key);
      if (same) same.push(m);
      else byKey.set(key, [m]);
      switch (e.kind) {
        case 'LocalQueue': inv.localQueues.push(e.entry); break;
        case 'ClusterQueue': inv.clusterQueues.push(e.entry); break;
        case 'Cohort': inv.cohorts.push(e.entry); break;
        case 'WorkloadPriorityClass': inv.priorityClasses.push(e.entry); break;
        case 'Namespace': inv.namespaces.push(e.entry); break;
        case 'MultiKueueCheck': (inv.multiKueueChecks ??= []).push(e.entry); break;
        case 'WorkerCluster': (inv.workerClusters ??= []).push(e.entry); break;
        default: break;
      }
    }
    // Single-cluster apps keep the inventory shape they had (no MultiKueue keys).
    if (!inv.multiKueueChecks) delete inv.multiKueueChecks;
    if (!inv.workerClusters) delete inv.workerClusters;
    const duplicates = new Map<InventoryMember, readonly string[]>();
    for (const same of byKey.values()) {
      if (same.length < 2) continue;
      const paths = same.map((m) => m.node.path);
      same.forEach((m, i) => duplicates.set(m, paths.filter((_, j) => j !== i)));
    }
    this.cache = { version, inventory: inv, duplicates };
    return this.cache;
  }
}

const NO_DUPLICATES: readonly string[] = Object.freeze([]);

function entryKey(e: InventoryEntry): string {
  return e.kind === 'LocalQueue' ? `${e.entry.namespace}/${e.entry.name}` : e.entry.name;
}
