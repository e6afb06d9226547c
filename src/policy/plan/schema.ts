/**
 * The plan's result: what the simulator predicts Kueue does with each workload, and why. These
 * interfaces are the JSON schema of `cdk8s-kueue-ray plan --output json` (PLAN_SCHEMA_VERSION bumps on
 * any incompatible change). Quantities are strings in Kubernetes notation ("2.5", "4296Mi").
 */

/** Version of the JSON the plan emits. */
export const PLAN_SCHEMA_VERSION = 2;

/** A resource list: resource name → quantity ("cpu": "2.5"). */
export type PlanResources = Record<string, string>;

/**
 * What happened to a workload at the end of the plan:
 * - `admitted`: quota reserved without preempting anyone;
 * - `admitted-by-preempting`: quota reserved after evicting the workloads in `preempted`;
 * - `pending`: waits for quota (or its queue), see `pending`;
 * - `never-admissible`: the gang can never fit its ClusterQueue as configured (the gangCanEverFit rule, or no
 *   flavor matches its tolerations and node selector: Kueue's NoMatchingFlavor);
 * - `not-queued`: Kueue does not manage it (no queue-name label, or a RayJob that uses clusterSelector).
 */
export type PlanOutcome = 'admitted' | 'admitted-by-preempting' | 'pending' | 'never-admissible' | 'not-queued';

/**
 * Why a workload waits, as a stable category (the `message` has Kueue's wording):
 * - `quota`: not enough unused quota now ("insufficient unused quota");
 * - `max-capacity`: more than the ClusterQueue can ever get ("> maximum capacity");
 * - `topology`: the pods do not fit on the nodes of its TAS flavor even with every TAS workload gone (Kueue's
 *   TopologyPlacementFailed);
 * - `preemption-in-progress`: its victims are still being evicted;
 * - `strict-fifo-blocked`: behind a StrictFIFO head that does not fit;
 * - `inactive`: the ClusterQueue or LocalQueue is stopped (stopPolicy) or missing a flavor;
 * - `misconfigured`: missing LocalQueue/ClusterQueue/priority class, or namespace not selected;
 * - `not-evaluated`: Kueue has not looked at it (a newer arrival cannot change that).
 */
export type PendingCategory = 'quota' | 'max-capacity' | 'topology' | 'preemption-in-progress' | 'strict-fifo-blocked' | 'inactive'
  | 'misconfigured' | 'not-evaluated';

/** One resource that blocks a pending workload, with the numbers. */
export interface PlanShortfall {
  readonly flavor: string;
  readonly resource: string;
  /** What the workload needs of this resource in this flavor (all its PodSets). */
  readonly needs: string;
  /** Unused quota the ClusterQueue can use now (own plus what the cohort can lend). */
  readonly free: string;
  /** The ClusterQueue's nominal quota. */
  readonly nominal: string;
  /** The most the ClusterQueue could ever get (nominal plus borrowing ceiling). */
  readonly maximum: string;
  /** The cohort it would borrow from, if any. */
  readonly cohort?: string;
  /** Set when the borrowingLimit (not the cohort's free quota) is what stops it. */
  readonly borrowingLimitReached?: boolean;
}

export interface PlanPending {
  readonly category: PendingCategory;
  /** Kueue's message (QuotaReserved=False condition), or the simulator's when Kueue would write none. */
  readonly message: string;
  readonly shortfalls: readonly PlanShortfall[];
}

/** The flavor chosen for each resource of a PodSet. */
export interface PlanPodSetAssignment {
  readonly podSet: string;
  readonly count: number;
  /** resource → flavor. */
  readonly flavors: Record<string, string>;
  readonly requests: PlanResources;
  /**
   * Where its pods go on a TAS flavor (Kueue's topologyAssignment): the levels the values name (the hostname alone when
   * the Topology's lowest level is kubernetes.io/hostname) and the pods per domain, in Kueue's order. An addition to
   * schema 2, absent without topology-aware scheduling.
   */
  readonly topology?: PlanTopologyAssignment;
}

export interface PlanTopologyAssignment {
  readonly flavor: string;
  readonly levels: readonly string[];
  readonly domains: ReadonlyArray<{ readonly values: readonly string[]; readonly count: number }>;
}

/** A workload evicted to make room, and why it was chosen. */
export interface PlanVictim {
  /** e.g. "RayJob default/dev-job". */
  readonly workload: string;
  readonly clusterQueue: string;
  readonly priority: number;
  /** Kueue's reason: InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing. */
  readonly reason: string;
  /** Why it was picked, in words (candidate ordering and minimal set). */
  readonly why: string;
}

export interface PlanWorkload {
  /** "Kind namespace/name". */
  readonly workload: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** Position in the arrival order (0-based). */
  readonly arrival: number;
  readonly localQueue?: string;
  readonly clusterQueue?: string;
  readonly priority: number;
  readonly priorityClass?: string;
  readonly outcome: PlanOutcome;
  /** Total requests of the gang. */
  readonly requests: PlanResources;
  /** Set when admitted: the flavor of every PodSet. */
  readonly admission?: readonly PlanPodSetAssignment[];
  /** Set when admitted by preempting: the workloads it evicted. */
  readonly preempted?: readonly PlanVictim[];
  /** Set when this workload was evicted by another one (it may have been readmitted later). */
  readonly preemptedBy?: readonly string[];
  readonly pending?: PlanPending;
  /** Set when never admissible: the gangCanEverFit finding. */
  readonly neverAdmissible?: string;
  /** Set when not queued: why Kueue ignores it. */
  readonly notQueued?: string;
  /** Set for an elastic scale-up slice: the workload whose slice it replaces. */
  readonly scaleUpOf?: string;
  /** Seconds after the plan's start at which it arrives (its plan-arrival annotation, else 0). */
  readonly arrivesAt: number;
  /** When its (last) admission happened, in seconds from the plan's start; null when never within the plan. */
  readonly admittedAt: number | null;
  /** When it finished (admission plus its expected duration); null when not within the plan, or its duration is unknown. */
  readonly finishedAt: number | null;
  /** Its expected duration in seconds (the expected-duration annotation); null when unknown. */
  readonly expectedDuration: number | null;
  /** A RayJob's activeDeadlineSeconds when the duration is unknown: it runs at most this long. */
  readonly atMost?: number;
  /**
   * Admitted after waiting: the workloads whose finish or preemption freed quota in its cohort tree at the instant it
   * was admitted, its own ClusterQueue's first (at most 10). Still pending: the admitted workloads of its cohort tree it
   * waits behind, those finishing first first (at most 10).
   */
  readonly waitsFor: readonly string[];
  /** Its timeline: arrival, admissions, preemptions, scales, finish. */
  readonly events: ReadonlyArray<{ readonly at: number; readonly event: string }>;
  /**
   * Why it is not admitted, as Kueue names it in the QuotaReserved=False condition's reason (v0.19): WaitingForQuota,
   * ExceedsMaxQuota, NoMatchingFlavor, WaitingForPreemptedWorkloads, Suspended, Misconfigured, PendingEvaluation.
   */
  readonly reason?: string;
}

export interface PlanQuota {
  readonly flavor: string;
  readonly resource: string;
  readonly nominal: string;
  readonly borrowingLimit?: string;
  readonly lendingLimit?: string;
  /**
   * Quota used by admitted workloads at the end of the plan; a cohort's: what its members use of the
   * pool (beyond what each keeps for itself with a lendingLimit).
   */
  readonly usage: string;
  /**
   * A cohort's only: what its members use beyond their own quota at the end of the plan (a
   * ClusterQueue's usage above its nominal quota, a child cohort's above what it pools), summed.
   */
  readonly borrowed?: string;
}

export interface PlanClusterQueue {
  readonly name: string;
  readonly cohort?: string;
  readonly queueingStrategy: string;
  /** False when stopPolicy holds it or a flavor it names is missing. */
  readonly active: boolean;
  readonly quotas: readonly PlanQuota[];
  readonly admitted: readonly string[];
  readonly pending: readonly string[];
}

/** A LocalQueue of a ClusterQueue that orders by admission fair sharing, with its usage at the plan's end. */
export interface PlanLocalQueue {
  /** "namespace/name". */
  readonly name: string;
  readonly clusterQueue: string;
  /** spec.fairSharing.weight. */
  readonly weight: number;
  /** What orders the ClusterQueue's workloads (lower first): the weighted consumed history and unsettled penalties, over the weight. */
  readonly usage: number;
  /** The consumed history by resource name, in base units (cores, bytes), as its status' consumedResources holds it. */
  readonly consumed: Readonly<Record<string, number>>;
  /** When the history was last decayed, in seconds from the plan's start. */
  readonly lastUpdate: number;
}

export interface PlanCohort {
  readonly name: string;
  readonly parent?: string;
  readonly clusterQueues: readonly string[];
  /** Quota the cohort pools (what its members lend plus its own), and what members borrow from it. */
  readonly quotas: readonly PlanQuota[];
}

/** One workload a scheduling cycle looked at. */
export interface PlanCandidate {
  readonly workload: string;
  readonly clusterQueue: string;
  /** Fit | Preempt | NoFit, as Kueue's flavor assigner decided. */
  readonly mode: string;
  /** Whether the assignment borrows from the cohort (entries that do not borrow go first). */
  readonly borrows: boolean;
  /** What the cycle did with it. */
  readonly result: 'admitted' | 'preempting' | 'pending' | 'skipped';
  readonly detail: string;
  /** Preemption candidates considered, in Kueue's order, when it needed preemption. */
  readonly preemptionCandidates?: readonly string[];
}

/** One scheduling cycle: the heads of the queues, in the order Kueue processed them. */
export interface PlanCycle {
  readonly cycle: number;
  /** The arrival after which the cycle ran. */
  readonly afterArrival: number;
  readonly candidates: readonly PlanCandidate[];
  /** Workloads whose quota was released at the end of the cycle (preempted victims), or (no candidates) that finished at `at`. */
  readonly released: readonly string[];
  /** Seconds after the plan's start. */
  readonly at: number;
}

export interface PlanResult {
  readonly schemaVersion: number;
  readonly kueueVersion: string;
  readonly workloads: readonly PlanWorkload[];
  readonly clusterQueues: readonly PlanClusterQueue[];
  readonly cohorts: readonly PlanCohort[];
  /** With admission fair sharing on: the LocalQueues of the ClusterQueues that order by it (an addition to schema 2, absent otherwise). */
  readonly localQueues?: readonly PlanLocalQueue[];
  readonly trace: readonly PlanCycle[];
  /**
   * Decisions that hinged on a tie Kueue breaks by timing or by UID (equal timestamps at one-second
   * resolution): the real outcome may differ there.
   */
  readonly ambiguities: readonly string[];
  /** Input problems the plan worked around (e.g. an unknown kind it ignored), with the object named. */
  readonly notes: readonly string[];
  /** Where the timeline stopped: `settled` (nothing more happens) at its last event, or `horizon` (work left) at the horizon. */
  readonly timeline: { readonly ended: 'settled' | 'horizon'; readonly at: number; readonly horizon: number };
  /**
   * The wall-clock time of the plan's start (RFC 3339, UTC) when it has one: `plan --kubeconfig` starts when it read
   * the cluster. Every time in seconds above counts from it. Absent offline (the simulator has no clock).
   */
  readonly startTime?: string;
}
