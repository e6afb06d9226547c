/**
 * The scheduling loop (Kueue's pkg/scheduler/scheduler.go, over the queue manager's arrivals, queue-manager.ts): after
 * each arrival, cycles run until nothing changes. A cycle pops the head of every active ClusterQueue,
 * assigns flavors on one snapshot, looks for preemption targets, orders the entries (no borrowing
 * first, then priority, then FIFO) and processes them: admit, issue preemptions, or requeue. Evicted
 * victims release their quota at the end of the cycle (without the KubeRay operator a suspended Ray
 * object is inactive at once) and are requeued. Parked workloads of the cohort tree come back with the
 * release up to Kueue 0.15.4; from 0.15.5 Kueue's requeuer batches that by a second
 * (pkg/cache/queue/inadmissible_workloads.go), so the queued workloads settle first. Pure.
 */
import { FairSharingIterator } from './fair-iterator';
import { Assignment, briefOf, pendingFlavors, quotaToReserve } from './assignment';
import { FlavorAssigner, Nomination, nominationOf } from './flavor-assigner';
import type { Target } from './ordering';
import { fitsAfterVictims, Preemptor } from './preemptor';
import { addUsageMap, CohortNode, FlavorResource, QuotaNode, rootOf } from './quota-tree';
import { CycleReservations } from './reservations';
import { podSetTasOf } from './tas-flavor-assigner';
import { QueueManager } from './queue-manager';
import { assignmentMessage, describeAssignment, SimulationState } from './render';
import type { PlanCandidate, PlanCycle } from './schema';
import type { PlanAdmission, PlanInput } from './input';
import { addAdmitted, addTasUsage, ClusterQueue, LastAssignment, removeAdmitted, TasPlacement, Workload } from './snapshot';
import { arrivalSchedule, baseOf, DEFAULT_HORIZON_SECONDS, PlanEnd, WAITS_FOR_LISTED } from './timeline';
import { admittedSetKey } from './workload';

/** A head of a queue in a cycle, with its flavor assignment and preemption targets; `considered` (the candidates looked at) only with the trace. */
interface Entry {
  readonly workload: Workload;
  readonly assignment: Assignment;
  /** The assignment's usage (what the fair-sharing tournament reads of an entry). */
  readonly usage: Assignment['usage'];
  readonly targets: Target[];
  readonly considered?: string[];
}

/** The simulator. One instance plans one input. */
export class PlanSimulator extends QueueManager {
  private readonly assigner: FlavorAssigner;
  private readonly preemptor: Preemptor;
  private readonly trace: PlanCycle[] = [];
  private readonly ambiguities = new Set<string>();
  private readonly keepTrace: boolean;
  private cycle = 0;
  private step = 0;
  /** XOR of the admitted workloads' random keys: detects a preemption loop (the same admitted set again and again). */
  private admittedKey = 0;
  /**
   * Cohort trees whose parked workloads wait for the batched requeue (batchedInadmissibleRequeue): Kueue moves
   * them back about a second after the release, so the queues settle without them first.
   */
  private readonly requeueLater = new Set<QuotaNode>();
  private ended: PlanEnd = { reason: 'settled', at: 0 };
  /** The preemptions issued while one arrival settles ("A preempts B" → times), for the loop's message. */
  private readonly settlePreemptions = new Map<string, number>();
  /** Fair sharing is on: heads go by the tournament (fair-iterator.ts), not the classical order. */
  private readonly fairSharing: boolean;
  /** What this cycle holds for itself (preemptors' and pending workloads' reservations), given back at its end. */
  private readonly reservations = new CycleReservations();

  constructor(private readonly input: PlanInput) {
    super(input);
    this.keepTrace = input.trace ?? true;
    const fair = input.kueueConfig?.fairSharing;
    this.fairSharing = fair !== undefined;
    this.preemptor = new Preemptor(this.snapshot, this.keepTrace, (a, b) => this.ambiguities.add(
      `preemption candidates ${a.ref} and ${b.ref} tie on priority ${a.priority} and admission time (arrival ${a.admittedAt}): `
        + 'Kueue orders them by UID'), fair && {
      strategies: fair.preemptionStrategies, arithmetic: this.kueue.drsArithmetic,
      withinNominalBypass: input.kueueConfig?.gates.FairSharingPreemptWithinNominal === 'on',
      ...(this.afs ? { localQueueUsage: (w: Workload) => (w.clusterQueue?.usageBasedAdmission ? this.afs!.usage(this.lqKeys[w.lqIndex]) : undefined) }
        : {}),
    });
    const tasOn = this.snapshot.tasEnabled;
    this.assigner = new FlavorAssigner(this.snapshot, this.preemptor, this.fairSharing, tasOn ? {
      leastFreeForUnconstrained: this.kueue.tasLeastFreeForUnconstrained, multiLayer: this.kueue.tasAnnotations === 'multi-layer',
      sharedHostUsage: this.kueue.tasSharedHostUsage, leaderPlacement: this.kueue.tasLeaderPlacement,
      refusesEmptyAssignment: this.kueue.apiVersion === 'kueue.x-k8s.io/v1beta2', note: (m) => this.notes.push(m),
      ambiguity: (m) => this.ambiguities.add(m),
    } : undefined);

  }

  /**
   * Runs the whole plan: arrivals in time order (then the order given), and finishes at admission plus the
   * expected duration, each followed by Kueue's scheduling until it settles; until nothing is left to happen
   * or the horizon. At one instant, finishes go before arrivals (the quota is back when the newcomer is looked at).
   */
  run(): SimulationState {
    const horizon = this.input.horizonSeconds ?? DEFAULT_HORIZON_SECONDS;
    const order = arrivalSchedule(this.input.arrivals);
    let next = 0;
    let lastArrival = 0;
    for (;;) {
      const arrivalAt = next < order.length ? order[next].at : Infinity;
      const finishAt = this.clock.finishes.nextAt(this.workloads);
      const at = Math.min(arrivalAt, finishAt);
      if (at === Infinity) {
        this.ended = { reason: 'settled', at: this.clock.now };
        break;
      }
      if (at > horizon) {
        this.ended = { reason: 'horizon', at: horizon };
        break;
      }
      this.clock.now = at;
      // Admission fair sharing's sampling reconciles up to now: the order the coming cycles read.
      this.afs?.sampleUntil(at, (lq) => this.admittedAmounts(lq));
      if (finishAt <= arrivalAt) {
        this.finishDue(lastArrival);
      } else {
        const { obj, i, at: arrivedAt } = order[next++];
        this.step = this.seq;
        lastArrival = i;
        const given = this.input.admitted?.[i];
        const w = this.arrive(this.withTenantDefaults(obj), i, given !== undefined);
        if (w && given) this.admitAsGiven(w, given);
        this.seq++;
        // Queued together with the next one: no cycle in between.
        if (arrivedAt === 0 && next < Math.min(this.input.queuedAtStart ?? 0, order.length) && order[next].at === 0) continue;
      }
      this.settle(lastArrival);
    }
    for (const [namespace, added] of this.tenantDefaults) {
      for (const [labels, n] of added) {
        this.notes.push(`${n} arrival(s) in namespace "${namespace}" planned with ${labels}, added at creation to objects that lack them`);
      }
    }
    return {
      snapshot: this.snapshot, kueue: this.kueue, kubeRay: this.kubeRay, assigner: this.assigner, workloads: this.workloads, trace: this.trace,
      ambiguities: this.ambiguities, notes: this.notes, ended: this.ended, horizon, ...(this.afs ? { afs: this.afs } : {}),
    };
  }

  // ---- the timeline ----

  /** Every admitted workload whose duration ends now finishes: its quota goes back, its tree's parked workloads are retried. */
  private finishDue(lastArrival: number): void {
    const touched = new Set<QuotaNode>();
    const released: string[] = [];
    for (let w = this.clock.finishes.popDue(this.clock.now, this.workloads); w; w = this.clock.finishes.popDue(this.clock.now, this.workloads)) {
      this.unadmitUsage(w);
      w.state = 'finished';
      w.finishedAt = this.clock.now;
      this.clock.event(baseOf(w), 'finished');
      this.clock.released(w);
      released.push(w.ref);
      touched.add(rootOf(w.clusterQueue!));
    }
    for (const root of touched) this.requeueInadmissible(root);
    // In the trace as a release without candidates, so a replay of the trace (the page's usage charts) ends where the plan does.
    if (!this.keepTrace || !released.length) return;
    this.trace.push({ cycle: this.cycle, afterArrival: lastArrival, candidates: [], released, at: this.clock.now });
  }


  // ---- cycles ----

  private settle(arrival: number): void {
    const seen = new Map<number, number>();
    this.settlePreemptions.clear();
    for (let guard = 0; guard < 10000; guard++) {
      const progressed = this.runCycle(arrival);
      if (progressed === undefined) {
        if (!this.requeueLater.size) return;
        this.flushRequeues();
        continue;
      }
      if (progressed) {
        // The same admitted set a third time while preempting: workloads reclaim each other in a loop.
        const n = (seen.get(this.admittedKey) ?? 0) + 1;
        seen.set(this.admittedKey, n);
        if (n >= 3) {
          this.ambiguities.add(this.loopMessage(arrival));
          this.parkAll();
          return;
        }
      }
      if (!progressed && !this.bestEffortWaiting()) {
        if (!this.requeueLater.size) return;
        this.flushRequeues();
      }
    }
    this.notes.push(`arrival ${arrival}: Kueue would not settle (10,000 cycles without a stable state); the plan stops there`);
  }

  /**
   * A preemption loop, named. With fair sharing it is Kueue's kueue#14543: fillBackWorkloads puts back the preemptor's
   * own victims after they made another ClusterQueue's workloads preemptible, so the shares no longer justify the
   * preemption and the victims win the queues back.
   */
  private loopMessage(arrival: number): string {
    if (!this.fairSharing) {
      return `arrival ${arrival}: workloads keep preempting each other (the same admitted set recurs); Kueue's outcome depends on timing, the `
        + 'plan stops the loop here';
    }
    const pairs = [...this.settlePreemptions].slice(0, 8).map(([pair, n]) => (n > 1 ? `${pair} (${n} times)` : pair));
    return `arrival ${arrival}: fair-sharing preemption loop: ${pairs.join(', ')}, and again; Kueue's fair-sharing preemption cycles like this `
      + 'for as long as they wait (kueue#14543: fillBackWorkloads puts back a preemptor\'s own victims after they made other workloads '
      + 'preemptible). The plan stops the loop here';
  }

  private bestEffortWaiting(): boolean {
    for (const c of this.snapshot.clusterQueueList) if (!c.strict && !c.inactiveReason && c.queue.size > 0) return true;
    return false;
  }

  /** After a loop: everything still queued waits for the next release (as BestEffortFIFO would park it). */
  private parkAll(): void {
    this.requeueLater.clear();
    for (const cq of this.snapshot.clusterQueueList) {
      if (cq.strict) continue;
      cq.queue.parkAll();
    }
  }

  /** One scheduling cycle; undefined when there was no head to look at. */
  private runCycle(arrival: number): boolean | undefined {
    const heads: Workload[] = [];
    for (const cq of this.snapshot.clusterQueueList) {
      if (cq.inactiveReason || !cq.queue.size) continue;
      // A BestEffortFIFO workload that issued preemptions stays at the head.
      heads.push(cq.queue.pop(cq.sticky)!);
    }
    if (!heads.length) return undefined;
    this.cycle++;
    const entries = heads.map((w) => this.nominate(w));
    const preempted = new Map<Workload, Target>();
    const candidates: PlanCandidate[] = [];
    let progress = false;
    this.inOrder(entries, (e) => {
      const result = this.process(e, preempted, candidates);
      if (result === 'admitted' || result === 'preempting') progress = true;
    });
    this.reservations.releaseAll();
    for (const { workload } of preempted.values()) workload.clusterQueue!.memo.version++;
    const released = this.releaseVictims(preempted);
    if (this.keepTrace) this.trace.push({ cycle: this.cycle, afterArrival: arrival, candidates, released, at: this.clock.now });
    return progress;
  }

  /**
   * Processes the cycle's entries in Kueue's order: classical (no borrowing first, then priority, then FIFO), or with
   * fair sharing the tournament, whose shares are read at each step on the tree as the entries before changed it.
   */
  private inOrder(entries: Entry[], step: (e: Entry) => void): void {
    if (!this.fairSharing) {
      entries.sort((a, b) => (a.assignment.borrowing - b.assignment.borrowing) || (b.workload.priority - a.workload.priority)
        || (a.workload.created - b.workload.created));
      for (const e of entries) step(e);
      return;
    }
    const it = new FairSharingIterator(entries, this.snapshot.shareUnits(), {
      arithmetic: this.kueue.drsArithmetic, prioritizeNonBorrowing: this.input.kueueConfig?.gates.FairSharingPrioritizeNonBorrowing === 'on',
    });
    while (it.hasNext()) step(it.pop());
  }

  /** The cycle's victims release their quota and are requeued; parked workloads of their cohort trees are retried. */
  private releaseVictims(preempted: Map<Workload, Target>): string[] {
    const released: string[] = [];
    const touched = new Set<QuotaNode>();
    for (const { workload: victim } of preempted.values()) {
      if (victim.sliceOf) continue;
      this.unadmitUsage(victim);
      victim.state = 'queued';
      victim.evicted = false;
      victim.lastAssignment = undefined;
      this.snapshot.evicted.delete(victim);
      victim.flavors = undefined;
      victim.pending = { category: 'not-evaluated', message: 'preempted; requeued', shortfalls: [] };
      // KubeRay deletes a suspended object's cluster: admitted again, it starts over.
      victim.startedAt = -1;
      // What it waited for (or preempted) before belongs to the admission that ended: admitted again, it waited only for
      // what released quota then (random timeline 4280 on the real Kueue v0.19.2: j1 preempted j0, was preempted by j3,
      // and was admitted again when j3 finished, having waited for j3 alone).
      victim.waitsFor = [];
      this.clock.event(victim, 'preempted');
      this.clock.released(victim);
      this.push(victim);
      released.push(victim.ref);
      touched.add(rootOf(victim.clusterQueue!));
    }
    for (const root of touched) this.requeueInadmissible(root);
    return released;
  }

  /** Quota released under `root`: its parked workloads are retried now, or (batched requeue) once the queues are quiet. */
  protected requeueInadmissible(root: QuotaNode): void {
    if (this.kueue.batchedInadmissibleRequeue) this.requeueLater.add(root);
    else this.requeueInadmissibleUnder(root);
  }

  private flushRequeues(): void {
    for (const root of this.requeueLater) this.requeueInadmissibleUnder(root);
    this.requeueLater.clear();
  }

  protected unadmitUsage(w: Workload): void {
    const cq = w.clusterQueue!;
    addUsageMap(cq, w.usage, -1);
    // The placement stays on the workload for the result; only an admitted workload's counts on the nodes.
    addTasUsage(w.tas, -1);
    if (removeAdmitted(cq, w)) this.admittedKey ^= admittedSetKey(w.id);
    cq.memo.version++;
    // deleteWorkload: quota left the ClusterQueue.
    cq.allocatableGeneration++;
    w.usage = new Map();
  }

  /** Quota released in a cohort tree: every parked workload of its ClusterQueues is retried. */
  private requeueInadmissibleUnder(root: QuotaNode): void {
    const visit = (n: QuotaNode) => {
      if (!n.isCohort) {
        const cq = n as ClusterQueue;
        cq.queue.requeueParked();
        return;
      }
      const c = n as CohortNode;
      c.childCohorts.forEach(visit);
      c.childQueues.forEach(visit);
    };
    visit(root);
  }

  private nominate(w: Workload, nomination?: Nomination): Entry {
    const cq = w.clusterQueue!;
    // getAssignments: a recorded flavor scan resumes, unless it is outdated.
    if (w.lastAssignment && this.scanOutdated(w.lastAssignment, cq)) w.lastAssignment = undefined;
    const assignment = this.assigner.assign(w, nomination);
    // recordAssignment: where this scan stopped (only kept while a flavor is left untried).
    w.lastAssignment = assignment.tried ? { tried: assignment.tried, generation: cq.allocatableGeneration, cycle: this.cycle } : undefined;
    let targets: Target[] = [];
    const considered = this.keepTrace ? [] : undefined;
    if (assignment.mode === 'Preempt') {
      const contested: FlavorResource[] = [];
      let hopeless = true;
      for (const ps of assignment.podSets) {
        for (const f of ps.flavors) {
          if (f.mode !== 'Preempt') continue;
          if (!contested.includes(f.flavorResource)) contested.push(f.flavorResource);
          hopeless &&= f.hopeless;
        }
      }
      // One contested flavor/resource whose bound already failed for a part of this request: the bound
      // fails for the whole (a larger request, more resources, never more candidates), so no search.
      if (!(hopeless && contested.length === 1)) {
        const tasFits = assignment.tasRequested ? () => this.assigner.fitsOnNodes(w, cq, assignment) : undefined;
        targets = this.preemptor.getTargets(w, cq, contested, [...assignment.usage.keys()], [...assignment.usage.values()], considered, tasFits);
      }
      // updateAssignmentForTAS: with targets, the pods are placed as the nodes will be once the targets are gone.
      if (targets.length && assignment.tasRequested) {
        for (const t of targets) addTasUsage(t.workload.tas, -1);
        this.assigner.placeAfterPreemption(w, cq, assignment);
        for (const t of targets) addTasUsage(t.workload.tas, 1);
      }
    }
    return { workload: w, assignment, usage: assignment.usage, targets, considered };
  }

  /**
   * lastAssignmentOutdated: the ClusterQueue's allocatable generation moved since the scan; from FlavorFungibilityPreserveScanProgress,
   * not within the next cycle.
   */
  private scanOutdated(last: LastAssignment, cq: ClusterQueue): boolean {
    if (this.kueue.flavorScanPreserved && this.cycle - last.cycle <= 1) return false;
    return cq.allocatableGeneration > last.generation;
  }

  /** Decides one entry of a cycle. The trace line (when kept) goes to `trace`; the pending message is built when read. */
  private process(e: Entry, preempted: Map<Workload, Target>, trace: PlanCandidate[], recomputed = false)
    : PlanCandidate['result'] {
    const { workload: w, assignment: a, targets } = e;
    const cq = w.clusterQueue!;
    w.evaluated = true;
    if (a.mode === 'NoFit' || (a.mode === 'Preempt' && !targets.length)) {
      const brief = briefOf(a, cq);
      w.pending = { brief };
      if (a.mode === 'Preempt' && cq.preemption.reclaim !== 'Any') {
        // The TAS placement as if the nodes were empty is held too (netUsage), so that no lower workload takes them.
        this.reservations.hold(cq, quotaToReserve(a, cq), a.tas);
      }
      this.park(w, cq);
      if (this.keepTrace) {
        const message = assignmentMessage(this.snapshot, brief);
        trace.push(traceLine(e, 'pending', a.mode === 'NoFit' ? message : `needs preemption but no workload may be preempted: ${message}`));
      }
      return 'pending';
    }
    let skipped: string | undefined;
    if (targets.some((t) => preempted.has(t.workload))) skipped = 'Workload has overlapping preemption targets with another workload';
    else if (!fitsAfterVictims(cq, a.usage, preempted, targets, a.tas)) {
      // TASRecomputeAssignmentWithinSchedulingCycle: an earlier admission of the cycle took its nodes; assign again, once.
      if (!recomputed && a.tas && this.kueue.tasRecomputeWithinCycle && fitsAfterVictims(cq, a.usage, preempted, targets)) {
        // updateAssignmentIfNeeded: from the first flavor again, but only the nominated ones (NominationMapping).
        w.lastAssignment = undefined;
        return this.process(this.nominate(w, nominationOf(w, a)), preempted, trace, true);
      }
      skipped = 'Workload no longer fits after processing another workload';
    }
    if (skipped) {
      // markSkipped: the scan's progress is kept only under FlavorFungibilityPreserveScanProgress.
      if (!this.kueue.flavorScanPreserved) w.lastAssignment = undefined;
      w.pending = { brief: briefOf(a, cq), category: 'quota', message: skipped };
      cq.queue.push(w);
      if (this.keepTrace) trace.push(traceLine(e, 'skipped', skipped));
      return 'skipped';
    }
    for (const t of targets) preempted.set(t.workload, t);
    if (a.mode === 'Preempt') {
      this.issuePreemptions(e);
      if (this.keepTrace) trace.push(traceLine(e, 'preempting', `preempts ${targets.map((t) => `${t.workload.ref} (${t.reason})`).join(', ')}`));
      return 'preempting';
    }
    this.admit(w, a);
    if (this.keepTrace) trace.push(traceLine(e, 'admitted', `admitted: ${describeAssignment(a)}`));
    return 'admitted';
  }

  /** The preemptor reserves its quota for the cycle, marks its victims and waits at the head for them to go. */
  private issuePreemptions(e: Entry): void {
    const { workload: w, assignment: a, targets } = e;
    const cq = w.clusterQueue!;
    // markPreemptionOutcome: after issuing preemptions, the next attempt tries every flavor.
    w.lastAssignment = undefined;
    this.reservations.hold(cq, a.usage, a.tas);
    for (const t of targets) {
      t.workload.clusterQueue!.memo.version++;
      if (t.workload.sliceOf) continue;
      t.workload.evicted = true;
      this.snapshot.evicted.add(t.workload);
      t.workload.preemptedBy.push(w.ref);
      // Only the fair-sharing loop message reads them.
      if (this.fairSharing) {
        const pair = `${w.ref} preempts ${t.workload.ref}`;
        this.settlePreemptions.set(pair, (this.settlePreemptions.get(pair) ?? 0) + 1);
      }
    }
    w.waitsFor = targets.map((t) => t.workload).slice(0, WAITS_FOR_LISTED);
    w.victims = targets.map((t) => ({
      workload: t.workload.ref, clusterQueue: t.workload.clusterQueueName!, priority: t.workload.priority, reason: t.reason, why: t.explanation,
    }));
    w.pending = { brief: briefOf(a, cq), category: 'preemption-in-progress', suffix: `. Pending the preemption of ${targets.length} workload(s)` };
    if (!cq.strict) cq.sticky = w;
    cq.queue.push(w);
  }

  /** Back to the queue (StrictFIFO), or parked until quota is released, with its equivalent workloads (BestEffortFIFO). */
  private park(w: Workload, cq: ClusterQueue): void {
    // requeueIfNotPresent: a workload with a flavor left untried goes back to the queue at once (LastAssignment.PendingFlavors).
    if (cq.strict || pendingFlavors(w.lastAssignment?.tried)) {
      cq.queue.push(w);
      return;
    }
    cq.queue.park(w);
    if (this.kueue.schedulingEquivalenceHashing) {
      // Equivalent workloads waiting behind it are parked with it, unevaluated.
      cq.queue.markInadmissible(w.hash);
      cq.queue.parkHash(w.hash);
    }
  }

  private admit(w: Workload, a: Assignment): void {
    const cq = w.clusterQueue!;
    if (w.sliceOf) {
      // The new slice replaces the old one: its quota is the old usage plus the delta.
      const old = w.sliceOf;
      this.unadmitUsage(old);
      old.state = 'replaced';
      w.flavors = old.flavors;
      w.usage = this.snapshot.usageOf(w.podSets, w.flavors!);
      // Its pods stay where they are (the new pods of a scale-up are not placed: see docs/plan.md).
      w.tas = old.tas;
      addTasUsage(w.tas, 1);
      w.admittedAt = old.admittedAt;
      // The object keeps running: its finish is the first slice's start plus the duration.
      w.startedAt = old.startedAt;
    } else {
      w.flavors = a.podSets.map((ps) => new Map(ps.flavors.map((f) => [f.resource, f.flavor])));
      w.usage = this.snapshot.internUsage(a.usage);
      w.tas = a.tas;
      addTasUsage(w.tas, 1);
      w.admittedAt = this.step;
      w.startedAt = this.clock.now;
      // Waited: what released quota in its tree at this instant (a finish, or another's preemption) is what it waited
      // for. A preemptor that was there before this instant waited for that too, not only for its victims.
      const waited = this.clock.waitedFor(w);
      if (!w.victims?.length) w.waitsFor = waited;
      else if (waited.length) w.waitsFor = [...new Set([...waited, ...w.waitsFor])].slice(0, WAITS_FOR_LISTED);
      this.clock.event(w, 'admitted');
    }
    if (w.duration !== undefined) this.clock.finishes.push(w.startedAt + w.duration, w);
    addUsageMap(cq, w.usage, 1);
    this.markAdmitted(cq, w);
    cq.memo.version++;
    // The admission's status update reaches the cache as an update (delete and add): the generation moves.
    cq.allocatableGeneration++;
    w.lastAssignment = undefined;
    if (cq.sticky === w) cq.sticky = undefined;
    w.state = 'admitted';
    w.pending = undefined;
    // The entry penalty, settled as the workload is admitted (a new slice is a new Workload: it pays its own).
    if (this.afs && cq.usageBasedAdmission) {
      const lq = this.lqKeys[w.lqIndex];
      this.afs.admit(lq, this.clock.now, this.requestedAmounts(w), this.admittedAmounts(lq));
    }
  }

  /**
   * An arrival Kueue has admitted already: its quota on the flavors it was given and its pods on the nodes they are on,
   * as Kueue's cache holds it (whatever the quota says now). A domain whose node is gone holds nothing, as in Kueue's
   * addTASUsage; a PodSet the admission does not name uses no quota (a note says so).
   */
  private admitAsGiven(w: Workload, given: PlanAdmission): void {
    const cq = w.clusterQueue!;
    const named = new Map(given.podSets.map((p) => [p.name, p]));
    const missing = w.podSets.filter((ps) => !named.has(ps.name)).map((ps) => ps.name);
    if (missing.length) this.notes.push(`${w.ref} is admitted without an assignment for pod set ${missing.join(', ')}: it holds no quota for it`);
    w.flavors = w.podSets.map((ps) => new Map(Object.entries(named.get(ps.name)?.flavors ?? {})));
    w.usage = this.snapshot.usageOf(w.podSets, w.flavors);
    w.tas = this.givenPlacements(w, named);
    addTasUsage(w.tas, 1);
    w.admittedAt = this.step;
    w.startedAt = this.clock.now;
    this.clock.event(w, 'admitted');
    if (w.duration !== undefined) this.clock.finishes.push(w.startedAt + w.duration, w);
    addUsageMap(cq, w.usage, 1);
    this.markAdmitted(cq, w);
    cq.memo.version++;
    w.state = 'admitted';
    w.pending = undefined;
  }

  private givenPlacements(w: Workload, named: ReadonlyMap<string, PlanAdmission['podSets'][number]>): TasPlacement[] | undefined {
    const out: TasPlacement[] = [];
    w.podSets.forEach((ps, i) => {
      const topology = named.get(ps.name)?.topology;
      const flavor = [...(w.flavors![i]?.values() ?? [])].map((f) => this.snapshot.tasFlavors.get(f)).find((f) => f);
      if (!topology || !flavor) return;
      const placement = topology.domains.map((d) => ({ leafIdx: flavor.leafById.get(flavor.isLowestLevelNode ? d.values[d.values.length - 1]
        : d.values.join(',')) ?? -1, count: d.count })).filter((l) => l.leafIdx >= 0);
      out.push({ podSet: ps.name, flavor, perPod: podSetTasOf(w, ps, this.kueue.tasAnnotations === 'multi-layer').base.perPod, placement });
    });
    return out.length ? out : undefined;
  }

  /** SumTotalRequests: what the workload's PodSets request, by resource name in base units. */
  private requestedAmounts(w: Workload): Map<string, number> {
    const out = new Map<string, number>();
    for (const ps of w.podSets) for (const [r, milli] of ps.total) out.set(r, (out.get(r) ?? 0) + Number(milli) / 1000);
    return out;
  }

  /** A LocalQueue's admitted usage (GetAdmittedUsage: its admitted workloads' quota, the flavors summed), in base units. */
  private admittedAmounts(lq: string): Map<string, number> {
    const out = new Map<string, number>();
    const target = this.snapshot.localQueues.get(lq);
    const cq = target ? this.snapshot.clusterQueues.get(target.clusterQueue) : undefined;
    if (!cq) return out;
    for (const x of cq.admitted) {
      if (this.lqKeys[x.lqIndex] !== lq) continue;
      for (const [fr, v] of x.usage) {
        const { resource } = this.snapshot.flavorResourceNames[fr];
        out.set(resource, (out.get(resource) ?? 0) + (v * Number(this.snapshot.units.get(resource) ?? 1n)) / 1000);
      }
    }
    return out;
  }

  protected markAdmitted(cq: ClusterQueue, w: Workload): void {
    if (addAdmitted(cq, w)) this.admittedKey ^= admittedSetKey(w.id);
  }
}

function traceLine(e: Entry, result: PlanCandidate['result'], detail: string): PlanCandidate {
  const { workload: w, assignment: a } = e;
  return {
    workload: w.ref, clusterQueue: w.clusterQueue!.name, mode: a.mode, borrows: a.borrowing > 0,
    ...(e.considered?.length ? { preemptionCandidates: e.considered } : {}), result, detail,
  };
}
