/**
 * The queue manager's side of the simulator (Kueue's pkg/cache/queue manager and the webhooks at creation):
 * each arrival becomes a Workload, named, defaulted as the webhooks default it, checked against its
 * LocalQueue, ClusterQueue, priority class and namespace selector, and pushed to its queue (or parked with
 * equivalent workloads); an elastic object that arrives again is a scale. The scheduling cycle (cycle.ts)
 * extends it. Pure.
 */
import { computeGang, Gang } from '../gang';
import { asCreated } from '../decide';
import { asWritten, isRecord } from '../json';
import { isRayKindName, RAY_KINDS, RayObject, skipsKueue } from '../kinds';
import { isElastic, namespaceOf, priorityClassOf, QUEUE_NAME_LABEL, queueNameOf } from '../ray-object';
import { selectorMatches } from '../rules/cross-object';
import { durationBoundOf, expectedDurationOf } from '../rules/plan-annotations';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, KubeRayCapabilities, kubeRayCapabilities, kueueCapabilities,
  KueueCapabilities } from '../versions';
import type { PlanInput } from './input';
import { AfsLedger } from './afs';
import { addUsageMap, QuotaNode, rootOf } from './quota-tree';
import { WorkloadQueue } from './queue';
import type { PendingCategory } from './schema';
import { buildSnapshot, ClusterQueue, PodSet, Snapshot, Workload } from './snapshot';
import { baseOf, Clock } from './timeline';
import { boundPodsOf, tasNodesOf } from './topology';
import { newWorkload, schedulingHash } from './workload';

const DEFAULT_NS_LABEL = 'kubernetes.io/metadata.name';

/** What topology-aware scheduling planned on: per TAS flavor, its Topology and how many of the nodes serve it. */
function tasNote(s: Snapshot, nodesGiven: number): string {
  const flavors = [...s.tasFlavors.values()].map((f) => `${f.name} (Topology ${f.topologyName}: ${f.nodeCount} node(s), `
    + `${f.leaves.length} ${f.lowestLevel()} domain(s))`);
  return `topology-aware scheduling: flavor ${flavors.join(', ')}`
    + (nodesGiven ? '' : '; no Node objects were given (put them in the files, or use --nodes or --kubeconfig), so no TAS workload fits');
}

export abstract class QueueManager {
  protected readonly kueue: KueueCapabilities;
  protected readonly kubeRay: KubeRayCapabilities;
  protected readonly snapshot: Snapshot;
  protected readonly workloads: Workload[] = [];
  protected readonly notes: string[];
  /** The timeline (timeline.ts). Without durations and arrival times everything happens at 0. */
  protected readonly clock = new Clock();
  /** Arrivals so far: the queue order (Kueue's creation timestamp) follows arrival time, then the order given. */
  protected seq = 0;
  /** Labels the webhooks add at creation (ours in tenant namespaces, Kueue's default LocalQueue): namespace -> label line -> arrivals. */
  protected readonly tenantDefaults = new Map<string, Map<string, number>>();
  private readonly byObject = new Map<string, Workload>();
  /** Names given to objects with only a generateName, by prefix. */
  private readonly generated = new Map<string, number>();
  private readonly hashIds = new Map<string, number>();
  /** The gang of each Ray arrival, by arrival index. */
  private readonly gangs: Array<Gang | undefined> = [];
  /** LocalQueues ("namespace/name") by number, and their numbers. */
  protected readonly lqKeys: string[] = [];
  private readonly lqIndexes = new Map<string, number>();
  /** Admission fair sharing's LocalQueue usage, when the Configuration turns it on (afs.ts). */
  protected readonly afs?: AfsLedger;

  constructor(input: PlanInput) {
    this.kueue = kueueCapabilities(input.kueueVersion ?? DEFAULT_KUEUE_VERSION);
    this.kubeRay = kubeRayCapabilities(input.kubeRayVersion ?? DEFAULT_KUBERAY_VERSION);
    input.arrivals.forEach((obj, i) => {
      if (isRecord(obj) && isRayKindName(obj.kind)) this.gangs[i] = computeGang(obj, this.kueue);
    });
    const tasOn = (input.kueueConfig?.gates.TopologyAwareScheduling ?? this.kueue.topologyAwareSchedulingGate) === 'on';
    const skipped: string[] = [];
    this.snapshot = buildSnapshot(input.kueueObjects, this.gangs, tasOn ? {
      nodes: tasNodesOf(input.nodes ?? [], skipped), boundPods: boundPodsOf(input.boundPods ?? [], skipped),
      sharedHostUsage: this.kueue.tasSharedHostUsage,
    } : undefined);
    this.notes = [...this.snapshot.notes, ...skipped];
    if (this.snapshot.tasFlavors.size) this.notes.push(tasNote(this.snapshot, input.nodes?.length ?? 0));
    this.afs = this.admissionFairSharing(input);
  }

  protected lqIndexOf(key: string): number {
    let i = this.lqIndexes.get(key);
    if (i === undefined) {
      i = this.lqKeys.length;
      this.lqIndexes.set(key, i);
      this.lqKeys.push(key);
    }
    return i;
  }

  /**
   * Admission fair sharing: with the Configuration's section and gate on, each ClusterQueue that asks for
   * UsageBasedAdmissionFairSharing orders its workloads by LocalQueue usage, read from a ledger that starts from the
   * LocalQueues' persisted status (or empty) at the plan's start.
   */
  private admissionFairSharing(input: PlanInput): AfsLedger | undefined {
    const settings = input.kueueConfig?.admissionFairSharing;
    const asking = this.snapshot.clusterQueueList.filter((cq) => cq.usageBasedAdmission);
    if (!settings) {
      if (asking.length) {
        const why = input.kueueConfig?.admissionFairSharingGatedOff ? 'has the AdmissionFairSharing gate off' : 'has no admissionFairSharing';
        this.notes.push(`ClusterQueue ${asking.map((cq) => cq.name).join(', ')} asks for UsageBasedAdmissionFairSharing, but the Kueue `
          + `Configuration ${why}: ordered by priority and creation, without LocalQueue usage`);
      }
      return undefined;
    }
    if (!this.kueue.afsUsageLedger) {
      if (asking.length) {
        this.notes.push(`ClusterQueue ${asking.map((cq) => cq.name).join(', ')} asks for UsageBasedAdmissionFairSharing: Kueue `
          + `${this.kueue.version} reads LocalQueue usage from the LocalQueues' status, which the plan does not model (it does from 0.14): `
          + 'ordered by priority and creation');
      }
      return undefined;
    }
    const weights = new Map<string, number>();
    for (const [key, lq] of this.snapshot.localQueues) weights.set(key, lq.weight);
    const ledger = new AfsLedger(settings, weights, this.kueue.afsZeroWeightLast);
    const start = input.startTime;
    let aged = 0, unaged = 0;
    for (const [key, lq] of this.snapshot.localQueues) {
      if (!this.snapshot.clusterQueues.get(lq.clusterQueue)?.usageBasedAdmission) continue;
      const at = lq.afsStatus?.lastUpdate ? Date.parse(lq.afsStatus.lastUpdate) / 1000 : NaN;
      if (lq.afsStatus && start !== undefined && Number.isFinite(at)) aged++;
      else if (lq.afsStatus) unaged++;
      ledger.seed(key, lq.afsStatus?.consumed ?? new Map(), start !== undefined && Number.isFinite(at) ? Math.min(0, at - start) : 0);
    }
    for (const cq of asking) cq.queue = new WorkloadQueue<Workload>((i) => ledger.usage(this.lqKeys[i]));
    if (asking.length) {
      const s = settings;
      this.notes.push(`admission fair sharing: ClusterQueue ${asking.map((cq) => cq.name).join(', ')} orders workloads by LocalQueue usage `
        + `(half-life ${s.usageHalfLifeTime} s, sampled ${s.usageSamplingInterval} s after each LocalQueue's last update)`
        + (aged + unaged ? `; ${aged + unaged} LocalQueue(s) start from their status`
          + `${unaged ? ` (${unaged} as if updated at the plan's start)` : ''}` : '')
        + (s.usageHalfLifeTime === 0 ? '; usageHalfLifeTime 0s resets the usage at once, so the order is by priority and creation (kueue#11134)' : '')
        + (Object.keys(s.resourceWeights).length ? ''
          : '; no resourceWeights: every resource weighs 1 in its base unit, so memory, counted in bytes, outweighs CPU cores'));
    }
    return ledger;
  }

  /** The scheduler's bookkeeping an elastic scale-down of an admitted workload goes through. */
  protected abstract unadmitUsage(w: Workload): void;
  protected abstract markAdmitted(cq: ClusterQueue, w: Workload): void;
  protected abstract requeueInadmissible(root: QuotaNode): void;

  /**
   * The object as it will be created: in a tenant namespace the controller's webhook adds the queue
   * label and the tenant's default priority class where they are missing (the same policy, decide.ts),
   * then Kueue's webhook the namespace's `default` LocalQueue (kueue-defaults.ts).
   */
  protected withTenantDefaults(obj: RayObject): RayObject {
    if (!isRecord(obj) || !isRayKindName(obj.kind)) return obj;
    const c = asCreated(obj, { kueue: this.kueue, kubeRay: this.kubeRay, inventory: this.snapshot.inventory });
    const namespace = namespaceOf(obj);
    const note = (line: string) => {
      const added = this.tenantDefaults.get(namespace) ?? new Map<string, number>();
      added.set(line, (added.get(line) ?? 0) + 1);
      this.tenantDefaults.set(namespace, added);
    };
    if (c.ours.length) note(`${c.ours.map((l) => `${l.key}: ${l.value}`).join(', ')} (the controller's webhook, the TenantQueue's defaults)`);
    if (c.kueueQueue) note(`${QUEUE_NAME_LABEL}: ${c.kueueQueue} (Kueue's webhook: the namespace has a LocalQueue named ${c.kueueQueue})`);
    return c.obj;
  }

  private nameOf(obj: RayObject): string {
    if (typeof obj.metadata?.name === 'string') return obj.metadata.name;
    const prefix = obj.metadata?.generateName ?? `${String(obj.kind ?? 'object').toLowerCase()}-`;
    const n = (this.generated.get(prefix) ?? 0) + 1;
    this.generated.set(prefix, n);
    return `${prefix}(${n})`;
  }

  /** A new arrival into its queue; with `admitted`, a valid one is returned instead, for the caller to admit as given. */
  protected arrive(obj: RayObject, arrival: number, admitted = false): Workload | undefined {
    if (!isRecord(obj) || !isRayKindName(obj.kind)) {
      const kind = isRecord(obj) ? asWritten(obj.kind) : typeof obj;
      this.notes.push(`arrival ${arrival}: ${kind} is not a Ray object (${RAY_KINDS.join(', ')}); ignored`);
      return undefined;
    }
    const namespace = namespaceOf(obj);
    const name = this.nameOf(obj);
    const key = `${obj.kind}/${namespace}/${name}`;
    const prev = this.byObject.get(key);
    if (prev && prev.state !== 'replaced') {
      this.rearrive(prev, obj, arrival);
      return undefined;
    }
    const ref = `${obj.kind} ${namespace}/${name}`;
    const localQueue = queueNameOf(obj, this.kueue);
    const id = this.workloads.length, kind = obj.kind as string;
    const podSets = this.podSetsOf(arrival);
    if (!localQueue || skipsKueue(obj, this.kueue)) {
      const w = newWorkload({
        id, ref, kind, namespace, name, arrival, created: this.seq, obj, podSets, state: 'not-queued', arrivalTime: this.clock.now,
        notQueued: localQueue ? 'a RayJob with clusterSelector runs on an existing cluster: Kueue skips it'
          : `no ${QUEUE_NAME_LABEL} label: Kueue does not manage it`,
      });
      this.add(key, w);
      this.clock.event(w, 'arrived');
      return undefined;
    }
    const priorityClass = priorityClassOf(obj);
    const lq = this.snapshot.localQueues.get(`${namespace}/${localQueue}`);
    const cq = lq ? this.snapshot.clusterQueues.get(lq.clusterQueue) : undefined;
    const w = newWorkload({
      id, ref, kind, namespace, name, arrival, created: this.seq, obj, localQueue, lqIndex: this.lqIndexOf(`${namespace}/${localQueue}`),
      clusterQueue: cq, clusterQueueName: lq?.clusterQueue,
      priority: priorityClass ? this.snapshot.priorities.get(priorityClass) ?? 0 : 0, priorityClass, podSets, state: 'queued',
      arrivalTime: this.clock.now, duration: expectedDurationOf(obj), durationBound: durationBoundOf(obj),
    });
    w.hash = this.hashOf(w);
    this.add(key, w);
    this.clock.event(w, 'arrived');
    const misconfigured = (message: string, category: PendingCategory = 'misconfigured'): undefined => {
      w.state = 'held';
      w.pending = { category, message, shortfalls: [] };
      return undefined;
    };
    if (priorityClass && !this.snapshot.priorities.has(priorityClass)) {
      return misconfigured(`WorkloadPriorityClass ${priorityClass} not found: Kueue creates no Workload and the object stays suspended`);
    }
    if (!lq) return misconfigured(`LocalQueue ${namespace}/${localQueue} doesn't exist`);
    if (!cq) return misconfigured(`ClusterQueue ${lq.clusterQueue} doesn't exist`);
    if (lq.held) return misconfigured(`LocalQueue ${namespace}/${localQueue} is stopped (stopPolicy)`, 'inactive');
    const labels = this.snapshot.namespaces.get(namespace) ?? { [DEFAULT_NS_LABEL]: namespace };
    if (!selectorMatches(cq.namespaceSelector, labels)) return misconfigured(`the workload's namespace ${namespace} doesn't match the `
      + `ClusterQueue ${cq.name} namespaceSelector`);
    // Admitted already: it keeps its admission (Kueue's cache holds it whatever the queue's state now).
    if (admitted) return w;
    if (cq.inactiveReason) {
      w.pending = { category: 'inactive', message: cq.inactiveReason, shortfalls: [] };
    } else {
      w.pending = { category: 'not-evaluated', message: 'not evaluated by Kueue yet', shortfalls: [] };
    }
    this.push(w);
    return undefined;
  }

  private podSetsOf(arrival: number): PodSet[] {
    return this.gangs[arrival]!.podSets.map((p): PodSet => ({
      name: p.name, count: p.count, total: p.total, perPod: p.perPod, mismatches: undefined, requests: undefined, tas: undefined,
    }));
  }

  /**
   * PushOrUpdate: into the queue, or (scheduling-equivalence hashing, BestEffortFIFO) straight to the
   * parked ones when an equivalent workload (same priority and PodSet shapes) was found inadmissible: it is not evaluated.
   */
  protected push(w: Workload): void {
    const cq = w.clusterQueue!;
    if (this.kueue.schedulingEquivalenceHashing && !cq.strict && cq.queue.isInadmissible(w.hash)) cq.queue.park(w);
    else cq.queue.push(w);
  }

  private hashOf(w: Workload): number {
    const h = schedulingHash(w);
    let id = this.hashIds.get(h);
    if (id === undefined) this.hashIds.set(h, id = this.hashIds.size + 1);
    return id;
  }

  private add(key: string, w: Workload): void {
    this.workloads.push(w);
    this.byObject.set(key, w);
  }

  /** The same object again: an elastic scale (a new slice when it grows while admitted), else an error. */
  private rearrive(prev: Workload, obj: RayObject, arrival: number): void {
    if (!isElastic(obj) || !isElastic(prev.obj)) {
      throw new Error(`arrival ${arrival}: ${prev.ref} arrives a second time but is not elastic (annotation kueue.x-k8s.io/elastic-job: "true"): `
        + 'Kueue would suspend it and build a new Workload; list each object once, or mark it elastic to plan a scale');
    }
    const podSets = this.podSetsOf(arrival);
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
        const cq = prev.clusterQueue!;
        prev.usage = this.snapshot.usageOf(prev.podSets, prev.flavors!);
        addUsageMap(cq, prev.usage, 1);
        // Still admitted, with its new usage: a preemption candidate like any other.
        this.markAdmitted(cq, prev);
        cq.memo.version++;
        this.requeueInadmissible(rootOf(cq));
      }
      (prev as { obj: RayObject }).obj = obj;
      return;
    }
    const slice = newWorkload({
      id: this.workloads.length, ref: prev.ref, kind: prev.kind, namespace: prev.namespace, name: prev.name, arrival, created: this.seq, obj,
      localQueue: prev.localQueue, lqIndex: prev.lqIndex, clusterQueue: prev.clusterQueue, clusterQueueName: prev.clusterQueueName,
      priority: prev.priority,
      priorityClass: prev.priorityClass, podSets, state: 'queued', arrivalTime: this.clock.now, duration: prev.duration,
      durationBound: prev.durationBound,
      notQueued: prev.notQueued, sliceOf: prev, pending: { category: 'not-evaluated', message: 'not evaluated by Kueue yet', shortfalls: [] },
    });
    this.clock.event(baseOf(prev), 'scaled');
    slice.hash = this.hashOf(slice);
    this.workloads.push(slice);
    this.byObject.set(`${prev.kind}/${prev.namespace}/${prev.name}`, slice);
    this.push(slice);
  }
}
