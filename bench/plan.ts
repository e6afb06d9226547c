// bench:plan — the plan simulator on 1,000 / 10,000 / 100,000 Ray workloads over 100 ClusterQueues in
// 10 cohorts (borrowing, lending limits, preemption within the queue and reclaim in the cohort on),
// with three priorities and random gang sizes from a fixed seed. Each size runs in its own child
// process, so peak RSS is per size. Targets at 10,000 on the 2-core machine: < 2 s, < 500 MiB.
// The last line is `bench:plan workloads=10000 seconds=<n> peak_rss_mib=<n>`.
import { fork } from 'child_process';
import { simulatePlan } from '../src/policy/plan';
import { DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { mulberry32 as rng } from '../test/support/random';

// Quota per ClusterQueue (plus up to 60 by queue): about 70 % of 10,000 gangs fit, so queues fill, then preempt.
const CPU_PER_QUEUE = Number(process.env.BENCH_PLAN_CPU ?? 320);
const TIMEOUT_S = Number(process.env.BENCH_PLAN_TIMEOUT ?? 900);
const SIZES = (process.env.BENCH_PLAN_SIZES ?? '1000,100000,10000').split(',').map(Number);


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

function child(n: number): void {
  const input = scenario(n);
  const t0 = process.hrtime.bigint();
  const plan = simulatePlan({ ...input, kueueVersion: DEFAULT_KUEUE_VERSION, trace: false });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const count = (o: string) => plan.workloads.filter((w) => w.outcome === o).length;
  process.send!({
    n, seconds, peakRssMib: process.resourceUsage().maxRSS / 1024,
    admitted: count('admitted'), preempting: count('admitted-by-preempting'), pending: count('pending') + count('never-admissible'),
    preempted: plan.workloads.filter((w) => w.preemptedBy?.length).length,
  });
}

async function main(): Promise<void> {
  const results: any[] = [];
  for (const n of SIZES) {
    const r = await new Promise<any>((resolve, reject) => {
      const p = fork(__filename, ['--child', String(n)], { execArgv: process.execArgv });
      // A size that runs past BENCH_PLAN_TIMEOUT seconds is reported as such, not waited for.
      const timer = setTimeout(() => { p.kill('SIGKILL'); resolve({ n, timedOut: true }); }, TIMEOUT_S * 1000);
      p.once('message', (m) => { clearTimeout(timer); resolve(m); });
      p.once('exit', (code) => { if (code) { clearTimeout(timer); reject(new Error(`bench child for ${n} workloads exited with ${code}`)); } });
    });
    if (r.timedOut) {
      process.stdout.write(`workloads=${n}: did not finish within ${TIMEOUT_S} s (BENCH_PLAN_TIMEOUT)\n`);
      continue;
    }
    results.push(r);
    process.stdout.write(`workloads=${r.n}: ${r.seconds.toFixed(2)} s, peak RSS ${r.peakRssMib.toFixed(0)} MiB; ${r.admitted} `
      + `admitted, ${r.preempting} admitted by preempting, `
      + `${r.pending} pending, ${r.preempted} ever preempted\n`);
  }
  // The baseline, measured in this run: the smallest size. Linear growth keeps the time per workload.
  const base = [...results].sort((a, b) => a.n - b.n)[0];
  for (const r of results) {
    if (r === base) continue;
    process.stdout.write(`growth ${base.n} -> ${r.n} workloads (x${r.n / base.n}): time x${(r.seconds / base.seconds).toFixed(1)}, `
      + `time per workload x${((r.seconds / r.n) / (base.seconds / base.n)).toFixed(1)}; target at 10,000: < 2 s, < 500 MiB\n`);
  }
  const ten = results.find((r) => r.n === 10000);
  if (ten) process.stdout.write(`bench:plan workloads=10000 seconds=${ten.seconds.toFixed(2)} peak_rss_mib=${ten.peakRssMib.toFixed(0)}\n`);
  else process.stdout.write('bench:plan workloads=10000 seconds=timeout peak_rss_mib=unknown\n');
}

if (require.main !== module) {
  // imported (profiling): nothing runs
} else if (process.argv[2] === '--child') child(Number(process.argv[3]));
else main().catch((e) => { process.stderr.write(`${(e as Error).message}\n`); process.exit(1); });
