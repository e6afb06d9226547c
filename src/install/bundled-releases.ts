/**
 * Internal: the pinned upstream release files the npm package carries (lib/releases/, written by
 * scripts/pack-releases.js at build time), so that a first synth needs no network. Each file is
 * brotli-compressed and checked against the sha256 in the bundle's index (and the library's pin, where
 * there is one) at every read.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { brotliDecompressSync } from 'zlib';
import { synthError } from './synth-error';

/** Overrides where the bundled releases are read from (tests; a repackaged install). */
export const RELEASES_DIR_ENV = 'CDK8S_KUEUE_RAY_RELEASES_DIR';

interface BundleIndex {
  readonly files: Record<string, { readonly sha256: string; readonly bytes: number }>;
}

/** This package's root: the nearest folder at or above this file whose package.json names cdk8s-kueue-ray. */
function packageRoot(): string | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      if ((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { readonly name?: unknown }).name === 'cdk8s-kueue-ray') return dir;
    } catch {
      // no package.json here, or not ours: keep looking
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The folder the bundled releases are read from: $CDK8S_KUEUE_RAY_RELEASES_DIR, else lib/releases in the package. */
export function bundledReleasesDir(): string | undefined {
  if (process.env[RELEASES_DIR_ENV]) return path.resolve(process.env[RELEASES_DIR_ENV]);
  const root = packageRoot();
  return root ? path.join(root, 'lib', 'releases') : undefined;
}

const indexes = new Map<string, BundleIndex | undefined>();

function indexOf(dir: string): BundleIndex | undefined {
  if (!indexes.has(dir)) {
    let index: BundleIndex | undefined;
    try {
      index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as BundleIndex;
    } catch {
      index = undefined;
    }
    indexes.set(dir, index);
  }
  return indexes.get(dir);
}

/** The keys of the files the package carries under `prefix` (e.g. "kuberay/v1.6.2/"), sorted; none without the bundle. */
export function bundledReleaseKeys(prefix: string): string[] {
  const dir = bundledReleasesDir();
  const files = dir ? indexOf(dir)?.files : undefined;
  return files ? Object.keys(files).filter((k) => k.startsWith(prefix)).sort() : [];
}

/** Whether the package carries `key` (e.g. "kueue/v0.19.2/manifests.yaml", "kuberay/v1.6.2/ray.io_rayjobs.yaml"). */
export function hasBundledRelease(key: string): boolean {
  const dir = bundledReleasesDir();
  return dir !== undefined && indexOf(dir)?.files?.[key] !== undefined;
}

/**
 * The bundled file's text, or undefined when the package does not carry it. A copy whose sha256 is not
 * the index's (or `pin`, when given) is refused: a damaged install must not be applied.
 */
export function readBundledRelease(key: string, what: string, pin?: string): string | undefined {
  const dir = bundledReleasesDir();
  const entry = dir ? indexOf(dir)?.files?.[key] : undefined;
  if (!dir || !entry) return undefined;
  const file = path.join(dir, `${key}.br`);
  let buf: Buffer;
  try {
    buf = brotliDecompressSync(fs.readFileSync(file));
  } catch (e) {
    throw synthError(`${what}: the bundled copy ${file} cannot be read (${(e as Error).message}). Fix: reinstall cdk8s-kueue-ray.`);
  }
  const got = createHash('sha256').update(buf).digest('hex');
  for (const want of [entry.sha256, ...(pin ? [pin] : [])]) {
    if (got !== want) {
      throw synthError(`${what}: the bundled copy ${file} has sha256 ${got}, not ${want}; refusing it. Fix: reinstall cdk8s-kueue-ray.`);
    }
  }
  return buf.toString('utf8');
}
