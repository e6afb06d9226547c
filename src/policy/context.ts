/**
 * What a rule may look at besides the object: the versions, and (for cross-object rules) an
 * inventory of queues, quotas, priority classes and namespaces. Constructs fill the inventory from
 * the app; the controller fills it from the cluster.
 */
import { KubeRayCapabilities, KueueCapabilities } from './versions';

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface QuotaEntry {
  readonly resource: string;
  /** milli-units */
  readonly nominal: bigint;
  readonly borrowingLimit?: bigint;
  readonly lendingLimit?: bigint;
}

export interface FlavorQuotaEntry {
  readonly flavor: string;
  readonly resources: readonly QuotaEntry[];
}

export interface ResourceGroupEntry {
  readonly coveredResources: readonly string[];
  readonly flavors: readonly FlavorQuotaEntry[];
}

export interface ClusterQueueEntry {
  readonly name: string;
  readonly cohort?: string;
  /** undefined/null: no namespace; {}: every namespace. */
  readonly namespaceSelector?: LabelSelector | null;
  readonly resourceGroups: readonly ResourceGroupEntry[];
  readonly stopPolicy?: string;
  /** Names of the AdmissionChecks the ClusterQueue requires (either API form). */
  readonly admissionChecks?: readonly string[];
}

export interface CohortEntry {
  readonly name: string;
  readonly parent?: string;
  readonly resourceGroups: readonly ResourceGroupEntry[];
}

export interface LocalQueueEntry {
  readonly namespace: string;
  readonly name: string;
  readonly clusterQueue: string;
  /** Set when the queue belongs to a TenantQueue (its rules, possibly none). */
  readonly tenant?: {
    readonly allowedPriorityClasses?: readonly string[];
    readonly defaultPriorityClass?: string;
    readonly allowedPodPriorityClasses?: readonly string[];
  };
  /** The queue carries the tenant label (TenantQueue's own LocalQueue). */
  readonly tenantLabelled?: boolean;
}

export interface PriorityClassEntry {
  readonly name: string;
  readonly value: number;
}

export interface NamespaceEntry {
  readonly name: string;
  readonly labels: Record<string, string>;
  /** Only the tenant rule annotations are read. */
  readonly annotations?: Record<string, string>;
}

/** An AdmissionCheck of the MultiKueue controller, with the worker clusters its MultiKueueConfig lists. */
export interface MultiKueueCheckEntry {
  readonly name: string;
  /** MultiKueueCluster names, in the config's order. */
  readonly clusters: readonly string[];
}

/**
 * A worker cluster as the manager's policy sees it: its MultiKueueCluster name and, when known (the app
 * defines the worker), its queues. Without an inventory the worker is not checked.
 */
export interface WorkerClusterEntry {
  readonly name: string;
  readonly inventory?: Inventory;
}

export interface Inventory {
  readonly localQueues: readonly LocalQueueEntry[];
  readonly clusterQueues: readonly ClusterQueueEntry[];
  readonly cohorts: readonly CohortEntry[];
  readonly priorityClasses: readonly PriorityClassEntry[];
  readonly namespaces: readonly NamespaceEntry[];
  /**
   * MultiKueue (manager side only): the MultiKueue AdmissionChecks. Optional so single-cluster
   * inventories (and the controller's, which cannot see the workers) stay as they are.
   */
  readonly multiKueueChecks?: readonly MultiKueueCheckEntry[];
  /** MultiKueue (manager side only): the worker clusters, with their queues where known. */
  readonly workerClusters?: readonly WorkerClusterEntry[];
}

export interface PolicyContext {
  readonly kueue: KueueCapabilities;
  readonly kubeRay: KubeRayCapabilities;
  /**
   * State of Kueue's ElasticJobsViaWorkloadSlices gate.
   * @default 'unknown' (the version's default is assumed, with a warning where it is off)
   */
  readonly elasticGate?: 'on' | 'off' | 'unknown';
  /** Cross-object rules run only with an inventory. */
  readonly inventory?: Inventory;
  /**
   * References the user declared as defined outside the inventory (e.g. LocalQueue.fromLocalQueueName):
   * their absence is not an error.
   */
  readonly external?: { readonly localQueue?: boolean; readonly priorityClass?: boolean };
  /**
   * Who reads the findings. 'tenant' (the webhook's answers): a message names only what the requester
   * may see of its own namespace, never other namespaces' queues or priority classes.
   * @default 'platform' (synth and check, run by the platform team)
   */
  readonly audience?: 'platform' | 'tenant';
}
