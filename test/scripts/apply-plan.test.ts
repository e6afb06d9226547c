// The ordered apply's plan (scripts/apply.js), on the examples app with both installs and the
// controller: what is applied before the webhooks that would otherwise reject it, and what is waited for.
import * as path from 'path';
import { buildExamples } from '../../examples/app';
import { readManifestDir, tmpdir } from '../support/synth';
import { vendorDir } from '../support/upstream';


const { plan } = require('../../scripts/apply.js');

const names = (objs: any[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`);

describe('apply plan of the examples app', () => {
  const vendor = vendorDir();
  if (!vendor) throw new Error('the vendor folder (shared/vendor) is needed: set KUEUE_RAY_VENDOR_DIR');
  const app = buildExamples({
    outdir: tmpdir(), kueue: 'v0.19.2', kubeRay: 'v1.6.2', controller: {},
    install: { kueueManifest: path.join(vendor, 'kueue', 'v0.19.2', 'manifests.yaml'),
      kubeRayCrdDir: path.join(vendor, 'kuberay', 'v1.6.2', 'ray-operator', 'config', 'crd', 'bases') },
  });
  app.synth();
  const files = readManifestDir(app.outdir);
  const p = plan(Object.entries(files).map(([file, objects]) => ({ file, objects })));

  test('the controller chart is a serving chart: its workload before any webhook, its webhooks after it is up', () => {
    expect(names(p.serving)).toEqual(expect.arrayContaining(['Deployment/cdk8s-kueue-ray-controller', 'Service/cdk8s-kueue-ray-controller',
      'Deployment/kueue-controller-manager', 'Deployment/kuberay-operator']));
    expect(p.serving.some((o: any) => o.kind.endsWith('WebhookConfiguration'))).toBe(false);
    expect(names(p.webhooks)).toEqual(expect.arrayContaining(['MutatingWebhookConfiguration/cdk8s-kueue-ray-mutating',
      'ValidatingWebhookConfiguration/cdk8s-kueue-ray-validating', 'MutatingWebhookConfiguration/kueue-mutating-webhook-configuration']));
    expect(p.deployments).toEqual(expect.arrayContaining([{ namespace: 'cdk8s-kueue-ray-system', name: 'cdk8s-kueue-ray-controller' },
      { namespace: 'kueue-system', name: 'kueue-controller-manager' }]));
    expect(p.services).toEqual(expect.arrayContaining([{ namespace: 'cdk8s-kueue-ray-system', name: 'cdk8s-kueue-ray-controller' },
      { namespace: 'kueue-system', name: 'kueue-webhook-service' }]));
  });

  test('queues, tenants and workloads come last, so the webhooks that check them are served', () => {
    const rest = names(p.rest);
    expect(rest).toEqual(expect.arrayContaining(['ClusterQueue/cluster-queue', 'LocalQueue/user-queue']));
    expect(p.rest.some((o: any) => o.kind === 'RayJob' && o.metadata.namespace?.startsWith('team-'))).toBe(true);
    for (const o of p.rest) expect(['Deployment', 'CustomResourceDefinition', 'Namespace', 'MutatingWebhookConfiguration']).not.toContain(o.kind);
    expect(p.namespaces.map((n: any) => n.metadata.name)).toEqual(expect.arrayContaining(['cdk8s-kueue-ray-system', 'kueue-system']));
  });

  test('objects without a name (generateName jobs) are refused with the way to create them', () => {
    expect(() => plan([{ file: 'x', objects: [{ kind: 'RayJob', metadata: { generateName: 'j-' } }] }])).toThrow(/generateName.*kubectl create -f/s);
    // Each one is named, with its file.
    const two = [{ file: 'jobs.k8s.yaml',
      objects: [{ kind: 'RayJob', metadata: { generateName: 'toy-' } }, { kind: 'RayCluster', metadata: { generateName: 'rc-' } }] }];
    expect(() => plan(two)).toThrow(/2 object\(s\) have no metadata.name \(generateName\), so they cannot be applied:\n {2}jobs\.k8s\.yaml: RayJob toy-\*\n {2}jobs\.k8s\.yaml: RayCluster rc-\*/);
  });
});

describe('the command line: --help and usage errors are decided before anything is applied', () => {
  const { parseArgs } = require('../../scripts/apply.js');
  test('--help prints usage (exit 0); unknown flags and a second folder are usage errors (exit 2)', () => {
    expect(parseArgs(['--help'])).toMatchObject({ exit: 0, message: expect.stringMatching(/^usage: cdk8s-kueue-ray-apply/) });
    expect(parseArgs(['dist', '-h'])).toMatchObject({ exit: 0 });
    expect(parseArgs(['--force'])).toMatchObject({ exit: 2, message: expect.stringMatching(/^unknown flag --force\nusage:/) });
    expect(parseArgs(['a', 'b'])).toMatchObject({ exit: 2, message: expect.stringMatching(/one folder only/) });
    expect(parseArgs(['--kubeconfig'])).toMatchObject({ exit: 2 });
  });
  test('options', () => {
    expect(parseArgs([])).toEqual({ dist: 'dist', dryRun: false, noWait: false, kubeconfig: undefined });
    expect(parseArgs(['out', '--dry-run', '--kubeconfig', 'k'])).toEqual({ dist: 'out', dryRun: true, noWait: false, kubeconfig: 'k' });
    expect(parseArgs(['--kubeconfig=k2', '--no-wait'])).toEqual({ dist: 'dist', dryRun: false, noWait: true, kubeconfig: 'k2' });
  });
  test('--help and a bad flag run nothing (no kubectl is called): the real command exits 0 and 2', () => {
    const { spawnSync } = require('child_process');
    const env = { ...process.env, KUBECTL: '/nonexistent/kubectl' };
    const help = spawnSync('node', [require.resolve('../../scripts/apply.js'), '--help'], { env, encoding: 'utf8' });
    expect([help.status, help.stdout.startsWith('usage:')]).toEqual([0, true]);
    const bad = spawnSync('node', [require.resolve('../../scripts/apply.js'), '--bogus'], { env, encoding: 'utf8' });
    expect([bad.status, bad.stderr.split('\n')[0]]).toEqual([2, 'unknown flag --bogus']);
  });
});

test('a re-apply leaves alone exactly the suspend fields of the kind table, for every version', () => {
  const { SUSPEND_FIELDS, withoutSuspend } = require('../../scripts/apply.js');
  const { RAY_KIND_TABLE } = require('../../src/policy/kinds');
  const { SUPPORTED_KUEUE_VERSIONS, kueueCapabilities } = require('../../src/policy/versions');
  for (const k of RAY_KIND_TABLE) {
    const fields = new Set<string>();
    for (const v of SUPPORTED_KUEUE_VERSIONS) for (const autoscaling of [false, true]) {
      const f = k.suspendFieldAtCreate(autoscaling, kueueCapabilities(v));
      if (f) fields.add(f);
    }
    expect([k.kind, [...fields]]).toEqual([k.kind, [SUSPEND_FIELDS[k.kind].join('.')]]);
  }
  const svc = { kind: 'RayService', spec: { serveConfigV2: 'x', rayClusterConfig: { suspend: true, headGroupSpec: {} } } };
  expect(withoutSuspend(svc)).toEqual({ kind: 'RayService', spec: { serveConfigV2: 'x', rayClusterConfig: { headGroupSpec: {} } } });
  expect(svc.spec.rayClusterConfig.suspend).toBe(true); // a copy
  expect(withoutSuspend({ kind: 'RayJob', spec: { suspend: true, entrypoint: 'e' } })).toEqual({ kind: 'RayJob', spec: { entrypoint: 'e' } });
});
