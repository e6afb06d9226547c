/**
 * The capability table: what each supported Kueue and KubeRay version can do.
 *
 * One file, pure data, keyed by feature in the manner of Kueue's pkg/features/kube_features.go: each version
 * fact is a named capability stated once, with the upstream version it starts in and any later steps
 * (KUEUE_FEATURES, KUBERAY_FEATURES). Each supported version's capabilities and FIRST_KUEUE_VERSION /
 * FIRST_KUBERAY_VERSION (for "needs >= vX" messages) are read from those steps. The facts come from the upstream
 * sources at each tag (Kueue pkg/controller/jobs/ray*, pkg/controller/jobframework, pkg/features;
 * KubeRay ray-operator/apis and ray-operator/controllers/ray/utils/validation.go). Constructs, the
 * webhook and the preview read it through `kueueCapabilities()` / `kubeRayCapabilities()`; nothing
 * else compares or hard-codes a version.
 */
import type { RayKindName } from './kinds/name';
// The one list of supported versions, JSON so that a shell reads it on a fresh clone (node -p), before any build.
import * as SUPPORTED from './supported-versions.json';

/** Kueue versions this library synthesizes for, oldest first. */
export const SUPPORTED_KUEUE_VERSIONS: readonly string[] = SUPPORTED.kueue;
/** KubeRay versions this library synthesizes for, oldest first. */
export const SUPPORTED_KUBERAY_VERSIONS: readonly string[] = SUPPORTED.kubeRay;
export const DEFAULT_KUEUE_VERSION: string = SUPPORTED.defaultKueue;
export const DEFAULT_KUBERAY_VERSION: string = SUPPORTED.defaultKubeRay;

/**
 * The annotations on the installs' Deployments (KueueInstall, KubeRayInstall, AdmissionController) that
 * record the versions the app was synthesized for; `check` and `plan` read them from dist/.
 */
export const KUEUE_VERSION_ANNOTATION = 'cdk8s-kueue-ray.io/kueue-version';
export const KUBERAY_VERSION_ANNOTATION = 'cdk8s-kueue-ray.io/kuberay-version';

/** How Kueue queues a RayService. */
export type RayServiceQueueing = 'through-raycluster' | 'native';
/** How Kueue handles an elastic (autoscaling) RayJob. */
export type ElasticRayJobMode = 'none' | 'short-term' | 'top-level';

export interface KueueCapabilities {
  readonly version: string;
  /** apiVersion the library emits for ClusterQueue, LocalQueue, ResourceFlavor, WorkloadPriorityClass, Cohort. */
  readonly apiVersion: 'kueue.x-k8s.io/v1beta1' | 'kueue.x-k8s.io/v1beta2';
  /** ClusterQueue field that names the cohort (renamed in v1beta2). */
  readonly cohortField: 'cohort' | 'cohortName';
  /** flavorFungibility values accepted by the emitted API version. */
  readonly whenCanBorrowValues: readonly string[];
  readonly whenCanPreemptValues: readonly string[];
  /** CQ/LQ/Cohort are served through a CRD conversion webhook: Kueue must be Ready before they are applied. */
  readonly conversionWebhook: boolean;
  /** The ElasticJobsViaWorkloadSlices gate is on without configuration. */
  readonly elasticGateDefaultOn: boolean;
  /** Kueue accepts an elastic, autoscaling RayCluster. */
  readonly elasticRayCluster: boolean;
  readonly elasticRayJob: ElasticRayJobMode;
  readonly rayServiceQueueing: RayServiceQueueing;
  /**
   * Kueue suspends a RayService through KubeRay 1.7's top-level spec.suspend. False at every pinned tag (and on Kueue's
   * main branch when KubeRay 1.7.0 was released): 0.17+ reads and toggles spec.rayClusterConfig.suspend
   * (pkg/controller/jobs/rayservice IsSuspended/Suspend/RunWithPodSetsInfo); before, the child RayCluster's own spec.suspend.
   */
  readonly rayServiceTopLevelSuspend: boolean;
  /** Elastic RayService works (through its RayCluster before 0.17, natively after). */
  readonly elasticRayService: boolean;
  /** Workload.spec.podSets maxItems. */
  readonly maxPodSets: number;
  /** ≤0.17 the webhook caps worker groups at 7; ≥0.18 it caps workers+1 at maxPodSets. */
  readonly workerGroupCapStyle: 'seven-workers' | 'workers-plus-head';
  /** The SidecarMode submitter (500m/200Mi) is added to the head PodSet. */
  readonly countsSidecarSubmitter: boolean;
  /** GCS-FT Redis cleanup (200m/256Mi) is max-merged into the head Ray container. */
  readonly countsRedisCleanup: boolean;
  /** The autoscaler sidecar (500m/512Mi or autoscalerOptions.resources) is added to the head PodSet. */
  readonly countsAutoscalerSidecar: boolean;
  /**
   * KubeRay 1.7's history-server collector container, which KubeRay adds to each pod when it creates it, is added to the PodSets.
   * False at every pinned tag: Kueue builds the PodSets from the spec's pod templates, and its Ray integrations add only the
   * autoscaler, the submitter and the Redis cleanup (none reads historyServerOptions).
   */
  readonly countsHistoryServerCollector: boolean;
  /** RayJob with clusterSelector only is skipped; with neither clusterSelector nor rayClusterSpec it is refused. */
  readonly rayJobClusterSelectorRules: boolean;
  /** KubeRay version Kueue builds and e2e-tests against at this tag. */
  readonly testedKubeRay: string;
  /** ClusterQueue field listing admission checks: v1beta1 `admissionChecks` (names), v1beta2 `admissionChecksStrategy`. */
  readonly admissionChecksField: 'admissionChecks' | 'admissionChecksStrategy';
  /**
   * Ray kinds MultiKueue dispatches (pkg/controller/jobs/ray*\/*_multikueue_adapter.go at the tag); empty
   * when this library has not checked the version's adapters.
   */
  readonly multiKueueRayKinds: readonly RayKindName[];
  /**
   * MultiKueue propagates the manager's worker-replica changes of an elastic RayCluster to the worker copy
   * (ElasticReplicaSync in pkg/controller/jobs/ray/ray_multikueue_adapter.go). Before, Ray adapters create the
   * remote copy once, so a scale change never reaches the worker. RayJob and RayService never have it.
   */
  readonly multiKueueElasticRayCluster: boolean;
  /**
   * Kueue also reads the queue name from the deprecated `kueue.x-k8s.io/queue-name` annotation (before
   * 0.15, jobframework QueueNameForObject); from 0.15 only the label counts.
   */
  readonly queueNameAnnotation: boolean;
  /**
   * The kueue.x-k8s.io API versions the API server serves for Kueue's objects: v1beta2 beside v1beta1 from 0.15,
   * v1beta1 no longer from 0.20 (kueue#13957); an object of another one is refused at apply.
   */
  readonly servedApiVersions: readonly string[];
  /**
   * The prebuilt Workload's name is read from the kueue.x-k8s.io/prebuilt-workload-name annotation when set
   * (WorkloadIdentifierAnnotations, beta and on from 0.18); before, only from the label of that name.
   */
  readonly prebuiltWorkloadAnnotation: boolean;
  /** MultiKueueConfig spec.clusters maxItems. */
  readonly multiKueueMaxClusters: number;
  /**
   * The RBAC the manager's kubeconfig needs on a worker, as Kueue's own MultiKueue e2e grants it at the tag
   * (v0.14: test/e2e/multikueue/suite_test.go; v0.17+: test/util/multikueue.go).
   */
  readonly multiKueueWorkerRbac: MultiKueueWorkerRbac;
  /**
   * SchedulingEquivalenceHashing (beta, on by default from 0.18): a BestEffortFIFO ClusterQueue parks
   * a workload found inadmissible together with the waiting workloads of the same priority and PodSet
   * shapes, unevaluated.
   */
  readonly schedulingEquivalenceHashing: boolean;
  /**
   * Workloads parked as inadmissible go back to the queue about 1 s after quota is released in their
   * cohort tree (a batched requeuer, kueue#9232, backported to 0.15.5 and 0.16.2), not at once with the
   * release: the workloads still in the queues (a preemptor at the head, the requeued victim) are
   * scheduled first. Kueue pkg/cache/queue/inadmissible_workloads.go (`AddAfter(..., r.batchPeriod)`).
   */
  readonly batchedInadmissibleRequeue: boolean;
  /**
   * Kueue's webhook refuses any autoscaling Ray object of a kind it integrates ("a kueue managed job
   * should not use autoscaling"): no elastic path at all (0.13).
   */
  readonly refusesAutoscaling: boolean;
  /**
   * Kueue's webhook message for a non-elastic autoscaling RayCluster names the feature gate and the
   * elastic-job annotation (0.18); before, it speaks of an elastic job in general.
   */
  readonly rayClusterAutoscalingNamesAnnotation: boolean;
  /**
   * Kueue's webhook also checks an UPDATE whose old object was queued and whose new one is not
   * (ValidateRayAndSparkJobUpdates, on by default from 0.18); before, only a queued new object.
   */
  readonly validatesUpdateOfFormerlyQueued: boolean;
  /**
   * How Kueue's webhook guards the priority-class label on UPDATE (jobframework.ValidateJobOnUpdate):
   * before 0.15 it may not change while the object runs, nor be removed; from 0.15 it may not be added
   * to a running object, nor be removed.
   */
  readonly priorityClassUpdate: 'immutable-while-running' | 'no-add-while-running';
  /** Kueue's webhook refuses in-tree autoscaling on an elastic RayCluster managed by MultiKueue (0.19). */
  readonly refusesMultiKueueElasticAutoscaling: boolean;
  /**
   * Kueue's webhook checks the kueue.x-k8s.io/admission-gated-by annotation (jobframework ValidateJobOnCreate
   * and ValidateJobOnUpdate, util/webhook/validation_admissiongatedby.go) under the AdmissionGatedBy gate: none
   * before 0.17, Alpha and off at 0.17, Beta and on by default from 0.19 (kube_features.go).
   */
  readonly admissionGatedBy: boolean;
  /**
   * Which Topology-Aware Scheduling annotations of the pod templates Kueue's Ray webhooks check
   * (jobframework/tas_validation.go), assuming the feature gates' defaults: 'none' before 0.14
   * (TopologyAwareScheduling Alpha, off); 'slice' (0.14: topology, slice and podset-group-name annotations);
   * 'multi-layer-gated' (0.17: the podset-slice-required-topology-constraints annotation is refused, its
   * TASMultiLayerTopology gate Alpha and off); 'multi-layer' (0.19: that gate Beta and on, the annotation checked).
   */
  readonly tasAnnotations: 'none' | 'slice' | 'multi-layer-gated' | 'multi-layer';
  /**
   * The RayCluster webhook checks a worker template's TAS annotations only once every PodSet builds (0.19 loops
   * over the built PodSets); before, and for RayJob and RayService, each template is checked regardless.
   */
  readonly tasRayClusterWorkersNeedPodSets: boolean;
  /**
   * How the manager's Configuration turns waitForPodsReady on (apis/config, pkg/util/waitforpodsready):
   * 'enable-field' (v1beta1: `waitForPodsReady.enable`, the timeout defaults to 5 min); 'presence' (0.17: on
   * when the section is there, its timeout required); 'default-on' (0.19: on with a 30-minute timeout even
   * without the section, off only with the DisableWaitForPodsReady feature gate).
   */
  readonly waitForPodsReady: 'enable-field' | 'presence' | 'default-on';
  /** How the Configuration turns fair sharing on: v1beta1 `fairSharing.enable` (strategies defaulted); v1beta2 the section's presence. */
  readonly fairSharingSwitch: 'enable-field' | 'presence';
  /**
   * The dominant resource share's arithmetic (pkg/cache/.../fair_sharing.go): 'integer' up to 0.13
   * (`b*1000/lr`, then `*1000/weight.MilliValue()`, at least 1), 'float' from 0.14 (a double divided by the weight).
   */
  readonly drsArithmetic: 'integer' | 'float';
  /** The Configuration apiVersions the manager decodes (apis/config): v1beta1, and v1beta2 from 0.15 (converted from v1beta1). */
  readonly configApiVersions: readonly string[];
  /** The AdmissionFairSharing gate's default (pkg/features/kube_features.go): Alpha and off from 0.12, Beta and on from 0.15. */
  readonly admissionFairSharingGate: GateDefault;
  /**
   * A LocalQueue of fair-sharing weight 0 has usage +Inf, last in its ClusterQueue (admission_fair_sharing.go CalculateUsage,
   * from 0.19.1). Before, the usage was divided by 0: +Inf with some usage, but NaN when idle, which Go's cmp.Compare
   * sorts first.
   */
  readonly afsZeroWeightLast: boolean;
  /** LocalQueue usage from the manager's history and entry penalties (pkg/cache/queue/afs, 0.14+); 0.13 reads the LocalQueue's status. */
  readonly afsUsageLedger: boolean;
  /** The TopologyAwareScheduling gate's default: Alpha and off from 0.9, Beta and on from 0.14. */
  readonly topologyAwareSchedulingGate: GateDefault;
  /** TASProfileMixed (on from 0.15): unconstrained TAS requests by LeastFreeCapacity, the others by BestFit; before, all BestFit. */
  readonly tasLeastFreeForUnconstrained: boolean;
  /** TASHandleOverlappingFlavors (on from 0.18): hostname-level TAS flavors see each other's usage on a node. */
  readonly tasSharedHostUsage: boolean;
  /** TASRecomputeAssignmentWithinSchedulingCycle (on from 0.19): a placement taken earlier in the cycle is redone, not skipped. */
  readonly tasRecomputeWithinCycle: boolean;
  /** How TAS places a PodSet group's leader with its workers, by patch release: LeaderPlacement (plan/tas-assigner.ts). */
  readonly tasLeaderPlacement: 'first' | 'contributors' | 'prioritized';
  /** FlavorFungibilityPreserveScanProgress (Beta, on; v0.18.6, v0.19.1+): a flavor scan resumes in the next cycle even if the generation moved. */
  readonly flavorScanPreserved: boolean;
  /** FairSharingPreemptWithinNominal: absent before 0.17, Beta and on from 0.17 (a preemptor within nominal preempts without the DRS strategies). */
  readonly fairSharingPreemptWithinNominalGate: GateDefault;
  /** FairSharingPrioritizeNonBorrowing: absent before 0.17, Beta and on from 0.17 (the tournament puts non-borrowing subtrees first). */
  readonly fairSharingPrioritizeNonBorrowingGate: GateDefault;
}

/** A Kueue feature gate at a version: absent (the manager refuses to start when it is set), or its default. */
export type GateDefault = 'absent' | 'off' | 'on';

/** What the manager's ServiceAccount may do on a worker cluster, per Kueue version. */
export interface MultiKueueWorkerRbac {
  /** Verbs on the dispatched objects (Workloads and the Ray kinds). */
  readonly objectVerbs: readonly string[];
  /** Verbs on workloads/status. */
  readonly workloadStatusVerbs: readonly string[];
  /** Verbs on clusterqueues and localqueues (0.19 reads the worker's queues); empty before. */
  readonly queueVerbs: readonly string[];
}

export interface KubeRayCapabilities {
  readonly version: string;
  readonly submissionModes: readonly string[];
  /** RayJob deletion field: `deletionPolicy` (1.4) or `deletionStrategy` (1.5+); the other is pruned. */
  readonly deletionField: 'deletionPolicy' | 'deletionStrategy';
  /** RayService has spec.managedBy. */
  readonly rayServiceManagedBy: boolean;
  /**
   * KubeRay copies rayClusterConfig.suspend onto the running RayCluster in place (kuberay#4686, 1.5-1.6). 1.4 and 1.7 do
   * not: 1.7 applies it only when it creates the RayCluster (kuberay#4841), leaving later toggles to Kueue's own suspend
   * of that RayCluster.
   */
  readonly rayServiceSuspendSync: boolean;
  /**
   * RayService has a top-level spec.suspend (1.7): true deletes every RayCluster and Service the RayService owns, false
   * recreates them. No pinned Kueue reads it (KueueCapabilities.rayServiceTopLevelSuspend).
   */
  readonly rayServiceSuspend: boolean;
  /** RayJob spec.preRunningDeadlineSeconds exists. */
  readonly preRunningDeadline: boolean;
  /**
   * The operator's RayJobDeletionPolicy gate is on by default (1.6). Off, KubeRay refuses any
   * deletionPolicy/deletionStrategy and any worker-group suspend. The policy assumes the default.
   */
  readonly deletionGateDefaultOn: boolean;
  /** RayService spec.upgradeStrategy.type values KubeRay's validation accepts. */
  readonly rayServiceUpgradeTypes: readonly string[];
  /** ValidateRayClusterSpec refuses minReplicas > maxReplicas (1.6; earlier KubeRay uses maxReplicas). */
  readonly refusesMinAboveMax: boolean;
  /** A RayJob's clusterSelector must hold the ray.io/cluster key naming the RayCluster (1.5). */
  readonly clusterSelectorNeedsClusterKey: boolean;
  /** The head env RAY_enable_autoscaler_v2 on needs enableInTreeAutoscaling: true (1.5). */
  readonly autoscalerV2EnvNeedsAutoscaling: boolean;
  /** Groups have `resources` and `labels`, checked against rayStartParams and as Kubernetes labels (1.5). */
  readonly groupResourcesAndLabels: boolean;
  /** Token authentication (authOptions.mode: token, 1.5) and Kubernetes token auth (enableK8sTokenAuth, 1.6). */
  readonly authOptions: 'none' | 'token' | 'token-k8s';
  /** A RayService's ray.io/initializing-timeout annotation and rayClusterDeletionDelaySeconds are checked (1.5). */
  readonly rayServiceExtras: boolean;
  /** RayCluster spec.upgradeStrategy exists, and KubeRay refuses it on a cluster it creates for a RayJob or RayService (1.6). */
  readonly rayClusterUpgradeStrategy: boolean;
  /** autoscalerOptions.idleTimeoutSeconds >= 0 and a worker group's idleTimeoutSeconds (v2 only) are checked (1.6). */
  readonly idleTimeoutChecks: boolean;
  /** Names the operator's `--batch-scheduler` flag accepts (apis/config/v1alpha1 ValidateBatchSchedulerConfig). */
  readonly batchSchedulers: readonly string[];
  /**
   * The RayServiceIncrementalUpgrade gate is on by default (Beta in 1.7): KubeRay then checks a NewClusterWithIncrementalUpgrade
   * RayService's clusterUpgradeOptions (ValidateClusterUpgradeOptions). Off (alpha) before, and the policy assumes the default.
   */
  readonly incrementalUpgradeGateDefaultOn: boolean;
  /** A worker group's priority needs Ray >= 2.56.0 and autoscaler v2 (1.7). */
  readonly workerGroupPriority: boolean;
  /** gcsFaultToleranceOptions has backend (redis, rocksdb) and storage, which KubeRay refuses with the redis backend (1.7). */
  readonly gcsStorageBackend: boolean;
  /** autoscalerOptions.env may not set KUBERAY_GEN_AUTOSCALER_START_CMD, which KubeRay injects (1.7). */
  readonly managedAutoscalerEnv: boolean;
  /**
   * Cluster-spec fields KubeRay refuses unless an alpha operator gate, off by default, is on: field → gate (1.7:
   * historyServerOptions, networkPolicy, tlsOptions, and gcsFaultToleranceOptions.backend rocksdb).
   */
  readonly alphaGatedFields: Readonly<Record<string, string>>;
  /**
   * KubeRay adds the history-server collector container (ray-history-collector; 50m/64Mi requests, 200m/256Mi limits unless
   * collectorOptions.resources) to every head and worker pod it creates when historyServerOptions.collectorOptions is set (1.7).
   * Kueue builds its PodSets from the spec's pod templates, so no pinned Kueue counts it.
   */
  readonly historyServerCollector: boolean;
  /**
   * Why this version is modelled but not run: no test control plane, oracle or e2e builds it. Undefined when it runs.
   * @default - it runs
   */
  readonly notRunBecause?: string;
  readonly operatorImage: string;
}

/**
 * One step of a feature: from `version` (an upstream release) on, the feature has `value`, until a later step.
 * As in Kueue's kube_features.go ({Version, Default, PreRelease}), a feature backed by an upstream gate also gives the
 * gate's pre-release stage at that step; `value` is then what the policy assumes with the gate at its default.
 */
export interface FeatureStep<T> {
  readonly version: string;
  readonly value: T;
  readonly preRelease?: 'Alpha' | 'Beta' | 'GA';
}

/** Each capability's steps, oldest first; the first step is at BEFORE_ANY, the value before any modelled version. */
export type FeatureTable<C> = { readonly [K in keyof C]-?: readonly FeatureStep<C[K]>[] };

/** The version of a feature's first step: its value before any modelled version. */
const BEFORE_ANY = 'v0.0.0';
const V1BETA1 = 'kueue.x-k8s.io/v1beta1';
const V1BETA2 = 'kueue.x-k8s.io/v1beta2';
/** The manager's Configuration API group versions. */
export const CONFIG_V1BETA1 = 'config.kueue.x-k8s.io/v1beta1';
export const CONFIG_V1BETA2 = 'config.kueue.x-k8s.io/v1beta2';

/** Kueue's capabilities other than the version itself. */
type KueueFeatures = Omit<KueueCapabilities, 'version'>;
/** KubeRay's capabilities other than those set per version (the version, its image, why it is not run). */
type KubeRayFeatures = Omit<KubeRayCapabilities, 'version' | 'notRunBecause' | 'operatorImage'>;

const V1BETA1_BORROW = ['Borrow', 'TryNextFlavor'];
const V1BETA1_PREEMPT = ['Preempt', 'TryNextFlavor'];
const V1BETA2_BORROW = ['MayStopSearch', 'TryNextFlavor'];
const V1BETA2_PREEMPT = ['MayStopSearch', 'TryNextFlavor'];
const RBAC_014: MultiKueueWorkerRbac = { objectVerbs: ['create', 'patch', 'delete', 'get', 'list', 'watch'],
  workloadStatusVerbs: ['get', 'patch', 'update'], queueVerbs: [] };
const RBAC_017: MultiKueueWorkerRbac = { objectVerbs: ['create', 'update', 'patch', 'delete', 'get', 'list', 'watch'],
  workloadStatusVerbs: ['get', 'patch', 'update'], queueVerbs: [] };
const RBAC_019: MultiKueueWorkerRbac = { ...RBAC_017, queueVerbs: ['get', 'list', 'watch'] };

/**
 * The Kueue features, each stated once. A step's version is the upstream release where the value starts when this
 * library checked it (every version a "needs >= vX" message names is one); a step marked "first modelled" starts at the
 * first supported version where the value was read, the releases between it and the previous supported one unchecked.
 */
export const KUEUE_FEATURES: FeatureTable<KueueFeatures> = {
  // The v1beta2 API (with its CRD conversion webhook) and the v1beta2 Configuration arrive in 0.16.
  apiVersion: [{ version: BEFORE_ANY, value: V1BETA1 }, { version: 'v0.16.0', value: V1BETA2 }],
  cohortField: [{ version: BEFORE_ANY, value: 'cohort' }, { version: 'v0.16.0', value: 'cohortName' }],
  whenCanBorrowValues: [{ version: BEFORE_ANY, value: V1BETA1_BORROW }, { version: 'v0.16.0', value: V1BETA2_BORROW }],
  whenCanPreemptValues: [{ version: BEFORE_ANY, value: V1BETA1_PREEMPT }, { version: 'v0.16.0', value: V1BETA2_PREEMPT }],
  conversionWebhook: [{ version: BEFORE_ANY, value: false }, { version: 'v0.16.0', value: true }],
  admissionChecksField: [{ version: BEFORE_ANY, value: 'admissionChecks' }, { version: 'v0.16.0', value: 'admissionChecksStrategy' }],
  fairSharingSwitch: [{ version: BEFORE_ANY, value: 'enable-field' }, { version: 'v0.16.0', value: 'presence' }],
  // Read at v0.13.4 (integer) and v0.14.0 (float).
  drsArithmetic: [{ version: BEFORE_ANY, value: 'integer' }, { version: 'v0.14.0', value: 'float' }],
  configApiVersions: [{ version: BEFORE_ANY, value: [CONFIG_V1BETA1] }, { version: 'v0.15.0', value: [CONFIG_V1BETA1, CONFIG_V1BETA2] }],
  admissionFairSharingGate: [{ version: BEFORE_ANY, value: 'off', preRelease: 'Alpha' }, { version: 'v0.15.0', value: 'on', preRelease: 'Beta' }],
  afsZeroWeightLast: [{ version: BEFORE_ANY, value: false }, { version: 'v0.19.1', value: true }],
  afsUsageLedger: [{ version: BEFORE_ANY, value: false }, { version: 'v0.14.0', value: true }],
  topologyAwareSchedulingGate: [{ version: BEFORE_ANY, value: 'off', preRelease: 'Alpha' }, { version: 'v0.14.0', value: 'on', preRelease: 'Beta' }],
  tasLeastFreeForUnconstrained: [{ version: BEFORE_ANY, value: false }, { version: 'v0.15.0', value: true }],
  tasSharedHostUsage: [{ version: BEFORE_ANY, value: false }, { version: 'v0.18.0', value: true }],
  tasRecomputeWithinCycle: [{ version: BEFORE_ANY, value: false }, { version: 'v0.19.0', value: true }],
  tasLeaderPlacement: [{ version: BEFORE_ANY, value: 'first' }, { version: 'v0.17.2', value: 'contributors' },
    { version: 'v0.18.6', value: 'prioritized' }, { version: 'v0.19.0', value: 'contributors' }, { version: 'v0.19.2', value: 'prioritized' }],
  flavorScanPreserved: [{ version: BEFORE_ANY, value: false }, { version: 'v0.18.6', value: true }, { version: 'v0.19.0', value: false },
    { version: 'v0.19.1', value: true }],
  fairSharingPreemptWithinNominalGate: [{ version: BEFORE_ANY, value: 'absent' }, { version: 'v0.17.0', value: 'on', preRelease: 'Beta' }],
  fairSharingPrioritizeNonBorrowingGate: [{ version: BEFORE_ANY, value: 'absent' }, { version: 'v0.17.0', value: 'on', preRelease: 'Beta' }],
  waitForPodsReady: [{ version: BEFORE_ANY, value: 'enable-field' }, { version: 'v0.16.0', value: 'presence' },
    { version: 'v0.19.0', value: 'default-on' }],
  // ElasticJobsViaWorkloadSlices: Alpha and off from 0.13, Beta and on from 0.18.
  elasticGateDefaultOn: [{ version: BEFORE_ANY, value: false, preRelease: 'Alpha' }, { version: 'v0.18.0', value: true, preRelease: 'Beta' }],
  elasticRayCluster: [{ version: BEFORE_ANY, value: false }, { version: 'v0.14.0', value: true }],
  elasticRayJob: [{ version: BEFORE_ANY, value: 'none' }, { version: 'v0.14.7', value: 'short-term' }, { version: 'v0.15.4', value: 'top-level' }],
  elasticRayService: [{ version: BEFORE_ANY, value: false }, { version: 'v0.14.0', value: true }],
  refusesAutoscaling: [{ version: BEFORE_ANY, value: true }, { version: 'v0.14.0', value: false }],
  rayServiceQueueing: [{ version: BEFORE_ANY, value: 'through-raycluster' }, { version: 'v0.17.0', value: 'native' }],
  rayServiceTopLevelSuspend: [{ version: BEFORE_ANY, value: false }],
  // ≤0.17 the webhook caps worker groups at 7; ≥0.18 it caps workers+1 at maxPodSets.
  maxPodSets: [{ version: BEFORE_ANY, value: 8 }, { version: 'v0.18.0', value: 18 }],
  workerGroupCapStyle: [{ version: BEFORE_ANY, value: 'seven-workers' }, { version: 'v0.18.0', value: 'workers-plus-head' }],
  countsSidecarSubmitter: [{ version: BEFORE_ANY, value: false }, { version: 'v0.17.7', value: true }],
  countsRedisCleanup: [{ version: BEFORE_ANY, value: false }, { version: 'v0.17.6', value: true }],
  countsAutoscalerSidecar: [{ version: BEFORE_ANY, value: false }, { version: 'v0.19.0', value: true }],
  countsHistoryServerCollector: [{ version: BEFORE_ANY, value: false }],
  // Backported to 0.13.7 (so 0.13.4 still refuses clusterSelector outright); 0.14.0-0.14.7 not checked.
  rayJobClusterSelectorRules: [{ version: BEFORE_ANY, value: false }, { version: 'v0.13.7', value: true }],
  // First modelled: the KubeRay Kueue builds and e2e-tests against moved between 0.14.8 and 0.17.0.
  testedKubeRay: [{ version: BEFORE_ANY, value: 'v1.4.2' }, { version: 'v0.17.0', value: 'v1.6.2' }],
  queueNameAnnotation: [{ version: BEFORE_ANY, value: true }, { version: 'v0.15.0', value: false }],
  // Past the newest modelled version too: check reads it at the version an install or flag asks for (modelled-version.ts).
  servedApiVersions: [{ version: BEFORE_ANY, value: [V1BETA1] }, { version: 'v0.15.0', value: [V1BETA1, V1BETA2] },
    { version: 'v0.20.0', value: [V1BETA2] }],
  prebuiltWorkloadAnnotation: [{ version: BEFORE_ANY, value: false }, { version: 'v0.18.0', value: true, preRelease: 'Beta' }],
  // MultiKueue is not offered on 0.13.4: its adapters are not in the pinned modules this library was checked against;
  // RayJob and RayCluster from the first pinned version whose adapters were checked, RayService added in 0.17.
  multiKueueRayKinds: [{ version: BEFORE_ANY, value: [] }, { version: 'v0.14.8', value: ['RayJob', 'RayCluster'] },
    { version: 'v0.17.0', value: ['RayJob', 'RayCluster', 'RayService'] }],
  // Checked at v0.19.2 only.
  multiKueueElasticRayCluster: [{ version: BEFORE_ANY, value: false }, { version: 'v0.19.2', value: true }],
  // First modelled.
  multiKueueMaxClusters: [{ version: BEFORE_ANY, value: 10 }, { version: 'v0.17.0', value: 20 }],
  // First modelled: as Kueue's own MultiKueue e2e grants it at the tag.
  multiKueueWorkerRbac: [{ version: BEFORE_ANY, value: RBAC_014 }, { version: 'v0.17.0', value: RBAC_017 }, { version: 'v0.19.0', value: RBAC_019 }],
  schedulingEquivalenceHashing: [{ version: BEFORE_ANY, value: false }, { version: 'v0.17.0', value: false, preRelease: 'Beta' },
    { version: 'v0.18.0', value: true, preRelease: 'Beta' }],
  // Also in 0.15.5+ and 0.16.2+ (backports); not in 0.16.0-0.16.1, which this linear table does not model.
  batchedInadmissibleRequeue: [{ version: BEFORE_ANY, value: false }, { version: 'v0.15.5', value: true }],
  // ValidateRayAndSparkJobUpdates, on by default from 0.18.
  rayClusterAutoscalingNamesAnnotation: [{ version: BEFORE_ANY, value: false }, { version: 'v0.18.0', value: true }],
  validatesUpdateOfFormerlyQueued: [{ version: BEFORE_ANY, value: false }, { version: 'v0.18.0', value: true }],
  priorityClassUpdate: [{ version: BEFORE_ANY, value: 'immutable-while-running' }, { version: 'v0.15.0', value: 'no-add-while-running' }],
  refusesMultiKueueElasticAutoscaling: [{ version: BEFORE_ANY, value: false }, { version: 'v0.19.0', value: true }],
  // The AdmissionGatedBy gate: none before 0.17, Alpha and off at 0.17, Beta and on from 0.19.
  admissionGatedBy: [{ version: BEFORE_ANY, value: false }, { version: 'v0.17.0', value: false, preRelease: 'Alpha' },
    { version: 'v0.19.0', value: true, preRelease: 'Beta' }],
  // TopologyAwareScheduling Alpha and off before 0.14; TASMultiLayerTopology Alpha and off at 0.17, Beta and on from 0.19.
  tasAnnotations: [{ version: BEFORE_ANY, value: 'none' }, { version: 'v0.14.0', value: 'slice' },
    { version: 'v0.17.0', value: 'multi-layer-gated', preRelease: 'Alpha' }, { version: 'v0.19.0', value: 'multi-layer', preRelease: 'Beta' }],
  tasRayClusterWorkersNeedPodSets: [{ version: BEFORE_ANY, value: false }, { version: 'v0.19.0', value: true }],
};

/** The KubeRay features, each stated once; step versions as for KUEUE_FEATURES. */
export const KUBERAY_FEATURES: FeatureTable<KubeRayFeatures> = {
  submissionModes: [{ version: BEFORE_ANY, value: ['K8sJobMode', 'HTTPMode', 'InteractiveMode'] },
    { version: 'v1.5.0', value: ['K8sJobMode', 'HTTPMode', 'InteractiveMode', 'SidecarMode'] }],
  deletionField: [{ version: BEFORE_ANY, value: 'deletionPolicy' }, { version: 'v1.5.0', value: 'deletionStrategy' }],
  rayServiceManagedBy: [{ version: BEFORE_ANY, value: false }, { version: 'v1.6.0', value: true }],
  // kuberay#4686 (1.5-1.6; the RayService pair notes name v1.5.2 and v1.6.1+); 1.7 applies it only at creation (kuberay#4841).
  rayServiceSuspendSync: [{ version: BEFORE_ANY, value: false }, { version: 'v1.5.0', value: true }, { version: 'v1.7.0', value: false }],
  rayServiceSuspend: [{ version: BEFORE_ANY, value: false }, { version: 'v1.7.0', value: true }],
  preRunningDeadline: [{ version: BEFORE_ANY, value: false }, { version: 'v1.6.0', value: true }],
  deletionGateDefaultOn: [{ version: BEFORE_ANY, value: false }, { version: 'v1.6.0', value: true }],
  // The kai-scheduler plugin is new in KubeRay 1.5.
  batchSchedulers: [{ version: BEFORE_ANY, value: ['volcano', 'yunikorn', 'scheduler-plugins'] },
    { version: 'v1.5.0', value: ['volcano', 'yunikorn', 'scheduler-plugins', 'kai-scheduler'] }],
  rayServiceUpgradeTypes: [{ version: BEFORE_ANY, value: ['NewCluster', 'None'] },
    { version: 'v1.5.0', value: ['NewClusterWithIncrementalUpgrade', 'NewCluster', 'None'] }],
  refusesMinAboveMax: [{ version: BEFORE_ANY, value: false }, { version: 'v1.6.0', value: true }],
  clusterSelectorNeedsClusterKey: [{ version: BEFORE_ANY, value: false }, { version: 'v1.5.0', value: true }],
  autoscalerV2EnvNeedsAutoscaling: [{ version: BEFORE_ANY, value: false }, { version: 'v1.5.0', value: true }],
  groupResourcesAndLabels: [{ version: BEFORE_ANY, value: false }, { version: 'v1.5.0', value: true }],
  authOptions: [{ version: BEFORE_ANY, value: 'none' }, { version: 'v1.5.0', value: 'token' }, { version: 'v1.6.0', value: 'token-k8s' }],
  rayServiceExtras: [{ version: BEFORE_ANY, value: false }, { version: 'v1.5.0', value: true }],
  rayClusterUpgradeStrategy: [{ version: BEFORE_ANY, value: false }, { version: 'v1.6.0', value: true }],
  idleTimeoutChecks: [{ version: BEFORE_ANY, value: false }, { version: 'v1.6.0', value: true }],
  // RayServiceIncrementalUpgrade: Alpha and off before 1.7, Beta and on in 1.7.
  incrementalUpgradeGateDefaultOn: [{ version: BEFORE_ANY, value: false, preRelease: 'Alpha' },
    { version: 'v1.7.0', value: true, preRelease: 'Beta' }],
  workerGroupPriority: [{ version: BEFORE_ANY, value: false }, { version: 'v1.7.0', value: true }],
  gcsStorageBackend: [{ version: BEFORE_ANY, value: false }, { version: 'v1.7.0', value: true }],
  managedAutoscalerEnv: [{ version: BEFORE_ANY, value: false }, { version: 'v1.7.0', value: true }],
  alphaGatedFields: [{ version: BEFORE_ANY, value: {} }, { version: 'v1.7.0', value: { historyServerOptions: 'RayClusterHistoryServer',
    networkPolicy: 'RayClusterNetworkPolicy', tlsOptions: 'RayClusterMTLS',
    'gcsFaultToleranceOptions.backend': 'GCSFaultToleranceEmbeddedStorage' } }],
  historyServerCollector: [{ version: BEFORE_ANY, value: false }, { version: 'v1.7.0', value: true }],
};

/**
 * Why a supported KubeRay version is modelled (from its tag's sources) but not run (KubeRayCapabilities.notRunBecause):
 * in the JSON list, so the test-cluster build reads which versions to build.
 */
const KUBERAY_NOT_RUN: Readonly<Record<string, string>> = SUPPORTED.kubeRayNotRun;

/** A feature's value at a version: its last step at or before it. */
export function featureAt<T>(steps: readonly FeatureStep<T>[], version: string): T {
  let value = steps[0].value;
  for (const s of steps) if (compareVersions(s.version, version) <= 0) value = s.value;
  return value;
}

/** Every feature of a table at one version. */
export function featuresAt<C>(table: FeatureTable<C>, version: string): C {
  const out: Record<string, unknown> = {};
  for (const [name, steps] of Object.entries<readonly FeatureStep<unknown>[]>(table)) out[name] = featureAt(steps, version);
  return out as C;
}

/** The version of a feature's first step whose value passes `test` (the "needs >= vX" of that value). */
export function firstVersionWhere<C, K extends keyof C>(table: FeatureTable<C>, feature: K, test: (value: C[K]) => boolean): string {
  const step = table[feature].find((s) => test(s.value));
  if (!step) throw new Error(`no step of ${String(feature)} has the value asked for`);
  return step.version;
}

/** Kueue's capabilities at a version, from KUEUE_FEATURES (`table` replaced to try a hypothetical one). */
export function deriveKueueCapabilities(version: string, table: FeatureTable<KueueFeatures> = KUEUE_FEATURES): KueueCapabilities {
  return { version, ...featuresAt(table, version) };
}

/** KubeRay's capabilities at a version, from KUBERAY_FEATURES (`table` replaced to try a hypothetical one). */
export function deriveKubeRayCapabilities(version: string, table: FeatureTable<KubeRayFeatures> = KUBERAY_FEATURES): KubeRayCapabilities {
  const notRunBecause = KUBERAY_NOT_RUN[version];
  return {
    version, ...featuresAt(table, version), ...(notRunBecause ? { notRunBecause } : {}), operatorImage: `quay.io/kuberay/operator:${version}`,
  };
}

const KUEUE: Record<string, KueueCapabilities> = Object.fromEntries(SUPPORTED_KUEUE_VERSIONS.map((v) => [v, deriveKueueCapabilities(v)]));
const KUBERAY: Record<string, KubeRayCapabilities> = Object.fromEntries(SUPPORTED_KUBERAY_VERSIONS.map((v) => [v, deriveKubeRayCapabilities(v)]));

/** The supported KubeRay versions that are built and run (operator, oracle, e2e); the others are modelled from their sources only. */
export const RUN_KUBERAY_VERSIONS: readonly string[] = SUPPORTED_KUBERAY_VERSIONS.filter((v) => !KUBERAY[v].notRunBecause);

const firstKueue = <K extends keyof KueueFeatures>(f: K, test: (value: KueueFeatures[K]) => boolean): string =>
  firstVersionWhere(KUEUE_FEATURES, f, test);
const firstKubeRay = <K extends keyof KubeRayFeatures>(f: K, test: (value: KubeRayFeatures[K]) => boolean): string =>
  firstVersionWhere(KUBERAY_FEATURES, f, test);

/**
 * The first version of each feature, for "needs Kueue >= vX" messages, read from KUEUE_FEATURES. These are upstream
 * release versions (not necessarily versions this library supports), so the message tells the user what to upgrade to.
 */
export const FIRST_KUEUE_VERSION = {
  elasticRayCluster: firstKueue('elasticRayCluster', (v) => v),
  elasticRayJob: firstKueue('elasticRayJob', (v) => v !== 'none'),
  elasticRayJobTopLevel: firstKueue('elasticRayJob', (v) => v === 'top-level'),
  /** The queue-name annotation is no longer read. */
  queueNameLabelOnly: firstKueue('queueNameAnnotation', (v) => !v),
  elasticRayService: firstKueue('elasticRayService', (v) => v),
  nativeRayService: firstKueue('rayServiceQueueing', (v) => v === 'native'),
  v1beta2: firstKueue('apiVersion', (v) => v === 'kueue.x-k8s.io/v1beta2'),
  sidecarModeAccounting: firstKueue('countsSidecarSubmitter', (v) => v),
  autoscalerAccounting: firstKueue('countsAutoscalerSidecar', (v) => v),
  /** First pinned version whose MultiKueue Ray adapters (RayJob, RayCluster) this library checked. */
  multiKueueRay: firstKueue('multiKueueRayKinds', (v) => v.includes('RayJob')),
  multiKueueRayService: firstKueue('multiKueueRayKinds', (v) => v.includes('RayService')),
  /** First pinned version with MultiKueue elastic RayCluster replica sync (checked at v0.19.2 only). */
  multiKueueElasticRayCluster: firstKueue('multiKueueElasticRayCluster', (v) => v),
  /** priorityClassUpdate 'no-add-while-running'. */
  priorityClassAddWhenSuspended: firstKueue('priorityClassUpdate', (v) => v === 'no-add-while-running'),
  /** rayClusterAutoscalingNamesAnnotation, validatesUpdateOfFormerlyQueued (ValidateRayAndSparkJobUpdates). */
  validateRayUpdates: firstKueue('validatesUpdateOfFormerlyQueued', (v) => v),
  /** refusesMultiKueueElasticAutoscaling. */
  multiKueueElasticAutoscalingRefused: firstKueue('refusesMultiKueueElasticAutoscaling', (v) => v),
  /** tasAnnotations 'multi-layer': TASMultiLayerTopology Beta and on by default (Alpha and off from 0.17.0). */
  tasMultiLayerTopologyOn: firstKueue('tasAnnotations', (v) => v === 'multi-layer'),
  /** admissionGatedBy: the AdmissionGatedBy gate Beta and on by default (Alpha and off from 0.17.0). */
  admissionGatedByOn: firstKueue('admissionGatedBy', (v) => v),
  /** batchedInadmissibleRequeue (also in 0.15.5+ and 0.16.2+, backports; not in 0.16.0-0.16.1). */
  batchedInadmissibleRequeue: firstKueue('batchedInadmissibleRequeue', (v) => v),
} as const;

/** The first version of each KubeRay feature, for "needs KubeRay >= vX" messages, read from KUBERAY_FEATURES. */
export const FIRST_KUBERAY_VERSION = {
  sidecarMode: firstKubeRay('submissionModes', (v) => v.includes('SidecarMode')),
  deletionStrategy: firstKubeRay('deletionField', (v) => v === 'deletionStrategy'),
  rayServiceManagedBy: firstKubeRay('rayServiceManagedBy', (v) => v),
  preRunningDeadline: firstKubeRay('preRunningDeadline', (v) => v),
  /** clusterSelectorNeedsClusterKey, autoscalerV2EnvNeedsAutoscaling. */
  clusterSelectorClusterKey: firstKubeRay('clusterSelectorNeedsClusterKey', (v) => v),
  rayServiceSuspend: firstKubeRay('rayServiceSuspend', (v) => v),
  workerGroupPriority: firstKubeRay('workerGroupPriority', (v) => v),
  historyServer: firstKubeRay('historyServerCollector', (v) => v),
} as const;

/** `v` trimmed, with its leading `v` (users write both). */
export function normalizeVersion(v: string): string {
  const t = v.trim();
  return t.startsWith('v') ? t : `v${t}`;
}

/** The kueue.x-k8s.io API versions Kueue `version` serves, for any version, modelled or newer (servedApiVersions). */
export function kueueServedApiVersions(version: string): readonly string[] {
  return featureAt(KUEUE_FEATURES.servedApiVersions, normalizeVersion(version));
}

/** Capabilities of a supported Kueue version; throws a message listing the supported ones otherwise. */
export function kueueCapabilities(version: string): KueueCapabilities {
  const caps = KUEUE[normalizeVersion(version)];
  if (!caps) {
    throw new Error(`Kueue version '${version}' is not supported: choose one of ${SUPPORTED_KUEUE_VERSIONS.join(', ')} `
      + `(default ${DEFAULT_KUEUE_VERSION}).`);
  }
  return caps;
}

/** Capabilities of a supported KubeRay version; throws a message listing the supported ones otherwise. */
export function kubeRayCapabilities(version: string): KubeRayCapabilities {
  const caps = KUBERAY[normalizeVersion(version)];
  if (!caps) {
    throw new Error(`KubeRay version '${version}' is not supported: choose one of ${SUPPORTED_KUBERAY_VERSIONS.join(', ')} `
      + `(default ${DEFAULT_KUBERAY_VERSION}).`);
  }
  return caps;
}

/** Compares two `vX.Y.Z` strings numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = normalizeVersion(a).slice(1).split('.').map(Number);
  const pb = normalizeVersion(b).slice(1).split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
