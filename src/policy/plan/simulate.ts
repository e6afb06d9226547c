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
 * - render.ts: the result, with Kueue's messages.
 * Pure and deterministic: no I/O, no clock.
 */
import type { RayObject } from '../kinds';
import { PlanSimulator } from './cycle';
import { renderPlan } from './render';
import type { PlanResult } from './schema';

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
  /** Where the timeline stops if workloads are still running or arriving: seconds after the plan's start. @default 7 days */
  readonly horizonSeconds?: number;
}

/** Plans `input`: what Kueue admits, keeps pending or preempts, and why. */
export function simulatePlan(input: PlanInput): PlanResult {
  return renderPlan(new PlanSimulator(input).run());
}
