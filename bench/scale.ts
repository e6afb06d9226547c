// bench:scale — the whole system at scale on the test control plane (etcd, kube-apiserver,
// kube-controller-manager, Kueue, KubeRay as local processes; see test/e2e/support/cluster.ts):
// 1,000 RayJobs created across 20 tenant namespaces, twice in one run, each time on a fresh cluster:
//   without: no webhook of ours (Kueue's own webhooks only), the baseline;
//   with:    the controller's entrypoint (lib/src/cli/main.js controller: webhook + informers +
//            reconciler) as its own process, its two webhook configurations exactly as the
//            AdmissionController construct synthesizes them, pointed at it by URL.
// Both phases create the same objects: the QueuedRayJob construct's output (queue and priority
// labels, suspend) in namespaces, queues and quotas made by TenantQueue. Per tenant, the quota fits
// QUOTA_JOBS gangs: those are admitted, the rest stay pending (there is no kubelet, so nothing ever
// finishes and frees quota). Measured per phase:
//   - BENCH_DRY_RUNS creates one at a time with dryRun=All before the run: the admission chain's
//     latency on a quiet cluster (every webhook runs, nothing is stored);
//   - create latency, client side, BENCH_CONCURRENCY creates in flight;
//   - time from the first create until Kueue has decided every Workload: each exists and each
//     tenant's ClusterQueue counts all its jobs, its quota full (watches on Workloads and ClusterQueues);
//   - CPU time of each process (utime+stime from /proc/<pid>/stat) over that window, and the
//     controller's peak RSS (VmHWM from /proc/<pid>/status).
// Run with `npm run bench:scale` (builds lib/ first: the controller runs compiled, as in the image).
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import {
  AdmissionController, KubeRayVersion, KueueRayVersions, KueueVersion, Quantity, QueuedRayJob, ResourceFlavor, ResourceName, TenantQueue,
  WorkloadPriorityClass,
} from '../src';
import { DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { freePort, KUEUE_PRODUCTION_LOG_LEVEL, TestCluster } from '../test/e2e/support/cluster';
import { KubeError, readKubeconfig, waitFor } from '../test/e2e/support/kube';

const KUEUE = process.env.BENCH_KUEUE ?? DEFAULT_KUEUE_VERSION;
const KUBERAY = process.env.BENCH_KUBERAY ?? DEFAULT_KUBERAY_VERSION;
const TENANTS = Number(process.env.BENCH_TENANTS || 20);
const JOBS = Number(process.env.BENCH_JOBS || 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY || 12);
/** Gangs of one job that fit in one tenant's quota. */
const QUOTA_JOBS = Number(process.env.BENCH_QUOTA_JOBS || 10);
/** Bound on each phase's wait for Kueue (and the reconciler), in seconds. */
const DEADLINE_S = Number(process.env.BENCH_DEADLINE_SECONDS || 300);
/** Sequential dry-run creates before each phase's run. */
const DRY_RUNS = Number(process.env.BENCH_DRY_RUNS || 50);
const PHASES = (process.env.BENCH_PHASES ?? 'without,with').split(',').map((p) => p.trim()) as Array<'without' | 'with'>;
const REPO = path.join(__dirname, '..');
const ENTRY = path.join(REPO, 'lib', 'src', 'cli', 'main.js');
const CONTROLLER_NS = 'cdk8s-kueue-ray-system';
const STATUS_ANNOTATION = 'cdk8s-kueue-ray.io/queue-status';
const WL_API = '/apis/kueue.x-k8s.io/v1beta2/workloads';

const hr = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const log = (msg: string) => process.stdout.write(`${msg}\n`);

// ---- the objects, from the constructs ------------------------------------------------------------
interface Manifests { setup: any[]; jobs: any[]; webhooks: any[]; controllerNamespace: any }

/**
 * TENANTS TenantQueues, each with its own ClusterQueue sized for QUOTA_JOBS gangs, one QueuedRayJob
 * per tenant (created JOBS / TENANTS times with generateName), and the AdmissionController chart.
 */
export function manifests(): Manifests {
  const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scale-synth-')) });
  KueueRayVersions.use(app, { kueue: KueueVersion.of(KUEUE), kubeRay: KubeRayVersion.of(KUBERAY) });
  const platform = new Chart(app, 'platform');
  const flavor = new ResourceFlavor(platform, 'default-flavor');
  const dev = new WorkloadPriorityClass(platform, 'dev', { value: 100 });
  const jobsChart = new Chart(app, 'jobs');
  const jobs: QueuedRayJob[] = [];
  // One gang: head 1 CPU/1Gi, one worker 1 CPU/1Gi, KubeRay's default submitter 500m/200Mi.
  const gangCpu = 2.5;
  const gangMemMi = 2 * 1024 + 200;
  for (let t = 0; t < TENANTS; t++) {
    const chart = new Chart(app, `tenant-${t}`);
    const queue = new TenantQueue(chart, 'queue', {
      namespace: `tenant-${t}`, defaultPriorityClass: dev, allowedPriorityClasses: [dev],
      resourceGroups: [{ flavors: [{ flavor, quotas: [
        { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(gangCpu * QUOTA_JOBS) },
        { resource: ResourceName.MEMORY, nominalQuota: Quantity.mebibytes(gangMemMi * QUOTA_JOBS) },
      ] }] }],
    });
    jobs.push(new QueuedRayJob(jobsChart, `job-${t}`, {
      queue, generateName: 'scale-', entrypoint: 'python -c "import ray; ray.init()"',
      headGroup: { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } },
      workerGroups: [{ groupName: 'workers', replicas: 1, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(1) } }],
    }));
  }
  const controller = new AdmissionController(app, 'controller');
  const setup = app.charts.filter((c) => c !== jobsChart && c !== controller).flatMap((c) => c.toJson());
  const controllerObjs = controller.toJson();
  return {
    setup,
    jobs: jobsChart.toJson(),
    webhooks: [controller.mutatingWebhook.toJson(), controller.validatingWebhook.toJson()],
    controllerNamespace: controllerObjs.find((o: any) => o.kind === 'Namespace'),
  };
}

// ---- /proc ----------------------------------------------------------------------------------------
const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU time (user + system, every thread) in seconds, and current and peak RSS in MiB. */
function procStat(pid: number): { cpuS: number; rssMib: number; hwmMib: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { cpuS: (Number(f[11]) + Number(f[12])) / TICK, rssMib: kb('VmRSS') / 1024, hwmMib: kb('VmHWM') / 1024 };
}

function loadavg(): string {
  return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

// ---- a watch, over the kubeconfig's mutual TLS ---------------------------------------------------
/** Watches a collection from resourceVersion `rv`, calling `onObject` per event; resumes when the server ends the stream. */
function watch(kubeconfig: string, collection: string, rv: string, onObject: (o: any) => void): { stop(): void } {
  const creds = readKubeconfig(kubeconfig);
  const url = new URL(creds.server);
  let stopped = false;
  let req: ReturnType<typeof https.request> | undefined;
  const open = () => {
    if (stopped) return;
    req = https.request({
      host: url.hostname, port: url.port, method: 'GET', ca: creds.ca, cert: creds.cert, key: creds.key,
      path: `${collection}?watch=true&resourceVersion=${rv}&timeoutSeconds=900`, headers: { Accept: 'application/json' },
    }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          // An ERROR event (e.g. 410 Gone) ends this stream; the objects still missing then keep the
          // phase waiting until its deadline, and the report counts them as undecided.
          if (ev.type === 'ERROR') { log(`  watch ${collection}: ${JSON.stringify(ev.object)}`); stopped = true; return; }
          rv = ev.object.metadata.resourceVersion;
          onObject(ev.object);
        }
      });
      res.on('end', () => setTimeout(open, 100));
    });
    req.on('error', () => { if (!stopped) setTimeout(open, 500); });
    req.end();
  };
  open();
  return { stop: () => { stopped = true; req?.destroy(); } };
}

// ---- the controller as its own process -----------------------------------------------------------
async function startController(cluster: TestCluster): Promise<{ proc: ChildProcess; port: number; stop(): Promise<void> }> {
  const pki = (cluster as any).pki;
  const port = await freePort();
  const logFile = path.join(cluster.dir, 'controller.log');
  const fd = fs.openSync(logFile, 'a');
  // BENCH_CONTROLLER_NODE_ARGS: extra node flags for the controller, e.g. "--cpu-prof --cpu-prof-dir=DIR".
  // The image's V8 flags first and its environment (package.json), as the Deployment runs it.
  const image = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'))['cdk8s-kueue-ray'];
  const imageFlags: string[] = image.controllerNodeFlags;
  const nodeArgs = [...imageFlags, ...(process.env.BENCH_CONTROLLER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const proc = spawn(process.execPath, [...nodeArgs, ENTRY, 'controller', `--kubeconfig=${cluster.kubeconfig}`, `--tls-cert-file=${pki.servingCrt}`,
    `--tls-key-file=${pki.servingKey}`,
    '--host=127.0.0.1', `--port=${port}`, `--namespace=${CONTROLLER_NS}`, `--kueue-version=${KUEUE}`, `--kuberay-version=${KUBERAY}`,
    '--shutdown-grace-seconds=0'], { stdio: ['ignore', fd, fd], env: { ...process.env, ...image.controllerEnvironment } });
  fs.closeSync(fd);
  process.on('exit', () => { if (proc.exitCode === null) proc.kill('SIGKILL'); });
  const ca = fs.readFileSync(pki.caCrt);
  const ready = () => new Promise<boolean>((resolve) => {
    https.get({ host: '127.0.0.1', port, path: '/readyz', ca }, (res) => { res.resume(); resolve(res.statusCode === 200); }).on('error',
      () => resolve(false));
  });
  await waitFor('the controller /readyz (informers synced)', async () => {
    if (proc.exitCode !== null) throw new Error(`the controller exited with ${proc.exitCode}: ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`);
    return (await ready()) && fs.readFileSync(logFile, 'utf8').includes('reconciler started');
  }, 120000, 250);
  return {
    proc, port,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The construct's webhook configurations, with the in-cluster Service replaced by the local URL and our CA. */
function registered(webhookConfig: any, port: number, caBundle: string): any {
  return {
    ...webhookConfig,
    webhooks: webhookConfig.webhooks.map((w: any) => ({ ...w, clientConfig: { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle } })),
  };
}

// ---- one phase -----------------------------------------------------------------------------------
interface PhaseResult {
  name: string;
  /** Sequential dry-run creates before the run. */
  dryRunMs: number[];
  createMs: number[];
  createErrors: string[];
  createWallS: number;
  /** Kueue decided every Workload (seconds after the first create); NaN if not within the deadline. */
  decidedS: number;
  decidedAfterLastCreateS: number;
  /** Every RayJob had its Workload. */
  workloadsS: number;
  lastAdmissionS: number;
  /** 1 when Kueue had not decided every Workload by the deadline. */
  undecided: number;
  admitted: number;
  pendingWithCondition: number;
  cqAdmitted: number;
  cqPending: number;
  annotatedS?: number;
  annotated?: number;
  unannotated?: number;
  /** First create until the phase's last wait ended: the window of the CPU figures. */
  windowS: number;
  cpuS: Record<string, number>;
  controller?: { startCpuS: number; startRssMib: number; cpuS: number; peakRssMib: number; hwmMib: number };
  load: { before: string; after: string };
}

const decision = (wl: any): 'admitted' | 'pending' | undefined => {
  const c = (t: string) => (wl.status?.conditions ?? []).find((x: any) => x.type === t);
  if (c('Admitted')?.status === 'True') return 'admitted';
  if (c('QuotaReserved')?.status === 'False') return 'pending'; // reason Pending or Inadmissible, with Kueue's message
  return undefined;
};

async function phase(name: 'without' | 'with', m: Manifests): Promise<PhaseResult> {
  log(`--- phase "${name}": `
    + `${name === 'with' ? 'our webhooks registered, the controller (webhook + reconciler) running' : 'Kueue\'s webhooks only, no controller'}`);
  const cluster = await TestCluster.start({ kueue: KUEUE, kubeRay: KUBERAY, kueueLogLevel: KUEUE_PRODUCTION_LOG_LEVEL });
  let controller: Awaited<ReturnType<typeof startController>> | undefined;
  const watches: Array<{ stop(): void }> = [];
  try {
    const c = cluster.client;
    for (const o of m.setup.filter((x) => x.kind === 'Namespace')) await c.apply(o);
    for (const o of m.setup.filter((x) => x.kind !== 'Namespace')) await c.apply(o);
    await waitFor('every ClusterQueue Active', async () => {
      const cqs = (await c.get('/apis/kueue.x-k8s.io/v1beta2/clusterqueues')).items;
      return cqs.length === TENANTS
        && cqs.every((q: any) => (q.status?.conditions ?? []).some((x: any) => x.type === 'Active' && x.status === 'True'));
    }, 60000);
    if (name === 'with') {
      await c.apply(m.controllerNamespace);
      controller = await startController(cluster);
      const caBundle = fs.readFileSync((cluster as any).pki.caCrt).toString('base64');
      for (const w of m.webhooks) await c.apply(registered(w, controller.port, caBundle));
      // The API server calls our webhooks: a tenant job without labels comes back with the tenant's
      // default priority class (dry run), which only our mutating webhook adds.
      const probe = JSON.parse(JSON.stringify(m.jobs[0]));
      delete probe.metadata.labels;
      await waitFor('the API server to call our mutating webhook', async () => {
        const r = await c.create(probe, true).catch((e: KubeError) => e);
        return !(r instanceof Error)
          && r.metadata.labels?.['kueue.x-k8s.io/priority-class'] === m.jobs[0].metadata.labels['kueue.x-k8s.io/priority-class'];
      }, 30000);
    }
    // One create at a time, dry run (every admission webhook runs, nothing is stored): the admission
    // chain's own latency, before the machine is busy with the run itself.
    const dryRunMs: number[] = [];
    for (let i = 0; i < DRY_RUNS; i++) {
      const s0 = hr();
      await c.create(JSON.parse(JSON.stringify(m.jobs[i % TENANTS])), true);
      dryRunMs.push(hr() - s0);
    }
    const procs: Array<{ name: string; pid: number }> = (cluster as any).procs.map((p: any) => ({ name: p.name, pid: p.proc.pid }));
    if (controller) procs.push({ name: 'controller', pid: controller.proc.pid! });
    const before = Object.fromEntries(procs.map((p) => [p.name, procStat(p.pid)]));

    // Watches from the current resourceVersion: Workloads and ClusterQueues (Kueue's decisions)
    // and, with the controller, RayJobs (the reconciler's annotation).
    const jobCreated = new Map<string, { at: number; ns: string }>(); // RayJob uid -> created
    const workloadSeen = new Map<string, number>(); // RayJob uid -> its Workload first seen
    const conditioned = new Map<string, { at: number; state: string }>(); // RayJob uid -> Kueue's first condition
    const latest = new Map<string, string>(); // RayJob uid -> latest state
    const cqStatus = new Map<string, { admitted: number; pending: number }>();
    const annotated = new Map<string, number>();
    let creating = true;
    let decidedAt: number | undefined;
    // Kueue decided every Workload: each exists, and each tenant's ClusterQueue accounts for all of
    // its jobs with its quota full (admitted = the gangs that fit, the rest pending). Kueue writes a
    // pending condition only on the Workloads it evaluates: identical ones (same scheduling
    // equivalence hash) are moved to its inadmissible list in bulk, with no status write, so the
    // ClusterQueue's counters are the only place their decision shows.
    const checkDecided = () => {
      if (creating || decidedAt !== undefined) return;
      if (![...jobCreated.keys()].every((u) => workloadSeen.has(u))) return;
      const perNs = new Map<string, number>();
      for (const { ns } of jobCreated.values()) perNs.set(ns, (perNs.get(ns) ?? 0) + 1);
      for (const [ns, n] of perNs) {
        const q = cqStatus.get(ns);
        if (!q || q.admitted !== Math.min(n, QUOTA_JOBS) || q.admitted + q.pending !== n) return;
      }
      decidedAt = hr();
    };
    const wlRv = (await c.get(`${WL_API}?limit=1`)).metadata.resourceVersion;
    watches.push(watch(cluster.kubeconfig, WL_API, wlRv, (wl) => {
      const owner = (wl.metadata.ownerReferences ?? []).find((o: any) => o.kind === 'RayJob')?.uid;
      if (!owner) return;
      if (!workloadSeen.has(owner)) workloadSeen.set(owner, hr());
      const d = decision(wl);
      if (d) {
        latest.set(owner, d);
        if (!conditioned.has(owner)) conditioned.set(owner, { at: hr(), state: d });
      }
      checkDecided();
    }));
    const cqRv = (await c.get('/apis/kueue.x-k8s.io/v1beta2/clusterqueues')).metadata.resourceVersion;
    watches.push(watch(cluster.kubeconfig, '/apis/kueue.x-k8s.io/v1beta2/clusterqueues', cqRv, (q) => {
      cqStatus.set(q.metadata.name, { admitted: q.status?.admittedWorkloads ?? 0, pending: q.status?.pendingWorkloads ?? 0 });
      checkDecided();
    }));
    if (controller) {
      const rjRv = (await c.get('/apis/ray.io/v1/rayjobs?limit=1')).metadata.resourceVersion;
      watches.push(watch(cluster.kubeconfig, '/apis/ray.io/v1/rayjobs', rjRv, (j) => {
        if (j.metadata.annotations?.[STATUS_ANNOTATION] && !annotated.has(j.metadata.uid)) annotated.set(j.metadata.uid, hr());
      }));
    }
    const rssSamples: number[] = [];
    const sampler = controller ? setInterval(() => rssSamples.push(procStat(controller!.proc.pid!).rssMib), 500) : undefined;

    const load = { before: loadavg(), after: '' };
    const createMs: number[] = [];
    const createErrors: string[] = [];
    const t0 = hr();
    let next = 0;
    let lastCreate = t0;
    const creator = async () => {
      for (;;) {
        const i = next++;
        if (i >= JOBS) return;
        const job = JSON.parse(JSON.stringify(m.jobs[i % TENANTS]));
        const s = hr();
        try {
          const created = await c.create(job);
          const e = hr();
          createMs.push(e - s);
          jobCreated.set(created.metadata.uid, { at: e, ns: created.metadata.namespace });
          lastCreate = Math.max(lastCreate, e);
        } catch (err) {
          createErrors.push((err as Error).message);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, creator));
    creating = false;
    checkDecided();
    const createWallS = (lastCreate - t0) / 1000;
    log(`  ${createMs.length} created in ${createWallS.toFixed(1)} s (${createErrors.length} failed); waiting for Kueue to decide every Workload`);
    const deadline = t0 + DEADLINE_S * 1000;
    const sleep = () => new Promise((r) => setTimeout(r, 100));
    while (decidedAt === undefined && hr() < deadline) await sleep();
    // The reconciler is done when every RayJob whose Workload has a Kueue condition carries its annotation.
    const unannotated = () => [...jobCreated.keys()].filter((u) => conditioned.has(u) && !annotated.has(u)).length;
    if (controller) while (unannotated() && hr() < deadline) await sleep();
    const tEnd = hr();
    const after = Object.fromEntries(procs.map((p) => [p.name, procStat(p.pid)]));
    load.after = loadavg();
    if (sampler) clearInterval(sampler);
    const uids = [...jobCreated.keys()];
    const lastOf = (xs: Array<number | undefined>) =>
      (xs.some((x) => x === undefined) || !xs.length ? NaN : (Math.max(...(xs as number[])) - t0) / 1000);
    const admittedUids = uids.filter((u) => latest.get(u) === 'admitted');
    const cqs = [...cqStatus.values()];
    const result: PhaseResult = {
      name, dryRunMs, createMs, createErrors, createWallS,
      decidedS: decidedAt === undefined ? NaN : (decidedAt - t0) / 1000,
      decidedAfterLastCreateS: decidedAt === undefined ? NaN : (decidedAt - lastCreate) / 1000,
      workloadsS: lastOf(uids.map((u) => workloadSeen.get(u))), lastAdmissionS: lastOf(admittedUids.map((u) => conditioned.get(u)?.at)),
      undecided: decidedAt === undefined ? 1 : 0,
      admitted: admittedUids.length, pendingWithCondition: uids.filter((u) => latest.get(u) === 'pending').length,
      cqAdmitted: cqs.reduce((a, q) => a + q.admitted, 0), cqPending: cqs.reduce((a, q) => a + q.pending, 0),
      annotatedS: controller ? lastOf([...annotated.values()]) : undefined,
      annotated: controller ? annotated.size : undefined, unannotated: controller ? unannotated() : undefined,
      windowS: (tEnd - t0) / 1000,
      cpuS: Object.fromEntries(procs.map((p) => [p.name, after[p.name].cpuS - before[p.name].cpuS])),
      controller: controller ? {
        startCpuS: before.controller.cpuS, startRssMib: before.controller.rssMib, cpuS: after.controller.cpuS - before.controller.cpuS,
        peakRssMib: Math.max(before.controller.rssMib, after.controller.rssMib, ...rssSamples), hwmMib: after.controller.hwmMib,
      } : undefined,
      load,
    };
    return result;
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- process logs ---\n${cluster.logTails(20)}`);
  } finally {
    for (const w of watches) w.stop();
    await controller?.stop();
    await cluster.stop();
  }
}

function report(r: PhaseResult): void {
  const cpu = Object.entries(r.cpuS).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
  log(`phase "${r.name}": ${r.createMs.length}/${JOBS} created in ${r.createWallS.toFixed(1)} s (${(r.createMs.length / r.createWallS).toFixed(0)}`
    + `/s), create latency p50 ${pct(r.createMs, 50).toFixed(1)} ms, p99 ${pct(r.createMs, 99).toFixed(1)} ms, max `
    + `${Math.max(...r.createMs).toFixed(1)} ms`);
  log(`  one at a time (dry run, ${r.dryRunMs.length} creates before the run): p50 ${pct(r.dryRunMs, 50).toFixed(1)} ms, p99 `
    + `${pct(r.dryRunMs, 99).toFixed(1)} ms`);
  log(`  Kueue decided every Workload ${r.decidedS.toFixed(1)} s after the first create (${r.decidedAfterLastCreateS.toFixed(1)} s after the last)`
    + `${r.undecided ? ` NOT within ${DEADLINE_S} s` : ''}: every Workload existed at ${r.workloadsS.toFixed(1)} s, last admission at `
    + `${r.lastAdmissionS.toFixed(1)} s; ClusterQueues: ${r.cqAdmitted} admitted, ${r.cqPending} pending (${r.admitted} Workloads with Admitted, `
    + `${r.pendingWithCondition} with a pending condition; Kueue moves the other identical ones aside unevaluated)`);
  if (r.annotated !== undefined) log(`  the reconciler annotated ${r.annotated} RayJobs (every one whose Workload has a Kueue condition`
    + `${r.unannotated ? `, except ${r.unannotated}` : ''}), the last ${r.annotatedS!.toFixed(1)} s after the first create`);
  log(`  CPU seconds over the ${r.windowS.toFixed(1)} s window: ${cpu}`);
  if (r.controller) log(`  controller: ${r.controller.cpuS.toFixed(1)} CPU s (${(r.controller.cpuS / r.windowS).toFixed(2)} cores on average), RSS `
    + `peak ${r.controller.peakRssMib.toFixed(0)} MiB (VmHWM ${r.controller.hwmMib.toFixed(0)} MiB; ${r.controller.startRssMib.toFixed(0)} MiB and `
    + `${r.controller.startCpuS.toFixed(1)} CPU s after start and informer sync)`);
  log(`  load average before/after: ${r.load.before} / ${r.load.after}`);
  if (r.createErrors.length) log(`  create errors (first 3): ${r.createErrors.slice(0, 3).join(' | ')}`);
}

async function main(): Promise<void> {
  if (!fs.existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: npm run bench:scale builds it (npm run build)`);
  const m = manifests();
  log(`bench:scale: ${JOBS} RayJobs over ${TENANTS} tenant namespaces (quota for ${QUOTA_JOBS} gangs of 2.5 CPU each per tenant), ${CONCURRENCY} `
    + `creates in flight; Kueue ${KUEUE} + KubeRay ${KUBERAY}; ${os.cpus().length} CPUs`);
  log(`uptime before: ${execFileSync('uptime').toString().trim()}`);
  const results: Partial<Record<'without' | 'with', PhaseResult>> = {};
  for (const p of PHASES) {
    results[p] = await phase(p, m);
    report(results[p]!);
  }
  log(`uptime after: ${execFileSync('uptime').toString().trim()}`);
  const a = results.without;
  const b = results.with;
  if (!a || !b) return;
  const failed = a.createErrors.length + b.createErrors.length + a.undecided + b.undecided + (b.unannotated ?? 0);
  const p50 = [pct(a.createMs, 50), pct(b.createMs, 50)];
  const p99 = [pct(a.createMs, 99), pct(b.createMs, 99)];
  const d50 = [pct(a.dryRunMs, 50), pct(b.dryRunMs, 50)];
  log(`one create at a time (dry run), our webhooks add ${(d50[1] - d50[0]).toFixed(1)} ms at p50 (${d50[0].toFixed(1)} -> ${d50[1].toFixed(1)} ms)`);
  log(`our webhooks add ${(p50[1] - p50[0]).toFixed(1)} ms at p50 (x${(p50[1] / p50[0]).toFixed(2)}) and ${(p99[1] - p99[0]).toFixed(1)} ms at p99 `
    + `(x${(p99[1] / p99[0]).toFixed(2)}) to create latency, and ${(b.decidedS - a.decidedS).toFixed(1)} s `
    + `(x${(b.decidedS / a.decidedS).toFixed(2)}) to the time until Kueue decided every Workload`);
  log(`bench:scale jobs=${JOBS} tenants=${TENANTS} create_p50_ms=${p50[1].toFixed(1)} base_p50_ms=${p50[0].toFixed(1)} `
    + `create_p99_ms=${p99[1].toFixed(1)} base_p99_ms=${p99[0].toFixed(1)} dry_run_p50_ms=${d50[1].toFixed(1)} `
    + `base_dry_run_p50_ms=${d50[0].toFixed(1)} decided_s=${b.decidedS.toFixed(1)} base_decided_s=${a.decidedS.toFixed(1)} `
    + `ratio_decided=${(b.decidedS / a.decidedS).toFixed(2)} controller_cpu_s=${b.controller!.cpuS.toFixed(1)} `
    + `controller_rss_mib=${b.controller!.peakRssMib.toFixed(0)} failed=${failed}`);
  if (failed) process.exitCode = 1;
}

if (require.main === module) main().catch((e) => { process.stderr.write(`${(e as Error).stack ?? e}\n`); process.exit(1); });
