/**
 * A ClusterQueue's queue (Kueue's pkg/queue ClusterQueue): the active workloads, ordered by priority
 * then creation, and the parked (inadmissible) ones. Both are grouped by scheduling-equivalence hash,
 * because Kueue parks and requeues equivalent workloads together: a group moves at once, and the head
 * is found among the groups' oldest members, not among all workloads. Pure.
 */

/** What the queue reads from a workload. */
export interface Queued {
  readonly priority: number;
  /** Unique per workload, so the order is total. */
  readonly created: number;
  /** Equal hashes have equal priority (the hash covers it). */
  readonly hash: number;
}

/** `a` before `b`: higher priority first, then older. */
function before(a: Queued, b: Queued): boolean {
  return a.priority !== b.priority ? a.priority > b.priority : a.created < b.created;
}

/** Newest first, so the oldest member is at the end. */
function insertByCreation<T extends Queued>(group: T[], w: T): void {
  let lo = 0, hi = group.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (group[mid].created > w.created) lo = mid + 1;
    else hi = mid;
  }
  group.splice(lo, 0, w);
}

function mergeByCreation<T extends Queued>(a: T[], b: T[]): T[] {
  if (!a.length) return b;
  if (!b.length) return a;
  return [...a, ...b].sort((x, y) => y.created - x.created);
}

export class WorkloadQueue<T extends Queued> {
  private readonly active = new Map<number, T[]>();
  private readonly parked = new Map<number, T[]>();
  private activeCount = 0;

  /** Active workloads. */
  get size(): number {
    return this.activeCount;
  }

  /** Into the active queue. */
  push(w: T): void {
    const group = this.active.get(w.hash);
    if (group) insertByCreation(group, w);
    else this.active.set(w.hash, [w]);
    this.activeCount++;
  }

  /** Into the parked ones. */
  park(w: T): void {
    const group = this.parked.get(w.hash);
    if (group) insertByCreation(group, w);
    else this.parked.set(w.hash, [w]);
  }

  /** Parks every active workload with this hash. */
  parkHash(hash: number): void {
    const group = this.active.get(hash);
    if (!group) return;
    this.active.delete(hash);
    this.activeCount -= group.length;
    this.parked.set(hash, mergeByCreation(this.parked.get(hash) ?? [], group));
  }

  /** Parks every active workload. */
  parkAll(): void {
    for (const hash of [...this.active.keys()]) this.parkHash(hash);
  }

  /** Every parked workload back into the active queue. */
  requeueParked(): void {
    for (const [hash, group] of this.parked) {
      this.active.set(hash, mergeByCreation(this.active.get(hash) ?? [], group));
      this.activeCount += group.length;
    }
    this.parked.clear();
  }

  /** The head (`first` when it is active, else the best by priority and creation), taken out. */
  pop(first?: T): T | undefined {
    if (first) {
      const group = this.active.get(first.hash);
      const i = group ? group.indexOf(first) : -1;
      if (i >= 0) return this.take(first.hash, group!, i);
    }
    let best: T | undefined;
    let bestGroup: T[] | undefined;
    for (const group of this.active.values()) {
      const oldest = group[group.length - 1];
      if (!best || before(oldest, best)) {
        best = oldest;
        bestGroup = group;
      }
    }
    return best && this.take(best.hash, bestGroup!, bestGroup!.length - 1);
  }

  private take(hash: number, group: T[], i: number): T {
    const [w] = group.splice(i, 1);
    if (!group.length) this.active.delete(hash);
    this.activeCount--;
    return w;
  }
}
