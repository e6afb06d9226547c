/**
 * The plan's result from the simulator's state: per workload its outcome, admission or pending
 * state (messages in Kueue's wording, shortfalls with the numbers), per ClusterQueue and Cohort the
 * quotas and usage. Pending messages are built here, when read: most evaluations are replaced by a
 * later one before the end. Pure.
 */
import type { Finding } from '../findings';
import { formatQuantity } from '../quantity';
import { gangCanEverFit } from '../rules/cross-object';
import type { KubeRayCapabilities, KueueCapabilities } from '../versions';
import type { AfsLedger } from './afs';
import { baseOf, PlanEnd, WAITS_FOR_LISTED } from './timeline';
import type { Assignment, Brief, LazyPending, QuotaMiss, Reason } from './assignment';
import type { FlavorAssigner } from './flavor-assigner';
import { CohortNode, FlavorResource, NO_LIMIT, QuotaNode, rootOf } from './quota-tree';
import {
  PendingCategory, PLAN_SCHEMA_VERSION, PlanClusterQueue, PlanCohort, PlanCycle, PlanLocalQueue, PlanPending, PlanPodSetAssignment, PlanQuota,
  PlanTopologyAssignment,
  PlanResult, PlanShortfall, PlanWorkload,
} from './schema';
import type { ClusterQueue, Snapshot, TasPlacement, Workload } from './snapshot';

/** What the simulator leaves for the result. */
export interface SimulationState {
  readonly snapshot: Snapshot;
  readonly kueue: KueueCapabilities;
  readonly kubeRay: KubeRayCapabilities;
  /** For NoMatchingFlavor, which the admission rules cannot see (the inventory has no flavors). */
  readonly assigner: FlavorAssigner;
  readonly workloads: readonly Workload[];
  readonly trace: PlanCycle[];
  readonly ambiguities: ReadonlySet<string>;
  readonly notes: string[];
  /** Why and when the timeline stopped. */
  readonly ended: PlanEnd;
  readonly horizon: number;
  /** Admission fair sharing's ledger, when it is on. */
  readonly afs?: AfsLedger;
}

/** String.prototype.localeCompare's order (the same default collator), without building a collator per call. */
const byLocale = new Intl.Collator().compare;

/** Kueue's pending message of an assignment ("couldn't assign flavors to pod set ..."). */
export function assignmentMessage(snapshot: Snapshot, b: Brief): string {
  return b.podSets.map((p) => `couldn't assign flavors to pod set ${p.name}: ${p.reasons.map((r) => reasonText(snapshot, r)).join(', ')}`).join('; ');
}

/** The trace's summary of an admission: each PodSet's flavors, and whether it borrows. */
export function describeAssignment(a: Assignment): string {
  return a.podSets.map((p) => `${p.name}→${[...new Set(p.flavors.map((f) => f.flavor))].join('+') || '-'}`).join(', ')
    + (a.borrowing > 0 ? ' (borrowing)' : '');
}

function reasonText(snapshot: Snapshot, r: Reason): string {
  if (typeof r === 'string') return r;
  const { flavor, resource } = snapshot.flavorResourceNames[r.flavorResource];
  const f = (v: number) => snapshot.format(r.flavorResource, v);
  if (r.overMax) {
    return `insufficient quota for ${resource} in flavor ${flavor}, previously considered podsets requests (${f(r.assumed)}) `
      + `+ current podset request (${f(r.request)}) > maximum capacity (${f(r.maxCapacity)})`;
  }
  return `insufficient unused quota for ${resource} in flavor ${flavor}, ${f(r.assumed + r.request - r.available)} more needed`;
}

/** What a cohort's members use beyond their own quota (Kueue's borrowing: usage above nominal, or above a child cohort's pool). */
function borrowedFrom(c: CohortNode, id: FlavorResource): number {
  let sum = 0;
  for (const q of c.childQueues) sum += Math.max(0, q.usage[id] - q.nominal[id]);
  for (const k of c.childCohorts) sum += Math.max(0, k.usage[id] - k.subtree[id]);
  return sum;
}

export function renderPlan(state: SimulationState): PlanResult {
  return new PlanRenderer(state).render();
}

class PlanRenderer {
  private readonly snapshot: Snapshot;
  /** gangCanEverFit's errors by PodSet shapes and queue. */
  private readonly neverFitsByShape = new Map<string, Finding[]>();
  /** Formatted requests by their resources and values: most workloads repeat a few shapes. */
  private readonly formatted = new Map<string, Record<string, string>>();
  /** The refs of the admitted workloads of each cohort tree, in the order a pending one waits behind them. */
  private admittedByRoot?: Map<QuotaNode, string[]>;

  constructor(private readonly state: SimulationState) {
    this.snapshot = state.snapshot;
  }

  render(): PlanResult {
    const { state } = this;
    const workloads: PlanWorkload[] = state.workloads.filter((w) => w.state !== 'replaced').map((w) => this.workloadResult(w));
    const admitted = new Map<ClusterQueue, string[]>();
    const pending = new Map<ClusterQueue, string[]>();
    for (const w of state.workloads) {
      if (!w.clusterQueue) continue;
      const into = w.state === 'admitted' ? admitted : w.state === 'queued' || w.state === 'held' ? pending : undefined;
      if (!into) continue;
      const list = into.get(w.clusterQueue) ?? [];
      list.push(w.ref);
      into.set(w.clusterQueue, list);
    }
    const clusterQueues: PlanClusterQueue[] = [...this.snapshot.clusterQueues.values()].sort((a, b) => a.name.localeCompare(b.name)).map((c) => ({
      name: c.name, ...(c.cohortName ? { cohort: c.cohortName } : {}), queueingStrategy: c.strict ? 'StrictFIFO' : 'BestEffortFIFO',
      active: !c.inactiveReason,
      quotas: this.quotasOfNode(c, true), admitted: admitted.get(c) ?? [], pending: pending.get(c) ?? [],
    }));
    const cohorts: PlanCohort[] = [...this.snapshot.cohorts.values()].sort((a, b) => a.name.localeCompare(b.name)).map((c: CohortNode) => ({
      name: c.name, ...(c.parent ? { parent: c.parent.name } : {}), clusterQueues: c.childQueues.map((x) => x.name),
      quotas: this.quotasOfNode(c, false),
    }));
    return {
      schemaVersion: PLAN_SCHEMA_VERSION, kueueVersion: state.kueue.version, workloads, clusterQueues, cohorts, trace: state.trace,
      ...(state.afs ? { localQueues: this.localQueues(state.afs) } : {}),
      ambiguities: [...state.ambiguities], notes: state.notes,
      timeline: { ended: state.ended.reason, at: state.ended.at, horizon: state.horizon },
    };
  }

  /** The LocalQueues of the ClusterQueues that order by admission fair sharing, by name. */
  private localQueues(afs: AfsLedger): PlanLocalQueue[] {
    const out: PlanLocalQueue[] = [];
    for (const [name, lq] of [...this.snapshot.localQueues].sort(([a], [b]) => byLocale(a, b))) {
      const entry = afs.entry(name);
      if (!entry || !this.snapshot.clusterQueues.get(lq.clusterQueue)?.usageBasedAdmission) continue;
      out.push({ name, clusterQueue: lq.clusterQueue, weight: lq.weight, usage: afs.usage(name),
        consumed: Object.fromEntries([...entry.consumed].sort(([a], [b]) => byLocale(a, b))), lastUpdate: entry.lastUpdate });
    }
    return out;
  }

  /** A node's quotas: a ClusterQueue's own, or a cohort's subtree (what it pools). */
  private quotasOfNode(n: QuotaNode, own: boolean): PlanQuota[] {
    const names = this.snapshot.flavorResourceNames;
    const ids = own ? n.quotaFlavorResources : [...n.inSubtree.keys()].filter((id) => n.inSubtree[id]);
    const key = (id: FlavorResource) => names[id].key;
    return [...ids].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((id) => {
      const { flavor, resource } = names[id];
      const set = n.quotaFlavorResources.includes(id);
      const borrowingLimit = n.borrowingLimit[id], lendingLimit = n.lendingLimit[id];
      const f = (v: number) => this.snapshot.format(id, v);
      return {
        flavor, resource, nominal: f(own ? n.nominal[id] : n.subtree[id]),
        ...(set && borrowingLimit !== NO_LIMIT ? { borrowingLimit: f(borrowingLimit) } : {}),
        ...(set && lendingLimit !== NO_LIMIT ? { lendingLimit: f(lendingLimit) } : {}),
        usage: f(n.usage[id]),
        ...(own ? {} : { borrowed: f(borrowedFrom(n as CohortNode, id)) }),
      };
    });
  }

  private shortfallOf(m: QuotaMiss, cq: ClusterQueue): PlanShortfall {
    const { flavor, resource } = this.snapshot.flavorResourceNames[m.flavorResource];
    const f = (v: number) => this.snapshot.format(m.flavorResource, v);
    return {
      flavor, resource, needs: f(m.assumed + m.request), free: f(m.available), nominal: f(cq.nominal[m.flavorResource]),
      maximum: f(m.maxCapacity),
      ...(cq.parent ? { cohort: cq.parent.name } : {}),
      ...(m.limitReached ? { borrowingLimitReached: true } : {}),
    };
  }

  private pendingOf(b: Brief): PlanPending {
    const failing = b.podSets;
    const category: PendingCategory = b.mode === 'NoFit' && failing.some((p) => p.category === 'topology') ? 'topology'
      : failing.some((p) => p.category === 'max-capacity') && b.mode === 'NoFit'
      && !failing.some((p) => p.category === 'quota' && !p.assigned) ? 'max-capacity' : 'quota';
    // Later PodSets count the earlier ones' requests: the last shortfall of a flavor/resource is the gang's.
    const last = new Map<string, PlanShortfall>();
    for (const p of failing) {
      for (const r of p.reasons) {
        if (typeof r === 'string') continue;
        const s = this.shortfallOf(r, b.clusterQueue);
        last.set(`${s.flavor}/${s.resource}`, s);
      }
    }
    return { category, message: assignmentMessage(this.snapshot, b), shortfalls: [...last.values()] };
  }

  private pendingFrom(p: LazyPending): PlanPending {
    const base = this.pendingOf(p.brief);
    if (p.message !== undefined) return { category: p.category!, message: p.message, shortfalls: base.shortfalls };
    if (p.suffix !== undefined) return { category: p.category!, message: base.message + p.suffix, shortfalls: base.shortfalls };
    return base;
  }

  /**
   * gangCanEverFit's errors: they depend on the gang's PodSets and the queue only (not on the object's
   * name), so workloads of one shape in one queue share them.
   */
  private neverFits(w: Workload): Finding[] {
    let key = `${w.namespace}/${w.localQueue}\n`;
    for (const ps of w.podSets) {
      key += `${ps.name}:${ps.count}`;
      for (const [resource, v] of ps.total) key += `,${resource}=${v}`;
      key += '\n';
    }
    let never = this.neverFitsByShape.get(key);
    if (!never) {
      const { kueue, kubeRay } = this.state;
      never = gangCanEverFit.check(w.obj, { kueue, kubeRay, inventory: this.snapshot.inventory }).filter((f) => f.severity === 'error');
      this.neverFitsByShape.set(key, never);
    }
    return never;
  }

  private resources(map: Map<string, bigint>): Record<string, string> {
    let key = '';
    for (const [k, v] of map) key += `${k}=${v}\n`;
    let out = this.formatted.get(key);
    if (!out) {
      out = {};
      for (const [k, v] of [...map].sort(([a], [b]) => byLocale(a, b))) out[k] = formatQuantity(v, k);
      this.formatted.set(key, out);
    }
    // A copy: results are the caller's to change.
    return Object.assign({}, out);
  }

  private workloadResult(w: Workload): PlanWorkload {
    const total = new Map<string, bigint>();
    for (const ps of w.podSets) for (const [k, v] of ps.total) total.set(k, (total.get(k) ?? 0n) + v);
    // Fields assigned in the schema's order (object spreads are slow here, with 10,000s of workloads).
    const out: { -readonly [K in keyof PlanWorkload]: PlanWorkload[K] } = {
      workload: w.ref, kind: w.kind, namespace: w.namespace, name: w.name, arrival: w.arrival,
    } as PlanWorkload;
    if (w.localQueue) out.localQueue = w.localQueue;
    if (w.clusterQueueName) out.clusterQueue = w.clusterQueueName;
    out.priority = w.priority;
    if (w.priorityClass) out.priorityClass = w.priorityClass;
    out.requests = this.resources(total);
    if (w.preemptedBy.length) out.preemptedBy = w.preemptedBy;
    if (w.sliceOf) out.scaleUpOf = w.sliceOf.ref;
    this.timelineOf(w, out);
    if (w.state === 'not-queued') {
      out.outcome = 'not-queued';
      out.notQueued = w.notQueued;
      return out;
    }
    if (w.state === 'admitted' || w.state === 'finished') {
      const admission: PlanPodSetAssignment[] = w.podSets.map((ps, i) => {
        const placed = w.tas?.find((t) => t.podSet === ps.name);
        return {
          podSet: ps.name, count: ps.count, flavors: Object.fromEntries(w.flavors![i] ?? new Map()), requests: this.resources(ps.total),
          ...(placed ? { topology: topologyOf(placed) } : {}),
        };
      });
      out.outcome = w.victims?.length ? 'admitted-by-preempting' : 'admitted';
      out.admission = admission;
      if (w.victims?.length) out.preempted = w.victims;
      return out;
    }
    let pending = (w.pending && 'brief' in w.pending ? this.pendingFrom(w.pending as LazyPending) : w.pending)
      ?? { category: 'not-evaluated', message: 'not evaluated by Kueue yet', shortfalls: [] };
    if (!w.evaluated && w.clusterQueue?.strict && pending.category === 'not-evaluated') {
      pending = { category: 'strict-fifo-blocked', message: `behind the head of StrictFIFO ClusterQueue ${w.clusterQueueName}, which does not fit`,
        shortfalls: [] };
    }
    // The gangCanEverFit rule and NoMatchingFlavor, for what stays pending (they do not change Kueue's decisions).
    const never = this.neverFits(w).map((f) => f.message);
    const noMatchingFlavor = this.state.assigner.noMatchingFlavor(w);
    if (noMatchingFlavor) never.push(noMatchingFlavor);
    if (never.length) {
      out.outcome = 'never-admissible';
      out.neverAdmissible = never.join('; ');
    } else {
      out.outcome = 'pending';
    }
    out.pending = pending;
    out.reason = noMatchingFlavor ? 'NoMatchingFlavor' : never.length ? 'ExceedsMaxQuota' : KUEUE_REASON[pending.category];
    if (w.clusterQueue && w.state === 'queued') out.waitsFor = this.waitingBehind(w);
    return out;
  }

  /** The timeline fields; the admitted workloads of its cohort tree are filled in for one still pending. */
  private timelineOf(w: Workload, out: { -readonly [K in keyof PlanWorkload]: PlanWorkload[K] }): void {
    const base = baseOf(w);
    out.arrivesAt = w.arrivalTime;
    out.admittedAt = w.startedAt >= 0 ? w.startedAt : base.events.reduce((t: number | null, e) => (e.event === 'admitted' ? e.at : t), null);
    out.finishedAt = w.finishedAt >= 0 ? w.finishedAt : null;
    out.expectedDuration = w.duration ?? null;
    if (w.duration === undefined && w.durationBound !== undefined) out.atMost = w.durationBound;
    out.waitsFor = w.waitsFor.map((x) => x.ref);
    out.events = base.events.map((e) => ({ at: e.at, event: e.event }));
  }

  /** The admitted workloads of a pending workload's cohort tree: known finishes first, soonest first, then in admission order. */
  private waitingBehind(w: Workload): string[] {
    if (!this.admittedByRoot) {
      // Once per plan: a plan of 10,000 pending workloads asks 10,000 times.
      const finish = (x: Workload) => (x.duration !== undefined ? x.startedAt + x.duration : Infinity);
      const byRoot = new Map<QuotaNode, Workload[]>();
      for (const x of this.state.workloads) {
        if (x.state !== 'admitted' || !x.clusterQueue) continue;
        const root = rootOf(x.clusterQueue);
        const list = byRoot.get(root) ?? [];
        list.push(x);
        byRoot.set(root, list);
      }
      this.admittedByRoot = new Map([...byRoot].map(([root, list]) => [root,
        list.sort((a, b) => finish(a) - finish(b) || a.id - b.id).slice(0, WAITS_BEHIND_LISTED).map((x) => x.ref)]));
    }
    return [...(this.admittedByRoot.get(rootOf(w.clusterQueue!)) ?? [])];
  }
}

/** How many admitted workloads a pending one lists as waiting behind (those finishing first): a busy tree holds thousands. */
const WAITS_BEHIND_LISTED = WAITS_FOR_LISTED;

/** buildAssignment's TopologyAssignment: the hostname alone when it is the lowest level, else every level's value. */
function topologyOf(p: TasPlacement): PlanTopologyAssignment {
  const f = p.flavor;
  const from = f.isLowestLevelNode ? f.levelKeys.length - 1 : 0;
  return {
    flavor: f.name, levels: f.levelKeys.slice(from),
    domains: p.placement.map((l) => ({ values: f.leaves[l.leafIdx].levelValues.slice(from), count: l.count })),
  };
}

/** Kueue's QuotaReserved=False reasons (v0.19 workload_types.go) for the plan's pending categories. */
const KUEUE_REASON: Record<PendingCategory, string> = {
  'quota': 'WaitingForQuota', 'max-capacity': 'ExceedsMaxQuota', 'topology': 'TopologyPlacementFailed',
  'preemption-in-progress': 'WaitingForPreemptedWorkloads',
  'strict-fifo-blocked': 'WaitingForQuota', 'inactive': 'Suspended', 'misconfigured': 'Misconfigured', 'not-evaluated': 'PendingEvaluation',
};
