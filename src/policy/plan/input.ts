/**
 * What the plan simulator reads. Its own module, below the simulator's pieces: the cycle reads it and the
 * simulator's entry (simulate.ts) passes it on, so neither imports the other for it.
 */
import type { RayObject } from '../kinds';
import type { KueueConfig } from './kueue-config';

export interface PlanInput {
  /** ClusterQueues, Cohorts, ResourceFlavors, LocalQueues, WorkloadPriorityClasses (and Namespaces, for selectors). Other kinds are ignored. */
  readonly kueueObjects: readonly unknown[];
  /**
   * Ray objects (RayJob, RayCluster, RayService) in arrival order. An elastic object that arrives
   * again with other worker replicas is a scale (up: a new Workload slice; down: in place).
   */
  readonly arrivals: readonly RayObject[];
  /** @default DEFAULT_KUEUE_VERSION (v0.19.2) */
  readonly kueueVersion?: string;
  /** The KubeRay version, for the never-admissible check (gangCanEverFit). @default DEFAULT_KUBERAY_VERSION (v1.6.2) */
  readonly kubeRayVersion?: string;
  /**
   * Kueue's manager Configuration as kueueConfigOf normalized it (fair sharing, admission fair sharing, the
   * decision gates). @default - Kueue's defaults: fair sharing off
   */
  readonly kueueConfig?: KueueConfig;
  /** Keep the per-cycle trace. @default true */
  readonly trace?: boolean;
  /** Where the timeline stops if workloads are still running or arriving: seconds after the plan's start. @default 7 days */
  readonly horizonSeconds?: number;
}
