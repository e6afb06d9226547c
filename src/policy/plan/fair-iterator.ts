/**
 * The order of a cycle's heads with fair sharing on (Kueue's pkg/scheduler/fair_sharing_iterator.go): per
 * cohort tree, a tournament. At every pop, each head's share is computed as if it were admitted (its usage
 * added to its ClusterQueue, then taken back), for its ClusterQueue and each cohort on the way to the root;
 * then, from the leaves up, each cohort keeps the child whose head is least: not borrowing on the flavors it
 * asks for first (FairSharingPrioritizeNonBorrowing, 0.17+), then the lower share, the higher priority, the
 * earlier arrival. Shares are computed again at every pop, on the quota tree as this cycle has changed it.
 *
 * Kueue picks the next tree in Go map order; trees share no quota, so the plan takes them in the order given.
 * Pure.
 */
import { compareDrs, dominantResourceShare, Drs, DrsArithmetic, isBorrowingOn, ShareUnits } from './fair-share';
import { addUsageMap, CohortNode, FlavorResource, QuotaNode, rootOf } from './quota-tree';
import type { ClusterQueue, Workload } from './snapshot';

/** A head with the usage of its assignment. */
export interface FairEntry {
  readonly workload: Workload;
  readonly usage: ReadonlyMap<FlavorResource, number>;
}

export interface FairIteratorOptions {
  readonly arithmetic: DrsArithmetic;
  /** FairSharingPrioritizeNonBorrowing is on. */
  readonly prioritizeNonBorrowing: boolean;
  /** Called with each tournament's shares (the trace), as Kueue logs them at V(4). */
  readonly onTournament?: (shares: ReadonlyArray<{ readonly workload: Workload; readonly cohort: string; readonly drs: Drs }>) => void;
}

export class FairSharingIterator<E extends FairEntry> {
  /** The remaining entries, by ClusterQueue, in the order given. */
  private readonly byQueue = new Map<ClusterQueue, E>();
  /** Each remaining entry's share under each cohort on its path (Kueue's drsValues), for the current pop. */
  private shares = new Map<CohortNode, Map<Workload, Drs>>();

  constructor(entries: readonly E[], private readonly units: ShareUnits, private readonly options: FairIteratorOptions) {
    for (const e of entries) this.byQueue.set(e.workload.clusterQueue!, e);
  }

  hasNext(): boolean {
    return this.byQueue.size > 0;
  }

  pop(): E {
    const [cq, first] = this.byQueue.entries().next().value as [ClusterQueue, E];
    if (!cq.parent) {
      this.byQueue.delete(cq);
      return first;
    }
    const root = rootOf(cq) as CohortNode;
    this.computeShares(root);
    const winner = this.tournament(root)!;
    this.byQueue.delete(winner.workload.clusterQueue!);
    return winner;
  }

  /** computeDRS: each head's share, with its usage added, for its ClusterQueue and every cohort on the way up. */
  private computeShares(root: CohortNode): void {
    this.shares = new Map();
    const shares: Array<{ workload: Workload; cohort: string; drs: Drs }> = [];
    for (const [cq, e] of this.byQueue) {
      if (rootOf(cq) !== root) continue;
      addUsageMap(cq, e.usage, 1);
      let node: QuotaNode = cq;
      for (let ancestor = cq.parent; ancestor; node = ancestor, ancestor = ancestor.parent) {
        const drs = dominantResourceShare(node, this.units, this.options.arithmetic);
        let under = this.shares.get(ancestor);
        if (!under) this.shares.set(ancestor, under = new Map<Workload, Drs>());
        under.set(e.workload, drs);
        if (this.options.onTournament) shares.push({ workload: e.workload, cohort: ancestor.name, drs });
      }
      addUsageMap(cq, e.usage, -1);
    }
    this.options.onTournament?.(shares);
  }

  /** runTournament: the least entry under `cohort`, child cohorts first, then its ClusterQueues. */
  private tournament(cohort: CohortNode): E | undefined {
    const candidates: E[] = [];
    for (const c of cohort.childCohorts) {
      const e = this.tournament(c);
      if (e) candidates.push(e);
    }
    for (const q of cohort.childQueues) {
      const e = this.byQueue.get(q as ClusterQueue);
      if (e) candidates.push(e);
    }
    let best = candidates[0];
    for (let i = 1; i < candidates.length; i++) if (this.less(candidates[i], best, cohort)) best = candidates[i];
    return best;
  }

  /** entryComparer.less under `cohort`. */
  private less(a: E, b: E, cohort: CohortNode): boolean {
    const under = this.shares.get(cohort)!;
    return entryLess({ drs: under.get(a.workload)!, usage: a.usage, workload: a.workload },
      { drs: under.get(b.workload)!, usage: b.usage, workload: b.workload }, this.options.prioritizeNonBorrowing);
  }
}

/** One side of a tournament's comparison: a head, its share under the cohort compared at, and its usage. */
export interface Contender {
  readonly drs: Drs;
  readonly usage: ReadonlyMap<FlavorResource, number>;
  readonly workload: Pick<Workload, 'priority' | 'created'>;
}

/**
 * entryComparer.less: `a` goes before `b`. Not borrowing on the flavors it asks for first (with
 * FairSharingPrioritizeNonBorrowing), then the lower share, the higher priority (PrioritySortingWithinCohort,
 * on since 0.6), the earlier arrival. PrioritizePreemptorWorkloads (Alpha, off) is not modelled.
 */
export function entryLess(a: Contender, b: Contender, prioritizeNonBorrowing: boolean): boolean {
  if (prioritizeNonBorrowing) {
    const ab = isBorrowingOn(a.drs, a.usage);
    const bb = isBorrowingOn(b.drs, b.usage);
    if (ab !== bb) return !ab;
  }
  const c = compareDrs(a.drs, b.drs);
  if (c !== 0) return c < 0;
  if (a.workload.priority !== b.workload.priority) return a.workload.priority > b.workload.priority;
  return a.workload.created < b.workload.created;
}
