// The tenant-escape cases of issue 19 (test/attack/support/tenant-escapes.ts) on the real node: Kueue,
// the KubeRay operator and the controller run as pods from their install charts, applied with the
// README's ordered apply; the webhooks are reached through their Services, RBAC is the real one (the
// tenant has a Role, KubeRay its ClusterRole), and the slow-body attack comes from outside the API
// server, at a controller pod's IP, as any pod could. Issue 40's round-two cases follow. Default pair only.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { App, Chart } from 'cdk8s';
import { stringify } from 'yaml';
import { KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion } from '../../src';
import { nodeImages } from '../../scripts/cluster/images';
import { K8S_VERSION, NodeCluster, NodeState } from '../../scripts/cluster/node-cluster';
import { vendorDir } from '../../scripts/vendor-dir';
import { applyArgv } from '../support/apply-cli';
import { tmpdir } from '../support/synth';
import { cacheDir, REPO_ROOT } from '../support/upstream';
import { tenantRbac } from '../e2e/support/controller-front';
import { KubeClient, waitFor } from '../e2e/support/kube';
import { describeOnNode } from './support';
import { escapeCases, objects, TENANT, TENANT_NAMESPACES } from '../attack/support/tenant-escapes';
import { roundTwoCases } from '../attack/support/round-two-escapes';

const run = promisify(execFile);
const NAME = `esc-${process.pid}`;
const KUEUE = KueueVersion.V0_19_2;
const KUBERAY = KubeRayVersion.V1_6_2;
const describeNode = describeOnNode('real-node escapes', [`kubelet-${K8S_VERSION}`, `kueue-${KUEUE.version}`, `kuberay-operator-${KUBERAY.version}`]);

/** The installs, the controller and the escape tenants as files, in the order the ordered apply takes them. */
function writeDist(dir: string): void {
  const vendor = vendorDir('the real-node tenant escapes (the Kueue and KubeRay installs)');
  const app = new App({ outdir: dir });
  KueueRayVersions.use(app, { kueue: KUEUE, kubeRay: KUBERAY });
  const kubeRay = new KubeRayInstall(app, 'kuberay-install',
    { crdDir: path.join(vendor, 'kuberay', KUBERAY.version, 'ray-operator', 'config', 'crd', 'bases') });
  const kueue = new KueueInstall(app, 'kueue-install', { manifestFile: path.join(vendor, 'kueue', KUEUE.version, 'manifests.yaml') });
  const o = objects(KUEUE, KUBERAY);
  const files: Array<[string, any[]]> = [
    ['0000-kuberay-install', (kubeRay as Chart).toJson()], ['0001-kueue-install', (kueue as Chart).toJson()],
    ['0002-controller', o.controller], ['0003-tenants', [...o.tenants, ...tenantRbac(TENANT, TENANT_NAMESPACES)]],
  ];
  for (const [name, docs] of files) fs.writeFileSync(path.join(dir, `${name}.k8s.yaml`), docs.map((d) => stringify(d)).join('---\n'));
}

describeNode(`tenant escapes, closed, on the real node (Kueue ${KUEUE.version} + KubeRay ${KUBERAY.version} as pods)`, () => {
  let node: NodeState;
  let admin: KubeClient;
  let tenant: KubeClient;
  let webhook: { host: string; port: number };
  let dir: string;

  beforeAll(async () => {
    process.on('exit', () => { try { NodeCluster.down(NAME); } catch { /* reaped by the next run */ } });
    node = await NodeCluster.up(NAME, { images: nodeImages([KUEUE.version], [KUBERAY.version]), owner: process.pid, log: () => undefined });
    dir = tmpdir();
    writeDist(dir);
    const env = { ...process.env, KUBECONFIG: node.kubeconfig, KUBECTL: path.join(cacheDir(), 'bin', `kubectl-${K8S_VERSION}`) };
    await run(process.execPath, applyArgv([dir]), { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 });
    admin = KubeClient.fromKubeconfig(node.kubeconfig);
    tenant = admin.as(TENANT);
    // Both controller replicas watch the tenants: a dry-run create in team-e gets its queue from each.
    await waitFor('the controller to see the tenants', async () => {
      const r = await admin.request('POST', '/apis/ray.io/v1/namespaces/team-e/rayclusters?dryRun=All', {
        apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'probe', namespace: 'team-e' },
        spec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0' }] } } } },
      });
      return r.status === 201 && r.body.metadata.labels?.['kueue.x-k8s.io/queue-name'] === 'main';
    }, 120000, 1000);
    const pod = (await admin.list('v1', 'Pod', 'cdk8s-kueue-ray-system')).find((p) => p.status?.podIP && p.status.phase === 'Running');
    webhook = { host: pod.status.podIP, port: 9443 };
  }, 600000);

  afterAll(() => {
    admin?.close();
    NodeCluster.down(NAME);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 120000);

  escapeCases({
    pair: [KUEUE.version, KUBERAY.version], admin: () => admin, tenant: () => tenant, webhook: () => webhook,
    kubeRayGroups: ['system:serviceaccounts', 'system:serviceaccounts:kuberay-system', 'system:authenticated'],
    kueuePodIntegration: true,
  });
  // Issue 40's round two, where a pod that got past the webhooks would be scheduled and run: unsuspending a pending object (a
  // tenant's UPDATE, a re-run of the project's apply), KubeRay's labels on a tenant's pods and workloads, a negative request.
  roundTwoCases({
    pair: [KUEUE.version, KUBERAY.version], kueue: KUEUE, kubeRay: KUBERAY, admin: () => admin, tenant: () => tenant,
    kubeconfig: () => node.kubeconfig, kubectl: path.join(cacheDir(), 'bin', `kubectl-${K8S_VERSION}`),
  });
});
