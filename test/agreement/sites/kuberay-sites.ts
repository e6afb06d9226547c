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
import type { Covered } from './sites';

export interface SiteMapping extends Covered {
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

const upgradeGate = { RayServiceIncrementalUpgrade: true };
const incremental = (options: unknown, autoscaling = true) => rayService('service', { upgradeStrategy: { type: 'NewClusterWithIncrementalUpgrade',
  clusterUpgradeOptions: options } }, { enableInTreeAutoscaling: autoscaling });
const upgradeOptions = { gatewayClassName: 'istio', stepSizePercent: 10, intervalSeconds: 30, maxSurgePercent: 50 };
const UPGRADE_OPTION_SITES: readonly SiteMapping[] = [
  { match: /ValidateClusterUpgradeOptions: .*Ray Autoscaler is required/, rule: 'rayServiceSpec', gates: upgradeGate,
    mutant: () => incremental(upgradeOptions, false) },
  { match: /ValidateClusterUpgradeOptions: .*ClusterUpgradeOptions are required/, rule: 'rayServiceSpec', gates: upgradeGate,
    mutant: () => incremental(undefined) },
  { match: /ValidateClusterUpgradeOptions: .*maxSurgePercent must be between/, rule: 'rayServiceSpec', gates: upgradeGate,
    mutant: () => incremental({ ...upgradeOptions, maxSurgePercent: 101 }) },
  { match: /ValidateClusterUpgradeOptions: .*stepSizePercent must be between/, rule: 'rayServiceSpec', gates: upgradeGate,
    mutant: () => incremental({ ...upgradeOptions, stepSizePercent: -1 }) },
  { match: /ValidateClusterUpgradeOptions: .*stepSizePercent must be less than or equal to maxSurgePercent/, rule: 'rayServiceSpec',
    gates: upgradeGate, mutant: () => incremental({ ...upgradeOptions, stepSizePercent: 60 }) },
  { match: /ValidateClusterUpgradeOptions: .*intervalSeconds must be greater than 0/, rule: 'rayServiceSpec', gates: upgradeGate,
    mutant: () => incremental({ ...upgradeOptions, intervalSeconds: 0 }) },
  { match: /ValidateClusterUpgradeOptions: .*gatewayClassName is required/, rule: 'rayServiceSpec', gates: upgradeGate,
    mutant: () => incremental({ ...upgradeOptions, gatewayClassName: '' }) },
];

/** A head with extra container or pod settings. */
const headWith = (container: Record<string, unknown>, pod: Record<string, unknown> = {}) => head({ template: { spec: {
  containers: [{ name: 'ray-head', image: 'rayproject/ray:2.52.0', ...container }], ...pod } } });
const workerWith = (name: string, container: Record<string, unknown>) => worker(name, { template: { spec: { containers: [{ name, image: 'x',
  ...container }] } } });
const s3 = [{ name: 'STORAGE_BACKEND', value: 'S3' }, { name: 'S3_REGION', value: 'us-east-1' }];
const collector = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) => rayCluster('cluster', {
  historyServerOptions: { collectorOptions: { image: 'collector', ...options } }, ...extra });
const historyGate = { RayClusterHistoryServer: true };
const rocksdb = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) => rayCluster('cluster', {
  gcsFaultToleranceOptions: { backend: 'rocksdb', ...options }, ...extra });
const rocksdbGate = { GCSFaultToleranceEmbeddedStorage: true };
const np = (policy: Record<string, unknown>, extra: Record<string, unknown> = {}) => rayCluster('cluster', { networkPolicy: policy, ...extra });
const npGate = { RayClusterNetworkPolicy: true };
const tls = (extra: Record<string, unknown>) => rayCluster('cluster', { tlsOptions: { enabled: true }, ...extra });
const tlsGate = { RayClusterMTLS: true };
const tlsMount = { volumeMounts: [{ name: 'ray-tls', mountPath: '/certs' }] };
const prio = (cluster: Record<string, unknown>) => rayCluster('cluster', { workerGroupSpecs: [worker('small', { priority: 1 })], ...cluster });

/** KubeRay 1.7's new sites. Those behind an alpha gate (off by default) name it: KubeRay refuses the field at the gate first. */
const KUBERAY_17_SITES: readonly SiteMapping[] = [
  { match: /ValidateRayClusterSpec: .*autoscalerOptions.env must not contain/, rule: 'autoscalerConstraints',
    mutant: () => rayCluster('cluster', { autoscalerOptions: { env: [{ name: 'KUBERAY_GEN_AUTOSCALER_START_CMD', value: 'x' }] } }) },
  { match: /validateWorkerGroupPriority: .*RayVersion was not specified/, rule: 'kubeRayClusterFeatures',
    mutant: () => prio({ rayVersion: undefined }) },
  { match: /validateWorkerGroupPriority: .*RayVersion format is invalid/, rule: 'kubeRayClusterFeatures', mutant: () => prio({ rayVersion: 'latest' }) },
  { match: /validateWorkerGroupPriority: .*minimum Ray version is 2.56.0/, rule: 'kubeRayClusterFeatures', mutant: () => prio({}) },
  { match: /validateWorkerGroupPriority: .*autoscaler v2 is not enabled/, rule: 'kubeRayClusterFeatures', mutant: () => prio({ rayVersion: '2.56.0' }) },
  // History server (RayClusterHistoryServer, alpha)
  { match: /ValidateRayClusterSpec: .*RayClusterHistoryServer feature gate is not enabled/, rule: 'kubeRayAlphaGates', warns: true,
    mutant: () => collector({ env: s3 }) },
  { match: /ValidateRayClusterSpec: .*historyServerOptions.collectorOptions must be set/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => rayCluster('cluster', { historyServerOptions: {} }) },
  { match: /ValidateRayClusterSpec: .*head pod template must not define a container with name/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: s3 }, { headGroupSpec: headWith({ name: 'ray-history-collector' }) }) },
  { match: /ValidateRayClusterSpec: .*worker group %s pod template must not define a container/, rule: 'kubeRayClusterFeatures',
    gates: historyGate, mutant: () => collector({ env: s3 }, { workerGroupSpecs: [workerWith('ray-history-collector', {})] }) },
  { match: /validateCollectorOptions: .*collectorOptions.image must be set/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ image: '', env: s3 }) },
  { match: /validateCollectorOptions: .*collectorOptions.env must not contain/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [...s3, { name: 'POD_IP', value: 'x' }] }) },
  { match: /validateCollectorOptions: .*must be set with a literal string value/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [] }) },
  { match: /validateCollectorOptions: .*must be set when %s is GCS/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'GCS' }] }) },
  { match: /validateCollectorOptions: .*must be set when %s is S3/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [s3[0]] }) },
  { match: /validateCollectorOptions: .*AZUREBLOB and %s is connection_string/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'AZUREBLOB' },
      { name: 'AZURE_STORAGE_AUTH_MODE', value: 'connection_string' }] }) },
  { match: /validateCollectorOptions: .*AZUREBLOB and %s is %s"/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'AZUREBLOB' }, { name: 'AZURE_STORAGE_AUTH_MODE', value: 'default' }] }) },
  { match: /validateCollectorOptions: .*either %s or %s environment variable must be set when %s is AZUREBLOB/, rule: 'kubeRayClusterFeatures',
    gates: historyGate, mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'azureblob' }] }) },
  { match: /validateCollectorOptions: .*ALIYUN_BUCKET, STORAGE_BACKEND/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'ALIYUNOSS' }] }) },
  { match: /validateCollectorOptions: .*ALIYUN_ENDPOINT, STORAGE_BACKEND/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'ALIYUNOSS' }, { name: 'OSS_BUCKET', value: 'b' }] }) },
  { match: /validateCollectorOptions: .*ALIYUN_REGION, STORAGE_BACKEND/, rule: 'kubeRayClusterFeatures', gates: historyGate,
    mutant: () => collector({ env: [{ name: 'STORAGE_BACKEND', value: 'ALIYUNOSS' }, { name: 'OSS_BUCKET', value: 'b' },
      { name: 'OSS_ENDPOINT', value: 'e' }] }) },
  // GCS fault tolerance storage backend (the embedded RocksDB store: GCSFaultToleranceEmbeddedStorage, alpha)
  { match: /validateGcsFaultToleranceBackend: .*embedded RocksDB GCS fault tolerance backend .* requires the %s feature gate/,
    rule: 'kubeRayAlphaGates', warns: true, mutant: () => rocksdb({}) },
  { match: /validateGcsFaultToleranceBackend: .*RedisAddress when backend is 'rocksdb'/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({ redisAddress: 'redis:6379' }) },
  { match: /validateGcsFaultToleranceBackend: .*RedisUsername when backend is 'rocksdb'/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({ redisUsername: { value: 'u' } }) },
  { match: /validateGcsFaultToleranceBackend: .*RedisPassword when backend is 'rocksdb'/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({ redisPassword: { value: 'p' } }) },
  { match: /validateGcsFaultToleranceBackend: .*ExternalStorageNamespace when backend is 'rocksdb'/, rule: 'kubeRayClusterFeatures',
    gates: rocksdbGate, mutant: () => rocksdb({ externalStorageNamespace: 'ns' }) },
  { match: /validateGcsFaultToleranceBackend: .*Storage.ClaimName is mutually exclusive/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({ storage: { claimName: 'pvc', size: '1Gi' } }) },
  { match: /validateGcsFaultToleranceBackend: .*cannot set `%s` or `%s` env var in head Pod/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({}, { headGroupSpec: headWith({ env: [{ name: 'RAY_gcs_storage', value: 'rocksdb' }] }) }) },
  { match: /validateGcsFaultToleranceBackend: .*volume mount named %q or mounted at %s/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({}, { headGroupSpec: headWith({ volumeMounts: [{ name: 'data', mountPath: '/data/gcs' }] }) }) },
  { match: /validateGcsFaultToleranceBackend: .*cannot set a volume named %q in the head Pod/, rule: 'kubeRayClusterFeatures', gates: rocksdbGate,
    mutant: () => rocksdb({}, { headGroupSpec: headWith({}, { volumes: [{ name: 'gcs-storage', emptyDir: {} }] }) }) },
  { match: /validateGcsFaultToleranceBackend: .*Storage when backend is 'redis'/, rule: 'kubeRayClusterFeatures',
    mutant: () => rayCluster('cluster', { gcsFaultToleranceOptions: { redisAddress: 'redis:6379', storage: { size: '1Gi' } } }) },
  // NetworkPolicy (RayClusterNetworkPolicy, alpha)
  { match: /ValidateRayClusterSpec: .*spec.networkPolicy requires the RayClusterNetworkPolicy feature gate/, rule: 'kubeRayAlphaGates',
    warns: true, mutant: () => np({}) },
  { match: /validateNetworkPolicy: .*networkPolicy.head.ingressRules cannot be set/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ mode: 'DenyAllEgress', head: { ingressRules: [{}] } }) },
  { match: /validateNetworkPolicy: .*networkPolicy.head.egressRules cannot be set/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ mode: 'DenyAllIngress', head: { egressRules: [{}] } }) },
  { match: /validateNetworkPolicy: .*networkPolicy.worker.ingressRules cannot be set/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ mode: 'DenyAllEgress', worker: { ingressRules: [{}] } }) },
  { match: /validateNetworkPolicy: .*networkPolicy.worker.egressRules cannot be set/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ mode: 'DenyAllIngress', worker: { egressRules: [{}] } }) },
  { match: /validateNetworkPolicy: .*must be a valid DNS1123 label when networkPolicy is enabled/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({}, { workerGroupSpecs: [worker('Small')] }) },
  { match: /validateNetworkPolicy: .*workerGroups\[%q\].ingressRules cannot be set/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ mode: 'DenyAllEgress', workerGroups: [{ groupName: 'small', ingressRules: [{}] }] }) },
  { match: /validateNetworkPolicy: .*workerGroups\[%q\].egressRules cannot be set/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ mode: 'DenyAllIngress', workerGroups: [{ groupName: 'small', egressRules: [{}] }] }) },
  { match: /validateNetworkPolicy: .*does not match any group name/, rule: 'kubeRayClusterFeatures', gates: npGate,
    mutant: () => np({ workerGroups: [{ groupName: 'gpu' }] }) },
  // mTLS (RayClusterMTLS, alpha)
  { match: /ValidateRayClusterSpec: .*spec.tlsOptions requires the RayClusterMTLS feature gate/, rule: 'kubeRayAlphaGates', warns: true,
    mutant: () => tls({}) },
  { match: /validateTLSOptions: .*environment variable in head Pod when tlsOptions is set/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ headGroupSpec: headWith({ env: [{ name: 'RAY_USE_TLS', value: '1' }] }) }) },
  { match: /validateTLSOptions: .*environment variable in worker group %q when tlsOptions/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ workerGroupSpecs: [workerWith('small', { env: [{ name: 'RAY_TLS_CA_CERT', value: 'x' }] })] }) },
  { match: /validateTLSOptions: .*environment variable in autoscalerOptions.env when tlsOptions/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ autoscalerOptions: { env: [{ name: 'RAY_TLS_SERVER_KEY', value: 'x' }] } }) },
  { match: /validateTLSOptions: .*volume mount named %q in autoscalerOptions.volumeMounts/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ autoscalerOptions: tlsMount }) },
  { match: /validateTLSOptions: .*volume mount at path %q in autoscalerOptions.volumeMounts/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ autoscalerOptions: { volumeMounts: [{ name: 'certs', mountPath: '/etc/ray/tls' }] } }) },
  { match: /validateNoConflictingTLSVolumeMount: .*volume mount named %q in %s/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ headGroupSpec: headWith(tlsMount) }) },
  { match: /validateNoConflictingTLSVolumeMount: .*volume mount at path %q in %s/, rule: 'kubeRayClusterFeatures', gates: tlsGate,
    mutant: () => tls({ workerGroupSpecs: [workerWith('small', { volumeMounts: [{ name: 'certs', mountPath: '/etc/ray/tls' }] })] }) },
];

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
  { match: /validateRayGroupLabels: fmt.Errorf\("%s", strings.Join/, rule: 'rayClusterConfig', message: /invalid label (key|value) .*group/s,
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
  { match: /ValidateRayJobSpec: return err of .*UnmarshalRuntimeEnvYAML/, rule: 'rayJobLifecycle', message: /failed to unmarshal RuntimeEnvYAML/,
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
  { match: /ValidateRayServiceSpec: .*RayClusterDeletionDelaySeconds should be a non-negative integer/, schema: 'spec.rayClusterDeletionDelaySeconds minimum 0',
    mutant: () => rayService('service', { rayClusterDeletionDelaySeconds: -1 }) },
  // Reached only with RayServiceIncrementalUpgrade on: alpha and off by default before 1.7, beta and on in 1.7.
  ...UPGRADE_OPTION_SITES,

  ...KUBERAY_17_SITES,

  // ---- RayCronJob: a kind this library does not queue
  { match: /ValidateRayCronJobSpec:/, na: 'RayCronJob: Kueue queues no RayCronJob, and neither does this library (check reads it as another kind)' },

  // ---- KubeRay's optional webhooks (off in the default install): the same checks as the reconcilers'
  { match: /^validate(RayCluster|RayJob|RayService|Name): field.Invalid\(field.NewPath\("metadata"\).Child\("name"\)/, rule: 'rayObjectName',
    mutant: () => rayCluster('1cluster') },
  { match: /^validateWorkerGroups: .*worker group names must be unique/, rule: 'uniqueWorkerGroupNames', warns: true,
    mutant: () => rayCluster('cluster', { workerGroupSpecs: [worker('small'), worker('small')] }) },
];
