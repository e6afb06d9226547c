// bench:guide — the guide on real Ray (the real node, Ray 2.46.0 built here, the examples at
// EXAMPLES_CPU_SCALE=0.1), measured:
//   - the toy RayJob: create -> head Running -> SUCCEEDED, queued by Kueue, against the same RayJob with
//     no queue label in a namespace Kueue ignores (the baseline, same run, same node);
//   - the elastic RayCluster with Kueue's Workload slices against the same RayCluster unqueued: autoscale
//     latency (tasks submitted -> new worker Running) and scale-down latency (tasks done -> worker gone);
//   - CPU and memory of the Ray pods from their cgroups, against what Kueue accounted for them.
// BENCH_GUIDE_REPS (default 2) toy runs each way. Needs root, scripts/testcluster/build.sh, npm run image.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { stringify } from 'yaml';
import { busyTasksScript } from '../examples/elastic-raycluster';
import { nodeImages, rayImages } from '../scripts/cluster/images';
import { NodeCluster, NodeState } from '../scripts/cluster/node-cluster';
import { podUsage } from '../scripts/cluster/pod-usage';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { KubeClient, waitFor } from '../test/e2e/support/kube';
import { ElasticWatch, RayWatch } from '../test/node/ray-watch';
import { nodeKubectl } from '../test/node/support';
import { applyArgv } from '../test/support/apply-cli';
import { readManifestDir, tmpdir } from '../test/support/synth';
import { REPO_ROOT } from '../test/support/upstream';

const run = promisify(execFile);
const NAME = 'bench-guide';
const UNQUEUED = 'bench-unqueued';
const REPS = Number(process.env.BENCH_GUIDE_REPS ?? 2);
const MiB = 1024 * 1024;

/** The same object without Kueue: no queue or priority label, no elastic annotation, not suspended, in UNQUEUED. */
function unqueued(obj: any): any {
  const o = JSON.parse(JSON.stringify(obj));
  o.metadata.namespace = UNQUEUED;
  for (const k of Object.keys(o.metadata.labels ?? {})) if (k.startsWith('kueue.x-k8s.io/')) delete o.metadata.labels[k];
  if (o.metadata.annotations) delete o.metadata.annotations['kueue.x-k8s.io/elastic-job'];
  if (o.spec.suspend !== undefined) o.spec.suspend = false;
  return o;
}

interface Usage { peakBytes: number; cpuSeconds: number; requestCpu: string; requestMemory: string }

/** Samples every Ray pod's cgroup once a second; per pod the peak working set and the CPU time used. */
class UsageSampler {
  public readonly pods = new Map<string, Usage & { role: string; first: number; last: number; firstCpu: number }>();
  private stopped = false;
  private readonly loop: Promise<void>;
  constructor(private readonly client: KubeClient, private readonly node: NodeState, private readonly namespace: string) {
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          for (const p of await this.client.list('v1', 'Pod', this.namespace, 'ray.io/is-ray-node=yes')) {
            const u = podUsage(this.node.cgroupRoot, p.metadata.uid);
            if (!u) continue;
            const t = Date.now() / 1000;
            const c = p.spec.containers[0].resources?.requests ?? {};
            const prev = this.pods.get(p.metadata.name);
            this.pods.set(p.metadata.name, {
              role: p.metadata.labels['ray.io/node-type'], requestCpu: c.cpu ?? '-', requestMemory: c.memory ?? '-',
              peakBytes: Math.max(prev?.peakBytes ?? 0, u.workingSetBytes), cpuSeconds: u.cpuSeconds,
              first: prev?.first ?? t, last: t, firstCpu: prev?.firstCpu ?? u.cpuSeconds,
            });
          }
        } catch { /* the next sample */ }
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
  }
  public async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
  public lines(): string[] {
    return [...this.pods.entries()].map(([n, u]) => {
      const cores = u.last > u.first ? (u.cpuSeconds - u.firstCpu) / (u.last - u.first) : 0;
      return `  ${u.role.padEnd(6)} ${n}: peak ${(u.peakBytes / MiB).toFixed(0)} MiB (requested ${u.requestMemory}), average ${cores.toFixed(2)} `
        + `cores over ${(u.last - u.first).toFixed(0)} s (requested ${u.requestCpu}; the `
        + `guide's ${u.role === 'head' || u.role === 'worker' ? '1' : '-'})`;
    });
  }
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench:guide needs root');
  NodeCluster.down(NAME);
  const node = await NodeCluster.up(NAME,
    { images: [...nodeImages([DEFAULT_KUEUE_VERSION], [DEFAULT_KUBERAY_VERSION]), ...rayImages(['2.46.0'])], owner: process.pid });
  process.on('exit', () => { try { NodeCluster.down(NAME); } catch { /* the next run reaps it */ } });
  const client = KubeClient.fromKubeconfig(node.kubeconfig);
  const { env: kubeEnv, kubectl } = nodeKubectl(() => node);
  const out = tmpdir();
  const base = tmpdir();
  try {
    const synthEnv = { ...process.env, EXAMPLES_CPU_SCALE: '0.1', TOY_ITERATIONS: '10' };
    await run('npx', ['cdk8s', 'synth', '--no-check-upgrade', '--output', base], { cwd: REPO_ROOT, env: { ...synthEnv, EXAMPLES: 'queues' } });
    await run('npx', ['cdk8s', 'synth', '--no-check-upgrade', '--output', out],
      { cwd: REPO_ROOT, env: { ...synthEnv, EXAMPLES: 'queues,gang-scheduling,elastic-raycluster' } });
    await run(process.execPath, applyArgv([base]),
      { cwd: REPO_ROOT, env: kubeEnv() });
    await kubectl('create', 'namespace', UNQUEUED);
    const files = readManifestDir(out);
    const toy = readManifestDir(path.join(out, 'create'))['gang-scheduling'][0];
    const create = async (o: any) => {
      const f = path.join(out, `obj-${Date.now()}.yaml`);
      fs.writeFileSync(f, stringify(o));
      return (await kubectl('create', '-f', f, '-o', 'name')).trim().replace(/^[^/]+\//, '');
    };

    // --- The toy job, queued and unqueued, REPS times each, one at a time.
    const toyRuns: Record<string, number[][]> = { queued: [], unqueued: [] };
    const usage = new UsageSampler(client, node, 'default');
    for (let i = 0; i < REPS; i++) {
      for (const mode of ['queued', 'unqueued'] as const) {
        const ns = mode === 'queued' ? 'default' : UNQUEUED;
        const watch = new RayWatch(client, ns, 'cluster-queue');
        const name = await create(mode === 'queued' ? toy : unqueued(toy));
        const r = watch.watch(name);
        await waitFor(`${mode} toy job SUCCEEDED`, async () => r.statuses.includes('SUCCEEDED'), 900000, 500);
        await watch.stop();
        toyRuns[mode].push([r.at['head Running'], r.at.SUCCEEDED]);
        await kubectl('-n', ns, 'delete', 'rayjob', name, '--ignore-not-found');
        await waitFor('its pods gone', async () => (await client.list('v1', 'Pod', ns, 'ray.io/is-ray-node=yes')).length === 0, 300000, 1000);
      }
    }
    await usage.stop();
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const toyLine = (mode: string) => `create->head Running ${med(toyRuns[mode].map((x) => x[0])).toFixed(1)} s, `
      + `->SUCCEEDED ${med(toyRuns[mode].map((x) => x[1])).toFixed(1)} s`;

    // --- The elastic RayCluster, queued (ray-cq, 800m) and unqueued: 4 busy tasks need one more worker.
    const rc = Object.entries(files).find(([k]) => k.endsWith('-elastic-raycluster'))![1][0];
    await kubectl('apply', '--server-side', '-f', path.join(out, `${Object.keys(files).find((k) => k.endsWith('-elastic-queues'))}.k8s.yaml`));
    const elastic: Record<string, { up: number; down: number }> = {};
    const elasticUsage = new UsageSampler(client, node, 'default');
    for (const mode of ['queued', 'unqueued'] as const) {
      const ns = mode === 'queued' ? 'default' : UNQUEUED;
      const obj = mode === 'queued' ? rc : unqueued(rc);
      const f = path.join(out, `rc-${mode}.yaml`);
      fs.writeFileSync(f, stringify(obj));
      await kubectl('apply', '--server-side', '-f', f);
      const w = new ElasticWatch(client, ns, rc.metadata.name, mode === 'queued' ? 'ray-cq' : undefined);
      const head = await waitFor('the head ready',
        async () => (await client.list('v1', 'Pod', ns, `ray.io/cluster=${rc.metadata.name},ray.io/node-type=head`))
          .find((p) => (p.status?.containerStatuses ?? []).length > 1 && p.status.containerStatuses.every((c: any) => c.ready)), 600000, 1000);
      const exec = (...a: string[]) => kubectl('-n', ns, 'exec', head.metadata.name, '-c', 'ray-head', '--', ...a);
      await exec('ray', 'job', 'submit', '--address', 'http://127.0.0.1:8265', '--submission-id', 'busy', '--no-wait', '--', 'python', '-c', busyTasksScript(4, 30));
      const submitted = w.mark('submitted');
      const up = await waitFor('a worker Running', async () => w.firstAfter(submitted, (s) => s.running > 0), 600000, 500);
      await waitFor('the tasks done', async () => /tasks done on/.test(await exec('ray', 'job', 'logs', '--address', 'http://127.0.0.1:8265', 'busy').catch(() => '')), 600000, 2000);
      const done = w.mark('done');
      const down = await waitFor('the worker gone', async () => w.firstAfter(done, (s) => s.running === 0 && s.replicas === 0), 600000, 1000);
      await w.stop();
      elastic[mode] = { up: up.t - submitted, down: down.t - done };
      process.stdout.write(w.report(`[bench:guide] elastic ${mode}`));
      await kubectl('-n', ns, 'delete', 'raycluster', rc.metadata.name, '--wait=true');
    }
    await elasticUsage.stop();
    const ratio = (a: number, b: number) => (b > 0 ? a / b : NaN).toFixed(2);
    process.stdout.write([
      `bench:guide toy job (median of ${REPS}) queued: ${toyLine('queued')}; unqueued: ${toyLine('unqueued')}; `
        + `ratio ${ratio(med(toyRuns.queued.map((x) => x[1])), med(toyRuns.unqueued.map((x) => x[1])))}`,
      `bench:guide elastic autoscale (tasks submitted -> new worker Running) queued ${elastic.queued.up.toFixed(1)} s, `
        + `unqueued ${elastic.unqueued.up.toFixed(1)} s, ratio ${ratio(elastic.queued.up, elastic.unqueued.up)}`,
      `bench:guide elastic scale-down (tasks done -> worker gone, idleTimeoutSeconds 60) queued ${elastic.queued.down.toFixed(1)} s, `
        + `unqueued ${elastic.unqueued.down.toFixed(1)} s, ratio ${ratio(elastic.queued.down, elastic.unqueued.down)}`,
      'bench:guide Ray pods, from their cgroups (toy jobs, queued):', ...usage.lines(),
      'bench:guide Ray pods, from their cgroups (elastic, queued):', ...elasticUsage.lines(), '',
    ].join('\n'));
  } finally {
    client.close();
    NodeCluster.down(NAME);
    fs.rmSync(out, { recursive: true, force: true });
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench:guide: ${e instanceof Error ? e.stack : e}\n`);
  process.exit(1);
});
