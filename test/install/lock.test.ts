// The installs' downloads against a local HTTP server on 127.0.0.1 serving the vendored files: the first
// download of a Kueue release is recorded in the lock file, a changed file is refused, a second synth
// works offline from the cache, and locked mode refuses a URL that is not in the lock.
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { KubeRayInstall, KueueInstall, KueueRayVersions, KueueVersion } from '../../src';
import { defaultLockFile, LOCK_FILE_NAME } from '../../src/install/release-source';
import { KUBERAY_CRDS } from '../../src/install/releases';
import { ReleaseServer, startReleaseServer } from '../support/release-server';
import { readManifests, tmpdir } from '../support/synth';
import { vendorDir } from '../../scripts/vendor-dir';

const VENDOR = vendorDir('test/install/lock.test.ts');
const TAGS = ['v0.19.2', 'v0.14.8'];
const KUBERAY = 'v1.6.2';
const CRD_PATH = path.join('ray-operator', 'config', 'crd', 'bases');
const official = (tag: string) => `https://github.com/kubernetes-sigs/kueue/releases/download/${tag}/manifests.yaml`;
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const vendored = (tag: string) => fs.readFileSync(path.join(VENDOR, 'kueue', tag, 'manifests.yaml'));

const ENV = ['CDK8S_KUEUE_RAY_LOCKED', 'CDK8S_KUEUE_RAY_LOCK_FILE', 'CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL', 'CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL'];
const savedEnv = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
beforeEach(() => ENV.forEach((k) => delete process.env[k]));
afterAll(() => ENV.forEach((k) => (savedEnv[k] === undefined ? delete process.env[k] : (process.env[k] = savedEnv[k]))));

/** A served copy of the vendored files, laid out as the release hosts lay them out. */
function serverRoot(): string {
  const root = tmpdir();
  for (const tag of TAGS) {
    fs.mkdirSync(path.join(root, 'kueue', tag), { recursive: true });
    fs.copyFileSync(path.join(VENDOR, 'kueue', tag, 'manifests.yaml'), path.join(root, 'kueue', tag, 'manifests.yaml'));
  }
  fs.cpSync(path.join(VENDOR, 'kuberay', KUBERAY, CRD_PATH), path.join(root, 'kuberay', KUBERAY, CRD_PATH), { recursive: true });
  return root;
}

async function server(root = serverRoot()): Promise<ReleaseServer & { root: string }> {
  const s = await startReleaseServer(root, path.join(tmpdir(), 'requests.log'));
  return Object.assign(s, { root });
}

interface Synth { objects: any[]; stderr: string }

/** One app with a KueueInstall; returns its objects and what it wrote to stderr. */
function synthKueue(props: Record<string, any>, tag = 'v0.19.2'): Synth {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.of(tag) });
  const writes: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
    writes.push(String(chunk));
    return true;
  });
  try {
    return { objects: new KueueInstall(app, 'kueue', props).toJson(), stderr: writes.join('') };
  } finally {
    spy.mockRestore();
  }
}

function place(): { lockFile: string; cacheDir: string } {
  const dir = tmpdir();
  return { lockFile: path.join(dir, LOCK_FILE_NAME), cacheDir: path.join(dir, 'cache') };
}

const lockOf = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')).releases;
const keys = (objs: any[]) => objs.map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`).sort();

describe('KueueInstall downloads, verified by the lock file', () => {
  let srv: ReleaseServer & { root: string };
  beforeAll(async () => {
    srv = await server();
  });
  afterAll(() => srv.stop());

  test('the first download is recorded in the lock file, with a notice on stderr; the next synth reads the cache', () => {
    const p = place();
    const first = synthKueue({ ...p, locked: false, releasesUrl: `${srv.url}/kueue` });
    const sha = sha256(vendored('v0.19.2'));
    expect(lockOf(p.lockFile)).toEqual({ [official('v0.19.2')]: { sha256: sha } });
    expect(first.stderr).toBe(`cdk8s-kueue-ray: recorded sha256 ${sha} of ${official('v0.19.2')} (downloaded `
      + `from ${srv.url}/kueue/v0.19.2/manifests.yaml) in ${p.lockFile}. `
      + 'Commit this file: later synths refuse a download that differs, and CDK8S_KUEUE_RAY_LOCKED=1 (for CI) refuses any file not in it.\n');
    expect(keys(first.objects)).toEqual(keys(readManifests(path.join(VENDOR, 'kueue', 'v0.19.2', 'manifests.yaml'))));
    expect(fs.readFileSync(path.join(p.cacheDir, 'releases', sha, 'manifests.yaml'))).toEqual(vendored('v0.19.2'));
    expect(srv.requests().filter((r) => r.includes('v0.19.2'))).toHaveLength(1);

    const before = srv.requests().length;
    const second = synthKueue({ ...p, releasesUrl: `${srv.url}/kueue` });
    expect(second.stderr).toBe('');
    expect(second.objects).toEqual(first.objects);
    expect(srv.requests()).toHaveLength(before);
  });

  test('a changed file is refused, naming both hashes, and the lock is left as it was', () => {
    const root = serverRoot();
    const p = place();
    return server(root).then(async (own) => {
      try {
        synthKueue({ ...p, releasesUrl: `${own.url}/kueue` });
        const lockText = fs.readFileSync(p.lockFile, 'utf8');
        const recorded = sha256(vendored('v0.19.2'));
        const changed = vendored('v0.19.2').toString('utf8').replace('--zap-log-level=2', '--zap-log-level=9');
        fs.writeFileSync(path.join(root, 'kueue', 'v0.19.2', 'manifests.yaml'), changed);
        // A new cache, so the file is downloaded again.
        expect(() => synthKueue({ ...p, cacheDir: tmpdir(), releasesUrl: `${own.url}/kueue` })).toThrow(
          `KueueInstall 'kueue' (Kueue v0.19.2 manifests.yaml): ${own.url}/kueue/v0.19.2/manifests.yaml has sha256 ${sha256(changed)}, but the lock `
            + `file ${p.lockFile} records ${recorded}; refusing it. Fix: find out why the file changed; if the new file is the right one, delete its `
            + `entry from ${LOCK_FILE_NAME} and synthesize again.`);
        // A changed cached copy is refused the same way.
        const cached = path.join(p.cacheDir, 'releases', recorded, 'manifests.yaml');
        fs.writeFileSync(cached, changed);
        expect(() => synthKueue({ ...p, releasesUrl: `${own.url}/kueue` }))
          .toThrow(`the cached ${cached} has sha256 ${sha256(changed)}, but the lock file ${p.lockFile} records ${recorded}; refusing it.`);
        expect(fs.readFileSync(p.lockFile, 'utf8')).toBe(lockText);
      } finally {
        await own.stop();
      }
    });
  });

  test('a second synth works offline from the cache (server stopped), and only from the cache', async () => {
    const own = await server();
    const p = place();
    const online = synthKueue({ ...p, releasesUrl: `${own.url}/kueue` });
    await own.stop();
    const offline = synthKueue({ ...p, locked: true, releasesUrl: `${own.url}/kueue` });
    expect(offline.objects).toEqual(online.objects);
    expect(offline.stderr).toBe('');
    expect(() => synthKueue({ ...p, cacheDir: tmpdir(), releasesUrl: `${own.url}/kueue` }))
      .toThrow(new RegExp(`cannot download ${own.url}/kueue/v0.19.2/manifests.yaml \\(.*ECONNREFUSED.*\\) and there is no cached copy`));
  });

  test('a second app (its own empty lock file, the same cache) finds the cached release by its sha256 offline, and records it', async () => {
    const own = await server();
    const cacheDir = tmpdir();
    const appA = place();
    const online = synthKueue({ ...appA, cacheDir, releasesUrl: `${own.url}/kueue` });
    await own.stop();
    const sha = sha256(vendored('v0.19.2'));
    const cached = path.join(cacheDir, 'releases', sha, 'manifests.yaml');
    // Locked mode still refuses what the app's own lock file lacks, and says the cache can fill it without network.
    const appB = place();
    process.env.CDK8S_KUEUE_RAY_LOCKED = '1';
    expect(() => synthKueue({ ...appB, cacheDir, releasesUrl: `${own.url}/kueue` }))
      .toThrow(`(the cache holds a copy with sha256 ${sha}, recorded by another app: that synth needs no network)`);
    expect(fs.existsSync(appB.lockFile)).toBe(false);
    // Unlocked, offline: the cached copy is used and recorded in app B's lock file.
    delete process.env.CDK8S_KUEUE_RAY_LOCKED;
    const second = synthKueue({ ...appB, cacheDir, releasesUrl: `${own.url}/kueue` });
    expect(second.objects).toEqual(online.objects);
    expect(lockOf(appB.lockFile)).toEqual({ [official('v0.19.2')]: { sha256: sha } });
    expect(second.stderr).toBe(`cdk8s-kueue-ray: recorded sha256 ${sha} of ${official('v0.19.2')} (from the cache ${cached}, where another app `
      + `recorded it) in ${appB.lockFile}. Commit this file: later synths refuse a download that differs, and CDK8S_KUEUE_RAY_LOCKED=1 (for CI) `
      + 'refuses any file not in it.\n');
    // From now on app B is locked and offline like app A.
    process.env.CDK8S_KUEUE_RAY_LOCKED = '1';
    expect(synthKueue({ ...appB, cacheDir, releasesUrl: `${own.url}/kueue` }).stderr).toBe('');
    // A cached copy that no longer matches its sha256 is refused, not recorded.
    const appC = place();
    delete process.env.CDK8S_KUEUE_RAY_LOCKED;
    fs.writeFileSync(cached, vendored('v0.19.2').toString('utf8').replace('--zap-log-level=2', '--zap-log-level=9'));
    expect(() => synthKueue({ ...appC, cacheDir, releasesUrl: `${own.url}/kueue` })).toThrow(`the cached ${cached} has sha256 `);
    expect(fs.existsSync(appC.lockFile)).toBe(false);
  });

  test('offline without a cached copy: the error names the mirror options and the file\'s place under the mirror', async () => {
    const own = await server();
    await own.stop();
    expect(() => synthKueue({ ...place(), releasesUrl: `${own.url}/kueue` })).toThrow(
      new RegExp('neither the lock file nor the cache holds it, so no cached copy can be used. Fix: point releasesUrl \\(or '
        + '\\$CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL\\) at a mirror serving v0.19.2/manifests.yaml .* pass it with manifestFile'));
  });

  test('locked mode (option or CDK8S_KUEUE_RAY_LOCKED=1) refuses a URL that is not in the lock, and downloads one that is', () => {
    const p = place();
    synthKueue({ ...p, releasesUrl: `${srv.url}/kueue` });
    const lockText = fs.readFileSync(p.lockFile, 'utf8');
    const before = srv.requests().length;
    const refusal = `KueueInstall 'kueue' (Kueue v0.14.8 manifests.yaml): ${official('v0.14.8')} is not in the lock `
      + `file ${p.lockFile}, and locked mode`;
    expect(() => synthKueue({ ...p, locked: true, releasesUrl: `${srv.url}/kueue` }, 'v0.14.8')).toThrow(refusal);
    process.env.CDK8S_KUEUE_RAY_LOCKED = '1';
    expect(() => synthKueue({ ...p, releasesUrl: `${srv.url}/kueue` }, 'v0.14.8')).toThrow(refusal);
    // A missing lock file is an empty one.
    expect(() => synthKueue({ ...place(), releasesUrl: `${srv.url}/kueue` })).toThrow(/v0.19.2\/manifests.yaml is not in the lock file .*, and locked mode/);
    expect(srv.requests()).toHaveLength(before);
    expect(fs.readFileSync(p.lockFile, 'utf8')).toBe(lockText);
    // The locked URL is still downloaded (fresh cache) and verified.
    const locked = synthKueue({ ...p, cacheDir: tmpdir(), releasesUrl: `${srv.url}/kueue` });
    expect(locked.stderr).toBe('');
    expect(srv.requests()).toHaveLength(before + 1);
    // The option wins over the environment.
    synthKueue({ ...p, locked: false, releasesUrl: `${srv.url}/kueue` }, 'v0.14.8');
    expect(Object.keys(lockOf(p.lockFile))).toEqual([official('v0.14.8'), official('v0.19.2')]);
  });

  test('the environment sets the lock file and the releases URL', () => {
    const p = place();
    process.env.CDK8S_KUEUE_RAY_LOCK_FILE = p.lockFile;
    process.env.CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL = `${srv.url}/kueue/`;
    synthKueue({ cacheDir: p.cacheDir });
    expect(lockOf(p.lockFile)).toEqual({ [official('v0.19.2')]: { sha256: sha256(vendored('v0.19.2')) } });
  });

  test('manifestSha256 is verified instead of the lock file, which stays untouched; also on a manifestFile', () => {
    const p = place();
    const good = sha256(vendored('v0.19.2'));
    const bad = 'f'.repeat(64);
    synthKueue({ ...p, manifestSha256: good, releasesUrl: `${srv.url}/kueue` });
    expect(fs.existsSync(p.lockFile)).toBe(false);
    expect(() => synthKueue({ ...p, cacheDir: tmpdir(), manifestSha256: bad, releasesUrl: `${srv.url}/kueue` }))
      .toThrow(`has sha256 ${good}, but the manifestSha256 records ${bad}; refusing it.`);
    const file = path.join(VENDOR, 'kueue', 'v0.19.2', 'manifests.yaml');
    expect(synthKueue({ manifestFile: file, manifestSha256: good }).objects.length).toBeGreaterThan(0);
    expect(() => synthKueue({ manifestFile: file, manifestSha256: bad }))
      .toThrow(`manifestFile '${file}' has sha256 ${good}, not the manifestSha256 ${bad}; refusing it.`);
    expect(() => synthKueue({ ...p, manifestSha256: 'abc' })).toThrow("manifestSha256 'abc' is not a sha256");
  });
});

test('a first download over plain HTTP from another machine is refused before any request', () => {
  expect(() => synthKueue({ ...place(), releasesUrl: 'http://mirror.invalid/kueue' }))
    .toThrow('http://mirror.invalid/kueue/v0.19.2/manifests.yaml is neither https nor on this machine, and a first download is recorded as trusted.');
});

test('a broken lock file is refused with the file named', () => {
  const p = place();
  fs.writeFileSync(p.lockFile, '{"releases": {"x": {"sha256": "nope"}}}');
  expect(() => synthKueue(p)).toThrow(`lock file ${p.lockFile}: releases["x"].sha256 is not a sha256`);
  fs.writeFileSync(p.lockFile, '{');
  expect(() => synthKueue(p)).toThrow(new RegExp(`lock file ${p.lockFile} is not valid JSON`));
});

test('the default lock file sits beside the nearest cdk8s.yaml at or above the working directory', () => {
  const app = tmpdir();
  fs.writeFileSync(path.join(app, 'cdk8s.yaml'), 'language: typescript\n');
  fs.mkdirSync(path.join(app, 'sub'));
  const cwd = process.cwd();
  try {
    process.chdir(path.join(app, 'sub'));
    expect(defaultLockFile()).toBe(path.join(fs.realpathSync(app), LOCK_FILE_NAME));
    process.env.CDK8S_KUEUE_RAY_LOCK_FILE = 'elsewhere.json';
    expect(defaultLockFile()).toBe(path.join(fs.realpathSync(app), 'sub', 'elsewhere.json'));
  } finally {
    process.chdir(cwd);
  }
});

test('KubeRayInstall downloads are verified against the library pins, in locked mode too, without a lock file', async () => {
  const root = serverRoot();
  const own = await server(root);
  try {
    const p = place();
    const pins = KUBERAY_CRDS[KUBERAY];
    const install = new KubeRayInstall(Testing.app(), 'kuberay', { cacheDir: p.cacheDir, sourcesUrl: `${own.url}/kuberay` });
    expect(install.crds.length).toBe(Object.keys(pins).length);
    for (const [file, sha] of Object.entries(pins)) expect(sha256(fs.readFileSync(path.join(p.cacheDir, 'releases', sha, file)))).toBe(sha);
    expect(fs.existsSync(p.lockFile)).toBe(false);
    const crd = path.join(root, 'kuberay', KUBERAY, CRD_PATH, 'ray.io_rayjobs.yaml');
    fs.appendFileSync(crd, '# changed\n');
    process.env.CDK8S_KUEUE_RAY_LOCKED = '1';
    expect(() => new KubeRayInstall(Testing.app(), 'kuberay', { cacheDir: tmpdir(), sourcesUrl: `${own.url}/kuberay` }))
      .toThrow(`has sha256 ${sha256(fs.readFileSync(crd))}, but the library pin (KubeRay CRD sha256) `
        + `records ${pins['ray.io_rayjobs.yaml']}; refusing it.`);
  } finally {
    await own.stop();
  }
});
