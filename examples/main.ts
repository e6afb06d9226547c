// Entry of `npx cdk8s synth`: the examples for KUEUE_VERSION / KUBERAY_VERSION (default v0.19.2 + v1.6.2),
// with the Kueue and KubeRay installs read from local copies so synth stays offline, and the
// project's controller (image CONTROLLER_IMAGE, default the AdmissionController's).
import * as fs from 'fs';
import * as path from 'path';
import { defaultCacheDir } from '../src/install/release-source';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { buildExamples, Scenario, SCENARIOS } from './app';

const kueue = process.env.KUEUE_VERSION ?? DEFAULT_KUEUE_VERSION;
const kubeRay = process.env.KUBERAY_VERSION ?? DEFAULT_KUBERAY_VERSION;
const scenarios = process.env.EXAMPLES ? (process.env.EXAMPLES.split(',') as Scenario[]) : [...SCENARIOS];

// Local copies: KUEUE_MANIFEST / KUBERAY_CRD_DIR, else the pinned upstream data in ../shared/vendor.
const vendor = [process.env.KUEUE_RAY_VENDOR_DIR, path.resolve(__dirname, '..', '..', 'shared', 'vendor'), '/work/shared/vendor']
  .find((d) => d && fs.existsSync(path.join(d, 'README.md')));
const rendered = path.join(defaultCacheDir(), 'releases-rendered', `kueue-${kueue}`, 'manifests.yaml');
const vendored = vendor && path.join(vendor, 'kueue', kueue, 'manifests.yaml');
// v0.17.0 is not vendored: scripts/testcluster/build.sh renders it from the module's config/.
const kueueManifest = process.env.KUEUE_MANIFEST ?? (vendored && fs.existsSync(vendored) ? vendored : rendered);
const kubeRayCrdDir = process.env.KUBERAY_CRD_DIR ?? (vendor && path.join(vendor, 'kuberay', kubeRay, 'ray-operator', 'config', 'crd', 'bases'));
for (const [what, p, env] of [['Kueue release manifests.yaml', kueueManifest, 'KUEUE_MANIFEST'], ['KubeRay CRD folder', kubeRayCrdDir, 'KUBERAY_CRD_DIR']] as Array<[string, string | undefined, string]>) {
  if (!p || !fs.existsSync(p)) {
    throw new Error(`examples: no local ${what} for ${what.startsWith('Kueue') ? kueue : kubeRay} (looked at ${p ?? 'shared/vendor'}); set ${env} to a local copy`);
  }
}
// The controller image: `npm run image`, pushed where the cluster can pull it (README, "The controller image").
const controller = { image: process.env.CONTROLLER_IMAGE };
buildExamples({ outdir: process.env.CDK8S_OUTDIR ?? 'dist', kueue, kubeRay, scenarios, install: { kueueManifest, kubeRayCrdDir }, controller }).synth();
