/**
 * Flavor assignment (Kueue's pkg/scheduler/flavorassigner): for each PodSet and resource group, the
 * first flavor that fits, or the best one by Kueue's preference (granular preemption mode and
 * borrowing level) under the ClusterQueue's flavor fungibility; what the preemption oracle says when a
 * flavor fits only by preempting. Returns an Assignment: per PodSet, a flavor per resource, or the
 * reasons none fits. Pure.
 */
import type { ResourceFlavorJson } from '../inventory-objects';
import type { TolerationJson } from '../kinds';
import { taintsOf, untoleratedTaint } from '../scheduling';
import {
  available, FlavorResource, heightOfLowestSubtreeThatFits, NO_LIMIT, potentialAvailable, subtreeHeight, subtreeMayReclaim,
} from './quota-tree';
import {
  Assignment, FIT, FlavorAssignment, Granular, granular, granularBorrowing, granularMode, isPreferred, Mode, NO_CANDIDATES, NO_FIT,
  PodSetAssignment, podSetMode, PreemptionOracle, rank, setMode, shouldTryNext, WORST,
} from './assignment';
import type { ClusterQueue, PodSet, ResourceGroup, Snapshot, Workload } from './snapshot';
import { groupKeyOf, placeWorkload, podSetTasOf, requestsTas, TasPodSetFlavor, tasMismatch, TasWorkloadOptions } from './tas-flavor-assigner';
import { podSetTemplate } from './workload';

/** What topology-aware scheduling needs of the version (the flavor assigner's TAS options but simulateEmpty). */
export type TasSettings = Omit<TasWorkloadOptions, 'simulateEmpty'> & {
  /** The Workload API is v1beta2 (0.16+), whose topologyAssignment requires slices: an empty assignment is refused. */
  readonly refusesEmptyAssignment: boolean;
  /** Says once per workload what Kueue does that a user would not expect (an empty assignment). */
  readonly note?: (message: string) => void;
  /** Reports what Kueue decides by timing (a refused admission retried at once). */
  readonly ambiguity?: (message: string) => void;
};

/** A PodSet's request of one resource in the simulator's unit; `index` is its position in the group's covered resources. */
export interface ResourceRequest {
  readonly resource: string;
  readonly value: number;
  readonly index: number;
}

/** One resource of a PodSet in assignment order, with its group (none: not covered) and the group's requests. */
export interface AssignStep {
  readonly resource: string;
  readonly value: number;
  readonly group?: ResourceGroup;
  readonly groupRequests: readonly ResourceRequest[];
}

export interface PodSetRequests {
  readonly clusterQueue: ClusterQueue;
  readonly steps: readonly AssignStep[];
}

/** String.prototype.localeCompare's order (the same default collator), without building a collator per call. */
const byLocale = new Intl.Collator().compare;

export class FlavorAssigner {
  private readonly emptyNoted = new Set<string>();
  /** unitsOf per workload (null: no PodSet is grouped). */
  private readonly units = new WeakMap<Workload, PodSet[][] | null>();
  /** A group's summed PodSet, by its first member. */
  private readonly groupPodSets = new WeakMap<PodSet, PodSet>();

  constructor(
    private readonly snapshot: Snapshot, private readonly oracle: PreemptionOracle,
    /** Kueue's Configuration turns fair sharing on (a ClusterQueue that reclaims may then preempt while borrowing). */
    private readonly fairSharing = false,
    /** Set when topology-aware scheduling is on. */
    private readonly tas?: TasSettings,
  ) {}

  /**
   * The assignment of `w` in its ClusterQueue (a scale-up slice keeps its flavors). `nomination` (a recomputation within
   * the cycle, NominationMapping): per PodSet index, the flavor each resource was nominated to, the only one then tried.
   */
  assign(w: Workload, nomination?: Nomination): Assignment {
    const cq = w.clusterQueue!;
    if (w.sliceOf) return this.assignSlice(w, cq);
    this.nomination = nomination;
    try {
      return this.assignFlavors(w, cq);
    } finally {
      this.nomination = undefined;
    }
  }

  private nomination?: Nomination;

  private assignFlavors(w: Workload, cq: ClusterQueue): Assignment {
    const a: Assignment = { podSets: [], usage: new Map(), borrowing: 0, mode: 'Fit' };
    const units = this.unitsOf(w);
    let assigned = true;
    if (!units) {
      for (const ps of w.podSets) if (!(assigned = this.assignUnit(w, cq, a, ps))) break;
    } else {
      for (const unit of units) if (!(assigned = this.assignUnit(w, cq, a, unit.length === 1 ? unit[0] : unit))) break;
      // The PodSets assigned, in the workload's order (a group may join PodSets apart).
      a.podSets.sort((x, y) => podSetIndex(w, x.name) - podSetIndex(w, y.name));
    }
    withTried(w, a);
    if (!assigned) return a;
    let mode: Mode = 'Fit';
    for (const podSetAssignment of a.podSets) {
      const m = podSetMode(podSetAssignment);
      if (rank(m) < rank(mode)) mode = m;
    }
    a.mode = mode;
    if (this.tas && this.snapshot.tasEnabled && mode !== 'NoFit' && requestsTas(w, cq, this.tas.multiLayer)) this.placeOnNodes(w, cq, a);
    return a;
  }

  /**
   * The flavors of one PodSet, or of a PodSet group's PodSets together (assignFlavors' groupedRequests: their requests
   * summed, one flavor per resource for the group, each PodSet then given those of the resources it asks for, with its own
   * amounts). False when it fails: the assignment is then NoFit.
   */
  private assignUnit(w: Workload, cq: ClusterQueue, a: Assignment, unit: PodSet | readonly PodSet[]): boolean {
    // One PodSet (most of them: no array per evaluation), or a group's.
    const members = Array.isArray(unit) ? unit as readonly PodSet[] : undefined;
    const first = members ? members[0] : unit as PodSet;
    const lead = members ? this.groupPodSetOf(members) : first;
    const { steps } = this.requestsOf(lead, cq);
    const podSetAssignment: PodSetAssignment = { name: lead.name, count: lead.count, flavors: [], reasons: [] };
    let failed = false;
    for (let i = 0; i < steps.length; i++) {
      const { resource, value, group, groupRequests } = steps[i];
      if (!group) {
        if (value === 0) continue;
        podSetAssignment.reasons.push(`resource ${resource} unavailable in ClusterQueue`);
        podSetAssignment.category = 'max-capacity';
        podSetAssignment.flavors = [];
        failed = true;
        break;
      }
      if (podSetAssignment.flavors.some((f) => f.resource === resource)) continue;
      const index = w.lastAssignment || this.nomination ? w.podSets.indexOf(first) : -1;
      const last = w.lastAssignment?.tried[index]?.get(resource);
      const found = this.findFlavor(w, cq, group, first, members, groupRequests, a.usage, podSetAssignment, last === undefined ? 0 : last + 1,
        this.nomination?.[index]?.get(resource));
      if (found.length === 0 && groupRequests.length > 0) {
        podSetAssignment.flavors = [];
        failed = true;
        break;
      }
      if (!podSetAssignment.flavors.length) podSetAssignment.flavors = found;
      else podSetAssignment.flavors.push(...found);
    }
    if (!members) {
      this.addPodSet(a, podSetAssignment);
      if (failed) a.mode = 'NoFit';
      return !failed;
    }
    const assigned = members.map((m): PodSetAssignment => {
      const own = this.requestsOf(m, cq).steps;
      const flavors = podSetAssignment.flavors.flatMap((f) => {
        const step = own.find((x) => x.resource === f.resource);
        return step ? [{ ...f, value: step.value }] : [];
      });
      return { name: m.name, count: m.count, flavors, reasons: [...podSetAssignment.reasons], category: podSetAssignment.category };
    });
    for (const p of assigned) this.addPodSet(a, p);
    if (failed) a.mode = 'NoFit';
    return !failed;
  }

  private addPodSet(a: Assignment, p: PodSetAssignment): void {
    a.podSets.push(p);
    for (const f of p.flavors) {
      if (f.borrowing > a.borrowing) a.borrowing = f.borrowing;
      a.usage.set(f.flavorResource, (a.usage.get(f.flavorResource) ?? 0) + f.value);
    }
  }

  /**
   * The workload's PodSets as the flavor assigner takes them: each alone, or the two of a PodSet group (podset-group-name
   * with a required or preferred topology) together, in order of first appearance. Undefined when no PodSet is grouped.
   * Kept per workload: the templates never change.
   */
  private unitsOf(w: Workload): PodSet[][] | undefined {
    if (!this.tas || !this.snapshot.tasEnabled || w.podSets.length < 2) return undefined;
    const known = this.units.get(w);
    if (known !== undefined) return known ?? undefined;
    const byKey = new Map<string, PodSet[]>();
    w.podSets.forEach((ps, i) => {
      const key = groupKeyOf(w, i, this.tas!.multiLayer);
      byKey.set(key, [...(byKey.get(key) ?? []), ps]);
    });
    const units = byKey.size < w.podSets.length ? [...byKey.values()] : null;
    this.units.set(w, units);
    return units ?? undefined;
  }

  /** A group's PodSets as one request (its pods and totals summed), kept per group. */
  private groupPodSetOf(members: readonly PodSet[]): PodSet {
    let g = this.groupPodSets.get(members[0]);
    if (g) return g;
    const total = new Map<string, bigint>();
    for (const m of members) for (const [r, v] of m.total) total.set(r, (total.get(r) ?? 0n) + v);
    g = { name: members[0].name, count: members.reduce((n, m) => n + m.count, 0), total, perPod: new Map() };
    this.groupPodSets.set(members[0], g);
    return g;
  }

  /**
   * The TAS step of Assign (flavorassigner.go): in Fit mode the pods are placed on the nodes as they are, and a
   * PodSet that does not fit makes the workload Preempt; in Preempt mode they are placed as if every TAS workload were
   * gone, and a PodSet that does not fit even so makes it NoFit (TopologyPlacementFailed), else every TAS PodSet is
   * Preempt (the quota may fit while the nodes are fragmented).
   */
  private placeOnNodes(w: Workload, cq: ClusterQueue, a: Assignment): void {
    const tas = this.tas!;
    a.tasRequested = true;
    const podSets = this.tasPodSets(w, cq, a);
    if (!podSets.length) return;
    if (a.mode === 'Fit') {
      const r = placeWorkload(this.snapshot, w, cq, podSets, { ...tas, simulateEmpty: false });
      if (r.placements) {
        a.tas = r.placements;
        this.checkEmptyPlacements(w, a);
        return;
      }
      const p = a.podSets.find((x) => x.name === r.failure.podSet)!;
      p.reasons.push(r.failure.reason);
      p.category = 'quota';
      setMode(p, 'Preempt');
      a.mode = 'Preempt';
    }
    const empty = placeWorkload(this.snapshot, w, cq, podSets, { ...tas, simulateEmpty: true });
    if (empty.failure) {
      const p = a.podSets.find((x) => x.name === empty.failure.podSet)!;
      // Kueue adds no reason here; the plan does when the PodSet has none, so its message says why.
      if (!p.reasons.length) p.reasons.push(empty.failure.reason);
      p.category = 'topology';
      setMode(p, 'NoFit');
      a.mode = 'NoFit';
      return;
    }
    a.tas = empty.placements;
    for (const t of podSets) setMode(a.podSets[t.index], 'Preempt');
    a.mode = 'Preempt';
  }

  /**
   * A PodSet group whose counts overstate the room beside its leader (the `first` rule) gets a placement with no
   * domains ("unexpected remainingCount"). Kueue admits that as it is on the v1beta1 API; on v1beta2 the API server
   * refuses the Workload's admission every time it is tried, so the workload stays pending while the nodes are as they are.
   */
  private checkEmptyPlacements(w: Workload, a: Assignment): void {
    const empty = (a.tas ?? []).filter((t) => !t.placement.length && (a.podSets.find((p) => p.name === t.podSet)?.count ?? 0) > 0);
    if (!empty.length) return;
    const names = empty.map((t) => t.podSet).join(', ');
    if (!this.tas!.refusesEmptyAssignment) {
      if (this.emptyNoted.has(w.ref)) return;
      this.emptyNoted.add(w.ref);
      this.tas!.note?.(`${w.ref}: Kueue admits pod set ${names} with an empty topology assignment (its leader placement overstates the room; `
        + 'Kueue logs "unexpected remainingCount"), so TAS does not place those pods');
      return;
    }
    // Kueue puts it back at the head of its ClusterQueue at once (FailedAfterNomination), but the refusal comes back
    // asynchronously: whether the workloads behind it pass meanwhile depends on timing. The plan lets them pass.
    this.tas!.ambiguity?.(`${w.ref}: the API server refuses Kueue's admission of it (pod set ${names} placed on no node), and Kueue retries `
      + `it at once; whether workloads behind it in ClusterQueue ${w.clusterQueueName} are admitted meanwhile depends on timing (the plan lets `
      + 'them pass)');
    const p = a.podSets.find((x) => x.name === empty[0].podSet)!;
    // Worded without "topology": it is the plan's account, not a message of Kueue's.
    p.reasons.push(`Kueue places pod set ${names} on no node (its counts overstate the room beside the group's leader; Kueue logs `
      + '"unexpected remainingCount"), and the API server refuses the Workload\'s admission with that empty placement (its slices are '
      + 'required): Kueue tries again each cycle');
    p.category = 'topology';
    setMode(p, 'NoFit');
    a.mode = 'NoFit';
    a.tas = undefined;
  }

  /** workloadFits' TAS half: the workload's pods fit on the nodes as they are now. */
  fitsOnNodes(w: Workload, cq: ClusterQueue, a: Assignment): boolean {
    return placeWorkload(this.snapshot, w, cq, this.tasPodSets(w, cq, a), { ...this.tas!, simulateEmpty: false }).placements !== undefined;
  }

  /** The placement once the preemption targets are gone (their usage is off the nodes when called); kept when it fails. */
  placeAfterPreemption(w: Workload, cq: ClusterQueue, a: Assignment): void {
    const r = placeWorkload(this.snapshot, w, cq, this.tasPodSets(w, cq, a), { ...this.tas!, simulateEmpty: false });
    if (r.placements) a.tas = r.placements;
  }

  /** WorkloadsTopologyRequests: each TAS PodSet with pods, and its one TAS flavor (onlyTASFlavor) or why not. */
  private tasPodSets(w: Workload, cq: ClusterQueue, a: Assignment): TasPodSetFlavor[] {
    const out: TasPodSetFlavor[] = [];
    w.podSets.forEach((ps, index) => {
      const tas = podSetTasOf(w, ps, this.tas!.multiLayer);
      if (!tas.explicit && !cq.tasOnly) return;
      const p = a.podSets[index];
      if (!p || p.count === 0) return;
      const flavors = [...new Set(p.flavors.map((f) => f.flavor).filter((f) => this.snapshot.tasFlavors.has(f)))].sort();
      if (flavors.length === 1) out.push({ index, flavor: flavors[0] });
      else out.push({ index, error: flavors.length ? `more than one TAS flavor assigned: ${flavors.join(', ')}` : 'no TAS flavor assigned' });
    });
    return out;
  }

  /**
   * A PodSet's requests in a ClusterQueue (with `pods` when the queue covers it), in the order the
   * assignment reads them, and per resource group the covered ones: the same on every evaluation.
   */
  requestsOf(ps: PodSet, cq: ClusterQueue): PodSetRequests {
    let r = ps.requests as PodSetRequests | undefined;
    if (r?.clusterQueue === cq) return r;
    const requests = new Map<string, number>();
    for (const [resource, v] of ps.total) requests.set(resource, this.snapshot.toUnits(resource, v));
    if (cq.groupByResource.has('pods')) requests.set('pods', this.snapshot.toUnits('pods', BigInt(ps.count) * 1000n));
    // PodSets of the same requests share them (most workloads repeat a few shapes).
    let key = '';
    for (const [resource, v] of requests) key += `${resource}=${v}\n`;
    r = cq.requestsByShape.get(key) as PodSetRequests | undefined;
    if (r) {
      ps.requests = r;
      return r;
    }
    const byGroup = new Map<ResourceGroup, ResourceRequest[]>();
    for (const g of cq.groups) {
      byGroup.set(g, [...requests].filter(([resource]) => g.covered.includes(resource)).sort(([x], [y]) => byLocale(x, y))
        .map(([resource, value]) => ({ resource, value, index: g.covered.indexOf(resource) })));
    }
    const steps = [...requests.keys()].sort().map((resource): AssignStep => {
      const group = cq.groupByResource.get(resource);
      return { resource, value: requests.get(resource)!, group, groupRequests: group ? byGroup.get(group)! : [] };
    });
    r = { clusterQueue: cq, steps };
    cq.requestsByShape.set(key, r);
    ps.requests = r;
    return r;
  }

  /** A scale-up slice keeps the flavors of the admitted slice and asks only for the delta. */
  private assignSlice(w: Workload, cq: ClusterQueue): Assignment {
    const old = w.sliceOf!;
    const a: Assignment = { podSets: [], usage: new Map(), borrowing: 0, mode: 'Fit' };
    w.podSets.forEach((ps, i) => {
      const podSetAssignment: PodSetAssignment = { name: ps.name, count: ps.count, flavors: [], reasons: [] };
      for (const [resource, total] of ps.total) {
        const flavor = old.flavors![i]?.get(resource);
        if (!flavor) continue;
        const id = this.snapshot.flavorResourceOf(flavor, resource);
        const delta = this.snapshot.toUnits(resource, total - (old.podSets[i].total.get(resource) ?? 0n));
        const assumed = a.usage.get(id) ?? 0;
        const r = this.fitsResourceQuota(w, cq, id, assumed, delta, podSetAssignment);
        const borrowing = granularBorrowing(r);
        const mode = granularMode(r) === FIT ? 'Fit' : 'NoFit';
        podSetAssignment.flavors.push({ resource, flavor, flavorResource: id, mode, borrowing, value: delta, hopeless: false, triedFlavorIdx: -1 });
        a.usage.set(id, assumed + delta);
        if (borrowing > a.borrowing) a.borrowing = borrowing;
      }
      a.podSets.push(podSetAssignment);
    });
    // Scale-up slices are planned without preemption (see the README's simplifications).
    a.mode = a.podSets.some((p) => p.flavors.some((f) => f.mode !== 'Fit')) ? 'NoFit' : 'Fit';
    if (a.mode === 'NoFit') for (const p of a.podSets) p.flavors = [];
    return a;
  }

  /** The flavor of one resource group for a PodSet (empty: none fits); reasons and category go to `podSetAssignment`. */
  private findFlavor(
    w: Workload, cq: ClusterQueue, group: ResourceGroup, first: PodSet, members: readonly PodSet[] | undefined, requests: readonly ResourceRequest[],
    assumed: Map<FlavorResource, number>, podSetAssignment: PodSetAssignment,
    /** The first flavor to try: after the one where the last scan stopped (NextFlavorToTryForPodSetResource). */
    start: number,
    /** The one flavor a recomputation may take (shouldSkipBasedOnNominationMapping). */
    nominated?: string,
  ): FlavorAssignment[] {
    let best: FlavorAssignment[] | undefined;
    let bestMode: Granular = WORST;
    let attempted = -1;
    for (let fi = start; fi < group.flavors.length; fi++) {
      attempted = fi;
      const flavor = group.flavors[fi];
      if (nominated !== undefined && flavor !== nominated) continue;
      // checkFlavorForPodSets: the first PodSet of the group the flavor does not suit says why.
      let mismatch = this.mismatchOf(flavor, w, first, cq, group.covered);
      for (let m = 1; members && !mismatch && m < members.length; m++) mismatch = this.mismatchOf(flavor, w, members[m], cq, group.covered);
      if (mismatch) {
        podSetAssignment.reasons.push(mismatch);
        podSetAssignment.category ??= 'max-capacity';
        continue;
      }
      const assignments: FlavorAssignment[] = [];
      let representative: Granular = granular(FIT, 0);
      for (let i = 0; i < requests.length; i++) {
        const { resource, value, index } = requests[i];
        const id = group.flavorResources[fi][index];
        const r = this.fitsResourceQuota(w, cq, id, assumed.get(id) ?? 0, value, podSetAssignment);
        if (isPreferred(representative, r, cq)) representative = r;
        if (granularMode(representative) === NO_FIT) break;
        const p = granularMode(r);
        assignments.push({
          resource, flavor, flavorResource: id, mode: p === FIT ? 'Fit' : p === NO_FIT ? 'NoFit' : 'Preempt', borrowing: granularBorrowing(r), value,
          hopeless: p === NO_CANDIDATES && this.oracle.lastEndedAtBound, triedFlavorIdx: -1,
        });
      }
      if (!shouldTryNext(representative, cq)) {
        best = assignments;
        bestMode = representative;
        break;
      }
      if (isPreferred(representative, bestMode, cq)) {
        best = assignments;
        bestMode = representative;
      }
    }
    if (granularMode(bestMode) === FIT) {
      // A podset that fits carries no reasons.
      podSetAssignment.reasons = [];
      podSetAssignment.category = undefined;
    }
    // Where the scan stopped, for the next one to resume after (-1: it reached the group's last flavor).
    const tried = attempted === group.flavors.length - 1 ? -1 : attempted;
    for (const f of best ?? []) f.triedFlavorIdx = tried;
    return best ?? [];
  }

  /** flavorMismatch, kept on the PodSet ('' for a match): the template and the flavors never change. */
  private mismatchOf(flavor: string, w: Workload, ps: PodSet, cq: ClusterQueue, covered: readonly string[]): string {
    let mismatches = ps.mismatches;
    if (!mismatches) ps.mismatches = mismatches = new Map();
    let mismatch = mismatches.get(flavor);
    if (mismatch === undefined) {
      // checkFlavorForPodSets: the TAS match first, then taints and node labels.
      mismatch = this.tas && this.snapshot.tasEnabled && this.snapshot.flavors.has(flavor)
        ? tasMismatch(this.snapshot, cq, flavor, ps, podSetTasOf(w, ps, this.tas.multiLayer), covered) : '';
      mismatch ||= flavorMismatch(this.snapshot.flavors.get(flavor), flavor, w, ps.name) ?? '';
      mismatches.set(flavor, mismatch);
    }
    return mismatch;
  }

  /**
   * NoMatchingFlavor: for some PodSet, a resource group it requests has no flavor whose taints it
   * tolerates and whose node labels its node selector matches. That never changes, so the workload is
   * never admissible (Kueue's QuotaReserved reason NoMatchingFlavor). The reasons, or undefined. An
   * inactive ClusterQueue (a flavor not found) says so in its pending state instead.
   */
  noMatchingFlavor(w: Workload): string | undefined {
    const cq = w.clusterQueue;
    // Checked for every pending workload in the result: without taints or labels there is nothing to look at.
    if (!cq || cq.inactiveReason || !this.snapshot.flavorsRestrictNodes) return undefined;
    for (const ps of w.podSets) {
      const { steps } = this.requestsOf(ps, cq);
      for (const g of cq.groups) {
        // A group the PodSet requests from (as the assignment reads it: zero requests too).
        if (!g.flavors.length || !steps.some((s) => s.group === g)) continue;
        const reasons: string[] = [];
        for (const flavor of g.flavors) {
          const mismatch = this.mismatchOf(flavor, w, ps, cq, g.covered);
          if (!mismatch) break;
          reasons.push(mismatch);
        }
        if (reasons.length === g.flavors.length) {
          return `no flavor of ClusterQueue ${cq.name} matches pod set ${ps.name} (NoMatchingFlavor): ${reasons.join(', ')}`;
        }
      }
    }
    return undefined;
  }

  /** fitsResourceQuota: the granular mode of `request` (on top of `assumed`) in one flavor/resource; a shortfall goes to `podSetAssignment`. */
  private fitsResourceQuota(
    w: Workload, cq: ClusterQueue, id: FlavorResource, assumed: number, request: number, podSetAssignment: PodSetAssignment,
  ): Granular {
    const free = available(cq, id);
    const maxCapacity = potentialAvailable(cq, id);
    const value = assumed + request;
    const nominal = cq.nominal[id];
    // Reasons and shortfalls are formatted only when read, from the figures of now.
    const limit = cq.borrowingLimit[id];
    const limitReached = limit !== NO_LIMIT && cq.usage[id] + value > nominal + limit;
    if (value > maxCapacity) {
      podSetAssignment.reasons.push({ flavorResource: id, overMax: true, assumed, request, available: free, maxCapacity, limitReached });
      podSetAssignment.category ??= 'max-capacity';
      return granular(NO_FIT, 0);
    }
    const h = heightOfLowestSubtreeThatFits(cq, id, value);
    if (value <= free) return granular(FIT, subtreeHeight(h));
    podSetAssignment.reasons.push({ flavorResource: id, overMax: false, assumed, request, available: free, maxCapacity, limitReached });
    podSetAssignment.category = 'quota';
    // canPreemptWhileBorrowing (flavorassigner.go): borrowWithinCohort, or with fair sharing any reclaimWithinCohort.
    const canPreemptWhileBorrowing = cq.preemption.borrowPolicy !== 'Never' || (this.fairSharing && cq.preemption.reclaim !== 'Never');
    if (nominal >= value || subtreeMayReclaim(h) || canPreemptWhileBorrowing) {
      return this.oracle.simulatePreemption(w, cq, id, value, subtreeHeight(h));
    }
    return granular(NO_FIT, subtreeHeight(h));
  }
}

/** The index of the workload's PodSet `name` (an assignment names its PodSets; the scan state is kept by index). */
function podSetIndex(w: Workload, name: string): number {
  return w.podSets.findIndex((ps) => ps.name === name);
}

/** NominationMapping: per PodSet index, resource → the flavor it was nominated to. */
export type Nomination = ReadonlyArray<ReadonlyMap<string, string> | undefined>;

/** The flavors an assignment nominated, per PodSet index (readResourceToFlavorMapping). */
export function nominationOf(w: Workload, a: Assignment): Nomination {
  const out: Array<Map<string, string> | undefined> = [];
  for (const p of a.podSets) out[podSetIndex(w, p.name)] = new Map(p.flavors.map((f) => [f.resource, f.flavor]));
  return out;
}

/** The assignment with its LastState: per PodSet index, where each resource's scan stopped (only when some flavor has a next). */
function withTried(w: Workload, a: Assignment): Assignment {
  // Most scans reach their group's last flavor: then there is nothing to keep, and nothing is built.
  if (!a.podSets.some((p) => p.flavors.some((f) => f.triedFlavorIdx !== -1))) return a;
  const tried: Array<Map<string, number> | undefined> = [];
  for (const p of a.podSets) {
    if (p.flavors.length) tried[podSetIndex(w, p.name)] = new Map(p.flavors.map((f) => [f.resource, f.triedFlavorIdx]));
  }
  a.tried = tried;
  return a;
}

/**
 * Why a flavor does not suit a PodSet (an untolerated NoSchedule/NoExecute taint, or a node selector
 * that its node labels contradict), or undefined.
 */
export function flavorMismatch(flavorObject: Pick<ResourceFlavorJson, 'spec'> | undefined, flavor: string, w: Workload, podSet: string)
  : string | undefined {
  if (!flavorObject) return `flavor ${flavor} not found`;
  const labels: Record<string, string> = flavorObject.spec?.nodeLabels ?? {};
  const taints = flavorObject.spec?.nodeTaints ?? [];
  const template = podSetTemplate(w.obj, podSet);
  const tolerations: TolerationJson[] = [...(template?.spec?.tolerations ?? []), ...(flavorObject.spec?.tolerations ?? [])];
  const t = untoleratedTaint(taintsOf(taints), tolerations);
  if (t) return `untolerated taint {${t.key}: ${t.value ?? ''}} in flavor ${flavor}`;
  const selector: Record<string, string> = template?.spec?.nodeSelector ?? {};
  for (const [k, v] of Object.entries(selector)) {
    if (k in labels && labels[k] !== v) return `flavor ${flavor} doesn't match node affinity`;
  }
  return undefined;
}
