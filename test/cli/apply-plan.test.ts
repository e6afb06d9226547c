// The ordered apply's plan (src/cli/apply-plan.ts), on the examples app with both installs and the
// controller: what is applied before the webhooks that would otherwise reject it, and what is waited for.
// Then the command line of `cdk8s-kueue-ray apply` (src/cli/apply.ts), decided before kubectl is called.
import * as fs from 'fs';
import * as path from 'path';
import { buildExamples } from '../../examples/app';
import { apply, APPLY_USAGE, parseApplyArgs, readApplyFiles } from '../../src/cli/apply';
import { applyPlan, conflictsOf, isRayObject, withoutSuspend } from '../../src/cli/apply-plan';
import { MAIN_USAGE } from '../../src/cli/main';
import { RAY_KIND_TABLE } from '../../src/policy/kinds';
import { kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { readManifestDir, tmpdir, tmpFiles } from '../support/synth';
import { vendorDir } from '../support/upstream';

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
  const p = applyPlan(Object.entries(files).map(([file, objects]) => ({ file, objects })));

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
    expect(() => applyPlan([{ file: 'x', objects: [{ kind: 'RayJob', metadata: { generateName: 'j-' } }] }])).toThrow(/generateName.*kubectl create -f/s);
    // Each one is named, with its file.
    const two = [{ file: 'jobs.k8s.yaml',
      objects: [{ kind: 'RayJob', metadata: { generateName: 'toy-' } }, { kind: 'RayCluster', metadata: { generateName: 'rc-' } }] }];
    expect(() => applyPlan(two)).toThrow(/2 object\(s\) have no metadata.name \(generateName\), so they cannot be applied:\n {2}jobs\.k8s\.yaml: RayJob toy-\*\n {2}jobs\.k8s\.yaml: RayCluster rc-\*/);
  });

  test('two files of the same name (from two folders) are told apart: only the one with a webhook is a serving file', () => {
    const hook = { kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [] };
    const queue = { kind: 'LocalQueue', metadata: { name: 'q', namespace: 'a' } };
    const two = applyPlan([{ file: 'x.k8s.yaml', objects: [hook] }, { file: 'x.k8s.yaml', objects: [queue] }]);
    expect([names(two.webhooks), names(two.rest)]).toEqual([['ValidatingWebhookConfiguration/v'], ['LocalQueue/q']]);
  });
});

test('a re-apply leaves alone exactly the suspend fields of the kind table, for every version', () => {
  // The adapter's suspendField is where suspendFieldAtCreate suspends the kind, whenever a version does.
  for (const k of RAY_KIND_TABLE) {
    const fields = new Set<string>();
    for (const v of SUPPORTED_KUEUE_VERSIONS) for (const autoscaling of [false, true]) {
      const f = k.suspendFieldAtCreate(autoscaling, kueueCapabilities(v));
      if (f) fields.add(f);
    }
    expect([k.kind, [...fields]]).toEqual([k.kind, [k.suspendField]]);
  }
  const svc = { kind: 'RayService', spec: { serveConfigV2: 'x', rayClusterConfig: { suspend: true, headGroupSpec: {} } } };
  expect(withoutSuspend(svc)).toEqual({ kind: 'RayService', spec: { serveConfigV2: 'x', rayClusterConfig: { headGroupSpec: {} } } });
  expect(svc.spec.rayClusterConfig.suspend).toBe(true); // a copy
  expect(withoutSuspend({ kind: 'RayJob', spec: { suspend: true, entrypoint: 'e' } })).toEqual({ kind: 'RayJob', spec: { entrypoint: 'e' } });
  // An object of another kind is copied whole.
  expect(withoutSuspend({ kind: 'LocalQueue', spec: { suspend: true } })).toEqual({ kind: 'LocalQueue', spec: { suspend: true } });
  expect([isRayObject({ apiVersion: 'ray.io/v1', kind: 'RayJob' }), isRayObject({ apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'LocalQueue' }),
    isRayObject({ kind: 'RayJob' })]).toEqual([true, false, false]);
});

test('conflicts: the fields and their owners, as kubectl words one or several', () => {
  const one = 'error: Apply failed with 1 conflict: conflict with "kuberay-operator" using ray.io/v1: .spec.rayClusterSpec.workerGroupSpecs\n';
  expect(conflictsOf(one))
    .toEqual({ fields: ['.spec.rayClusterSpec.workerGroupSpecs'], owners: ['kuberay-operator'] });
  const several = 'error: Apply failed with 2 conflicts: conflicts with "kueue" using ray.io/v1:\n- .spec.rayClusterSpec.workerGroupSpecs\n'
    + '- .spec.rayClusterSpec.headGroupSpec.template\n';
  expect(conflictsOf(several)).toEqual({ fields: ['.spec.rayClusterSpec.workerGroupSpecs', '.spec.rayClusterSpec.headGroupSpec.template'],
    owners: ['kueue'] });
});

describe('the command line: --help and usage errors are decided before anything is applied', () => {
  // No kubectl exists at this path: a test that reached the cluster would fail with exit 1.
  const env = { ...process.env, KUBECTL: '/nonexistent/kubectl' };
  async function run(argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await apply(argv, { stdout: (s) => { out += s; }, stderr: (s) => { err += s; } }, { ...env, ...extraEnv });
    return { code, out, err };
  }

  test('--help and -h print the usage on stdout, exit 0, wherever they are', async () => {
    for (const argv of [['--help'], ['dist', '-h'], ['-f', 'x', '--help']]) {
      const r = await run(argv);
      expect([r.code, r.out, r.err]).toEqual([0, APPLY_USAGE, '']);
    }
    expect(APPLY_USAGE).toMatch(/^usage: cdk8s-kueue-ray apply /);
    expect(APPLY_USAGE).toContain('cdk8s-kueue-ray-apply');
  });

  test('a usage error is one line naming the flag, then the pointer to --help; exit 2', async () => {
    for (const [argv, line] of [
      [['--bogus'], 'cdk8s-kueue-ray apply: unknown flag \'--bogus\'; known: -f, --filename, --dry-run, --no-wait, --kubeconfig, --verbose, '
        + '-h, --help'],
      [['--kubeconfig'], 'cdk8s-kueue-ray apply: --kubeconfig needs a value'],
      [['--dry-run=yes'], 'cdk8s-kueue-ray apply: --dry-run takes no value'],
      [['--kubeconfig', 'a', '--kubeconfig=b'], 'cdk8s-kueue-ray apply: --kubeconfig given twice'],
      [['-', '-f', '-'], 'cdk8s-kueue-ray apply: - (standard input) given twice: it is read once'],
    ] as const) {
      const r = await run([...argv]);
      expect([r.code, r.out, r.err]).toEqual([2, '', `${line}\nSee 'cdk8s-kueue-ray apply --help' for usage.\n`]);
    }
  });

  test('a file or folder that does not exist: one line naming it, exit 2, no stack trace', async () => {
    const missing = path.join(tmpdir(), 'nope');
    const r = await run(['-f', missing]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`cdk8s-kueue-ray apply: ${missing}: no such file or folder (run \`npx cdk8s synth\` first, or give the synthesized folder `
      + 'or its files)\n');
    // The default folder too, and a missing --kubeconfig.
    const cwd = process.cwd();
    process.chdir(tmpdir());
    try {
      expect((await run([])).err).toBe('cdk8s-kueue-ray apply: dist: no such file or folder (run `npx cdk8s synth` first, or give the '
        + 'synthesized folder or its files)\n');
    } finally {
      process.chdir(cwd);
    }
    const dir = tmpFiles({ 'a.k8s.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n' });
    expect(await run([dir, '--kubeconfig', missing]))
      .toEqual({ code: 2, out: '', err: `cdk8s-kueue-ray apply: --kubeconfig ${missing}: no such file\n` });
  });

  test('--verbose or CDK8S_KUEUE_RAY_DEBUG adds the stack trace under the same line', async () => {
    const missing = path.join(tmpdir(), 'nope');
    for (const [argv, debug] of [[[missing, '--verbose'], ''], [[missing], '1']] as const) {
      const r = await run([...argv], { CDK8S_KUEUE_RAY_DEBUG: debug });
      const [first, ...rest] = r.err.trimEnd().split('\n');
      expect([r.code, first]).toEqual([2, expect.stringMatching(/^cdk8s-kueue-ray apply: .*nope: no such file or folder/)]);
      expect(rest.length > 0 && rest.every((l) => /^\s+at /.test(l))).toBe(true);
    }
  });

  test('a failed apply exits 1 with one line naming what failed (here: kubectl is not there)', async () => {
    const dir = tmpFiles({ 'a.k8s.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n' });
    const r = await run([dir, '--no-wait']);
    expect([r.code, r.err]).toEqual([1, 'cdk8s-kueue-ray apply: apply of Namespaces failed:\n/nonexistent/kubectl: not found; put kubectl on '
      + 'the PATH or set KUBECTL to its path\n']);
  });

  test('options: positional paths and -f (repeatable, comma lists) add up in the order given; none, dist', () => {
    expect(parseApplyArgs([])).toEqual({ inputs: ['dist'], dryRun: false, noWait: false, kubeconfig: undefined, help: false });
    expect(parseApplyArgs(['out', '--dry-run', '--kubeconfig', 'k'])).toMatchObject({ inputs: ['out'], dryRun: true, kubeconfig: 'k' });
    expect(parseApplyArgs(['--kubeconfig=k2', '--no-wait'])).toMatchObject({ inputs: ['dist'], noWait: true, kubeconfig: 'k2' });
    expect(parseApplyArgs(['a', '-f', 'b', '--filename=c,d', 'e', '-f-'])).toMatchObject({ inputs: ['a', 'b', 'c', 'd', 'e', '-'] });
  });

  test('the files read: a folder\'s *.k8s.yaml directly in it in name order (not create/), a file as given, - standard input', () => {
    const dir = tmpFiles({ 'b.k8s.yaml': 'kind: B\nmetadata: {name: b}\n', 'a.k8s.yaml': 'kind: A\nmetadata: {name: a}\n---\n',
      'notes.yaml': 'kind: N\n', 'create/c.k8s.yaml': 'kind: C\nmetadata: {generateName: c-}\n' });
    // One folder: its files by name, as the apply always listed them.
    expect(readApplyFiles([dir]).map((f) => [f.file, f.objects.map((o) => o.kind)])).toEqual([['a.k8s.yaml', ['A']], ['b.k8s.yaml', ['B']]]);
    const extra = path.join(tmpdir(), 'extra.yaml');
    fs.writeFileSync(extra, 'kind: E\nmetadata: {name: e}\n');
    // Several paths: each file by its path, in the order given.
    expect(readApplyFiles([extra, dir, '-'], () => 'kind: S\nmetadata: {name: s}\n').map((f) => [f.file, f.objects.map((o) => o.kind)]))
      .toEqual([[extra, ['E']], [path.join(dir, 'a.k8s.yaml'), ['A']], [path.join(dir, 'b.k8s.yaml'), ['B']], ['-', ['S']]]);
    const bad = path.join(tmpdir(), 'bad.yaml');
    fs.writeFileSync(bad, 'kind: A\n---\nkind: [\n');
    expect(() => readApplyFiles([bad])).toThrow(`${bad}: document 2 is not valid YAML`);
  });

  test('the CLI lists apply among its commands', () => {
    expect(MAIN_USAGE).toMatch(/^ {2}apply \[dist\/ \| FILES\] /m);
  });
});
