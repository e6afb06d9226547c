// The Ray image's pins (scripts/ray-image, written by lock.sh): every Debian package and every wheel is
// pinned by version and sha256, the wheels are ray[default,serve] for the image's CPython 3.11 on
// manylinux x86_64, and no tracked file there names a package registry or a path of this machine.
// Fast: reads the files, builds nothing (scripts/ray-image/build.sh does, with its own smoke check).
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_RAY_IMAGE_VERSIONS } from '../../scripts/cluster/images';
import { cacheDir } from '../support/upstream';

const DIR = path.resolve(__dirname, '..', '..', 'scripts', 'ray-image');
const lines = (f: string) => fs.readFileSync(path.join(DIR, f), 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));

test('debs.lock pins each package of the closure once, by version and sha256, with what KubeRay runs among them', () => {
  const debs = lines('debs.lock');
  for (const l of debs) expect(l).toMatch(/^[a-z0-9][a-z0-9+.-]+ [0-9A-Za-z.+~:-]+ [0-9a-f]{64}$/);
  const names = debs.map((l) => l.split(' ')[0]);
  expect(new Set(names).size).toBe(names.length);
  for (const p of ['python3', 'python3.11', 'python-is-python3', 'bash', 'dash', 'coreutils', 'grep', 'wget', 'libstdc++6', 'libgcc-s1', 'libc6',
    'ca-certificates', 'openssl']) {
    expect(names).toContain(p);
  }
  expect(debs.find((l) => l.startsWith('python3.11 '))).toMatch(/^python3\.11 3\.11\./);
});

test.each(DEFAULT_RAY_IMAGE_VERSIONS)('requirements-%s.txt pins ray[default,serve] and pip, each an index wheel for cp311 '
  + 'manylinux x86_64 by sha256', (v) => {
  const reqs = lines(`requirements-${v}.txt`);
  const pins = new Map<string, string>();
  for (const l of reqs) {
    const m = /^([a-z0-9][a-z0-9.-]*)==(\S+) --hash=sha256:[0-9a-f]{64}  # (\S+\.whl)$/.exec(l);
    expect(m).not.toBeNull();
    const [, name, version, wheel] = m!;
    expect(pins.has(name)).toBe(false);
    pins.set(name, version);
    // <dist>-<version>-<python>-<abi>-<platform>.whl: CPython 3.11 (or abi3 / pure), manylinux x86_64 or any.
    const [, , python, abi, platform] = wheel.replace(/\.whl$/, '').split('-');
    expect(`${python}-${abi}`).toMatch(/^(cp311-cp311|cp3\d+-abi3|(py3|py2\.py3)-none)$/);
    expect(platform).toMatch(/^(any|(manylinux[0-9_]*_x86_64\.?)+)$/);
  }
  expect(pins.get('ray')).toBe(v);
  expect(pins.has('pip')).toBe(true);
  // ray[default]: the dashboard, its agent and the autoscaler; ray[serve]: the HTTP proxy.
  for (const d of ['aiohttp', 'aiohttp-cors', 'colorful', 'grpcio', 'opencensus', 'prometheus-client', 'py-spy', 'pydantic', 'requests', 'smart-open',
    'virtualenv',
    'fastapi', 'starlette', 'uvicorn', 'watchfiles']) {
    expect([d, pins.has(d)]).toEqual([d, true]);
  }
});

test('build.sh refuses a Ray version without a lock, naming lock.sh', () => {
  const build = fs.readFileSync(path.join(DIR, 'build.sh'), 'utf8');
  expect(build).toMatch(/requirements-\$v\.txt is missing: run RAY_VERSIONS=\$v scripts\/ray-image\/lock\.sh/);
});

/** A command's stdout, or '' when it is not there (the hosts it names are then not checked for). */
function stdout(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

test('no tracked file under scripts/ray-image names a package registry host or a path of this machine', () => {
  // The registries as apt and pip are set up here, read from the tools themselves: apt's index sites,
  // pip's configured indexes and its default index with the host its files come from.
  const hosts = new Set<string>();
  const addHosts = (text: string | undefined) => {
    for (const m of (text ?? '').matchAll(/[a-z+]+:\/\/([^/\s'"]+)/g)) hosts.add(m[1]);
  };
  addHosts(stdout('apt-get', ['indextargets', '--format', '$(SITE)']));
  addHosts(stdout('pip3', ['config', 'list']));
  addHosts(stdout('python3', ['-c', 'from pip._internal.models.index import PyPI; print(PyPI.url); print("https://" + PyPI.file_storage_domain)']));
  addHosts(process.env.PIP_INDEX_URL);
  addHosts(process.env.PIP_EXTRA_INDEX_URL);
  if (process.env.CI) expect(hosts.size).toBeGreaterThanOrEqual(2); // apt's and pip's at least: the check is not empty
  // This machine's paths: the checkout's parent, the home dir, the project cache, pip's find-links. Not the
  // temp dir, which a clone may sit in: the build's chroot has a /tmp of its own (/tmp/wheels).
  const temp = [os.tmpdir() + path.sep, `${path.sep}tmp${path.sep}`];
  const paths = [path.resolve(__dirname, '..', '..', '..') + path.sep, os.homedir() + path.sep, cacheDir(),
    ...(process.env.PIP_FIND_LINKS ?? '').split(/\s+/)].filter((p) => !!p && p !== path.sep && !temp.includes(p));
  const files = fs.readdirSync(DIR);
  expect(files).toEqual(expect.arrayContaining(['build.sh', 'lock.sh', 'lib.sh', 'smoke.sh', 'debs.lock']));
  for (const f of files) {
    const text = fs.readFileSync(path.join(DIR, f), 'utf8');
    for (const h of hosts) expect([f, text.includes(h)]).toEqual([f, false]);
    for (const p of paths) expect([f, p, text.includes(p)]).toEqual([f, p, false]);
    // The only URLs: the image's org.opencontainers.image.source label and the smoke check's loopback ones.
    for (const m of text.matchAll(/[a-z+]+:\/\/[^\s"']+/g)) {
      expect([f, m[0]]).toEqual([f, expect.stringMatching(/^(https:\/\/github\.com\/ray-project\/ray|http:\/\/(localhost|127\.0\.0\.1):\d+(\/\S*)?)$/)]);
    }
  }
});
