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
  /** Set when the queue belongs to a TenantQueue. */
  readonly tenant?: {
    readonly allowedPriorityClasses?: readonly string[];
    readonly defaultPriorityClass?: string;
  };
}

export interface PriorityClassEntry {
  readonly name: string;
  readonly value: number;
}

export interface NamespaceEntry {
  readonly name: string;
  readonly labels: Record<string, string>;
}

export interface Inventory {
  readonly localQueues: readonly LocalQueueEntry[];
  readonly clusterQueues: readonly ClusterQueueEntry[];
  readonly cohorts: readonly CohortEntry[];
  readonly priorityClasses: readonly PriorityClassEntry[];
  readonly namespaces: readonly NamespaceEntry[];
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
}
