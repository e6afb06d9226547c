/**
 * The plan's clock (issue 43): seconds after the plan's start, the arrivals in time order, the admitted
 * workloads by finish time, each workload's events, and what released quota at the current instant (what
 * a workload admitted then waited for). The scheduling loop (cycle.ts) moves it; it decides nothing. Pure.
 */
import { isRayKindName, RayObject } from '../kinds';
import { isRecord } from '../ray-object';
import { planArrivalOf } from '../rules/plan-annotations';
import { QuotaNode, rootOf } from './quota-tree';
import type { TimelineEvent, Workload } from './snapshot';

/** How many workloads a workload's `waitsFor` lists at most, admitted or pending. */
export const WAITS_FOR_LISTED = 10;

/** The plan's horizon when none is given: 7 days. */
export const DEFAULT_HORIZON_SECONDS = 7 * 24 * 3600;

/** The arrivals in time order (plan-arrival, else 0), ties in the order given; `i` is the input index. */
export function arrivalSchedule(arrivals: readonly RayObject[]): Array<{ readonly obj: RayObject; readonly i: number; readonly at: number }> {
  const order = arrivals.map((obj, i) => ({ obj, i, at: isRecord(obj) && isRayKindName(obj.kind) ? planArrivalOf(obj) ?? 0 : 0 }));
  if (order.some((o) => o.at > 0)) order.sort((a, b) => a.at - b.at || a.i - b.i);
  return order;
}

/** The first workload of an elastic object (its slices replace each other; the timeline is the object's). */
export function baseOf(w: Workload): Workload {
  let b = w;
  while (b.sliceOf) b = b.sliceOf;
  return b;
}

export class Clock {
  /** Seconds after the plan's start. */
  now = 0;
  /** Admitted workloads with a known duration, by the time they finish. */
  readonly finishes = new FinishQueue();
  /** What released quota in each cohort tree at `releasedAt` (finishes and preemptions). */
  private readonly releasedNow = new Map<QuotaNode, Workload[]>();
  private releasedAt = 0;

  event(w: Workload, event: TimelineEvent['event']): void {
    w.events.push({ at: this.now, event });
  }

  /** Quota `w` held went back now in its cohort tree: what is admitted there at this instant waited for it. */
  released(w: Workload): void {
    if (this.releasedAt !== this.now) {
      this.releasedNow.clear();
      this.releasedAt = this.now;
    }
    const root = rootOf(w.clusterQueue!);
    const list = this.releasedNow.get(root) ?? [];
    list.push(w);
    this.releasedNow.set(root, list);
  }

  /**
   * What a workload admitted now waited for: if it was there before this instant, what released quota in its
   * cohort tree at this instant (a finish, or a preemption), at most WAITS_FOR_LISTED; else nothing.
   */
  waitedFor(w: Workload): Workload[] {
    const waited = w.events.some((e) => e.at < this.now) && this.releasedAt === this.now;
    if (!waited) return [];
    // At most WAITS_FOR_LISTED, its own ClusterQueue's first: at scale thousands finish at one instant in a tree.
    const own: Workload[] = [];
    const others: Workload[] = [];
    for (const x of this.releasedNow.get(rootOf(w.clusterQueue!)) ?? []) {
      if (x.clusterQueue === w.clusterQueue) {
        own.push(x);
        if (own.length === WAITS_FOR_LISTED) break;
      } else if (others.length < WAITS_FOR_LISTED) others.push(x);
    }
    return [...own, ...others].slice(0, WAITS_FOR_LISTED);
  }
}

/** Why the plan's timeline stopped, and when. */
export interface PlanEnd {
  /** `settled`: nothing more happens (every arrival in, nothing admitted with a known duration left); `horizon`: cut there. */
  readonly reason: 'settled' | 'horizon';
  readonly at: number;
}

/**
 * Admitted workloads by finish time (a binary heap of [time, workload id]). An entry is stale when the workload
 * is no longer admitted, or admitted again since (it finishes at another time): it is skipped when it comes up.
 */
class FinishQueue {
  private readonly heap: Array<[number, number]> = [];

  push(at: number, w: Workload): void {
    const h = this.heap;
    h.push([at, w.id]);
    for (let i = h.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  /** The time of the next live finish, or Infinity. */
  nextAt(workloads: readonly Workload[]): number {
    this.dropStale(workloads);
    return this.heap.length ? this.heap[0][0] : Infinity;
  }

  /** The next live workload finishing at or before `now`, removed, or undefined. */
  popDue(now: number, workloads: readonly Workload[]): Workload | undefined {
    this.dropStale(workloads);
    if (!this.heap.length || this.heap[0][0] > now) return undefined;
    return workloads[this.pop()[1]];
  }

  private dropStale(workloads: readonly Workload[]): void {
    while (this.heap.length) {
      const [at, id] = this.heap[0];
      const w = workloads[id];
      if (w.state === 'admitted' && w.duration !== undefined && w.startedAt + w.duration === at) return;
      this.pop();
    }
  }

  private pop(): [number, number] {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}

/** Earlier first; at one time, in admission order (the lower id). */
function less(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}
