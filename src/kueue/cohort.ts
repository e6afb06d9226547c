import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { parseFairWeight } from '../policy/plan/fair-share';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { resolveVersions } from '../platform/versions';
import { checkedName, createKueueObject } from './kueue-api-object';
import { ResourceGroup, resourceGroupEntries, renderResourceGroups, validateResourceGroups } from './resource-group';

/** A reference to a cohort (a name that links ClusterQueues that borrow from each other). */
export interface ICohort extends IConstruct {
  /** metadata.name of the cohort (spec.cohort / spec.cohortName of its members). */
  readonly cohortName: string;
}

/** Settings of a Cohort: its parent cohort and the quota it holds for its ClusterQueues to borrow. */
export interface CohortProps {
  /**
   * metadata.name.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Parent cohort, for hierarchical cohorts.
   * @default - a root cohort
   */
  readonly parent?: ICohort;
  /**
   * Quota the cohort itself holds and lends to its members.
   * @default - none
   */
  readonly resourceGroups?: ResourceGroup[];
  /**
   * This cohort's weight under fair sharing: its share is what it borrows divided by the weight, so with 2 it
   * may borrow twice what a sibling of weight 1 does before its workloads are preempted; with 0 they go first.
   * Kueue refuses a negative weight and one in (0, 1e-9].
   * @default - Kueue's default (1)
   */
  readonly fairSharingWeight?: number;
}

/**
 * A Kueue Cohort object (cluster-scoped). ClusterQueues can join a cohort by name alone; create the
 * object for a parent, cohort-level quota or a fair-sharing weight.
 */
export class Cohort extends Construct implements ICohort {
  /** A cohort referenced by name only (no Cohort object is created). */
  public static fromCohortName(scope: Construct, id: string, name: string): ICohort {
    return new ImportedCohort(scope, id, name);
  }

  public readonly cohortName: string;
  /** The Cohort object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;
  private readonly props: CohortProps;

  public constructor(scope: Construct, id: string, props: CohortProps = {}) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.props = props;
    this.cohortName = checkedName(this, 'Cohort', props.name ?? id);
    if (props.parent?.cohortName === this.cohortName) {
      throw new Error(`Cohort '${this.node.path}': spec.parentName: a cohort cannot be its own parent. Fix: choose another parent or omit it.`);
    }
    if (props.fairSharingWeight !== undefined) parseFairWeight(props.fairSharingWeight, `Cohort '${this.node.path}'`);
    validateResourceGroups(this, 'Cohort', props.resourceGroups ?? [], !!props.parent);
    this.apiObject = createKueueObject(this, {
      kind: 'Cohort', caps, name: this.cohortName,
      body: () => {
        const spec: Record<string, unknown> = {};
        if (props.parent) spec.parentName = props.parent.cohortName;
        if (props.resourceGroups?.length) spec.resourceGroups = renderResourceGroups(props.resourceGroups);
        if (props.fairSharingWeight !== undefined) spec.fairSharing = { weight: String(props.fairSharingWeight) };
        return { spec };
      },
    });
    const inv = AppInventory.of(this);
    inv.register(this);
    this.node.addValidation({ validate: () => inv.duplicatesOf(this)
      .map((p) => `Cohort "${this.cohortName}" is also defined at '${p}'. Fix: define each Cohort once.`) });
  }

  /** @internal */
  public _inventoryEntry(): InventoryEntry {
    return { kind: 'Cohort', entry: { name: this.cohortName, parent: this.props.parent?.cohortName,
      resourceGroups: resourceGroupEntries(this.props.resourceGroups ?? []) } };
  }
}

class ImportedCohort extends Construct implements ICohort {
  public constructor(scope: Construct, id: string, public readonly cohortName: string) {
    super(scope, id);
  }
}
