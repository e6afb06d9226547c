/**
 * The plan simulator: replays Kueue's scheduler (classical mode, no fair sharing, no TAS) over Kueue
 * objects and Ray workloads that arrive in order, and says for each workload what Kueue will do and why.
 *
 * Model (Kueue v0.19.2 pkg/scheduler, pkg/cache, pkg/queue), in Kueue's pieces:
 * - snapshot.ts: ClusterQueues, Cohorts and flavors with the quota tree (pkg/cache/scheduler);
 * - flavor-assigner.ts: a flavor per PodSet and resource (flavor fungibility, borrowing levels,
 *   preemption oracle), as an Assignment (flavorassigner/);
 * - preemptor.ts: the targets of a preempting workload (classical candidates, remove-then-fill-back
 *   minimal set), with the candidate order in ordering.ts (preemption/, preemption/common/ordering.go);
 * - cycle.ts: arrivals and scheduling cycles until nothing changes; BestEffortFIFO parks a workload
 *   until quota is released in its cohort tree, StrictFIFO keeps it at the head (scheduler.go); on a
 *   timeline, objects arrive at their plan-arrival time and admitted ones finish after their expected
 *   duration, releasing their quota;
 * - render.ts: the result, with Kueue's messages;
 * - input.ts: what the simulator reads.
 * Pure and deterministic: no I/O, no clock.
 */
import { PlanSimulator } from './cycle';
import type { PlanInput } from './input';
import { renderPlan } from './render';
import type { PlanResult } from './schema';

/** Plans `input`: what Kueue admits, keeps pending or preempts, and why. */
export function simulatePlan(input: PlanInput): PlanResult {
  return renderPlan(new PlanSimulator(input).run());
}
