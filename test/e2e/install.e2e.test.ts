// The installs on a real kube-apiserver: the examples app with both install charts and the
// project's controller, server-side
// dry-run of the whole dist/ and then the real ordered apply (`cdk8s-kueue-ray apply`, the bundled bin, with kubectl).
// Applying Kueue's release registers its webhooks against an in-cluster Service that has no
// endpoints here (no kubelet runs the Kueue pod), so this uses a control plane of its own, without
// the controllers, and the apply runs with --no-wait (webhooks registered last).
import { execFileSync } from 'child_process';
import * as path from 'path';
import { buildExamples } from '../../examples/app';
import { applyArgv } from '../support/apply-cli';
import { readManifestDir, tmpdir } from '../support/synth';
import { vendorDir } from '../support/upstream';
import { binary, K8S_VERSION, TestCluster } from './support/cluster';
import { objectPath } from './support/kube';
import { e2ePairs } from './support/pairs';

// Install sources exist locally for the vendored releases; Kueue v0.17.0 has no rendered release here.
const INSTALL_PAIRS: Array<[string, string]> = [['v0.19.2', 'v1.6.2'], ['v0.14.8', 'v1.4.2']];
const { pairs } = e2ePairs();
const runnable = INSTALL_PAIRS.filter(([k, r]) => pairs.some(([pk, pr]) => pk === k && pr === r));
const describeInstall = runnable.length ? describe.each(runnable) : describe.skip.each([['-', '-']]);
if (!runnable.length) process.stdout.write('[e2e] install: skipped, the control plane is not built (run scripts/testcluster/build.sh)\n');

describeInstall('install charts on Kueue %s + KubeRay %s', (kueue, kubeRay) => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await TestCluster.start({ kueue, kubeRay, controllers: false });
  }, 300000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60000);

  test('dist/ with the installs passes a server-side dry-run, then the ordered apply succeeds', async () => {
    const vendor = vendorDir()!;
    const app = buildExamples({
      outdir: tmpdir(), kueue, kubeRay, controller: {},
      install: { kueueManifest: path.join(vendor, 'kueue', kueue, 'manifests.yaml'),
        kubeRayCrdDir: path.join(vendor, 'kuberay', kubeRay, 'ray-operator', 'config', 'crd', 'bases') },
    });
    app.synth();
    const files = readManifestDir(app.outdir);
    expect(Object.keys(files).slice(0, 2)).toEqual(['0000-kuberay-install', '0001-kueue-install']);
    const objects = Object.values(files).flat();
    // With the elastic examples present, the feature-gate arg is there.
    const dep = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'kueue-controller-manager');
    expect(dep.spec.template.spec.containers[0].args).toContain('--feature-gates=ElasticJobsViaWorkloadSlices=true');
    // The project's controller is part of the app (its webhooks are registered last with --no-wait).
    expect(Object.keys(files)).toContain('0010-controller');

    const env = { ...process.env, KUBECTL: binary(`kubectl-${K8S_VERSION}`) };
    const apply = (extra: string[]) => execFileSync(process.execPath,
      applyArgv([app.outdir, '--kubeconfig', cluster.kubeconfig, ...extra]), { env, stdio: 'pipe' }).toString();
    // A server dry-run cannot create namespaces or CRDs for the objects after them: the harness
    // installed the CRDs, and the namespaces are created first, as a real dry-run needs.
    for (const ns of objects.filter((o) => o.kind === 'Namespace')) await cluster.client.apply(ns);
    expect(apply(['--dry-run'])).toMatch(/dry-run applied \d+ queues, tenants and workloads/);
    const out = apply(['--no-wait']);
    expect(out).toMatch(/CRDs Established/);
    expect(out).toMatch(/applied \d+ webhook configurations/);
    const missing: string[] = [];
    for (const o of objects) {
      if (!(await cluster.client.getOrUndefined(objectPath(o)))) missing.push(`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    }
    expect(missing).toEqual([]);
  }, 600000);
});
