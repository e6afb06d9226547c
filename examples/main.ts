// Entry of `npx cdk8s synth`: the examples for KUEUE_VERSION / KUBERAY_VERSION (default v0.19.2 + v1.6.2),
// with the Kueue and KubeRay installs read from local copies so synth stays offline, and the
// project's controller (image CONTROLLER_IMAGE, default the AdmissionController's).
import * as fs from 'fs';
import * as path from 'path';
import { Duration } from 'cdk8s';
import { vendorDir } from '../scripts/vendor-dir';
import { defaultCacheDir } from '../src/install/release-source';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { buildExamples, Scenario, SCENARIOS } from './app';
import { ServeAppsSource } from './elastic-rayservice';

const kueue = process.env.KUEUE_VERSION ?? DEFAULT_KUEUE_VERSION;
const kubeRay = process.env.KUBERAY_VERSION ?? DEFAULT_KUBERAY_VERSION;
const scenarios = process.env.EXAMPLES ? (process.env.EXAMPLES.split(',') as Scenario[]) : [...SCENARIOS];

// Local copies: KUEUE_MANIFEST / KUBERAY_CRD_DIR, else the pinned upstream data in ../shared/vendor
// (or KUEUE_RAY_VENDOR_DIR). With local copies the installs never download, so synth needs no lock file.
const vendor = () => vendorDir('examples/main.ts (the Kueue and KubeRay installs)');
const rendered = path.join(defaultCacheDir(), 'releases-rendered', `kueue-${kueue}`, 'manifests.yaml');
// v0.17.0 is not vendored: scripts/testcluster/build.sh renders it from the module's config/.
const vendored = () => path.join(vendor(), 'kueue', kueue, 'manifests.yaml');
const kueueManifest = process.env.KUEUE_MANIFEST ?? (fs.existsSync(vendored()) ? vendored() : rendered);
const kubeRayCrdDir = process.env.KUBERAY_CRD_DIR ?? path.join(vendor(), 'kuberay', kubeRay, 'ray-operator', 'config', 'crd', 'bases');
for (const [what, p, env] of [['Kueue release manifests.yaml', kueueManifest, 'KUEUE_MANIFEST'],
  ['KubeRay CRD folder', kubeRayCrdDir, 'KUBERAY_CRD_DIR']] as const) {
  if (!fs.existsSync(p)) {
    throw new Error(`examples: no local ${what} for ${what.startsWith('Kueue') ? kueue : kubeRay} at ${p}. Fix: set ${env} to a local copy`
      + `${env === 'KUEUE_MANIFEST' && !process.env.KUEUE_MANIFEST
        ? ', or run scripts/testcluster/build.sh (it renders the releases that are not vendored)' : ''}.`);
  }
}
// The controller image: `npm run image`, pushed where the cluster can pull it (README, "The controller image").
const controller = { image: process.env.CONTROLLER_IMAGE };
// EXAMPLES_CPU_SCALE: CPU requests and quotas times this factor (README, "The guide on a small node");
// TOY_ITERATIONS: the toy job's loop length. Both default to the guide.
const number = (name: string) => {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  if (!/^[0-9]*\.?[0-9]+$/.test(v)) throw new Error(`examples: ${name}=${v} is not a number. Fix: e.g. ${name === 'TOY_ITERATIONS' ? '20' : '0.1'}, or unset it for the guide's value.`);
  return Number(v);
};
// EXAMPLES_SERVE_APPS=configmap: the RayService's Serve apps from examples/serve-apps/, not GitHub.
function serveApps(): ServeAppsSource | undefined {
  const v = process.env.EXAMPLES_SERVE_APPS;
  if (v === undefined || v === '') return undefined;
  if (v !== 'github' && v !== 'configmap') throw new Error(`examples: EXAMPLES_SERVE_APPS=${v} is neither github nor configmap. Fix: configmap on a `
    + 'cluster without GitHub, or unset it for the guide\'s zip.');
  return v;
}
// EXAMPLES_OBSERVABILITY=<seconds>: add QueueObservability, its pending alert after that many seconds (the
// real-node guide test); unset, dist/ has no observability chart.
const observabilitySeconds = number('EXAMPLES_OBSERVABILITY');
buildExamples({
  outdir: process.env.CDK8S_OUTDIR ?? 'dist', kueue, kubeRay, scenarios, install: { kueueManifest, kubeRayCrdDir }, controller,
  cpuScale: number('EXAMPLES_CPU_SCALE'), toyIterations: number('TOY_ITERATIONS'),
  serveApps: serveApps(),
  observability: observabilitySeconds === undefined ? undefined : { pendingFor: Duration.seconds(observabilitySeconds) },
}).synth();
