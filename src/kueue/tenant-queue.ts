import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { DNS1123_LABEL, DNS1123_SUBDOMAIN } from '../policy/ray-object';
import { TENANT_LABEL, tenantAnnotations } from '../policy/tenant';
import { AppInventory, InventoryEntry } from '../platform/inventory';
import {
  ClusterQueue, IClusterQueue, NamespaceSelector, PreemptionOptions, QueueingStrategy, ReclaimWithinCohortPolicy, WithinClusterQueuePolicy,
} from './cluster-queue';
import { ICohort } from './cohort';
import { ILocalQueue, LocalQueue } from './local-queue';
import { ResourceGroup } from './resource-group';
import { IWorkloadPriorityClass } from './workload-priority-class';

export interface TenantQueueProps {
  /** The tenant's namespace. */
  readonly namespace: string;
  /**
   * Create the Namespace object. Set false for a namespace that already exists: the chart then still
   * writes the tenant label and rule annotations on it (a Namespace object with only those, which a
   * server-side apply merges into the existing one, leaving its other labels alone). Without the label
   * the controller's webhooks would not see the namespace at all.
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * Extra labels for a created Namespace.
   * @default - only the tenant label
   */
  readonly namespaceLabels?: Record<string, string>;
  /**
   * Name of the tenant's LocalQueue. "default" also makes Kueue's LocalQueueDefaulting label every
   * new Ray object of the namespace with this queue.
   * @default "default"
   */
  readonly queueName?: string;
  /**
   * A shared ClusterQueue to submit to. Give either this or `resourceGroups`.
   * @default - the tenant gets its own ClusterQueue from `resourceGroups`
   */
  readonly clusterQueue?: IClusterQueue;
  /**
   * The tenant's own quota: creates a ClusterQueue admitting only this namespace.
   * @default - none (then `clusterQueue` is required)
   */
  readonly resourceGroups?: ResourceGroup[];
  /**
   * Cohort of the tenant's own ClusterQueue, to borrow and lend.
   * @default - no cohort
   */
  readonly cohort?: ICohort;
  /**
   * Name of the tenant's own ClusterQueue.
   * @default - the namespace name
   */
  readonly clusterQueueName?: string;
  /**
   * Preemption of the tenant's own ClusterQueue.
   * @default - within the queue, lower priority is preempted; lent quota is reclaimed from lower priority
   */
  readonly preemption?: PreemptionOptions;
  /**
   * Queueing strategy of the tenant's own ClusterQueue.
   * @default QueueingStrategy.BEST_EFFORT_FIFO
   */
  readonly queueingStrategy?: QueueingStrategy;
  /**
   * Priority class Ray workloads in this queue get when they name none.
   * @default - none
   */
  readonly defaultPriorityClass?: IWorkloadPriorityClass;
  /**
   * The only priority classes workloads of this tenant may use (recorded for the controller too).
   * @default - any
   */
  readonly allowedPriorityClasses?: IWorkloadPriorityClass[];
  /**
   * Kubernetes PriorityClasses the tenant's pod templates may name in `priorityClassName`. Kueue takes
   * a Workload's priority from the pod template when no WorkloadPriorityClass label is set, and the
   * kube-scheduler preempts pods by it, so the controller refuses any other class in this namespace.
   * @default - none: pod templates of the tenant's Ray objects may not set priorityClassName
   */
  readonly allowedPodPriorityClasses?: string[];
}

/**
 * The multi-tenant unit: a namespace plus its LocalQueue bound to a ClusterQueue (shared, or the
 * tenant's own in a cohort), with default and allowed priority classes.
 */
export class TenantQueue extends Construct implements ILocalQueue {
  public readonly localQueueName: string;
  public readonly namespace: string;
  public readonly localQueue: LocalQueue;
  /** The ClusterQueue the tenant submits to (its own, or the shared one). */
  public readonly clusterQueue: IClusterQueue;
  /** The tenant's own ClusterQueue, when it has one. */
  public readonly ownClusterQueue?: ClusterQueue;
  public readonly defaultPriorityClass?: IWorkloadPriorityClass;
  public readonly allowedPriorityClasses: IWorkloadPriorityClass[];
  /** The Namespace object (with createNamespace false, only the tenant label and rule annotations). */
  public readonly namespaceObject: ApiObject;

  public constructor(scope: Construct, id: string, props: TenantQueueProps) {
    super(scope, id);
    const where = `TenantQueue '${this.node.path}'`;
    if (!DNS1123_LABEL.test(props.namespace) || props.namespace.length > 63) {
      throw new Error(`${where}: namespace "${props.namespace}" is not a valid namespace name (DNS-1123 label). Fix: use lowercase `
        + 'letters, digits and "-".');
    }
    if (!!props.clusterQueue === !!props.resourceGroups) {
      throw new Error(`${where}: give exactly one of 'clusterQueue' (a shared ClusterQueue) or 'resourceGroups' (the tenant's own quota).`);
    }
    if (props.clusterQueue && (props.cohort || props.clusterQueueName || props.preemption || props.queueingStrategy)) {
      throw new Error(`${where}: 'cohort', 'clusterQueueName', 'preemption' and 'queueingStrategy' configure the tenant's own ClusterQueue; with a `
        + 'shared \'clusterQueue\' they would be ignored. Fix: set them on the shared ClusterQueue instead.');
    }
    const allowed = props.allowedPriorityClasses ?? [];
    const defaultName = props.defaultPriorityClass?.workloadPriorityClassName;
    if (defaultName !== undefined && allowed.length && !allowed.some((a) => a.workloadPriorityClassName === defaultName)) {
      throw new Error(`${where}: defaultPriorityClass "${defaultName}" is not in allowedPriorityClasses `
        + `(${allowed.map((a) => a.workloadPriorityClassName).join(', ')}). Fix: add it to the allowed list.`);
    }
    this.namespace = props.namespace;
    this.defaultPriorityClass = props.defaultPriorityClass;
    this.allowedPriorityClasses = [...allowed];
    this.localQueueName = props.queueName ?? 'default';
    if (!DNS1123_SUBDOMAIN.test(this.localQueueName)) throw new Error(`${where}: queueName "${this.localQueueName}" is not a valid name.`);

    for (const c of props.allowedPodPriorityClasses ?? []) {
      if (!DNS1123_SUBDOMAIN.test(c)) throw new Error(`${where}: allowedPodPriorityClasses entry "${c}" is not a valid PriorityClass name. Fix: use `
        + 'the PriorityClass\'s metadata.name.');
    }
    const rules = {
      allowedPriorityClasses: allowed.length ? allowed.map((a) => a.workloadPriorityClassName) : undefined,
      defaultPriorityClass: props.defaultPriorityClass?.workloadPriorityClassName,
      allowedPodPriorityClasses: props.allowedPodPriorityClasses?.length ? [...props.allowedPodPriorityClasses] : undefined,
    };
    const labels = { ...(props.namespaceLabels ?? {}), [TENANT_LABEL]: props.namespace };
    const ns = new kplus.Namespace(this, 'Namespace', { metadata: { name: props.namespace, labels, annotations: tenantAnnotations(rules) } });
    this.namespaceObject = ApiObject.of(ns);
    if (this.namespaceObject.metadata.namespace !== undefined) this.namespaceObject.addJsonPatch(JsonPatch.remove('/metadata/namespace'));
    // An existing namespace's other labels are unknown to the app: only a created one is in the inventory.
    if (props.createNamespace ?? true) {
      AppInventory.of(this).register({ node: this.node, _inventoryEntry: (): InventoryEntry => ({ kind: 'Namespace', entry: { name: props.namespace,
        labels: { ...labels, 'kubernetes.io/metadata.name': props.namespace }, annotations: tenantAnnotations(rules) } }) });
    }

    if (props.resourceGroups) {
      this.ownClusterQueue = new ClusterQueue(this, 'ClusterQueue', {
        name: props.clusterQueueName ?? props.namespace,
        resourceGroups: props.resourceGroups,
        cohort: props.cohort,
        namespaceSelector: NamespaceSelector.names([props.namespace]),
        queueingStrategy: props.queueingStrategy,
        preemption: props.preemption ?? {
          withinClusterQueue: WithinClusterQueuePolicy.LOWER_PRIORITY,
          reclaimWithinCohort: props.cohort ? ReclaimWithinCohortPolicy.LOWER_PRIORITY : undefined,
        },
      });
      this.clusterQueue = this.ownClusterQueue;
    } else {
      this.clusterQueue = props.clusterQueue!;
    }
    this.localQueue = new LocalQueue(this, 'LocalQueue', {
      name: this.localQueueName, namespace: props.namespace, clusterQueue: this.clusterQueue, annotations: tenantAnnotations(rules),
      // Tenancy is keyed on this label (and the Namespace's), never on the optional rule annotations.
      labels: { [TENANT_LABEL]: props.namespace },
    });
    this.localQueue._tenant = rules;
    this.localQueue.node.addDependency(this.namespaceObject);
  }
}
