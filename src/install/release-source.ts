/**
 * Internal: where an install reads upstream YAML from. A local file, or a download verified against a
 * sha256 and cached on disk. The sha256 is a pin (an option, or one recorded in the library), else the
 * one in the app's lock file, which the first download records (as Terraform's .terraform.lock.hcl
 * does). Synth is synchronous, so the download runs in a child process with a timeout (as cdk8s
 * Include does, plus the checksum and the cache).
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { isRecord } from '../policy/json';
import { readBundledRelease } from './bundled-releases';
import { synthError } from './synth-error';

/** The lock file's name; it sits beside cdk8s.yaml and is committed with the app. */
export const LOCK_FILE_NAME = 'cdk8s-kueue-ray.lock.json';
/** "1" or "true": refuse any download whose sha256 is neither pinned nor in the lock file (CI). */
export const LOCKED_ENV = 'CDK8S_KUEUE_RAY_LOCKED';
export const LOCK_FILE_ENV = 'CDK8S_KUEUE_RAY_LOCK_FILE';

export interface ReleaseLock {
  /** The lock file. */
  readonly file: string;
  /** Refuse a download that is not in the lock file yet, instead of recording it. */
  readonly locked: boolean;
}

export interface ReleaseSource {
  /** A local copy; used as is unless `localSha256` is given. */
  readonly localFile?: string;
  /** sha256 the local copy must have (the user's explicit pin). */
  readonly localSha256?: string;
  /** The file's official URL: its name in the lock file and in messages. */
  readonly url: string;
  /** Where to fetch it from (a mirror, a test server). @default url */
  readonly downloadUrl?: string;
  /** Pinned sha256 of the download. When set, the lock file is neither read nor written. */
  readonly sha256?: string;
  /** Without a pin: the lock file that verifies, or records, the download. */
  readonly lock?: ReleaseLock;
  readonly cacheDir?: string;
  /** e.g. "Kueue v0.19.2 manifests.yaml", for messages. */
  readonly what: string;
  /** The prop that takes a local file, for messages. */
  readonly localProp: string;
  /** The prop (or library data) that holds the pin, for messages. */
  readonly shaProp: string;
  /** How to point the download at a mirror, for messages. */
  readonly mirror?: MirrorHint;
  /**
   * The key of the copy the package carries (bundled-releases.ts), when the caller was given no local
   * file, pin or mirror. It is used unless the app's lock file records the file (then the recorded bytes win).
   */
  readonly bundled?: string;
}

/** The options that point an install's downloads at a mirror (no code change needed). */
export interface MirrorHint {
  /** The prop, e.g. "releasesUrl". */
  readonly prop: string;
  /** Its environment variable. */
  readonly env: string;
  /** The file's path under the mirror's base URL, e.g. "v0.19.2/manifests.yaml". */
  readonly layout: string;
}

export function defaultCacheDir(): string {
  return process.env.CDK8S_KUEUE_RAY_CACHE ?? path.join(os.homedir(), '.cache', 'cdk8s-kueue-ray');
}

/**
 * $CDK8S_KUEUE_RAY_LOCK_FILE, else cdk8s-kueue-ray.lock.json beside the nearest cdk8s.yaml at or above
 * the working directory (`cdk8s synth` runs the app there), else in the working directory.
 */
export function defaultLockFile(): string {
  if (process.env[LOCK_FILE_ENV]) return path.resolve(process.env[LOCK_FILE_ENV]);
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'cdk8s.yaml'))) return path.join(dir, LOCK_FILE_NAME);
    if (path.dirname(dir) === dir) return path.join(process.cwd(), LOCK_FILE_NAME);
  }
}

export function lockedByEnv(): boolean {
  return ['1', 'true'].includes((process.env[LOCKED_ENV] ?? '').toLowerCase());
}

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

const SHA256 = /^[0-9a-f]{64}$/;

interface LockData {
  releases: Record<string, { sha256: string }>;
}

function readLock(file: string): LockData {
  if (!fs.existsSync(file)) return { releases: {} };
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw synthError(`lock file ${file} is not valid JSON (${(e as Error).message}). Fix: restore it from version control, or delete it to record `
      + 'every download again.');
  }
  const releases = isRecord(data) ? data.releases : undefined;
  if (!isRecord(releases)) {
    throw synthError(`lock file ${file} has no "releases" object. Fix: restore it from version control, or delete it to record every `
      + 'download again.');
  }
  checkLockEntries(releases, file);
  return { releases };
}

/** Refuses a lock file entry without a sha256 (64 lowercase hex digits). */
function checkLockEntries(releases: Record<string, unknown>, file: string): asserts releases is LockData['releases'] {
  for (const [url, entry] of Object.entries(releases)) {
    const sha = isRecord(entry) ? entry.sha256 : undefined;
    if (typeof sha !== 'string' || !SHA256.test(sha)) {
      throw synthError(`lock file ${file}: releases["${url}"].sha256 is not a sha256 (64 lowercase hex digits). Fix: restore it from `
        + 'version control, or delete the entry to record it again.');
    }
  }
}

function writeLock(file: string, lock: LockData): void {
  const releases: Record<string, { sha256: string }> = {};
  for (const url of Object.keys(lock.releases).sort()) releases[url] = { sha256: lock.releases[url].sha256 };
  const text = JSON.stringify({
    '//': 'Written by cdk8s-kueue-ray at the first download of each release file. Commit it: later synths refuse a download whose sha256 differs.',
    releases,
  }, null, 2) + '\n';
  writeAtomic(file, text);
}

/** Via a temporary file, so an interrupted synth never leaves half a lock file or cached file. */
function writeAtomic(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/**
 * The cache's index from a file's official URL to the sha256 it was recorded or verified with, so that
 * another app on the machine (with its own lock file) finds a cached copy offline. The copy itself is
 * stored under its sha256, which it is checked against at every read.
 */
function indexFile(cacheRoot: string, url: string): string {
  return path.join(cacheRoot, 'by-url', `${sha256(Buffer.from(url))}.json`);
}

/** The sha256 the cache's index holds for `url`; a missing or damaged entry is a cache miss. */
function readIndex(cacheRoot: string, url: string): string | undefined {
  try {
    const entry = JSON.parse(fs.readFileSync(indexFile(cacheRoot, url), 'utf8')) as unknown;
    return isRecord(entry) && entry.url === url && typeof entry.sha256 === 'string' && SHA256.test(entry.sha256) ? entry.sha256 : undefined;
  } catch {
    return undefined;
  }
}

/** The sha256 another app recorded for `url` in the cache, when its copy is there. */
function cachedSha(cacheRoot: string, url: string, name: string): string | undefined {
  const sha = readIndex(cacheRoot, url);
  return sha && fs.existsSync(path.join(cacheRoot, sha, name)) ? sha : undefined;
}

function writeIndex(cacheRoot: string, url: string, sha: string): void {
  if (readIndex(cacheRoot, url) !== sha) writeAtomic(indexFile(cacheRoot, url), `${JSON.stringify({ url, sha256: sha })}\n`);
}

/** A first download is trusted as is, so it must not come over plain HTTP from another machine. */
function isTrustedTransport(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'https:' || (u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname));
}

const DOWNLOAD = `
const url = process.argv[1];
fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(60000) })
  .then(async (r) => { if (!r.ok) throw new Error('HTTP ' + r.status); process.stdout.write(Buffer.from(await r.arrayBuffer())); })
  .catch((e) => { process.stderr.write(String(e && e.cause ? e.cause.message || e.cause : e.message)); process.exit(2); });
`;

/** The local copy, verified when a sha256 is given for it. */
function readLocal(src: ReleaseSource, localFile: string): string {
  if (!fs.existsSync(localFile)) throw synthError(`${src.what}: ${src.localProp} '${localFile}' does not exist. Fix: point it at a local `
    + `copy of ${src.url}.`);
  const buf = fs.readFileSync(localFile);
  if (src.localSha256 !== undefined && sha256(buf) !== src.localSha256) {
    throw synthError(`${src.what}: ${src.localProp} '${localFile}' has sha256 ${sha256(buf)}, not the ${src.shaProp} ${src.localSha256}; `
      + `refusing it. Fix: check the file, or ${src.shaProp}.`);
  }
  return buf.toString('utf8');
}

/** The sha256 the file must have, and who says so: the pin, the app's lock file, or the machine's cache (recorded by another app). */
interface Expected {
  readonly sha256?: string;
  readonly by: string;
  /** Found through the cache's index only: the app's lock file records it on use. */
  readonly fromCache?: boolean;
}

function expectedSha(src: ReleaseSource, cacheRoot: string, name: string): Expected {
  if (src.sha256 !== undefined) {
    if (!SHA256.test(src.sha256)) throw synthError(`${src.what}: ${src.shaProp} '${src.sha256}' is not a sha256 (64 lowercase hex digits). `
      + 'Fix: copy it from the release\'s checksums.');
    return { sha256: src.sha256, by: src.shaProp };
  }
  if (!src.lock) throw synthError(`${src.what}: no sha256 is pinned for ${src.url}, so it will not be downloaded unverified. Fix: pass `
    + `${src.shaProp}, or a local copy with ${src.localProp}.`);
  const locked = readLock(src.lock.file).releases[src.url]?.sha256;
  if (locked !== undefined) return { sha256: locked, by: `lock file ${src.lock.file}` };
  const cached = cachedSha(cacheRoot, src.url, name);
  if (src.lock.locked) {
    throw synthError(`${src.what}: ${src.url} is not in the lock file ${src.lock.file}, and locked mode (${LOCKED_ENV}=1 or the \`locked\` option) `
      + 'refuses to download and record it. '
      + `Fix: synthesize once without locked mode and commit ${path.basename(src.lock.file)}`
      + `${cached ? ` (the cache holds a copy with sha256 ${cached}, recorded by another app: that synth needs no network)` : ''}, `
      + `or pass ${src.shaProp}, or a local copy with ${src.localProp}.`);
  }
  if (cached) return { sha256: cached, by: `cache index ${indexFile(cacheRoot, src.url)}`, fromCache: true };
  return { by: `lock file ${src.lock.file}` };
}

/** The cached copy, verified; undefined when there is none. */
function readCached(src: ReleaseSource, cacheFile: string, expected: Expected): Buffer | undefined {
  if (!fs.existsSync(cacheFile)) return undefined;
  const buf = fs.readFileSync(cacheFile);
  const got = sha256(buf);
  if (got !== expected.sha256) {
    throw synthError(`${src.what}: the cached ${cacheFile} has sha256 ${got}, but the ${expected.by} records ${expected.sha256}; refusing it. Fix: `
      + 'delete the cached file to download it again.');
  }
  return buf;
}

/** Downloads `from` in a child process (synth is synchronous); the error names the cache and the offline fixes. */
function download(src: ReleaseSource, from: string, cacheFile: string | undefined): Buffer {
  try {
    return execFileSync(process.execPath, ['-e', DOWNLOAD, from], { maxBuffer: 64 * 1024 * 1024, timeout: 90000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as (Error & { stderr?: Buffer }) | undefined; // execFileSync's error: the child's stderr, or why it did not run
    const why = err?.stderr?.toString().trim() || err?.message;
    const cached = cacheFile ? `there is no cached copy at ${cacheFile}`
      : 'neither the lock file nor the cache holds it, so no cached copy can be used';
    const mirror = src.mirror ? `point ${src.mirror.prop} (or $${src.mirror.env}) at a mirror serving ${src.mirror.layout} (docs/operations.md, `
      + '"Air-gapped clusters"), or ' : '';
    throw synthError(`${src.what}: cannot download ${from} (${why}) and ${cached}. Fix: ${mirror}download it where the network allows and pass it `
      + `with ${src.localProp}, or synthesize once with network access.`);
  }
}

function record(src: ReleaseSource, lock: ReleaseLock, sha: string, how: string): void {
  // Read again: another install of the same app may have recorded a file since.
  const data = readLock(lock.file);
  data.releases[src.url] = { sha256: sha };
  writeLock(lock.file, data);
  process.stderr.write(`cdk8s-kueue-ray: recorded sha256 ${sha} of ${src.url}${how} in ${lock.file}. `
    + `Commit this file: later synths refuse a download that differs, and ${LOCKED_ENV}=1 (for CI) refuses any file not in it.\n`);
}

/** Returns the file's text: local file, else verified cache, else verified (or recorded) download, then cached. */
export function readRelease(src: ReleaseSource): string {
  if (src.localFile) return readLocal(src, src.localFile);
  if (src.bundled) {
    // A file the app's lock file records keeps its recorded bytes (from the cache, or downloaded again).
    const recorded = src.sha256 === undefined && src.lock ? readLock(src.lock.file).releases[src.url] : undefined;
    const text = recorded ? undefined : readBundledRelease(src.bundled, src.what, src.sha256);
    if (text !== undefined) return text;
  }
  const from = src.downloadUrl ?? src.url;
  const cacheRoot = path.join(src.cacheDir ?? defaultCacheDir(), 'releases');
  const name = path.basename(new URL(src.url).pathname);
  const expected = expectedSha(src, cacheRoot, name);
  const cacheFile = expected.sha256 !== undefined ? path.join(cacheRoot, expected.sha256, name) : undefined;
  if (cacheFile) {
    const cached = readCached(src, cacheFile, expected);
    if (cached) {
      writeIndex(cacheRoot, src.url, expected.sha256!);
      if (expected.fromCache) record(src, src.lock!, expected.sha256!, ` (from the cache ${cacheFile}, where another app recorded it)`);
      return cached.toString('utf8');
    }
  } else if (!isTrustedTransport(from)) {
    throw synthError(`${src.what}: ${from} is neither https nor on this machine, and a first download is recorded as trusted. Fix: use an https URL, `
      + `or pass ${src.shaProp}.`);
  }
  const buf = download(src, from, cacheFile);
  const got = sha256(buf);
  if (expected.sha256 !== undefined && got !== expected.sha256) {
    throw synthError(`${src.what}: ${from} has sha256 ${got}, but the ${expected.by} records ${expected.sha256}; refusing it. `
      + 'Fix: find out why the file changed; if the new file is the right one, '
      + `${src.sha256 === undefined ? `delete its entry from ${path.basename(src.lock!.file)} and synthesize again`
        : `pass a local copy with ${src.localProp}`}.`);
  }
  writeAtomic(path.join(cacheRoot, got, name), buf);
  writeIndex(cacheRoot, src.url, got);
  if ((expected.sha256 === undefined || expected.fromCache) && src.lock) {
    record(src, src.lock, got, from !== src.url ? ` (downloaded from ${from})` : '');
  }
  return buf.toString('utf8');
}
