// Consumer test for Python users (issue 10): the wheel that `npm run package` writes, installed into a fresh
// venv with cdk8s from PyPI, runs the Python port of the examples app (examples/python/) and writes the
// same objects as the TypeScript app (examples/main.ts), file for file and object for object. The README's
// Python example runs there too and writes what its TypeScript example writes.
// Offline: a second fresh venv installs the wheel from a folder with no index, and the README's Python
// Getting started writes there, with no network, what its TypeScript Getting started writes.
import { execFile, execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isDeepStrictEqual, promisify } from 'util';
import { parseAllDocuments } from 'yaml';
import { defaultCacheDir } from '../../src/install/release-source';
import { DAY_ONE_KUBERAY, DAY_ONE_KUBERAY_IMAGE, DAY_ONE_KUEUE, DAY_ONE_MIRROR, expectDayOne, startReleaseMirror } from '../support/day-one';
import { docBlocks, readmeBlocks } from '../support/readme';
import { RELEASES_DIR_ENV } from '../../src/install/bundled-releases';

const ROOT = path.resolve(__dirname, '..', '..');
const VERSION: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const WHEEL = path.join(ROOT, 'dist', 'python', `cdk8s_kueue_ray-${VERSION}-py3-none-any.whl`);
const REBUILD = 'the wheel is built from src/ by `npm run package`; run it again if src/ changed since';
const run = promisify(execFile);

// The jsii runtime in the wheel's Python process prints a banner about Node 20 unless told not to.
const ENV = { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20', JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION: '1' };

let tmp: string;
let python: string;

beforeAll(() => {
  if (!fs.existsSync(WHEEL)) {
    const dir = path.dirname(WHEEL);
    const found = fs.existsSync(dir) ? `it holds: ${fs.readdirSync(dir).join(', ') || 'nothing'}` : 'it does not exist';
    throw new Error(`consumer-python: no wheel ${path.relative(ROOT, WHEEL)} (${path.relative(ROOT, dir)}: ${found}). Run \`npm run package\` first `
      + '(and again after `npx cdk8s synth`, which empties dist/).');
  }
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'consumer-python-'));
  const venv = path.join(tmp, 'venv');
  try {
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'pipe' });
  } catch (e) {
    throw new Error(`consumer-python: \`python3 -m venv\` failed (install Python 3 with its venv module): ${(e as Error).message}`);
  }
  python = path.join(venv, 'bin', 'python');
  // pip's own settings pick the index; only its download cache is shared (content-addressed), the venv is new.
  execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--no-input', '--disable-pip-version-check', WHEEL], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...ENV, PIP_CACHE_DIR: path.join(defaultCacheDir(), 'pip') },
  });
}, 240_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every *.k8s.yaml under dir (dist/ and dist/create/), relative to it, sorted. */
function manifestFiles(dir: string): string[] {
  const files: string[] = [];
  for (const sub of ['', 'create']) {
    const d = path.join(dir, sub);
    if (!fs.existsSync(d)) continue;
    for (const f of fs.readdirSync(d)) if (f.endsWith('.k8s.yaml')) files.push(path.join(sub, f));
  }
  return files.sort();
}

/** The YAML documents of a file, as plain objects; a syntax error fails the test naming the file. */
function documents(file: string): any[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
    return d.toJSON();
  });
}

function describeObject(o: any): string {
  const m = o?.metadata ?? {};
  return `${o?.kind ?? '?'} ${m.namespace ? `${m.namespace}/` : ''}${m.name ?? m.generateName ?? '?'}`;
}

/** The first path at which a and b differ, with both values, for a readable failure. */
function firstDifference(a: any, b: any, at = ''): { at: string; a: unknown; b: unknown } | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], Array.isArray(a) ? `${at}[${k}]` : `${at}.${k}`);
      if (d) return d;
    }
  }
  return { at: at || '(the whole object)', a, b };
}

/** Fails on the first object that differs between the two outdirs, by file, kind, namespace and name. */
function expectSameManifests(expectedDir: string, actualDir: string, labels: [string, string]): number {
  const expected = manifestFiles(expectedDir);
  expect(manifestFiles(actualDir)).toEqual(expected);
  let objects = 0;
  for (const file of expected) {
    const a = documents(path.join(expectedDir, file));
    const b = documents(path.join(actualDir, file));
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i]);
      if (d) {
        throw new Error(`${file}, object ${i + 1} (${describeObject(a[i] ?? b[i])}) differs at ${d.at}: `
          + `the ${labels[0]} has ${JSON.stringify(d.a)}, the ${labels[1]} ${JSON.stringify(d.b)}\n(${REBUILD})`);
      }
    }
    objects += a.length;
  }
  return objects;
}

test('the Python port of the examples app writes the same files and objects as the TypeScript app', async () => {
  const pyOut = path.join(tmp, 'examples-py');
  const tsOut = path.join(tmp, 'examples-ts');
  // Both apps get the same environment (KUEUE_VERSION, EXAMPLES, CONTROLLER_IMAGE, ... pass through);
  // they run side by side to keep the test short.
  await Promise.all([
    run(python, [path.join(ROOT, 'examples', 'python', 'main.py')], { cwd: tmp, env: { ...ENV, CDK8S_OUTDIR: pyOut } }),
    run('npx', ['ts-node', '--transpile-only', 'examples/main.ts'], { cwd: ROOT, env: { ...ENV, CDK8S_OUTDIR: tsOut } }),
  ]);
  const files = manifestFiles(tsOut);
  // Not vacuous: the installs always come first, and by default the generateName jobs go to create/.
  expect(files).toContain('0000-kuberay-install.k8s.yaml');
  if (!process.env.EXAMPLES) expect(files).toEqual(expect.arrayContaining(['create/gang-scheduling.k8s.yaml', 'create/priority.k8s.yaml']));
  const objects = expectSameManifests(tsOut, pyOut, ['TypeScript app', 'Python app']);
  expect(objects).toBeGreaterThan(files.length);
}, 180_000);

test("the README's Python example synthesizes its queued RayJob, the same objects as its TypeScript example", async () => {
  const dir = path.join(tmp, 'readme');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'main.py'), docBlocks('docs/constructs.md', '### The same in Python', 'python')[0]);
  // The TypeScript example imports the package by name: here it is the repo's source, resolved from the repo.
  fs.writeFileSync(path.join(dir, 'main.ts'), docBlocks('docs/constructs.md', '## One complete example', 'ts')[0]
    .replace(/from 'cdk8s-kueue-ray'/g, `from ${JSON.stringify(path.join(ROOT, 'src'))}`));
  const pyOut = path.join(dir, 'py');
  const tsOut = path.join(dir, 'ts');
  const [py] = await Promise.all([
    // runpy keeps the example's globals, so the gang its comment states is checked as well.
    run(python, ['-c', "import json, runpy; print(json.dumps(dict(runpy.run_path('main.py')['job'].gang.total_requests)))"], {
      cwd: dir, env: { ...ENV, CDK8S_OUTDIR: pyOut },
    }),
    run('npx', ['ts-node', '--transpile-only', '--project', path.join(ROOT, 'tsconfig.json'), path.join(dir, 'main.ts')], {
      cwd: ROOT, env: { ...ENV, CDK8S_OUTDIR: tsOut, NODE_PATH: path.join(ROOT, 'node_modules') },
    }),
  ]);
  expect(JSON.parse(py.stdout)).toEqual({ cpu: '2.5', memory: '4296Mi' });
  const objects = manifestFiles(pyOut).flatMap((f) => documents(path.join(pyOut, f)));
  const jobs = objects.filter((o) => o.kind === 'RayJob');
  expect(jobs.map((j) => [j.metadata.namespace, j.metadata.name, j.metadata.labels?.['kueue.x-k8s.io/queue-name']]))
    .toEqual([['default', 'train', 'user-queue']]);
  expectSameManifests(tsOut, pyOut, ['TypeScript example', 'Python example']);
}, 120_000);

// What makes pip, npm and the package's release reader offline for a child process: no index, npm
// offline, every proxy variable pointing at a closed port, no mirror or vendor folder, and a release cache
// that does not exist yet (any download would create it).
function offlineEnv(cache: string): NodeJS.ProcessEnv {
  const dead = 'http://127.0.0.1:9';
  const env: NodeJS.ProcessEnv = { ...ENV, PIP_NO_INDEX: '1', npm_config_offline: 'true', HTTP_PROXY: dead, HTTPS_PROXY: dead,
    http_proxy: dead, https_proxy: dead, ALL_PROXY: dead, all_proxy: dead, CDK8S_KUEUE_RAY_CACHE: cache, CDK8S_KUEUE_RAY_LOCKED: '1' };
  for (const k of ['NO_PROXY', 'no_proxy', 'CDK8S_OUTDIR', 'CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL', 'CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL',
    'KUEUE_RAY_VENDOR_DIR', 'CDK8S_KUEUE_RAY_LOCK_FILE', RELEASES_DIR_ENV]) delete env[k];
  return env;
}

test("offline: a fresh venv installs the wheel with no index and runs the README's Python Getting started, "
  + 'writing what its TypeScript Getting started writes', async () => {
  const dir = path.join(tmp, 'getting-started');
  fs.mkdirSync(dir);
  // On a connected machine, as for an air-gapped one: the wheel and its dependencies in a folder (from pip's cache).
  const wheelhouse = path.join(dir, 'wheelhouse');
  execFileSync(python, ['-m', 'pip', 'download', '--quiet', '--no-input', '--dest', wheelhouse, WHEEL], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...ENV, PIP_CACHE_DIR: path.join(defaultCacheDir(), 'pip') },
  });
  // From here on, nothing may reach the network: a new venv, the wheel from the folder alone, then the README's app.
  const cache = path.join(dir, 'release-cache');
  const offline = offlineEnv(cache);
  const venv = path.join(dir, 'venv');
  execFileSync('python3', ['-m', 'venv', venv], { stdio: 'pipe' });
  const py = path.join(venv, 'bin', 'python');
  execFileSync(py, ['-m', 'pip', 'install', '--quiet', '--no-input', '--no-index', '--find-links', wheelhouse, '--no-cache-dir', WHEEL], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...offline, PIP_FIND_LINKS: wheelhouse },
  });
  const [pyExample] = readmeBlocks('## Getting started', 'python');
  expect(pyExample).toMatch(/KueueInstall\(app, "kueue"\)/);
  fs.writeFileSync(path.join(dir, 'main.py'), pyExample);
  const pyOut = path.join(dir, 'dist-py');
  await run(py, ['main.py'], { cwd: dir, env: { ...offline, CDK8S_OUTDIR: pyOut } });
  // Any download would have written the release cache, and a first one the lock file beside main.py.
  expect([fs.existsSync(cache), fs.existsSync(path.join(dir, 'cdk8s-kueue-ray.lock.json'))]).toEqual([false, false]);
  const objects = manifestFiles(pyOut).flatMap((f) => documents(path.join(pyOut, f)));
  expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name))
    .toEqual(expect.arrayContaining(['rayjobs.ray.io', 'clusterqueues.kueue.x-k8s.io']));
  expect(objects.filter((o) => o.kind === 'RayJob').map((o) => [o.metadata.namespace, o.metadata.name ?? o.metadata.generateName]))
    .toEqual([['team-a', 'train'], ['team-a', 'nightly-']]);

  // The README's TypeScript Getting started, on the repo's source with the releases the package carries.
  const bundle = path.join(dir, 'releases');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack-releases.js'), bundle], { stdio: 'pipe' });
  fs.writeFileSync(path.join(dir, 'main.ts'), readmeBlocks('## Getting started', 'ts')[0]
    .replace(/from 'cdk8s-kueue-ray'/g, `from ${JSON.stringify(path.join(ROOT, 'src'))}`));
  const tsOut = path.join(dir, 'dist-ts');
  await run('npx', ['ts-node', '--transpile-only', '--project', path.join(ROOT, 'tsconfig.json'), path.join(dir, 'main.ts')], {
    cwd: ROOT, env: { ...offlineEnv(cache), CDK8S_OUTDIR: tsOut, NODE_PATH: path.join(ROOT, 'node_modules'), [RELEASES_DIR_ENV]: bundle },
  });
  expect(expectSameManifests(tsOut, pyOut, ['TypeScript Getting started', 'Python Getting started'])).toBe(objects.length);
}, 300_000);

test('the wheel installs the cdk8s-kueue-ray command in the venv, as the README says: check and plan run from it', async () => {
  const bin = path.join(path.dirname(python), 'cdk8s-kueue-ray');
  expect(fs.existsSync(bin)).toBe(true);
  const help = await run(bin, ['--help'], { env: ENV });
  expect(help.stdout).toMatch(/^usage: cdk8s-kueue-ray COMMAND/);
  // apply too, and under its earlier name (no cluster here: their usage).
  expect((await run(bin, ['apply', '--help'], { env: ENV })).stdout).toMatch(/^usage: cdk8s-kueue-ray apply /);
  const alias = await run(path.join(path.dirname(python), 'cdk8s-kueue-ray-apply'), ['--help'], { env: ENV });
  expect(alias.stdout).toMatch(/^usage: cdk8s-kueue-ray apply /);
  const file = path.join(tmp, 'job.yaml');
  fs.writeFileSync(file, 'apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: c\nspec:\n  headGroupSpec:\n    rayStartParams: {}\n'
    + '    template:\n      spec:\n        containers:\n        - name: ray-head\n          image: rayproject/ray:2.46.0\n');
  const checked = await run(bin, ['check', file, '--output=json'], { env: ENV });
  expect(JSON.parse(checked.stdout).summary.objects).toBe(1);
}, 60_000);

// The day-one app of test/packaging/consumer-typescript.test.ts, written in Python as the README's
// "The same in Python" says (keyword arguments, struct classes): the same assertions judge its dist/.
const DAY_ONE_APP = `from cdk8s import Chart, Duration
from cdk8s_kueue_ray import (
    AdmissionController, ContainerImage, ContainerResources, FlavorQuotas, HeadGroupOptions, ImageRegistry, KubeRayInstall,
    KubeRayVersion, KueueInstall, KueueRayApp, KueueRayVersions, KueueVersion, Quantity, QueuedRayJob, ResourceFlavor,
    ResourceGroup, ResourceName, ResourceQuota, TenantQueue, WaitForPodsReadyOptions,
)

app = KueueRayApp()
KueueRayVersions.use(app, kueue=KueueVersion.of("${DAY_ONE_KUEUE}"), kube_ray=KubeRayVersion.of("${DAY_ONE_KUBERAY}"))
ImageRegistry.use(app, mirror="${DAY_ONE_MIRROR}")
kube_ray = KubeRayInstall(app, "kuberay", batch_scheduler="volcano", image_pull_secrets=["corp-pull"],
                          image=ContainerImage(repository="${DAY_ONE_KUBERAY_IMAGE.repository}", tag="${DAY_ONE_KUBERAY_IMAGE.tag}"))
kueue = KueueInstall(app, "kueue", wait_for_pods_ready=WaitForPodsReadyOptions(timeout=Duration.minutes(45)),
                     image_pull_secrets=["corp-pull"])
controller = AdmissionController(app, "controller", image_pull_secrets=["corp-pull"])
team = Chart(app, "team-a")
flavor = ResourceFlavor(team, "default-flavor")
tenant = TenantQueue(team, "team-a", namespace="team-a", resource_groups=[ResourceGroup(flavors=[FlavorQuotas(flavor=flavor, quotas=[
    ResourceQuota(resource=ResourceName.CPU, nominal_quota=Quantity.cpu(4)),
    ResourceQuota(resource=ResourceName.MEMORY, nominal_quota=Quantity.gibibytes(16)),
])])])
head = HeadGroupOptions(resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(4)))
QueuedRayJob(team, "train", queue=tenant, entrypoint="python train.py", head_group=head)
for chart in (controller, team):
    chart.add_dependency(kube_ray, kueue)
runs = Chart(app, "runs")
QueuedRayJob(runs, "nightly", queue=tenant, generate_name="nightly-", entrypoint="python train.py", head_group=head)
app.synth()
`;

test('day one in Python: mirrors, pull secrets, Helm settings, a generateName run in dist/create/, then check and plan for the recorded versions',
  async () => {
    const dir = path.join(tmp, 'day-one');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'main.py'), DAY_ONE_APP);
    const { server, env } = await startReleaseMirror(path.join(tmp, 'releases'), { kueue: [DAY_ONE_KUEUE], kubeRay: [DAY_ONE_KUBERAY] },
      'test/packaging/consumer-python.test.ts');
    try {
      const clean: NodeJS.ProcessEnv = { ...ENV, ...env };
      for (const k of ['CDK8S_KUEUE_RAY_LOCKED', 'CDK8S_KUEUE_RAY_LOCK_FILE', 'CDK8S_OUTDIR']) delete clean[k];
      await run(python, ['main.py'], { cwd: dir, env: clean });
      const bin = path.join(path.dirname(python), 'cdk8s-kueue-ray');
      expectDayOne(dir, (args) => execFileSync(bin, args, { cwd: dir, env: ENV }).toString(), VERSION);
    } finally {
      await server.stop();
    }
  }, 120_000);
