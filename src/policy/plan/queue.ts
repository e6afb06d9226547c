/**
 * A ClusterQueue's queue (Kueue's pkg/queue ClusterQueue): the active workloads, ordered by priority
 * then creation, and the parked (inadmissible) ones. Both are grouped by scheduling-equivalence hash,
 * because Kueue parks and requeues equivalent workloads together: a group moves at once, and the head
 * is found among the groups' oldest members, not among all workloads. With admission fair sharing
 * (queueOrderingFunc) the LocalQueue's usage comes first, above the sticky workload and priority: the
 * active groups are then per hash and LocalQueue, so a group's oldest member is still its head, while
 * parking stays by hash alone, as Kueue's bulk move does. Pure.
 */
import { compareUsage } from './afs';

/** What the queue reads from a workload. */
export interface Queued {
  readonly priority: number;
  /** Unique per workload, so the order is total. */
  readonly created: number;
  /** Equal hashes have equal priority (the hash covers it). */
  readonly hash: number;
  /** The LocalQueue's number, read with admission fair sharing. */
  readonly lqIndex?: number;
}

/** Room for LocalQueue numbers in an active group's key (hash and LocalQueue) with admission fair sharing. */
const LQ_SPACE = 1 << 20;

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

interface Group<T> { readonly key: number; readonly hash: number; members: T[] }

export class WorkloadQueue<T extends Queued> {
  /** Active groups by key (the hash; with admission fair sharing, hash and LocalQueue), and the same groups in a list that the head search scans. */
  private readonly active = new Map<number, Group<T>>();
  private readonly activeList: Array<Group<T>> = [];
  private readonly parked = new Map<number, T[]>();
  private activeCount = 0;

  /** `usageOf`: with admission fair sharing, a workload's LocalQueue usage (lower first). */
  constructor(private readonly usageOf?: (lqIndex: number) => number) {}

  private keyOf(w: T): number {
    return this.usageOf ? w.hash * LQ_SPACE + (w.lqIndex ?? 0) : w.hash;
  }

  /** Active workloads. */
  get size(): number {
    return this.activeCount;
  }

  /** Into the active queue. */
  push(w: T): void {
    const key = this.keyOf(w);
    const group = this.active.get(key);
    if (group) insertByCreation(group.members, w);
    else this.addGroup(key, w.hash, [w]);
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
    if (!this.usageOf) {
      const group = this.active.get(hash);
      if (group) this.parkGroup(group);
      return;
    }
    for (const group of this.activeList.filter((g) => g.hash === hash)) this.parkGroup(group);
  }

  private parkGroup(group: Group<T>): void {
    this.removeGroup(group);
    this.activeCount -= group.members.length;
    this.parked.set(group.hash, mergeByCreation(this.parked.get(group.hash) ?? [], group.members));
  }

  /** Parks every active workload. */
  parkAll(): void {
    for (const group of [...this.activeList]) this.parkGroup(group);
  }

  /** Every parked workload back into the active queue. */
  requeueParked(): void {
    for (const [hash, members] of this.parked) {
      if (!this.usageOf) this.requeueGroup(hash, hash, members);
      else {
        // Split by LocalQueue, each part still newest first.
        const byKey = new Map<number, T[]>();
        for (const w of members) {
          const key = this.keyOf(w);
          const part = byKey.get(key);
          if (part) part.push(w);
          else byKey.set(key, [w]);
        }
        for (const [key, part] of byKey) this.requeueGroup(key, hash, part);
      }
      this.activeCount += members.length;
    }
    this.parked.clear();
  }

  private requeueGroup(key: number, hash: number, members: T[]): void {
    const group = this.active.get(key);
    if (group) group.members = mergeByCreation(group.members, members);
    else this.addGroup(key, hash, members);
  }

  /** The head (`first` when it is active, else the best by priority and creation), taken out. */
  pop(first?: T): T | undefined {
    if (this.usageOf) return this.popByUsage(this.usageOf, first);
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

  /**
   * queueOrderingFunc with admission fair sharing: the lower LocalQueue usage first, then the sticky workload `first`,
   * then priority and creation. Each group's candidate is its oldest member, or `first` in its own group.
   */
  private popByUsage(usageOf: (lqIndex: number) => number, first?: T): T | undefined {
    const list = this.activeList;
    if (!list.length) return undefined;
    const firstGroup = first ? this.active.get(this.keyOf(first)) : undefined;
    const firstAt = firstGroup ? firstGroup.members.indexOf(first!) : -1;
    let best: Group<T> | undefined;
    let bestAt = 0, bestUsage = 0;
    for (const g of list) {
      const at = g === firstGroup && firstAt >= 0 ? firstAt : g.members.length - 1;
      const w = g.members[at];
      const usage = usageOf(w.lqIndex ?? 0);
      if (best) {
        const b = best.members[bestAt];
        const c = compareUsage(usage, bestUsage);
        if (c > 0 || (c === 0 && !(w === first || (b !== first && before(w, b))))) continue;
      }
      best = g;
      bestAt = at;
      bestUsage = usage;
    }
    return this.take(best!, bestAt);
  }

  private addGroup(key: number, hash: number, members: T[]): void {
    const group: Group<T> = { key, hash, members };
    this.active.set(key, group);
    this.activeList.push(group);
  }

  private removeGroup(group: Group<T>): void {
    this.active.delete(group.key);
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
