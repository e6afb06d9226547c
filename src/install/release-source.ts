/**
 * Internal: where an install reads upstream YAML from. A local file, or a download verified against a
 * pinned sha256 and cached on disk. Synth is synchronous, so the download runs in a child process with
 * a timeout (as cdk8s Include does, plus the checksum and the cache).
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export interface ReleaseSource {
  /** A local copy; used as is (no checksum: it is the user's file). */
  readonly localFile?: string;
  readonly url: string;
  /** Pinned sha256 of the download. */
  readonly sha256?: string;
  readonly cacheDir?: string;
  /** e.g. "Kueue v0.19.2 manifests.yaml", for messages. */
  readonly what: string;
  /** The prop that takes a local file, for messages. */
  readonly localProp: string;
  /** The prop that takes a sha256, for messages. */
  readonly shaProp: string;
}

export function defaultCacheDir(): string {
  return process.env.CDK8S_KUEUE_RAY_CACHE ?? path.join(os.homedir(), '.cache', 'cdk8s-kueue-ray');
}

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

const DOWNLOAD = `
const url = process.argv[1];
fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(60000) })
  .then(async (r) => { if (!r.ok) throw new Error('HTTP ' + r.status); process.stdout.write(Buffer.from(await r.arrayBuffer())); })
  .catch((e) => { process.stderr.write(String(e && e.cause ? e.cause.message || e.cause : e.message)); process.exit(2); });
`;

/** Returns the file's text: local file, else verified cache, else verified download (then cached). */
export function readRelease(src: ReleaseSource): string {
  if (src.localFile) {
    if (!fs.existsSync(src.localFile)) throw new Error(`${src.what}: ${src.localProp} '${src.localFile}' does not exist. Fix: point it at a local copy of ${src.url}.`);
    return fs.readFileSync(src.localFile, 'utf8');
  }
  if (!src.sha256) {
    throw new Error(`${src.what}: no sha256 is pinned for ${src.url}, so it will not be downloaded unverified. Fix: pass ${src.shaProp} (from the release page), or a local copy with ${src.localProp}.`);
  }
  const cacheFile = path.join(src.cacheDir ?? defaultCacheDir(), 'releases', src.sha256, path.basename(new URL(src.url).pathname));
  if (fs.existsSync(cacheFile)) {
    const buf = fs.readFileSync(cacheFile);
    const got = sha256(buf);
    if (got !== src.sha256) {
      throw new Error(`${src.what}: the cached ${cacheFile} has sha256 ${got}, not the pinned ${src.sha256}. Fix: delete it to download again, or check ${src.shaProp}.`);
    }
    return buf.toString('utf8');
  }
  let buf: Buffer;
  try {
    buf = execFileSync(process.execPath, ['-e', DOWNLOAD, src.url], { maxBuffer: 64 * 1024 * 1024, timeout: 90000, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e: any) {
    const why = e?.stderr?.toString().trim() || e?.message;
    throw new Error(`${src.what}: cannot download ${src.url} (${why}) and there is no cached copy at ${cacheFile}. Fix: download it where the network allows and pass it with ${src.localProp}, or place it at that cache path.`);
  }
  const got = sha256(buf);
  if (got !== src.sha256) {
    throw new Error(`${src.what}: ${src.url} has sha256 ${got}, not the pinned ${src.sha256}; refusing it. Fix: check ${src.shaProp} against the release page.`);
  }
  fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
  fs.writeFileSync(cacheFile, buf);
  return buf.toString('utf8');
}
