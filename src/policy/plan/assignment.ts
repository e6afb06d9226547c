/**
 * What a flavor assignment is (Kueue's flavorassigner Assignment): per PodSet, a flavor per resource with its granular
 * mode (preemption mode and borrowing level), or the reasons none fits; the preference between modes under the
 * ClusterQueue's flavor fungibility, and what a pending workload keeps of it. The flavor assigner builds it, the preemptor
 * reads its modes and the cycle its usage. Pure.
 */
import type { PendingCategory } from './schema';
import { FlavorResource, NO_LIMIT } from './quota-tree';
import type { ClusterQueue, PendingBrief, TasPlacement, Workload } from './snapshot';

export type Mode = 'NoFit' | 'Preempt' | 'Fit';
/** Kueue's granular preemption modes, worst first. */
export const NO_FIT = 0, NO_CANDIDATES = 1, PREEMPT = 2, RECLAIM = 3, FIT = 4;
/**
 * A granular mode and its borrowing level in one number (`mode * LEVELS + borrowing`): computed for
 * every flavor/resource of every evaluation, so no object. Read with `granularMode` and `granularBorrowing`.
 */
export type Granular = number;
const LEVELS = 1 << 16;
export const granular = (mode: number, borrowing: number): Granular => mode * LEVELS + Math.min(borrowing, LEVELS - 1);
export const granularMode = (g: Granular): number => Math.floor(g / LEVELS);
export const granularBorrowing = (g: Granular): number => g % LEVELS;
/** worstGranularMode: NoFit at the highest borrowing level. */
export const WORST: Granular = granular(NO_FIT, LEVELS - 1);

/** What the flavor assigner asks of preemption (Kueue's PreemptionOracle). */
export interface PreemptionOracle {
  /**
   * The granular mode once `w` preempts for `value` of `flavorResource` (PREEMPT or RECLAIM, with the
   * borrowing level then), or NO_CANDIDATES at `borrowingLevel`.
   */
  simulatePreemption(w: Workload, cq: ClusterQueue, flavorResource: FlavorResource, value: number, borrowingLevel: number): Granular;
  /** Whether the last call found no candidates because the search bound failed (no larger request can do better). */
  readonly lastEndedAtBound: boolean;
}

/** A resource's flavor in a PodSet: `value` is the PodSet's request of it (in the simulator's unit). */
export interface FlavorAssignment {
  readonly resource: string;
  readonly flavor: string;
  readonly flavorResource: FlavorResource;
  readonly mode: Mode;
  readonly borrowing: number;
  readonly value: number;
  /** Preempt mode without candidates because the preemption bound failed (see the cycle's nominate). */
  readonly hopeless: boolean;
  /** TriedFlavorIdx: the last flavor of its resource group the scan tried, -1 when that was the group's last. */
  triedFlavorIdx: number;
}

/** A flavor/resource short of quota, with the figures fitsResourceQuota saw: formatted only when read. */
export interface QuotaMiss {
  readonly flavorResource: FlavorResource;
  /** Over the maximum capacity (else: over the unused quota). */
  readonly overMax: boolean;
  readonly assumed: number;
  readonly request: number;
  readonly available: number;
  readonly maxCapacity: number;
  readonly limitReached: boolean;
}

/** Why a flavor does not fit: a message, or a quota shortfall (which is also reported as such). */
export type Reason = string | QuotaMiss;

export interface PodSetAssignment {
  readonly name: string;
  readonly count: number;
  /** One per assigned resource (a few: an array, not a map). */
  flavors: FlavorAssignment[];
  reasons: Reason[];
  category?: PendingCategory;
}

export interface Assignment {
  readonly podSets: PodSetAssignment[];
  readonly usage: Map<FlavorResource, number>;
  borrowing: number;
  mode: Mode;
  /** Where the TAS PodSets' pods go (topology-aware scheduling): on the nodes as they are, or, in Preempt mode, as the preemptor sees them. */
  tas?: TasPlacement[];
  /** The workload asks for TAS: preemption must also make room on the nodes. */
  tasRequested?: boolean;
  /** Per PodSet index, per assigned resource, its triedFlavorIdx (Kueue's LastState.LastTriedFlavorIdx). */
  tried?: Array<Map<string, number> | undefined>;
}

/** PendingFlavors: some resource's scan stopped before its group's last flavor. */
export function pendingFlavors(tried: ReadonlyArray<ReadonlyMap<string, number> | undefined> | undefined): boolean {
  for (const m of tried ?? []) for (const i of m?.values() ?? []) if (i !== -1) return true;
  return false;
}

export interface BriefPodSet {
  readonly name: string;
  readonly reasons: readonly Reason[];
  readonly category?: PendingCategory;
  readonly assigned: boolean;
}

/** What a pending message needs of an assignment: kept per workload until read, so only the failing PodSets. */
export interface Brief {
  readonly mode: Mode;
  readonly clusterQueue: ClusterQueue;
  readonly podSets: readonly BriefPodSet[];
}

/** A pending state built when read: the assignment's, or another message with its shortfalls. */
export interface LazyPending extends PendingBrief {
  readonly brief: Brief;
}

/** Kueue's preference between two granular modes (flavor fungibility `preference`). */
export function isPreferred(a: Granular, b: Granular, cq: ClusterQueue): boolean {
  const ap = granularMode(a), bp = granularMode(b);
  if (ap === NO_FIT) return false;
  if (bp === NO_FIT) return true;
  const an = ap === NO_CANDIDATES, bn = bp === NO_CANDIDATES;
  if (an !== bn) return !an;
  const ab = granularBorrowing(a), bb = granularBorrowing(b);
  if (cq.preference === 'PreemptionOverBorrowing') {
    if (ab !== bb) return ab < bb;
    return ap > bp;
  }
  if (ap !== bp) return ap > bp;
  return ab < bb;
}

/** Whether the flavor search goes on after a flavor of this mode (whenCanBorrow / whenCanPreempt). */
export function shouldTryNext(m: Granular, cq: ClusterQueue): boolean {
  const p = granularMode(m);
  if (p === NO_FIT || p === NO_CANDIDATES) return true;
  if ((p === PREEMPT || p === RECLAIM) && cq.tryNextOnPreempt) return true;
  if (granularBorrowing(m) > 0 && cq.tryNextOnBorrow) return true;
  return false;
}

export function rank(m: Mode): number {
  return m === 'NoFit' ? 0 : m === 'Preempt' ? 1 : 2;
}

/** updateMode: every flavor of the PodSet in `mode`. */
export function setMode(p: PodSetAssignment, mode: Mode): void {
  p.flavors = p.flavors.map((f) => ({ ...f, mode }));
}

/** The PodSet's mode: the worst of its flavors', NoFit without flavors, Fit without reasons. */
export function podSetMode(podSetAssignment: PodSetAssignment): Mode {
  if (!podSetAssignment.reasons.length) return 'Fit';
  if (!podSetAssignment.flavors.length) return 'NoFit';
  let mode: Mode = 'Fit';
  for (const f of podSetAssignment.flavors) if (rank(f.mode) < rank(mode)) mode = f.mode;
  return mode;
}

/** The failing PodSets of an assignment, for its pending message. */
export function briefOf(a: Assignment, cq: ClusterQueue): Brief {
  const podSets: BriefPodSet[] = [];
  for (const p of a.podSets) {
    if (p.reasons.length) podSets.push({ name: p.name, reasons: p.reasons, category: p.category, assigned: p.flavors.length > 0 });
  }
  return { mode: a.mode, clusterQueue: cq, podSets };
}

/** quotaResourcesToReserve: capacity a preempting workload without candidates holds for the cycle. */
export function quotaToReserve(a: Assignment, cq: ClusterQueue): Map<FlavorResource, number> {
  const out = new Map<FlavorResource, number>();
  for (const [id, v] of a.usage) {
    const nominal = cq.nominal[id], limit = cq.borrowingLimit[id], used = cq.usage[id];
    if (a.borrowing > 0) out.set(id, limit === NO_LIMIT ? v : Math.min(v, nominal + limit - used));
    else out.set(id, Math.max(0, Math.min(v, nominal - used)));
  }
  return out;
}
