/**
 * Turns Kueue objects (as the controller's informers cache them, or as `check`/`plan` read them from YAML) into the policy's Inventory:
 * the same shape the constructs build from the app, so the same cross-object rules run at admission.
 * Pure: objects in, inventory out.
 */
import { ClusterQueueEntry, CohortEntry, Inventory, LabelSelector, LocalQueueEntry, MultiKueueCheckEntry, NamespaceEntry, PriorityClassEntry,
  ResourceGroupEntry } from './context';
import { listOf } from './json';
import type { JsonFields, ObjectMetaJson, TolerationJson } from './kinds';
import { parseQuantity } from './quantity';
import { tenantAnnotations, tenantRulesFromAnnotations, TENANT_LABEL } from './tenant';

/** Only the tenant rule annotations of a Namespace are kept (the view is held in memory for every namespace). */
function tenantRuleAnnotations(a: Record<string, string> | undefined): Record<string, string> | undefined {
  const rules = tenantRulesFromAnnotations(a);
  return rules ? tenantAnnotations(rules) : undefined;
}

/**
 * The JSON of the Kueue objects (and Namespaces) the inventory is read from, as the Kueue CRDs declare the
 * fields read here (v1beta1 and v1beta2 alike), with what the API server always sets: every stored object
 * has a name, a namespaced one its namespace. Other fields read as unknown.
 */
export interface StoredMetaJson extends ObjectMetaJson {
  readonly name: string;
}

export interface LocalQueueJson extends JsonFields {
  readonly metadata: StoredMetaJson & { readonly namespace: string };
  readonly spec: { readonly clusterQueue: string; readonly stopPolicy?: string } & JsonFields;
}

/** A ClusterQueue's or Cohort's resourceGroups entry; quotas are int-or-string quantities. */
export interface ResourceGroupJson extends JsonFields {
  readonly coveredResources?: readonly string[];
  readonly flavors?: ReadonlyArray<{
    readonly name: string;
    readonly resources?: ReadonlyArray<{
      readonly name: string;
      readonly nominalQuota?: string | number;
      readonly borrowingLimit?: string | number;
      readonly lendingLimit?: string | number;
    }>;
  }>;
}

export interface ClusterQueueSpecJson extends JsonFields {
  /** v1beta2; v1beta1 names it `cohort`. */
  readonly cohortName?: string;
  readonly cohort?: string;
  readonly namespaceSelector?: LabelSelector | null;
  readonly resourceGroups?: readonly ResourceGroupJson[];
  readonly stopPolicy?: string;
  /** A quantity (Kueue defaults it to 1). */
  readonly fairSharing?: { readonly weight?: string | number };
  /** v1beta1: AdmissionCheck names. */
  readonly admissionChecks?: readonly string[];
  readonly admissionChecksStrategy?: { readonly admissionChecks?: ReadonlyArray<{ readonly name?: string }> };
  /** What the plan simulator reads besides the inventory. */
  readonly queueingStrategy?: string;
  readonly flavorFungibility?: { readonly whenCanBorrow?: string; readonly whenCanPreempt?: string; readonly preference?: string };
  readonly preemption?: {
    readonly withinClusterQueue?: string;
    readonly reclaimWithinCohort?: string;
    readonly borrowWithinCohort?: { readonly policy?: string; readonly maxPriorityThreshold?: number };
  };
}

export interface ClusterQueueJson extends JsonFields {
  readonly metadata: StoredMetaJson;
  readonly spec?: ClusterQueueSpecJson;
}

export interface CohortJson extends JsonFields {
  readonly metadata: StoredMetaJson;
  /** v1beta2 `parentName`; v1beta1 `parent`. */
  readonly spec?: {
    readonly parentName?: string; readonly parent?: string; readonly resourceGroups?: readonly ResourceGroupJson[];
    readonly fairSharing?: { readonly weight?: string | number };
  } & JsonFields;
}

/** A WorkloadPriorityClass: its value is a top-level field. */
export interface PriorityClassJson extends JsonFields {
  readonly metadata: StoredMetaJson;
  readonly value: number;
}

export interface NamespaceJson extends JsonFields {
  readonly metadata: StoredMetaJson;
}

/** A ResourceFlavor, as the plan simulator reads it (the inventory does not). */
export interface ResourceFlavorJson extends JsonFields {
  readonly metadata: StoredMetaJson;
  readonly spec?: {
    readonly nodeLabels?: Record<string, string>;
    readonly nodeTaints?: ReadonlyArray<{ readonly key?: string; readonly value?: string; readonly effect?: string } & JsonFields>;
    readonly tolerations?: readonly TolerationJson[];
  } & JsonFields;
}

/**
 * The raw objects behind each list of the Inventory, as the API server returns them; inventoryFromObjects reads
 * them as the types above declare (LocalQueueJson, ClusterQueueJson, CohortJson, PriorityClassJson, NamespaceJson).
 */
export type ClusterObjects = { readonly [K in Exclude<keyof Inventory, 'multiKueueChecks' | 'workerClusters'>]: readonly unknown[] };

/** An AdmissionCheck, as far as the MultiKueue checks read it (a field may be missing: only MultiKueue's are kept). */
export interface AdmissionCheckJson extends JsonFields {
  readonly metadata?: ObjectMetaJson;
  readonly spec?: { readonly controllerName?: string; readonly parameters?: { readonly kind?: string; readonly name?: string } } & JsonFields;
}

export interface MultiKueueConfigJson extends JsonFields {
  readonly metadata?: ObjectMetaJson;
  readonly spec?: { readonly clusters?: readonly unknown[] } & JsonFields;
}

/** An AdmissionCheck of the MultiKueue controller: its spec and name are there. */
type MultiKueueCheckJson = AdmissionCheckJson & {
  readonly metadata: { readonly name: string };
  readonly spec: NonNullable<AdmissionCheckJson['spec']>;
};

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

function groups(raw: readonly ResourceGroupJson[] | undefined, strict: boolean): ResourceGroupEntry[] {
  return (raw ?? []).map((g) => ({
    coveredResources: [...(g.coveredResources ?? [])],
    flavors: (g.flavors ?? []).map((f) => ({
      flavor: f.name,
      resources: (f.resources ?? []).map((r) => ({
        resource: r.name, nominal: quantity(r.nominalQuota, strict) ?? 0n,
        borrowingLimit: quantity(r.borrowingLimit, strict), lendingLimit: quantity(r.lendingLimit, strict),
      })),
    })),
  }));
}

/** v1beta1 `admissionChecks` (names) and `admissionChecksStrategy.admissionChecks[].name`, in both API versions. */
function admissionCheckNames(spec: ClusterQueueSpecJson | undefined): string[] | undefined {
  const names = [
    ...listOf(spec?.admissionChecks),
    ...listOf(spec?.admissionChecksStrategy?.admissionChecks).map((a) => a?.name),
  ].filter((n): n is string => typeof n === 'string');
  return names.length ? names : undefined;
}

/**
 * The MultiKueue checks of a manager from its AdmissionCheck and MultiKueueConfig objects: checks whose
 * controllerName is kueue.x-k8s.io/multikueue, with the clusters of the config their parameters name.
 */
export function multiKueueChecksFromObjects(admissionChecks: readonly unknown[], multiKueueConfigs: readonly unknown[]): MultiKueueCheckEntry[] {
  // Read as their CRDs declare them; every field is checked before it is used.
  const configs = new Map((multiKueueConfigs as readonly MultiKueueConfigJson[]).map((c) => [c?.metadata?.name, c]));
  return (admissionChecks as readonly AdmissionCheckJson[])
    .filter((a): a is MultiKueueCheckJson => a?.spec?.controllerName === 'kueue.x-k8s.io/multikueue' && typeof a?.metadata?.name === 'string')
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
  readonly admissionChecks: readonly unknown[];
  readonly multiKueueConfigs: readonly unknown[];
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
  // Each list's objects as the API server returns them (the types above): a name always, a LocalQueue's namespace.
  const localQueues: LocalQueueEntry[] = (o.localQueues as readonly LocalQueueJson[]).map((q) => ({
    namespace: q.metadata?.namespace, name: q.metadata?.name, clusterQueue: q.spec?.clusterQueue,
    tenant: tenantRulesFromAnnotations(q.metadata?.annotations, q.metadata?.labels),
    tenantLabelled: q.metadata?.labels?.[TENANT_LABEL] !== undefined,
  }));
  const clusterQueues: ClusterQueueEntry[] = (o.clusterQueues as readonly ClusterQueueJson[]).map((c) => ({
    name: c.metadata?.name, cohort: c.spec?.cohortName ?? c.spec?.cohort,
    namespaceSelector: c.spec?.namespaceSelector ?? null, resourceGroups: groups(c.spec?.resourceGroups, strict), stopPolicy: c.spec?.stopPolicy,
    admissionChecks: admissionCheckNames(c.spec),
  }));
  const cohorts: CohortEntry[] = (o.cohorts as readonly CohortJson[]).map((c) => ({
    name: c.metadata?.name, parent: c.spec?.parentName ?? c.spec?.parent, resourceGroups: groups(c.spec?.resourceGroups, strict),
  }));
  const priorityClasses: PriorityClassEntry[] = (o.priorityClasses as readonly PriorityClassJson[])
    .map((p) => ({ name: p.metadata?.name, value: p.value }));
  const namespaces: NamespaceEntry[] = (o.namespaces as readonly NamespaceJson[]).map((n) => ({
    name: n.metadata?.name, labels: { ...(n.metadata?.labels ?? {}), 'kubernetes.io/metadata.name': n.metadata?.name },
    annotations: tenantRuleAnnotations(n.metadata?.annotations),
  }));
  if (multiKueue) {
    const multiKueueChecks = multiKueueChecksFromObjects(multiKueue.admissionChecks, multiKueue.multiKueueConfigs);
    return { localQueues, clusterQueues, cohorts, priorityClasses, namespaces, multiKueueChecks };
  }
  return { localQueues, clusterQueues, cohorts, priorityClasses, namespaces };
}
