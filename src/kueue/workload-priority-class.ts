import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { isDns1123Subdomain } from '../policy/k8s-names';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { resolveVersions } from '../platform/versions';
import { checkedName, createKueueObject } from './kueue-api-object';

/** A reference to a WorkloadPriorityClass. */
export interface IWorkloadPriorityClass extends IConstruct {
  /** metadata.name, the value of the kueue.x-k8s.io/priority-class label. */
  readonly workloadPriorityClassName: string;
}

/** Settings of a WorkloadPriorityClass: its value and description. */
export interface WorkloadPriorityClassProps {
  /**
   * metadata.name (the kueue.x-k8s.io/priority-class label value).
   * @default - the construct id
   */
  readonly name?: string;
  /** Priority value: higher preempts lower (with a preempting ClusterQueue). */
  readonly value: number;
  /**
   * Free text for people, e.g. what the class is for and who may use it.
   * @default - none
   */
  readonly description?: string;
}

/**
 * A Kueue WorkloadPriorityClass (cluster-scoped). It orders and preempts Workloads only; pod
 * priority is untouched.
 */
export class WorkloadPriorityClass extends Construct implements IWorkloadPriorityClass {
  /** A class defined outside this app: unless the app also defines it, its existence is not checked at synth. */
  public static fromWorkloadPriorityClassName(scope: Construct, id: string, name: string): IWorkloadPriorityClass {
    if (!isDns1123Subdomain(name)) throw new Error(`WorkloadPriorityClass.fromWorkloadPriorityClassName(): "${name}" is not a valid name.`);
    return new ImportedWorkloadPriorityClass(scope, id, name);
  }

  public readonly workloadPriorityClassName: string;
  /** The priority: higher is admitted first and may preempt lower. */
  public readonly value: number;
  /** The WorkloadPriorityClass object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;

  public constructor(scope: Construct, id: string, props: WorkloadPriorityClassProps) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.workloadPriorityClassName = checkedName(this, 'WorkloadPriorityClass', props.name ?? id);
    if (!Number.isInteger(props.value) || props.value > 2_147_483_647 || props.value < -2_147_483_648) {
      throw new Error(`WorkloadPriorityClass '${this.node.path}': value ${props.value} must be a whole number in the int32 range. Fix: use e.g. 100 `
        + 'for dev, 1000 for prod.');
    }
    this.value = props.value;
    this.apiObject = createKueueObject(this, {
      kind: 'WorkloadPriorityClass', caps, name: this.workloadPriorityClassName,
      body: () => ({ value: props.value, description: props.description }),
    });
    const inv = AppInventory.of(this);
    inv.register(this);
    this.node.addValidation({ validate: () => inv.duplicatesOf(this)
      .map((p) => `WorkloadPriorityClass "${this.workloadPriorityClassName}" is also defined at '${p}'. Fix: define each class once.`) });
  }

  /** @internal */
  public _inventoryEntry(): InventoryEntry {
    return { kind: 'WorkloadPriorityClass', entry: { name: this.workloadPriorityClassName, value: this.value } };
  }
}

class ImportedWorkloadPriorityClass extends Construct implements IWorkloadPriorityClass {
  public constructor(scope: Construct, id: string, public readonly workloadPriorityClassName: string) {
    super(scope, id);
  }
}
