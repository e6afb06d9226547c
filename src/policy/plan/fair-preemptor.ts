/**
 * Fair-sharing preemption (Kueue's pkg/scheduler/preemption: fairPreemptions, runFirstFsStrategy,
 * runSecondFsStrategy, fillBackWorkloads; fairsharing/ordering.go, target.go, least_common_ancestor.go,
 * strategy.go), used instead of the classical search when the Configuration turns fair sharing on.
 *
 * The candidates are the preemptor's own workloads its withinClusterQueue policy allows, and those of every
 * ClusterQueue of the tree that borrows on a contested flavor/resource that its reclaimWithinCohort policy
 * allows, in candidate order. With the preemptor's usage added, the target ClusterQueues are taken from the
 * root down by the highest share; the preemptor's own candidates go one by one, a candidate elsewhere only when
 * the strategy holds between the two almost-least-common-ancestors' shares (LessThanOrEqualToFinalShare: the
 * preemptor's share at most the target's after removal; LessThanInitialShare: below the target's before), or,
 * with FairSharingPreemptWithinNominal (0.17+), unconditionally while the preemptor stays within nominal. Until
 * the request fits; then the victims not needed are put back, from the second-to-last. Pure.
 */
import type { FairSharingStrategy } from './kueue-config';
import { compareDrs, dominantResourceShare, Drs, DrsArithmetic, ShareUnits } from './fair-share';
import {
  addUsageList, addUsageMap, almostLcas, borrowingWith, CohortNode, FlavorResource, fitsRequestAndNodes, QuotaNode, rootOf, VersionStash,
} from './quota-tree';
import { compareUsage } from './afs';
import { addTasUsage, admittedOrder, ClusterQueue, Workload } from './snapshot';
import { policyAllowsPriority, Target, tiesButForUid } from './ordering';

export interface FairPreemptionOptions {
  readonly strategies: readonly FairSharingStrategy[];
  readonly arithmetic: DrsArithmetic;
  /** FairSharingPreemptWithinNominal is on. */
  readonly withinNominalBypass: boolean;
  /**
   * With admission fair sharing, the usage of a workload's LocalQueue when its ClusterQueue orders by it, else
   * undefined: CandidatesOrdering then puts the candidates of the busier LocalQueue of one ClusterQueue first.
   */
  readonly localQueueUsage?: (w: Workload) => number | undefined;
}

/** The request of the preemptor: what fairPreemptions adds to its ClusterQueue and checks the fit of. */
interface Request {
  readonly ids: readonly FlavorResource[];
  readonly values: readonly number[];
}

/** NegativeDRS: below every share, the start of each comparison. */
const negative = (arithmetic: DrsArithmetic): Drs => ({
  weight: 1, unweightedRatio: -1, share: -1, resource: '', borrowing: false, borrowed: [], arithmetic,
});

/**
 * fairPreemptions: the victims that make room for `w` in `cq` by fair sharing, or none. `onTie`: two candidates
 * only Kueue's UID order separates.
 */
export function fairPreemptions(
  w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], request: Request, units: ShareUnits, options: FairPreemptionOptions,
  evicted: ReadonlySet<Workload>, onTie: (a: Workload, b: Workload) => void,
  /** A preemptor that asks for TAS: workloadFits also places its pods on the nodes as the victims leave them. */
  tasFits?: () => boolean,
): Target[] {
  const candidates = findCandidates(w, cq, contested, evicted, onTie, options.localQueueUsage);
  if (!candidates.size) return [];
  const search = new FairSearch(w, cq, contested, request, units, options, tasFits);
  addRequest(cq, request, 1);
  const first = search.runFirst(candidates, options.strategies[0]);
  let { fits, targets } = first;
  if (!fits && options.strategies.length > 1) ({ fits, targets } = search.runSecond(first.retry, targets));
  addRequest(cq, request, -1);
  if (!fits) {
    restore(targets);
    SEARCH_STASH.restore();
    return [];
  }
  const kept = search.fillBack(targets);
  restore(kept);
  SEARCH_STASH.restore();
  return kept;
}

/**
 * The versions the search's changes touch. Everything is put back by its end, and a tree's usage follows from its
 * ClusterQueues' alone, so the versions go back too (a node kept twice gets its version from before both).
 */
const SEARCH_STASH = new VersionStash();

function addRequest(cq: ClusterQueue, r: Request, sign: 1 | -1): void {
  SEARCH_STASH.keep(cq);
  addUsageList(cq, r.ids, r.values, sign);
}

/** A victim out of the quota tree, and its pods off their nodes. */
function remove(x: Workload): void {
  SEARCH_STASH.keep(x.clusterQueue!);
  addUsageMap(x.clusterQueue!, x.usage, -1);
  addTasUsage(x.tas, -1);
}

function putBack(x: Workload): void {
  addUsageMap(x.clusterQueue!, x.usage, 1);
  addTasUsage(x.tas, 1);
}

function restore(targets: readonly Target[]): void {
  for (const t of targets) putBack(t.workload);
}

/**
 * findCandidates: by withinClusterQueue in `cq`, by reclaimWithinCohort in the tree's ClusterQueues borrowing on a
 * contested flavor/resource; by ClusterQueue, each a cursor that lists candidates only as the search takes them (most
 * are never reached).
 */
function findCandidates(w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], evicted: ReadonlySet<Workload>,
  onTie: (a: Workload, b: Workload) => void, usage?: (w: Workload) => number | undefined): Map<ClusterQueue, Candidates> {
  const out = new Map<ClusterQueue, Candidates>();
  const add = (q: ClusterQueue, policy: string) => out.set(q, new CandidateCursor(w, q, policy, contested, evicted, cq, onTie, usage));
  if (cq.preemption.within !== 'Never') add(cq, cq.preemption.within);
  for (const q of reclaimableQueues(cq, contested)) add(q, cq.preemption.reclaim);
  return out;
}

/**
 * The ClusterQueues whose workloads `cq` may reclaim by fair sharing: with reclaimWithinCohort, every other
 * ClusterQueue of its tree borrowing on a contested flavor/resource (cqIsBorrowing). The search and its bound list them here.
 */
export function reclaimableQueues(cq: ClusterQueue, contested: readonly FlavorResource[]): readonly ClusterQueue[] {
  if (!cq.parent || cq.preemption.reclaim === 'Never') return NO_QUEUES;
  // The bound and the search ask again and again on one tree version: the last answer per ClusterQueue is kept (one
  // contested flavor/resource, as most are).
  const root = rootOf(cq) as CohortNode;
  const tree = root.treeVersion;
  const known = contested.length === 1 ? RECLAIMABLE.get(cq) : undefined;
  if (known && known.tree === tree && known.contested === contested[0]) return known.queues;
  const out: ClusterQueue[] = [];
  for (const q of queuesOfTree(root)) {
    if (q === cq) continue;
    for (let i = 0; i < contested.length; i++) {
      if (borrowingWith(q, contested[i], 0)) {
        out.push(q);
        break;
      }
    }
  }
  if (contested.length === 1) RECLAIMABLE.set(cq, { tree, contested: contested[0], queues: out });
  return out;
}

const NO_QUEUES: readonly ClusterQueue[] = [];
const RECLAIMABLE = new WeakMap<ClusterQueue, { tree: number; contested: FlavorResource; queues: readonly ClusterQueue[] }>();

/** The ClusterQueues of a tree, listed once per root (the tree never changes once built). */
const QUEUES_OF_TREE = new WeakMap<CohortNode, readonly ClusterQueue[]>();

function queuesOfTree(root: CohortNode): readonly ClusterQueue[] {
  let queues = QUEUES_OF_TREE.get(root);
  if (!queues) QUEUES_OF_TREE.set(root, queues = clusterQueuesUnder(root));
  return queues;
}

/** One ClusterQueue's candidates, taken in order. */
interface Candidates {
  peek(): Workload | undefined;
  next(): Workload;
  /** The least usage of the candidates still to come (see CandidateCursor), or undefined. */
  leastRemaining?(): ReadonlyMap<FlavorResource, number> | undefined;
}

/**
 * One admitted run (a ClusterQueue's workloads of one priority) as the first strategy's scan reads it: the least usage
 * of its workloads on each flavor/resource (absent where one of them has none: 0), and whether two of them were admitted
 * together (a tie but for UID, which the scan reports). Kept while the ClusterQueue's usage version holds: an admission
 * or a release moves it (the memo version would not do: the tree's ClusterQueues share it). A workload that uses nothing
 * moves no usage, but it is never a candidate (a candidate uses a contested flavor/resource), so neither its usage nor its
 * ties count.
 */
interface RunSummary {
  readonly version: number;
  readonly least: ReadonlyMap<FlavorResource, number>;
  readonly tied: boolean;
}

const RUN_SUMMARIES = new WeakMap<readonly Workload[], RunSummary>();

function runSummary(q: ClusterQueue, run: readonly Workload[]): RunSummary {
  const known = RUN_SUMMARIES.get(run);
  if (known && known.version === q.usageVersion) return known;
  const least = new Map<FlavorResource, number>(run.length ? run[0].usage : []);
  let tied = false;
  for (let i = 1; i < run.length; i++) {
    const x = run[i];
    if (x.admittedAt === run[i - 1].admittedAt) tied = true;
    // Usages are interned: most workloads repeat a few shapes.
    if (x.usage !== run[i - 1].usage) lowerTo(least, x.usage);
  }
  const summary = { version: q.usageVersion, least, tied };
  RUN_SUMMARIES.set(run, summary);
  return summary;
}

/** `least` lowered to `usage` on each flavor/resource (one absent from `usage` counts 0: it leaves `least`). */
function lowerTo(least: Map<FlavorResource, number>, usage: ReadonlyMap<FlavorResource, number>): void {
  for (const [id, v] of least) {
    const u = usage.get(id);
    if (u === undefined) least.delete(id);
    else if (u < v) least.set(id, u);
  }
}

const NONE: readonly Workload[] = [];

/** Candidates already listed (the retry list's). */
class CandidateList implements Candidates {
  private at = 0;
  constructor(private readonly list: readonly Workload[]) {}
  peek(): Workload | undefined {
    return this.list[this.at];
  }
  next(): Workload {
    return this.list[this.at++];
  }
}

/**
 * A ClusterQueue's candidates in CandidatesOrdering within one ClusterQueue (evicted first, lower priority, most
 * recently admitted, UID), from its admitted runs (each priority's kept most recently admitted first, then by UID),
 * listed only as far as the search takes them. The search compares two ClusterQueues' candidates only as their heads.
 */
class CandidateCursor implements Candidates {
  private readonly priorities: number[];
  /** This cycle's preempted workloads of the ClusterQueue that are candidates, in order: they come first. */
  private readonly evictedFirst: readonly Workload[];
  private evictedAt = 0;
  private priorityAt = 0;
  private runAt = 0;
  private peeked: Workload | undefined;
  private last: Workload | undefined;

  /** With admission fair sharing in this ClusterQueue: every candidate, busier LocalQueue first (then as without). */
  private readonly byUsage?: Workload[];
  private usageAt = 0;

  constructor(private readonly w: Workload, private readonly q: ClusterQueue, private readonly policy: string,
    private readonly contested: readonly FlavorResource[], evicted: ReadonlySet<Workload>, private readonly preemptorQueue: ClusterQueue,
    private readonly onTie: (a: Workload, b: Workload) => void, usage?: (w: Workload) => number | undefined) {
    // A cursor per ClusterQueue and search: a few priorities, sorted in place (no copy for sort), and mostly nothing evicted.
    const priorities: number[] = [];
    for (const p of q.admittedByPriority.keys()) {
      if (!policyAllowsPriority(policy, p, w.priority)) continue;
      let i = priorities.length;
      for (; i > 0 && priorities[i - 1] > p; i--) priorities[i] = priorities[i - 1];
      priorities[i] = p;
    }
    this.priorities = priorities;
    this.evictedFirst = evicted.size ? [...evicted].filter((x) => x.clusterQueue === q && q.admitted.has(x) && this.eligible(x))
      .sort((a, b) => a.priority - b.priority || admittedOrder(a, b)) : NONE;
    const first = q.admitted.values().next().value;
    if (usage && first && usage(first) !== undefined) {
      const u = new Map<Workload, number>();
      const list: Workload[] = [];
      for (const x of q.admitted) {
        if (x.evicted || !this.eligible(x)) continue;
        u.set(x, usage(x)!);
        list.push(x);
      }
      this.byUsage = list.sort((a, b) => compareUsage(u.get(b)!, u.get(a)!) || a.priority - b.priority || admittedOrder(a, b));
    }
  }

  private eligible(x: Workload): boolean {
    if (!policyAllowsPriority(this.policy, x.priority, this.w.priority)) return false;
    // LowerOrNewerEqualPriority at equal priority: only workloads newer than the preemptor.
    if (this.policy === 'LowerOrNewerEqualPriority' && x.priority === this.w.priority && !(this.w.created < x.created)) return false;
    return this.contested.some((fr) => x.usage.has(fr));
  }

  peek(): Workload | undefined {
    if (this.peeked) return this.peeked;
    if (this.evictedAt < this.evictedFirst.length) return this.peeked = this.evictedFirst[this.evictedAt++];
    if (this.byUsage) return this.peeked = this.byUsage[this.usageAt++];
    for (; this.priorityAt < this.priorities.length; this.priorityAt++, this.runAt = 0) {
      const run = this.q.admittedByPriority.get(this.priorities[this.priorityAt])!;
      while (this.runAt < run.length) {
        const x = run[this.runAt++];
        if (!x.evicted && this.eligible(x)) return this.peeked = x;
      }
    }
    return undefined;
  }

  next(): Workload {
    const x = this.peek()!;
    this.peeked = undefined;
    if (this.last && tiesButForUid(this.last, x, this.preemptorQueue)) this.onTie(this.last, x);
    this.last = x;
    return x;
  }

  /**
   * Per flavor/resource, no more than any candidate still to come uses (0 where absent): the least of the runs left, read
   * from their summaries, not from the candidates. Undefined where a summary would not do: with this cycle's evicted or
   * the order by LocalQueue usage first, or two candidates left that tie but for UID (taking them one by one reports it).
   */
  leastRemaining(): ReadonlyMap<FlavorResource, number> | undefined {
    if (this.evictedFirst.length || this.byUsage) return undefined;
    let least: Map<FlavorResource, number> | undefined;
    for (let i = this.priorityAt; i < this.priorities.length; i++) {
      const { least: runLeast, tied } = runSummary(this.q, this.q.admittedByPriority.get(this.priorities[i])!);
      if (tied) return undefined;
      if (!least) least = new Map(runLeast);
      else lowerTo(least, runLeast);
    }
    return least;
  }
}

function clusterQueuesUnder(c: CohortNode): ClusterQueue[] {
  return [...c.childCohorts.flatMap(clusterQueuesUnder), ...(c.childQueues as ClusterQueue[])];
}

/**
 * CandidatesOrdering: evicted first, other ClusterQueues before the preemptor's, lower priority, most recently
 * admitted, then UID (here the arrival number; adjacent ties are reported).
 */
export function candidatesOrder(a: Workload, b: Workload, cq: ClusterQueue): number {
  if (a.evicted !== b.evicted) return a.evicted ? -1 : 1;
  const aIn = a.clusterQueue === cq, bIn = b.clusterQueue === cq;
  if (aIn !== bIn) return aIn ? 1 : -1;
  if (a.priority !== b.priority) return a.priority - b.priority;
  return admittedOrder(a, b);
}

const STRATEGY: Record<FairSharingStrategy, (preemptorNew: Drs, targetOld: Drs, targetNew: Drs) => boolean> = {
  LessThanOrEqualToFinalShare: (p, _old, n) => compareDrs(p, n) <= 0,
  LessThanInitialShare: (p, old) => compareDrs(p, old) < 0,
};

/** A share for the explanation: two decimals, ∞ for a zero weight that borrows. */
const shown = (d: Drs) => (d.share === Infinity ? '∞ (weight 0)' : String(Math.round(d.share * 100) / 100));

class FairSearch {
  /** A candidate is removed for its share and put back exactly: the usage versions go back with it. */
  private readonly stash = new VersionStash();

  constructor(
    private readonly w: Workload, private readonly cq: ClusterQueue, private readonly contested: readonly FlavorResource[],
    private readonly request: Request, private readonly units: ShareUnits, private readonly options: FairPreemptionOptions,
    private readonly tasFits?: () => boolean,
  ) {}

  private drs(n: QuotaNode): Drs {
    return dominantResourceShare(n, this.units, this.options.arithmetic);
  }

  /** The share of `n` with `usage` out of `q` (out and back: the usage versions go back with it). */
  private drsWithout(q: ClusterQueue, usage: ReadonlyMap<FlavorResource, number>, n: QuotaNode): Drs {
    this.stash.keep(q);
    addUsageMap(q, usage, -1);
    const d = this.drs(n);
    addUsageMap(q, usage, 1);
    this.stash.restore();
    return d;
  }

  /** workloadFits with borrowing allowed: every requested flavor/resource within what the ClusterQueue can take now. */
  private fitsNow(): boolean {
    return fitsRequestAndNodes(this.cq, this.request.ids, this.request.values, true, this.tasFits);
  }

  /** workloadFitsForFairSharing: the fit without the preemptor's own usage, which the search holds added. */
  private fits(): boolean {
    addRequest(this.cq, this.request, -1);
    const ok = this.fitsNow();
    addRequest(this.cq, this.request, 1);
    return ok;
  }

  runFirst(candidates: ReadonlyMap<ClusterQueue, Candidates>, strategy: FairSharingStrategy)
    : { fits: boolean; targets: Target[]; retry: Workload[] } {
    const ordering = new TargetOrdering(this.cq, candidates, (n) => this.drs(n), this.options.arithmetic);
    const targets: Target[] = [];
    // The retry list: Kueue lists every candidate the first strategy passed over, but the second strategy reads only each
    // ClusterQueue's first (it takes at most one per ClusterQueue, the head), so only that one is kept.
    const retry: Workload[] = [];
    const retried = new Set<ClusterQueue>();
    const passOver = (x: Workload) => {
      if (retried.has(x.clusterQueue!)) return;
      retried.add(x.clusterQueue!);
      retry.push(x);
    };
    // Within nominal on every contested flavor/resource, the request included: reclaim regardless of the shares.
    const withinNominal = this.options.withinNominalBypass && this.contested.every((fr) => !borrowingWith(this.cq, fr, 0));
    for (const t of ordering.targets()) {
      if (t === this.cq || withinNominal) {
        const x = ordering.pop(t);
        remove(x);
        targets.push(t === this.cq ? this.inQueue(x) : {
          workload: x, reason: 'InCohortReclamation',
          explanation: `ClusterQueue ${t.name} borrows in the cohort and ${this.cq.name}, within its nominal quota, reclaims it regardless of `
            + 'fair sharing (FairSharingPreemptWithinNominal)',
        });
        if (this.fits()) return { fits: true, targets, retry };
        continue;
      }
      const [preemptorNode, targetNode] = almostLcas(this.cq, t);
      const preemptorNew = this.drs(preemptorNode);
      const targetOld = this.drs(targetNode);
      // Removing a workload never raises the target's share: when the strategy fails on its share before any removal,
      // it fails for every candidate there. Kueue tests each and puts them all on the retry list, of which the second
      // strategy reads each ClusterQueue's first: the head alone gives the same outcome.
      if (!STRATEGY[strategy](preemptorNew, targetOld, targetOld)) {
        passOver(ordering.pop(t));
        ordering.drop(t);
        continue;
      }
      // No candidate left here removes less than `least` on any flavor/resource, and removing more never raises the target's
      // share: when the strategy fails even with `least` removed, it fails for every one of them (as above, the head alone
      // then goes to the retry list).
      const least = ordering.leastRemaining(t);
      if (least?.size && !STRATEGY[strategy](preemptorNew, targetOld, this.drsWithout(t, least, targetNode))) {
        passOver(ordering.pop(t));
        ordering.drop(t);
        continue;
      }
      // Until one passes, the tree is the same for every candidate here: one whose usage (an interned map) already failed
      // fails again, without removing it and computing the share.
      let failed: Set<ReadonlyMap<FlavorResource, number>> | undefined;
      while (ordering.hasWorkload(t)) {
        const x = ordering.pop(t);
        if (failed?.has(x.usage)) {
          passOver(x);
          continue;
        }
        // The share without it: its quota out and back (its nodes play no part in shares).
        const targetNew = this.drsWithout(x.clusterQueue!, x.usage, targetNode);
        if (!STRATEGY[strategy](preemptorNew, targetOld, targetNew)) {
          (failed ??= new Set()).add(x.usage);
          passOver(x);
          continue;
        }
        remove(x);
        targets.push(this.byShare(x, strategy, preemptorNode, targetNode, preemptorNew, strategy === 'LessThanInitialShare' ? targetOld : targetNew));
        if (this.fits()) return { fits: true, targets, retry };
        // The shares changed: pick the target ClusterQueue again.
        break;
      }
    }
    return { fits: false, targets, retry };
  }

  /** Rule S2-b on the candidates the first strategy passed over: at most one per ClusterQueue. */
  runSecond(retry: Workload[], targets: Target[]): { fits: boolean; targets: Target[] } {
    // runFirst kept one candidate per ClusterQueue, in the order they were passed over.
    const ordering = new TargetOrdering(this.cq, new Map(retry.map((x) => [x.clusterQueue!, new CandidateList([x])])), (n) => this.drs(n),
      this.options.arithmetic);
    for (const t of ordering.targets()) {
      const [preemptorNode, targetNode] = almostLcas(this.cq, t);
      const preemptorNew = this.drs(preemptorNode);
      const targetOld = this.drs(targetNode);
      const x = ordering.pop(t);
      if (STRATEGY.LessThanInitialShare(preemptorNew, targetOld, targetOld)) {
        remove(x);
        targets.push(this.byShare(x, 'LessThanInitialShare', preemptorNode, targetNode, preemptorNew, targetOld));
        if (this.fits()) return { fits: true, targets };
      }
      ordering.drop(t);
    }
    return { fits: false, targets };
  }

  /** fillBackWorkloads (borrowing allowed): from the second-to-last, each victim not needed goes back (swapped with the last). */
  fillBack(targets: Target[]): Target[] {
    const out = [...targets];
    for (let i = out.length - 2; i >= 0; i--) {
      putBack(out[i].workload);
      if (this.fitsNow()) {
        out[i] = out[out.length - 1];
        out.pop();
      } else {
        remove(out[i].workload);
      }
    }
    return out;
  }

  private inQueue(x: Workload): Target {
    const p = this.cq.preemption.within;
    return {
      workload: x, reason: 'InClusterQueue',
      explanation: `in the same ClusterQueue ${this.cq.name} (withinClusterQueue: ${p}); priority ${x.priority}`
        + `${x.priority < this.w.priority ? ` < ${this.w.priority}` : ', equal but newer'}; admitted at arrival ${x.admittedAt}`,
    };
  }

  private byShare(x: Workload, strategy: FairSharingStrategy, preemptorNode: QuotaNode, targetNode: QuotaNode, preemptorNew: Drs,
    target: Drs): Target {
    const op = strategy === 'LessThanInitialShare' ? '<' : '≤';
    const when = strategy === 'LessThanInitialShare' ? 'before' : 'after';
    return {
      workload: x, reason: 'InCohortFairSharing',
      explanation: `fair sharing (${strategy}): ${kindOf(preemptorNode)} ${preemptorNode.name}'s share with the preemptor, ${shown(preemptorNew)}, `
        + `${op} ${kindOf(targetNode)} ${targetNode.name}'s share ${when} this preemption, ${shown(target)}; ClusterQueue ${x.clusterQueueName} `
        + `borrows in the cohort (reclaimWithinCohort: ${this.cq.preemption.reclaim}); priority ${x.priority}`,
    };
  }
}

const kindOf = (n: QuotaNode) => (n.isCohort ? 'Cohort' : 'ClusterQueue');

/**
 * TargetClusterQueueOrdering: from the root, into the child with the highest share, until a ClusterQueue with
 * candidates. ClusterQueues that do not borrow (but the preemptor's) or have no candidates left are pruned, and
 * cohorts that do not borrow off the preemptor's path; the search ends once the root is pruned.
 */
export class TargetOrdering {
  private readonly lists: ReadonlyMap<ClusterQueue, Candidates>;
  private readonly prunedQueues = new Set<ClusterQueue>();
  private readonly prunedCohorts = new Set<CohortNode>();
  private readonly ancestors = new Set<CohortNode>();

  /** `candidates`: each ClusterQueue's candidates, in order. */
  constructor(private readonly cq: ClusterQueue, candidates: ReadonlyMap<ClusterQueue, Candidates>,
    private readonly drs: (n: QuotaNode) => Drs, private readonly arithmetic: DrsArithmetic) {
    for (let p = cq.parent; p; p = p.parent) this.ancestors.add(p);
    this.lists = candidates;
  }

  hasWorkload(q: ClusterQueue): boolean {
    return this.lists.get(q)?.peek() !== undefined;
  }

  leastRemaining(q: ClusterQueue): ReadonlyMap<FlavorResource, number> | undefined {
    return this.lists.get(q)?.leastRemaining?.();
  }

  pop(q: ClusterQueue): Workload {
    return this.lists.get(q)!.next();
  }

  drop(q: ClusterQueue): void {
    this.prunedQueues.add(q);
  }

  private head(q: ClusterQueue): Workload {
    return this.lists.get(q)!.peek()!;
  }

  /** Iter: the next target ClusterQueue, again and again while its share stays the highest; pop or drop between two. */
  *targets(): Generator<ClusterQueue> {
    if (!this.cq.parent) {
      while (!this.prunedQueues.has(this.cq) && this.hasWorkload(this.cq)) yield this.cq;
      return;
    }
    const root = rootOf(this.cq) as CohortNode;
    while (!this.prunedCohorts.has(root)) {
      const t = this.nextTarget(root);
      if (t) yield t;
    }
  }

  private nextTarget(cohort: CohortNode): ClusterQueue | undefined {
    let highestCq: ClusterQueue | undefined;
    let highestCqDrs = negative(this.arithmetic);
    for (const child of cohort.childQueues) {
      const q = child as ClusterQueue;
      if (this.prunedQueues.has(q)) continue;
      const d = this.drs(q);
      const c = compareDrs(d, highestCqDrs);
      if ((!d.borrowing && q !== this.cq) || !this.hasWorkload(q)) this.prunedQueues.add(q);
      else if (c === 0 && highestCq) {
        if (candidatesOrder(this.head(q), this.head(highestCq), this.cq) < 0) highestCq = q;
      } else if (c > 0) {
        highestCqDrs = d;
        highestCq = q;
      }
    }
    let highestCohort: CohortNode | undefined;
    let highestCohortDrs = negative(this.arithmetic);
    for (const child of cohort.childCohorts) {
      if (this.prunedCohorts.has(child)) continue;
      const d = this.drs(child);
      // Off the preemptor's path a cohort that does not borrow is done; on it, only once its children are.
      if (!d.borrowing && !this.ancestors.has(child)) this.prunedCohorts.add(child);
      else if (compareDrs(d, highestCohortDrs) >= 0) {
        highestCohortDrs = d;
        highestCohort = child;
      }
    }
    if (!highestCohort && !highestCq) {
      this.prunedCohorts.add(cohort);
      return undefined;
    }
    // On equal shares the cohort: the most unfair node may be inside it.
    if (highestCohort && compareDrs(highestCohortDrs, highestCqDrs) >= 0) return this.nextTarget(highestCohort);
    return highestCq;
  }
}
