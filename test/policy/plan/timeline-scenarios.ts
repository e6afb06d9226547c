/**
 * Scenarios on the plan's timeline (issue 43), shared by the simulator's unit tests and the timeline agreement
 * against the real Kueue: each Ray object carries its arrival (plan-arrival) and how long it runs once admitted
 * (expected-duration), in whole minutes. The fixed ones are the stories the timeline must tell right; the random
 * ones are the random plan scenarios with times drawn from the same seed.
 */
import { simulatePlan, type KueueConfig, type PlanResult } from '../../../src/policy/plan';
import { builder, clusterQueue, CQSpec, flavor, localQueue, PlanScenario, prng, randomScenario, rayCluster, toyRayJob, wpc } from './scenarios';

/** The object with its arrival and expected duration, in minutes after the plan's start. */
export function timed(obj: any, arrivalMin: number, durationMin: number): any {
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...(obj.metadata.annotations ?? {}),
    'cdk8s-kueue-ray.io/plan-arrival': `${arrivalMin}m`, 'cdk8s-kueue-ray.io/expected-duration': `${durationMin}m` } } };
}

const rc = (name: string, lq: string, cpu: number, priority?: string) => rayCluster(name, { lq, priority, headCpu: String(cpu) });

/** The fixed timeline scenarios for a Kueue version: the guide's two toy jobs, a restart after preemption, reclaim, waits, FIFO. */
export function fixedTimelineScenarios(kueueVersion: string): PlanScenario[] {
  const b = builder(kueueVersion);
  const base = [flavor(b, 'f1'), wpc(b, 'low', 10), wpc(b, 'mid', 50), wpc(b, 'high', 100), wpc(b, 'dev-priority', 100)];
  const one = (name: string, cq: CQSpec, arrivals: any[]): PlanScenario => ({
    name, objects: [...base, clusterQueue(b, 'cq', cq), localQueue(b, 'lq', 'cq')], arrivals,
  });
  const pair = (name: string, a: CQSpec, bb: CQSpec, arrivals: any[]): PlanScenario => ({
    name, objects: [...base, clusterQueue(b, 'cq-a', a), clusterQueue(b, 'cq-b', bb), localQueue(b, 'lq-a', 'cq-a'), localQueue(b, 'lq-b', 'cq-b')],
    arrivals,
  });
  return [
    // The guide's loop: two 2.5 CPU toy jobs of about 10 minutes on the 3 CPU queue; the second starts when the first ends.
    one('timeline-guide-toy-jobs', { quotas: [{ flavor: 'f1', cpu: '3' }], within: 'LowerPriority' },
      [timed(toyRayJob('dev-1', 'lq', 'dev-priority'), 0, 10), timed(toyRayJob('dev-2', 'lq', 'dev-priority'), 0, 10)]),
    // The high job preempts the low one at 2m; the low one starts over when the high one finishes (7m), until 17m.
    one('timeline-preemption-restart', { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' },
      [timed(rc('low', 'lq', 3, 'low'), 0, 10), timed(rc('high', 'lq', 3, 'high'), 2, 5)]),
    // a borrows from cq-b; b reclaims it at 5m; a runs again from b's finish (10m) for its whole 20 minutes.
    pair('timeline-reclaim-in-cohort', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }], reclaim: 'Any' },
      [timed(rc('a', 'lq-a', 3), 0, 20), timed(rc('b', 'lq-b', 2), 5, 5)]),
    // BestEffortFIFO: c (1 CPU) passes the waiting b (3 CPU) at 2m; b starts when a finishes.
    one('timeline-best-effort-small-passes', { quotas: [{ flavor: 'f1', cpu: '4' }] },
      [timed(rc('a', 'lq', 3), 0, 10), timed(rc('b', 'lq', 3), 1, 10), timed(rc('c', 'lq', 1), 2, 5)]),
    // c waits; when a finishes it still needs b's quota and preempts b: it waited for both.
    one('timeline-waits-then-preempts', { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' },
      [timed(rc('a', 'lq', 1.5, 'high'), 0, 3), timed(rc('b', 'lq', 2, 'low'), 0, 8), timed(rc('c', 'lq', 3, 'mid'), 0, 5)]),
    // A preemptor preempted in turn: j1 preempts j0 at once, j3 preempts j1 at 3m; at 6m j1 starts again, having waited for
    // j3 alone (random timeline 4280, where the plan also named j0).
    one('timeline-readmitted-waits-anew', { quotas: [{ flavor: 'f1', cpu: '2' }], within: 'LowerOrNewerEqualPriority' },
      [timed(rc('j0', 'lq', 1.5, 'low'), 0, 7), timed(rc('j1', 'lq', 2, 'mid'), 0, 4), timed(rc('j2', 'lq', 1.5, 'low'), 1, 3),
        timed(rc('j3', 'lq', 1.5, 'high'), 3, 3)]),
    // StrictFIFO: c waits behind b; both start when a finishes.
    one('timeline-strict-fifo-waits', { quotas: [{ flavor: 'f1', cpu: '4' }], strict: true },
      [timed(rc('a', 'lq', 3), 0, 10), timed(rc('b', 'lq', 3), 1, 10), timed(rc('c', 'lq', 1), 2, 5)]),
  ];
}

/** A random plan scenario with arrivals 0-3 minutes apart (0: the same instant, in order) and durations of 1-8 minutes. */
export function randomTimelineScenario(kueueVersion: string, seed: number): PlanScenario {
  const s = randomScenario(kueueVersion, seed);
  const r = prng(seed ^ 0x5eed);
  let at = 0;
  const arrivals = s.arrivals.map((o, i) => {
    if (i > 0) at += Math.floor(r() * 4);
    return timed(o, at, 1 + Math.floor(r() * 8));
  });
  return { name: `timeline-${s.name}`, objects: s.objects, arrivals };
}

/**
 * Why the real Kueue may tell this timeline otherwise, by timing alone; undefined when nothing does. Beside the plan's
 * own ambiguities (ties Kueue breaks by UID), two workloads finishing at one instant: the plan frees both before it
 * schedules, while Kueue sees the two finishes one after the other and may admit between them.
 */
export function timelineAmbiguity(plan: PlanResult): string | undefined {
  if (plan.ambiguities.length) return plan.ambiguities[0];
  const finishes = new Map<number, string[]>();
  for (const w of plan.workloads) {
    for (const e of w.events) if (e.event === 'finished') finishes.set(e.at, [...(finishes.get(e.at) ?? []), w.name]);
  }
  const both = [...finishes].find(([, names]) => names.length > 1);
  return both ? `${both[1].join(' and ')} finish at ${both[0]} s` : undefined;
}

/**
 * Random timeline scenarios from `seed` on, skipping the ambiguous ones (as planned with `kueueConfig`: fair sharing
 * has ties and loops of its own).
 */
export function randomTimelineScenarios(kueueVersion: string, seed: number, count: number, kueueConfig?: KueueConfig,
  make: (kueueVersion: string, seed: number) => PlanScenario = randomTimelineScenario): { scenarios: PlanScenario[]; skipped: number } {
  const scenarios: PlanScenario[] = [];
  let skipped = 0;
  for (let s = seed; scenarios.length < count; s++) {
    const sc = make(kueueVersion, s);
    if (timelineAmbiguity(simulatePlan({ kueueObjects: sc.objects, arrivals: sc.arrivals, kueueVersion, trace: false, kueueConfig }))) skipped++;
    else scenarios.push(sc);
  }
  return { scenarios, skipped };
}
