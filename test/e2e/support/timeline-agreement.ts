// The plan's timeline against the real Kueue (issue 43). Time is the plan's, in steps: the harness keeps a clock per
// scenario and moves it from event to event as the plan does (the finishes due, then each arrival), so no test
// waits out a duration. At each instant it finishes what ran its expected duration since Kueue admitted it (a RayJob
// as Kueue sees a job finish: status Complete; a RayCluster, which never finishes, is deleted), or creates the next
// arrival; then it lets Kueue settle and records what Kueue did at that instant: admissions, preemptions. Compared
// with the plan per workload: its events (arrival, admissions, preemptions, finish, with their times), what each
// admission waited for, and at the end the pending reason. Many scenarios run side by side, one step each per round.
import { type KueueConfig, simulatePlan, type PlanWorkload } from '../../../src/policy/plan';
import { parseGoDuration } from '../../../src/policy/go-duration';
import { kueueCapabilities } from '../../../src/policy/versions';
import { isolate, PlanScenario } from '../../policy/plan/scenarios';
import { applyQueues, kueueCategory, settleWorkloads, wasPreempted, watchWorkloads } from './agreement';
import type { TestCluster } from './cluster';
import { cond, isAdmitted, KubeClient, objectPath, WatchedCollection } from './kube';

const STEP_MS = 1200;
const QUIET_MS = 1200;
// How long nothing may change before a state that looks unfinished counts as settled: a Workload Kueue has not
// evaluated yet (StrictFIFO keeps non-heads so, and equivalence hashing parks some unevaluated), or a preemption
// in progress. A Kueue busy with other scenarios can take longer than QUIET_MS to get to them.
const UNFINISHED_QUIET_MS = 5000;

/** A Workload Kueue may still be working on: not evaluated yet, preempting, or evicted and still holding its quota. */
function unfinished(w: any): boolean {
  const qr = cond(w, 'QuotaReserved');
  if (!qr) return true;
  if (qr.status === 'False' && /Pending the preemption/.test(String(qr.message ?? ''))) return true;
  return qr.status === 'True' && cond(w, 'Evicted')?.status === 'True';
}

interface Event { at: number; event: string }

interface Run {
  readonly scenario: PlanScenario;
  readonly isolated: PlanScenario;
  readonly namespace: string;
  /** The arrivals in plan order: time, then the order given. */
  readonly schedule: ReadonlyArray<{ at: number; obj: any }>;
  next: number;
  now: number;
  done: boolean;
  /** Created and not finished: its Workload must exist. */
  readonly live: Set<string>;
  /** Admitted (as last seen): since when, for how long. */
  readonly running: Map<string, { since: number; duration: number }>;
  readonly events: Map<string, Event[]>;
  readonly waitsFor: Map<string, string[]>;
  /** What released quota at `now`, by cohort tree root: finishes and preemptions. */
  released: Map<string, string[]>;
  releasedAt: number;
  readonly durations: Map<string, number>;
  /** Who preempted each workload last (the preemptor's name, as Kueue's eviction message names its job's UID). */
  readonly preemptedBy: Map<string, string | undefined>;
  readonly rootOf: Map<string, string>;
  readonly obj: Map<string, any>;
}

export interface TimelineOutcome { readonly scenario: PlanScenario; readonly diffs: string[] }

const annotation = (o: any, key: string) => parseGoDuration(o.metadata.annotations?.[`cdk8s-kueue-ray.io/${key}`] ?? '0s') ?? 0;

/** The root of each LocalQueue's cohort tree (the ClusterQueue's name when it has no cohort), by LocalQueue name. */
function roots(s: PlanScenario): Map<string, string> {
  const parent = new Map<string, string | undefined>();
  for (const o of s.objects) {
    if (o.kind === 'ClusterQueue') parent.set(`cq/${o.metadata.name}`, o.spec.cohort ?? o.spec.cohortName);
    if (o.kind === 'Cohort') parent.set(o.metadata.name, o.spec.parentName);
  }
  const top = (cq: string) => {
    let at = parent.get(`cq/${cq}`) ?? `cq/${cq}`;
    for (let p = parent.get(at); p !== undefined; p = parent.get(at)) at = p;
    return at;
  };
  const out = new Map<string, string>();
  for (const o of s.objects) if (o.kind === 'LocalQueue') out.set(o.metadata.name, top(o.spec.clusterQueue));
  return out;
}

function start(scenario: PlanScenario, prefix: string): Run {
  const isolated = isolate(scenario, prefix);
  const lqRoot = roots(isolated);
  const schedule = isolated.arrivals.map((obj, i) => ({ obj, i, at: annotation(obj, 'plan-arrival') }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  const run: Run = {
    scenario, isolated, namespace: isolated.arrivals[0]?.metadata.namespace, schedule, next: 0, now: 0, done: false, live: new Set(),
    running: new Map(), events: new Map(), waitsFor: new Map(), released: new Map(), releasedAt: 0, durations: new Map(), preemptedBy: new Map(),
    rootOf: new Map(), obj: new Map(),
  };
  for (const { obj } of schedule) {
    run.durations.set(obj.metadata.name, annotation(obj, 'expected-duration'));
    run.rootOf.set(obj.metadata.name, lqRoot.get(obj.metadata.labels['kueue.x-k8s.io/queue-name']) ?? `no queue ${obj.metadata.name}`);
    run.obj.set(obj.metadata.name, obj);
  }
  return run;
}

function record(r: Run, name: string, event: string): void {
  r.events.set(name, [...(r.events.get(name) ?? []), { at: r.now, event }]);
}

function release(r: Run, name: string): void {
  if (r.releasedAt !== r.now) {
    r.released = new Map();
    r.releasedAt = r.now;
  }
  const root = r.rootOf.get(name)!;
  r.released.set(root, [...(r.released.get(root) ?? []), name]);
}

/** One step of a scenario: the finishes due at its next instant, or its next arrival; done when nothing is left. */
async function step(client: KubeClient, r: Run): Promise<void> {
  const finishAt = Math.min(...[...r.running.values()].map((x) => x.since + x.duration));
  const arrival = r.schedule[r.next];
  const arrivalAt = arrival ? arrival.at : Infinity;
  if (finishAt === Infinity && arrivalAt === Infinity) {
    r.done = true;
    return;
  }
  r.now = Math.min(finishAt, arrivalAt);
  if (finishAt <= arrivalAt) {
    for (const [name, x] of [...r.running]) {
      if (x.since + x.duration !== r.now) continue;
      await finish(client, r.obj.get(name));
      r.running.delete(name);
      r.live.delete(name);
      record(r, name, 'finished');
      release(r, name);
    }
    return;
  }
  r.next++;
  await client.create(arrival.obj);
  r.live.add(arrival.obj.metadata.name);
  record(r, arrival.obj.metadata.name, 'arrived');
}

/** A RayJob finishes as Kueue's RayJob integration reads it; a RayCluster releases its quota when deleted. */
async function finish(client: KubeClient, obj: any): Promise<void> {
  if (obj.kind === 'RayJob') {
    const res = await client.request('PATCH', `${objectPath(obj)}/status`,
      { status: { jobDeploymentStatus: 'Complete', jobStatus: 'SUCCEEDED' } }, 'application/merge-patch+json');
    if (res.status >= 300) throw new Error(`finishing ${obj.metadata.name}: HTTP ${res.status}: ${JSON.stringify(res.body)}`);
    return;
  }
  await client.delete(objectPath(obj));
}

/**
 * Records what Kueue did at the scenario's instant: preemptions first (what they freed is what a workload admitted
 * at the same instant waited for), then new admissions.
 */
function observe(r: Run, workloads: readonly any[]): void {
  const current = workloads.map((w) => ({ w, name: w.metadata.ownerReferences?.[0]?.name as string }))
    .filter(({ w, name }) => r.live.has(name) && cond(w, 'Finished')?.status !== 'True');
  for (const { w, name } of current) {
    if (isAdmitted(w) || !r.running.has(name) || !wasPreempted(w)) continue;
    r.running.delete(name);
    r.preemptedBy.set(name, preemptorOf(w, current));
    record(r, name, 'preempted');
    release(r, name);
  }
  for (const { w, name } of current) {
    if (!isAdmitted(w) || r.running.has(name)) continue;
    r.running.set(name, { since: r.now, duration: r.durations.get(name)! });
    const arrivedBefore = (r.events.get(name) ?? []).some((e) => e.event === 'arrived' && e.at < r.now);
    const freed = r.releasedAt === r.now ? r.released.get(r.rootOf.get(name)!) ?? [] : [];
    // Waited: whatever released quota in its tree now. Arrived now: only what it preempted itself (another arrival of
    // the same instant may have preempted in its tree before it: seed 462488, fs-timeline-random-462496 on 0.14.8).
    r.waitsFor.set(name, arrivedBefore ? [...freed]
      : freed.filter((v) => r.preemptedBy.get(v) === name && r.events.get(v)?.some((e) => e.event === 'preempted' && e.at === r.now)));
    record(r, name, 'admitted');
  }
}

/**
 * The preemptor of a preempted Workload, by name: Kueue's eviction message (every modelled version) names the preemptor's
 * job by UID ("Preempted to accommodate a workload (UID: ..., JobUID: ...)"). Undefined when no current workload is it.
 */
function preemptorOf(victim: any, current: ReadonlyArray<{ w: any; name: string }>): string | undefined {
  const message = String(cond(victim, 'Preempted')?.message ?? cond(victim, 'Evicted')?.message ?? '');
  const jobUid = /JobUID: ([^,)\s]+)/.exec(message)?.[1];
  return jobUid === undefined ? undefined : current.find(({ w }) => w.metadata.ownerReferences?.[0]?.uid === jobUid)?.name;
}

async function settle(client: KubeClient, wlApi: string, watched: WatchedCollection, runs: readonly Run[],
  stepStart: number): Promise<Map<string, any[]>> {
  return settleWorkloads(client, wlApi, watched, runs.map((r) => r.namespace), stepStart, STEP_MS, (all) => {
    let missing = 0;
    let busy = false;
    for (const r of runs) {
      const wls = all.get(r.namespace) ?? [];
      for (const name of r.live) {
        const w = wls.find((x: any) => x.metadata.ownerReferences?.[0]?.name === name);
        if (!w) missing++;
        else if (cond(w, 'Finished')?.status !== 'True' && unfinished(w)) busy = true;
      }
    }
    return missing ? undefined : busy ? UNFINISHED_QUIET_MS : QUIET_MS;
  });
}

const brief = (events: readonly Event[]) => events.map((e) => `${e.event}@${e.at}`).join(' ');
const nameOf = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);

/** Where the plan and what Kueue did differ, per workload. */
function compare(r: Run, kueue: string, final: readonly any[], kueueConfig?: KueueConfig): string[] {
  const plan = simulatePlan({ kueueObjects: r.isolated.objects, arrivals: r.isolated.arrivals, kueueVersion: kueue, kueueConfig, trace: false });
  const diffs: string[] = [];
  const byOwner = new Map(final.map((w) => [w.metadata.ownerReferences?.[0]?.name, w]));
  for (const w of plan.workloads as readonly PlanWorkload[]) {
    const planned = w.events.filter((e) => e.event !== 'scaled');
    const seen = r.events.get(w.name) ?? [];
    if (brief(planned) !== brief(seen)) diffs.push(`${w.name}: plan ${brief(planned)}; Kueue ${brief(seen)}`);
    if (w.admittedAt !== null) {
      const a = w.waitsFor.map(nameOf).sort().join(',');
      const b = (r.waitsFor.get(w.name) ?? []).slice().sort().join(',');
      if (a !== b) diffs.push(`${w.name} waited for: plan [${a}]; Kueue [${b}]`);
    }
    if (w.outcome !== 'pending') continue;
    const wl = byOwner.get(w.name);
    const qr = cond(wl, 'QuotaReserved');
    // Kueue v0.19's reasons (UnadmittedWorkloadsObservability) where they are written, else the message's category.
    // A workload Kueue has not evaluated (StrictFIFO keeps it behind the head) has no condition to compare.
    const category = w.pending?.category === 'strict-fifo-blocked' || w.pending?.category === 'not-evaluated' ? 'none' : w.pending?.category;
    const want = qr?.reason && qr.reason !== 'Pending' ? w.reason : category;
    const got = qr?.reason && qr.reason !== 'Pending' ? qr.reason : kueueCategory(wl);
    if (want !== got) diffs.push(`${w.name} pending: plan ${want}; Kueue ${got}`);
  }
  return diffs;
}

/**
 * Runs the scenarios side by side on the cluster, each on its own clock, and compares each with the plan, planned
 * with `kueueConfig`: the Configuration the cluster's Kueue runs with, as the plan reads it.
 */
export async function runTimelineBatch(cluster: TestCluster, kueue: string, scenarios: readonly PlanScenario[], first: number,
  kueueConfig?: KueueConfig): Promise<TimelineOutcome[]> {
  const client = cluster.client;
  const wlApi = `kueue.x-k8s.io/${kueueCapabilities(kueue).apiVersion.split('/')[1]}`;
  const runs = scenarios.map((s, i) => start(s, `t${first + i}`));
  await applyQueues(client, runs.map((r) => r.isolated));
  let all = new Map<string, any[]>();
  const watched = await watchWorkloads(client, wlApi);
  try {
    for (let round = 0; runs.some((r) => !r.done); round++) {
      if (round > 200) throw new Error('the timeline harness ran 200 rounds: a scenario never settles');
      const stepStart = Date.now();
      await Promise.all(runs.filter((r) => !r.done).map((r) => step(client, r)));
      all = await settle(client, wlApi, watched, runs, stepStart);
      for (const r of runs) if (!r.done) observe(r, all.get(r.namespace) ?? []);
    }
  } finally {
    watched.stop();
  }
  return runs.map((r) => ({ scenario: r.scenario, diffs: compare(r, kueue, all.get(r.namespace) ?? [], kueueConfig) }));
}
