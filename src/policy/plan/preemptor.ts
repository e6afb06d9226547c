/**
 * Classical preemption (Kueue's pkg/scheduler/preemption, GetTargets and classical/): the candidates
 * a workload may preempt in its ClusterQueue and cohort tree, in candidate order (ordering.ts), and the
 * minimal set among them: remove candidates until the request fits, then put back each one not needed
 * (from the second-to-last). Also the flavor assigner's preemption oracle. Searches are memoised per
 * cohort tree (SearchMemo) and bounded before any candidate is listed (`mayPreemptEnough`). Pure.
 */
import { compareDrs, dominantResourceShare, Drs, ShareUnits } from './fair-share';
import { fairPreemptions, FairPreemptionOptions, reclaimableQueues } from './fair-preemptor';
import { granular, Granular, NO_CANDIDATES, PREEMPT, PreemptionOracle, RECLAIM } from './assignment';
import { CandidateList, CandidateLists, candidateListOf, contestedOf, orderCandidates, policyAllowsPriority, Run, Target, Variant } from './ordering';
import {
  addUsage, addUsageList, addUsageMap, almostLcas, available, borrowingWith, CohortNode, fitsRequest, fitsRequestAndNodes, FlavorResource,
  heightOfLowestSubtreeThatFits, localAvailable, QuotaNode, removeUsage, rootOf, subtreeHeight, VersionStash, withinNominal,
} from './quota-tree';
import { addTasUsage, ClusterQueue, Snapshot, TasPlacement, Workload } from './snapshot';
import { placementsFit } from './tas-flavor-assigner';

const REASON_OF: Record<Variant, string> = {
  WithinCQ: 'InClusterQueue', HierarchicalReclaim: 'InCohortReclamation',
  ReclaimWithoutBorrowing: 'InCohortReclamation', ReclaimWhileBorrowing: 'InCohortReclaimWhileBorrowing',
};

export class Preemptor implements PreemptionOracle {
  /** Whether the last `getTargets` ended at its bound (no candidate listed). */
  lastEndedAtBound = false;
  // Scratch space of the bound and the oracle (reused, never kept: they run for most evaluations).
  private readonly oneFlavorResource: FlavorResource[] = [0];
  private readonly oneValue: number[] = [0];
  private readonly reclaimFrom: ClusterQueue[] = [];
  private readonly reclaimFromAdvantage: boolean[] = [];
  private readonly reclaimFromLca: CohortNode[] = [];
  private readonly advantageScratch: boolean[] = [];
  private readonly remainingScratch: number[] = [];
  private readonly undoNodes: QuotaNode[] = [];
  private readonly undoFlavorResources: FlavorResource[] = [];
  private readonly undoValues: number[] = [];
  /** The versions the bound's and the oracle's exact undos put back, so what is kept per version stays valid. */
  private readonly stash = new VersionStash();

  /**
   * `keepTrace`: list each search's candidates (for the trace). `onTie`: two adjacent candidates that
   * only Kueue's UID order separates.
   */
  constructor(
    private readonly snapshot: Snapshot, private readonly keepTrace: boolean, private readonly onTie: (a: Workload, b: Workload) => void,
    /** Set when the Configuration turns fair sharing on: GetTargets is then fairPreemptions (fair-preemptor.ts). */
    private readonly fair?: FairPreemptionOptions,
  ) {}

  /**
   * SimulatePreemption for one flavor/resource: the mode after preempting (PREEMPT when a victim is
   * in the ClusterQueue, else RECLAIM) and the borrowing level then, or NO_CANDIDATES at `borrowingLevel`.
   */
  simulatePreemption(w: Workload, cq: ClusterQueue, flavorResource: FlavorResource, value: number, borrowingLevel: number): Granular {
    const contested = this.oneFlavorResource, values = this.oneValue;
    contested[0] = flavorResource;
    values[0] = value;
    const targets = this.getTargets(w, cq, contested, contested, values, undefined);
    if (!targets.length) return granular(NO_CANDIDATES, borrowingLevel);
    for (const t of targets) {
      this.stash.keep(t.workload.clusterQueue!);
      addUsageMap(t.workload.clusterQueue!, t.workload.usage, -1);
    }
    const after = subtreeHeight(heightOfLowestSubtreeThatFits(cq, flavorResource, value));
    for (const t of targets) addUsageMap(t.workload.clusterQueue!, t.workload.usage, 1);
    this.stash.restore();
    return granular(targets.some((t) => t.workload.clusterQueue === cq) ? PREEMPT : RECLAIM, after);
  }

  /**
   * GetTargets: `contested` are the flavor/resources short of quota, `requestIds`/`requestValues` the
   * whole request. The arrays may be scratch space: nothing here keeps them. `considered` (trace only)
   * collects the refs of the candidates looked at.
   */
  getTargets(
    w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
    considered: string[] | undefined,
    /**
     * A preemptor that asks for TAS: whether its pods fit on the nodes as they are now (workloadFits runs the TAS
     * placement too). Its searches depend on the nodes' usage, so they are not memoised.
     */
    tasFits?: () => boolean,
  ): Target[] {
    const memo = cq.memo;
    const tree = rootOf(cq).treeVersion;
    if (memo.memoVersion !== memo.version || memo.memoTree !== tree) {
      memo.searches.clear();
      memo.candidateLists.clear();
      memo.boundResults.clear();
      memo.boundFailureShapes.clear();
      memo.memoVersion = memo.version;
      memo.memoTree = tree;
    }
    // The bound first: most checks end there, without a memo key.
    this.lastEndedAtBound = this.boundFails(w, cq, contested, requestIds, requestValues);
    if (this.lastEndedAtBound) return [];
    if (tasFits) {
      const refs: string[] = [];
      const targets = this.fair ? fairPreemptions(w, cq, contested, { ids: [...requestIds], values: [...requestValues] }, this.snapshot.shareUnits(),
        this.fair, this.snapshot.evicted, this.onTie, tasFits) : this.search(w, cq, contested, requestIds, requestValues, refs, tasFits);
      if (considered) for (const ref of refs) if (!considered.includes(ref)) considered.push(ref);
      return targets;
    }
    // The search reads the preemptor only through its priority (and its creation, for LowerOrNewerEqualPriority).
    let key = `${cq.name}\n${w.priority}\n${readsCreation(cq) ? w.created : ''}\n`;
    for (const id of contested) key += `${id},`;
    key += '\n';
    for (let i = 0; i < requestIds.length; i++) key += `${requestIds[i]}=${requestValues[i]},`;
    let found = memo.searches.get(key) as { targets: Target[]; refs: string[] } | undefined;
    if (!found) {
      const refs: string[] = [];
      found = { targets: this.fair ? fairPreemptions(w, cq, contested, { ids: [...requestIds], values: [...requestValues] },
        this.snapshot.shareUnits(), this.fair, this.snapshot.evicted, this.onTie)
        : this.search(w, cq, contested, requestIds, requestValues, refs), refs };
      memo.searches.set(key, found);
    }
    if (considered && found.refs.length) {
      const already = new Set(considered);
      for (const ref of found.refs) if (!already.has(ref)) considered.push(ref);
    }
    return found.targets;
  }

  /**
   * Whether the search's bound fails, looked up first in the tree's memo (valid for this tree version, as the getTargets
   * that calls this made sure): the same ClusterQueue, priority, contested and requested flavor/resources failed before
   * at no more of each. The bound reads the preemptor only through its priority (and creation, for
   * LowerOrNewerEqualPriority, which is not kept), and a larger request fails too (see mayPreemptEnough). A request of
   * one flavor/resource alone (the oracle's, most of them) is kept as two numbers: the least that failed and the largest
   * that passed (a smaller one passes too).
   */
  private boundFails(
    w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
  ): boolean {
    if (readsCreation(cq)) return this.boundFailsNow(w, cq, contested, requestIds, requestValues);
    const memo = cq.memo;
    if (requestIds.length === 1 && contested.length === 1 && contested[0] === requestIds[0]) {
      // Priorities are int32 and flavor/resources few: one exact number.
      const key = requestIds[0] * 4294967296 + (w.priority + 2147483648);
      let known = memo.boundResults.get(cq);
      if (!known) memo.boundResults.set(cq, known = new Map<number, { fail: number; pass: number }>());
      let at = known.get(key);
      if (at && requestValues[0] >= at.fail) return true;
      // A smaller request than one that passed passes too.
      if (at && requestValues[0] <= at.pass) return false;
      const fails = this.boundFailsNow(w, cq, contested, requestIds, requestValues);
      if (!at) known.set(key, at = { fail: Infinity, pass: -Infinity });
      if (fails) at.fail = requestValues[0];
      else at.pass = requestValues[0];
      return fails;
    }
    const key = `${cq.name}\n${w.priority}\n${contested.join(',')}\n${requestIds.join(',')}`;
    const failed = memo.boundFailureShapes.get(key);
    if (failed?.some((at) => at.every((v, i) => requestValues[i] >= v))) return true;
    const fails = this.boundFailsNow(w, cq, contested, requestIds, requestValues);
    if (fails) {
      if (failed) failed.push([...requestValues]);
      else memo.boundFailureShapes.set(key, [[...requestValues]]);
    }
    return fails;
  }

  private boundFailsNow(
    w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
  ): boolean {
    return this.fair ? !mayFairPreemptEnough(w, cq, contested, requestIds, requestValues, this.snapshot.shareUnits(), this.fair)
      : !this.mayPreemptEnough(w, cq, contested, requestIds, requestValues);
  }

  /**
   * A bound of the search, from the per-priority usage sums and not from the candidates: false only when
   * no attempt of the search's walk could fit, so the candidates are neither listed nor ordered.
   * Per ClusterQueue it removes at least what a walk could: in the preemptor's ClusterQueue every
   * workload the policy allows; in another one (listed as the search lists them, intermediate cohorts
   * ignored) those the policy and the attempt allow, and with one flavor/resource contested, no more than
   * its usage above nominal plus its largest workload (the walk takes from it only while it is above
   * nominal). The quota tree is monotone (less usage never makes less room), so when even that does
   * not fit, the walk does not either.
   */
  private mayPreemptEnough(
    w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
  ): boolean {
    // Called for most evaluations: scratch arrays, no closures, nothing allocated.
    const nRequest = requestIds.length;
    const from = this.reclaimFrom, fromAdvantage = this.reclaimFromAdvantage;
    const nFrom = cq.parent && cq.preemption.reclaim !== 'Never' ? this.reclaimable(cq, contested, this.advantagesInto(cq, requestIds, requestValues))
      : 0;
    const { within, reclaim, threshold } = cq.preemption;
    const borrowForbidden = cq.preemption.borrowPolicy === 'Never';
    // Only the requested flavor/resources matter: each one is its own quota tree.
    const single = contested.length === 1 ? contested[0] : undefined;
    const undoNodes = this.undoNodes, undoIds = this.undoFlavorResources, undoValues = this.undoValues;
    let nUndo = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      const borrow = attempt === 1;
      if (within !== 'Never') {
        for (let i = 0; i < nRequest; i++) {
          const v = eligibleUsage(cq, requestIds[i], within, w.priority, true, 0, threshold);
          if (v <= 0) continue;
          this.stash.keep(cq);
          removeUsage(cq, requestIds[i], v);
          undoNodes[nUndo] = cq;
          undoIds[nUndo] = requestIds[i];
          undoValues[nUndo++] = v;
        }
      }
      for (let k = 0; k < nFrom; k++) {
        const c = from[k];
        // With borrowing, a ReclaimWithoutBorrowing candidate is not valid.
        const all = !borrow || fromAdvantage[k];
        for (let i = 0; i < nRequest; i++) {
          const id = requestIds[i];
          let v = eligibleUsage(c, id, reclaim, w.priority, all, borrowForbidden ? 1 : 2, threshold);
          if (id === single) {
            const bound = c.usage[id] - c.subtree[id] + c.largestUsage[id];
            if (bound < v) v = bound;
          }
          if (v <= 0) continue;
          this.stash.keep(c);
          removeUsage(c, id, v);
          undoNodes[nUndo] = c;
          undoIds[nUndo] = id;
          undoValues[nUndo++] = v;
        }
      }
      const fits = fitsRequest(cq, requestIds, requestValues, borrow);
      for (let k = nUndo - 1; k >= 0; k--) addUsage(undoNodes[k], undoIds[k], undoValues[k]);
      nUndo = 0;
      this.stash.restore();
      if (fits) return true;
    }
    return false;
  }

  /**
   * The other ClusterQueues a search may reclaim from, level by level up the cohort path (each level's
   * cohort, without the subtree already visited; cohorts and ClusterQueues within nominal skipped), into
   * the scratch lists with the level's advantage and cohort. Returns how many. The bound and the search
   * both list them here.
   */
  private reclaimable(cq: ClusterQueue, contested: readonly FlavorResource[], advantages: readonly boolean[]): number {
    let n = 0;
    let previous: CohortNode | undefined;
    let level = 0;
    for (let cur: CohortNode | undefined = cq.parent; cur; cur = cur.parent) {
      n = this.collectReclaimable(cur, cur, previous, cq, contested, advantages[level++], n);
      previous = cur;
    }
    return n;
  }

  private collectReclaimable(
    node: CohortNode, lca: CohortNode, previous: CohortNode | undefined, cq: ClusterQueue, contested: readonly FlavorResource[],
    advantage: boolean, n: number,
  ): number {
    for (const child of node.childCohorts) {
      if (child === previous || withinNominal(child, contested)) continue;
      n = this.collectReclaimable(child, lca, previous, cq, contested, advantage, n);
    }
    for (const child of node.childQueues) {
      if (child === cq || withinNominal(child, contested)) continue;
      this.reclaimFrom[n] = child as ClusterQueue;
      this.reclaimFromAdvantage[n] = advantage;
      this.reclaimFromLca[n++] = lca;
    }
    return n;
  }

  /**
   * The reclaim advantage at each level of the cohort path (the request fits in the quota below it:
   * Kueue's quantitiesFitInQuota, applied from the ClusterQueue up with what each level leaves over),
   * into a scratch array (copy it to keep it).
   */
  private advantagesInto(cq: ClusterQueue, requestIds: readonly FlavorResource[], requestValues: readonly number[]): boolean[] {
    const advantages = this.advantageScratch;
    const remaining = this.remainingScratch;
    const nRequest = requestIds.length;
    let advantage = true;
    for (let i = 0; i < nRequest; i++) {
      const id = requestIds[i], v = requestValues[i];
      if (cq.subtree[id] < cq.usage[id] + v) advantage = false;
      remaining[i] = Math.max(0, v - localAvailable(cq, id));
    }
    let level = 0;
    for (let cur: CohortNode | undefined = cq.parent; cur; cur = cur.parent) {
      advantages[level++] = advantage;
      let fits = true;
      for (let i = 0; i < nRequest; i++) {
        const id = requestIds[i], v = remaining[i];
        if (cur.subtree[id] < cur.usage[id] + v) fits = false;
        remaining[i] = Math.max(0, v - localAvailable(cur, id));
      }
      advantage = advantage || fits;
    }
    advantages.length = level;
    return advantages;
  }

  /** The search itself; `refs` gets the ordered candidates' refs (for the trace). */
  private search(
    w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
    refs: string[], tasFits?: () => boolean,
  ): Target[] {
    const lists = this.candidateListsFor(w, cq, contested, requestIds, requestValues);
    if (!lists.ordered) lists.ordered = orderCandidates(lists, cq, this.onTie);
    const ordered = lists.ordered;
    if (this.keepTrace) for (const x of ordered.workloads) refs.push(x.ref);
    const borrowForbidden = cq.preemption.borrowPolicy === 'Never';
    const noOther = !lists.hierarchical.workloads.length && !lists.byPriority.workloads.length;
    const underNominal = contested.every((id) => cq.nominal[id] > cq.usage[id]);
    const attempts = noOther || (borrowForbidden && !underNominal) ? [true]
      : borrowForbidden && !lists.hierarchical.workloads.length ? [false, true] : [true, false];
    // mayPreemptEnough bounded the search before: almost every walk that starts finds its victims.
    for (const borrow of attempts) {
      const victims = minimalSet(cq, ordered, contested, requestIds, requestValues, borrow, tasFits);
      if (victims) {
        return victims.map((i) => {
          const t = ordered.workloads[i], variant = ordered.runs[i].variant;
          return { workload: t, reason: REASON_OF[variant], explanation: victimExplanation(t, variant, w, cq, tasFits !== undefined) };
        });
      }
    }
    return [];
  }

  /**
   * The candidate lists of a search: with the ClusterQueue, preemptor priority (and creation),
   * contested resources and the reclaim advantage at each level, they are the same, so equal searches
   * of one memo version share them.
   */
  private candidateListsFor(
    w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
  ): CandidateLists {
    const reclaims = cq.parent !== undefined && cq.preemption.reclaim !== 'Never';
    const advantages = reclaims ? [...this.advantagesInto(cq, requestIds, requestValues)] : [];
    let key = `${cq.name}\n${w.priority}\n${readsCreation(cq) ? w.created : ''}\n${advantages.map(Number).join('')}\n`;
    for (const id of contested) key += `${id},`;
    // The snapshot keeps the memo untyped (it never imports the preemptor's types); only this method fills it.
    let lists = cq.memo.candidateLists.get(key) as CandidateLists | undefined;
    if (lists) return lists;
    const sameRuns: Run[] = [];
    if (cq.preemption.within !== 'Never') runsOf(w, cq, cq, undefined, false, sameRuns);
    const hierarchicalRuns: Run[] = [];
    const priorityRuns: Run[] = [];
    if (reclaims) {
      const n = this.reclaimable(cq, contested, advantages);
      for (let k = 0; k < n; k++) {
        const advantage = this.reclaimFromAdvantage[k];
        runsOf(w, cq, this.reclaimFrom[k], this.reclaimFromLca[k], advantage, advantage ? hierarchicalRuns : priorityRuns);
      }
    }
    const filter = contestedOf(contested, this.snapshot.flavorResourceNames.length);
    lists = {
      sameQueue: candidateListOf(sameRuns, filter, w.created), hierarchical: candidateListOf(hierarchicalRuns, filter, w.created),
      byPriority: candidateListOf(priorityRuns, filter, w.created),
    };
    cq.memo.candidateLists.set(key, lists);
    return lists;
  }
}

/** Whether a search reads the preemptor's creation (LowerOrNewerEqualPriority in either policy). */
function readsCreation(cq: ClusterQueue): boolean {
  return cq.preemption.within === 'LowerOrNewerEqualPriority' || cq.preemption.reclaim === 'LowerOrNewerEqualPriority';
}

/** The request fits now (and, unless `borrow`, without borrowing). */
/**
 * The bound of the fair search, from the per-priority usage sums: false only when the request does not fit even with
 * everything the search could remove gone. That is, in the preemptor's ClusterQueue, every workload its
 * withinClusterQueue allows; in each ClusterQueue of the tree borrowing on a contested flavor/resource, every one
 * reclaimWithinCohort allows (with one flavor/resource contested, no more than its usage above nominal plus its largest
 * workload, unless it borrows elsewhere too: the search stops taking from a ClusterQueue that borrows nothing), but only
 * from a ClusterQueue a strategy could ever pass for. Both strategies need the preemptor's share at most the target's
 * before any removal (its share after one is no higher); the preemptor's share is lowest with the request added and
 * everything above removed, and the target's highest now; unless the preemptor stays within nominal with its request
 * (FairSharingPreemptWithinNominal), which takes from any borrowing ClusterQueue. The quota tree is monotone, so when
 * that does not fit, the search does not either.
 */
function mayFairPreemptEnough(
  w: Workload, cq: ClusterQueue, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[], requestValues: readonly number[],
  units: ShareUnits, fair: FairPreemptionOptions,
): boolean {
  // Called for most evaluations with fair sharing on: scratch arrays, no closures.
  const others = reclaimableQueues(cq, contested);
  const within = cq.preemption.within, reclaim = cq.preemption.reclaim;
  const capped = FAIR_CAPPED;
  capped.length = others.length;
  for (let k = 0; k < others.length; k++) capped[k] = capsAtLargest(others[k], contested);
  // First without the shares (no share to compute): most searches end here.
  if (within !== 'Never') fairTake(w, cq, within, requestIds, false);
  for (let k = 0; k < others.length; k++) fairTake(w, others[k], reclaim, requestIds, capped[k]);
  const mayFit = fitsRequest(cq, requestIds, requestValues, true);
  fairRestore();
  if (!mayFit) return false;
  let bypass = fair.withinNominalBypass;
  for (let i = 0; bypass && i < contested.length; i++) {
    const at = requestIds.indexOf(contested[i]);
    if (borrowingWith(cq, contested[i], at < 0 ? 0 : requestValues[at])) bypass = false;
  }
  if (bypass || !others.length) return true;
  // Then only from the ClusterQueues a strategy could pass for: the preemptor's share at its lowest (the request added,
  // everything it could take gone) at most the target's now.
  const targetOld = FAIR_TARGET_OLD;
  targetOld.length = others.length;
  for (let k = 0; k < others.length; k++) targetOld[k] = dominantResourceShare(almostLcas(cq, others[k])[1], units, fair.arithmetic);
  if (within !== 'Never') fairTake(w, cq, within, requestIds, false);
  for (let k = 0; k < others.length; k++) fairTake(w, others[k], reclaim, requestIds, false);
  FAIR_STASH.keep(cq);
  addUsageList(cq, requestIds, requestValues, 1);
  const eligible = FAIR_ELIGIBLE;
  eligible.length = others.length;
  let nEligible = 0;
  for (let k = 0; k < others.length; k++) {
    eligible[k] = compareDrs(dominantResourceShare(almostLcas(cq, others[k])[0], units, fair.arithmetic), targetOld[k]) <= 0;
    if (eligible[k]) nEligible++;
  }
  addUsageList(cq, requestIds, requestValues, -1);
  fairRestore();
  if (nEligible === others.length) return true;
  if (within !== 'Never') fairTake(w, cq, within, requestIds, false);
  for (let k = 0; k < others.length; k++) if (eligible[k]) fairTake(w, others[k], reclaim, requestIds, capped[k]);
  const fits = fitsRequest(cq, requestIds, requestValues, true);
  fairRestore();
  return fits;
}

// The fair bound's scratch (it never runs inside itself): what it removed, to put back in reverse.
const FAIR_UNDO_NODES: QuotaNode[] = [];
const FAIR_UNDO_IDS: FlavorResource[] = [];
const FAIR_UNDO_VALUES: number[] = [];
let fairUndone = 0;
/** The usage versions the bound's changes touch: all undone exactly, so put back with them (memos of shares stay valid). */
const FAIR_STASH = new VersionStash();
const FAIR_CAPPED: boolean[] = [];
const FAIR_TARGET_OLD: Drs[] = [];
const FAIR_ELIGIBLE: boolean[] = [];

/**
 * With one flavor/resource contested, the search takes from a ClusterQueue no more than its usage above nominal plus its
 * largest workload, unless it borrows elsewhere too (the search stops taking from one that borrows nothing).
 */
function capsAtLargest(q: ClusterQueue, contested: readonly FlavorResource[]): boolean {
  if (contested.length !== 1) return false;
  for (const id of q.quotaFlavorResources) if (id !== contested[0] && borrowingWith(q, id, 0)) return false;
  return true;
}

/** Removes from `q` what `policy` lets `w` preempt of each requested flavor/resource (capped: see capsAtLargest). */
function fairTake(w: Workload, q: ClusterQueue, policy: string, requestIds: readonly FlavorResource[], cap: boolean): void {
  for (let i = 0; i < requestIds.length; i++) {
    const id = requestIds[i];
    let v = eligibleUsage(q, id, policy, w.priority, true, 0, undefined);
    if (cap) v = Math.min(v, q.usage[id] - q.nominal[id] + q.largestUsage[id]);
    if (v <= 0) continue;
    FAIR_STASH.keep(q);
    removeUsage(q, id, v);
    FAIR_UNDO_NODES[fairUndone] = q;
    FAIR_UNDO_IDS[fairUndone] = id;
    FAIR_UNDO_VALUES[fairUndone++] = v;
  }
}

function fairRestore(): void {
  for (let i = fairUndone - 1; i >= 0; i--) addUsage(FAIR_UNDO_NODES[i], FAIR_UNDO_IDS[i], FAIR_UNDO_VALUES[i]);
  fairUndone = 0;
  FAIR_STASH.restore();
}

/**
 * One attempt of the walk: remove candidates in order until the request fits, then put back each
 * one not needed, from the second-to-last. Indexes into `ordered`, or undefined when it never fits.
 * The usage is as before on return.
 */
function minimalSet(
  cq: ClusterQueue, ordered: CandidateList, contested: readonly FlavorResource[], requestIds: readonly FlavorResource[],
  requestValues: readonly number[], borrow: boolean, tasFits?: () => boolean,
): number[] | undefined {
  const victims: number[] = [];
  for (let c = 0; c < ordered.workloads.length; c++) {
    const x = ordered.workloads[c];
    if (!isValidCandidate(cq, x, ordered.runs[c], contested, borrow)) continue;
    SEARCH_STASH.keep(x.clusterQueue!);
    take(x, -1);
    victims.push(c);
    if (!fitsRequestAndNodes(cq, requestIds, requestValues, borrow, tasFits)) continue;
    for (let i = victims.length - 2; i >= 0; i--) {
      const t = ordered.workloads[victims[i]];
      take(t, 1);
      if (fitsRequestAndNodes(cq, requestIds, requestValues, borrow, tasFits)) victims.splice(i, 1);
      else take(t, -1);
    }
    for (const i of victims) take(ordered.workloads[i], 1);
    SEARCH_STASH.restore();
    return victims;
  }
  for (const i of victims) take(ordered.workloads[i], 1);
  SEARCH_STASH.restore();
  return undefined;
}

/**
 * The versions the walk's removals touch. Every removal is put back by the end, and a tree's usage follows from its
 * ClusterQueues' alone (each node passes up what exceeds its own quota), so the order of the put-backs does not matter.
 */
const SEARCH_STASH = new VersionStash();

/** A candidate's usage out of (-1) or back into (1) the quota tree, and its pods off or back on their nodes. */
function take(x: Workload, sign: 1 | -1): void {
  addUsageMap(x.clusterQueue!, x.usage, sign);
  addTasUsage(x.tas, sign);
}

/** A candidate of another ClusterQueue stays valid while it (and its cohorts below the common ancestor) borrow. */
function isValidCandidate(cq: ClusterQueue, x: Workload, run: Run, contested: readonly FlavorResource[], borrow: boolean): boolean {
  if (x.clusterQueue === cq) return true;
  if (borrow && run.variant === 'ReclaimWithoutBorrowing') return false;
  if (withinNominal(x.clusterQueue!, contested)) return false;
  for (let node = x.clusterQueue!.parent; node && node !== run.lca; node = node.parent) {
    if (withinNominal(node, contested)) return false;
  }
  return true;
}

/** The variant of a candidate: it depends on its ClusterQueue, the level's advantage and its priority only. */
export function variantOf(w: Workload, cq: ClusterQueue, candidateQueue: ClusterQueue, priority: number, advantage: boolean): Variant {
  if (candidateQueue === cq) return 'WithinCQ';
  if (advantage) return 'HierarchicalReclaim';
  if (cq.preemption.borrowPolicy === 'Never') return 'ReclaimWithoutBorrowing';
  const t = cq.preemption.threshold;
  if (priority >= w.priority || (t !== undefined && priority > t)) return 'ReclaimWithoutBorrowing';
  return 'ReclaimWhileBorrowing';
}

/** The runs of `candidateQueue` that the policy lets `w` (in `cq`) preempt, one per priority, into `into`. */
function runsOf(w: Workload, cq: ClusterQueue, candidateQueue: ClusterQueue, lca: CohortNode | undefined, advantage: boolean, into: Run[]): void {
  const policy = candidateQueue === cq ? cq.preemption.within : cq.preemption.reclaim;
  for (const [priority, admitted] of candidateQueue.admittedByPriority) {
    // satisfiesPolicy per priority; at equal priority, LowerOrNewerEqualPriority checks each creation later.
    if (!admitted.length) continue;
    if (!policyAllowsPriority(policy, priority, w.priority)) continue;
    into.push({ priority, admitted, lca, variant: variantOf(w, cq, candidateQueue, priority, advantage),
      byCreation: priority === w.priority && policy !== 'Any' });
  }
}

/** Why `victim` is preempted by `w` (in `cq`), for the result. */
function victimExplanation(victim: Workload, variant: Variant, w: Workload, cq: ClusterQueue, nodes = false): string {
  const priority = victim.priority < w.priority ? `priority ${victim.priority} < ${w.priority}`
    : `priority ${victim.priority}, `
      + `${cq.preemption.reclaim === 'Any' && victim.clusterQueue !== cq ? 'reclaimWithinCohort: Any' : 'equal priority but newer'}`;
  const where = variant === 'WithinCQ' ? `in the same ClusterQueue ${cq.name} (withinClusterQueue: ${cq.preemption.within})`
    : `ClusterQueue ${victim.clusterQueueName} borrows in the cohort and ${cq.name} reclaims its quota (`
      + `${variant === 'ReclaimWhileBorrowing' ? 'borrowWithinCohort' : 'reclaimWithinCohort'})`;
  return `${where}; ${priority}; admitted at arrival ${victim.admittedAt}, among the most recently admitted of the lowest priority; part of the `
    + `smallest set that frees enough quota${nodes ? ' and room on the nodes of its TAS flavor' : ''}`;
}

/**
 * The usage of one flavor/resource by a ClusterQueue's admitted workloads that a preemptor of
 * `priority` may preempt under `policy` (satisfiesPolicy, widened to every creation time at equal
 * priority). Unless `all`, only those valid while borrowing: none (`borrowRule` 1: borrowWithinCohort
 * Never), or lower priorities up to the threshold (2).
 */
function eligibleUsage(
  c: ClusterQueue, id: FlavorResource, policy: string, priority: number, all: boolean, borrowRule: number, threshold: number | undefined,
): number {
  let out = 0;
  const list = c.admittedUsage;
  for (let i = 0; i < list.length; i++) {
    const p = list[i].priority;
    if (!policyAllowsPriority(policy, p, priority)) continue;
    if (!all && (borrowRule === 1 || !(p < priority && (threshold === undefined || p <= threshold)))) continue;
    out += list[i].sums[id];
  }
  return out;
}

/** Whether `usage` (and the pods of `tas`) fits once this cycle's victims and `targets` are gone. */
export function fitsAfterVictims(
  cq: ClusterQueue, usage: Map<FlavorResource, number>, preempted: Map<Workload, Target>, targets: readonly Target[],
  /** The entry's TAS placements: its pods must still fit on their nodes (cq.Fits, FitsCheckNoTAS). */
  tas?: readonly TasPlacement[],
): boolean {
  const removed = new Set<Workload>();
  for (const x of preempted.keys()) if (x.state === 'admitted') removed.add(x);
  for (const t of targets) if (t.workload.state === 'admitted') removed.add(t.workload);
  for (const x of removed) take(x, -1);
  let ok = true;
  for (const [id, v] of usage) if (available(cq, id) < v) ok = false;
  if (ok && tas) ok = placementsFit(tas);
  for (const x of removed) take(x, 1);
  return ok;
}
