/**
 * What a TenantQueue writes into its namespace besides the queue, and how KueueInstall finds those
 * namespaces (pure): the label that has Kueue manage every workload of the namespace, the ResourceQuota
 * that caps what Kueue does not manage, and the NetworkPolicies that keep other tenants off its Ray pods.
 */
import type { ClusterQueueEntry, Inventory, LabelSelector } from './context';
import { formatQuantity, sortedResourceNames } from './quantity';
import { clusterQueueCapacity } from './rules/cross-object';

/**
 * Marks a namespace whose every workload Kueue manages. KueueInstall's Configuration selects exactly
 * these namespaces (`managedJobsNamespaceSelector`), and TenantQueue puts the label on its Namespace.
 */
export const KUEUE_MANAGED_NAMESPACE_LABEL = 'cdk8s-kueue-ray.io/kueue-managed';

/** The `managedJobsNamespaceSelector` that matches the namespaces carrying KUEUE_MANAGED_NAMESPACE_LABEL. */
export function kueueManagedNamespaceSelector(): LabelSelector {
  return { matchLabels: { [KUEUE_MANAGED_NAMESPACE_LABEL]: 'true' } };
}

/**
 * The integrations that put a managed namespace's other workloads under Kueue: bare Pods, batch Jobs,
 * Deployments and StatefulSets (the last two ride on the pod integration). Every pinned Kueue has all
 * four (pkg/controller/jobs/{pod,job,deployment,statefulset} from v0.13.4 on); v0.17 and later ship
 * them in the release's Configuration already, v0.13 and v0.14 commented out.
 */
export const MANAGED_NAMESPACE_FRAMEWORKS: readonly string[] = ['batch/job', 'pod', 'deployment', 'statefulset'];

/** The ResourceQuota key that caps a Kueue resource's requests in a namespace. */
export function resourceQuotaKey(resource: string): string {
  // `pods` is an object count in both; everything else Kueue counts is a request.
  return resource === 'pods' ? 'pods' : `requests.${resource}`;
}

/**
 * The most a tenant can ever be admitted, per resource (summed over flavors), in milli-units: for each
 * flavor and resource of its ClusterQueue, the nominal quota plus the borrowing limit; with no borrowing
 * limit, the nominal quota plus what the cohort the app defines can lend it (its lenders' nominal or
 * lending limit, and the cohorts' own quota: the cohort's total is the bound), and nominal alone outside a
 * cohort. A borrowing limit is taken as it is, not capped by the app's cohort, because other members of
 * the cohort may be defined elsewhere.
 */
export function tenantAdmissionCeiling(cq: ClusterQueueEntry, inv: Inventory): Map<string, bigint> {
  const capacity = clusterQueueCapacity(cq, inv);
  const out = new Map<string, bigint>();
  for (const g of cq.resourceGroups) {
    for (const f of g.flavors) {
      for (const q of f.resources) {
        const ceiling = q.borrowingLimit !== undefined && cq.cohort ? q.nominal + q.borrowingLimit
          : capacity.get(f.flavor)?.get(q.resource)?.ceiling ?? q.nominal;
        out.set(q.resource, (out.get(q.resource) ?? 0n) + ceiling);
      }
    }
  }
  return out;
}

/** The `spec.hard` of the tenant namespace's ResourceQuota: tenantAdmissionCeiling as ResourceQuota keys and quantities. */
export function tenantResourceQuotaHard(cq: ClusterQueueEntry, inv: Inventory): Record<string, string> {
  const hard: Record<string, string> = {};
  const ceiling = tenantAdmissionCeiling(cq, inv);
  for (const r of sortedResourceNames(ceiling)) {
    hard[resourceQuotaKey(r)] = formatQuantity(ceiling.get(r)!, r);
  }
  return hard;
}

/** Ray's ports (KubeRay ray-operator/controllers/ray/utils/constant.go, the same in every pinned KubeRay). */
export const RAY_PORTS = {
  gcs: 6379,
  dashboard: 8265,
  client: 10001,
  /** Ray Serve's HTTP proxy, which a RayService's serve Service targets. */
  serve: 8000,
  /** Each Ray node's Prometheus metrics (KubeRay's DefaultMetricsPort, port name "metrics"). */
  metrics: 8080,
} as const;

/** Labels KubeRay puts on every Ray pod it creates (head and workers): the node type, and the RayCluster's name. */
export const RAY_NODE_TYPE_LABEL = 'ray.io/node-type';
export const RAY_CLUSTER_LABEL = 'ray.io/cluster';
/** KubeRay's label on the pods a RayService's serve Service selects ("true"). */
export const RAY_SERVE_LABEL = 'ray.io/serve';
/** The label Kubernetes sets on every Namespace to its name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export interface TenantNetworkInput {
  readonly namespace: string;
  /** Namespace of the KubeRay operator. */
  readonly operatorNamespace: string;
  /** Labels of the KubeRay operator's pods. */
  readonly operatorPodLabels: Record<string, string>;
  /** Namespaces whose pods (Prometheus) may scrape Ray's metrics port; empty: none. */
  readonly metricsScraperNamespaces: readonly string[];
  /** Labels for the policies' own metadata. */
  readonly labels?: Record<string, string>;
}

/** An ingress rule of a tenant NetworkPolicy: from pods and namespaces, to ports. */
export interface NetworkPolicyIngressRule {
  readonly from?: ReadonlyArray<{ readonly podSelector?: LabelSelector; readonly namespaceSelector?: LabelSelector }>;
  readonly ports?: ReadonlyArray<{ readonly port: number; readonly protocol: string }>;
}

/** A tenant namespace's NetworkPolicy, as its manifest. */
export interface TenantNetworkPolicy {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels?: Record<string, string> };
  readonly spec: {
    readonly podSelector: LabelSelector;
    readonly policyTypes: readonly string[];
    readonly ingress: readonly NetworkPolicyIngressRule[];
  };
}

/** The names of the two policies. */
export const TENANT_RAY_POLICY = 'tenant-ray-pods';
export const TENANT_SERVE_POLICY = 'tenant-ray-serve';

/**
 * The NetworkPolicies of a tenant namespace. Ray pods accept traffic from pods of their own namespace
 * (any port), from the KubeRay operator on the dashboard port (job submission and status, Serve
 * deployment), and from the scraper namespaces on the metrics port; pods KubeRay marks as serving accept
 * the serve port from anywhere (what a RayService's serve Service exposes). Ingress only: Ray pods
 * still reach the API server, image registries and data. Other pods of the namespace are not selected.
 */
export function tenantNetworkPolicies(i: TenantNetworkInput): TenantNetworkPolicy[] {
  const meta = (name: string) => ({ name, namespace: i.namespace, ...(i.labels ? { labels: { ...i.labels } } : {}) });
  const tcp = (port: number) => ({ port, protocol: 'TCP' });
  const ingress: NetworkPolicyIngressRule[] = [
    { from: [{ podSelector: {} }] },
    {
      from: [{ namespaceSelector: { matchLabels: { [NAMESPACE_NAME_LABEL]: i.operatorNamespace } },
        podSelector: { matchLabels: { ...i.operatorPodLabels } } }],
      ports: [tcp(RAY_PORTS.dashboard)],
    },
  ];
  if (i.metricsScraperNamespaces.length) {
    ingress.push({
      from: [{ namespaceSelector: { matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [...i.metricsScraperNamespaces] }] } }],
      ports: [tcp(RAY_PORTS.metrics)],
    });
  }
  return [
    {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta(TENANT_RAY_POLICY),
      spec: { podSelector: { matchExpressions: [{ key: RAY_NODE_TYPE_LABEL, operator: 'Exists' }] }, policyTypes: ['Ingress'], ingress },
    },
    {
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta(TENANT_SERVE_POLICY),
      spec: {
        podSelector: { matchLabels: { [RAY_SERVE_LABEL]: 'true' } }, policyTypes: ['Ingress'],
        ingress: [{ ports: [tcp(RAY_PORTS.serve)] }],
      },
    },
  ];
}

/** The name of the tenant namespace's ResourceQuota. */
export const TENANT_RESOURCE_QUOTA = 'tenant-admission-cap';
