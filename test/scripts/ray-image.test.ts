// The Ray image's pins (scripts/ray-image, written by lock.sh): every Debian package and every wheel is
// pinned by version and sha256, the wheels are ray[default,serve] for the image's CPython 3.11 on
// manylinux x86_64, and no tracked file there names a package registry or a path of this machine.
// Fast: reads the files, builds nothing (scripts/ray-image/build.sh does, with its own smoke check).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_RAY_IMAGE_VERSIONS } from '../../scripts/cluster/images';

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

test('no tracked file under scripts/ray-image names a package registry host or a path of this machine', () => {
  // The registries as apt and pip are set up here, and the usual public ones.
  const hosts = new Set(['pypi.org', 'pythonhosted.org', 'debian.org', 'deb.debian.org', 'security.debian.org', 'snapshot.debian.org',
    'pypi.python.org']);
  const aptDir = '/etc/apt/sources.list.d';
  const aptFiles = ['/etc/apt/sources.list', ...(fs.existsSync(aptDir) ? fs.readdirSync(aptDir).map((f) => path.join(aptDir, f)) : [])];
  for (const f of aptFiles.filter((x) => fs.existsSync(x))) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/[a-z+]+:\/\/([^/\s]+)/g)) hosts.add(m[1]);
  }
  for (const v of [process.env.PIP_INDEX_URL, process.env.PIP_EXTRA_INDEX_URL]) {
    const m = v && /:\/\/([^/\s]+)/.exec(v);
    if (m) hosts.add(m[1]);
  }
  const paths = ['/work/', '/opt/wheels', '/root/', os.homedir() + '/', process.env.PIP_FIND_LINKS].filter((p): p is string => !!p && p !== '/');
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
