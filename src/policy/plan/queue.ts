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

/**
 * Workloads of one key, newest first; `slot` is its index in the list of non-empty groups (-1: empty). A group is kept
 * once made, empty or not: workloads park and come back all the time, and a Map that grows and shrinks with them
 * reallocates its table each time (garbage the scheduling loop would otherwise make on every cycle).
 */
interface Group<T> { readonly key: number; readonly hash: number; members: T[]; slot: number }

/** The non-empty groups of a map, in a list: added and removed in O(1). */
class GroupList<T> {
  readonly list: Array<Group<T>> = [];
  private readonly byKey = new Map<number, Group<T>>();

  /** The group of `key`, made (empty) the first time. */
  of(key: number, hash: number): Group<T> {
    let g = this.byKey.get(key);
    if (!g) this.byKey.set(key, g = { key, hash, members: [], slot: -1 });
    return g;
  }

  /** The non-empty group of `key`, if any. */
  get(key: number): Group<T> | undefined {
    const g = this.byKey.get(key);
    return g && g.slot >= 0 ? g : undefined;
  }

  /** Lists `g` (it just became non-empty). */
  add(g: Group<T>): void {
    if (g.slot >= 0) return;
    g.slot = this.list.length;
    this.list.push(g);
  }

  /** Unlists `g` (it is empty now). */
  unlist(g: Group<T>): void {
    const last = this.list.pop()!;
    if (last !== g) {
      this.list[g.slot] = last;
      last.slot = g.slot;
    }
    g.slot = -1;
  }
}

export class WorkloadQueue<T extends Queued> {
  /** Active groups by key (the hash; with admission fair sharing, hash and LocalQueue); the head search scans the listed ones. */
  private readonly active = new GroupList<T>();
  /** Parked groups by hash. */
  private readonly parked = new GroupList<T>();
  /** Hashes found inadmissible since the last requeue (the workloads that arrive with one are parked unevaluated): hash → epoch. */
  private readonly inadmissible = new Map<number, number>();
  private epoch = 0;
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
    const g = this.active.of(this.keyOf(w), w.hash);
    insertByCreation(g.members, w);
    this.active.add(g);
    this.activeCount++;
  }

  /** Into the parked ones. */
  park(w: T): void {
    const g = this.parked.of(w.hash, w.hash);
    insertByCreation(g.members, w);
    this.parked.add(g);
  }

  /** `hash` was found inadmissible: its workloads are parked with it, unevaluated, until the next requeue. */
  markInadmissible(hash: number): void {
    this.inadmissible.set(hash, this.epoch);
  }

  /** Whether `hash` was found inadmissible since the last requeue. */
  isInadmissible(hash: number): boolean {
    return this.inadmissible.get(hash) === this.epoch;
  }

  /** Parks every active workload with this hash. */
  parkHash(hash: number): void {
    if (!this.usageOf) {
      const group = this.active.get(hash);
      if (group) this.parkGroup(group);
      return;
    }
    for (const group of this.active.list.filter((g) => g.hash === hash)) this.parkGroup(group);
  }

  private parkGroup(group: Group<T>): void {
    this.activeCount -= group.members.length;
    const to = this.parked.of(group.hash, group.hash);
    moveInto(to, group);
    this.active.unlist(group);
    this.parked.add(to);
  }

  /** Parks every active workload. */
  parkAll(): void {
    for (const group of [...this.active.list]) this.parkGroup(group);
  }

  /** Every parked workload back into the active queue; the inadmissible hashes are forgotten. */
  requeueParked(): void {
    this.epoch++;
    for (const p of this.parked.list) {
      this.activeCount += p.members.length;
      if (!this.usageOf) {
        const g = this.active.of(p.hash, p.hash);
        moveInto(g, p);
        this.active.add(g);
      } else {
        // Split by LocalQueue, each part still newest first.
        const byKey = new Map<number, T[]>();
        for (const w of p.members) {
          const key = this.keyOf(w);
          const part = byKey.get(key);
          if (part) part.push(w);
          else byKey.set(key, [w]);
        }
        for (const [key, part] of byKey) {
          const g = this.active.of(key, p.hash);
          g.members = mergeByCreation(g.members, part);
          this.active.add(g);
        }
        p.members.length = 0;
      }
      p.slot = -1;
    }
    this.parked.list.length = 0;
  }

  /** The head (`first` when it is active, else the best by priority and creation), taken out. */
  pop(first?: T): T | undefined {
    if (this.usageOf) return this.popByUsage(this.usageOf, first);
    if (first) {
      const group = this.active.get(first.hash);
      const i = group ? group.members.indexOf(first) : -1;
      if (i >= 0) return this.take(group!, i);
    }
    const list = this.active.list;
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
    const list = this.active.list;
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

  private take(group: Group<T>, i: number): T {
    const w = i === group.members.length - 1 ? group.members.pop()! : group.members.splice(i, 1)[0];
    if (!group.members.length) this.active.unlist(group);
    this.activeCount--;
    return w;
  }
}

/** `from`'s workloads into `to` (both newest first), `from` left empty; no new array when `to` was empty. */
function moveInto<T extends Queued>(to: Group<T>, from: Group<T>): void {
  if (!to.members.length) {
    const empty = to.members;
    to.members = from.members;
    from.members = empty;
    return;
  }
  to.members = mergeByCreation(to.members, from.members);
  from.members.length = 0;
}
