/**
 * The snapshot (Kueue's pkg/cache/scheduler): ClusterQueues, Cohorts and ResourceFlavors as a
 * scheduling cycle reads them, with the quota tree, the table of flavor/resources and each resource's
 * unit. Quotas are read through the policy's inventory (inventory-objects.ts), so the admission rules
 * and the plan read resourceGroups one way. Pure.
 */
import type { Inventory, LabelSelector, ResourceGroupEntry } from '../context';
import type { Gang } from '../gang';
import { ClusterQueueJson, CohortJson, inventoryFromObjects, LocalQueueJson, ResourceFlavorJson } from '../inventory-objects';
import type { JsonFields, RayObject } from '../kinds';
import { formatQuantity, kueueMilliPerUnit, quantityToNumber, ResourceMap } from '../quantity';
import { isRecord } from '../ray-object';
import { parseFairWeight, ShareUnits, shareUnitsOf } from './fair-share';
import { WorkloadQueue } from './queue';
import { buildSubtree, CohortNode, FlavorResource, initSubtree, QuotaNode, quotaArrays, rootOf, setQuota } from './quota-tree';
import type { PendingCategory, PlanPending, PlanVictim } from './schema';
import { TasFlavor, tasFlavorsOf, TasInputs, TasPlacement } from './topology';

export { addTasUsage, TasInputs, TasPlacement } from './topology';

/* The workload as the simulator holds it (Kueue's workload.Info): one per Ray object, or per scale-up slice,
 * with its PodSets, queue, priority, admission and pending state. Its functions are in workload.ts. */

export interface PodSet {
  readonly name: string;
  readonly count: number;
  readonly total: ResourceMap;
  /** One pod's requests (milli-units), as the PodSet's template asks them: TAS counts pods per node with it. */
  readonly perPod: ResourceMap;
  /** The flavor assigner's TAS request of the PodSet ('' when it asks for none; typed there). */
  tas?: unknown;
  /** flavorMismatch by flavor name ('' when the flavor matches): the template and the flavors never change. */
  mismatches?: Map<string, string>;
  /** The flavor assigner's requestsOf, for the ClusterQueue it was computed for (typed there: workloads are the snapshot's). */
  requests?: unknown;
}

/** A pending state built when read (render.ts), from the flavor assigner's brief (typed there as LazyPending). */
export interface PendingBrief {
  readonly brief: unknown;
  readonly category?: PendingCategory;
  readonly message?: string;
  /** Appended to the assignment's message. */
  readonly suffix?: string;
}

/** `finished`: admitted, then ran its expected duration (the timeline); its quota is back. */
export type WorkloadState = 'queued' | 'admitted' | 'not-queued' | 'held' | 'replaced' | 'finished';

/** One step of a workload on the plan's timeline, at seconds after the plan's start. */
export interface TimelineEvent {
  readonly at: number;
  readonly event: 'arrived' | 'admitted' | 'preempted' | 'finished' | 'scaled';
}

export interface Workload {
  readonly id: number;
  readonly ref: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly arrival: number;
  /** Queue order timestamp (the arrival step: one second apart in the agreement suite). */
  readonly created: number;
  readonly localQueue?: string;
  /** The LocalQueue's number in the plan (admission fair sharing orders by its usage). */
  readonly lqIndex: number;
  readonly clusterQueue?: ClusterQueue;
  readonly clusterQueueName?: string;
  readonly priority: number;
  readonly priorityClass?: string;
  podSets: PodSet[];
  readonly obj: RayObject;
  state: WorkloadState;
  /** Per PodSet: resource → flavor, once admitted. */
  flavors?: Array<Map<string, string>>;
  /** Interned (Snapshot.internUsage): workloads that use the same amounts share one map, never changed in place. */
  usage: ReadonlyMap<FlavorResource, number>;
  /** The flavor/resources of `usage` as bits, while admitted (when there are at most 31). */
  usageMask: number;
  admittedAt: number;
  evicted: boolean;
  victims?: PlanVictim[];
  preemptedBy: string[];
  /** Built when read (render.ts): most evaluations are replaced by a later one before the result. */
  pending?: PlanPending | PendingBrief;
  notQueued?: string;
  sliceOf?: Workload;
  evaluated: boolean;
  /** Kueue's scheduling equivalence hash (priority and PodSet shapes), interned. */
  hash: number;
  /** Seconds after the plan's start at which it arrives (plan-arrival, else 0). */
  readonly arrivalTime: number;
  /** Seconds it runs once admitted (expected-duration), where known. */
  readonly duration?: number;
  /** A RayJob's activeDeadlineSeconds where no duration is known: it runs at most this long. */
  readonly durationBound?: number;
  /** When its current admission started (-1 while not admitted): a preempted workload starts over. */
  startedAt: number;
  /** When it finished (-1: not within the plan). */
  finishedAt: number;
  readonly events: TimelineEvent[];
  /** The workloads whose finish or preemption freed the quota it was admitted on. */
  waitsFor: Workload[];
  /** Its pods' places, per TAS PodSet, while admitted (their usage is on the flavors' nodes). */
  tas?: TasPlacement[];
  /** Where its last flavor scan stopped (Kueue's LastAssignment), while the next one may resume from it. */
  lastAssignment?: LastAssignment;
}

/**
 * Kueue's AssignmentClusterQueueState: per PodSet (by index) and resource, the index of the last flavor tried in its
 * resource group, -1 when that was the group's last flavor; with the ClusterQueue's allocatable generation and the
 * scheduling cycle of the scan.
 */
export interface LastAssignment {
  readonly tried: ReadonlyArray<ReadonlyMap<string, number> | undefined>;
  readonly generation: number;
  readonly cycle: number;
}

export type WorkloadInit = Pick<Workload, 'id' | 'ref' | 'kind' | 'namespace' | 'name' | 'arrival' | 'created' | 'obj' | 'podSets' | 'state'>
  & Partial<Pick<Workload, 'localQueue' | 'lqIndex' | 'clusterQueue' | 'clusterQueueName' | 'priority' | 'priorityClass' | 'notQueued' | 'sliceOf'
    | 'pending' | 'arrivalTime' | 'duration' | 'durationBound'>>;

export interface ResourceGroup {
  readonly covered: readonly string[];
  readonly flavors: readonly string[];
  /** The flavor/resource of each flavor (first index) and covered resource (second index). */
  readonly flavorResources: ReadonlyArray<readonly FlavorResource[]>;
}

export interface PreemptionPolicy {
  readonly within: string;
  readonly reclaim: string;
  readonly borrowPolicy: string;
  readonly threshold?: number;
}

/**
 * A cohort tree's (or a lone ClusterQueue's) memo of preemption searches. `version` is bumped by every
 * lasting change to the tree's admitted sets or eviction marks, and every change of its usage moves the tree's
 * version (quota-tree.ts); a search reads nothing outside its tree, so its result is a function of its inputs and
 * these two: equal searches at both are answered from `searches`, and a change in another tree keeps them. A
 * reservation for one cycle alone, given back as it was, leaves them too.
 */
export interface SearchMemo {
  version: number;
  memoVersion: number;
  /** The tree version the memo holds for. */
  memoTree: number;
  /** The preemptor's searches (typed there: the snapshot never imports the preemptor). */
  readonly searches: Map<string, unknown>;
  /** Candidate lists by ClusterQueue, preemptor priority, resources and reclaim advantage (typed in the preemptor). */
  readonly candidateLists: Map<string, unknown>;
  /** The bound's results (see the preemptor), per ClusterQueue: lone requests' least failing and largest passing by flavor/resource and priority. */
  readonly boundResults: Map<ClusterQueue, Map<number, { fail: number; pass: number }>>;
  /** Other requests' failures, by ClusterQueue, priority and shape. */
  readonly boundFailureShapes: Map<string, number[][]>;
}

export const newSearchMemo = (): SearchMemo => ({ version: 0, memoVersion: -1, memoTree: -1, searches: new Map(), candidateLists: new Map(),
  boundResults: new Map(), boundFailureShapes: new Map() });

export interface ClusterQueue extends QuotaNode {
  readonly groups: ResourceGroup[];
  readonly groupByResource: Map<string, ResourceGroup>;
  readonly strict: boolean;
  readonly preemption: PreemptionPolicy;
  readonly tryNextOnBorrow: boolean;
  readonly tryNextOnPreempt: boolean;
  readonly preference?: string;
  readonly namespaceSelector: LabelSelector | null;
  readonly cohortName?: string;
  /** `spec.admissionScope.admissionMode` asks for UsageBasedAdmissionFairSharing (it applies when the Configuration turns it on). */
  readonly usageBasedAdmission: boolean;
  /** Every flavor is a TAS flavor (isTASOnly): TAS is implied for every PodSet. False when TAS is off. */
  tasOnly: boolean;
  inactiveReason?: string;
  /** Active and parked (inadmissible) workloads; replaced by one ordered by LocalQueue usage before the first arrival when admission fair sharing applies. */
  queue: WorkloadQueue<Workload>;
  /** BestEffortFIFO: the workload that issued preemptions stays at the head until admitted (Kueue#6929). */
  sticky?: Workload;
  /**
   * AllocatableResourceGeneration: moves when a workload leaves the ClusterQueue's cache or is updated there (an
   * admission's status update), and a recorded flavor scan older than it is not resumed.
   */
  allocatableGeneration: number;
  readonly admitted: Set<Workload>;
  /** The same workloads by priority: a search lists only the priorities its policy allows. */
  readonly admittedByPriority: Map<number, Workload[]>;
  /** Usage of the `admitted` set by priority: bounds a preemption search before its candidates are listed. */
  readonly admittedUsage: Array<{ readonly priority: number; readonly sums: Float64Array }>;
  /** The largest usage of one workload ever admitted here, per flavor/resource (a bound, never lowered). */
  readonly largestUsage: Float64Array;
  /** Shared by the ClusterQueues of one cohort tree. */
  memo: SearchMemo;
  /** The flavor assigner's requestsOf by the requests' resources and values (typed there: the snapshot never imports the assigner). */
  readonly requestsByShape: Map<string, unknown>;
}

export interface LocalQueueTarget {
  readonly clusterQueue: string;
  /** stopPolicy Hold or HoldAndDrain. */
  readonly held: boolean;
  /** `spec.fairSharing.weight` as Kueue's admission fair sharing reads it (AsApproximateFloat64), default 1. */
  readonly weight: number;
  /**
   * `status.fairSharing.admissionFairSharingStatus` (a LocalQueue read from the cluster): the consumed history by
   * resource name in base units (cores, bytes), and when it was last updated (RFC 3339).
   */
  readonly afsStatus?: { readonly consumed: ReadonlyMap<string, number>; readonly lastUpdate?: string };
}

export interface FlavorResourceName {
  readonly flavor: string;
  readonly resource: string;
  /** `flavor/resource`, the order of the result's quota lists. */
  readonly key: string;
}

export class Snapshot {
  readonly clusterQueues = new Map<string, ClusterQueue>();
  /** The same ClusterQueues in a list, for the loops of every cycle. */
  readonly clusterQueueList: ClusterQueue[] = [];
  readonly cohorts = new Map<string, CohortNode>();
  readonly flavors = new Map<string, ResourceFlavorJson>();
  /** Some flavor has node taints or labels: without, every flavor matches every PodSet. */
  flavorsRestrictNodes = false;
  readonly localQueues = new Map<string, LocalQueueTarget>();
  /** Workloads preempted in the current cycle, their quota not released yet (each has `evicted` set). */
  readonly evicted = new Set<Workload>();
  readonly priorities = new Map<string, number>();
  /** With topology-aware scheduling on: each TAS flavor (spec.topologyName) whose Topology exists, with its nodes. */
  readonly tasFlavors = new Map<string, TasFlavor>();
  /** TAS flavors whose Topology is missing: flavor → Topology name. */
  readonly tasTopologyMissing = new Map<string, string>();
  tasEnabled = false;
  /** Namespace labels (with kubernetes.io/metadata.name), for namespaceSelectors. */
  readonly namespaces = new Map<string, Record<string, string>>();
  /** What the plan could not model as given (a cohort cycle). */
  readonly notes: string[] = [];
  /** The flavor/resource table: a pair's index is its FlavorResource. */
  readonly flavorResourceNames: FlavorResourceName[] = [];
  private readonly flavorResourceIds = new Map<string, FlavorResource>();
  /** Milli-units per simulator unit, by resource: the greatest common divisor of its quantities. */
  readonly units = new Map<string, bigint>();
  private shares?: ShareUnits;

  constructor(readonly inventory: Inventory) {}

  /** The index of (flavor, resource), numbered on first sight. */
  flavorResourceOf(flavor: string, resource: string): FlavorResource {
    const key = `${flavor}/${resource}`;
    let id = this.flavorResourceIds.get(key);
    if (id === undefined) {
      id = this.flavorResourceNames.length;
      this.flavorResourceIds.set(key, id);
      this.flavorResourceNames.push({ flavor, resource, key });
    }
    return id;
  }

  /**
   * For fair sharing's shares: each flavor/resource's resource name, and the factor from the simulator's
   * unit to Kueue's (kueueMilliPerUnit).
   */
  shareUnits(): ShareUnits {
    if (this.shares?.resourceIndex.length === this.flavorResourceNames.length) return this.shares;
    const kueueScale = new Map<string, number>();
    for (const [resource, unit] of this.units) kueueScale.set(resource, Number(unit) / Number(kueueMilliPerUnit(resource)));
    return this.shares = shareUnitsOf(this.flavorResourceNames.map((n) => n.resource), kueueScale);
  }

  /** A quantity (milli-units) in the simulator's unit for its resource. */
  toUnits(resource: string, milli: bigint): number {
    return Number(milli / (this.units.get(resource) ?? 1n));
  }

  /** A value in the simulator's unit of a flavor/resource, in Kubernetes notation. */
  format(flavorResource: FlavorResource, v: number): string {
    const { resource } = this.flavorResourceNames[flavorResource];
    return formatQuantity(BigInt(v) * (this.units.get(resource) ?? 1n), resource);
  }

  /**
   * One map per distinct usage (the same amounts in the same order): an admitted workload's usage, shared with the others
   * of its shape, so that a search can tell two candidates of equal usage apart from their maps alone.
   */
  internUsage(usage: ReadonlyMap<FlavorResource, number>): ReadonlyMap<FlavorResource, number> {
    let key = '';
    for (const [id, v] of usage) key += `${id}=${v},`;
    let known = this.usageShapes.get(key);
    if (!known) this.usageShapes.set(key, known = new Map(usage));
    return known;
  }

  private readonly usageShapes = new Map<string, ReadonlyMap<FlavorResource, number>>();

  /** What PodSets with these flavors use (an admitted workload after a scale), interned. */
  usageOf(podSets: readonly PodSet[], flavors: ReadonlyArray<Map<string, string>>): ReadonlyMap<FlavorResource, number> {
    const out = new Map<FlavorResource, number>();
    podSets.forEach((ps, i) => {
      for (const [resource, v] of ps.total) {
        const flavor = flavors[i]?.get(resource);
        if (!flavor) continue;
        const id = this.flavorResourceOf(flavor, resource);
        out.set(id, (out.get(id) ?? 0) + this.toUnits(resource, v));
      }
    });
    return this.internUsage(out);
  }
}

/**
 * The snapshot of `kueueObjects` (ResourceFlavors, WorkloadPriorityClasses, Namespaces, LocalQueues,
 * Cohorts, ClusterQueues; other kinds are ignored). `gangs` are the arrivals' requests: the unit of each
 * resource divides them too.
 */
export function buildSnapshot(kueueObjects: readonly unknown[], gangs: ReadonlyArray<Gang | undefined>, tas?: TasInputs): Snapshot {
  const objects = kueueObjects.filter(isRecord);
  // Each kind's objects as its CRD declares them (the fields are read as inventoryFromObjects reads them).
  const ofKind = <T extends JsonFields>(kind: string) => objects.filter((o) => o.kind === kind) as T[];
  const clusterQueueObjects = ofKind<ClusterQueueJson>('ClusterQueue');
  // Strict quantities: a quota the plan cannot read is an error, not a zero.
  const inventory = inventoryFromObjects({
    clusterQueues: clusterQueueObjects, cohorts: ofKind('Cohort'), localQueues: ofKind('LocalQueue'),
    priorityClasses: ofKind('WorkloadPriorityClass'), namespaces: ofKind('Namespace'),
  }, undefined, { strictQuantities: true });
  const s = new Snapshot(inventory);
  for (const f of ofKind<ResourceFlavorJson>('ResourceFlavor')) {
    s.flavors.set(f.metadata?.name, f);
    if (f.spec?.nodeTaints?.length || Object.keys(f.spec?.nodeLabels ?? {}).length) s.flavorsRestrictNodes = true;
  }
  if (tas) {
    s.tasEnabled = true;
    tasFlavorsOf(s.flavors, objects, tas, s.tasFlavors, s.tasTopologyMissing);
  }
  for (const p of inventory.priorityClasses) s.priorities.set(p.name, Number(p.value ?? 0));
  for (const n of inventory.namespaces) s.namespaces.set(n.name, { ...n.labels });
  for (const l of ofKind<LocalQueueJson>('LocalQueue')) {
    const held = l.spec?.stopPolicy === 'Hold' || l.spec?.stopPolicy === 'HoldAndDrain';
    const where = `LocalQueue ${l.metadata?.namespace ?? 'default'}/${l.metadata?.name}`;
    s.localQueues.set(`${l.metadata?.namespace ?? 'default'}/${l.metadata?.name}`, {
      clusterQueue: l.spec?.clusterQueue, held, weight: localQueueWeight(l, where), afsStatus: afsStatusOf(l, where),
    });
  }
  numberQuantities(s, gangs);
  for (const c of inventory.cohorts) cohortNode(s, c.name, c.resourceGroups);
  for (const c of inventory.cohorts) if (c.parent) link(s, cohortNode(s, c.name), cohortNode(s, c.parent));
  for (const c of ofKind<CohortJson>('Cohort')) {
    setFairWeight(cohortNode(s, c.metadata?.name), c.spec?.fairSharing?.weight, `Cohort ${c.metadata?.name}`);
  }
  clusterQueueObjects.forEach((c, i) => addClusterQueue(s, c, inventory.clusterQueues[i].resourceGroups));
  for (const root of s.cohorts.values()) if (!root.parent) buildSubtree(root);
  for (const c of s.clusterQueues.values()) if (!c.parent) initSubtree(c);
  s.clusterQueueList.push(...s.clusterQueues.values());
  // One memo per cohort tree: a search reads nothing outside its tree.
  const memos = new Map<QuotaNode, SearchMemo>();
  for (const c of s.clusterQueueList) {
    const root = rootOf(c);
    let memo = memos.get(root);
    if (!memo) memos.set(root, memo = newSearchMemo());
    c.memo = memo;
  }
  return s;
}

/**
 * Numbers the flavor/resources of the quotas and picks each resource's unit: the greatest common
 * divisor of its quotas and requests. Doubles then hold every value and sum exactly, which the check
 * below makes sure of.
 */
function numberQuantities(s: Snapshot, gangs: ReadonlyArray<Gang | undefined>): void {
  const values = new Map<string, bigint[]>();
  const record = (resource: string, v: bigint | undefined) => {
    if (v === undefined) return;
    let list = values.get(resource);
    if (!list) values.set(resource, list = []);
    list.push(v);
  };
  for (const o of [...s.inventory.cohorts, ...s.inventory.clusterQueues]) {
    for (const g of o.resourceGroups) {
      for (const f of g.flavors) {
        for (const r of f.resources) {
          s.flavorResourceOf(f.flavor, r.resource);
          record(r.resource, r.nominal);
          record(r.resource, r.borrowingLimit);
          record(r.resource, r.lendingLimit);
        }
      }
    }
    for (const g of o.resourceGroups) for (const f of g.flavors) for (const resource of g.coveredResources) s.flavorResourceOf(f.flavor, resource);
  }
  for (const gang of gangs) {
    if (!gang) continue;
    for (const ps of gang.podSets) {
      for (const [resource, v] of ps.total) record(resource, v);
      record('pods', BigInt(ps.count) * 1000n);
    }
  }
  for (const [resource, list] of values) {
    // The greatest common divisor: every value is a whole number of units, and small (memory in Gi
    // steps stays a small integer, which V8 keeps unboxed).
    let unit = 0n;
    for (const v of list) unit = gcd(unit, v < 0n ? -v : v);
    if (unit === 0n) unit = 1n;
    s.units.set(resource, unit);
    let sum = 0n;
    for (const v of list) sum += (v < 0n ? -v : v) / unit;
    if (sum > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new Error(`plan: the ${resource} quotas and requests add up to ${sum} units of ${formatQuantity(unit, resource)}, more `
        + 'than the simulator '
        + 'holds exactly (2^53); plan fewer or smaller objects');
    }
  }
}

function setQuotas(s: Snapshot, n: QuotaNode, groups: readonly ResourceGroupEntry[]): void {
  for (const g of groups) {
    for (const f of g.flavors) {
      for (const r of f.resources) {
        const units = (v: bigint | undefined) => (v === undefined ? undefined : s.toUnits(r.resource, v));
        setQuota(n, s.flavorResourceOf(f.flavor, r.resource), {
          nominal: units(r.nominal)!, borrowingLimit: units(r.borrowingLimit), lendingLimit: units(r.lendingLimit),
        });
      }
    }
  }
}

/** A LocalQueue's fair-sharing weight as a float (LQWeightAsFloat64), refused as Kueue's webhook refuses it. */
function localQueueWeight(l: LocalQueueJson, where: string): number {
  const weight = (l.spec as { fairSharing?: { weight?: unknown } } | undefined)?.fairSharing?.weight;
  return weight === undefined || weight === null ? 1 : parseFairWeight(weight, where).weight;
}

/** The LocalQueue's persisted admission fair sharing usage, when the object carries its status. */
function afsStatusOf(l: LocalQueueJson, where: string): LocalQueueTarget['afsStatus'] {
  const status = (l as { status?: { fairSharing?: { admissionFairSharingStatus?: unknown } } }).status?.fairSharing?.admissionFairSharingStatus;
  if (!isRecord(status)) return undefined;
  const consumed = new Map<string, number>();
  const resources = isRecord(status.consumedResources) ? status.consumedResources : {};
  for (const [r, q] of Object.entries(resources)) {
    if (typeof q !== 'string' && typeof q !== 'number') continue;
    try {
      consumed.set(r, quantityToNumber(q));
    } catch (e) {
      throw new Error(`${where}: status.fairSharing.admissionFairSharingStatus.consumedResources[${r}]: ${(e as Error).message}`);
    }
  }
  return { consumed, ...(typeof status.lastUpdate === 'string' ? { lastUpdate: status.lastUpdate } : {}) };
}

function setFairWeight(n: QuotaNode, weight: unknown, where: string): void {
  const w = parseFairWeight(weight, where);
  n.fairWeight = w.weight;
  n.fairWeightMilli = w.milli;
}

function cohortNode(s: Snapshot, name: string, groups?: readonly ResourceGroupEntry[]): CohortNode {
  let c = s.cohorts.get(name);
  if (!c) {
    // Every field set here, parent too: one object shape per node kind for the quota functions.
    c = { name, isCohort: true, parent: undefined, ...quotaArrays(s.flavorResourceNames.length), childCohorts: [], childQueues: [] };
    s.cohorts.set(name, c);
  }
  if (groups) setQuotas(s, c, groups);
  return c;
}

function link(s: Snapshot, child: CohortNode, parent: CohortNode): void {
  // A cycle leaves the cohorts unlinked (Kueue ignores cohort trees with cycles).
  for (let p: CohortNode | undefined = parent; p; p = p.parent) {
    if (p === child) {
      s.notes.push(`Cohort ${child.name}: parent ${parent.name} makes a cycle; the link is ignored, as Kueue ignores such trees`);
      return;
    }
  }
  child.parent = parent;
  parent.childCohorts.push(child);
}

function addClusterQueue(s: Snapshot, c: ClusterQueueJson, resourceGroups: readonly ResourceGroupEntry[]): void {
  const spec = c.spec ?? {};
  const groups: ResourceGroup[] = resourceGroups.map((g) => {
    const covered = [...g.coveredResources];
    const flavors = g.flavors.map((f) => f.flavor);
    return { covered, flavors, flavorResources: flavors.map((f) => covered.map((resource) => s.flavorResourceOf(f, resource))) };
  });
  const groupByResource = new Map<string, ResourceGroup>();
  // RGByResource: the first group that covers a resource (the webhook refuses two; a cache loaded without it keeps the first).
  for (const g of groups) for (const r of g.covered) if (!groupByResource.has(r)) groupByResource.set(r, g);
  const fungibility = spec.flavorFungibility ?? {};
  const p = spec.preemption ?? {};
  const cohortName = spec.cohortName ?? spec.cohort;
  const size = s.flavorResourceNames.length;
  const cq: ClusterQueue = {
    // Every field set here, the optional ones too: one object shape for all ClusterQueues.
    name: c.metadata?.name, isCohort: false, parent: undefined, inactiveReason: undefined, sticky: undefined, allocatableGeneration: 0,
    ...quotaArrays(size),
    groups, groupByResource, strict: spec.queueingStrategy === 'StrictFIFO',
    preemption: {
      within: p.withinClusterQueue ?? 'Never', reclaim: p.reclaimWithinCohort ?? 'Never',
      borrowPolicy: p.borrowWithinCohort?.policy ?? 'Never', threshold: p.borrowWithinCohort?.maxPriorityThreshold,
    },
    tryNextOnBorrow: fungibility.whenCanBorrow === 'TryNextFlavor',
    tryNextOnPreempt: (fungibility.whenCanPreempt ?? 'TryNextFlavor') === 'TryNextFlavor',
    preference: fungibility.preference,
    namespaceSelector: spec.namespaceSelector ?? null, cohortName,
    usageBasedAdmission: (spec as { admissionScope?: { admissionMode?: unknown } }).admissionScope?.admissionMode
      === 'UsageBasedAdmissionFairSharing',
    tasOnly: false, queue: new WorkloadQueue<Workload>(),
    admitted: new Set(), admittedByPriority: new Map(), admittedUsage: [],
    largestUsage: new Float64Array(size), memo: newSearchMemo(), requestsByShape: new Map(),
  };
  setQuotas(s, cq, resourceGroups);
  setFairWeight(cq, spec.fairSharing?.weight, `ClusterQueue ${cq.name}`);
  if (spec.stopPolicy === 'Hold' || spec.stopPolicy === 'HoldAndDrain') cq.inactiveReason = `ClusterQueue ${cq.name} is inactive: `
    + `stopPolicy ${spec.stopPolicy}`;
  const missing = groups.flatMap((g) => g.flavors).filter((f) => !s.flavors.has(f));
  if (missing.length) cq.inactiveReason = `ClusterQueue ${cq.name} is inactive: flavor ${missing.join(', ')} not found`;
  if (s.tasEnabled) {
    const flavors = groups.flatMap((g) => g.flavors);
    const noTopology = flavors.filter((f) => s.tasTopologyMissing.has(f));
    // clusterqueue.go: TopologyNotFound.
    if (noTopology.length && !missing.length) {
      cq.inactiveReason = `ClusterQueue ${cq.name} is inactive: ${noTopology.map((f) => `there is no Topology "${s.tasTopologyMissing.get(f)}" `
        + `for TAS flavor "${f}"`).join(', ')}`;
    }
    cq.tasOnly = flavors.every((f) => s.tasFlavors.has(f) || s.tasTopologyMissing.has(f));
  }
  s.clusterQueues.set(cq.name, cq);
  if (cohortName) {
    const parent = cohortNode(s, cohortName);
    cq.parent = parent;
    parent.childQueues.push(cq);
  }
}

/**
 * Into the ClusterQueue's admitted set (the preemption candidates), with its usage sums (the usage is
 * in the quota tree already). False when it was there.
 */
export function addAdmitted(cq: ClusterQueue, w: Workload): boolean {
  if (cq.admitted.has(w)) return false;
  addAdmittedUsage(cq, w, 1);
  w.usageMask = 0;
  for (const id of w.usage.keys()) if (id < 31) w.usageMask |= 1 << id;
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
  return true;
}

/** Out of the admitted set and its usage sums (not out of the quota tree). False when it was not there. */
export function removeAdmitted(cq: ClusterQueue, w: Workload): boolean {
  if (!cq.admitted.delete(w)) return false;
  addAdmittedUsage(cq, w, -1);
  const same = cq.admittedByPriority.get(w.priority)!;
  same.splice(same.indexOf(w), 1);
  return true;
}

/** Into the ClusterQueue's per-priority usage sums (a few priorities: a list, which the search bound reads). */
function addAdmittedUsage(cq: ClusterQueue, w: Workload, sign: 1 | -1): void {
  let sums = cq.admittedUsage.find((u) => u.priority === w.priority)?.sums;
  if (!sums) {
    sums = new Float64Array(cq.largestUsage.length);
    cq.admittedUsage.push({ priority: w.priority, sums });
  }
  for (const [id, v] of w.usage) {
    sums[id] += sign * v;
    if (sign > 0 && v > cq.largestUsage[id]) cq.largestUsage[id] = v;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * Within one ClusterQueue and priority: most recently admitted first, then UID. The snapshot keeps each
 * priority's admitted workloads in this order; the preemptor's candidate order (ordering.ts) starts from it.
 */
export function admittedOrder(a: Workload, b: Workload): number {
  if (a.admittedAt !== b.admittedAt) return b.admittedAt - a.admittedAt;
  return a.id - b.id;
}
