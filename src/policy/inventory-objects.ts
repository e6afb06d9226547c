/**
 * Turns Kueue objects (as the controller's informers cache them, or as `check`/`plan` read them from YAML) into the policy's Inventory:
 * the same shape the constructs build from the app, so the same cross-object rules run at admission.
 * Pure: objects in, inventory out.
 */
import { ClusterQueueEntry, CohortEntry, Inventory, LocalQueueEntry, NamespaceEntry, PriorityClassEntry, ResourceGroupEntry } from './context';
import { parseQuantity } from './quantity';
import { tenantRulesFromAnnotations } from './tenant';

/** The raw objects behind each list of the Inventory, as the API server returns them. */
export type ClusterObjects = { readonly [K in keyof Inventory]: readonly any[] };

function quantity(v: unknown): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return parseQuantity(v as string | number);
  } catch {
    return undefined;
  }
}

function groups(raw: any[] | undefined): ResourceGroupEntry[] {
  return (raw ?? []).map((g) => ({
    coveredResources: [...(g.coveredResources ?? [])],
    flavors: (g.flavors ?? []).map((f: any) => ({
      flavor: f.name,
      resources: (f.resources ?? []).map((r: any) => ({
        resource: r.name, nominal: quantity(r.nominalQuota) ?? 0n, borrowingLimit: quantity(r.borrowingLimit), lendingLimit: quantity(r.lendingLimit),
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

export function inventoryFromObjects(o: ClusterObjects): Inventory {
  const localQueues: LocalQueueEntry[] = o.localQueues.map((q) => ({
    namespace: q.metadata?.namespace, name: q.metadata?.name, clusterQueue: q.spec?.clusterQueue,
    tenant: tenantRulesFromAnnotations(q.metadata?.annotations),
  }));
  const clusterQueues: ClusterQueueEntry[] = o.clusterQueues.map((c) => ({
    name: c.metadata?.name, cohort: c.spec?.cohortName ?? c.spec?.cohort,
    namespaceSelector: c.spec?.namespaceSelector ?? null, resourceGroups: groups(c.spec?.resourceGroups), stopPolicy: c.spec?.stopPolicy,
    admissionChecks: admissionCheckNames(c.spec),
  }));
  const cohorts: CohortEntry[] = o.cohorts.map((c) => ({
    name: c.metadata?.name, parent: c.spec?.parentName ?? c.spec?.parent, resourceGroups: groups(c.spec?.resourceGroups),
  }));
  const priorityClasses: PriorityClassEntry[] = o.priorityClasses.map((p) => ({ name: p.metadata?.name, value: p.value }));
  const namespaces: NamespaceEntry[] = o.namespaces.map((n) => ({ name: n.metadata?.name, labels: { ...(n.metadata?.labels ?? {}), 'kubernetes.io/metadata.name': n.metadata?.name } }));
  return { localQueues, clusterQueues, cohorts, priorityClasses, namespaces };
}
