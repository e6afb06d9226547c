// The npm package as a user installs it: the packed tarball (`npm run package`) in a fresh cdk8s
// TypeScript app with the files `cdk8s init typescript-app` writes (its strict tsconfig), on a cdk8s
// patch release other than the repo's. The README's TypeScript examples compile and synthesize there.
// A second fresh app installs the tarball with npm offline (from the cache the first install filled) and
// synthesizes the README's Getting started with every proxy variable pointing at a closed port.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { docBlocks, readmeBlocks } from '../support/readme';
import { DAY_ONE_KUBERAY, DAY_ONE_KUBERAY_IMAGE, DAY_ONE_KUEUE, DAY_ONE_MIRROR, expectDayOne, startReleaseMirror } from '../support/day-one';
import { REPO_ROOT } from '../support/upstream';

const repoPkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
const TEMPLATE = path.join(REPO_ROOT, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
// The app's cdk8s: the newest 2.70 patch on the registry, not the repo's own (the lower bound of the peer range).
const APP_CDK8S = '2.70.106';

function tarball(): string {
  const dir = path.join(REPO_ROOT, 'dist', 'js');
  const f = fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => n.endsWith('.tgz')) : undefined;
  if (!f) throw new Error('dist/js/*.tgz is missing: run `npm run package` first (`npm test` does)');
  return path.join(dir, f);
}

/** Runs a command in the app; `env` entries set to undefined are removed (a user's shell would not have them). */
function run(cwd: string, cmd: string, args: string[], env: Record<string, string | undefined> = {}): string {
  const merged: NodeJS.ProcessEnv = { ...process.env, CI: '1' };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  return execFileSync(cmd, args, { cwd, env: merged, stdio: 'pipe', maxBuffer: 64 << 20 }).toString();
}

describe('the npm package in a fresh cdk8s TypeScript app', () => {
  let app: string;

  beforeAll(() => {
    expect(APP_CDK8S).not.toBe(repoPkg.devDependencies.cdk8s);
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-consumer-ts-'));
    // The files `cdk8s init typescript-app` writes, from the CLI's own template.
    fs.copyFileSync(path.join(TEMPLATE, 'tsconfig.json'), path.join(app, 'tsconfig.json'));
    fs.writeFileSync(path.join(app, 'cdk8s.yaml'), 'language: typescript\napp: npx ts-node main.ts\n');
    const template = JSON.parse(fs.readFileSync(path.join(TEMPLATE, 'package.json'), 'utf8'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({
      name: 'consumer-app', version: '1.0.0', private: true, main: 'main.js', types: 'main.ts', license: 'Apache-2.0',
      scripts: { compile: template.scripts.compile, synth: 'ts-node main.ts' },
      dependencies: {
        'cdk8s': APP_CDK8S,
        // What the init template adds beside cdk8s; it too must share the app's cdk8s.
        'cdk8s-plus-33': `^${JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', 'cdk8s-plus-33', 'package.json'), 'utf8')).version}`,
        'constructs': repoPkg.peerDependencies.constructs,
        'cdk8s-kueue-ray': `file:${tarball()}`,
      },
      devDependencies: { 'typescript': repoPkg.devDependencies.typescript, 'ts-node': repoPkg.devDependencies['ts-node'],
        '@types/node': repoPkg.devDependencies['@types/node'] },
    }, null, 2));
    run(app, 'npm', ['install', '--no-audit', '--no-fund', '--loglevel=error']);
  }, 600_000);

  afterAll(() => {
    if (app) fs.rmSync(app, { recursive: true, force: true });
  });

  test('one cdk8s in the tree, and none of the controller\'s runtime dependencies', () => {
    const copies = run(app, 'npm', ['ls', 'cdk8s', '--all', '--parseable']).trim().split('\n').filter(Boolean);
    expect(copies).toEqual([path.join(fs.realpathSync(app), 'node_modules', 'cdk8s')]);
    expect(require(path.join(app, 'node_modules', 'cdk8s', 'package.json')).version).toBe(APP_CDK8S);
    for (const dep of ['@kubernetes/client-node', 'node-forge']) expect(fs.existsSync(path.join(app, 'node_modules', dep))).toBe(false);
    const pkg = path.join(app, 'node_modules', 'cdk8s-kueue-ray');
    for (const f of ['LICENSE', 'NOTICE', '.jsii', 'lib/src/index.js', 'lib/src/index.d.ts']) expect(fs.existsSync(path.join(pkg, f))).toBe(true);
    // What construct users load never reaches the controller's code.
    expect(fs.existsSync(path.join(pkg, 'lib', 'src', 'controller'))).toBe(false);
    const du = (p: string) => Number(run(app, 'du', ['-sk', p]).split('\t')[0]);
    console.log(`consumer install: node_modules ${du('node_modules')} KiB, cdk8s-kueue-ray ${du(pkg)} KiB`);
  });

  test('the complete example of docs/constructs.md compiles under the init tsconfig and synthesizes', () => {
    const [example] = docBlocks('docs/constructs.md', '## One complete example', 'ts');
    expect(example).toContain("from 'cdk8s-kueue-ray'");
    fs.writeFileSync(path.join(app, 'main.ts'), example);
    run(app, 'npx', ['tsc', '--build']);
    fs.rmSync(path.join(app, 'dist'), { recursive: true, force: true });
    const out = run(app, 'npx', ['ts-node', 'main.ts']);
    expect(out).toMatch(/cpu: '2\.5'/);
    const docs = fs.readdirSync(path.join(app, 'dist')).flatMap((f) =>
      parseAllDocuments(fs.readFileSync(path.join(app, 'dist', f), 'utf8')).map((d) => d.toJS()));
    const job = docs.find((d) => d.kind === 'RayJob');
    expect(job.metadata.labels).toMatchObject({ 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
    expect(job.spec.suspend).toBe(true);
    expect(docs.map((d) => d.kind).sort()).toEqual(['ClusterQueue', 'LocalQueue', 'RayJob', 'ResourceFlavor', 'WorkloadPriorityClass']);
  }, 300_000);

  test('the README\'s getting-started app (installs, tenant, job, controller) synthesizes, downloading the releases once', async () => {
    const [example] = readmeBlocks('## Getting started', 'ts');
    expect(example).toMatch(/new KueueInstall\(app, 'kueue'\)/);
    fs.writeFileSync(path.join(app, 'main.ts'), example);
    fs.rmSync(path.join(app, 'dist'), { recursive: true, force: true });
    // The release hosts, served from the vendored files on 127.0.0.1 (the same paths as upstream's).
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-releases-'));
    const mirror = await startReleaseMirror(root, { kueue: ['v0.19.2'], kubeRay: ['v1.6.2'] }, 'test/packaging/consumer-typescript.test.ts');
    const server = mirror.server;
    try {
      const env = { ...mirror.env, CDK8S_KUEUE_RAY_LOCKED: undefined, CDK8S_KUEUE_RAY_LOCK_FILE: undefined };
      run(app, 'npx', ['tsc', '--build']);
      run(app, 'npx', ['ts-node', 'main.ts'], env);
      // The lock file sits beside cdk8s.yaml and records the official URL of what was downloaded.
      const lock = JSON.parse(fs.readFileSync(path.join(app, 'cdk8s-kueue-ray.lock.json'), 'utf8'));
      expect(JSON.stringify(lock)).toContain('https://github.com/kubernetes-sigs/kueue/releases/download/v0.19.2/manifests.yaml');
      const files = fs.readdirSync(path.join(app, 'dist')).filter((f) => f.endsWith('.k8s.yaml'));
      // KueueRayApp: the generateName run is in dist/create/, for kubectl create, and nowhere else.
      const runs = parseAllDocuments(fs.readFileSync(path.join(app, 'dist', 'create', 'runs.k8s.yaml'), 'utf8')).map((d) => d.toJS());
      expect(runs.map((o) => [o.kind, o.metadata.namespace, o.metadata.generateName])).toEqual([['RayJob', 'team-a', 'nightly-']]);
      const objects = files.flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(app, 'dist', f), 'utf8'))
        .map((d) => ({ file: f, o: d.toJS() })));
      const find = (kind: string, name: string) => objects.find((x) => x.o.kind === kind && x.o.metadata?.name === name);
      expect(objects.filter((x) => x.o.metadata?.generateName)).toEqual([]);
      expect(find('Deployment', 'kuberay-operator')).toBeDefined();
      expect(find('Deployment', 'kueue-controller-manager')).toBeDefined();
      expect(find('CustomResourceDefinition', 'rayjobs.ray.io')).toBeDefined();
      const controller = find('Deployment', 'cdk8s-kueue-ray-controller')!.o;
      expect(controller.spec.template.spec.containers[0].image).toBe(`ghcr.io/cdk8s-kueue-ray/controller:${repoPkg.version}`);
      expect(find('Namespace', 'team-a')).toBeDefined();
      const job = find('RayJob', 'train')!;
      expect(job.o.metadata)
        .toMatchObject({ namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'default', 'kueue.x-k8s.io/priority-class': 'dev' } });
      // The installs come first in dist/, so the ordered apply and plain `kubectl apply -f dist/` see them first.
      expect(files.indexOf(find('Deployment', 'kueue-controller-manager')!.file)).toBeLessThan(files.indexOf(job.file));
      // A second synth is served from the cache and the lock: no further request.
      const before = server.requests().length;
      run(app, 'npx', ['ts-node', 'main.ts'], { ...env, CDK8S_KUEUE_RAY_LOCKED: '1' });
      expect(server.requests().length).toBe(before);
    } finally {
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);

  test('offline: the getting-started app synthesizes with no network, no mirror and no vendor folder, from the package\'s releases', () => {
    const [example] = readmeBlocks('## Getting started', 'ts');
    fs.writeFileSync(path.join(app, 'main.ts'), example);
    fs.rmSync(path.join(app, 'dist'), { recursive: true, force: true });
    fs.rmSync(path.join(app, 'cdk8s-kueue-ray.lock.json'), { force: true });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-offline-cache-'));
    fs.rmdirSync(cache);
    expect(fs.existsSync(path.join(app, 'node_modules', 'cdk8s-kueue-ray', 'lib', 'releases', 'index.json'))).toBe(true);
    run(app, 'npx', ['ts-node', 'main.ts'], { CDK8S_KUEUE_RAY_CACHE: cache, CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL: undefined,
      CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL: undefined, KUEUE_RAY_VENDOR_DIR: undefined, CDK8S_KUEUE_RAY_LOCKED: '1',
      CDK8S_KUEUE_RAY_LOCK_FILE: undefined, CDK8S_KUEUE_RAY_RELEASES_DIR: undefined });
    // Any download writes the cache, and a first one the lock file: neither happened.
    expect(fs.existsSync(cache)).toBe(false);
    expect(fs.existsSync(path.join(app, 'cdk8s-kueue-ray.lock.json'))).toBe(false);
    const objects = fs.readdirSync(path.join(app, 'dist')).filter((f) => f.endsWith('.k8s.yaml'))
      .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(app, 'dist', f), 'utf8')).map((d) => d.toJS()));
    expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual(
      expect.arrayContaining(['rayjobs.ray.io', 'rayclusters.ray.io', 'clusterqueues.kueue.x-k8s.io']));
  }, 300_000);

  test('offline from install to synth: a second fresh app installs the tarball from the npm cache alone and synthesizes the Getting started',
    () => {
      // The first app's install (beforeAll) filled the npm cache, as a connected machine's would. This one starts
      // from the same init files with every proxy variable pointing at a closed port and npm offline.
      const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-consumer-ts-offline-'));
      try {
        for (const f of ['package.json', 'tsconfig.json', 'cdk8s.yaml']) fs.copyFileSync(path.join(app, f), path.join(fresh, f));
        fs.writeFileSync(path.join(fresh, 'main.ts'), readmeBlocks('## Getting started', 'ts')[0]);
        const dead = 'http://127.0.0.1:9';
        const cache = path.join(fresh, 'release-cache');
        const offline = { npm_config_offline: 'true', HTTP_PROXY: dead, HTTPS_PROXY: dead, http_proxy: dead, https_proxy: dead,
          ALL_PROXY: dead, all_proxy: dead, NO_PROXY: undefined, no_proxy: undefined, CDK8S_KUEUE_RAY_CACHE: cache, CDK8S_KUEUE_RAY_LOCKED: '1',
          CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL: undefined, CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL: undefined, KUEUE_RAY_VENDOR_DIR: undefined,
          CDK8S_KUEUE_RAY_LOCK_FILE: undefined, CDK8S_KUEUE_RAY_RELEASES_DIR: undefined, CDK8S_OUTDIR: undefined };
        run(fresh, 'npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], offline);
        run(fresh, 'npx', ['tsc', '--build'], offline);
        run(fresh, 'npx', ['ts-node', 'main.ts'], offline);
        expect([fs.existsSync(cache), fs.existsSync(path.join(fresh, 'cdk8s-kueue-ray.lock.json'))]).toEqual([false, false]);
        const objects = fs.readdirSync(path.join(fresh, 'dist')).filter((f) => f.endsWith('.k8s.yaml'))
          .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(fresh, 'dist', f), 'utf8')).map((d) => d.toJS()));
        expect(objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name)).toEqual(
          expect.arrayContaining(['rayjobs.ray.io', 'clusterqueues.kueue.x-k8s.io']));
        expect(objects.filter((o) => o.kind === 'RayJob').map((o) => [o.metadata.namespace, o.metadata.name])).toEqual([['team-a', 'train']]);
        expect(fs.existsSync(path.join(fresh, 'dist', 'create', 'runs.k8s.yaml'))).toBe(true);
      } finally {
        fs.rmSync(fresh, { recursive: true, force: true });
      }
    }, 600_000);

  test('day one: mirrors, pull secrets, Helm settings, a generateName run in dist/create/, then check and plan for the recorded versions',
    async () => {
      fs.writeFileSync(path.join(app, 'main.ts'), DAY_ONE_APP);
      fs.rmSync(path.join(app, 'dist'), { recursive: true, force: true });
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-day-one-'));
      const { server, env } = await startReleaseMirror(root, { kueue: [DAY_ONE_KUEUE], kubeRay: [DAY_ONE_KUBERAY] },
        'test/packaging/consumer-typescript.test.ts');
      try {
        // ts-node type-checks it under the init tsconfig (the getting-started test runs tsc --build on this app).
        run(app, 'npx', ['ts-node', 'main.ts'], { ...env, CDK8S_KUEUE_RAY_LOCKED: undefined, CDK8S_KUEUE_RAY_LOCK_FILE: undefined });
        expectDayOne(app, (args) => run(app, 'npx', ['cdk8s-kueue-ray', ...args]), repoPkg.version);
        // apply from the tarball, and under its earlier name (no cluster here: their usage).
        for (const argv of [['cdk8s-kueue-ray', 'apply', '--help'], ['cdk8s-kueue-ray-apply', '--help']]) {
          expect(run(app, 'npx', argv)).toMatch(/^usage: cdk8s-kueue-ray apply /);
        }
      } finally {
        await server.stop();
        fs.rmSync(root, { recursive: true, force: true });
      }
    }, 300_000);
});

// What a platform team writes on day one from the README's Getting started, Installs and Air-gapped
// sections (test/packaging/consumer-python.test.ts writes the same app in Python).
const DAY_ONE_APP = `import { Chart, Duration } from 'cdk8s';
import {
  AdmissionController, ImageRegistry, KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayApp, KueueRayVersions, KueueVersion,
  Quantity, QueuedRayJob, ResourceFlavor, ResourceName, TenantQueue,
} from 'cdk8s-kueue-ray';

const app = new KueueRayApp();
KueueRayVersions.use(app, { kueue: KueueVersion.of('${DAY_ONE_KUEUE}'), kubeRay: KubeRayVersion.of('${DAY_ONE_KUBERAY}') });
ImageRegistry.use(app, { mirror: '${DAY_ONE_MIRROR}' });
const kubeRay = new KubeRayInstall(app, 'kuberay', { batchScheduler: 'volcano', imagePullSecrets: ['corp-pull'],
  image: { repository: '${DAY_ONE_KUBERAY_IMAGE.repository}', tag: '${DAY_ONE_KUBERAY_IMAGE.tag}' } });
const kueue = new KueueInstall(app, 'kueue', { waitForPodsReady: { timeout: Duration.minutes(45) }, imagePullSecrets: ['corp-pull'] });
const controller = new AdmissionController(app, 'controller', { imagePullSecrets: ['corp-pull'] });
const team = new Chart(app, 'team-a');
const flavor = new ResourceFlavor(team, 'default-flavor');
const tenant = new TenantQueue(team, 'team-a', { namespace: 'team-a', resourceGroups: [{ flavors: [{ flavor, quotas: [
  { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(4) }, { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) }] }] }] });
const head = { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(4) } };
new QueuedRayJob(team, 'train', { queue: tenant, entrypoint: 'python train.py', headGroup: head });
for (const chart of [controller, team]) chart.addDependency(kubeRay, kueue);
const runs = new Chart(app, 'runs');
new QueuedRayJob(runs, 'nightly', { queue: tenant, generateName: 'nightly-', entrypoint: 'python train.py', headGroup: head });
app.synth();
`;
