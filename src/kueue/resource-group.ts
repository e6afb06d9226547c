import { Construct } from 'constructs';
import { ResourceGroupEntry } from '../policy/context';
import type { ResourceGroupJson } from '../policy/inventory-objects';
import { Quantity, ResourceName } from '../platform/quantity';
import { IResourceFlavor } from './resource-flavor';

/** Quota of one resource in one flavor. */
export interface ResourceQuota {
  /** The resource this quota limits, e.g. `ResourceName.CPU` or `ResourceName.NVIDIA_GPU`. */
  readonly resource: ResourceName;
  /** Quota this ClusterQueue owns. */
  readonly nominalQuota: Quantity;
  /**
   * Most this queue may borrow from its cohort above nominalQuota. Needs a cohort.
   * @default - unlimited borrowing within the cohort
   */
  readonly borrowingLimit?: Quantity;
  /**
   * Most of nominalQuota this queue lends to its cohort. Needs a cohort; at most nominalQuota.
   * @default - all of it
   */
  readonly lendingLimit?: Quantity;
}

/** The quotas of one flavor in a resource group. */
export interface FlavorQuotas {
  /** The ResourceFlavor these quotas are for. */
  readonly flavor: IResourceFlavor;
  /** One quota per covered resource of the group, in the group's resource order. */
  readonly quotas: ResourceQuota[];
}

/**
 * A set of resources whose quota is assigned together, flavor by flavor (Kueue tries flavors in order).
 * Every flavor must list the same resources.
 */
export interface ResourceGroup {
  /** The flavors of the group, in the order Kueue tries them; each gives a quota for every covered resource. */
  readonly flavors: FlavorQuotas[];
}

export function renderResourceGroups(groups: readonly ResourceGroup[]): ResourceGroupJson[] {
  return groups.map((g) => ({
    coveredResources: g.flavors[0].quotas.map((q) => q.resource.name),
    flavors: g.flavors.map((f) => ({
      name: f.flavor.resourceFlavorName,
      resources: f.quotas.map((q) => ({
        name: q.resource.name,
        nominalQuota: q.nominalQuota.value,
        borrowingLimit: q.borrowingLimit?.value,
        lendingLimit: q.lendingLimit?.value,
      })),
    })),
  }));
}

export function resourceGroupEntries(groups: readonly ResourceGroup[]): ResourceGroupEntry[] {
  return groups.map((g) => ({
    coveredResources: g.flavors[0]?.quotas.map((q) => q.resource.name) ?? [],
    flavors: g.flavors.map((f) => ({
      flavor: f.flavor.resourceFlavorName,
      resources: f.quotas.map((q) => ({
        resource: q.resource.name,
        nominal: q.nominalQuota._milli(),
        borrowingLimit: q.borrowingLimit?._milli(),
        lendingLimit: q.lendingLimit?._milli(),
      })),
    })),
  }));
}

/** Checks Kueue's resource-group rules (CRD CEL and webhook) eagerly. */
export function validateResourceGroups(scope: Construct, kind: string, groups: readonly ResourceGroup[], hasCohort: boolean): void {
  const where = `${kind} '${scope.node.path}'`;
  if (groups.length > 16) throw new Error(`${where}: spec.resourceGroups has ${groups.length} groups; Kueue allows 16. Fix: merge groups.`);
  const seenResource = new Map<string, number>();
  const seenFlavor = new Map<string, number>();
  groups.forEach((g, gi) => {
    const p = `spec.resourceGroups[${gi}]`;
    if (!g.flavors.length) throw new Error(`${where}: ${p}.flavors is empty. Fix: give the group at least one flavor with quotas.`);
    if (g.flavors.length > 16) throw new Error(`${where}: ${p}.flavors has ${g.flavors.length} flavors; Kueue allows 16.`);
    const covered = g.flavors[0].quotas.map((q) => q.resource.name);
    if (!covered.length) throw new Error(`${where}: ${p}.flavors[0].quotas is empty. Fix: list the quota of each resource.`);
    if (covered.length > 16) throw new Error(`${where}: ${p} covers ${covered.length} resources; Kueue allows 16.`);
    if (new Set(covered).size !== covered.length) throw new Error(`${where}: ${p}.flavors[0] lists a resource twice. Fix: one quota per resource.`);
    for (const r of covered) {
      if (seenResource.has(r)) throw new Error(`${where}: resource "${r}" is in resource groups ${seenResource.get(r)} and ${gi}; Kueue allows a `
        + `resource in one group only. Fix: put all flavors of "${r}" in one group.`);
      seenResource.set(r, gi);
    }
    g.flavors.forEach((f, fi) => {
      const fp = `${p}.flavors[${fi}]`;
      if (seenFlavor.has(f.flavor.resourceFlavorName)) throw new Error(`${where}: flavor "${f.flavor.resourceFlavorName}" appears twice (${fp}). `
        + 'Fix: a flavor can be used once per ClusterQueue.');
      seenFlavor.set(f.flavor.resourceFlavorName, gi);
      const names = f.quotas.map((q) => q.resource.name);
      if (names.length !== covered.length || names.some((n, i) => n !== covered[i])) {
        throw new Error(`${where}: ${fp} (flavor "${f.flavor.resourceFlavorName}") lists resources [${names.join(', ')}] but the group covers `
          + `[${covered.join(', ')}]; every flavor must list the same resources in the same order. Fix: add the missing quotas (0 if none).`);
      }
      f.quotas.forEach((q, qi) => {
        const qp = `${fp}.resources[${qi}]`;
        if ((q.borrowingLimit || q.lendingLimit) && !hasCohort) {
          throw new Error(`${where}: ${qp}: borrowingLimit/lendingLimit must be nil when cohort is empty (Kueue webhook). Fix: set a cohort, `
            + 'or remove the limits.');
        }
        if (q.lendingLimit && q.lendingLimit._milli() > q.nominalQuota._milli()) {
          throw new Error(`${where}: ${qp}.lendingLimit ${q.lendingLimit.value} must be less than or equal to the `
            + `nominalQuota ${q.nominalQuota.value} (Kueue webhook). Fix: lower lendingLimit.`);
        }
      });
    });
  });
}
