/**
 * What the alert rules, the dashboard and the scrape configuration are generated from: the app's tenants
 * and ClusterQueues (read from its inventory), the components that serve metrics, and the thresholds.
 * Plain data and pure functions, so the rules can be tested without cdk8s.
 */
import type { Inventory } from '../policy/context';

/** A tenant: a TenantQueue's namespace and LocalQueue, and the ClusterQueue it submits to. */
export interface ObservedTenant {
  readonly namespace: string;
  readonly localQueue: string;
  readonly clusterQueue: string;
}

/** A ClusterQueue the app defines or its tenants submit to. */
export interface ObservedClusterQueue {
  readonly name: string;
  /** Its cohort: it may borrow. Unknown (undefined) for a ClusterQueue the app only names. */
  readonly cohort?: string;
  /** Namespaces of the tenants submitting to it, sorted. */
  readonly tenants: readonly string[];
}

export type ComponentName = 'kueue' | 'kuberay-operator' | 'controller';

/** A component whose metrics are scraped: its Service, whose name prometheus-operator makes the `job` label. */
export interface ScrapedComponent {
  readonly component: ComponentName;
  readonly namespace: string;
  readonly service: string;
}

/** Thresholds of the alert rules; durations in whole seconds. */
export interface AlertThresholds {
  readonly pendingSeconds: number;
  readonly quotaFullSeconds: number;
  readonly preemptionsPerHour: number;
  readonly rayJobFailures: number;
  readonly webhookErrorRatio: number;
  readonly webhookLatencySeconds: number;
  readonly downSeconds: number;
}

export interface ObservedApp {
  readonly tenants: readonly ObservedTenant[];
  readonly clusterQueues: readonly ObservedClusterQueue[];
  readonly components: readonly ScrapedComponent[];
}

/** The tenants (TenantQueues' LocalQueues) and ClusterQueues of an inventory, sorted by name. */
export function observedQueues(inv: Inventory): Pick<ObservedApp, 'tenants' | 'clusterQueues'> {
  const tenants = inv.localQueues.filter((q) => q.tenantLabelled)
    .map((q) => ({ namespace: q.namespace, localQueue: q.name, clusterQueue: q.clusterQueue }))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.localQueue.localeCompare(b.localQueue));
  const cohorts = new Map(inv.clusterQueues.map((c) => [c.name, c.cohort]));
  const names = [...new Set([...inv.clusterQueues.map((c) => c.name), ...tenants.map((t) => t.clusterQueue)])].sort();
  const clusterQueues = names.map((name) => ({
    name,
    ...(cohorts.get(name) ? { cohort: cohorts.get(name) } : {}),
    tenants: [...new Set(tenants.filter((t) => t.clusterQueue === name).map((t) => t.namespace))].sort(),
  }));
  return { tenants, clusterQueues };
}

/** A PromQL string literal (label values are names here, but quote them properly all the same). */
export function q(value: string): string {
  return JSON.stringify(value);
}
