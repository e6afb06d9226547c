// Issue 41: a first synth in a fresh app works offline. The package carries the pinned releases
// (scripts/pack-releases.js at build time, into lib/releases/), and the installs read them unless the
// props ask for a local file, a pin or a mirror, or the app's lock file records the file.
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { brotliCompressSync } from 'zlib';
import { Testing } from 'cdk8s';
import { KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion } from '../../src';
import { bundledReleasesDir, RELEASES_DIR_ENV } from '../../src/install/bundled-releases';
import { kueueReleaseUrl } from '../../src/install/releases';
import { DEBUG_ENV, synthError } from '../../src/install/synth-error';
import { readManifests, tmpdir } from '../support/synth';
import { REPO_ROOT, vendorDir } from '../support/upstream';

const ENV = [RELEASES_DIR_ENV, 'KUEUE_RAY_VENDOR_DIR', 'CDK8S_KUEUE_RAY_CACHE', 'CDK8S_KUEUE_RAY_LOCK_FILE', 'CDK8S_KUEUE_RAY_LOCKED',
  'CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL', 'CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL', DEBUG_ENV];
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
const CRDS = path.join('ray-operator', 'config', 'crd', 'bases');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const keys = (objs: any[]) => objs.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`).sort();

let bundle: string;
let vendor: string;
beforeAll(() => {
  vendor = vendorDir()!;
  expect(vendor).toBeDefined();
  bundle = path.join(tmpdir(), 'releases');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'pack-releases.js'), bundle], { stdio: 'pipe' });
});
let place: { cache: string; lock: string };
beforeEach(() => {
  // What a fresh app has: none of the repo's settings, and nowhere to look but the package.
  for (const k of ENV) delete process.env[k];
  process.env[RELEASES_DIR_ENV] = bundle;
  const dir = tmpdir();
  place = { cache: path.join(dir, 'cache'), lock: path.join(dir, 'cdk8s-kueue-ray.lock.json') };
  process.env.CDK8S_KUEUE_RAY_CACHE = place.cache;
  process.env.CDK8S_KUEUE_RAY_LOCK_FILE = place.lock;
});
afterAll(() => ENV.forEach((k) => (saved[k] === undefined ? delete process.env[k] : (process.env[k] = saved[k]))));

function synth(kueue: string, kubeRay: string): { kueue: any[]; kubeRay: any[] } {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(kueue), kubeRay: KubeRayVersion.of(kubeRay) });
  return { kueue: new KueueInstall(app, 'kueue').toJson(), kubeRay: new KubeRayInstall(app, 'kuberay').toJson() };
}

test.each([['v0.19.2', 'v1.6.2'], ['v0.14.8', 'v1.4.2'], ['v0.13.4', 'v1.5.2'], ['v0.17.8', 'v1.6.2']])(
  'Kueue %s and KubeRay %s synthesize with no props and no network, from the package\'s copies', (kueue, kubeRay) => {
    const out = synth(kueue, kubeRay);
    // Every download is written to the cache and every first download to the lock file: neither exists.
    expect(fs.existsSync(place.cache)).toBe(false);
    expect(fs.existsSync(place.lock)).toBe(false);
    expect(keys(out.kueue)).toEqual(keys(readManifests(path.join(vendor, 'kueue', kueue, 'manifests.yaml'))));
    const crds = out.kubeRay.filter((o) => o.kind === 'CustomResourceDefinition');
    const files = fs.readdirSync(path.join(vendor, 'kuberay', kubeRay, CRDS)).filter((f) => f.startsWith('ray.io_'));
    expect(crds.map((c) => c.metadata.name).sort()).toEqual(files.flatMap((f) => readManifests(path.join(vendor, 'kuberay', kubeRay, CRDS, f)))
      .map((c) => c.metadata.name).sort());
  });

test('the package\'s copy is what the local files give, object for object', () => {
  const app = Testing.app();
  const local = new KueueInstall(app, 'kueue', { manifestFile: path.join(vendor, 'kueue', 'v0.19.2', 'manifests.yaml') }).toJson();
  const crds = new KubeRayInstall(app, 'kuberay', { crdDir: path.join(vendor, 'kuberay', 'v1.6.2', CRDS) }).toJson();
  const bundled = synth('v0.19.2', 'v1.6.2');
  expect(bundled.kueue).toEqual(local);
  expect(bundled.kubeRay).toEqual(crds);
});

test('a file the app\'s lock file records keeps its recorded bytes (from the cache), not the package\'s copy', () => {
  const text = fs.readFileSync(path.join(vendor, 'kueue', 'v0.19.2', 'manifests.yaml'), 'utf8').replace('--zap-log-level=2', '--zap-log-level=3');
  expect(text).toContain('--zap-log-level=3');
  const sha = sha256(text);
  fs.mkdirSync(path.join(place.cache, 'releases', sha), { recursive: true });
  fs.writeFileSync(path.join(place.cache, 'releases', sha, 'manifests.yaml'), text);
  fs.writeFileSync(place.lock, JSON.stringify({ releases: { [kueueReleaseUrl('v0.19.2')]: { sha256: sha } } }));
  const dep = synth('v0.19.2', 'v1.6.2').kueue.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kueue-controller-manager');
  expect(dep.spec.template.spec.containers[0].args).toContain('--zap-log-level=3');
});

test('a damaged copy in the package is refused in one line that says to reinstall', () => {
  const damaged = path.join(tmpdir(), 'releases');
  fs.cpSync(bundle, damaged, { recursive: true });
  const file = path.join(damaged, 'kuberay', 'v1.6.2', 'ray.io_rayjobs.yaml.br');
  fs.writeFileSync(file, brotliCompressSync(Buffer.from('kind: CustomResourceDefinition\n')));
  process.env[RELEASES_DIR_ENV] = damaged;
  let error: any;
  try {
    synth('v0.19.2', 'v1.6.2');
  } catch (e) {
    error = e;
  }
  expect(error?.message).toBe(`KubeRayInstall 'kuberay' (KubeRay v1.6.2 ray.io_rayjobs.yaml): the bundled copy ${file} has sha256 `
    + `${sha256('kind: CustomResourceDefinition\n')}, not ${JSON.parse(fs.readFileSync(path.join(bundle, 'index.json'), 'utf8'))
      .files['kuberay/v1.6.2/ray.io_rayjobs.yaml'].sha256}; refusing it. Fix: reinstall cdk8s-kueue-ray.`);
  expect(error.stack).toBe(`Error: ${error.message}`);
});

test('a mirror in the environment still wins over the package\'s copy (air-gapped registries, other versions)', () => {
  // Port 1 on this machine refuses: the download is attempted, so the package's copy was not used.
  process.env.CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL = 'http://127.0.0.1:1/kueue';
  const app = Testing.app();
  expect(() => new KueueInstall(app, 'kueue')).toThrow(/cannot download http:\/\/127\.0\.0\.1:1\/kueue\/v0\.19\.2\/manifests\.yaml .* Fix: point releasesUrl/);
});

test('synth-time errors print as one line, with the stack kept under CDK8S_KUEUE_RAY_DEBUG', () => {
  expect(synthError('x: broken. Fix: mend it.').stack).toBe('Error: x: broken. Fix: mend it.');
  process.env[DEBUG_ENV] = '1';
  expect(synthError('x').stack).toMatch(/^Error: x\n\s+at /);
});

test('the package carries lib/releases/, which the build writes and the installs read by default', () => {
  delete process.env[RELEASES_DIR_ENV];
  expect(bundledReleasesDir()).toBe(path.join(REPO_ROOT, 'lib', 'releases'));
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  expect(pkg.files).toContain('lib/releases/**');
  expect(pkg.scripts.build).toMatch(/&& node scripts\/pack-releases\.js$/);
  // The cost, stated in docs/operations.md: under 1 MB in the package.
  const index = JSON.parse(fs.readFileSync(path.join(bundle, 'index.json'), 'utf8'));
  const packed = Object.keys(index.files).reduce((n, k) => n + fs.statSync(path.join(bundle, `${k}.br`)).size, 0);
  expect(packed).toBeLessThan(1_000_000);
  expect(Object.keys(index.files)).toEqual(expect.arrayContaining(['kueue/v0.19.2/manifests.yaml', 'kuberay/v1.6.2/ray.io_rayjobs.yaml']));
});
