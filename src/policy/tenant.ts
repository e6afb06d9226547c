/**
 * How TenantQueue records a tenant on cluster objects, so the controller can enforce its rules for
 * workloads that did not come from cdk8s, and how the controller reads it back (pure).
 *
 * A namespace is a tenant's when its Namespace or one of its LocalQueues carries TENANT_LABEL: tenancy
 * never hinges on the optional priority rules. The rules are read from the Namespace when it records
 * them: it is cluster-scoped, so a tenant with edit rights in its namespace cannot change it. Otherwise
 * they come from the namespace's tenant LocalQueues, merged so that a LocalQueue a tenant created for
 * itself can only narrow them.
 */
import type { Inventory, LocalQueueEntry, NamespaceEntry } from './context';

export const TENANT_LABEL = 'cdk8s-kueue-ray.io/tenant';
export const ALLOWED_PRIORITY_CLASSES_ANNOTATION = 'cdk8s-kueue-ray.io/allowed-priority-classes';
export const DEFAULT_PRIORITY_CLASS_ANNOTATION = 'cdk8s-kueue-ray.io/default-priority-class';
export const ALLOWED_POD_PRIORITY_CLASSES_ANNOTATION = 'cdk8s-kueue-ray.io/allowed-pod-priority-classes';

export interface TenantRulesRecord {
  /** WorkloadPriorityClasses the tenant may name; undefined: any. */
  readonly allowedPriorityClasses?: readonly string[];
  readonly defaultPriorityClass?: string;
  /** Kubernetes PriorityClasses the tenant's pod templates may name; undefined: none. */
  readonly allowedPodPriorityClasses?: readonly string[];
}

/** Annotations that record tenant rules on a LocalQueue and a created Namespace. */
export function tenantAnnotations(rules: TenantRulesRecord): Record<string, string> {
  const out: Record<string, string> = {};
  if (rules.allowedPriorityClasses?.length) out[ALLOWED_PRIORITY_CLASSES_ANNOTATION] = rules.allowedPriorityClasses.join(',');
  if (rules.defaultPriorityClass) out[DEFAULT_PRIORITY_CLASS_ANNOTATION] = rules.defaultPriorityClass;
  if (rules.allowedPodPriorityClasses?.length) out[ALLOWED_POD_PRIORITY_CLASSES_ANNOTATION] = rules.allowedPodPriorityClasses.join(',');
  return out;
}

const names = (s: string | undefined) => (s ? s.split(',').map((x) => x.trim()).filter(Boolean) : undefined);

/**
 * Reads the rules back from an object's labels and annotations: undefined when the object records no
 * tenant (neither the tenant label nor a rule annotation), else the rules, possibly none.
 */
export function tenantRulesFromAnnotations(
  annotations: Record<string, string> | undefined, labels?: Record<string, string>,
): TenantRulesRecord | undefined {
  const a = annotations ?? {};
  const allowed = a[ALLOWED_PRIORITY_CLASSES_ANNOTATION];
  const def = a[DEFAULT_PRIORITY_CLASS_ANNOTATION];
  const pod = a[ALLOWED_POD_PRIORITY_CLASSES_ANNOTATION];
  const tenant = labels?.[TENANT_LABEL] !== undefined;
  if (!tenant && allowed === undefined && def === undefined && pod === undefined) return undefined;
  return { allowedPriorityClasses: names(allowed), defaultPriorityClass: def || undefined, allowedPodPriorityClasses: names(pod) };
}

/** A tenant namespace as admission sees it. */
export interface TenantView {
  readonly namespace: string;
  /** The LocalQueue the mutating webhook labels new objects with, when the tenant has one. */
  readonly queue?: LocalQueueEntry;
  readonly rules: TenantRulesRecord;
}

const hasRules = (r: TenantRulesRecord | undefined) => !!r
  && (r.allowedPriorityClasses !== undefined || r.defaultPriorityClass !== undefined || r.allowedPodPriorityClasses !== undefined);

/** Intersection of the lists that are set (undefined when none is). */
function narrowest(lists: Array<readonly string[] | undefined>): readonly string[] | undefined {
  const set = lists.filter((l): l is readonly string[] => l !== undefined);
  if (!set.length) return undefined;
  return set.reduce((acc, l) => acc.filter((x) => l.includes(x)));
}

/** Merges several records so that none widens another: allowed lists intersect, a default stands only if all agree. */
export function narrowestRules(records: readonly TenantRulesRecord[]): TenantRulesRecord {
  const defaults = [...new Set(records.map((r) => r.defaultPriorityClass).filter((d): d is string => !!d))];
  const allowedPriorityClasses = narrowest(records.map((r) => r.allowedPriorityClasses));
  const agreed = defaults.length === 1 && (!allowedPriorityClasses || allowedPriorityClasses.includes(defaults[0]));
  const defaultPriorityClass = agreed ? defaults[0] : undefined;
  return { allowedPriorityClasses, defaultPriorityClass, allowedPodPriorityClasses: narrowest(records.map((r) => r.allowedPodPriorityClasses)) };
}

/** The tenant of a namespace, or undefined when the namespace is no tenant's. */
export function tenantOf(inv: Inventory, namespace: string | undefined): TenantView | undefined {
  if (!namespace) return undefined;
  // Inventories are immutable snapshots, and a review asks for its namespace's tenant several times.
  let byNamespace = TENANTS.get(inv);
  if (!byNamespace) TENANTS.set(inv, (byNamespace = new Map<string, TenantView | undefined>()));
  if (byNamespace.has(namespace)) return byNamespace.get(namespace);
  const tenant = readTenant(inv, namespace);
  byNamespace.set(namespace, tenant);
  return tenant;
}

const TENANTS = new WeakMap<Inventory, Map<string, TenantView | undefined>>();

function readTenant(inv: Inventory, namespace: string): TenantView | undefined {
  const ns: NamespaceEntry | undefined = inv.namespaces.find((n) => n.name === namespace);
  const queues = inv.localQueues.filter((q) => q.namespace === namespace && q.tenant);
  const nsTenant = ns?.labels?.[TENANT_LABEL] !== undefined;
  if (!nsTenant && !queues.length) return undefined;
  const nsRules = tenantRulesFromAnnotations(ns?.annotations, ns?.labels);
  const rules = hasRules(nsRules) ? nsRules! : narrowestRules(queues.map((q) => q.tenant!));
  // TenantQueue labels its LocalQueue; older apps recorded only the annotations. Name order breaks ties.
  const byName = (a: LocalQueueEntry, b: LocalQueueEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const ordered = [...queues].sort((a, b) => Number(!!b.tenantLabelled) - Number(!!a.tenantLabelled) || byName(a, b));
  return { namespace, queue: ordered[0], rules };
}
