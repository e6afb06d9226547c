// bench:plan — the plan simulator on 1,000 / 10,000 / 100,000 Ray workloads over 100 ClusterQueues in
// 10 cohorts (borrowing, lending limits, preemption within the queue and reclaim in the cohort on),
// with three priorities and random gang sizes from a fixed seed. Each size runs in its own child
// process, so peak RSS is per size. Targets at 10,000 on the 2-core machine: < 2 s, < 500 MiB.
// Then the timeline: the same 10,000, each with an expected duration and an arrival in the first hour, run
// until everything finished (target < 2 s, < 400 MiB); the same 10,000 with Kueue's fair sharing on (both
// strategies, the v0.19.2 gates; target < 2 s, issue 44); topology-aware scheduling, 1,000 workloads on 1,000 nodes
// (target < 2 s, issue 44; against the same workloads with the flavor a plain one); and Kueue's own scalability configs replayed end to end
// through the CLI (bench/kueue-replay.ts), beside the figures Kueue published.
// The last line is `bench:plan workloads=10000 seconds=<n> peak_rss_mib=<n>`.
import { fork } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { KueueConfig, simulatePlan } from '../src/policy/plan';
import { DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { mulberry32 as rng } from '../test/support/random';
import { reportParsers } from './yaml-parsers';
import { classAverages, KUEUE_SCALE_CONFIGS, KueueScaleConfig, kueueScaleConfigDir, readKueueScaleConfig, replayInput, runPlanCli,
  writeReplayYaml } from './kueue-replay';

// Quota per ClusterQueue (plus up to 60 by queue): about 70 % of 10,000 gangs fit, so queues fill, then preempt.
const CPU_PER_QUEUE = Number(process.env.BENCH_PLAN_CPU ?? 320);
const TIMEOUT_S = Number(process.env.BENCH_PLAN_TIMEOUT ?? 900);
const SIZES = (process.env.BENCH_PLAN_SIZES ?? '1000,100000,10000').split(',').map(Number);
const TIMELINE_SIZE = 10000;
// The pinned Kueue whose scalability configs are replayed (the default version the constructs check against).
const REPLAY_KUEUE = DEFAULT_KUEUE_VERSION;
// BENCH_PLAN_REPLAYS: a comma list of the configs to replay (default both; empty or 0 for none).
const REPLAYS = (process.env.BENCH_PLAN_REPLAYS ?? KUEUE_SCALE_CONFIGS.join(',')).split(',').filter((x) => x && x !== '0').map((x) => {
  if (!(KUEUE_SCALE_CONFIGS as readonly string[]).includes(x)) {
    throw new Error(`BENCH_PLAN_REPLAYS: unknown config ${x} (${KUEUE_SCALE_CONFIGS.join(', ')})`);
  }
  return x as KueueScaleConfig;
});
const REPLAY_TARGET_S: Record<KueueScaleConfig, number> = { 'baseline': 3, 'large-scale': 12, 'tas': 12 };


/** `cpuPerQueue` lower than the bench's makes a small input preempt (the test pinning the decisions uses it). */
export function scenario(n: number, cpuPerQueue = CPU_PER_QUEUE): { kueueObjects: any[]; arrivals: any[] } {
  const r = rng(42);
  const api = 'kueue.x-k8s.io/v1beta2';
  const kueueObjects: any[] = [{ apiVersion: api, kind: 'ResourceFlavor', metadata: { name: 'f' }, spec: {} }];
  for (const [name, value] of [['low', 10], ['mid', 50], ['high', 100]] as const) {
    kueueObjects.push({ apiVersion: api, kind: 'WorkloadPriorityClass', metadata: { name }, value });
  }
  for (let c = 0; c < 100; c++) {
    kueueObjects.push({
      apiVersion: api, kind: 'ClusterQueue', metadata: { name: `cq-${c}` },
      spec: {
        namespaceSelector: {}, cohortName: `cohort-${c % 10}`,
        preemption: { withinClusterQueue: 'LowerPriority', reclaimWithinCohort: c % 2 ? 'Any' : 'LowerPriority' },
        resourceGroups: [{
          coveredResources: ['cpu', 'memory'],
          flavors: [{ name: 'f', resources: [
            { name: 'cpu', nominalQuota: String(cpuPerQueue + (c % 7) * 10), ...(c % 3 === 0 ? { lendingLimit: '50' } : {}),
              ...(c % 5 === 0 ? { borrowingLimit: '100' } : {}) },
            { name: 'memory', nominalQuota: '4Ti' },
          ] }],
        }],
      },
    });
    kueueObjects.push({ apiVersion: api, kind: 'LocalQueue', metadata: { name: `lq-${c}`, namespace: 'team' }, spec: { clusterQueue: `cq-${c}` } });
  }
  const arrivals: any[] = [];
  const prio = ['low', 'mid', 'high'];
  for (let i = 0; i < n; i++) {
    const cpu = String(1 + Math.floor(r() * 4));
    const replicas = Math.floor(r() * 4);
    const c = (x: string) => ({ name: 'ray', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu: x, memory: '2Gi' } } });
    arrivals.push({
      apiVersion: 'ray.io/v1', kind: 'RayCluster',
      metadata: { name: `rc-${i}`, namespace: 'team',
        labels: { 'kueue.x-k8s.io/queue-name': `lq-${Math.floor(r() * 100)}`, 'kueue.x-k8s.io/priority-class': prio[Math.floor(r() * 3)] } },
      spec: {
        headGroupSpec: { template: { spec: { containers: [c('1')] } } },
        workerGroupSpecs: replicas ? [{ groupName: 'w', replicas, template: { spec: { containers: [c(cpu)] } } }] : [],
      },
    });
  }
  return { kueueObjects, arrivals };
}

/**
 * The scenario on the timeline: each workload runs 5 to 60 minutes once admitted and arrives in the first hour, so
 * the plan runs until the last one finished (or is never admissible).
 */
export function timelineScenario(n: number): { kueueObjects: any[]; arrivals: any[] } {
  const input = scenario(n);
  const r = rng(7);
  for (const a of input.arrivals) {
    a.metadata.annotations = { 'cdk8s-kueue-ray.io/expected-duration': `${5 + Math.floor(r() * 56)}m`,
      'cdk8s-kueue-ray.io/plan-arrival': `${Math.floor(r() * 3600)}s` };
  }
  return input;
}

/** Fair sharing on, both strategies, as Kueue v0.19.2 runs with its default gates. */
export const FAIR_SHARING: KueueConfig = {
  fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] },
  gates: { AdmissionFairSharing: 'on', TopologyAwareScheduling: 'on', FairSharingPreemptWithinNominal: 'on',
    FairSharingPrioritizeNonBorrowing: 'on' },
};

const HOSTNAME = 'kubernetes.io/hostname';

/**
 * Topology-aware scheduling: `nodes` nodes of 8 CPUs in blocks of 10 racks of 10 hosts, one TAS flavor over them, 10
 * ClusterQueues whose quotas add up to more than the nodes hold (the nodes decide), and `n` RayClusters of a head and 1-8
 * workers asking for a block, a rack or a host (required or preferred), or nothing in particular. `plain`: the same
 * workloads and queues with the flavor a plain one and no nodes (the baseline).
 */
export function tasScenario(n: number, nodes: number, plain = false): { kueueObjects: any[]; arrivals: any[]; nodes: any[] } {
  const r = rng(11);
  const api = 'kueue.x-k8s.io/v1beta2';
  const levels = ['bench.example.com/block', 'bench.example.com/rack', HOSTNAME];
  const kueueObjects: any[] = [
    { apiVersion: api, kind: 'Topology', metadata: { name: 'dc' }, spec: { levels: levels.map((nodeLabel) => ({ nodeLabel })) } },
    { apiVersion: api, kind: 'ResourceFlavor', metadata: { name: 'f' }, spec: plain ? {} : { topologyName: 'dc', nodeLabels: { pool: 'bench' } } },
  ];
  for (const [name, value] of [['low', 10], ['high', 100]] as const) {
    kueueObjects.push({ apiVersion: api, kind: 'WorkloadPriorityClass', metadata: { name }, value });
  }
  for (let c = 0; c < 10; c++) {
    kueueObjects.push({ apiVersion: api, kind: 'ClusterQueue', metadata: { name: `cq-${c}` }, spec: {
      namespaceSelector: {}, preemption: { withinClusterQueue: 'LowerPriority' },
      resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ name: 'f', resources: [
        { name: 'cpu', nominalQuota: String(Math.ceil(nodes * 8 * 1.5 / 10)) }, { name: 'memory', nominalQuota: '64Ti' }] }] }],
    } });
    kueueObjects.push({ apiVersion: api, kind: 'LocalQueue', metadata: { name: `lq-${c}`, namespace: 'bench' }, spec: { clusterQueue: `cq-${c}` } });
  }
  const nodeObjects = plain ? [] : Array.from({ length: nodes }, (_, i) => ({
    apiVersion: 'v1', kind: 'Node',
    metadata: { name: `node-${i}`, labels: { pool: 'bench', [levels[0]]: `b${Math.floor(i / 100)}`, [levels[1]]: `r${Math.floor(i / 10)}`,
      [HOSTNAME]: `node-${i}` } },
    status: { allocatable: { cpu: '8', memory: '64Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
  }));
  const asks: Array<Record<string, string> | undefined> = [
    { 'kueue.x-k8s.io/podset-required-topology': levels[1] }, { 'kueue.x-k8s.io/podset-required-topology': levels[0] },
    { 'kueue.x-k8s.io/podset-required-topology': HOSTNAME }, { 'kueue.x-k8s.io/podset-preferred-topology': levels[1] },
    { 'kueue.x-k8s.io/podset-unconstrained-topology': 'true' },
  ];
  const arrivals: any[] = [];
  for (let i = 0; i < n; i++) {
    const ann = plain ? undefined : asks[Math.floor(r() * asks.length)];
    const template = (cpu: string) => ({ ...(ann ? { metadata: { annotations: ann } } : {}),
      spec: { containers: [{ name: 'ray', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu, memory: '4Gi' } } }] } });
    arrivals.push({ apiVersion: 'ray.io/v1', kind: 'RayCluster',
      metadata: { name: `rc-${i}`, namespace: 'bench', labels: { 'kueue.x-k8s.io/queue-name': `lq-${i % 10}`,
        'kueue.x-k8s.io/priority-class': r() < 0.2 ? 'high' : 'low' } },
      spec: { headGroupSpec: { rayStartParams: {}, template: template('1') },
        workerGroupSpecs: [{ groupName: 'workers', replicas: 1 + Math.floor(r() * 8), minReplicas: 0, maxReplicas: 8, rayStartParams: {},
          template: template(String(1 + Math.floor(r() * 4))) }] } });
  }
  return { kueueObjects, arrivals, nodes: nodeObjects };
}

const TAS_SIZE = 1000;
const TAS_NODES = 1000;

type Variant = 'sizes' | 'timeline' | 'fair-sharing' | 'tas' | 'tas-baseline';

function child(n: number, variant: Variant): void {
  const input = variant === 'timeline' ? timelineScenario(n) : variant === 'tas' || variant === 'tas-baseline'
    ? tasScenario(n, TAS_NODES, variant === 'tas-baseline') : scenario(n);
  // What the process holds before the plan runs (ts-node, the modules and the input), printed beside the peak.
  const loadedRssMib = process.memoryUsage().rss / 1024 / 1024;
  const t0 = process.hrtime.bigint();
  const plan = simulatePlan({ ...input, kueueVersion: DEFAULT_KUEUE_VERSION, trace: false,
    ...(variant === 'fair-sharing' ? { kueueConfig: FAIR_SHARING } : {}) });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const count = (o: string) => plan.workloads.filter((w) => w.outcome === o).length;
  process.send!({
    n, seconds, peakRssMib: process.resourceUsage().maxRSS / 1024, loadedRssMib,
    admitted: count('admitted'), preempting: count('admitted-by-preempting'), pending: count('pending') + count('never-admissible'),
    preempted: plan.workloads.filter((w) => w.preemptedBy?.length).length,
    finished: plan.workloads.filter((w) => w.finishedAt !== null).length, ended: `${plan.timeline.ended} at ${plan.timeline.at} s`,
    placed: plan.workloads.filter((w) => w.admission?.some((a) => a.topology)).length,
  });
}

/** A child's peak RSS, with what it held before the plan ran. */
function rss(r: { peakRssMib: number; loadedRssMib: number }): string {
  return `peak RSS ${r.peakRssMib.toFixed(0)} MiB (${r.loadedRssMib.toFixed(0)} before the plan ran)`;
}

/** One size in a child process of its own (peak RSS per size); `timedOut` past BENCH_PLAN_TIMEOUT seconds. */
function runChild(n: number, variant: Variant): Promise<any> {
  return new Promise<any>((resolve, reject) => {
    const p = fork(__filename, ['--child', String(n), variant], { execArgv: process.execArgv });
    // A size that runs past BENCH_PLAN_TIMEOUT seconds is reported as such, not waited for.
    const timer = setTimeout(() => { p.kill('SIGKILL'); resolve({ n, timedOut: true }); }, TIMEOUT_S * 1000);
    p.once('message', (m) => { clearTimeout(timer); resolve(m); });
    p.once('exit', (code) => { if (code) { clearTimeout(timer); reject(new Error(`bench child for ${n} workloads exited with ${code}`)); } });
  });
}

async function sizes(): Promise<void> {
  const results: any[] = [];
  for (const n of SIZES) {
    const r = await runChild(n, 'sizes');
    if (r.timedOut) {
      process.stdout.write(`workloads=${n}: did not finish within ${TIMEOUT_S} s (BENCH_PLAN_TIMEOUT)\n`);
      continue;
    }
    results.push(r);
    process.stdout.write(`workloads=${r.n}: ${r.seconds.toFixed(2)} s, ${rss(r)}; ${r.admitted} `
      + `admitted, ${r.preempting} admitted by preempting, `
      + `${r.pending} pending, ${r.preempted} ever preempted\n`);
  }
  // The baseline, measured in this run: the smallest size. Linear growth keeps the time per workload.
  const base = [...results].sort((a, b) => a.n - b.n)[0];
  for (const r of results) {
    if (r === base) continue;
    process.stdout.write(`growth ${base.n} -> ${r.n} workloads (x${r.n / base.n}): time x${(r.seconds / base.seconds).toFixed(1)}, `
      + `time per workload x${((r.seconds / r.n) / (base.seconds / base.n)).toFixed(1)}; target at 10,000: < 1 s, < 500 MiB\n`);
  }
  const ten = results.find((r) => r.n === 10000);
  if (ten) process.stdout.write(`bench:plan workloads=10000 seconds=${ten.seconds.toFixed(2)} peak_rss_mib=${ten.peakRssMib.toFixed(0)}\n`);
  else process.stdout.write('bench:plan workloads=10000 seconds=timeout peak_rss_mib=unknown\n');
  // The timeline: the same 10,000 with durations and arrivals, until everything finished; against the run without.
  const t = await runChild(TIMELINE_SIZE, 'timeline');
  if (t.timedOut) {
    process.stdout.write(`timeline workloads=${TIMELINE_SIZE}: did not finish within ${TIMEOUT_S} s\n`);
    return;
  }
  const same = results.find((r) => r.n === TIMELINE_SIZE);
  process.stdout.write(`timeline workloads=${t.n}: ${t.seconds.toFixed(2)} s, ${rss(t)}; ${t.finished} finished, `
    + `${t.pending} never started, timeline ${t.ended}${same ? `; x${(t.seconds / same.seconds).toFixed(2)} the run without durations` : ''}`
    + '; target < 2 s, < 400 MiB\n');
  // Fair sharing: the same 10,000, ordered and preempted by dominant resource share; against the classical run.
  const f = await runChild(TIMELINE_SIZE, 'fair-sharing');
  if (f.timedOut) {
    process.stdout.write(`fair sharing workloads=${TIMELINE_SIZE}: did not finish within ${TIMEOUT_S} s\n`);
    return;
  }
  process.stdout.write(`fair sharing workloads=${f.n}: ${f.seconds.toFixed(2)} s, ${rss(f)}; ${f.admitted} admitted, `
    + `${f.preempting} admitted by preempting, ${f.pending} pending${same ? `; x${(f.seconds / same.seconds).toFixed(2)} the classical run` : ''}`
    + '; target < 2 s\n');
}

/** Topology-aware scheduling: 1,000 workloads on 1,000 nodes, against the same workloads planned without topology. */
async function tas(): Promise<void> {
  const base = await runChild(TAS_SIZE, 'tas-baseline');
  const t = await runChild(TAS_SIZE, 'tas');
  if (t.timedOut || base.timedOut) {
    process.stdout.write(`tas workloads=${TAS_SIZE} nodes=${TAS_NODES}: did not finish within ${TIMEOUT_S} s\n`);
    return;
  }
  process.stdout.write(`tas workloads=${t.n} nodes=${TAS_NODES}: ${t.seconds.toFixed(2)} s, ${rss(t)}; `
    + `${t.placed} placed `
    + `on nodes (${t.preempting} by preempting), ${t.pending} pending; x${(t.seconds / base.seconds).toFixed(2)} the same workloads without `
    + `topology (${base.seconds.toFixed(2)} s, ${base.admitted + base.preempting} admitted); target < 2 s\n`);
}

/** Kueue's scalability configs, end to end through the CLI's bundle, beside Kueue's published figures. */
function replays(): void {
  const bundle = path.join(__dirname, '..', 'lib', 'controller', 'cdk8s-kueue-ray.js');
  if (!fs.existsSync(bundle)) {
    if (process.env.CI) throw new Error(`the Kueue replays need the CLI's bundle (${bundle}): run npm run bundle first`);
    process.stdout.write(`Kueue replays skipped: no CLI bundle at ${bundle} (npm run bundle)\n`);
    return;
  }
  const dir = kueueScaleConfigDir(REPLAY_KUEUE);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-plan-replay-'));
  try {
    for (const name of REPLAYS) {
      const { generator, published } = readKueueScaleConfig(dir, name);
      const input = replayInput(generator);
      const files = writeReplayYaml(path.join(work, name), input);
      const run = runPlanCli(bundle, files, path.join(work, `${name}.json`));
      const avg = classAverages(run.plan.workloads, input.classOf);
      const planned = Object.values(avg).reduce((n, a) => n + a.count, 0);
      if (planned !== input.arrivals.length) throw new Error(`replay ${name}: the plan has ${planned} of the ${input.arrivals.length} workloads`);
      const wall = published.meanWallMs ?? (published.maxWallMs !== undefined ? published.maxWallMs / 1.2 : undefined);
      process.stdout.write(`replay ${name} (Kueue ${REPLAY_KUEUE} test/performance/scheduler): ${input.arrivals.length} workloads, `
        + `${input.kueueObjects.filter((o) => o.kind === 'ClusterQueue').length} ClusterQueues; plan CLI ${run.seconds.toFixed(2)} s, `
        + `peak RSS ${run.peakRssMib.toFixed(0)} MiB (target ${REPLAY_TARGET_S[name]} s); timeline ${run.plan.timeline.ended} at `
        + `${run.plan.timeline.at.toFixed(1)} s of simulated time${wall !== undefined ? `; Kueue's run: ${(wall / 1000).toFixed(0)} s wall` : ''}\n`);
      for (const [cls, kueueMs] of Object.entries(published.avgTimeToAdmissionMs)) {
        const ours = avg[cls];
        const plan = ours ? (ours.avgMs / 1000).toFixed(1) : '-';
        process.stdout.write(`  class ${cls}: ${ours?.count ?? 0} workloads, average time to admission: plan ${plan} s, `
          + `Kueue ${(kueueMs / 1000).toFixed(1)} s${ours?.neverAdmitted ? ` (${ours.neverAdmitted} never admitted in the plan)` : ''}\n`);
      }
      if (name === REPLAYS[0]) {
        reportParsers(fs.readFileSync(files[1], 'utf8'), `the ${name} replay's workloads`,
          process.env.CDK8S_KUEUE_RAY_CACHE ?? path.join(os.homedir(), '.cache', 'cdk8s-kueue-ray'));
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write('  What differs: Kueue admits at most one workload per ClusterQueue per scheduling cycle and its cycles, API '
    + 'writes and the runner\'s finish marks take real time; the plan\'s cycles are instantaneous, so its times to admission are '
    + 'the queueing delay alone (the part quota and ordering decide).\n');
}

async function main(): Promise<void> {
  process.stdout.write(`node ${process.version}\n`);
  await sizes();
  await tas();
  if (REPLAYS.length) replays();
}

if (require.main !== module) {
  // imported (profiling): nothing runs
} else if (process.argv[2] === '--child') child(Number(process.argv[3]), process.argv[4] as Variant);
else main().catch((e) => { process.stderr.write(`${(e as Error).message}\n`); process.exit(1); });
