// KubeRay v1.7.0's new checks (validation.go at the tag) and RayService spec.suspend under each Kueue: each refused on
// v1.7.0 with the field and a fix, and not on v1.6.2, which has none of them.
import { evaluateRayObject, PolicyContext } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { clusterSpec, rayCluster, rayService, worker } from '../agreement/support/ray-objects';

const ctx = (kubeRay = 'v1.7.0', kueue = 'v0.19.2'): PolicyContext => ({ kueue: kueueCapabilities(kueue), kubeRay: kubeRayCapabilities(kubeRay) });
const found = (obj: any, c = ctx()) => evaluateRayObject(obj, c).map((f) => `${f.severity} ${f.rule} ${f.field}: ${f.message}`);
const s3 = [{ name: 'STORAGE_BACKEND', value: 'S3' }, { name: 'S3_REGION', value: 'us-east-1' }];
const upgrade = (options: unknown, autoscaling = true) => rayService('svc', { upgradeStrategy: { type: 'NewClusterWithIncrementalUpgrade',
  clusterUpgradeOptions: options } }, { enableInTreeAutoscaling: autoscaling });
const OPTIONS = { gatewayClassName: 'istio', stepSizePercent: 10, intervalSeconds: 30, maxSurgePercent: 50 };

const CASES: Array<[string, any, RegExp]> = [
  ['incremental upgrade without the autoscaler', upgrade(OPTIONS, false),
    /error rayServiceSpec spec.rayClusterConfig.enableInTreeAutoscaling: .*needs the Ray autoscaler/],
  ['incremental upgrade without options', upgrade(undefined), /error rayServiceSpec spec.upgradeStrategy.clusterUpgradeOptions: .*needs clusterUpgradeOptions/],
  ['maxSurgePercent above 100', upgrade({ ...OPTIONS, maxSurgePercent: 101 }), /maxSurgePercent: must be between 0 and 100, not 101/],
  ['stepSizePercent below 0', upgrade({ ...OPTIONS, stepSizePercent: -1 }), /stepSizePercent: must be between 0 and 100, not -1/],
  ['stepSizePercent above maxSurgePercent', upgrade({ ...OPTIONS, stepSizePercent: 60 }), /stepSizePercent: 60 is above maxSurgePercent 50/],
  ['stepSizePercent above the defaulted maxSurgePercent', upgrade({ ...OPTIONS, maxSurgePercent: undefined, stepSizePercent: 100 }), /^(?!)/],
  ['intervalSeconds 0', upgrade({ ...OPTIONS, intervalSeconds: 0 }), /intervalSeconds: must be greater than 0, not 0/],
  ['empty gatewayClassName', upgrade({ ...OPTIONS, gatewayClassName: '' }), /gatewayClassName: .*needs gatewayClassName/],
  ['KUBERAY_GEN_AUTOSCALER_START_CMD in autoscalerOptions.env', rayCluster('c', { autoscalerOptions: { env: [{
    name: 'KUBERAY_GEN_AUTOSCALER_START_CMD',
    value: 'x' }] } }), /error autoscalerConstraints spec.autoscalerOptions.env: KUBERAY_GEN_AUTOSCALER_START_CMD is set by KubeRay/],
  ['GCS storage with the redis backend', rayCluster('c', { gcsFaultToleranceOptions: { redisAddress: 'r:6379', storage: { size: '1Gi' } } }),
    /error kubeRayClusterFeatures spec.gcsFaultToleranceOptions.storage: storage applies only to the rocksdb backend/],
  ['rocksdb with a Redis address', rayCluster('c', { gcsFaultToleranceOptions: { backend: 'rocksdb', redisAddress: 'r:6379' } }),
    /error kubeRayClusterFeatures spec.gcsFaultToleranceOptions.redisAddress: .*rocksdb backend refuses it/],
  ['rocksdb gcs-storage volume', rayCluster('c', { gcsFaultToleranceOptions: { backend: 'rocksdb' }, headGroupSpec: { rayStartParams: {},
    template: { spec: { containers: [{ name: 'ray-head', image: 'i' }], volumes: [{ name: 'gcs-storage', emptyDir: {} }] } } } }),
  /spec.headGroupSpec.template.spec.volumes\[0\]: the gcs-storage volume is KubeRay's/],
  ['rocksdb needs its gate', rayCluster('c', { gcsFaultToleranceOptions: { backend: 'rocksdb' } }),
    /warning kubeRayAlphaGates spec.gcsFaultToleranceOptions.backend: .*backend rocksdb unless the operator's GCSFaultToleranceEmbeddedStorage/],
  ['history server without collectorOptions', rayCluster('c', { historyServerOptions: {} }), /historyServerOptions needs collectorOptions/],
  ['collector without STORAGE_BACKEND', rayCluster('c', { historyServerOptions: { collectorOptions: { image: 'c' } } }),
    /STORAGE_BACKEND must be set with a literal value/],
  ['collector S3 without region', rayCluster('c', { historyServerOptions: { collectorOptions: { image: 'c', env: [s3[0]] } } }),
    /S3_REGION must be set when STORAGE_BACKEND is S3/],
  ['collector env KubeRay sets', rayCluster('c', { historyServerOptions: { collectorOptions: { image: 'c', env: [...s3, { name: 'RAY_ROLE',
    value: 'x' }] } } }), /RAY_ROLE is set by KubeRay in the collector container/],
  ['a worker container named ray-history-collector', rayCluster('c', { historyServerOptions: { collectorOptions: { image: 'c', env: s3 } },
    workerGroupSpecs: [worker('w', { template: { spec: { containers: [{ name: 'ray-history-collector', image: 'x' }] } } })] }),
  /spec.workerGroupSpecs\[0\].template.spec.containers\[0\].name: KubeRay adds the ray-history-collector container itself/],
  ['ingress rules with DenyAllEgress', rayCluster('c', { networkPolicy: { mode: 'DenyAllEgress', head: { ingressRules: [{}] } } }),
    /spec.networkPolicy.head.ingressRules: ingress rules do nothing with mode DenyAllEgress/],
  ['networkPolicy for a group that does not exist', rayCluster('c', { networkPolicy: { workerGroups: [{ groupName: 'gpu' }] } }),
    /spec.networkPolicy.workerGroups\[0\].groupName: gpu names no worker group/],
  ['an upper-case group name with networkPolicy', rayCluster('c', { networkPolicy: {}, workerGroupSpecs: [worker('GPU')] }),
    /spec.workerGroupSpecs\[0\].groupName: .*must be a DNS-1123 label/],
  ['TLS env with tlsOptions', rayCluster('c', { tlsOptions: { enabled: true }, autoscalerOptions: { env: [{ name: 'RAY_USE_TLS', value: '1' }] } }),
    /spec.autoscalerOptions.env: RAY_USE_TLS is set by KubeRay when tlsOptions is enabled/],
  ['a ray-tls mount with tlsOptions', rayCluster('c', { tlsOptions: { enabled: true }, workerGroupSpecs: [worker('w', { template: { spec: {
    containers: [{ name: 'ray-worker', image: 'i', volumeMounts: [{ name: 'certs', mountPath: '/etc/ray/tls' }] }] } } })] }),
  /spec.workerGroupSpecs\[0\].template.spec.containers\[0\].volumeMounts\[0\]: the ray-tls volume/],
  ['priority without rayVersion', rayCluster('c', { rayVersion: undefined, workerGroupSpecs: [worker('w', { priority: 1 })] }),
    /spec.rayVersion: a worker group priority needs rayVersion/],
  ['priority on Ray 2.52', rayCluster('c', { workerGroupSpecs: [worker('w', { priority: 1 })] }), /priority needs Ray >= 2.56.0, not 2.52.0/],
];

describe.each(CASES)('KubeRay v1.7.0: %s', (_name, obj, expected) => {
  test('is reported on v1.7.0 only', () => {
    if (expected.source === '^(?!)') {
      // A stepSizePercent of 100 is within the defaulted maxSurgePercent (100): nothing to report.
      expect(found(obj).filter((f) => /^error/.test(f))).toEqual([]);
      return;
    }
    expect(found(obj)).toEqual(expect.arrayContaining([expect.stringMatching(expected)]));
    expect(found(obj, ctx('v1.6.2')).filter((f) => expected.test(f))).toEqual([]);
  });
});

test('a valid incremental upgrade, a history server, networkPolicy and mTLS pass on v1.7.0 with only the gate warnings', () => {
  const service = upgrade(OPTIONS);
  expect(found(service).filter((f) => /^error/.test(f))).toEqual([]);
  const cluster = rayCluster('c', { rayVersion: '2.56.0', autoscalerOptions: { version: 'v2' }, enableInTreeAutoscaling: true,
    historyServerOptions: { collectorOptions: { image: 'c', env: s3 } },
    networkPolicy: { mode: 'DenyAllIngress', workerGroups: [{ groupName: 'small' }] },
    tlsOptions: { enabled: true }, workerGroupSpecs: [worker('small', { priority: 2 })] });
  expect(found(cluster).filter((f) => /^error/.test(f))).toEqual([]);
  expect(found(cluster).filter((f) => /kubeRayAlphaGates/.test(f))).toHaveLength(3);
});

describe('RayService spec.suspend (KubeRay 1.7) under each pinned Kueue', () => {
  const suspended = (queued: boolean) => rayService('svc', { suspend: true }, {},
    queued ? { labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' } } : {});
  test.each([...SUPPORTED_KUEUE_VERSIONS])('Kueue %s does not read it: a queued RayService suspended that way keeps its quota', (kueue) => {
    expect(found(suspended(true), ctx('v1.7.0', kueue))).toEqual(expect.arrayContaining([expect.stringMatching(
      new RegExp(`^warning rayServiceSuspend spec.suspend: Kueue ${kueue} does not read RayService spec.suspend`))]));
    expect(found(suspended(false), ctx('v1.7.0', kueue)).filter((f) => /rayServiceSuspend/.test(f))).toEqual([]);
  });
  test('before KubeRay 1.7 the field does not exist', () => {
    expect(found(suspended(false), ctx('v1.6.2'))).toEqual(expect.arrayContaining([
      expect.stringMatching(/^error rayServiceSuspend spec.suspend: KubeRay v1.6.2 has no RayService spec.suspend/)]));
  });
  test('a queued RayService on KubeRay 1.7 is broken under native Kueue and works under Kueue < 0.17', () => {
    const svc = rayService('svc', {}, { enableInTreeAutoscaling: false }, { labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' } });
    expect(found(svc, ctx('v1.7.0', 'v0.19.2'))).toEqual(expect.arrayContaining([
      expect.stringMatching(/^error rayServiceVersionPair .*KubeRay v1.7.0 applies only when it creates the RayCluster/)]));
    expect(found(svc, ctx('v1.7.0', 'v0.14.8')).filter((f) => /rayServiceVersionPair/.test(f))).toEqual([]);
  });
});

test('clusterSpec helper is the valid base', () => {
  expect(found(rayCluster('c', clusterSpec())).filter((f) => /^error/.test(f))).toEqual([]);
});
