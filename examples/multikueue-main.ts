// Entry of the MultiKueue example (a second app beside examples/main.ts):
//   npx ts-node --transpile-only examples/multikueue-main.ts
// writes dist/manager/ and dist/workers/<name>/ for KUEUE_VERSION / KUBERAY_VERSION (default v0.19.2 + v1.6.2).
// INSTALL=1 adds the Kueue and KubeRay install charts from the local copies examples/main.ts uses.
import * as fs from 'fs';
import * as path from 'path';
import { vendorDir } from '../scripts/vendor-dir';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { buildMultiKueueExample } from './multikueue';

const kueue = process.env.KUEUE_VERSION ?? DEFAULT_KUEUE_VERSION;
const kubeRay = process.env.KUBERAY_VERSION ?? DEFAULT_KUBERAY_VERSION;
let install: { kueueManifest: string; kubeRayCrdDir: string } | undefined;
if (process.env.INSTALL === '1') {
  const vendor = vendorDir('examples/multikueue-main.ts (the Kueue and KubeRay installs)');
  install = {
    kueueManifest: process.env.KUEUE_MANIFEST ?? path.join(vendor, 'kueue', kueue, 'manifests.yaml'),
    kubeRayCrdDir: process.env.KUBERAY_CRD_DIR ?? path.join(vendor, 'kuberay', kubeRay, 'ray-operator', 'config', 'crd', 'bases'),
  };
  for (const p of Object.values(install)) if (!fs.existsSync(p)) throw new Error(`examples/multikueue-main.ts: no local copy at ${p}. Fix: set `
    + 'KUEUE_MANIFEST / KUBERAY_CRD_DIR.');
}
const ex = buildMultiKueueExample({ outdir: process.env.CDK8S_OUTDIR ?? 'dist', kueue, kubeRay, install });
for (const app of [ex.manager, ...Object.values(ex.workers)]) app.synth();
