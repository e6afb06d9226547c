import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { LabelSelector } from '../policy/context';
import type { ClusterQueueSpecJson } from '../policy/inventory-objects';
import { parseFairWeight } from '../policy/plan/fair-share';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { resolveVersions } from '../platform/versions';
import { IAdmissionCheck } from './admission-check';
import { ICohort } from './cohort';
import { checkedName, createKueueObject } from './kueue-api-object';
import { ResourceGroup, resourceGroupEntries, renderResourceGroups, validateResourceGroups } from './resource-group';

/** Which namespaces may submit to a ClusterQueue (through their LocalQueues). */
export class NamespaceSelector {
  /** Every namespace (`namespaceSelector: {}`). */
  public static all(): NamespaceSelector {
    return new NamespaceSelector({});
  }

  /** Namespaces with all of these labels. */
  public static matchLabels(labels: Record<string, string>): NamespaceSelector {
    return new NamespaceSelector({ matchLabels: { ...labels } });
  }

  /** Exactly these namespaces, by name (uses the kubernetes.io/metadata.name label). */
  public static names(names: string[]): NamespaceSelector {
    if (!names.length) throw new Error('NamespaceSelector.names([]): give at least one namespace');
    return new NamespaceSelector({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...names] }] });
  }

  private constructor(
    /** @internal */
    public readonly _selector: LabelSelector,
  ) {}
}

/** Queueing order within a ClusterQueue. */
export enum QueueingStrategy {
  /** Older workloads first, but a workload that does not fit does not block newer ones (Kueue's default). */
  BEST_EFFORT_FIFO = 'BestEffortFIFO',
  /** Strict order: the head blocks the queue until it is admitted. */
  STRICT_FIFO = 'StrictFIFO',
}

/** Preemption within the ClusterQueue. */
export enum WithinClusterQueuePolicy {
  /** Never preempt. */
  NEVER = 'Never',
  /** Preempt workloads of this ClusterQueue with a lower priority. */
  LOWER_PRIORITY = 'LowerPriority',
  /** Preempt lower-priority workloads, and those of equal priority admitted after this one arrived. */
  LOWER_OR_NEWER_EQUAL_PRIORITY = 'LowerOrNewerEqualPriority',
}

/** Reclaiming lent quota from other ClusterQueues of the cohort. */
export enum ReclaimWithinCohortPolicy {
  /** Never reclaim: lent quota comes back only as borrowers finish. */
  NEVER = 'Never',
  /** Preempt borrowing workloads of other ClusterQueues with a lower priority. */
  LOWER_PRIORITY = 'LowerPriority',
  /** Preempt any workload that borrows this queue's nominal quota, whatever its priority. */
  ANY = 'Any',
}

/** Preempting in other ClusterQueues while borrowing. */
export enum BorrowWithinCohortPolicy {
  /** Never preempt while borrowing. */
  NEVER = 'Never',
  /** Preempt lower-priority workloads of other ClusterQueues even while borrowing. */
  LOWER_PRIORITY = 'LowerPriority',
}

/** Whom a pending workload of a ClusterQueue may preempt to be admitted. */
export interface PreemptionOptions {
  /**
   * Preemption of workloads in the same ClusterQueue, by priority.
   * @default WithinClusterQueuePolicy.NEVER
   */
  readonly withinClusterQueue?: WithinClusterQueuePolicy;
  /**
   * Preemption of other ClusterQueues' workloads that borrow this queue's nominal quota.
   * @default ReclaimWithinCohortPolicy.NEVER
   */
  readonly reclaimWithinCohort?: ReclaimWithinCohortPolicy;
  /**
   * Preemption in other ClusterQueues of the cohort while this workload itself borrows.
   * @default BorrowWithinCohortPolicy.NEVER
   */
  readonly borrowWithinCohort?: BorrowWithinCohortPolicy;
  /**
   * With borrowWithinCohort LOWER_PRIORITY: only preempt workloads at or below this priority.
   * @default - no threshold
   */
  readonly borrowWithinCohortMaxPriorityThreshold?: number;
}

/** Flavor fungibility choices; which are valid depends on the Kueue API version. */
export enum FungibilityPolicy {
  /** v1beta1 (Kueue ≤ 0.15) only: stop at the first flavor where the workload can borrow. */
  BORROW = 'Borrow',
  /** v1beta1 (Kueue ≤ 0.15) only: stop at the first flavor where the workload can preempt. */
  PREEMPT = 'Preempt',
  /** v1beta2 (Kueue ≥ 0.16) only: may stop the search at this flavor (replaces Borrow/Preempt). */
  MAY_STOP_SEARCH = 'MayStopSearch',
  /** Try the next flavor first. */
  TRY_NEXT_FLAVOR = 'TryNextFlavor',
}

/** Which flavor Kueue tries when the first one would need borrowing or preemption. */
export interface FlavorFungibilityOptions {
  /**
   * When the flavor fits only by borrowing: borrow there, or try the next flavor first.
   * @default - Kueue's default for the version
   */
  readonly whenCanBorrow?: FungibilityPolicy;
  /**
   * When the flavor fits only by preempting: preempt there, or try the next flavor first.
   * @default - Kueue's default for the version
   */
  readonly whenCanPreempt?: FungibilityPolicy;
}

/** Stopping a queue. */
export enum StopPolicy {
  /** Admit as usual. */
  NONE = 'None',
  /** Admit nothing new; running workloads continue. */
  HOLD = 'Hold',
  /** Admit nothing new and evict admitted workloads. */
  HOLD_AND_DRAIN = 'HoldAndDrain',
}

/** A reference to a ClusterQueue. */
export interface IClusterQueue extends IConstruct {
  /** metadata.name of the ClusterQueue. */
  readonly clusterQueueName: string;
}

/** Settings of a ClusterQueue: quotas per flavor, the cohort it borrows in, preemption, fair sharing and admission checks. */
export interface ClusterQueueProps {
  /**
   * metadata.name.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Quota: resource groups of flavors and their quotas. More can be added with addResourceGroup().
   * @default - none (then add at least one with addResourceGroup())
   */
  readonly resourceGroups?: ResourceGroup[];
  /**
   * Cohort to borrow from and lend to.
   * @default - no cohort: no borrowing or lending
   */
  readonly cohort?: ICohort;
  /**
   * Namespaces whose LocalQueues may point here. Kueue's own default (no selector) admits no namespace,
   * which leaves every workload pending; this library defaults to all namespaces, as the Ray guide does.
   * @default NamespaceSelector.all()
   */
  readonly namespaceSelector?: NamespaceSelector;
  /**
   * Whether an older workload that does not fit blocks newer ones (STRICT_FIFO) or not (BEST_EFFORT_FIFO).
   * @default QueueingStrategy.BEST_EFFORT_FIFO
   */
  readonly queueingStrategy?: QueueingStrategy;
  /**
   * Whom a pending workload may preempt to get quota: in this ClusterQueue, and in its cohort.
   * @default - no preemption
   */
  readonly preemption?: PreemptionOptions;
  /**
   * Whether a workload tries the next flavor before borrowing or preempting in the current one.
   * @default - Kueue's defaults
   */
  readonly flavorFungibility?: FlavorFungibilityOptions;
  /**
   * Fair-sharing weight in the cohort: the share is what the queue borrows divided by the weight. 0 puts
   * it behind every other borrower; Kueue refuses a negative weight and one in (0, 1e-9].
   * @default - Kueue's default (1)
   */
  readonly fairSharingWeight?: number;
  /**
   * Stop admitting (HOLD), or also evict what runs (HOLD_AND_DRAIN), e.g. for maintenance.
   * @default StopPolicy.NONE
   */
  readonly stopPolicy?: StopPolicy;
  /**
   * AdmissionChecks every workload must pass after quota is reserved, e.g. `MultiKueue.admissionCheck`
   * (rendered as v1beta1 `admissionChecks` or v1beta2 `admissionChecksStrategy`, per Kueue version).
   * More with addAdmissionCheck().
   * @default - none
   */
  readonly admissionChecks?: IAdmissionCheck[];
}

/** A Kueue ClusterQueue (cluster-scoped): quota per flavor, admission and preemption policy. */
export class ClusterQueue extends Construct implements IClusterQueue {
  /** A ClusterQueue defined outside this app. */
  public static fromClusterQueueName(scope: Construct, id: string, name: string): IClusterQueue {
    return new ImportedClusterQueue(scope, id, name);
  }

  public readonly clusterQueueName: string;
  /** The ClusterQueue object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;
  private readonly groups: ResourceGroup[] = [];
  private readonly checks: string[] = [];
  private readonly props: ClusterQueueProps;
  private readonly selector: LabelSelector;

  public constructor(scope: Construct, id: string, props: ClusterQueueProps = {}) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.props = props;
    this.clusterQueueName = checkedName(this, 'ClusterQueue', props.name ?? id);
    this.selector = (props.namespaceSelector ?? NamespaceSelector.all())._selector;
    const where = `ClusterQueue '${this.node.path}'`;
    for (const [field, v, allowed] of [
      ['whenCanBorrow', props.flavorFungibility?.whenCanBorrow, caps.whenCanBorrowValues],
      ['whenCanPreempt', props.flavorFungibility?.whenCanPreempt, caps.whenCanPreemptValues],
    ] as const) {
      if (v !== undefined && !allowed.includes(v)) {
        // The value as written: v1beta1's Borrow and Preempt are renamed in v1beta2.
        const written: string = v;
        throw new Error(`${where}: spec.flavorFungibility.${field} "${v}" is not valid for Kueue ${caps.version} (${caps.apiVersion}); allowed: `
          + `${allowed.join(', ')}. Fix: `
          + `${written === 'Borrow' || written === 'Preempt' ? 'use FungibilityPolicy.MAY_STOP_SEARCH (v1beta2 renamed Borrow/Preempt)'
            : 'use BORROW or PREEMPT on v1beta1'}.`);
      }
    }
    // Kueue's webhook refuses a negative weight and one in (0, 1n]; the plan reads the weight the same way.
    if (props.fairSharingWeight !== undefined) parseFairWeight(props.fairSharingWeight, where);
    const pre = props.preemption;
    const reclaims = (pre?.reclaimWithinCohort ?? ReclaimWithinCohortPolicy.NEVER) !== ReclaimWithinCohortPolicy.NEVER;
    if (pre?.borrowWithinCohort && pre.borrowWithinCohort !== BorrowWithinCohortPolicy.NEVER && !reclaims) {
      throw new Error(`${where}: spec.preemption: reclaimWithinCohort=Never and borrowWithinCohort.policy!=Never is rejected by Kueue. Fix: set `
        + 'reclaimWithinCohort to LOWER_PRIORITY or ANY, or borrowWithinCohort to NEVER.');
    }
    const borrowsToPreempt = (pre?.borrowWithinCohort ?? BorrowWithinCohortPolicy.NEVER) !== BorrowWithinCohortPolicy.NEVER;
    if (pre?.borrowWithinCohortMaxPriorityThreshold !== undefined && !borrowsToPreempt) {
      throw new Error(`${where}: spec.preemption.borrowWithinCohort.maxPriorityThreshold needs borrowWithinCohort LOWER_PRIORITY. Fix: set `
        + 'borrowWithinCohort or drop the threshold.');
    }
    if (pre && (pre.reclaimWithinCohort || pre.borrowWithinCohort) && !props.cohort) {
      throw new Error(`${where}: spec.preemption.reclaimWithinCohort/borrowWithinCohort have no effect without a cohort. Fix: set `
        + '\'cohort\' or remove them.');
    }
    for (const g of props.resourceGroups ?? []) this.groups.push(g);
    validateResourceGroups(this, 'ClusterQueue', this.groups, !!props.cohort);
    for (const c of props.admissionChecks ?? []) this.addCheck(c);

    this.apiObject = createKueueObject(this, { kind: 'ClusterQueue', caps, name: this.clusterQueueName,
      body: () => ({ spec: this.renderSpec(caps.cohortField, caps.admissionChecksField) }) });
    const inv = AppInventory.of(this);
    inv.register(this);
    this.node.addValidation({
      validate: () => [
        ...inv.duplicatesOf(this)
          .map((p) => `ClusterQueue "${this.clusterQueueName}" is also defined at '${p}'. Fix: give each ClusterQueue a unique name.`),
        ...(this.groups.length ? []
          : [`${where}: spec.resourceGroups is empty, so the queue admits nothing. Fix: pass resourceGroups or call addResourceGroup().`]),
      ],
    });
  }

  /** Adds a resource group (quota) after construction. */
  public addResourceGroup(group: ResourceGroup): void {
    const next = [...this.groups, group];
    validateResourceGroups(this, 'ClusterQueue', next, !!this.props.cohort);
    this.groups.push(group);
    AppInventory.of(this).invalidate();
  }

  /** Adds an AdmissionCheck (e.g. MultiKueue's) after construction. */
  public addAdmissionCheck(check: IAdmissionCheck): void {
    this.addCheck(check);
    AppInventory.of(this).invalidate();
  }

  private addCheck(check: IAdmissionCheck): void {
    if (this.checks.includes(check.admissionCheckName)) {
      throw new Error(`ClusterQueue '${this.node.path}': AdmissionCheck "${check.admissionCheckName}" is listed twice. Fix: add it once.`);
    }
    this.checks.push(check.admissionCheckName);
  }

  private renderSpec(cohortField: string, checksField: 'admissionChecks' | 'admissionChecksStrategy'): ClusterQueueSpecJson {
    const p = this.props;
    // Filled in field by field: the cohort's and the checks' field names depend on the API version.
    const spec: Record<string, unknown> = {
      namespaceSelector: this.selector,
      resourceGroups: renderResourceGroups(this.groups),
    };
    if (p.cohort) spec[cohortField] = p.cohort.cohortName;
    if (p.queueingStrategy) spec.queueingStrategy = p.queueingStrategy;
    if (p.preemption) {
      spec.preemption = {
        withinClusterQueue: p.preemption.withinClusterQueue,
        reclaimWithinCohort: p.preemption.reclaimWithinCohort,
        borrowWithinCohort: p.preemption.borrowWithinCohort
          ? { policy: p.preemption.borrowWithinCohort, maxPriorityThreshold: p.preemption.borrowWithinCohortMaxPriorityThreshold }
          : undefined,
      };
    }
    const ff = p.flavorFungibility;
    if (ff) spec.flavorFungibility = { whenCanBorrow: ff.whenCanBorrow, whenCanPreempt: ff.whenCanPreempt };
    if (p.fairSharingWeight !== undefined) spec.fairSharing = { weight: String(p.fairSharingWeight) };
    if (p.stopPolicy) spec.stopPolicy = p.stopPolicy;
    if (this.checks.length) {
      // v1beta2 dropped the plain list; the strategy form without onFlavors applies the check to every flavor.
      spec[checksField] = checksField === 'admissionChecks' ? [...this.checks] : { admissionChecks: this.checks.map((name) => ({ name })) };
    }
    return spec;
  }

  /** @internal */
  public _inventoryEntry(): InventoryEntry {
    return {
      kind: 'ClusterQueue',
      entry: {
        name: this.clusterQueueName, cohort: this.props.cohort?.cohortName, namespaceSelector: this.selector,
        resourceGroups: resourceGroupEntries(this.groups), stopPolicy: this.props.stopPolicy,
        admissionChecks: this.checks.length ? [...this.checks] : undefined,
      },
    };
  }
}

class ImportedClusterQueue extends Construct implements IClusterQueue {
  public constructor(scope: Construct, id: string, public readonly clusterQueueName: string) {
    super(scope, id);
  }
}
