/**
 * Preemption candidate ordering (Kueue's pkg/scheduler/preemption/common/ordering.go,
 * CandidatesOrdering): evicted first, other ClusterQueues first, lower priority first, most recently
 * admitted first, then UID (here: the workload's number). The candidates arrive as runs (one
 * ClusterQueue's admitted workloads of one priority, kept in admission order), which are merged here
 * instead of sorting every candidate. Pure.
 */
import type { CohortNode, FlavorResource } from './quota-tree';
import { admittedOrder, ClusterQueue, Workload } from './snapshot';

export type Variant = 'WithinCQ' | 'HierarchicalReclaim' | 'ReclaimWithoutBorrowing' | 'ReclaimWhileBorrowing';

/** A victim, with Kueue's preemption reason and the plan's explanation: what the classical and the fair search return. */
export interface Target {
  readonly workload: Workload;
  readonly reason: string;
  readonly explanation: string;
}

/** satisfiesPolicy for a candidate's priority, widened to every creation time at equal priority. */
export function policyAllowsPriority(policy: string, candidate: number, preemptor: number): boolean {
  return policy === 'Any' || candidate < preemptor || (policy === 'LowerOrNewerEqualPriority' && candidate === preemptor);
}

/** A ClusterQueue's admitted workloads of one priority, already in candidate order, as one search lists them. */
export interface Run {
  readonly priority: number;
  readonly admitted: readonly Workload[];
  /** The lowest common ancestor with the preemptor's ClusterQueue (none within it). */
  readonly lca?: CohortNode;
  readonly variant: Variant;
  /** Equal priority under LowerOrNewerEqualPriority: only newer workloads are candidates. */
  readonly byCreation: boolean;
}

/** Candidates as two parallel arrays (no object per candidate): the workload, and the run it came from. */
export interface CandidateList {
  readonly workloads: Workload[];
  readonly runs: Run[];
}

/** A search's candidates (before the request decides anything but the reclaim advantage); `ordered` once sorted. */
export interface CandidateLists {
  /** In the preemptor's ClusterQueue. */
  readonly sameQueue: CandidateList;
  /** In other ClusterQueues, where the preemptor has the reclaim advantage (hierarchical reclaim). */
  readonly hierarchical: CandidateList;
  /** In other ClusterQueues, reclaimed by priority. */
  readonly byPriority: CandidateList;
  ordered?: CandidateList;
}

/** The contested flavor/resources: a candidate must use one. As bits too, when there are at most 31 of them in the table. */
export interface Contested {
  readonly flavorResources: readonly FlavorResource[];
  readonly mask: number;
  readonly byMask: boolean;
}

export function contestedOf(flavorResources: readonly FlavorResource[], tableSize: number): Contested {
  let mask = 0;
  for (const id of flavorResources) mask |= id < 31 ? 1 << id : 0;
  return { flavorResources, mask, byMask: tableSize <= 31 };
}

function usesContested(x: Workload, c: Contested): boolean {
  if (c.byMask) return (x.usageMask & c.mask) !== 0;
  for (let i = 0; i < c.flavorResources.length; i++) if (x.usage.has(c.flavorResources[i])) return true;
  return false;
}


/**
 * The runs' candidates in candidate order: by priority, and within one priority the runs merged (each is in candidate
 * order already, and the order is total). Only workloads that use a contested flavor/resource, and under `byCreation`
 * only those newer than the preemptor (created at `preemptorCreated`). Sorts `runs`. The lists are sized once: a search
 * lists hundreds of candidates, and growing arrays would copy them again and again.
 */
export function candidateListOf(runs: Run[], contested: Contested, preemptorCreated: number): CandidateList {
  runs.sort((a, b) => a.priority - b.priority);
  let n = 0;
  for (const r of runs) for (const x of r.admitted) if (isCandidate(x, r, contested, preemptorCreated)) n++;
  const out: CandidateList = { workloads: new Array<Workload>(n), runs: new Array<Run>(n) };
  let k = 0;
  for (let i = 0; i < runs.length;) {
    let j = i + 1;
    while (j < runs.length && runs[j].priority === runs[i].priority) j++;
    k = j - i === 1 ? copyRun(runs[i], contested, preemptorCreated, out, k) : mergeRuns(runs.slice(i, j), contested, preemptorCreated, out, k);
    i = j;
  }
  return out;
}

function isCandidate(x: Workload, r: Run, contested: Contested, preemptorCreated: number): boolean {
  return usesContested(x, contested) && (!r.byCreation || preemptorCreated < x.created);
}

function copyRun(r: Run, contested: Contested, preemptorCreated: number, out: CandidateList, k: number): number {
  for (const x of r.admitted) {
    if (!isCandidate(x, r, contested, preemptorCreated)) continue;
    out.workloads[k] = x;
    out.runs[k++] = r;
  }
  return k;
}

/** Several ClusterQueues' runs of one priority, merged into `out` from `k` (a few runs: the head is found by a scan). */
function mergeRuns(runs: Run[], contested: Contested, preemptorCreated: number, out: CandidateList, k: number): number {
  const at = runs.map(() => 0);
  for (;;) {
    let best = -1;
    for (let r = 0; r < runs.length; r++) {
      const list = runs[r].admitted;
      while (at[r] < list.length && !isCandidate(list[at[r]], runs[r], contested, preemptorCreated)) at[r]++;
      if (at[r] < list.length && (best < 0 || admittedOrder(list[at[r]], runs[best].admitted[at[best]]) < 0)) best = r;
    }
    if (best < 0) return k;
    out.workloads[k] = runs[best].admitted[at[best]++];
    out.runs[k++] = runs[best];
  }
}

/**
 * The lists in Kueue's order: evicted first, then other ClusterQueues (hierarchical, by priority)
 * before the preemptor's, each list as listed. Candidates that tie on all but the UID go to `onTie`
 * when adjacent within a list (Kueue then orders them by UID, which the plan does not know).
 */
export function orderCandidates(lists: CandidateLists, cq: ClusterQueue, onTie: (a: Workload, b: Workload) => void): CandidateList {
  const { sameQueue, hierarchical, byPriority } = lists;
  for (const l of [sameQueue, hierarchical, byPriority]) {
    for (const evicted of [true, false]) {
      let last: Workload | undefined;
      for (const x of l.workloads) {
        if (x.evicted !== evicted) continue;
        if (last && tiesButForUid(last, x, cq)) onTie(last, x);
        last = x;
      }
    }
  }
  const n = sameQueue.workloads.length + hierarchical.workloads.length + byPriority.workloads.length;
  const ordered: CandidateList = { workloads: new Array<Workload>(n), runs: new Array<Run>(n) };
  let k = 0;
  for (const evicted of [true, false]) {
    for (const l of [hierarchical, byPriority, sameQueue]) {
      for (let i = 0; i < l.workloads.length; i++) {
        if (l.workloads[i].evicted !== evicted) continue;
        ordered.workloads[k] = l.workloads[i];
        ordered.runs[k++] = l.runs[i];
      }
    }
  }
  return ordered;
}

/** Two candidates that every ordering key but the UID ties (for a preemptor in `cq`). */
export function tiesButForUid(a: Workload, b: Workload, cq: ClusterQueue): boolean {
  return a.admittedAt === b.admittedAt && a.evicted === b.evicted && (a.clusterQueue !== cq) === (b.clusterQueue !== cq) && a.priority === b.priority;
}
