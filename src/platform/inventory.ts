import { IConstruct } from 'constructs';
import {
  ClusterQueueEntry, CohortEntry, Inventory, LocalQueueEntry, NamespaceEntry, PriorityClassEntry,
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
  | { kind: 'Namespace'; entry: NamespaceEntry };

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

  /** Bumped on every change, so memoized policy results know when to re-run. */
  public version = 0;
  private readonly members: InventoryMember[] = [];
  private cache?: { inventory: Inventory; byKind: Map<string, Array<{ path: string; name: string }>> };

  /** Ray workloads of the app (kind and whether elastic), for the installs. */
  public readonly workloads: Array<{ kind: string; elastic: boolean }> = [];

  /** The state of Kueue's elastic gate that a KueueInstall in the app will set, if there is one. */
  public installElasticGate?: 'on' | 'off';

  public registerWorkload(kind: string, elastic: boolean): void {
    this.workloads.push({ kind, elastic });
  }

  public register(member: InventoryMember): void {
    this.members.push(member);
    this.cache = undefined;
    this.version++;
  }

  /** Call when a member's entry changes after construction (e.g. addResourceGroup). */
  public invalidate(): void {
    this.cache = undefined;
    this.version++;
  }

  public snapshot(): Inventory {
    return this.build().inventory;
  }

  /** Construct paths of other members of the same kind and name (for duplicate-name errors). */
  public duplicatesOf(member: InventoryMember): string[] {
    const e = member._inventoryEntry();
    const key = entryKey(e);
    return (this.build().byKind.get(e.kind) ?? []).filter((x) => x.name === key && x.path !== member.node.path).map((x) => x.path);
  }

  private build() {
    if (this.cache) return this.cache;
    const inv = {
      localQueues: [] as LocalQueueEntry[], clusterQueues: [] as ClusterQueueEntry[], cohorts: [] as CohortEntry[],
      priorityClasses: [] as PriorityClassEntry[], namespaces: [] as NamespaceEntry[],
    };
    const byKind = new Map<string, Array<{ path: string; name: string }>>();
    for (const m of this.members) {
      const e = m._inventoryEntry();
      const list = byKind.get(e.kind) ?? [];
      list.push({ path: m.node.path, name: entryKey(e) });
      byKind.set(e.kind, list);
      switch (e.kind) {
        case 'LocalQueue': inv.localQueues.push(e.entry); break;
        case 'ClusterQueue': inv.clusterQueues.push(e.entry); break;
        case 'Cohort': inv.cohorts.push(e.entry); break;
        case 'WorkloadPriorityClass': inv.priorityClasses.push(e.entry); break;
        case 'Namespace': inv.namespaces.push(e.entry); break;
        default: break;
      }
    }
    this.cache = { inventory: inv, byKind };
    return this.cache;
  }
}

function entryKey(e: InventoryEntry): string {
  return e.kind === 'LocalQueue' ? `${e.entry.namespace}/${e.entry.name}` : e.entry.name;
}
