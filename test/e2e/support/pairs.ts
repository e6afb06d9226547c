/**
 * Which Kueue × KubeRay pairs the e2e runs: E2E_PAIRS ("v0.19.2/v1.6.2,v0.14.8/v1.4.2"), else every
 * pair of the support matrix whose binaries scripts/testcluster/build.sh produced. In CI a missing
 * control plane is an error, never a silent skip.
 */
import * as fs from 'fs';
import * as path from 'path';
import { kueueCapabilities, RUN_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS } from '../../../src/policy/versions';
import { cacheDir } from '../../support/upstream';
import { ETCD_VERSION, K8S_VERSION } from './cluster';

/**
 * Kueue versions the Go module proxy serves (v0.13.4 and v0.17.8 are refused with 403, see the build
 * report); every KubeRay version builds but the modelled-only ones (v1.7.0: modelled, not run). In CI each of these pairs must run.
 */
export const BUILDABLE_KUEUE = ['v0.14.8', 'v0.17.0', 'v0.19.2'];

export function e2ePairs(): { pairs: Array<[string, string]>; skipped?: string } {
  if (process.env.E2E_PAIRS) {
    return { pairs: process.env.E2E_PAIRS.split(',').map((p) => p.trim().split('/') as [string, string]) };
  }
  const bin = path.join(cacheDir(), 'bin');
  const has = (f: string) => fs.existsSync(path.join(bin, f));
  const base = [`etcd-${ETCD_VERSION}`, `kube-apiserver-${K8S_VERSION}`, `kube-controller-manager-${K8S_VERSION}`];
  const missingBase = base.filter((b) => !has(b));
  const pairs: Array<[string, string]> = [];
  for (const k of SUPPORTED_KUEUE_VERSIONS) for (const r of RUN_KUBERAY_VERSIONS) {
    if (has(`kueue-${k}`) && has(`kuberay-operator-${r}`)) pairs.push([k, r]);
  }
  const why = missingBase.length
    ? `the test control plane is not built (${missingBase.join(', ')} missing in ${bin}); run scripts/testcluster/build.sh`
    : !pairs.length ? `no Kueue/KubeRay binaries in ${bin}; run scripts/testcluster/build.sh` : undefined;
  if (why && process.env.CI && !process.env.E2E_KUBECONFIG) throw new Error(`e2e cannot run in CI: ${why}`);
  const missing = BUILDABLE_KUEUE.flatMap((k) => RUN_KUBERAY_VERSIONS.map((r) => `${k}/${r}`))
    .filter((p) => !pairs.some(([k, r]) => `${k}/${r}` === p));
  if (process.env.CI && missing.length) throw new Error(`e2e in CI needs every buildable pair; missing binaries for ${missing.join(', ')} `
    + `(see ${path.join(cacheDir(), 'build-report.txt')})`);
  if (missingBase.length) return { pairs: [], skipped: why };
  return { pairs, skipped: why };
}

/**
 * `describe` for a suite that runs on one pair, or `describe.skip` with the reason printed when that
 * pair's control plane is not built (outside CI only: e2ePairs throws in CI).
 */
export function describeOnPair(suite: string, pair: readonly [string, string]): jest.Describe {
  const runnable = e2ePairs().pairs.some(([k, r]) => k === pair[0] && r === pair[1]);
  if (!runnable) process.stdout.write(`[e2e] ${suite}: skipped, the control plane is not built (run scripts/testcluster/build.sh)\n`);
  return runnable ? describe : describe.skip;
}

/**
 * One pair per buildable Kueue version, for the suites that compare the plan with Kueue (no KubeRay operator, only
 * its CRDs): the KubeRay version Kueue tests against, else the first built.
 */
export function agreementPairs(pairs: ReadonlyArray<[string, string]>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const k of BUILDABLE_KUEUE) {
    const built = pairs.filter(([kk]) => kk === k);
    if (!built.length) continue;
    out.push(built.find(([, r]) => r === kueueCapabilities(k).testedKubeRay) ?? built[0]);
  }
  return out;
}
