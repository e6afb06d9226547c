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

/** Two groups (newest first) as one. */
function mergeByCreation<T extends Queued>(a: T[], b: T[]): T[] {
  if (!a.length) return b;
  if (!b.length) return a;
  const out = new Array<T>(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i].created > b[j].created ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

interface Group<T> { readonly hash: number; members: T[] }

export class WorkloadQueue<T extends Queued> {
  /** Active groups by hash, and the same groups in a list that the head search scans. */
  private readonly active = new Map<number, Group<T>>();
  private readonly activeList: Array<Group<T>> = [];
  private readonly parked = new Map<number, T[]>();
  private activeCount = 0;

  /** Active workloads. */
  get size(): number {
    return this.activeCount;
  }

  /** Into the active queue. */
  push(w: T): void {
    const group = this.active.get(w.hash);
    if (group) insertByCreation(group.members, w);
    else this.addGroup(w.hash, [w]);
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
    this.removeGroup(group);
    this.activeCount -= group.members.length;
    this.parked.set(hash, mergeByCreation(this.parked.get(hash) ?? [], group.members));
  }

  /** Parks every active workload. */
  parkAll(): void {
    for (const group of [...this.activeList]) this.parkHash(group.hash);
  }

  /** Every parked workload back into the active queue. */
  requeueParked(): void {
    for (const [hash, members] of this.parked) {
      const group = this.active.get(hash);
      if (group) group.members = mergeByCreation(group.members, members);
      else this.addGroup(hash, members);
      this.activeCount += members.length;
    }
    this.parked.clear();
  }

  /** The head (`first` when it is active, else the best by priority and creation), taken out. */
  pop(first?: T): T | undefined {
    if (first) {
      const group = this.active.get(first.hash);
      const i = group ? group.members.indexOf(first) : -1;
      if (i >= 0) return this.take(group!, i);
    }
    const list = this.activeList;
    if (!list.length) return undefined;
    let best = list[0];
    let bestW = best.members[best.members.length - 1];
    for (let g = 1; g < list.length; g++) {
      const oldest = list[g].members[list[g].members.length - 1];
      if (before(oldest, bestW)) {
        best = list[g];
        bestW = oldest;
      }
    }
    return this.take(best, best.members.length - 1);
  }

  private addGroup(hash: number, members: T[]): void {
    const group: Group<T> = { hash, members };
    this.active.set(hash, group);
    this.activeList.push(group);
  }

  private removeGroup(group: Group<T>): void {
    this.active.delete(group.hash);
    const list = this.activeList;
    const i = list.indexOf(group);
    list[i] = list[list.length - 1];
    list.pop();
  }

  private take(group: Group<T>, i: number): T {
    const w = i === group.members.length - 1 ? group.members.pop()! : group.members.splice(i, 1)[0];
    if (!group.members.length) this.removeGroup(group);
    this.activeCount--;
    return w;
  }
}
