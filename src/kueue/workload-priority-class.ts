import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { DNS1123_SUBDOMAIN } from '../policy/ray-object';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { resolveVersions } from '../platform/versions';
import { checkedName, createKueueObject } from './kueue-api-object';

/** A reference to a WorkloadPriorityClass. */
export interface IWorkloadPriorityClass {
  readonly priorityClassName: string;
  /** False for classes referenced by name from outside the app (not checked at synth). */
  readonly definedInApp: boolean;
}

export interface WorkloadPriorityClassProps {
  /**
   * metadata.name (the kueue.x-k8s.io/priority-class label value).
   * @default - the construct id
   */
  readonly name?: string;
  /** Priority value: higher preempts lower (with a preempting ClusterQueue). */
  readonly value: number;
  /** @default - none */
  readonly description?: string;
}

/**
 * A Kueue WorkloadPriorityClass (cluster-scoped). It orders and preempts Workloads only; pod
 * priority is untouched.
 */
export class WorkloadPriorityClass extends Construct implements IWorkloadPriorityClass {
  /** A class defined outside this app. */
  public static fromWorkloadPriorityClassName(name: string): IWorkloadPriorityClass {
    if (!DNS1123_SUBDOMAIN.test(name)) throw new Error(`WorkloadPriorityClass.fromWorkloadPriorityClassName(): "${name}" is not a valid name.`);
    return { priorityClassName: name, definedInApp: false };
  }

  public readonly priorityClassName: string;
  public readonly definedInApp = true;
  public readonly value: number;
  public readonly apiObject: ApiObject;

  public constructor(scope: Construct, id: string, props: WorkloadPriorityClassProps) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.priorityClassName = checkedName(this, 'WorkloadPriorityClass', props.name ?? id);
    if (!Number.isInteger(props.value) || props.value > 2_147_483_647 || props.value < -2_147_483_648) {
      throw new Error(`WorkloadPriorityClass '${this.node.path}': value ${props.value} must be a whole number in the int32 range. Fix: use e.g. 100 for dev, 1000 for prod.`);
    }
    this.value = props.value;
    this.apiObject = createKueueObject(this, {
      kind: 'WorkloadPriorityClass', caps, name: this.priorityClassName,
      body: () => ({ value: props.value, description: props.description }),
    });
    const inv = AppInventory.of(this);
    inv.register(this);
    this.node.addValidation({ validate: () => inv.duplicatesOf(this).map((p) => `WorkloadPriorityClass "${this.priorityClassName}" is also defined at '${p}'. Fix: define each class once.`) });
  }

  /** @internal */
  public _inventoryEntry(): InventoryEntry {
    return { kind: 'WorkloadPriorityClass', entry: { name: this.priorityClassName, value: this.value } };
  }
}
