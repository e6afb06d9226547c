/**
 * The plan simulator: replays Kueue's scheduler (classical mode, no fair sharing, no TAS) over Kueue
 * objects and Ray workloads that arrive in order, and says for each workload what Kueue will do and why.
 *
 * Model (Kueue v0.19.2 pkg/scheduler, pkg/cache, pkg/queue): after each arrival, scheduling cycles run
 * until nothing changes. A cycle pops the head of every active ClusterQueue (priority, then creation),
 * assigns flavors on one snapshot (flavor fungibility, borrowing levels, preemption oracle), orders the
 * entries (no borrowing first, then priority, then FIFO) and processes them: admit, issue preemptions
 * (classical candidate ordering, remove-then-fill-back minimal set), or requeue (BestEffortFIFO parks
 * the workload until quota is released in its cohort tree; StrictFIFO keeps it at the head). Evicted
 * victims release their quota at the end of the cycle (without the KubeRay operator a suspended Ray
 * object is inactive at once) and are requeued. Pure and deterministic: no I/O, no clock.
 */
import { Inventory } from '../context';
import { Finding } from '../findings';
import { computeGang, RayObject } from '../gang';
import { inventoryFromObjects } from '../inventory-objects';
import { formatQuantity, parseQuantity, ResourceMap } from '../quantity';
import { isElastic, isRecord, namespaceOf, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL } from '../ray-object';
import { gangCanEverFit, selectorMatches } from '../rules/cross-object';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, KubeRayCapabilities, kubeRayCapabilities, kueueCapabilities, KueueCapabilities } from '../versions';
import {
  PendingCategory, PLAN_SCHEMA_VERSION, PlanCandidate, PlanClusterQueue, PlanCohort, PlanCycle, PlanPending, PlanPodSetAssignment,
  PlanQuota, PlanResult, PlanShortfall, PlanVictim, PlanWorkload,
} from './schema';
import {
  addUsage, addUsageMap, available, buildSubtree, borrowingWith, CohortNode, FlavorResource, heightOfLowestSubtreeThatFits, initSubtree,
  localAvailable, NO_LIMIT, potentialAvailable, QuotaNode, quotaArrays, removeUsage, rootOf, setQuota, subtreeHeight, subtreeMayReclaim,
  withinNominal,
} from './quota-tree';
import { WorkloadQueue } from './queue';

export interface PlanInput {
  /** ClusterQueues, Cohorts, ResourceFlavors, LocalQueues, WorkloadPriorityClasses (and Namespaces, for selectors). Other kinds are ignored. */
  readonly kueueObjects: readonly any[];
  /**
   * Ray objects (RayJob, RayCluster, RayService) in arrival order. An elastic object that arrives
   * again with other worker replicas is a scale (up: a new Workload slice; down: in place).
   */
  readonly arrivals: readonly RayObject[];
  /** @default DEFAULT_KUEUE_VERSION (v0.19.2) */
  readonly kueueVersion?: string;
  /** The KubeRay version, for the never-admissible check (gangCanEverFit). @default DEFAULT_KUBERAY_VERSION (v1.6.2) */
  readonly kubeRayVersion?: string;
  /** Keep the per-cycle trace. @default true */
  readonly trace?: boolean;
}

type Mode = 'NoFit' | 'Preempt' | 'Fit';
/** Kueue's granular preemption modes, worst first. */
const NO_FIT = 0, NO_CANDIDATES = 1, PREEMPT = 2, RECLAIM = 3, FIT = 4;
/**
 * A granular mode and its borrowing level in one number (`p * LEVELS + borrow`): computed for every
 * flavor/resource of every evaluation, so no object. Read with `gMode` and `gBorrow`.
 */
type Granular = number;
const LEVELS = 1 << 16;
const granular = (p: number, borrow: number): Granular => p * LEVELS + Math.min(borrow, LEVELS - 1);
const gMode = (g: Granular): number => Math.floor(g / LEVELS);
const gBorrow = (g: Granular): number => g % LEVELS;

interface Preemption {
  readonly within: string;
  readonly reclaim: string;
  readonly borrowPolicy: string;
  readonly threshold?: number;
}

interface ResourceGroup {
  readonly covered: readonly string[];
  readonly flavors: readonly string[];
  /** The flavor/resource of each flavor (first index) and covered resource (second index). */
  readonly frs: ReadonlyArray<readonly FlavorResource[]>;
}

interface CQ extends QuotaNode {
  readonly groups: ResourceGroup[];
  readonly byResource: Map<string, ResourceGroup>;
  readonly strict: boolean;
  readonly preemption: Preemption;
  readonly tryNextOnBorrow: boolean;
  readonly tryNextOnPreempt: boolean;
  readonly preference?: string;
  readonly namespaceSelector: any;
  readonly cohortName?: string;
  inactiveReason?: string;
  /** Active and parked (inadmissible) workloads. */
  readonly queue: WorkloadQueue<Wl>;
  /** BestEffortFIFO: the workload that issued preemptions stays at the head until admitted (Kueue#6929). */
  sticky?: Wl;
  /** Scheduling-equivalence hashes parked as inadmissible (Kueue >= 0.18, BestEffortFIFO). */
  readonly parkedHashes: Set<number>;
  readonly admitted: Set<Wl>;
  /** The same workloads by priority: a search lists only the priorities its policy allows. */
  readonly admittedByPriority: Map<number, Wl[]>;
  /** Usage of the `admitted` set by priority: bounds a preemption search before its candidates are listed. */
  readonly admittedUsage: Array<{ readonly priority: number; readonly sums: Float64Array }>;
  /** The largest usage of one workload ever admitted here, per flavor/resource (a bound, never lowered). */
  readonly largestUsage: Float64Array;
  /** Shared by the ClusterQueues of one cohort tree. */
  memo: SearchMemo;
  /** requestsOf by the requests' resources and values. */
  readonly requestsByShape: Map<string, PodSetRequests>;
}

/**
 * A cohort tree's (or a lone ClusterQueue's) memo of preemption searches. `version` is bumped by every
 * lasting change to the tree's usage, admitted sets or eviction marks; a search reads nothing outside its
 * tree, so its result is a function of its inputs and this version: equal searches in one version are
 * answered from `searches`, and a change in another tree keeps them.
 */
interface SearchMemo {
  version: number;
  memoVersion: number;
  readonly searches: Map<string, { targets: Target[]; refs: string[] }>;
  /** Candidate lists by ClusterQueue, preemptor priority, resources and reclaim advantage. */
  readonly candidateLists: Map<string, CandidateLists>;
}

interface PodSet {
  readonly name: string;
  readonly count: number;
  readonly total: ResourceMap;
  /** flavorMismatch by flavor name ('' when the flavor matches): the template and the flavors never change. */
  mismatches?: Map<string, string>;
  /** requestsOf, for the ClusterQueue it was computed for. */
  requests?: PodSetRequests;
}
/** A PodSet's request of one resource in the simulator's unit; `ci` is its index in the group's covered resources. */
interface ResourceRequest { readonly res: string; readonly val: number; readonly ci: number }
/** One resource of a PodSet in assignment order, with its group (none: not covered) and the group's requests. */
interface AssignStep { readonly res: string; readonly val: number; readonly rg?: ResourceGroup; readonly sub: readonly ResourceRequest[] }
interface PodSetRequests {
  readonly cq: CQ;
  readonly steps: readonly AssignStep[];
}

interface Wl {
  readonly id: number;
  readonly ref: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly arrival: number;
  /** Queue order timestamp (the arrival step: one second apart in the agreement suite). */
  readonly created: number;
  readonly lq?: string;
  readonly cq?: CQ;
  readonly cqName?: string;
  readonly priority: number;
  readonly priorityClass?: string;
  podSets: PodSet[];
  readonly obj: RayObject;
  state: 'queued' | 'admitted' | 'not-queued' | 'held' | 'replaced';
  /** Per PodSet: resource → flavor, once admitted. */
  flavors?: Array<Map<string, string>>;
  usage: Map<FlavorResource, number>;
  /** The flavor/resources of `usage` as bits, while admitted (when there are at most 31). */
  usageMask: number;
  admittedAt: number;
  evicted: boolean;
  victims?: PlanVictim[];
  preemptedBy: string[];
  /** Built when read (`pendingFrom`): most evaluations are replaced by a later one before the result. */
  pending?: PlanPending | LazyPending;
  notQueued?: string;
  sliceOf?: Wl;
  evaluated: boolean;
  /** Kueue's scheduling equivalence hash (priority and PodSet shapes), interned. */
  hash: number;
}

type WorkloadInit = Pick<Wl, 'id' | 'ref' | 'kind' | 'namespace' | 'name' | 'arrival' | 'created' | 'obj' | 'podSets' | 'state'>
  & Partial<Pick<Wl, 'lq' | 'cq' | 'cqName' | 'priority' | 'priorityClass' | 'notQueued' | 'sliceOf' | 'pending'>>;

/** Every workload with all its fields, in one order: one object shape for the hot loops that read them. */
function newWorkload(i: WorkloadInit): Wl {
  return {
    id: i.id, ref: i.ref, kind: i.kind, namespace: i.namespace, name: i.name, arrival: i.arrival, created: i.created,
    lq: i.lq, cq: i.cq, cqName: i.cqName, priority: i.priority ?? 0, priorityClass: i.priorityClass, podSets: i.podSets, obj: i.obj,
    state: i.state, flavors: undefined, usage: new Map(), usageMask: 0, admittedAt: -1, evicted: false, victims: undefined, preemptedBy: [],
    pending: i.pending, notQueued: i.notQueued, sliceOf: i.sliceOf, evaluated: false, hash: 0,
  };
}

/** A resource's flavor in a PodSet: `val` is the PodSet's request of it (in the simulator's unit). */
interface FlavorAssignment {
  readonly res: string;
  readonly flavor: string;
  readonly fr: FlavorResource;
  readonly mode: Mode;
  readonly borrow: number;
  readonly val: number;
  /** Preempt mode without candidates because the preemption bound failed (see `nominate`). */
  readonly hopeless: boolean;
}
/** A flavor/resource short of quota, with the figures fitsResourceQuota saw: formatted only when read. */
interface QuotaMiss {
  readonly fr: FlavorResource;
  /** Over the maximum capacity (else: over the unused quota). */
  readonly overMax: boolean;
  readonly assumed: number;
  readonly request: number;
  readonly avail: number;
  readonly maxCap: number;
  readonly limitReached: boolean;
}
/** Why a flavor does not fit: a message, or a quota shortfall (which is also reported as such). */
type Reason = string | QuotaMiss;
interface PodSetAssignment {
  readonly name: string;
  readonly count: number;
  /** One per assigned resource (a few: an array, not a map). */
  flavors: FlavorAssignment[];
  reasons: Reason[];
  category?: PendingCategory;
  error: boolean;
}

interface BriefPodSet { readonly name: string; readonly reasons: readonly Reason[]; readonly category?: PendingCategory; readonly assigned: boolean }
/** What a pending message needs of an assignment: kept per workload until read, so only the failing PodSets. */
interface Brief {
  readonly mode: Mode;
  readonly cq: CQ;
  readonly podSets: readonly BriefPodSet[];
}
/** A pending state built when read: the assignment's, or another message with its shortfalls. */
interface LazyPending {
  readonly brief: Brief;
  readonly category?: PendingCategory;
  readonly message?: string;
  /** Appended to the assignment's message. */
  readonly suffix?: string;
}

interface Assignment {
  readonly podSets: PodSetAssignment[];
  readonly usage: Map<FlavorResource, number>;
  borrowing: number;
  mode: Mode;
}

type Variant = 'WithinCQ' | 'HierarchicalReclaim' | 'ReclaimWithoutBorrowing' | 'ReclaimWhileBorrowing';
/** A ClusterQueue's admitted workloads of one priority, already in candidate order, as one search lists them. */
interface Run {
  readonly priority: number;
  readonly admitted: readonly Wl[];
  readonly lca?: CohortNode;
  readonly variant: Variant;
  /** Equal priority under LowerOrNewerEqualPriority: only newer workloads are candidates. */
  readonly byCreation: boolean;
}
/** Candidates as two parallel arrays (no object per candidate): the workload, and the run it came from. */
interface Cands { readonly wls: Wl[]; readonly runs: Run[] }
/** A search's candidates (before the request decides anything but the reclaim advantage); `ordered` once sorted. */
interface CandidateLists {
  readonly same: Cands;
  readonly hier: Cands;
  readonly prio: Cands;
  ordered?: Cands;
}
interface Target { readonly wl: Wl; readonly reason: string; readonly why: string }
/** A head of a queue in a cycle, with its flavor assignment and preemption targets. */
/** A head of a queue in a cycle; `considered` (the preemption candidates looked at) only with the trace. */
interface Entry { readonly w: Wl; readonly assignment: Assignment; readonly targets: Target[]; readonly considered?: string[] }
/** Usage held for the rest of a cycle only (a preempting workload's reservation). */
interface Temporary { readonly cq: CQ; readonly usage: Map<FlavorResource, number> }

const DEFAULT_NS_LABEL = 'kubernetes.io/metadata.name';
/** String.prototype.localeCompare's order (the same default collator), without building a collator per call. */
const byLocale = new Intl.Collator().compare;
const RAY_KINDS = ['RayJob', 'RayCluster', 'RayService'];

function q(v: unknown): bigint | undefined {
  if (v === undefined || v === null) return undefined;
  return parseQuantity(v as string);
}

/** The simulator. One instance plans one input. */
export class PlanSimulator {
  private readonly caps: KueueCapabilities;
  private readonly kubeRay: KubeRayCapabilities;
  private readonly cqs = new Map<string, CQ>();
  /** The same ClusterQueues in a list, for the loops of every cycle. */
  private readonly cqList: CQ[];
  private readonly cohorts = new Map<string, CohortNode>();
  private readonly flavors = new Map<string, any>();
  private readonly localQueues = new Map<string, { cq: string; held: boolean }>();
  private readonly priorities = new Map<string, number>();
  private readonly namespaces = new Map<string, Record<string, string>>();
  private readonly workloads: Wl[] = [];
  private readonly byObject = new Map<string, Wl>();
  private readonly generated = new Map<string, number>();
  private readonly inventory: Inventory;
  private readonly trace: PlanCycle[] = [];
  private readonly ambiguities = new Set<string>();
  private readonly notes: string[] = [];
  private readonly keepTrace: boolean;
  private cycle = 0;
  private step = 0;
  /** XOR of the admitted workloads' random keys: detects a preemption loop (the same admitted set again and again). */
  private admittedKey = 0;
  private readonly hashIds = new Map<string, number>();
  private readonly neverFitsByShape = new Map<string, Finding[]>();
  /** Formatted requests by their resources and values: most workloads repeat a few shapes. */
  private readonly formatted = new Map<string, Record<string, string>>();
  // Scratch space of the preemption bound (reused, never kept).
  /** Whether the last oracle call ended at its bound. */
  private boundFailed = false;
  private readonly oneFr: FlavorResource[] = [0];
  private readonly oneVal: number[] = [0];
  private readonly scratchFrom: CQ[] = [];
  private readonly scratchFromAdvantage: boolean[] = [];
  private readonly scratchFromLca: CohortNode[] = [];
  private readonly scratchAdvantages: boolean[] = [];
  private readonly scratchRemaining: number[] = [];
  private readonly undoNodes: QuotaNode[] = [];
  private readonly undoFrs: FlavorResource[] = [];
  private readonly undoVals: number[] = [];
  /** The flavor/resource table: a pair's index is its FlavorResource. */
  private readonly frNames: Array<{ readonly flavor: string; readonly resource: string; readonly key: string }> = [];
  private readonly frIds = new Map<string, FlavorResource>();
  /** Milli-units per simulator unit, by resource: the greatest common divisor of its quantities. */
  private readonly units = new Map<string, bigint>();
  /** The gang of each Ray arrival, by arrival index. */
  private readonly gangs: Array<ReturnType<typeof computeGang> | undefined> = [];

  constructor(private readonly input: PlanInput) {
    this.caps = kueueCapabilities(input.kueueVersion ?? DEFAULT_KUEUE_VERSION);
    this.kubeRay = kubeRayCapabilities(input.kubeRayVersion ?? DEFAULT_KUBERAY_VERSION);
    this.keepTrace = input.trace ?? true;
    const objs = input.kueueObjects.filter(isRecord);
    const of = (kind: string) => objs.filter((o) => o.kind === kind);
    for (const f of of('ResourceFlavor')) this.flavors.set(f.metadata?.name, f);
    for (const p of of('WorkloadPriorityClass')) this.priorities.set(p.metadata?.name, Number(p.value ?? 0));
    for (const n of of('Namespace')) this.namespaces.set(n.metadata?.name, { ...(n.metadata?.labels ?? {}), [DEFAULT_NS_LABEL]: n.metadata?.name });
    for (const l of of('LocalQueue')) {
      const held = l.spec?.stopPolicy === 'Hold' || l.spec?.stopPolicy === 'HoldAndDrain';
      this.localQueues.set(`${l.metadata?.namespace ?? 'default'}/${l.metadata?.name}`, { cq: l.spec?.clusterQueue, held });
    }
    this.numberQuantities(of('Cohort'), of('ClusterQueue'));
    for (const c of of('Cohort')) this.cohortNode(c.metadata?.name, c);
    for (const c of of('Cohort')) {
      const parent = c.spec?.parentName ?? c.spec?.parent;
      if (parent) this.link(this.cohortNode(c.metadata?.name), this.cohortNode(parent));
    }
    for (const c of of('ClusterQueue')) this.addClusterQueue(c);
    for (const root of this.cohorts.values()) if (!root.parent) buildSubtree(root);
    for (const c of this.cqs.values()) if (!c.parent) initSubtree(c);
    this.cqList = [...this.cqs.values()];
    const memos = new Map<QuotaNode, SearchMemo>();
    for (const c of this.cqs.values()) {
      const root = rootOf(c);
      let memo = memos.get(root);
      if (!memo) memos.set(root, memo = newMemo());
      c.memo = memo;
    }
    this.inventory = inventoryFromObjects({
      clusterQueues: of('ClusterQueue'), cohorts: of('Cohort'), localQueues: of('LocalQueue'), priorityClasses: of('WorkloadPriorityClass'), namespaces: of('Namespace'),
    });
  }

  /**
   * Numbers the flavor/resources of the quotas and picks each resource's unit: the greatest common
   * divisor of its quotas and requests. Doubles then hold every value and sum exactly, which the check
   * below makes sure of.
   */
  private numberQuantities(cohorts: any[], clusterQueues: any[]): void {
    const values = new Map<string, bigint[]>();
    const see = (res: string, v: bigint | undefined) => {
      if (v === undefined) return;
      let list = values.get(res);
      if (!list) values.set(res, list = []);
      list.push(v);
    };
    for (const o of [...cohorts, ...clusterQueues]) {
      for (const r of rawQuotasOf(o.spec?.resourceGroups)) {
        this.frOf(r.flavor, r.resource);
        see(r.resource, r.nominal);
        see(r.resource, r.borrowingLimit);
        see(r.resource, r.lendingLimit);
      }
      for (const g of Array.isArray(o.spec?.resourceGroups) ? o.spec.resourceGroups : []) {
        for (const f of g?.flavors ?? []) for (const res of g?.coveredResources ?? []) this.frOf(f?.name, res);
      }
    }
    this.input.arrivals.forEach((obj, i) => {
      if (!isRecord(obj) || !RAY_KINDS.includes(obj.kind as string)) return;
      const gang = computeGang(obj, this.caps);
      this.gangs[i] = gang;
      for (const ps of gang.podSets) {
        for (const [res, v] of ps.total) see(res, v);
        see('pods', BigInt(ps.count) * 1000n);
      }
    });
    for (const [res, list] of values) {
      // The greatest common divisor: every value is a whole number of units, and small (memory in Gi
      // steps stays a small integer, which V8 keeps unboxed).
      let unit = 0n;
      for (const v of list) unit = gcd(unit, v < 0n ? -v : v);
      if (unit === 0n) unit = 1n;
      this.units.set(res, unit);
      let sum = 0n;
      for (const v of list) sum += (v < 0n ? -v : v) / unit;
      if (sum > BigInt(Number.MAX_SAFE_INTEGER)) {
        throw new Error(`plan: the ${res} quotas and requests add up to ${sum} units of ${formatQuantity(unit, res)}, more than the simulator `
          + 'holds exactly (2^53); plan fewer or smaller objects');
      }
    }
  }

  /** The index of (flavor, resource), numbered on first sight. */
  private frOf(flavor: string, resource: string): FlavorResource {
    const key = `${flavor}/${resource}`;
    let fr = this.frIds.get(key);
    if (fr === undefined) {
      fr = this.frNames.length;
      this.frIds.set(key, fr);
      this.frNames.push({ flavor, resource, key });
    }
    return fr;
  }

  /** A quantity (milli-units) in the simulator's unit for its resource. */
  private toUnits(resource: string, milli: bigint): number {
    return Number(milli / (this.units.get(resource) ?? 1n));
  }

  private fmt(fr: FlavorResource, v: number): string {
    const { resource } = this.frNames[fr];
    return formatQuantity(BigInt(v) * (this.units.get(resource) ?? 1n), resource);
  }

  /** What PodSets with these flavors use (an admitted workload after a scale). */
  private usageOf(podSets: PodSet[], flavors: Array<Map<string, string>>): Map<FlavorResource, number> {
    const out = new Map<FlavorResource, number>();
    podSets.forEach((ps, i) => {
      for (const [res, v] of ps.total) {
        const f = flavors[i]?.get(res);
        if (!f) continue;
        const fr = this.frOf(f, res);
        out.set(fr, (out.get(fr) ?? 0) + this.toUnits(res, v));
      }
    });
    return out;
  }

  private setQuotas(n: QuotaNode, groups: unknown): void {
    for (const r of rawQuotasOf(groups)) {
      const units = (v: bigint | undefined) => (v === undefined ? undefined : this.toUnits(r.resource, v));
      setQuota(n, this.frOf(r.flavor, r.resource), {
        nominal: units(r.nominal)!, borrowingLimit: units(r.borrowingLimit), lendingLimit: units(r.lendingLimit),
      });
    }
  }

  private cohortNode(name: string, obj?: any): CohortNode {
    let c = this.cohorts.get(name);
    if (!c) {
      // Every field set here, parent too: one object shape per node kind for the quota functions.
      c = { name, isCohort: true, parent: undefined, ...quotaArrays(this.frNames.length), childCohorts: [], childQueues: [] };
      this.cohorts.set(name, c);
    }
    if (obj) this.setQuotas(c, obj.spec?.resourceGroups);
    return c;
  }

  private link(child: CohortNode, parent: CohortNode): void {
    // A cycle leaves the cohorts unlinked (Kueue ignores cohort trees with cycles).
    for (let p: CohortNode | undefined = parent; p; p = p.parent) {
      if (p === child) {
        this.notes.push(`Cohort ${child.name}: parent ${parent.name} makes a cycle; the link is ignored, as Kueue ignores such trees`);
        return;
      }
    }
    child.parent = parent;
    parent.childCohorts.push(child);
  }

  private addClusterQueue(c: any): void {
    const s = c.spec ?? {};
    const groups: ResourceGroup[] = (Array.isArray(s.resourceGroups) ? s.resourceGroups : []).map((g: any) => {
      const covered: string[] = [...(g.coveredResources ?? [])];
      const flavors: string[] = (g.flavors ?? []).map((f: any) => f.name);
      return { covered, flavors, frs: flavors.map((f) => covered.map((res) => this.frOf(f, res))) };
    });
    const byResource = new Map<string, ResourceGroup>();
    for (const g of groups) for (const r of g.covered) byResource.set(r, g);
    const ff = s.flavorFungibility ?? {};
    const p = s.preemption ?? {};
    const cohortName = s.cohortName ?? s.cohort;
    const cq: CQ = {
      // Every field set here, the optional ones too: one object shape for all ClusterQueues.
      name: c.metadata?.name, isCohort: false, parent: undefined, inactiveReason: undefined, sticky: undefined, ...quotaArrays(this.frNames.length),
      groups, byResource, strict: s.queueingStrategy === 'StrictFIFO',
      preemption: {
        within: p.withinClusterQueue ?? 'Never', reclaim: p.reclaimWithinCohort ?? 'Never',
        borrowPolicy: p.borrowWithinCohort?.policy ?? 'Never', threshold: p.borrowWithinCohort?.maxPriorityThreshold,
      },
      tryNextOnBorrow: ff.whenCanBorrow === 'TryNextFlavor',
      tryNextOnPreempt: (ff.whenCanPreempt ?? 'TryNextFlavor') === 'TryNextFlavor',
      preference: ff.preference,
      namespaceSelector: s.namespaceSelector ?? null, cohortName,
      queue: new WorkloadQueue<Wl>(), parkedHashes: new Set(),
      admitted: new Set(), admittedByPriority: new Map(), admittedUsage: [],
      largestUsage: new Float64Array(this.frNames.length), memo: newMemo(), requestsByShape: new Map(),
    };
    this.setQuotas(cq, s.resourceGroups);
    if (s.stopPolicy === 'Hold' || s.stopPolicy === 'HoldAndDrain') cq.inactiveReason = `ClusterQueue ${cq.name} is inactive: stopPolicy ${s.stopPolicy}`;
    const missing = groups.flatMap((g) => g.flavors).filter((f) => !this.flavors.has(f));
    if (missing.length) cq.inactiveReason = `ClusterQueue ${cq.name} is inactive: flavor ${missing.join(', ')} not found`;
    this.cqs.set(cq.name, cq);
    if (cohortName) {
      const parent = this.cohortNode(cohortName);
      cq.parent = parent;
      parent.childQueues.push(cq);
    }
  }

  /** Runs the whole plan. */
  run(): PlanResult {
    this.input.arrivals.forEach((obj, i) => {
      this.step = i;
      this.arrive(obj, i);
      this.settle(i);
    });
    return this.result();
  }

  // ---- arrivals ----

  private nameOf(obj: RayObject): string {
    if (typeof obj.metadata?.name === 'string') return obj.metadata.name;
    const gen = obj.metadata?.generateName ?? `${String(obj.kind ?? 'object').toLowerCase()}-`;
    const n = (this.generated.get(gen) ?? 0) + 1;
    this.generated.set(gen, n);
    return `${gen}(${n})`;
  }

  private arrive(obj: RayObject, arrival: number): void {
    if (!isRecord(obj) || !RAY_KINDS.includes(obj.kind as string)) {
      this.notes.push(`arrival ${arrival}: ${isRecord(obj) ? obj.kind : typeof obj} is not a Ray object (RayJob, RayCluster, RayService); ignored`);
      return;
    }
    const namespace = namespaceOf(obj);
    const name = this.nameOf(obj);
    const key = `${obj.kind}/${namespace}/${name}`;
    const prev = this.byObject.get(key);
    if (prev && prev.state !== 'replaced') {
      this.rearrive(prev, obj, arrival);
      return;
    }
    const ref = `${obj.kind} ${namespace}/${name}`;
    const lqName = obj.metadata?.labels?.[QUEUE_NAME_LABEL];
    const id = this.workloads.length, kind = obj.kind as string;
    const gang = this.gangs[arrival]!;
    const podSets = gang.podSets.map((p): PodSet => ({ name: p.name, count: p.count, total: p.total, mismatches: undefined, requests: undefined }));
    if (!lqName || (obj.kind === 'RayJob' && obj.spec?.clusterSelector && !obj.spec?.rayClusterSpec)) {
      const w = newWorkload({
        id, ref, kind, namespace, name, arrival, created: arrival, obj, podSets, state: 'not-queued',
        notQueued: lqName ? 'a RayJob with clusterSelector runs on an existing cluster: Kueue skips it' : `no ${QUEUE_NAME_LABEL} label: Kueue does not manage it`,
      });
      this.add(key, w);
      return;
    }
    const pcName = obj.metadata?.labels?.[PRIORITY_CLASS_LABEL];
    const lq = this.localQueues.get(`${namespace}/${lqName}`);
    const cq = lq ? this.cqs.get(lq.cq) : undefined;
    const w = newWorkload({
      id, ref, kind, namespace, name, arrival, created: arrival, obj,
      lq: lqName, cq, cqName: lq?.cq, priority: pcName ? this.priorities.get(pcName) ?? 0 : 0, priorityClass: pcName, podSets, state: 'queued',
    });
    w.hash = this.hashOf(w);
    this.add(key, w);
    const misconfigured = (message: string, category: PendingCategory = 'misconfigured') => {
      w.state = 'held';
      w.pending = { category, message, shortfalls: [] };
    };
    if (pcName && !this.priorities.has(pcName)) return misconfigured(`WorkloadPriorityClass ${pcName} not found: Kueue creates no Workload and the object stays suspended`);
    if (!lq) return misconfigured(`LocalQueue ${namespace}/${lqName} doesn't exist`);
    if (!cq) return misconfigured(`ClusterQueue ${lq.cq} doesn't exist`);
    if (lq.held) return misconfigured(`LocalQueue ${namespace}/${lqName} is stopped (stopPolicy)`, 'inactive');
    const labels = this.namespaces.get(namespace) ?? { [DEFAULT_NS_LABEL]: namespace };
    if (!selectorMatches(cq.namespaceSelector, labels)) return misconfigured(`the workload's namespace ${namespace} doesn't match the ClusterQueue ${cq.name} namespaceSelector`);
    if (cq.inactiveReason) {
      w.pending = { category: 'inactive', message: cq.inactiveReason, shortfalls: [] };
    } else {
      w.pending = { category: 'not-evaluated', message: 'not evaluated by Kueue yet', shortfalls: [] };
    }
    this.push(w);
  }

  /**
   * PushOrUpdate: into the queue, or (Kueue >= 0.18, BestEffortFIFO) straight to the parked ones when an
   * equivalent workload (same priority and PodSet shapes) was found inadmissible: it is not evaluated.
   */
  private push(w: Wl): void {
    const cq = w.cq!;
    if (this.caps.schedulingEquivalenceHashing && !cq.strict && cq.parkedHashes.has(w.hash)) cq.queue.park(w);
    else cq.queue.push(w);
  }

  private hashOf(w: Wl): number {
    const h = schedulingHash(w);
    let id = this.hashIds.get(h);
    if (id === undefined) this.hashIds.set(h, id = this.hashIds.size + 1);
    return id;
  }

  private add(key: string, w: Wl): void {
    this.workloads.push(w);
    this.byObject.set(key, w);
  }

  /** The same object again: an elastic scale (a new slice when it grows while admitted), else an error. */
  private rearrive(prev: Wl, obj: RayObject, arrival: number): void {
    if (!isElastic(obj) || !isElastic(prev.obj)) {
      throw new Error(`arrival ${arrival}: ${prev.ref} arrives a second time but is not elastic (annotation kueue.x-k8s.io/elastic-job: "true"): `
        + 'Kueue would suspend it and build a new Workload; list each object once, or mark it elastic to plan a scale');
    }
    const gang = this.gangs[arrival]!;
    const podSets = gang.podSets.map((p): PodSet => ({ name: p.name, count: p.count, total: p.total, mismatches: undefined, requests: undefined }));
    if (podSets.length !== prev.podSets.length || podSets.some((p, i) => p.name !== prev.podSets[i].name)) {
      throw new Error(`arrival ${arrival}: elastic ${prev.ref} changes its worker groups; only replica counts may change in a scale`);
    }
    const grows = podSets.some((p, i) => p.count > prev.podSets[i].count);
    if (prev.state !== 'admitted' || !grows) {
      // Before admission, or a scale-down: the Workload is updated in place.
      const wasAdmitted = prev.state === 'admitted';
      if (wasAdmitted) this.unadmitUsage(prev);
      prev.podSets = podSets;
      if (wasAdmitted) {
        prev.usage = this.usageOf(prev.podSets, prev.flavors!);
        addUsageMap(prev.cq!, prev.usage, 1);
        // Still admitted, with its new usage: a preemption candidate like any other.
        this.markAdmitted(prev.cq!, prev);
        prev.cq!.memo.version++;
        this.requeueInadmissible(prev.cq!);
      }
      (prev as { obj: RayObject }).obj = obj;
      return;
    }
    const slice = newWorkload({
      id: this.workloads.length, ref: prev.ref, kind: prev.kind, namespace: prev.namespace, name: prev.name, arrival, created: arrival, obj,
      lq: prev.lq, cq: prev.cq, cqName: prev.cqName, priority: prev.priority, priorityClass: prev.priorityClass, podSets, state: 'queued',
      notQueued: prev.notQueued, sliceOf: prev, pending: { category: 'not-evaluated', message: 'not evaluated by Kueue yet', shortfalls: [] },
    });
    slice.hash = this.hashOf(slice);
    this.workloads.push(slice);
    this.byObject.set(`${prev.kind}/${prev.namespace}/${prev.name}`, slice);
    this.push(slice);
  }

  // ---- cycles ----

  private settle(arrival: number): void {
    const seen = new Map<number, number>();
    for (let guard = 0; guard < 10000; guard++) {
      const progressed = this.runCycle(arrival);
      if (progressed === undefined) return;
      if (progressed) {
        // The same admitted set a third time while preempting: workloads reclaim each other in a loop.
        const n = (seen.get(this.admittedKey) ?? 0) + 1;
        seen.set(this.admittedKey, n);
        if (n >= 3) {
          this.ambiguities.add(`arrival ${arrival}: workloads keep preempting each other (the same admitted set recurs); Kueue's outcome depends on timing, the plan stops the loop here`);
          this.parkAll();
          return;
        }
      }
      if (!progressed && !this.bestEffortWaiting()) return;
    }
    this.notes.push(`arrival ${arrival}: Kueue would not settle (10,000 cycles without a stable state); the plan stops there`);
  }

  private bestEffortWaiting(): boolean {
    for (const c of this.cqList) if (!c.strict && !c.inactiveReason && c.queue.size > 0) return true;
    return false;
  }

  /** After a loop: everything still queued waits for the next release (as BestEffortFIFO would park it). */
  private parkAll(): void {
    for (const cq of this.cqList) {
      if (cq.strict) continue;
      cq.queue.parkAll();
    }
  }

  /** One scheduling cycle; undefined when there was no head to look at. */
  private runCycle(arrival: number): boolean | undefined {
    const heads: Wl[] = [];
    for (const cq of this.cqList) {
      if (cq.inactiveReason || !cq.queue.size) continue;
      // A BestEffortFIFO workload that issued preemptions stays at the head.
      heads.push(cq.queue.pop(cq.sticky)!);
    }
    if (!heads.length) return undefined;
    this.cycle++;
    const entries = heads.map((w) => this.nominate(w));
    entries.sort((a, b) => (a.assignment.borrowing - b.assignment.borrowing) || (b.w.priority - a.w.priority) || (a.w.created - b.w.created));
    const preempted = new Map<Wl, Target>();
    const temporary: Temporary[] = [];
    const candidates: PlanCandidate[] = [];
    let progress = false;
    for (const e of entries) {
      const result = this.process(e, preempted, temporary, candidates);
      if (result === 'admitted' || result === 'preempting') progress = true;
    }
    for (const t of temporary) {
      addUsageMap(t.cq, t.usage, -1);
      t.cq.memo.version++;
    }
    for (const { wl } of preempted.values()) wl.cq!.memo.version++;
    const released: string[] = [];
    const touched = new Set<QuotaNode>();
    for (const { wl } of preempted.values()) {
      if (wl.sliceOf) continue;
      this.unadmitUsage(wl);
      wl.state = 'queued';
      wl.evicted = false;
      wl.flavors = undefined;
      wl.pending = { category: 'not-evaluated', message: 'preempted; requeued', shortfalls: [] };
      this.push(wl);
      released.push(wl.ref);
      touched.add(rootOf(wl.cq!));
    }
    for (const root of touched) this.requeueInadmissibleUnder(root);
    if (this.keepTrace) this.trace.push({ cycle: this.cycle, afterArrival: arrival, candidates, released });
    return progress;
  }

  private unadmitUsage(w: Wl): void {
    if (w.cq!.admitted.has(w)) this.admittedKey ^= zobrist(w.id);
    addUsageMap(w.cq!, w.usage, -1);
    if (w.cq!.admitted.delete(w)) {
      addAdmittedUsage(w.cq!, w, -1);
      const same = w.cq!.admittedByPriority.get(w.priority)!;
      same.splice(same.indexOf(w), 1);
    }
    w.cq!.memo.version++;
    w.usage = new Map();
  }

  private requeueInadmissible(cq: CQ): void {
    this.requeueInadmissibleUnder(rootOf(cq));
  }

  /** Quota released in a cohort tree: every parked workload of its ClusterQueues is retried. */
  private requeueInadmissibleUnder(root: QuotaNode): void {
    const visit = (n: QuotaNode) => {
      if (!n.isCohort) {
        const cq = n as CQ;
        cq.queue.requeueParked();
        cq.parkedHashes.clear();
        return;
      }
      const c = n as CohortNode;
      c.childCohorts.forEach(visit);
      c.childQueues.forEach(visit);
    };
    visit(root);
  }

  private nominate(w: Wl): Entry {
    const cq = w.cq!;
    const assignment = w.sliceOf ? this.assignSlice(w, cq) : this.assign(w, cq);
    let targets: Target[] = [];
    const considered = this.keepTrace ? [] : undefined;
    if (assignment.mode === 'Preempt') {
      const frs: FlavorResource[] = [];
      let hopeless = true;
      for (const ps of assignment.podSets) {
        for (const fa of ps.flavors) {
          if (fa.mode !== 'Preempt') continue;
          if (!frs.includes(fa.fr)) frs.push(fa.fr);
          hopeless &&= fa.hopeless;
        }
      }
      // One contested flavor/resource whose bound already failed for a part of this request: the bound
      // fails for the whole (a larger request, more resources, never more candidates), so no search.
      if (!(hopeless && frs.length === 1)) {
        targets = this.classicalPreemptions(w, cq, frs, [...assignment.usage.keys()], [...assignment.usage.values()], considered);
      }
    }
    return { w, assignment, targets, considered };
  }

  /** Decides one entry of a cycle. The trace line (when kept) goes to `trace`; the pending message is built when read. */
  private process(e: Entry, preempted: Map<Wl, Target>, temporary: Temporary[], trace: PlanCandidate[]): PlanCandidate['result'] {
    const { w, assignment: a, targets } = e;
    const cq = w.cq!;
    w.evaluated = true;
    if (a.mode === 'NoFit') {
      const brief = briefOf(a, cq);
      w.pending = { brief };
      this.park(w, cq);
      if (this.keepTrace) trace.push(this.traceLine(e, 'pending', this.messageOf(brief)));
      return 'pending';
    }
    if (a.mode === 'Preempt' && !targets.length) {
      const brief = briefOf(a, cq);
      w.pending = { brief };
      if (cq.preemption.reclaim !== 'Any') {
        const reserve = this.toReserve(a, cq);
        addUsageMap(cq, reserve, 1);
        cq.memo.version++;
        temporary.push({ cq, usage: reserve });
      }
      this.park(w, cq);
      if (this.keepTrace) trace.push(this.traceLine(e, 'pending', `needs preemption but no workload may be preempted: ${this.messageOf(brief)}`));
      return 'pending';
    }
    let skipped: string | undefined;
    if (targets.some((t) => preempted.has(t.wl))) skipped = 'Workload has overlapping preemption targets with another workload';
    else if (!this.fits(cq, a.usage, preempted, targets)) skipped = 'Workload no longer fits after processing another workload';
    if (skipped) {
      w.pending = { brief: briefOf(a, cq), category: 'quota', message: skipped };
      cq.queue.push(w);
      if (this.keepTrace) trace.push(this.traceLine(e, 'skipped', skipped));
      return 'skipped';
    }
    for (const t of targets) preempted.set(t.wl, t);
    if (a.mode === 'Preempt') {
      addUsageMap(cq, a.usage, 1);
      temporary.push({ cq, usage: a.usage });
      cq.memo.version++;
      for (const t of targets) {
        t.wl.cq!.memo.version++;
        if (t.wl.sliceOf) continue;
        t.wl.evicted = true;
        t.wl.preemptedBy.push(w.ref);
      }
      w.victims = targets.map((t) => ({ workload: t.wl.ref, clusterQueue: t.wl.cqName!, priority: t.wl.priority, reason: t.reason, why: t.why }));
      w.pending = { brief: briefOf(a, cq), category: 'preemption-in-progress', suffix: `. Pending the preemption of ${targets.length} workload(s)` };
      if (!cq.strict) cq.sticky = w;
      cq.queue.push(w);
      if (this.keepTrace) trace.push(this.traceLine(e, 'preempting', `preempts ${targets.map((t) => `${t.wl.ref} (${t.reason})`).join(', ')}`));
      return 'preempting';
    }
    this.admit(w, a);
    if (this.keepTrace) trace.push(this.traceLine(e, 'admitted', `admitted: ${describeAssignment(a)}`));
    return 'admitted';
  }

  private traceLine(e: Entry, result: PlanCandidate['result'], detail: string): PlanCandidate {
    const { w, assignment: a } = e;
    return {
      workload: w.ref, clusterQueue: w.cq!.name, mode: a.mode, borrows: a.borrowing > 0,
      ...(e.considered?.length ? { preemptionCandidates: e.considered } : {}), result, detail,
    };
  }

  /** Back to the queue (StrictFIFO), or parked until quota is released, with its equivalent workloads (BestEffortFIFO). */
  private park(w: Wl, cq: CQ): void {
    if (cq.strict) {
      cq.queue.push(w);
      return;
    }
    cq.queue.park(w);
    if (this.caps.schedulingEquivalenceHashing) {
      // Equivalent workloads waiting behind it are parked with it, unevaluated.
      cq.parkedHashes.add(w.hash);
      cq.queue.parkHash(w.hash);
    }
  }

  private admit(w: Wl, a: Assignment): void {
    const cq = w.cq!;
    if (w.sliceOf) {
      // The new slice replaces the old one: its quota is the old usage plus the delta.
      const old = w.sliceOf;
      this.unadmitUsage(old);
      old.state = 'replaced';
      w.flavors = old.flavors;
      w.usage = this.usageOf(w.podSets, w.flavors!);
      w.admittedAt = old.admittedAt;
    } else {
      w.flavors = a.podSets.map((ps) => new Map(ps.flavors.map((f) => [f.res, f.flavor])));
      w.usage = new Map(a.usage);
      w.admittedAt = this.step;
    }
    addUsageMap(cq, w.usage, 1);
    this.markAdmitted(cq, w);
    cq.memo.version++;
    if (cq.sticky === w) cq.sticky = undefined;
    w.state = 'admitted';
    w.pending = undefined;
  }

  /** Into the ClusterQueue's admitted set (the preemption candidates) with its usage. */
  private markAdmitted(cq: CQ, w: Wl): void {
    if (cq.admitted.has(w)) return;
    addAdmittedUsage(cq, w, 1);
    w.usageMask = 0;
    for (const fr of w.usage.keys()) if (fr < 31) w.usageMask |= 1 << fr;
    let same = cq.admittedByPriority.get(w.priority);
    if (!same) cq.admittedByPriority.set(w.priority, same = []);
    // Kept in candidate order (most recently admitted first, then UID): a search merges these runs.
    let lo = 0, hi = same.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (admittedOrder(same[mid], w) < 0) lo = mid + 1;
      else hi = mid;
    }
    same.splice(lo, 0, w);
    cq.admitted.add(w);
    this.admittedKey ^= zobrist(w.id);
  }

  /** Whether `usage` fits once this cycle's victims and `targets` are gone. */
  private fits(cq: CQ, usage: Map<FlavorResource, number>, preempted: Map<Wl, Target>, targets: readonly Target[]): boolean {
    const removed = new Set<Wl>();
    for (const x of preempted.keys()) if (x.state === 'admitted') removed.add(x);
    for (const t of targets) if (t.wl.state === 'admitted') removed.add(t.wl);
    for (const x of removed) addUsageMap(x.cq!, x.usage, -1);
    let ok = true;
    for (const [fr, v] of usage) if (available(cq, fr) < v) ok = false;
    for (const x of removed) addUsageMap(x.cq!, x.usage, 1);
    return ok;
  }


  /** quotaResourcesToReserve: capacity a preempting workload without candidates holds for the cycle. */
  private toReserve(a: Assignment, cq: CQ): Map<FlavorResource, number> {
    const out = new Map<FlavorResource, number>();
    for (const [fr, v] of a.usage) {
      const nominal = cq.nominal[fr], bl = cq.borrowingLimit[fr], used = cq.usage[fr];
      if (a.borrowing > 0) out.set(fr, bl === NO_LIMIT ? v : Math.min(v, nominal + bl - used));
      else out.set(fr, Math.max(0, Math.min(v, nominal - used)));
    }
    return out;
  }

  // ---- flavor assignment (flavorassigner.go) ----

  private assign(w: Wl, cq: CQ): Assignment {
    const a: Assignment = { podSets: [], usage: new Map(), borrowing: 0, mode: 'Fit' };
    for (const ps of w.podSets) {
      const { steps } = this.requestsOf(ps, cq);
      const psa: PodSetAssignment = { name: ps.name, count: ps.count, flavors: [], reasons: [], error: false };
      let failed = false;
      for (let i = 0; i < steps.length; i++) {
        const { res, val, rg, sub } = steps[i];
        if (!rg) {
          if (val === 0) continue;
          psa.reasons.push(`resource ${res} unavailable in ClusterQueue`);
          psa.category = 'max-capacity';
          psa.flavors = [];
          failed = true;
          break;
        }
        if (psa.flavors.some((f) => f.res === res)) continue;
        const found = this.findFlavor(w, cq, rg, ps, sub, a.usage, psa);
        if (!found || (found.length === 0 && sub.length > 0)) {
          psa.flavors = [];
          failed = true;
          break;
        }
        if (!psa.flavors.length) psa.flavors = found;
        else psa.flavors.push(...found);
      }
      a.podSets.push(psa);
      for (const f of psa.flavors) {
        if (f.borrow > a.borrowing) a.borrowing = f.borrow;
        a.usage.set(f.fr, (a.usage.get(f.fr) ?? 0) + f.val);
      }
      if (failed) {
        a.mode = 'NoFit';
        return a;
      }
    }
    let mode: Mode = 'Fit';
    for (const psa of a.podSets) {
      const m = podSetMode(psa);
      if (rank(m) < rank(mode)) mode = m;
    }
    a.mode = mode;
    return a;
  }

  /**
   * A PodSet's requests in a ClusterQueue (with `pods` when the queue covers it), in the order the
   * assignment reads them, and per resource group the covered ones: the same on every evaluation.
   */
  private requestsOf(ps: PodSet, cq: CQ): PodSetRequests {
    let r = ps.requests;
    if (r?.cq === cq) return r;
    const requests = new Map<string, number>();
    for (const [res, v] of ps.total) requests.set(res, this.toUnits(res, v));
    if (cq.byResource.has('pods')) requests.set('pods', this.toUnits('pods', BigInt(ps.count) * 1000n));
    // PodSets of the same requests share them (most workloads repeat a few shapes).
    let key = '';
    for (const [res, v] of requests) key += `${res}=${v}\n`;
    r = cq.requestsByShape.get(key);
    if (r) {
      ps.requests = r;
      return r;
    }
    const subs = new Map<ResourceGroup, ResourceRequest[]>();
    for (const rg of cq.groups) {
      subs.set(rg, [...requests].filter(([res]) => rg.covered.includes(res)).sort(([x], [y]) => byLocale(x, y))
        .map(([res, val]) => ({ res, val, ci: rg.covered.indexOf(res) })));
    }
    const steps = [...requests.keys()].sort().map((res): AssignStep => {
      const rg = cq.byResource.get(res);
      return { res, val: requests.get(res)!, rg, sub: rg ? subs.get(rg)! : [] };
    });
    r = { cq, steps };
    cq.requestsByShape.set(key, r);
    ps.requests = r;
    return r;
  }

  /** A scale-up slice keeps the flavors of the admitted slice and asks only for the delta. */
  private assignSlice(w: Wl, cq: CQ): Assignment {
    const old = w.sliceOf!;
    const a: Assignment = { podSets: [], usage: new Map(), borrowing: 0, mode: 'Fit' };
    w.podSets.forEach((ps, i) => {
      const psa: PodSetAssignment = { name: ps.name, count: ps.count, flavors: [], reasons: [], error: false };
      for (const [res, total] of ps.total) {
        const flavor = old.flavors![i]?.get(res);
        if (!flavor) continue;
        const fr = this.frOf(flavor, res);
        const delta = this.toUnits(res, total - (old.podSets[i].total.get(res) ?? 0n));
        const assumed = a.usage.get(fr) ?? 0;
        const r = this.fitsResourceQuota(w, cq, fr, assumed, delta, psa);
        psa.flavors.push({ res, flavor, fr, mode: gMode(r) === FIT ? 'Fit' : 'NoFit', borrow: gBorrow(r), val: delta, hopeless: false });
        a.usage.set(fr, assumed + delta);
        if (gBorrow(r) > a.borrowing) a.borrowing = gBorrow(r);
      }
      a.podSets.push(psa);
    });
    // Scale-up slices are planned without preemption (see the README's simplifications).
    a.mode = a.podSets.some((p) => p.flavors.some((f) => f.mode !== 'Fit')) ? 'NoFit' : 'Fit';
    if (a.mode === 'NoFit') for (const p of a.podSets) p.flavors = [];
    return a;
  }

  private findFlavor(
    w: Wl, cq: CQ, rg: ResourceGroup, ps: PodSet, requests: readonly ResourceRequest[],
    assumed: Map<FlavorResource, number>, psa: PodSetAssignment,
  ): FlavorAssignment[] | undefined {
    let best: FlavorAssignment[] | undefined;
    let bestMode: Granular = granular(NO_FIT, LEVELS - 1);
    for (let fi = 0; fi < rg.flavors.length; fi++) {
      const fName = rg.flavors[fi];
      let mismatches = ps.mismatches;
      if (!mismatches) ps.mismatches = mismatches = new Map();
      let mismatch = mismatches.get(fName);
      if (mismatch === undefined) mismatches.set(fName, mismatch = this.flavorMismatch(fName, w, ps) ?? '');
      if (mismatch) {
        psa.reasons.push(mismatch);
        psa.category ??= 'max-capacity';
        continue;
      }
      const assignments: FlavorAssignment[] = [];
      let rep: Granular = granular(FIT, 0);
      for (let i = 0; i < requests.length; i++) {
        const { res, val, ci } = requests[i];
        const fr = rg.frs[fi][ci];
        const r = this.fitsResourceQuota(w, cq, fr, assumed.get(fr) ?? 0, val, psa);
        if (isPreferred(rep, r, cq)) rep = r;
        if (gMode(rep) === NO_FIT) break;
        const p = gMode(r);
        assignments.push({
          res, flavor: fName, fr, mode: p === FIT ? 'Fit' : p === NO_FIT ? 'NoFit' : 'Preempt', borrow: gBorrow(r), val,
          hopeless: p === NO_CANDIDATES && this.boundFailed,
        });
      }
      if (!shouldTryNext(rep, cq)) {
        best = assignments;
        bestMode = rep;
        break;
      }
      if (isPreferred(rep, bestMode, cq)) {
        best = assignments;
        bestMode = rep;
      }
    }
    if (gMode(bestMode) === FIT) {
      // A podset that fits carries no reasons.
      psa.reasons = [];
      psa.category = undefined;
    }
    return best ?? [];
  }

  private flavorMismatch(fName: string, w: Wl, ps: PodSet): string | undefined {
    const flavor = this.flavors.get(fName);
    if (!flavor) return `flavor ${fName} not found`;
    const labels: Record<string, string> = flavor.spec?.nodeLabels ?? {};
    const taints: any[] = flavor.spec?.nodeTaints ?? [];
    const tpl = podSetTemplate(w.obj, ps.name);
    const tolerations: any[] = [...(tpl?.spec?.tolerations ?? []), ...(flavor.spec?.tolerations ?? [])];
    for (const t of taints) {
      if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
      const tolerated = tolerations.some((tol) => (tol.effect === undefined || tol.effect === '' || tol.effect === t.effect)
        && (tol.operator === 'Exists' ? (tol.key === undefined || tol.key === '' || tol.key === t.key) : tol.key === t.key && (tol.value ?? '') === (t.value ?? '')));
      if (!tolerated) return `untolerated taint {${t.key}: ${t.value ?? ''}} in flavor ${fName}`;
    }
    const selector: Record<string, string> = tpl?.spec?.nodeSelector ?? {};
    for (const [k, v] of Object.entries(selector)) {
      if (k in labels && labels[k] !== v) return `flavor ${fName} doesn't match node affinity`;
    }
    return undefined;
  }

  private fitsResourceQuota(w: Wl, cq: CQ, fr: FlavorResource, assumed: number, request: number, psa: PodSetAssignment): Granular {
    const avail = available(cq, fr);
    const maxCap = potentialAvailable(cq, fr);
    const val = assumed + request;
    const nominal = cq.nominal[fr];
    // Reasons and shortfalls are formatted only when read, from the figures of now.
    const bl = cq.borrowingLimit[fr];
    const limitReached = bl !== NO_LIMIT && cq.usage[fr] + val > nominal + bl;
    if (val > maxCap) {
      psa.reasons.push({ fr, overMax: true, assumed, request, avail, maxCap, limitReached });
      psa.category ??= 'max-capacity';
      return granular(NO_FIT, 0);
    }
    const h = heightOfLowestSubtreeThatFits(cq, fr, val);
    if (val <= avail) return granular(FIT, subtreeHeight(h));
    psa.reasons.push({ fr, overMax: false, assumed, request, avail, maxCap, limitReached });
    psa.category = 'quota';
    const canPreemptWhileBorrowing = cq.preemption.borrowPolicy !== 'Never';
    if (nominal >= val || subtreeMayReclaim(h) || canPreemptWhileBorrowing) {
      // The oracle's request: scratch collections, which the search does not keep.
      const frs = this.oneFr, vals = this.oneVal;
      frs[0] = fr;
      vals[0] = val;
      const targets = this.classicalPreemptions(w, cq, frs, frs, vals, undefined);
      if (!targets.length) return granular(NO_CANDIDATES, subtreeHeight(h));
      for (const t of targets) addUsageMap(t.wl.cq!, t.wl.usage, -1);
      const after = subtreeHeight(heightOfLowestSubtreeThatFits(cq, fr, val));
      for (const t of targets) addUsageMap(t.wl.cq!, t.wl.usage, 1);
      return granular(targets.some((t) => t.wl.cq === cq) ? PREEMPT : RECLAIM, after);
    }
    return granular(NO_FIT, subtreeHeight(h));
  }

  // ---- preemption (preemption.go, classical/) ----

  /**
   * The preemption oracle: `frs` are the contested flavor/resources, `reqFrs`/`reqVals` the request.
   * The arrays may be scratch space: nothing here keeps them.
   */
  private classicalPreemptions(
    w: Wl, cq: CQ, frs: readonly FlavorResource[], reqFrs: readonly FlavorResource[], reqVals: readonly number[], considered: string[] | undefined,
  ): Target[] {
    const memo = cq.memo;
    if (memo.memoVersion !== memo.version) {
      memo.searches.clear();
      memo.candidateLists.clear();
      memo.memoVersion = memo.version;
    }
    // The bound first: most checks end there, without a memo key.
    this.boundFailed = !this.mayPreemptEnough(w, cq, frs, reqFrs, reqVals);
    if (this.boundFailed) return [];
    // The search reads the preemptor only through its priority (and its creation, for LowerOrNewerEqualPriority).
    const byCreation = cq.preemption.within === 'LowerOrNewerEqualPriority' || cq.preemption.reclaim === 'LowerOrNewerEqualPriority';
    let key = `${cq.name}\n${w.priority}\n${byCreation ? w.created : ''}\n`;
    for (const fr of frs) key += `${fr},`;
    key += '\n';
    for (let i = 0; i < reqFrs.length; i++) key += `${reqFrs[i]}=${reqVals[i]},`;
    let found = memo.searches.get(key);
    if (!found) {
      const refs: string[] = [];
      found = { targets: this.searchPreemptions(w, cq, frs, reqFrs, reqVals, refs), refs };
      memo.searches.set(key, found);
    }
    if (considered && found.refs.length) {
      const seen = new Set(considered);
      for (const ref of found.refs) if (!seen.has(ref)) considered.push(ref);
    }
    return found.targets;
  }

  /**
   * A bound of the search, from the per-priority usage sums and not from the candidates: false only when
   * no attempt of the search's walk below could fit, so the candidates are neither listed nor ordered.
   * Per ClusterQueue it removes at least what a walk could: in the preemptor's ClusterQueue every
   * workload the policy allows; in another one (listed as the search lists them, intermediate cohorts
   * ignored) those the policy and the attempt allow, and with one flavor/resource contested, no more than
   * its usage above nominal plus its largest workload (the walk takes from it only while it is above
   * nominal). The quota tree is monotone (less usage never makes less room), so when even that does
   * not fit, the walk does not either.
   */
  private mayPreemptEnough(w: Wl, cq: CQ, frList: readonly FlavorResource[], reqFrs: readonly FlavorResource[], reqVals: readonly number[]): boolean {
    // Called for most evaluations: scratch arrays, no closures, nothing allocated.
    const nReq = reqFrs.length;
    const from = this.scratchFrom, fromAdvantage = this.scratchFromAdvantage;
    const nFrom = cq.parent && cq.preemption.reclaim !== 'Never' ? this.reclaimable(cq, frList, this.advantagesInto(cq, reqFrs, reqVals, nReq)) : 0;
    const within = cq.preemption.within, reclaim = cq.preemption.reclaim;
    const borrowForbidden = cq.preemption.borrowPolicy === 'Never';
    const t = cq.preemption.threshold;
    // Only the requested flavor/resources matter: each one is its own quota tree.
    const single = frList.length === 1 ? frList[0] : undefined;
    const undoNodes = this.undoNodes, undoFrs = this.undoFrs, undoVals = this.undoVals;
    let nUndo = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      const borrow = attempt === 1;
      if (within !== 'Never') {
        for (let i = 0; i < nReq; i++) {
          const v = eligibleUsage(cq, reqFrs[i], within, w.priority, true, 0, t);
          if (v <= 0) continue;
          removeUsage(cq, reqFrs[i], v);
          undoNodes[nUndo] = cq;
          undoFrs[nUndo] = reqFrs[i];
          undoVals[nUndo++] = v;
        }
      }
      for (let k = 0; k < nFrom; k++) {
        const c = from[k];
        // With borrowing, a ReclaimWithoutBorrowing candidate is not valid.
        const all = !borrow || fromAdvantage[k];
        for (let i = 0; i < nReq; i++) {
          const fr = reqFrs[i];
          let v = eligibleUsage(c, fr, reclaim, w.priority, all, borrowForbidden ? 1 : 2, t);
          if (fr === single) {
            const bound = c.usage[fr] - c.subtree[fr] + c.largestUsage[fr];
            if (bound < v) v = bound;
          }
          if (v <= 0) continue;
          removeUsage(c, fr, v);
          undoNodes[nUndo] = c;
          undoFrs[nUndo] = fr;
          undoVals[nUndo++] = v;
        }
      }
      let fits = true;
      for (let i = 0; i < nReq; i++) {
        const fr = reqFrs[i], v = reqVals[i];
        if ((!borrow && borrowingWith(cq, fr, v)) || v > available(cq, fr)) {
          fits = false;
          break;
        }
      }
      for (let k = 0; k < nUndo; k++) addUsage(undoNodes[k], undoFrs[k], undoVals[k]);
      nUndo = 0;
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
  private reclaimable(cq: CQ, frs: readonly FlavorResource[], advantages: readonly boolean[]): number {
    let n = 0;
    let previous: CohortNode | undefined;
    let level = 0;
    for (let cur: CohortNode | undefined = cq.parent; cur; cur = cur.parent) {
      n = this.collectReclaimable(cur, cur, previous, cq, frs, advantages[level++], n);
      previous = cur;
    }
    return n;
  }

  private collectReclaimable(
    node: CohortNode, lca: CohortNode, previous: CohortNode | undefined, cq: CQ, frs: readonly FlavorResource[], advantage: boolean, n: number,
  ): number {
    for (const child of node.childCohorts) {
      if (child === previous || withinNominal(child, frs)) continue;
      n = this.collectReclaimable(child, lca, previous, cq, frs, advantage, n);
    }
    for (const child of node.childQueues) {
      if (child === cq || withinNominal(child, frs)) continue;
      this.scratchFrom[n] = child as CQ;
      this.scratchFromAdvantage[n] = advantage;
      this.scratchFromLca[n++] = lca;
    }
    return n;
  }

  /**
   * The reclaim advantage at each level of the cohort path (the request fits in the quota below it:
   * Kueue's quantitiesFitInQuota, applied from the ClusterQueue up with what each level leaves over),
   * into a scratch array (copy it to keep it).
   */
  private advantagesInto(cq: CQ, reqFrs: readonly FlavorResource[], reqVals: readonly number[], nReq: number): boolean[] {
    const advantages = this.scratchAdvantages;
    const remaining = this.scratchRemaining;
    let advantage = true;
    for (let i = 0; i < nReq; i++) {
      const fr = reqFrs[i], v = reqVals[i];
      if (cq.subtree[fr] < cq.usage[fr] + v) advantage = false;
      remaining[i] = Math.max(0, v - localAvailable(cq, fr));
    }
    let level = 0;
    for (let cur: CohortNode | undefined = cq.parent; cur; cur = cur.parent) {
      advantages[level++] = advantage;
      let fits = true;
      for (let i = 0; i < nReq; i++) {
        const fr = reqFrs[i], v = remaining[i];
        if (cur.subtree[fr] < cur.usage[fr] + v) fits = false;
        remaining[i] = Math.max(0, v - localAvailable(cur, fr));
      }
      advantage = advantage || fits;
    }
    advantages.length = level;
    return advantages;
  }

  /** The search itself; `all` lists the ordered candidates' refs (for the trace). */
  private searchPreemptions(
    w: Wl, cq: CQ, frList: readonly FlavorResource[], reqFrs: readonly FlavorResource[], reqVals: readonly number[], all: string[],
  ): Target[] {
    const borrowForbidden = cq.preemption.borrowPolicy === 'Never';
    let mask = 0;
    for (const fr of frList) mask |= fr < 31 ? 1 << fr : 0;
    const byMask = this.frNames.length <= 31;
    const usesMap = (x: Wl) => {
      for (let i = 0; i < frList.length; i++) if (x.usage.has(frList[i])) return true;
      return false;
    };
    // The variant of a candidate depends on its ClusterQueue, the level's advantage and its priority only.
    const variantOf = (c: CQ, priority: number, advantage: boolean): Variant => {
      if (c === cq) return 'WithinCQ';
      if (advantage) return 'HierarchicalReclaim';
      if (borrowForbidden) return 'ReclaimWithoutBorrowing';
      const t = cq.preemption.threshold;
      if (priority >= w.priority || (t !== undefined && priority > t)) return 'ReclaimWithoutBorrowing';
      return 'ReclaimWhileBorrowing';
    };
    const runsOf = (c: CQ, lca: CohortNode | undefined, advantage: boolean, into: Run[]) => {
      const policy = c === cq ? cq.preemption.within : cq.preemption.reclaim;
      for (const [priority, admitted] of c.admittedByPriority) {
        // satisfiesPolicy per priority; at equal priority, LowerOrNewerEqualPriority checks each creation below.
        if (!admitted.length) continue;
        if (!policyAllowsPriority(policy, priority, w.priority)) continue;
        into.push({ priority, admitted, lca, variant: variantOf(c, priority, advantage), byCreation: priority === w.priority && policy !== 'Any' });
      }
    };
    /** The runs' candidates in candidate order: by priority, and within one priority the runs merged. */
    const listOf = (runs: Run[]): Cands => {
      runs.sort((a, b) => a.priority - b.priority);
      const out: Cands = { wls: [], runs: [] };
      for (let i = 0; i < runs.length;) {
        let j = i + 1;
        while (j < runs.length && runs[j].priority === runs[i].priority) j++;
        const start = out.wls.length;
        for (let k = i; k < j; k++) {
          const r = runs[k];
          for (const x of r.admitted) {
            if (byMask ? (x.usageMask & mask) === 0 : !usesMap(x)) continue;
            if (r.byCreation && !(w.created < x.created)) continue;
            out.wls.push(x);
            out.runs.push(r);
          }
        }
        // Several ClusterQueues at one priority: sorted runs, which the sort merges.
        if (j - i > 1) {
          const order = out.wls.slice(start).map((_, k) => start + k).sort((a, b) => admittedOrder(out.wls[a], out.wls[b]));
          const wls = order.map((k) => out.wls[k]), rs = order.map((k) => out.runs[k]);
          for (let k = 0; k < order.length; k++) {
            out.wls[start + k] = wls[k];
            out.runs[start + k] = rs[k];
          }
        }
        i = j;
      }
      return out;
    };
    // The reclaim advantage at each level of the cohort path: with the ClusterQueue, preemptor priority
    // (and creation) and resources, it decides the candidate lists, which equal searches share.
    const advantages = cq.parent && cq.preemption.reclaim !== 'Never' ? [...this.advantagesInto(cq, reqFrs, reqVals, reqFrs.length)] : [];
    const byCreation = cq.preemption.within === 'LowerOrNewerEqualPriority' || cq.preemption.reclaim === 'LowerOrNewerEqualPriority';
    let listKey = `${cq.name}\n${w.priority}\n${byCreation ? w.created : ''}\n${advantages.map(Number).join('')}\n`;
    for (const fr of frList) listKey += `${fr},`;
    let lists = cq.memo.candidateLists.get(listKey);
    if (!lists) {
      const sameRuns: Run[] = [];
      if (cq.preemption.within !== 'Never') runsOf(cq, undefined, false, sameRuns);
      const hierRuns: Run[] = [];
      const prioRuns: Run[] = [];
      if (cq.parent && cq.preemption.reclaim !== 'Never') {
        const n = this.reclaimable(cq, frList, advantages);
        for (let k = 0; k < n; k++) {
          const advantage = this.scratchFromAdvantage[k];
          runsOf(this.scratchFrom[k], this.scratchFromLca[k], advantage, advantage ? hierRuns : prioRuns);
        }
      }
      lists = { same: listOf(sameRuns), hier: listOf(hierRuns), prio: listOf(prioRuns) };
      cq.memo.candidateLists.set(listKey, lists);
    }
    const { same, hier, prio } = lists;
    if (!lists.ordered) {
      // Ordered once per version: evicted first (Kueue's CandidatesOrdering), the rest as listed.
      // Candidates that tie on all but the UID are noted when adjacent in the order.
      for (const l of [same, hier, prio]) {
        for (const evicted of [true, false]) {
          let last: Wl | undefined;
          for (const x of l.wls) {
            if (x.evicted !== evicted) continue;
            if (last) this.noteTie(last, x, cq);
            last = x;
          }
        }
      }
      const ordered: Cands = { wls: [], runs: [] };
      for (const evicted of [true, false]) {
        for (const l of [hier, prio, same]) {
          for (let i = 0; i < l.wls.length; i++) {
            if (l.wls[i].evicted !== evicted) continue;
            ordered.wls.push(l.wls[i]);
            ordered.runs.push(l.runs[i]);
          }
        }
      }
      lists.ordered = ordered;
    }
    const ordered = lists.ordered;
    if (this.keepTrace) for (const x of ordered.wls) all.push(x.ref);
    const noOther = !hier.wls.length && !prio.wls.length;
    const underNominal = frList.every((fr) => cq.nominal[fr] > cq.usage[fr]);
    const attempts = noOther || (borrowForbidden && !underNominal) ? [true] : borrowForbidden && !hier.wls.length ? [false, true] : [true, false];
    const valid = (x: Wl, r: Run, borrow: boolean) => {
      if (x.cq === cq) return true;
      if (borrow && r.variant === 'ReclaimWithoutBorrowing') return false;
      if (withinNominal(x.cq!, frList)) return false;
      for (let node = x.cq!.parent; node && node !== r.lca; node = node.parent) {
        if (withinNominal(node, frList)) return false;
      }
      return true;
    };
    const fitsNow = (borrow: boolean) => {
      for (let i = 0; i < reqFrs.length; i++) {
        if (!borrow && borrowingWith(cq, reqFrs[i], reqVals[i])) return false;
        if (reqVals[i] > available(cq, reqFrs[i])) return false;
      }
      return true;
    };
    const reasonOf: Record<Variant, string> = {
      WithinCQ: 'InClusterQueue', HierarchicalReclaim: 'InCohortReclamation',
      ReclaimWithoutBorrowing: 'InCohortReclamation', ReclaimWhileBorrowing: 'InCohortReclaimWhileBorrowing',
    };
    // mayPreemptEnough bounded the search before: almost every walk that starts finds its victims.
    for (const borrow of attempts) {
      // Indexes into `ordered`.
      const targets: number[] = [];
      for (let c = 0; c < ordered.wls.length; c++) {
        const x = ordered.wls[c];
        if (!valid(x, ordered.runs[c], borrow)) continue;
        addUsageMap(x.cq!, x.usage, -1);
        targets.push(c);
        if (fitsNow(borrow)) {
          // Fill back: from the second-to-last, re-add each victim that is not needed.
          for (let i = targets.length - 2; i >= 0; i--) {
            const t = ordered.wls[targets[i]];
            addUsageMap(t.cq!, t.usage, 1);
            if (fitsNow(borrow)) {
              targets.splice(i, 1);
            } else {
              addUsageMap(t.cq!, t.usage, -1);
            }
          }
          for (const i of targets) addUsageMap(ordered.wls[i].cq!, ordered.wls[i].usage, 1);
          return targets.map((i) => {
            const t = ordered.wls[i], variant = ordered.runs[i].variant;
            return { wl: t, reason: reasonOf[variant], why: this.why(t, variant, w, cq) };
          });
        }
      }
      for (const i of targets) addUsageMap(ordered.wls[i].cq!, ordered.wls[i].usage, 1);
    }
    return [];
  }

  private reasonText(r: Reason): string {
    if (typeof r === 'string') return r;
    const { flavor, resource } = this.frNames[r.fr];
    if (r.overMax) {
      return `insufficient quota for ${resource} in flavor ${flavor}, previously considered podsets requests (${this.fmt(r.fr, r.assumed)}) `
        + `+ current podset request (${this.fmt(r.fr, r.request)}) > maximum capacity (${this.fmt(r.fr, r.maxCap)})`;
    }
    return `insufficient unused quota for ${resource} in flavor ${flavor}, ${this.fmt(r.fr, r.assumed + r.request - r.avail)} more needed`;
  }

  private shortfallOf(m: QuotaMiss, cq: CQ): PlanShortfall {
    const { flavor, resource } = this.frNames[m.fr];
    const val = m.assumed + m.request;
    return {
      flavor, resource, needs: this.fmt(m.fr, val), free: this.fmt(m.fr, m.avail), nominal: this.fmt(m.fr, cq.nominal[m.fr]),
      maximum: this.fmt(m.fr, m.maxCap),
      ...(cq.parent ? { cohort: cq.parent.name } : {}),
      ...(m.limitReached ? { borrowingLimitReached: true } : {}),
    };
  }

  private messageOf(b: Brief): string {
    return b.podSets.map((p) => `couldn't assign flavors to pod set ${p.name}: ${p.reasons.map((r) => this.reasonText(r)).join(', ')}`).join('; ');
  }

  private pendingOf(b: Brief): PlanPending {
    const failing = b.podSets;
    const category: PendingCategory = failing.some((p) => p.category === 'max-capacity') && b.mode === 'NoFit'
      && !failing.some((p) => p.category === 'quota' && !p.assigned) ? 'max-capacity' : 'quota';
    // Later PodSets count the earlier ones' requests: the last shortfall of a flavor/resource is the gang's.
    const last = new Map<string, PlanShortfall>();
    for (const p of failing) {
      for (const r of p.reasons) {
        if (typeof r === 'string') continue;
        const s = this.shortfallOf(r, b.cq);
        last.set(`${s.flavor}/${s.resource}`, s);
      }
    }
    return { category, message: this.messageOf(b), shortfalls: [...last.values()] };
  }

  private pendingFrom(p: LazyPending): PlanPending {
    const base = this.pendingOf(p.brief);
    if (p.message !== undefined) return { category: p.category!, message: p.message, shortfalls: base.shortfalls };
    if (p.suffix !== undefined) return { category: p.category!, message: base.message + p.suffix, shortfalls: base.shortfalls };
    return base;
  }

  private why(x: Wl, variant: string, w: Wl, cq: CQ): string {
    const prio = x.priority < w.priority ? `priority ${x.priority} < ${w.priority}` : `priority ${x.priority}, ${cq.preemption.reclaim === 'Any' && x.cq !== cq ? 'reclaimWithinCohort: Any' : 'equal priority but newer'}`;
    const where = variant === 'WithinCQ' ? `in the same ClusterQueue ${cq.name} (withinClusterQueue: ${cq.preemption.within})`
      : `ClusterQueue ${x.cqName} borrows in the cohort and ${cq.name} reclaims its quota (${variant === 'ReclaimWhileBorrowing' ? 'borrowWithinCohort' : 'reclaimWithinCohort'})`;
    return `${where}; ${prio}; admitted at arrival ${x.admittedAt}, among the most recently admitted of the lowest priority; part of the smallest set that frees enough quota`;
  }

  /** Two neighbours in a candidate order that only Kueue's UID order separates. */
  private noteTie(a: Wl, b: Wl, cq: CQ): void {
    if (a.admittedAt !== b.admittedAt || a.evicted !== b.evicted || (a.cq !== cq) !== (b.cq !== cq) || a.priority !== b.priority) return;
    this.ambiguities.add(`preemption candidates ${a.ref} and ${b.ref} tie on priority ${a.priority} and admission time (arrival ${a.admittedAt}): Kueue orders them by UID`);
  }

  // ---- result ----

  private result(): PlanResult {
    const workloads: PlanWorkload[] = this.workloads.filter((w) => w.state !== 'replaced').map((w) => this.workloadResult(w));
    const quotasOfNode = (n: QuotaNode, own: boolean): PlanQuota[] => {
      const frs = own ? n.quotaFrs : [...n.inSubtree.keys()].filter((fr) => n.inSubtree[fr]);
      const key = (fr: FlavorResource) => this.frNames[fr].key;
      return [...frs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((fr) => {
        const { flavor, resource } = this.frNames[fr];
        const set = n.quotaFrs.includes(fr);
        const bl = n.borrowingLimit[fr], ll = n.lendingLimit[fr];
        return {
          flavor, resource, nominal: this.fmt(fr, own ? n.nominal[fr] : n.subtree[fr]),
          ...(set && bl !== NO_LIMIT ? { borrowingLimit: this.fmt(fr, bl) } : {}),
          ...(set && ll !== NO_LIMIT ? { lendingLimit: this.fmt(fr, ll) } : {}),
          usage: this.fmt(fr, n.usage[fr]),
        };
      });
    };
    const admitted = new Map<CQ, string[]>();
    const pending = new Map<CQ, string[]>();
    for (const w of this.workloads) {
      if (!w.cq) continue;
      const into = w.state === 'admitted' ? admitted : w.state === 'queued' || w.state === 'held' ? pending : undefined;
      if (!into) continue;
      const list = into.get(w.cq) ?? [];
      list.push(w.ref);
      into.set(w.cq, list);
    }
    const clusterQueues: PlanClusterQueue[] = [...this.cqs.values()].sort((a, b) => a.name.localeCompare(b.name)).map((c) => ({
      name: c.name, ...(c.cohortName ? { cohort: c.cohortName } : {}), queueingStrategy: c.strict ? 'StrictFIFO' : 'BestEffortFIFO', active: !c.inactiveReason,
      quotas: quotasOfNode(c, true), admitted: admitted.get(c) ?? [], pending: pending.get(c) ?? [],
    }));
    const cohorts: PlanCohort[] = [...this.cohorts.values()].sort((a, b) => a.name.localeCompare(b.name)).map((c) => ({
      name: c.name, ...(c.parent ? { parent: c.parent.name } : {}), clusterQueues: c.childQueues.map((x) => x.name), quotas: quotasOfNode(c, false),
    }));
    return {
      schemaVersion: PLAN_SCHEMA_VERSION, kueueVersion: this.caps.version, workloads, clusterQueues, cohorts, trace: this.trace,
      ambiguities: [...this.ambiguities], notes: this.notes,
    };
  }

  /**
   * gangCanEverFit's errors: they depend on the gang's PodSets and the queue only (not on the object's
   * name), so workloads of one shape in one queue share them.
   */
  private neverFits(w: Wl): Finding[] {
    let key = `${w.namespace}/${w.lq}\n`;
    for (const ps of w.podSets) {
      key += `${ps.name}:${ps.count}`;
      for (const [res, v] of ps.total) key += `,${res}=${v}`;
      key += '\n';
    }
    let never = this.neverFitsByShape.get(key);
    if (!never) {
      never = gangCanEverFit(w.obj, { kueue: this.caps, kubeRay: this.kubeRay, inventory: this.inventory }).filter((f) => f.severity === 'error');
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

  private workloadResult(w: Wl): PlanWorkload {
    const total = new Map<string, bigint>();
    for (const ps of w.podSets) for (const [k, v] of ps.total) total.set(k, (total.get(k) ?? 0n) + v);
    // Fields assigned in the schema's order (object spreads are slow here, with 10,000s of workloads).
    const out: { -readonly [K in keyof PlanWorkload]: PlanWorkload[K] } = {
      workload: w.ref, kind: w.kind, namespace: w.namespace, name: w.name, arrival: w.arrival,
    } as PlanWorkload;
    if (w.lq) out.localQueue = w.lq;
    if (w.cqName) out.clusterQueue = w.cqName;
    out.priority = w.priority;
    if (w.priorityClass) out.priorityClass = w.priorityClass;
    out.requests = this.resources(total);
    if (w.preemptedBy.length) out.preemptedBy = w.preemptedBy;
    if (w.sliceOf) out.scaleUpOf = w.sliceOf.ref;
    if (w.state === 'not-queued') {
      out.outcome = 'not-queued';
      out.notQueued = w.notQueued;
      return out;
    }
    if (w.state === 'admitted') {
      const admission: PlanPodSetAssignment[] = w.podSets.map((ps, i) => ({
        podSet: ps.name, count: ps.count, flavors: Object.fromEntries(w.flavors![i] ?? new Map()), requests: this.resources(ps.total),
      }));
      out.outcome = w.victims?.length ? 'admitted-by-preempting' : 'admitted';
      out.admission = admission;
      if (w.victims?.length) out.preempted = w.victims;
      return out;
    }
    let pending = (w.pending && 'brief' in w.pending ? this.pendingFrom(w.pending) : w.pending)
      ?? { category: 'not-evaluated', message: 'not evaluated by Kueue yet', shortfalls: [] };
    if (!w.evaluated && w.cq?.strict && pending.category === 'not-evaluated') {
      pending = { category: 'strict-fifo-blocked', message: `behind the head of StrictFIFO ClusterQueue ${w.cqName}, which does not fit`, shortfalls: [] };
    }
    // The gangCanEverFit rule, for what stays pending (it does not change Kueue's decisions).
    const never = this.neverFits(w);
    if (never.length) {
      out.outcome = 'never-admissible';
      out.neverAdmissible = never.map((f) => f.message).join('; ');
    } else {
      out.outcome = 'pending';
    }
    out.pending = pending;
    return out;
  }
}

/** Plans `input`: what Kueue admits, keeps pending or preempts, and why. */
export function simulatePlan(input: PlanInput): PlanResult {
  return new PlanSimulator(input).run();
}

// ---- helpers ----

interface RawQuota {
  readonly flavor: string;
  readonly resource: string;
  readonly nominal: bigint;
  readonly borrowingLimit?: bigint;
  readonly lendingLimit?: bigint;
}

/** The quotas of resourceGroups, in milli-units. */
function rawQuotasOf(groups: unknown): RawQuota[] {
  const out: RawQuota[] = [];
  for (const g of Array.isArray(groups) ? groups : []) {
    for (const f of g?.flavors ?? []) {
      for (const r of f?.resources ?? []) {
        out.push({
          flavor: f.name, resource: r.name, nominal: q(r.nominalQuota) ?? 0n, borrowingLimit: q(r.borrowingLimit), lendingLimit: q(r.lendingLimit),
        });
      }
    }
  }
  return out;
}


/**
 * Kueue's CandidatesOrdering is: evicted first, other ClusterQueues first, lower priority first, then
 * this: most recently admitted first, then UID (here: the workload's number).
 */
function admittedOrder(a: Wl, b: Wl): number {
  if (a.admittedAt !== b.admittedAt) return b.admittedAt - a.admittedAt;
  return a.id - b.id;
}

function isPreferred(a: Granular, b: Granular, cq: CQ): boolean {
  const ap = gMode(a), bp = gMode(b);
  if (ap === NO_FIT) return false;
  if (bp === NO_FIT) return true;
  const an = ap === NO_CANDIDATES, bn = bp === NO_CANDIDATES;
  if (an !== bn) return !an;
  const ab = gBorrow(a), bb = gBorrow(b);
  if (cq.preference === 'PreemptionOverBorrowing') {
    if (ab !== bb) return ab < bb;
    return ap > bp;
  }
  if (ap !== bp) return ap > bp;
  return ab < bb;
}

function shouldTryNext(m: Granular, cq: CQ): boolean {
  const p = gMode(m);
  if (p === NO_FIT || p === NO_CANDIDATES) return true;
  if ((p === PREEMPT || p === RECLAIM) && cq.tryNextOnPreempt) return true;
  if (gBorrow(m) > 0 && cq.tryNextOnBorrow) return true;
  return false;
}

function rank(m: Mode): number {
  return m === 'NoFit' ? 0 : m === 'Preempt' ? 1 : 2;
}

function podSetMode(psa: PodSetAssignment): Mode {
  if (!psa.reasons.length) return 'Fit';
  if (!psa.flavors.length) return 'NoFit';
  let mode: Mode = 'Fit';
  for (const f of psa.flavors) if (rank(f.mode) < rank(mode)) mode = f.mode;
  return mode;
}

function briefOf(a: Assignment, cq: CQ): Brief {
  const podSets: BriefPodSet[] = [];
  for (const p of a.podSets) {
    if (p.reasons.length) podSets.push({ name: p.name, reasons: p.reasons, category: p.category, assigned: p.flavors.length > 0 });
  }
  return { mode: a.mode, cq, podSets };
}

function describeAssignment(a: Assignment): string {
  return a.podSets.map((p) => `${p.name}→${[...new Set(p.flavors.map((f) => f.flavor))].join('+') || '-'}`).join(', ')
    + (a.borrowing > 0 ? ' (borrowing)' : '');
}

function podSetTemplate(obj: RayObject, podSet: string): any {
  const spec: any = obj.kind === 'RayJob' ? obj.spec?.rayClusterSpec : obj.kind === 'RayService' ? obj.spec?.rayClusterConfig : obj.spec;
  if (podSet === 'head') return spec?.headGroupSpec?.template;
  if (podSet === 'submitter') return obj.spec?.submitterPodTemplate;
  return (spec?.workerGroupSpecs ?? []).find((g: any) => typeof g?.groupName === 'string' && g.groupName.toLowerCase() === podSet)?.template;
}

/** A fixed pseudo-random 32-bit key per workload id (splitmix-style), for the admitted-set hash. */
function zobrist(id: number): number {
  let x = (id + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function schedulingHash(w: Wl): string {
  return JSON.stringify([w.priority, w.podSets.map((ps) => [ps.name, ps.count, podSetTemplate(w.obj, ps.name)?.spec ?? null])]);
}

/** satisfiesPolicy for a candidate's priority, widened to every creation time at equal priority. */
function policyAllowsPriority(policy: string, candidate: number, preemptor: number): boolean {
  return policy === 'Any' || candidate < preemptor || (policy === 'LowerOrNewerEqualPriority' && candidate === preemptor);
}

/**
 * The usage on `fr` of a ClusterQueue's admitted workloads that a preemptor of `priority` may preempt under
 * `policy` (satisfiesPolicy, widened to every creation time at equal priority). Unless `all`, only those
 * valid while borrowing: none (`borrowRule` 1: borrowWithinCohort Never), or lower priorities up to the
 * threshold (2).
 */
function eligibleUsage(
  c: CQ, fr: FlavorResource, policy: string, priority: number, all: boolean, borrowRule: number, threshold: number | undefined,
): number {
  let out = 0;
  const list = c.admittedUsage;
  for (let i = 0; i < list.length; i++) {
    const p = list[i].priority;
    if (!policyAllowsPriority(policy, p, priority)) continue;
    if (!all && (borrowRule === 1 || !(p < priority && (threshold === undefined || p <= threshold)))) continue;
    out += list[i].sums[fr];
  }
  return out;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

function newMemo(): SearchMemo {
  return { version: 0, memoVersion: -1, searches: new Map(), candidateLists: new Map() };
}

function addAdmittedUsage(cq: CQ, w: Wl, sign: 1 | -1): void {
  // A few priorities per ClusterQueue: a list, which the bound's loops read.
  let sums = cq.admittedUsage.find((u) => u.priority === w.priority)?.sums;
  if (!sums) {
    sums = new Float64Array(cq.largestUsage.length);
    cq.admittedUsage.push({ priority: w.priority, sums });
  }
  for (const [fr, v] of w.usage) {
    sums[fr] += sign * v;
    if (sign > 0 && v > cq.largestUsage[fr]) cq.largestUsage[fr] = v;
  }
}
