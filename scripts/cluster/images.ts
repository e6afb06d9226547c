/**
 * The images the node serves from its registries, under the exact references `dist/` writes: pause,
 * CoreDNS, Kueue and the KubeRay operator (scripts/cluster/images.sh, from the source-built binaries of
 * the pinned tags) and the controller (npm run image).
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

/** Builds (or reuses) the node images for the given versions and returns them with the controller's. */
export function nodeImages(kueueVersions: string[], kubeRayVersions: string[]): NodeImage[] {
  execFileSync(path.join(REPO, 'scripts', 'cluster', 'images.sh'), [], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, KUEUE_VERSIONS: kueueVersions.join(' '), KUBERAY_VERSIONS: kubeRayVersions.join(' ') },
  });
  const tsv = fs.readFileSync(path.join(process.env.NODE_IMAGES_DIR ?? path.join(cacheDir(), 'node-images'), 'images.tsv'), 'utf8');
  const images = tsv.split('\n').filter(Boolean).map((l) => {
    const [reference, archive] = l.split('\t');
    return { reference, archive };
  });
  return [...images, controllerImage()];
}

/** The pair `npx cdk8s synth` uses: KUEUE_VERSION / KUBERAY_VERSION, else the default pair. */
export function defaultImages(): NodeImage[] {
  return nodeImages([process.env.KUEUE_VERSION ?? DEFAULT_KUEUE_VERSION], [process.env.KUBERAY_VERSION ?? DEFAULT_KUBERAY_VERSION]);
}
