/**
 * Every refusal site of KubeRay's validation (enumerate.ts), mapped to what covers it:
 * - `rule`: the policy rule that refuses the same object, and a mutant that reaches the site (the oracle,
 *   KubeRay's own functions, must refuse it with the site's message, and the rule must report an error);
 * - `schema`: the CRD refuses the mutant first (an enum, a minimum, a CEL rule), so the site is only
 *   reachable past the API server; the CRD-schema check covers it;
 * - `na`: why the site can never refuse a user's object.
 * `match` is tested on `<function>: <call>`; one entry may cover the same check reworded across versions.
 */
import { clusterSpec, head, rayCluster, rayJob, rayService, worker } from '../support/ray-objects';

export interface SiteMapping {
  readonly match: RegExp;
  readonly rule?: string;
  readonly schema?: string;
  readonly na?: string;
  /** An object that reaches the site, for the KubeRay version. */
  readonly mutant?: (version: string) => any;
  /**
   * The operator's feature gates the site needs. Where they differ from the version's defaults, only the
   * oracle's reach is tested: the policy assumes the default gates.
   */
  readonly gates?: Record<string, boolean>;
  /**
   * The rule warns instead of refusing: the site is in KubeRay's optional webhook (off in the default
   * install), whose check the reconcilers do not repeat.
   */
  readonly warns?: boolean;
}

const gcs = { gcsFaultToleranceOptions: { redisAddress: 'redis:6379' } };
const env = (name: string, value = 'x') => ({ ...head(), template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.52.0',
  env: [{ name, value }] }] } } });
const autoscaling = (extra: Record<string, unknown> = {}) => ({ enableInTreeAutoscaling: true, ...extra });
const deletionRule = (policy: string, condition: Record<string, unknown>) => ({ policy, condition });
const rules = (...deletionRules: unknown[]) => rayJob('job', { shutdownAfterJobFinishes: false, deletionStrategy: { deletionRules } });
const legacy = (onSuccess: unknown, onFailure: unknown, spec: Record<string, unknown> = {}) => rayJob('job',
  { shutdownAfterJobFinishes: false, deletionStrategy: { onSuccess, onFailure }, ...spec });
const selector = { clusterSelector: { 'ray.io/cluster': 'existing' }, rayClusterSpec: undefined };

export const KUBERAY_SITES: readonly SiteMapping[] = [
  // ---- RayCluster
  { match: /ValidateRayClusterStatus:/, na: 'checks the status conditions KubeRay itself writes, not the user\'s spec' },
  { match: /ValidateRayClusterMetadata: .*no more than/, rule: 'rayObjectName', mutant: () => rayCluster('c'.repeat(54)) },
  { match: /ValidateRayClusterMetadata: .*DNS1035/, rule: 'rayObjectName', mutant: () => rayCluster('1cluster') },
  { match: /ValidateRayClusterUpgradeOptions: .*Type value/, schema: 'spec.upgradeStrategy.type enum [Recreate, None]',
    mutant: () => rayCluster('cluster', { upgradeStrategy: { type: 'Rolling' } }) },
  { match: /ValidateRayClusterUpgradeOptions: .*created by/, rule: 'rayClusterConfig',
    mutant: () => rayJob('job', { rayClusterSpec: clusterSpec({ upgradeStrategy: { type: 'Recreate' } }) }) },
  { match: /validateRayGroupResources:/, rule: 'rayClusterConfig',
    mutant: () => rayCluster('cluster', { headGroupSpec: head({ rayStartParams: { 'num-cpus': '1' }, resources: { CPU: '1' } }) }) },
  { match: /validateRayGroupLabels: .*rayStartParams\['labels'\]/, rule: 'rayClusterConfig',
    mutant: () => rayCluster('cluster', { headGroupSpec: head({ rayStartParams: { labels: 'zone=a' } }) }) },
  { match: /validateRayGroupLabels: fmt.Errorf\("%s", strings.Join/, rule: 'rayClusterConfig',
    mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small', { labels: { 'bad key!': 'a' } })] }) },
  { match: /ValidateRayClusterSpec: .*headGroupSpec should have at least one container/, rule: 'podTemplateContainers',
    mutant: () => rayCluster('cluster', { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [] } } } }) },
  { match: /ValidateRayClusterSpec: .*workerGroupSpec should have at least one container/, rule: 'podTemplateContainers',
    mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small', { template: { spec: { containers: [] } } })] }) },
  { match: /ValidateRayClusterSpec: .*must set both minReplicas and maxReplicas/,
    na: 'unreachable on a cluster: the CRD defaults minReplicas to 0 and maxReplicas to 2147483647 before KubeRay reads the object '
      + '(check applies those defaults first)' },
  { match: /ValidateRayClusterSpec: .*negative minReplicas/, rule: 'workerReplicaBounds',
    mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small', { replicas: 0, minReplicas: -1 })] }) },
  { match: /ValidateRayClusterSpec: .*negative maxReplicas/, rule: 'workerReplicaBounds',
    mutant: () => rayCluster('cluster', { enableInTreeAutoscaling: true, workerGroupSpecs: [worker('small', { minReplicas: undefined,
      maxReplicas: -1 })] }) },
  { match: /ValidateRayClusterSpec: .*minReplicas %d greater than maxReplicas/, rule: 'workerReplicaBounds',
    mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small', { minReplicas: 3, maxReplicas: 2 })] }) },
  { match: /ValidateRayClusterSpec: .*annotation and GcsFaultToleranceOptions are both set/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', gcs, { annotations: { 'ray.io/ft-enabled': 'true' } }) },
  { match: /ValidateRayClusterSpec: .*implicitly enables GCS fault tolerance/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', { headGroupSpec: env('RAY_REDIS_ADDRESS', 'redis:6379') }) },
  { match: /ValidateRayClusterSpec: .*`redis-password` in rayStartParams/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', { ...gcs, headGroupSpec: head({ rayStartParams: { 'redis-password': 'p' } }) }) },
  { match: /ValidateRayClusterSpec: .*`REDIS_PASSWORD` env var/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', { ...gcs, headGroupSpec: env('REDIS_PASSWORD') }) },
  { match: /ValidateRayClusterSpec: .*`RAY_REDIS_ADDRESS` env var in head Pod when/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', { ...gcs, headGroupSpec: env('RAY_REDIS_ADDRESS', 'redis:6379') }) },
  { match: /ValidateRayClusterSpec: .*external-storage-namespace/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', gcs, { annotations: { 'ray.io/external-storage-namespace': 'ns' } }) },
  { match: /ValidateRayClusterSpec: .*redis username/, rule: 'gcsFaultTolerance',
    mutant: () => rayCluster('cluster', { headGroupSpec: head({ rayStartParams: { 'redis-username': 'u' } }) }) },
  { match: /ValidateRayClusterSpec: .*can be suspended only when the RayJobDeletionPolicy feature gate/, rule: 'autoscalerConstraints',
    gates: { RayJobDeletionPolicy: false }, mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small', { suspend: true })] }) },
  { match: /ValidateRayClusterSpec: .*cannot be set to '%s' when enableInTreeAutoscaling is false/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', { headGroupSpec: env('RAY_enable_autoscaler_v2', 'true') }) },
  { match: /ValidateRayClusterSpec: .*cannot be suspended with Autoscaler enabled/, rule: 'autoscalerConstraints',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => rayCluster('cluster', autoscaling({ workerGroupSpecs: [worker('small', { suspend: true })] })) },
  { match: /ValidateRayClusterSpec: .*autoscalerOptions.version and head Pod env var/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', autoscaling({ autoscalerOptions: { version: 'v2' }, headGroupSpec: env('RAY_enable_autoscaler_v2',
      'true') })) },
  { match: /ValidateRayClusterSpec: .*restartPolicy for head Pod should be Never or unset when using autoscaler V2/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', autoscaling({ autoscalerOptions: { version: 'v2' },
      headGroupSpec: head({ template: { spec: { restartPolicy: 'Always', containers: [{ name: 'ray-head',
        image: 'rayproject/ray:2.52.0' }] } } }) })) },
  { match: /ValidateRayClusterSpec: .*restartPolicy for worker group %s should be Never/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', autoscaling({ autoscalerOptions: { version: 'v2' }, workerGroupSpecs: [worker('small',
      { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.52.0' }] } } })] })) },
  { match: /ValidateRayClusterSpec: .*autoscalerOptions.idleTimeoutSeconds must be non-negative/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', autoscaling({ autoscalerOptions: { idleTimeoutSeconds: -1 } })) },
  { match: /ValidateRayClusterSpec: .*RayVersion was not specified/, rule: 'rayAuthOptions',
    mutant: () => rayCluster('cluster', { rayVersion: undefined, authOptions: { mode: 'token' } }) },
  { match: /ValidateRayClusterSpec: .*RayVersion format is invalid/, rule: 'rayAuthOptions',
    mutant: () => rayCluster('cluster', { rayVersion: 'latest', authOptions: { mode: 'token' } }) },
  { match: /ValidateRayClusterSpec: .*minimum Ray version is 2.52.0/, rule: 'rayAuthOptions',
    mutant: () => rayCluster('cluster', { rayVersion: '2.46.0', authOptions: { mode: 'token' } }) },
  { match: /ValidateRayClusterSpec: .*enableK8sTokenAuth is enabled but minimum Ray version/, rule: 'rayAuthOptions',
    mutant: () => rayCluster('cluster', { authOptions: { mode: 'token', enableK8sTokenAuth: true } }) },
  { match: /ValidateRayClusterSpec: .*enableK8sTokenAuth is enabled and authOptions.secretName/, rule: 'rayAuthOptions',
    mutant: () => rayCluster('cluster', { rayVersion: '2.55.0', authOptions: { mode: 'token', enableK8sTokenAuth: true, secretName: 's' } }) },
  { match: /ValidateRayClusterSpec: .*enableK8sTokenAuth is enabled but authOptions.mode not set/, rule: 'rayAuthOptions',
    mutant: () => rayCluster('cluster', { authOptions: { enableK8sTokenAuth: true } }) },
  { match: /validateWorkerGroupIdleTimeout: .*must be non-negative/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', autoscaling({ autoscalerOptions: { version: 'v2' }, workerGroupSpecs: [worker('small',
      { idleTimeoutSeconds: -1 })] })) },
  { match: /validateWorkerGroupIdleTimeout: .*autoscaler v2 is not enabled/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', autoscaling({ workerGroupSpecs: [worker('small', { idleTimeoutSeconds: 30 })] })) },

  // ---- RayJob
  { match: /ValidateRayJobStatus:/, na: 'checks the status KubeRay itself writes (JobDeploymentStatus), not the user\'s spec' },
  { match: /ValidateRayJobMetadata: .*no more than/, rule: 'rayObjectName', mutant: () => rayJob('j'.repeat(48)) },
  { match: /ValidateRayJobMetadata: .*DNS1035/, rule: 'rayObjectName', mutant: () => rayJob('1job') },
  { match: /ValidateRayJobSpec: .*shutdownAfterJobFinishes set to false is not allowed to be suspended/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { suspend: true, shutdownAfterJobFinishes: false }) },
  { match: /ValidateRayJobSpec: .*TTLSecondsAfterFinished must be a non-negative integer/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { ttlSecondsAfterFinished: -1 }) },
  { match: /(ValidateRayJobSpec|validateDeletionConfiguration): .*shutdownAfterJobFinishes set to false cannot have TTLSecondsAfterFinished/,
    rule: 'rayJobLifecycle', mutant: () => rayJob('job', { shutdownAfterJobFinishes: false, ttlSecondsAfterFinished: 10 }) },
  { match: /ValidateRayJobSpec: .*ClusterSelector mode doesn't support the suspend operation/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { ...selector, suspend: true }) },
  { match: /ValidateRayJobSpec: .*one of RayClusterSpec or ClusterSelector must be set/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { rayClusterSpec: undefined }) },
  { match: /ValidateRayJobSpec: .*cluster name in ClusterSelector should not be empty/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { clusterSelector: { team: 'a' }, rayClusterSpec: undefined }) },
  { match: /ValidateRayJobSpec: .*ClusterSelector is not supported in SidecarMode/, rule: 'rayJobSubmissionMode',
    mutant: () => rayJob('job', { ...selector, submissionMode: 'SidecarMode' }) },
  { match: /ValidateRayJobSpec: .*BackoffLimit is incompatible with ClusterSelector mode/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { ...selector, backoffLimit: 2 }) },
  { match: /ValidateRayJobSpec: .*BackoffLimit is incompatible with InteractiveMode/, rule: 'rayJobSubmissionMode',
    mutant: () => rayJob('job', { submissionMode: 'InteractiveMode', backoffLimit: 1 }) },
  { match: /ValidateRayJobSpec: .*SidecarMode doesn't support SubmitterPodTemplate/, rule: 'rayJobSubmissionMode',
    mutant: () => rayJob('job', { submissionMode: 'SidecarMode', submitterPodTemplate: { spec: { containers: [{ name: 's', image: 'x' }] } } }) },
  { match: /ValidateRayJobSpec: .*SidecarMode doesn't support SubmitterConfig/, rule: 'rayJobSubmissionMode',
    mutant: () => rayJob('job', { submissionMode: 'SidecarMode', submitterConfig: { backoffLimit: 1 } }) },
  { match: /ValidateRayJobSpec: .*restartPolicy for head Pod should be Never or unset when using SidecarMode/, rule: 'rayJobSubmissionMode',
    mutant: () => rayJob('job', { submissionMode: 'SidecarMode', rayClusterSpec: clusterSpec({ headGroupSpec: head({ template: { spec: {
      restartPolicy: 'Always', containers: [{ name: 'ray-head', image: 'rayproject/ray:2.52.0' }] } } }) }) }) },
  { match: /ValidateRayJobSpec: .*K8s token auth mode is currently not supported for RayJob/, rule: 'rayAuthOptions',
    mutant: () => rayJob('job', { rayClusterSpec: clusterSpec({ rayVersion: '2.55.0', authOptions: { mode: 'token',
      enableK8sTokenAuth: true } }) }) },
  { match: /ValidateRayJobSpec: fmt.Errorf\("The RayJob spec is invalid: %w", err\)/,
    na: 'wraps ValidateRayClusterSpec\'s refusal of spec.rayClusterSpec (each of those sites is mapped above, and the mutants of RayCluster '
      + 'rules hold for a RayJob\'s cluster too)' },
  { match: /ValidateRayJobSpec: return err of .*UnmarshalRuntimeEnvYAML/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { runtimeEnvYAML: 'pip: [torch' }) },
  { match: /ValidateRayJobSpec: .*activeDeadlineSeconds must be a positive integer/, rule: 'rayJobLifecycle',
    mutant: () => rayJob('job', { activeDeadlineSeconds: 0 }) },
  { match: /ValidateRayJobSpec: .*preRunningDeadlineSeconds must be a positive integer/, schema: 'spec.preRunningDeadlineSeconds minimum 1',
    mutant: () => rayJob('job', { preRunningDeadlineSeconds: 0 }) },
  { match: /ValidateRayJobSpec: .*backoffLimit must be a positive integer/, rule: 'rayJobLifecycle', mutant: () => rayJob('job',
    { backoffLimit: -1 }) },
  // KubeRay 1.4's single deletionPolicy field
  { match: /ValidateRayJobSpec: .*RayJobDeletionPolicy feature gate must be enabled to use the DeletionPolicy feature/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: false }, mutant: () => rayJob('job', { shutdownAfterJobFinishes: false, deletionPolicy: 'DeleteCluster' }) },
  { match: /ValidateRayJobSpec: .*ClusterSelector mode doesn't support DeletionPolicy=DeleteCluster/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rayJob('job', { ...selector, shutdownAfterJobFinishes: false,
      deletionPolicy: 'DeleteCluster' }) },
  { match: /ValidateRayJobSpec: .*ClusterSelector mode doesn't support DeletionPolicy=DeleteWorkers/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rayJob('job', { ...selector, shutdownAfterJobFinishes: false,
      deletionPolicy: 'DeleteWorkers' }) },
  { match: /ValidateRayJobSpec: .*DeletionPolicy=DeleteWorkers currently does not support RayCluster with autoscaling/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => rayJob('job', { shutdownAfterJobFinishes: false, deletionPolicy: 'DeleteWorkers', rayClusterSpec: clusterSpec(autoscaling()) }) },
  { match: /ValidateRayJobSpec: .*shutdownAfterJobFinshes is set to 'true' while deletion policy is 'DeleteNone'/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rayJob('job', { deletionPolicy: 'DeleteNone' }) },

  // ---- RayJob deletionStrategy (KubeRay >= 1.5)
  { match: /validateDeletionConfiguration: .*feature gate must be enabled to use DeletionStrategy/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: false }, mutant: () => legacy({ policy: 'DeleteCluster' }, { policy: 'DeleteCluster' }) },
  { match: /validateDeletionConfiguration: .*shutdownAfterJobFinishes and spec.deletionStrategy.deletionRules are mutually exclusive/,
    rule: 'rayJobDeletion', gates: { RayJobDeletionPolicy: true },
    mutant: () => rayJob('job', { deletionStrategy: { deletionRules: [deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED' })] } }) },
  { match: /validateDeletionConfiguration: .*Cannot use both legacy onSuccess\/onFailure fields and deletionRules/,
    schema: 'spec.deletionStrategy x-kubernetes-validations: legacy policies and deletionRules cannot be used together',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rayJob('job', { shutdownAfterJobFinishes: false,
      deletionStrategy: { onSuccess: { policy: 'DeleteCluster' },
        deletionRules: [deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED' })] } }) },
  { match: /validateDeletionConfiguration: .*requires either BOTH onSuccess and onFailure/,
    schema: 'spec.deletionStrategy x-kubernetes-validations: BOTH onSuccess and onFailure, OR deletionRules',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rayJob('job', { shutdownAfterJobFinishes: false, deletionStrategy: {} }) },
  { match: /validateDeletionRules: fmt.Errorf\("deletionRules\[%d\]: %w"/,
    na: 'wraps validateDeletionCondition\'s refusal (its three sites are mapped below)' },
  { match: /validateDeletionRules: .*TTLSeconds must be non-negative/, schema: 'deletionRules[].condition.ttlSeconds minimum 0',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rules(deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED', ttlSeconds: -1 })) },
  { match: /validateDeletionCondition: .*cannot set both JobStatus and JobDeploymentStatus/,
    schema: 'deletionRules[].condition x-kubernetes-validations: JobStatus and JobDeploymentStatus cannot be used together',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rules(deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED',
      jobDeploymentStatus: 'Failed' })) },
  { match: /validateDeletionCondition: .*exactly one of JobStatus and JobDeploymentStatus/,
    schema: 'deletionRules[].condition x-kubernetes-validations: requires either JobStatus or JobDeploymentStatus',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rules(deletionRule('DeleteCluster', { ttlSeconds: 10 })) },
  { match: /validateDeletionCondition: .*TTLSeconds must be non-negative/, schema: 'deletionRules[].condition.ttlSeconds minimum 0',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rules(deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED', ttlSeconds: -1 })) },
  { match: /validateDeletionRules: .*not supported when ClusterSelector is set/, rule: 'rayJobDeletion', gates: { RayJobDeletionPolicy: true },
    mutant: () => rayJob('job', { ...selector, shutdownAfterJobFinishes: false,
      deletionStrategy: { deletionRules: [deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED' })] } }) },
  { match: /validateDeletionRules: .*'DeleteWorkers' not supported with autoscaling enabled/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => rayJob('job', { shutdownAfterJobFinishes: false, rayClusterSpec: clusterSpec(autoscaling()),
      deletionStrategy: { deletionRules: [deletionRule('DeleteWorkers', { jobStatus: 'SUCCEEDED' })] } }) },
  { match: /validateDeletionRules: .*duplicate rule for DeletionPolicyType '%s' and JobStatus/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => rules(deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED' }), deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED',
      ttlSeconds: 5 })) },
  { match: /validateDeletionRules: .*duplicate rule for DeletionPolicyType '%s' and JobDeploymentStatus/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => rules(deletionRule('DeleteCluster', { jobDeploymentStatus: 'Failed' }), deletionRule('DeleteCluster',
      { jobDeploymentStatus: 'Failed' })) },
  { match: /validateTTLConsistency: .*TTL \(%d\) must be >= %s TTL/, rule: 'rayJobDeletion', gates: { RayJobDeletionPolicy: true },
    mutant: () => rules(deletionRule('DeleteWorkers', { jobStatus: 'SUCCEEDED', ttlSeconds: 60 }),
      deletionRule('DeleteCluster', { jobStatus: 'SUCCEEDED', ttlSeconds: 30 })) },
  { match: /validateLegacyDeletionPolicies: .*both DeletionStrategy.OnSuccess and DeletionStrategy.OnFailure must be set/,
    schema: 'spec.deletionStrategy x-kubernetes-validations: BOTH onSuccess and onFailure, OR deletionRules',
    gates: { RayJobDeletionPolicy: true }, mutant: () => rayJob('job', { shutdownAfterJobFinishes: false,
      deletionStrategy: { onSuccess: { policy: 'DeleteCluster' } } }) },
  { match: /validateLegacyDeletionPolicies: .*OnSuccess cannot be unset/, rule: 'rayJobDeletion', gates: { RayJobDeletionPolicy: true },
    mutant: () => legacy({}, { policy: 'DeleteCluster' }) },
  { match: /validateLegacyDeletionPolicies: .*OnFailure cannot be unset/, rule: 'rayJobDeletion', gates: { RayJobDeletionPolicy: true },
    mutant: () => legacy({ policy: 'DeleteCluster' }, {}) },
  { match: /validateLegacyDeletionPolicies: .*doesn't support DeletionStrategy=%s on success/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true }, mutant: () => legacy({ policy: 'DeleteCluster' }, { policy: 'DeleteSelf' }, selector) },
  { match: /validateLegacyDeletionPolicies: .*doesn't support DeletionStrategy=%s on failure/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true }, mutant: () => legacy({ policy: 'DeleteSelf' }, { policy: 'DeleteWorkers' }, selector) },
  { match: /validateLegacyDeletionPolicies: .*DeleteWorkers currently does not support RayCluster with autoscaling/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => legacy({ policy: 'DeleteWorkers' }, { policy: 'DeleteCluster' }, { rayClusterSpec: clusterSpec(autoscaling()) }) },
  { match: /validateLegacyDeletionPolicies: .*shutdownAfterJobFinshes is set to 'true' while deletion policy is 'DeleteNone'/, rule: 'rayJobDeletion',
    gates: { RayJobDeletionPolicy: true },
    mutant: () => legacy({ policy: 'DeleteNone' }, { policy: 'DeleteNone' }, { shutdownAfterJobFinishes: true }) },

  // ---- RayService
  { match: /ValidateRayServiceMetadata: .*no more than/, rule: 'rayObjectName', mutant: () => rayService('s'.repeat(48)) },
  { match: /ValidateRayServiceMetadata: .*DNS1035/, rule: 'rayObjectName', mutant: () => rayService('1service') },
  { match: /ValidateRayServiceMetadata: .*annotations is invalid: %w/,
    na: 'wraps validateInitializingTimeout\'s refusal of the ray.io/initializing-timeout annotation (its three sites are mapped below)' },
  { match: /validateInitializingTimeout: .*must be a positive duration/, rule: 'rayServiceSpec',
    mutant: () => rayService('service', {}, {}, { annotations: { 'ray.io/initializing-timeout': '-5m' } }) },
  { match: /validateInitializingTimeout: .*must be a positive integer \(seconds\)/, rule: 'rayServiceSpec',
    mutant: () => rayService('service', {}, {}, { annotations: { 'ray.io/initializing-timeout': '-5' } }) },
  { match: /validateInitializingTimeout: .*has invalid format/, rule: 'rayServiceSpec',
    mutant: () => rayService('service', {}, {}, { annotations: { 'ray.io/initializing-timeout': 'soon' } }) },
  { match: /ValidateRayServiceSpec: .*K8s token auth mode is currently not supported for RayService/, rule: 'rayAuthOptions',
    mutant: () => rayService('service', {}, { rayVersion: '2.55.0', authOptions: { mode: 'token', enableK8sTokenAuth: true } }) },
  { match: /ValidateRayServiceSpec: fmt.Errorf\("The RayService spec is invalid: %w", err\)/,
    na: 'wraps ValidateRayClusterSpec\'s refusal of spec.rayClusterConfig, or ValidateClusterUpgradeOptions\'s (each of those sites is mapped)' },
  { match: /ValidateRayServiceSpec: .*headService.metadata.name should not be set/, rule: 'rayServiceSpec',
    mutant: () => rayService('service', {}, { headGroupSpec: { ...head(), headService: { metadata: { name: 'my-head' } } } }) },
  { match: /ValidateRayServiceSpec: .*UpgradeStrategy.Type value %s is invalid/, rule: 'rayServiceSpec',
    mutant: () => rayService('service', { upgradeStrategy: { type: 'Rolling' } }) },
  { match: /ValidateRayServiceSpec: .*RayClusterDeletionDelaySeconds should be a non-negative integer/, rule: 'rayServiceSpec',
    mutant: () => rayService('service', { rayClusterDeletionDelaySeconds: -1 }) },
  { match: /ValidateClusterUpgradeOptions:/,
    na: 'reached only with the operator\'s alpha RayServiceIncrementalUpgrade gate on (off by default in every pinned version); the policy '
      + 'assumes the default gates, under which KubeRay never runs these checks' },

  // ---- RayCronJob: a kind this library does not queue
  { match: /ValidateRayCronJobSpec:/, na: 'RayCronJob: Kueue queues no RayCronJob, and neither does this library (check reads it as another kind)' },

  // ---- KubeRay's optional webhooks (off in the default install): the same checks as the reconcilers'
  { match: /^validate(RayCluster|RayJob|RayService|Name): field.Invalid\(field.NewPath\("metadata"\).Child\("name"\)/, rule: 'rayObjectName',
    mutant: () => rayCluster('1cluster') },
  { match: /^validateWorkerGroups: .*worker group names must be unique/, rule: 'uniqueWorkerGroupNames', warns: true,
    mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small'), worker('small')] }) },
];
