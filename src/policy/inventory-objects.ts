/**
 * Turns Kueue objects (as the controller's informers cache them, or as `check`/`plan` read them from YAML) into the policy's Inventory:
 * the same shape the constructs build from the app, so the same cross-object rules run at admission.
 * Pure: objects in, inventory out.
 */
import { ClusterQueueEntry, CohortEntry, Inventory, LocalQueueEntry, MultiKueueCheckEntry, NamespaceEntry, PriorityClassEntry,
  ResourceGroupEntry } from './context';
import { parseQuantity } from './quantity';
import { tenantAnnotations, tenantRulesFromAnnotations, TENANT_LABEL } from './tenant';

/** Only the tenant rule annotations of a Namespace are kept (the view is held in memory for every namespace). */
function tenantRuleAnnotations(a: Record<string, string> | undefined): Record<string, string> | undefined {
  const rules = tenantRulesFromAnnotations(a);
  return rules ? tenantAnnotations(rules) : undefined;
}

/** The raw objects behind each list of the Inventory, as the API server returns them. */
export type ClusterObjects = { readonly [K in Exclude<keyof Inventory, 'multiKueueChecks' | 'workerClusters'>]: readonly any[] };

/** Lenient unless `strict`: an unparsable quota reads as absent, so the admission rules still run on the rest. */
function quantity(v: unknown, strict: boolean): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  if (strict) return parseQuantity(v as string | number);
  try {
    return parseQuantity(v as string | number);
  } catch {
    return undefined;
  }
}

function groups(raw: any[] | undefined, strict: boolean): ResourceGroupEntry[] {
  return (raw ?? []).map((g) => ({
    coveredResources: [...(g.coveredResources ?? [])],
    flavors: (g.flavors ?? []).map((f: any) => ({
      flavor: f.name,
      resources: (f.resources ?? []).map((r: any) => ({
        resource: r.name, nominal: quantity(r.nominalQuota, strict) ?? 0n,
        borrowingLimit: quantity(r.borrowingLimit, strict), lendingLimit: quantity(r.lendingLimit, strict),
      })),
    })),
  }));
}

/** v1beta1 `admissionChecks` (names) and `admissionChecksStrategy.admissionChecks[].name`, in both API versions. */
function admissionCheckNames(spec: any): string[] | undefined {
  const names = [
    ...(Array.isArray(spec?.admissionChecks) ? spec.admissionChecks : []),
    ...(Array.isArray(spec?.admissionChecksStrategy?.admissionChecks) ? spec.admissionChecksStrategy.admissionChecks.map((a: any) => a?.name) : []),
  ].filter((n): n is string => typeof n === 'string');
  return names.length ? names : undefined;
}

/**
 * The MultiKueue checks of a manager from its AdmissionCheck and MultiKueueConfig objects: checks whose
 * controllerName is kueue.x-k8s.io/multikueue, with the clusters of the config their parameters name.
 */
export function multiKueueChecksFromObjects(admissionChecks: readonly any[], multiKueueConfigs: readonly any[]): MultiKueueCheckEntry[] {
  const configs = new Map(multiKueueConfigs.map((c) => [c?.metadata?.name, c]));
  return admissionChecks
    .filter((a) => a?.spec?.controllerName === 'kueue.x-k8s.io/multikueue' && typeof a?.metadata?.name === 'string')
    .map((a) => {
      const p = a.spec.parameters;
      const cfg = p?.kind === 'MultiKueueConfig' ? configs.get(p.name) : undefined;
      const clusters = Array.isArray(cfg?.spec?.clusters) ? cfg.spec.clusters.filter((c: unknown): c is string => typeof c === 'string') : [];
      return { name: a.metadata.name, clusters };
    });
}

/**
 * The inventory of a cluster. With `multiKueue` (the manager's AdmissionChecks and MultiKueueConfigs), it
 * also carries the MultiKueue checks; the workers' queues are unknown from one cluster, so the dispatch
 * rule then checks versions, managedBy and elasticity, not the workers.
 */
export interface MultiKueueObjects {
  readonly admissionChecks: readonly any[];
  readonly multiKueueConfigs: readonly any[];
}

/**
 * `strictQuantities`: a quota that does not parse throws (the plan simulator, whose quotas must be
 * exact) instead of reading as absent.
 */
export interface InventoryOptions {
  readonly strictQuantities?: boolean;
}

export function inventoryFromObjects(o: ClusterObjects, multiKueue?: MultiKueueObjects, options: InventoryOptions = {}): Inventory {
  const strict = options.strictQuantities ?? false;
  const localQueues: LocalQueueEntry[] = o.localQueues.map((q) => ({
    namespace: q.metadata?.namespace, name: q.metadata?.name, clusterQueue: q.spec?.clusterQueue,
    tenant: tenantRulesFromAnnotations(q.metadata?.annotations, q.metadata?.labels),
    tenantLabelled: q.metadata?.labels?.[TENANT_LABEL] !== undefined,
  }));
  const clusterQueues: ClusterQueueEntry[] = o.clusterQueues.map((c) => ({
    name: c.metadata?.name, cohort: c.spec?.cohortName ?? c.spec?.cohort,
    namespaceSelector: c.spec?.namespaceSelector ?? null, resourceGroups: groups(c.spec?.resourceGroups, strict), stopPolicy: c.spec?.stopPolicy,
    admissionChecks: admissionCheckNames(c.spec),
  }));
  const cohorts: CohortEntry[] = o.cohorts.map((c) => ({
    name: c.metadata?.name, parent: c.spec?.parentName ?? c.spec?.parent, resourceGroups: groups(c.spec?.resourceGroups, strict),
  }));
  const priorityClasses: PriorityClassEntry[] = o.priorityClasses.map((p) => ({ name: p.metadata?.name, value: p.value }));
  const namespaces: NamespaceEntry[] = o.namespaces.map((n) => ({
    name: n.metadata?.name, labels: { ...(n.metadata?.labels ?? {}), 'kubernetes.io/metadata.name': n.metadata?.name },
    annotations: tenantRuleAnnotations(n.metadata?.annotations),
  }));
  if (multiKueue) {
    const multiKueueChecks = multiKueueChecksFromObjects(multiKueue.admissionChecks, multiKueue.multiKueueConfigs);
    return { localQueues, clusterQueues, cohorts, priorityClasses, namespaces, multiKueueChecks };
  }
  return { localQueues, clusterQueues, cohorts, priorityClasses, namespaces };
}
