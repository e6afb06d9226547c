/**
 * The images the node serves from its registries, under the exact references `dist/` writes: pause,
 * CoreDNS, Kueue and the KubeRay operator (scripts/cluster/images.sh, from the source-built binaries of
 * the pinned tags), the controller (npm run image) and, when asked for, Ray (scripts/ray-image/build.sh:
 * Debian's python3 and the pinned PyPI wheels, under docker.io/rayproject/ray:<v>, what the pods'
 * rayproject/ray:<v> normalises to).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../../src/policy/versions';
import { cacheDir, NodeImage } from './node-cluster';

const REPO = path.resolve(__dirname, '..', '..');

export function controllerImage(): NodeImage {
  const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
  const archive = path.join(REPO, 'dist', 'image', `controller-${version}.oci.tar`);
  if (!fs.existsSync(archive)) throw new Error(`the controller image ${archive} is missing: run npm run image`);
  return { reference: `ghcr.io/cdk8s-kueue-ray/controller:${version}`, archive };
}

/** The Ray versions the node images include by default when asked for Ray (each has a pinned lock in scripts/ray-image). */
export const DEFAULT_RAY_IMAGE_VERSIONS: readonly string[] = ['2.46.0'];

/** Builds (or reuses) the Ray images for the given versions: docker.io/rayproject/ray:<v> each. */
export function rayImages(versions: readonly string[] = DEFAULT_RAY_IMAGE_VERSIONS): NodeImage[] {
  if (versions.length === 0) return [];
  execFileSync(path.join(REPO, 'scripts', 'ray-image', 'build.sh'), [], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, RAY_VERSIONS: versions.join(' ') },
  });
  return readTsv('ray-images.tsv');
}

/** A version scripts/testcluster/build.sh pins as `NAME="${NAME:-vX.Y.Z}"` (stated there once). */
function buildPin(name: string): string {
  const script = fs.readFileSync(path.join(REPO, 'scripts', 'testcluster', 'build.sh'), 'utf8');
  return script.match(new RegExp(`${name}:-(v[\\d.]+)`))![1];
}

/** The Prometheus module version scripts/testcluster/build.sh builds. */
export const prometheusModuleVersion = () => buildPin('PROMETHEUS_MODULE_VERSION');

/** The prometheus-operator version scripts/testcluster/build.sh builds. */
export const prometheusOperatorVersion = () => buildPin('PROMETHEUS_OPERATOR_VERSION');

/** The reference scripts/cluster/images.sh gives Prometheus' image: the module's v0.3xx.y is Prometheus v3.xx.y. */
export function prometheusImage(moduleVersion = prometheusModuleVersion()): string {
  const m = /^v0\.(\d)(\d+)\.(\d+)$/.exec(moduleVersion);
  if (!m) throw new Error(`Prometheus module version ${moduleVersion} is not v0.3xx.y; update prometheusImage for its tag scheme`);
  return `quay.io/prometheus/prometheus:v${m[1]}.${Number(m[2])}.${m[3]}`;
}

function readTsv(name: string): NodeImage[] {
  const tsv = fs.readFileSync(path.join(process.env.NODE_IMAGES_DIR ?? path.join(cacheDir(), 'node-images'), name), 'utf8');
  return tsv.split('\n').filter(Boolean).map((l) => {
    const [reference, archive] = l.split('\t');
    return { reference, archive };
  });
}

/**
 * Builds (or reuses) the node images for the given versions and returns them with the controller's;
 * `{ ray: ['2.46.0'] }` adds the Ray images (rayImages), for tests whose pods run Ray; `{ prometheus: true }`
 * Prometheus' (prometheusImage) and prometheus-operator's with its config-reloader.
 */
export function nodeImages(kueueVersions: string[], kubeRayVersions: string[],
  opts: { readonly ray?: readonly string[]; readonly prometheus?: boolean } = {}): NodeImage[] {
  execFileSync(path.join(REPO, 'scripts', 'cluster', 'images.sh'), [], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, KUEUE_VERSIONS: kueueVersions.join(' '), KUBERAY_VERSIONS: kubeRayVersions.join(' '),
      PROMETHEUS_MODULE_VERSION: opts.prometheus ? prometheusModuleVersion() : '',
      PROMETHEUS_OPERATOR_VERSION: opts.prometheus ? prometheusOperatorVersion() : '' },
  });
  return [...readTsv('images.tsv'), ...rayImages(opts.ray ?? []), controllerImage()];
}

/**
 * The pair `npx cdk8s synth` uses: KUEUE_VERSION / KUBERAY_VERSION, else the default pair; with
 * RAY_VERSIONS (e.g. "2.46.0") the Ray images too.
 */
export function defaultImages(): NodeImage[] {
  return nodeImages([process.env.KUEUE_VERSION ?? DEFAULT_KUEUE_VERSION], [process.env.KUBERAY_VERSION ?? DEFAULT_KUBERAY_VERSION],
    { ray: (process.env.RAY_VERSIONS ?? '').split(/\s+/).filter(Boolean) });
}
