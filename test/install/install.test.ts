// The installs: Kueue's release with only the documented patches, the KubeRay operator with the
// chart's RBAC, and clear errors for bad versions, checksums and unreachable downloads.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { App, Chart, Duration, Testing } from 'cdk8s';
import {
  FairSharingPreemptionStrategy, KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion, Quantity, TaintEffect,
  TolerationOperator,
} from '../../src';
import { readManifests, tmpdir } from '../support/synth';
import { cacheDir, vendorDir } from '../support/upstream';
import { parse as parseYaml } from 'yaml';
import { kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { kueueConfigOf } from '../../src/policy/plan';
import { installFacts } from '../../src/cli/install-facts';

const VENDOR = vendorDir();
if (!VENDOR) throw new Error('install tests need ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
const KUBERAY_TAGS = ['v1.4.2', 'v1.5.2', 'v1.6.2'];
// Four releases are vendored; v0.17.0 is rendered by scripts/testcluster/build.sh from its module's
// config/ exactly as `make artifacts` does (checked below: the v0.19.2 render equals the vendored file).
const rendered = (tag: string) => path.join(cacheDir(), 'releases-rendered', `kueue-${tag}`, 'manifests.yaml');
const manifest = (tag: string) => (fs.existsSync(path.join(VENDOR, 'kueue', tag, 'manifests.yaml'))
  ? path.join(VENDOR, 'kueue', tag, 'manifests.yaml') : rendered(tag));
const KUEUE_TAGS = SUPPORTED_KUEUE_VERSIONS.filter((t) => {
  if (fs.existsSync(manifest(t))) return true;
  if (process.env.CI) throw new Error(`no Kueue ${t} release at ${manifest(t)}: run scripts/testcluster/build.sh (it renders it)`);
  process.stdout.write(`[install] Kueue ${t}: skipped, no rendered release at ${manifest(t)} (run scripts/testcluster/build.sh)\n`);
  return false;
});

test('the build script renders a release exactly as upstream does (v0.19.2 render = vendored release)', () => {
  if (!fs.existsSync(rendered('v0.19.2'))) {
    if (process.env.CI) throw new Error('scripts/testcluster/build.sh did not render Kueue v0.19.2');
    return;
  }
  expect(fs.readFileSync(rendered('v0.19.2'), 'utf8')).toBe(fs.readFileSync(path.join(VENDOR, 'kueue', 'v0.19.2', 'manifests.yaml'), 'utf8'));
});
const crdDir = (tag: string) => path.join(VENDOR, 'kuberay', tag, 'ray-operator', 'config', 'crd', 'bases');
const keyOf = (o: any) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

function kueueApp(tag: string, extra: Record<string, any> = {}): { app: App; install: KueueInstall } {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(tag) });
  const install = new KueueInstall(app, 'kueue', { manifestFile: manifest(tag), ...extra });
  return { app, install };
}

const configOf = (objs: any[]) => parseYaml(objs.find((o: any) => o.kind === 'ConfigMap' && o.metadata.name === 'kueue-manager-config')
  .data['controller_manager_config.yaml']);

function managerArgs(objs: any[]): string[] {
  return objs.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kueue-controller-manager').spec.template.spec.containers[0].args;
}

describe.each(KUEUE_TAGS)('KueueInstall %s', (tag) => {
  test('the elastic feature gate is appended to the manager args exactly once', () => {
    const { install } = kueueApp(tag, { elasticJobs: true });
    const args = managerArgs(install.toJson());
    expect(args.filter((a) => a.startsWith('--feature-gates'))).toEqual(['--feature-gates=ElasticJobsViaWorkloadSlices=true']);
    expect(args.filter((a) => a === '--feature-gates=ElasticJobsViaWorkloadSlices=true')).toHaveLength(1);
  });

  test('no object of the release is lost or changed except the documented patches (the arg, the PriorityClass, the version annotation)', () => {
    const { install } = kueueApp(tag, { elasticJobs: true, featureGates: { TopologyAwareScheduling: false } });
    const source = new Map(readManifests(manifest(tag)).map((o) => [keyOf(o), o]));
    const out = new Map(install.toJson().map((o: any) => [keyOf(o), o]));
    expect([...out.keys()].sort()).toEqual([...source.keys()].sort());
    for (const [k, src] of source) {
      const got = JSON.parse(JSON.stringify(out.get(k)));
      if (k === 'Deployment/kueue-system/kueue-controller-manager') {
        const srcArgs = src.spec.template.spec.containers[0].args;
        expect(got.spec.template.spec.containers[0].args)
          .toEqual([...srcArgs, '--feature-gates=ElasticJobsViaWorkloadSlices=true,TopologyAwareScheduling=false']);
        got.spec.template.spec.containers[0].args = srcArgs;
        expect(got.metadata.annotations).toEqual({ 'cdk8s-kueue-ray.io/kueue-version': tag });
        expect(src.metadata.annotations).toBeUndefined();
        delete got.metadata.annotations;
        expect(got.spec.template.spec.priorityClassName).toBe('system-cluster-critical');
        expect(src.spec.template.spec.priorityClassName).toBeUndefined();
        delete got.spec.template.spec.priorityClassName;
        expect(got.spec.template.spec.containers[0].lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
        expect(got.spec.template.spec.terminationGracePeriodSeconds).toBe((src.spec.template.spec.terminationGracePeriodSeconds ?? 30) + 5);
        delete got.spec.template.spec.containers[0].lifecycle;
        got.spec.template.spec.terminationGracePeriodSeconds = src.spec.template.spec.terminationGracePeriodSeconds;
        if (src.spec.template.spec.terminationGracePeriodSeconds === undefined) delete got.spec.template.spec.terminationGracePeriodSeconds;
      }
      if (k === 'ConfigMap/kueue-system/kueue-manager-config' && kueueCapabilities(tag).waitForPodsReady === 'default-on') {
        // v0.19 waits for pods ready by default: the install writes that section out as Kueue defaults it, and nothing else.
        const cfg = parseYaml(got.data['controller_manager_config.yaml']);
        expect(cfg.waitForPodsReady).toEqual({ timeout: '30m' });
        delete cfg.waitForPodsReady;
        expect(cfg).toEqual(parseYaml(src.data['controller_manager_config.yaml']));
        got.data['controller_manager_config.yaml'] = src.data['controller_manager_config.yaml'];
      }
      expect([k, got]).toEqual([k, src]);
    }
  });

  test('the Helm-level settings land in the Configuration in the form this version reads', () => {
    const caps = kueueCapabilities(tag);
    const { install } = kueueApp(tag, {
      waitForPodsReady: { timeout: Duration.minutes(90), blockAdmission: true, recoveryTimeout: Duration.seconds(150),
        requeuingBackoffLimitCount: 3 },
      fairSharing: { preemptionStrategies: [FairSharingPreemptionStrategy.LESS_THAN_INITIAL_SHARE] },
      manageJobsWithoutQueueName: true, clusterQueueResourceMetrics: true, integrationFrameworks: ['batch/job'],
      nodeSelector: { 'node-role.kubernetes.io/control-plane': '' },
      tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: TolerationOperator.EXISTS, effect: TaintEffect.NO_SCHEDULE }],
    });
    const objs = install.toJson();
    const cfg = configOf(objs);
    const v1beta1 = caps.waitForPodsReady === 'enable-field';
    expect(cfg.waitForPodsReady).toEqual({ ...(v1beta1 ? { enable: true } : {}), timeout: '1h30m', blockAdmission: true, recoveryTimeout: '2m30s',
      requeuingStrategy: { backoffLimitCount: 3 } });
    expect(cfg.fairSharing).toEqual({ ...(caps.fairSharingSwitch === 'enable-field' ? { enable: true } : {}),
      preemptionStrategies: ['LessThanInitialShare'] });
    // plan reads it back as Kueue does (issue 44): fair sharing on with that strategy, the decision gates at their defaults.
    const read = kueueConfigOf(installFacts(objs).kueueManager!, caps);
    expect(read.fairSharing).toEqual({ preemptionStrategies: ['LessThanInitialShare'] });
    expect(read.gates).toEqual(kueueConfigOf({ where: 'no Configuration' }, caps).gates);
    expect(cfg.manageJobsWithoutQueueName).toBe(true);
    expect(cfg.metrics.enableClusterQueueResources).toBe(true);
    expect(cfg.metrics.bindAddress).toBe(':8443'); // the release's own metrics settings are kept
    expect(cfg.integrations.frameworks).toContain('batch/job');
    const spec = objs.find((o: any) => o.kind === 'Deployment').spec.template.spec;
    expect(spec.nodeSelector).toEqual({ 'node-role.kubernetes.io/control-plane': '' });
    expect(spec.tolerations).toEqual([{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }]);
  });

  test('waitForPodsReady off: absent before v0.19, the DisableWaitForPodsReady gate on v0.19; stray sub-settings refused', () => {
    const caps = kueueCapabilities(tag);
    const { install } = kueueApp(tag, { waitForPodsReady: { enabled: false } });
    const objs = install.toJson();
    const cfg = configOf(objs);
    expect(cfg.waitForPodsReady).toBeUndefined();
    const gates = managerArgs(objs).filter((a) => a.startsWith('--feature-gates'));
    expect(gates).toEqual(caps.waitForPodsReady === 'default-on' ? ['--feature-gates=DisableWaitForPodsReady=true'] : []);
    expect(() => kueueApp(tag, { waitForPodsReady: { enabled: false, timeout: Duration.minutes(5) } }).install.toJson())
      .toThrow(/waitForPodsReady.timeout is set but waitForPodsReady is off.*Fix:/);
  });

  test('bad Configuration settings are refused at synth, naming the field and the fix', () => {
    const synth = (p: any) => kueueApp(tag, p).install.toJson();
    expect(() => synth({ waitForPodsReady: { timeout: Duration.millis(1500) } })).toThrow(/waitForPodsReady.timeout is 1500 ms.*Fix:/);
    expect(() => synth({ waitForPodsReady: { requeuingBackoffLimitCount: -1 } })).toThrow(/requeuingBackoffLimitCount -1 must be.*Fix:/);
    expect(() => synth({ fairSharing: { preemptionStrategies: [FairSharingPreemptionStrategy.LESS_THAN_INITIAL_SHARE,
      FairSharingPreemptionStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE] } })).toThrow(/not a set Kueue accepts.*Fix: one of/);
    expect(() => synth({ tolerations: [{ operator: TolerationOperator.EQUAL, value: 'x' }] }))
      .toThrow(/tolerations\[0\]: a toleration without a key must use operator EXISTS/);
  });

  test('without elastic workloads or gates the release is untouched', () => {
    const { install } = kueueApp(tag);
    expect(managerArgs(install.toJson())).toEqual(['--config=/controller_manager_config.yaml', '--zap-log-level=2']);
  });

  test('the PriorityClass: system-cluster-critical unless told, none with \'\', a bad name refused', () => {
    const pc = (p: any) => kueueApp(tag, p).install.toJson().find((o: any) => o.kind === 'Deployment').spec.template.spec.priorityClassName;
    expect(pc({ priorityClassName: 'platform-high' })).toBe('platform-high');
    expect(pc({ priorityClassName: '' })).toBeUndefined();
    expect(() => pc({ priorityClassName: 'Not_A_Name' })).toThrow(/priorityClassName 'Not_A_Name' is not a PriorityClass name.*Fix:/);
  });

  test('drainSeconds: 0 leaves the release\'s stop as it is; out of range refused', () => {
    const spec = (p: any) => kueueApp(tag, p).install.toJson().find((o: any) => o.kind === 'Deployment').spec.template.spec;
    const src = readManifests(manifest(tag)).find((o: any) => o.kind === 'Deployment').spec.template.spec;
    expect(spec({ drainSeconds: 0 }).containers[0].lifecycle).toBeUndefined();
    expect(spec({ drainSeconds: 0 }).terminationGracePeriodSeconds).toBe(src.terminationGracePeriodSeconds);
    expect(() => spec({ drainSeconds: -1 })).toThrow(/drainSeconds -1 must be a whole number of seconds from 0 to 300/);
  });

  test('replicas and resources are patched; namespace stays kueue-system', () => {
    const { install } = kueueApp(tag, { replicas: 2, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } });
    const dep = install.toJson().find((o: any) => o.kind === 'Deployment');
    expect(dep.spec.replicas).toBe(2);
    expect(dep.metadata.namespace).toBe('kueue-system');
    expect(dep.spec.template.spec.containers[0].resources).toEqual({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } });
  });
});

test('an elastic workload in the app turns the gate on automatically', () => {
  const { app, install } = kueueApp('v0.19.2');
  const { ElasticRayCluster, ClusterQueue, LocalQueue, ResourceFlavor, ResourceName } = require('../../src');
  const c = new Chart(app, 'w');
  const flavor = new ResourceFlavor(c, 'f');
  const cq = new ClusterQueue(c, 'cq', { resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU,
    nominalQuota: Quantity.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) }] }] }] });
  const lq = new LocalQueue(c, 'lq', { clusterQueue: cq });
  new ElasticRayCluster(c, 'rc', { queue: lq, headGroup: { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } },
    workerGroups: [{ groupName: 'w', maxReplicas: 2, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } }] });
  app.synth();
  expect(managerArgs(install.toJson())).toContain('--feature-gates=ElasticJobsViaWorkloadSlices=true');
});

test('a release whose Configuration already sets featureGates is refused (never both)', () => {
  const dir = tmpdir();
  const text = fs.readFileSync(manifest('v0.19.2'), 'utf8').replace('controller_manager_config.yaml: |',
    'controller_manager_config.yaml: |\n    featureGates:\n      TopologyAwareScheduling: true');
  fs.writeFileSync(path.join(dir, 'manifests.yaml'), text);
  const app = Testing.app();
  new KueueInstall(app, 'kueue', { manifestFile: path.join(dir, 'manifests.yaml'), elasticJobs: true });
  expect(() => app.synth()).toThrow(/already sets featureGates, and Kueue refuses both the map and --feature-gates/);
});

/** A port on 127.0.0.1 that nothing listens on (just released by the OS). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('bad input: unknown version, a tampered cache, an unreachable URL, a missing local file', async () => {
  expect(() => KueueVersion.of('v0.99.0')).toThrow(/Kueue version 'v0.99.0' is not supported/);
  const cache = tmpdir();
  const sha = '1d51d8c4ce065b22c2069af0ebd72ae25f4a6968e5c5f93a3106ba6fc35bcc1d'; // v1.6.2 ray.io_rayclusters.yaml
  fs.mkdirSync(path.join(cache, 'releases', sha), { recursive: true });
  fs.writeFileSync(path.join(cache, 'releases', sha, 'ray.io_rayclusters.yaml'), 'tampered');
  const tamperedSha = createHash('sha256').update('tampered').digest('hex');
  const unreachable = `http://127.0.0.1:${await closedPort()}`;
  // A mirror, so the cache is read (without one, the package's own copy is used and no cache is read).
  expect(() => new KubeRayInstall(Testing.app(), 'r', { cacheDir: cache, sourcesUrl: unreachable }))
    .toThrow(new RegExp(`cached .*ray.io_rayclusters.yaml has sha256 ${tamperedSha}, but the library pin \\(KubeRay CRD sha256\\) `
      + `records ${sha}; refusing it`));
  expect(() => new KubeRayInstall(Testing.app(), 'r', { cacheDir: tmpdir(), sourcesUrl: unreachable }))
    .toThrow(new RegExp(`cannot download ${unreachable}/v1.6.2/ray-operator/config/crd/bases/ray.io_rayclusters.yaml .*ECONNREFUSED.* `
      + 'pass it with crdDir'));
  expect(() => new KubeRayInstall(Testing.app(), 'kuberay', { cacheDir: tmpdir(), sourcesUrl: unreachable }))
    .toThrow('Fix: point sourcesUrl (or $CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL) at a mirror serving v1.6.2/ray-operator/config/crd/bases/');
  expect(() => new KueueInstall(Testing.app(), 'k', { manifestFile: '/nonexistent/manifests.yaml' })).toThrow(/manifestFile '\/nonexistent\/manifests.yaml' does not exist/);
});

const normRules = (rules: any[]) => rules
  .flatMap((r) => r.apiGroups.flatMap((g: string) => r.resources.flatMap((res: string) => r.verbs.map((v: string) => `${g}|${res}|${v}`))))
  .sort();

describe.each(KUBERAY_TAGS)('KubeRayInstall %s', (tag) => {
  const app = Testing.app();
  KueueRayVersions.use(app, { kubeRay: KubeRayVersion.of(tag) });
  const install = new KubeRayInstall(app, 'kuberay',
    { crdDir: crdDir(tag), watchNamespaces: ['team-a', 'team-b'], featureGates: { RayJobDeletionPolicy: true } });
  const out = install.toJson();
  const upstream = readManifests(path.join(VENDOR, 'kuberay', tag, 'kustomize-default.yaml'));

  test('the ClusterRole and leader-election Role equal the upstream rules', () => {
    const find = (objs: any[], kind: string) => objs.find((o) => o.kind === kind);
    expect(normRules(find(out, 'ClusterRole').rules)).toEqual(normRules(find(upstream, 'ClusterRole').rules));
    expect(normRules(find(out, 'Role').rules)).toEqual(normRules(find(upstream, 'Role').rules));
  });

  test('the CRDs are the release CRDs, unchanged', () => {
    const ours = out.filter((o: any) => o.kind === 'CustomResourceDefinition');
    const theirs = upstream.filter((o: any) => o.kind === 'CustomResourceDefinition');
    expect(ours.map((o: any) => o.metadata.name).sort()).toEqual(theirs.map((o: any) => o.metadata.name).sort());
    for (const c of ours) expect(JSON.parse(JSON.stringify(c))).toEqual(theirs.find((t: any) => t.metadata.name === c.metadata.name));
  });

  test('the operator Deployment mirrors the chart: image, probes, hardened security context, options', () => {
    const dep = out.find((o: any) => o.kind === 'Deployment');
    const c = dep.spec.template.spec.containers[0];
    expect(c.image).toBe(`quay.io/kuberay/operator:${tag}`);
    expect(dep.spec.template.spec.priorityClassName).toBe('system-cluster-critical');
    expect(c.livenessProbe.httpGet).toEqual({ path: '/metrics', port: 'http' });
    expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
      capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
    expect(c.args).toEqual(['--feature-gates=RayJobDeletionPolicy=true', '--log-stdout-encoder', 'json', '--log-file-encoder', 'json',
      '--enable-leader-election=true', '--enable-metrics=true', '--watch-namespace', 'team-a,team-b']);
    expect(dep.metadata.namespace).toBe('kuberay-system');
    const kinds = out.map((o: any) => o.kind);
    for (const k of ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'Deployment',
      'Service']) expect(kinds).toContain(k);
  });
});

describe.each(KUBERAY_TAGS)('KubeRayInstall %s: the Helm chart\'s settings', (tag) => {
  const synth = (props: Record<string, any>) => {
    const app = Testing.app();
    KueueRayVersions.use(app, { kubeRay: KubeRayVersion.of(tag) });
    return new KubeRayInstall(app, 'kuberay', { crdDir: crdDir(tag), ...props }).toJson();
  };

  test('metrics off, a batch scheduler with the chart\'s PodGroup rules, nodeSelector and tolerations', () => {
    const out = synth({ enableMetrics: false, batchScheduler: 'volcano', nodeSelector: { pool: 'system' },
      tolerations: [{ key: 'dedicated', operator: TolerationOperator.EQUAL, value: 'system', effect: TaintEffect.NO_SCHEDULE }] });
    const dep = out.find((o: any) => o.kind === 'Deployment');
    expect(dep.spec.template.spec.containers[0].args).toEqual(['--log-stdout-encoder', 'json', '--log-file-encoder', 'json',
      '--enable-leader-election=true', '--enable-metrics=false', '--batch-scheduler=volcano']);
    expect(dep.spec.template.spec.nodeSelector).toEqual({ pool: 'system' });
    expect(dep.spec.template.spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'system', effect: 'NoSchedule' }]);
    const rules = out.find((o: any) => o.kind === 'ClusterRole').rules;
    expect(rules).toContainEqual({ apiGroups: ['scheduling.volcano.sh'], resources: ['podgroups'],
      verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'] });
    // yunikorn needs no PodGroup rules: the ClusterRole stays upstream's.
    const plain = synth({}).find((o: any) => o.kind === 'ClusterRole').rules;
    expect(synth({ batchScheduler: 'yunikorn' }).find((o: any) => o.kind === 'ClusterRole').rules).toEqual(plain);
  });

  test('a batch scheduler this version does not know is refused with the list', () => {
    expect(() => synth({ batchScheduler: 'slurm' })).toThrow(/batchScheduler 'slurm' is not one KubeRay .* knows.*Fix: one of volcano, yunikorn/);
    const kai = () => synth({ batchScheduler: 'kai-scheduler' });
    if (tag === 'v1.4.2') expect(kai).toThrow(/kai-scheduler/);
    else expect(kai()).toBeDefined();
  });
});

test('with a KueueInstall in the app, elastic workloads are not warned about the gate it turns on', () => {
  const { ElasticRayCluster, ClusterQueue, LocalQueue, ResourceFlavor, ResourceName } = require('../../src');
  const build = (install: boolean) => {
    const app = Testing.app();
    KueueRayVersions.use(app, { kueue: KueueVersion.V0_17_8 });
    if (install) new KueueInstall(app, 'kueue', { manifestFile: manifest('v0.17.8') });
    const c = new Chart(app, 'w');
    const flavor = new ResourceFlavor(c, 'f');
    const cq = new ClusterQueue(c, 'cq', { resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU,
      nominalQuota: Quantity.cpu(8) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) }] }] }] });
    const lq = new LocalQueue(c, 'lq', { clusterQueue: cq });
    return new ElasticRayCluster(c, 'rc', { queue: lq, headGroup: { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } },
      workerGroups: [{ groupName: 'w', maxReplicas: 2, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } }] });
  };
  expect(build(false).policyWarnings().join('\n')).toMatch(/ElasticJobsViaWorkloadSlices is Alpha and off by default/);
  expect(build(true).policyWarnings().join('\n')).not.toMatch(/ElasticJobsViaWorkloadSlices/);
});
