/**
 * What the plan simulator reads. Its own module, below the simulator's pieces: the cycle reads it and the
 * simulator's entry (simulate.ts) passes it on, so neither imports the other for it.
 */
import type { RayObject } from '../kinds';
import type { KueueConfig } from './kueue-config';

/**
 * A workload Kueue has already admitted (a live cluster's, or a test's setup): its flavor per resource of each PodSet
 * and, on a TAS flavor, where its pods are (the Workload's status.admission.podSetAssignments).
 */
export interface PlanAdmission {
  readonly podSets: ReadonlyArray<{
    readonly name: string;
    readonly flavors: Readonly<Record<string, string>>;
    /** The topology assignment: the levels its values name and the pods per domain. */
    readonly topology?: {
      readonly levels: readonly string[];
      readonly domains: ReadonlyArray<{ readonly values: readonly string[]; readonly count: number }>;
    };
  }>;
}

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
  /**
   * How many of the first arrivals (those at the plan's start) are queued together before the first scheduling cycle,
   * as workloads already pending when the scheduler starts (Kueue's scheduler unit tests set up their cases so); the
   * others each arrive and are scheduled before the next. @default 0
   */
  readonly queuedAtStart?: number;
  /** Keep the per-cycle trace. @default true */
  readonly trace?: boolean;
  /**
   * The plan's start on the wall clock, in seconds since the epoch (a live cluster's read time): LocalQueue usage read
   * from the cluster is aged from its status' lastUpdate. @default - statuses count as updated at the plan's start
   */
  readonly startTime?: number;
  /**
   * Node objects, for topology-aware scheduling: those Ready and schedulable are its nodes (their labels, taints and
   * allocatable). @default - none: a TAS flavor has no nodes
   */
  readonly nodes?: readonly unknown[];
  /**
   * Pods bound to the nodes (spec.nodeName set, not Succeeded or Failed, not placed by TAS): their requests are taken
   * off their nodes' allocatable, as Kueue's non-TAS usage cache does. @default - none
   */
  readonly boundPods?: readonly unknown[];
  /**
   * By arrival index: the arrivals Kueue has already admitted, and how. They hold their quota (and nodes) from their
   * arrival as admitted, without being scheduled again, as Kueue's cache holds them; they pay no admission fair sharing
   * entry penalty (it was paid when they were admitted). @default - none: every arrival is scheduled
   */
  readonly admitted?: ReadonlyArray<PlanAdmission | undefined>;
  /** Where the timeline stops if workloads are still running or arriving: seconds after the plan's start. @default 7 days */
  readonly horizonSeconds?: number;
}
