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
import { addUsageMap, CohortNode, FlavorResource, QuotaNode, rootOf, VersionStash } from './quota-tree';
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
  /** The same, by cohort tree (a pop computes the shares of one tree's heads). */
  private readonly byRoot = new Map<QuotaNode, Set<E>>();

  constructor(entries: readonly E[], private readonly units: ShareUnits, private readonly options: FairIteratorOptions) {
    for (const e of entries) {
      const cq = e.workload.clusterQueue!;
      this.byQueue.set(cq, e);
      const root = rootOf(cq);
      let heads = this.byRoot.get(root);
      if (!heads) this.byRoot.set(root, heads = new Set());
      heads.add(e);
    }
  }

  hasNext(): boolean {
    return this.byQueue.size > 0;
  }

  pop(): E {
    const first = this.byQueue.values().next().value as E;
    const cq = first.workload.clusterQueue!;
    if (!cq.parent) {
      this.byQueue.delete(cq);
      return first;
    }
    const root = rootOf(cq) as CohortNode;
    const heads = this.byRoot.get(root)!;
    this.computeShares(heads);
    const winner = this.tournament(root)!;
    this.byQueue.delete(winner.workload.clusterQueue!);
    heads.delete(winner);
    return winner;
  }

  /**
   * computeDRS: each head's share, with its usage added, for its ClusterQueue and every cohort on the way up (kept per
   * head while its path's usage stays as it was: pathShares).
   */
  private computeShares(heads: ReadonlySet<E>): void {
    const trace = this.options.onTournament ? [] as Array<{ workload: Workload; cohort: string; drs: Drs }> : undefined;
    for (const e of heads) {
      const cq = e.workload.clusterQueue!;
      const path = this.pathShares(cq, e);
      if (!trace) continue;
      let k = 0;
      for (let ancestor = cq.parent; ancestor; ancestor = ancestor.parent) {
        trace.push({ workload: e.workload, cohort: ancestor.name, drs: path.drs[k++] });
      }
    }
    if (trace) this.options.onTournament!(trace);
  }

  /**
   * The shares of `e`'s ClusterQueue and cohorts up to the root's child, with its usage added. They read only the usage
   * of those nodes, so while none has changed since the last pop (the cycle admitted elsewhere) they are the same.
   */
  private pathShares(cq: ClusterQueue, e: E): PathShares {
    const known = this.pathMemo.get(e);
    check: if (known) {
      let k = 0;
      for (let node: QuotaNode = cq; node.parent; node = node.parent) if (known.versions[k++] !== node.usageVersion) break check;
      return known;
    }
    // A head's memo is refilled in place: its path is the same at every pop.
    const out = known ?? { versions: [], drs: [] };
    let k = 0;
    for (let node: QuotaNode = cq; node.parent; node = node.parent) out.versions[k++] = node.usageVersion;
    // Added for the shares and taken back exactly: the versions go back too, so the other heads' memos stay valid.
    this.stash.keep(cq);
    addUsageMap(cq, e.usage, 1);
    k = 0;
    let node: QuotaNode = cq;
    for (let ancestor = cq.parent; ancestor; node = ancestor, ancestor = ancestor.parent) {
      out.drs[k++] = dominantResourceShare(node, this.units, this.options.arithmetic);
    }
    addUsageMap(cq, e.usage, -1);
    this.stash.restore();
    if (!known) this.pathMemo.set(e, out);
    return out;
  }

  private readonly pathMemo = new Map<E, PathShares>();
  private readonly stash = new VersionStash();

  /** runTournament: the least entry under `cohort`, child cohorts first, then its ClusterQueues. */
  private tournament(cohort: CohortNode): E | undefined {
    // The child cohorts' winners, then the ClusterQueues' heads, each against the best so far.
    let best: E | undefined;
    for (const c of cohort.childCohorts) {
      const e = this.tournament(c);
      if (e && (!best || this.less(e, best, cohort))) best = e;
    }
    for (const q of cohort.childQueues) {
      const e = this.byQueue.get(q as ClusterQueue);
      if (e && (!best || this.less(e, best, cohort))) best = e;
    }
    return best;
  }

  /** entryComparer.less under `cohort`. */
  private less(a: E, b: E, cohort: CohortNode): boolean {
    const { prioritizeNonBorrowing } = this.options;
    return less(this.shareUnder(a, cohort), a.usage, a.workload, this.shareUnder(b, cohort), b.usage, b.workload, prioritizeNonBorrowing);
  }

  /** The share of `e` under `cohort` (an ancestor of its ClusterQueue), from this pop's computeShares. */
  private shareUnder(e: E, cohort: CohortNode): Drs {
    const path = this.pathMemo.get(e)!;
    let k = 0;
    for (let ancestor = e.workload.clusterQueue!.parent; ancestor !== cohort; ancestor = ancestor!.parent) k++;
    return path.drs[k];
  }
}

/** A head's shares along its path, and the usage versions of those nodes (before its usage was added) they were computed at. */
interface PathShares {
  readonly versions: number[];
  readonly drs: Drs[];
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
  return less(a.drs, a.usage, a.workload, b.drs, b.usage, b.workload, prioritizeNonBorrowing);
}

/** entryLess on its parts (the tournament compares at every step of every pop: nothing built). */
function less(aDrs: Drs, aUsage: Contender['usage'], aWorkload: Contender['workload'], bDrs: Drs, bUsage: Contender['usage'],
  bWorkload: Contender['workload'], prioritizeNonBorrowing: boolean): boolean {
  if (prioritizeNonBorrowing) {
    const ab = isBorrowingOn(aDrs, aUsage);
    const bb = isBorrowingOn(bDrs, bUsage);
    if (ab !== bb) return !ab;
  }
  const c = compareDrs(aDrs, bDrs);
  if (c !== 0) return c < 0;
  if (aWorkload.priority !== bWorkload.priority) return aWorkload.priority > bWorkload.priority;
  return aWorkload.created < bWorkload.created;
}
