// bench:node — the real node (scripts/cluster): bring-up cold (images built from the cached binaries
// into an empty dir) and warm (images cached), the time from `cdk8s-kueue-ray apply` to every Deployment
// rolled out, each component's memory read from its cgroup (pods) or /proc (node processes), and the
// image sizes. Baseline, measured in the same run: the host-process control plane the version matrix
// uses (TestCluster: etcd, kube-apiserver, kube-controller-manager, Kueue and KubeRay as processes).
// Needs root and scripts/testcluster/build.sh + npm run image first. Prints one `bench:node ...` line.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { nodeImages } from '../scripts/cluster/images';
import { K8S_VERSION, NodeCluster, NodeState } from '../scripts/cluster/node-cluster';
import { podUsage } from '../scripts/cluster/pod-usage';
import { recorded } from '../scripts/cluster/processes';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { KUEUE_PRODUCTION_LOG_LEVEL, TestCluster } from '../test/e2e/support/cluster';
import { KubeClient } from '../test/e2e/support/kube';
import { applyArgv } from '../test/support/apply-cli';
import { cacheDir, REPO_ROOT } from '../test/support/upstream';

const run = promisify(execFile);
const MiB = 1024 * 1024;

async function bringUp(name: string): Promise<{ node: NodeState; seconds: number; imageSeconds: number }> {
  const t = Date.now();
  const images = nodeImages([DEFAULT_KUEUE_VERSION], [DEFAULT_KUBERAY_VERSION]);
  const imageSeconds = (Date.now() - t) / 1000;
  const node = await NodeCluster.up(name, { images, owner: process.pid, log: () => undefined });
  return { node, seconds: (Date.now() - t) / 1000, imageSeconds };
}

function cgroupMemory(node: NodeState, podUid: string): number | undefined {
  return podUsage(node.cgroupRoot, podUid)?.workingSetBytes;
}

function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench:node needs root');
  // Baseline: the host-process control plane, same versions.
  let t = Date.now();
  const base = await TestCluster.start({ kueue: DEFAULT_KUEUE_VERSION, kubeRay: DEFAULT_KUBERAY_VERSION, kueueLogLevel: KUEUE_PRODUCTION_LOG_LEVEL });
  const baseline = (Date.now() - t) / 1000;
  await base.stop();

  const coldImages = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-node-images-'));
  process.env.NODE_IMAGES_DIR = coldImages;
  const cold = await bringUp('bench-cold');
  NodeCluster.down('bench-cold');
  const warm = await bringUp('bench-warm');
  const node = warm.node;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-node-dist-'));
  try {
    await run('npx', ['cdk8s', 'synth', '--no-check-upgrade', '--output', out], { cwd: REPO_ROOT });
    const env = { ...process.env, KUBECONFIG: node.kubeconfig, KUBECTL: path.join(cacheDir(), 'bin', `kubectl-${K8S_VERSION}`) };
    t = Date.now();
    await run(process.execPath, applyArgv([out]), { cwd: REPO_ROOT, env, maxBuffer: 64 * MiB });
    const apply = (Date.now() - t) / 1000;
    await new Promise((r) => setTimeout(r, 15000)); // settle before reading memory
    const client = KubeClient.fromKubeconfig(node.kubeconfig);
    const memory: Record<string, number> = {};
    for (const ns of ['kueue-system', 'kuberay-system', 'cdk8s-kueue-ray-system', 'kube-system']) {
      for (const p of await client.list('v1', 'Pod', ns)) {
        const m = cgroupMemory(node, p.metadata.uid);
        if (m !== undefined) memory[`pod ${ns}/${p.metadata.name}`] = m;
      }
    }
    client.close();
    for (const r of recorded(node.dir)) memory[`process ${r.name}`] = rss(r.pid);
    const sizes: Record<string, number> = {};
    for (const l of fs.readFileSync(path.join(coldImages, 'images.tsv'), 'utf8').split('\n').filter(Boolean)) {
      const [ref, archive] = l.split('\t');
      sizes[ref] = fs.statSync(archive).size;
    }
    const ctl = path.join(REPO_ROOT, 'dist', 'image',
      `controller-${JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version}.oci.tar`);
    if (fs.existsSync(ctl)) sizes['ghcr.io/cdk8s-kueue-ray/controller'] = fs.statSync(ctl).size;

    const f = (n: number) => n.toFixed(1);
    process.stdout.write(`baseline: host-process control plane (Kueue + KubeRay as processes) ${f(baseline)} s\n`);
    process.stdout.write(`bring-up cold: ${f(cold.seconds)} s (images ${f(cold.imageSeconds)} `
      + `s; ${Object.entries(cold.node.timings).map(([k, v]) => `${k} ${f(v)}`).join(', ')})\n`);
    process.stdout.write(`bring-up warm: ${f(warm.seconds)} s (images ${f(warm.imageSeconds)} `
      + `s; ${Object.entries(warm.node.timings).map(([k, v]) => `${k} ${f(v)}`).join(', ')})\n`);
    process.stdout.write(`apply to every Deployment rolled out: ${f(apply)} s\n`);
    for (const [k, v] of Object.entries(memory).sort()) process.stdout.write(`memory ${k}: ${f(v / MiB)} MiB\n`);
    for (const [k, v] of Object.entries(sizes)) process.stdout.write(`image ${k}: ${f(v / MiB)} MiB (archive)\n`);
    const podMiB = Object.entries(memory).filter(([k]) => k.startsWith('pod ')).reduce((a, [, v]) => a + v, 0) / MiB;
    process.stdout.write(`bench:node cold_s=${f(cold.seconds)} warm_s=${f(warm.seconds)} apply_s=${f(apply)} baseline_s=${f(baseline)} `
      + `ratio_warm_baseline=${(warm.seconds / baseline).toFixed(2)} ratio_cold_warm=${(cold.seconds / warm.seconds).toFixed(2)} `
      + `pods_mib=${f(podMiB)}\n`);
  } finally {
    NodeCluster.down('bench-warm');
    fs.rmSync(out, { recursive: true, force: true });
    fs.rmSync(coldImages, { recursive: true, force: true });
  }
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`bench:node failed: ${(e as Error).message}\n`);
  for (const n of ['bench-cold', 'bench-warm']) {
    try { NodeCluster.down(n); } catch { /* best effort */ }
  }
  process.exit(1);
});
