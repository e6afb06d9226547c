import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { isDns1123Subdomain } from '../policy/k8s-names';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import { resolveVersions } from '../platform/versions';
import { IClusterQueue, StopPolicy } from './cluster-queue';
import { IWorkloadPriorityClass } from './workload-priority-class';
import { checkedName, createKueueObject } from './kueue-api-object';

/** A reference to a LocalQueue: what Ray workloads are labelled with. */
export interface ILocalQueue extends IConstruct {
  /** metadata.name, the value of the kueue.x-k8s.io/queue-name label. */
  readonly localQueueName: string;
  /** The namespace the queue (and its workloads) live in. */
  readonly namespace: string;
  /**
   * The priority class Ray workloads submitted here get when they name none (TenantQueue sets it).
   * @default - none
   */
  readonly defaultPriorityClass?: IWorkloadPriorityClass;
}

/** Settings of a LocalQueue: its namespace and the ClusterQueue it submits to. */
export interface LocalQueueProps {
  /**
   * metadata.name (the queue-name label value).
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace of the queue; workloads using it must be in the same namespace.
   * @default "default"
   */
  readonly namespace?: string;
  /** The ClusterQueue this queue submits to. */
  readonly clusterQueue: IClusterQueue;
  /**
   * Stop admitting this queue's workloads (HOLD), or also evict its running ones (HOLD_AND_DRAIN).
   * @default StopPolicy.NONE
   */
  readonly stopPolicy?: StopPolicy;
  /**
   * Fair-sharing weight (admission fair sharing).
   * @default - Kueue's default (1)
   */
  readonly fairSharingWeight?: number;
  /**
   * Extra annotations on the LocalQueue.
   * @default - none
   */
  readonly annotations?: Record<string, string>;
  /**
   * Extra labels on the LocalQueue.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

/** Tenant rules recorded on a LocalQueue by TenantQueue. @internal */
export interface TenantRules {
  readonly allowedPriorityClasses?: readonly string[];
  readonly defaultPriorityClass?: string;
  readonly allowedPodPriorityClasses?: readonly string[];
}

/** A Kueue LocalQueue (namespaced): the queue users submit to. */
export class LocalQueue extends Construct implements ILocalQueue {
  /**
   * A LocalQueue defined outside this app. Unless the app also defines it, its existence and quota are not
   * checked at synth.
   */
  public static fromLocalQueueName(scope: Construct, id: string, namespace: string, name: string): ILocalQueue {
    if (!isDns1123Subdomain(name)) throw new Error(`LocalQueue.fromLocalQueueName(): "${name}" is not a valid queue name. Fix: use the `
      + 'LocalQueue\'s metadata.name.');
    return new ImportedLocalQueue(scope, id, namespace, name);
  }

  public readonly localQueueName: string;
  public readonly namespace: string;
  /** The ClusterQueue whose quota this queue's workloads use. */
  public readonly clusterQueue: IClusterQueue;
  /** The LocalQueue object as synthesized: add fields Kueue accepts that no prop covers with `addJsonPatch`. */
  public readonly apiObject: ApiObject;
  /** @internal */
  public _tenant?: TenantRules;

  public constructor(scope: Construct, id: string, props: LocalQueueProps) {
    super(scope, id);
    const caps = resolveVersions(this).kueue;
    this.localQueueName = checkedName(this, 'LocalQueue', props.name ?? id);
    this.namespace = props.namespace ?? 'default';
    this.clusterQueue = props.clusterQueue;
    this.apiObject = createKueueObject(this, {
      kind: 'LocalQueue', caps, name: this.localQueueName, namespace: this.namespace, annotations: props.annotations, labels: props.labels,
      body: () => {
        const spec: Record<string, unknown> = { clusterQueue: props.clusterQueue.clusterQueueName };
        if (props.stopPolicy) spec.stopPolicy = props.stopPolicy;
        if (props.fairSharingWeight !== undefined) spec.fairSharing = { weight: String(props.fairSharingWeight) };
        return { spec };
      },
    });
    const inv = AppInventory.of(this);
    inv.register(this);
    this.node.addValidation({ validate: () => inv.duplicatesOf(this)
      .map((p) => `LocalQueue ${this.namespace}/${this.localQueueName} is also defined at '${p}'. Fix: one LocalQueue per name and namespace.`) });
  }

  /** @internal */
  public _inventoryEntry(): InventoryEntry {
    return { kind: 'LocalQueue', entry: { namespace: this.namespace, name: this.localQueueName, clusterQueue: this.clusterQueue.clusterQueueName,
      tenant: this._tenant, tenantLabelled: this._tenant !== undefined } };
  }
}

class ImportedLocalQueue extends Construct implements ILocalQueue {
  public constructor(scope: Construct, id: string, public readonly namespace: string, public readonly localQueueName: string) {
    super(scope, id);
  }
}
