// Kueue's own scheduler scalability test (test/performance/scheduler in Kueue's repository), replayed through `plan`'s
// timeline. The configs are read from the pinned Kueue module in Go's module cache (the test control plane's build
// downloads it), never copied: generator.yaml gives the cohorts, ClusterQueues and workload sets, rangespec.yaml the
// published figures (its comments hold the measured averages, its `cmd.maxWallMs` the wall-time bound).
//
// The translation follows Kueue's generator (runner/generator/generator.go) and runner (runner/controller):
// - a ClusterQueue per queue, named `<class>-<set>-<i>-<cohort>`, one flavor `rf` covering cpu with the set's
//   nominalQuota and borrowingLimit, and its preemption policies; a LocalQueue of the same name in a namespace of
//   the same name;
// - each workload set of a queue creates its workloads one creationIntervalMs after the other, all sets and queues
//   at once: the k-th workload of a set (k from 1) arrives at k × creationIntervalMs;
// - a workload is one pod requesting `request` CPU at priority `priority`: here a RayJob in HTTPMode (no
//   submitter pod) whose head requests it, with a WorkloadPriorityClass per priority value;
// - the runner marks a workload Finished runtimeMs after its admission: the expected-duration annotation;
// - Kueue's figure is the average, per workload class, of the time from creation to (last) admission;
// - the `tas` config (topology_generator.go): its Topology, a Node per leaf of the level counts (named as Kueue names
//   them, node-b0-r2-n15, Ready, with the node level's capacity and 110 pods), the flavor with its topologyName and node
//   label; a workload is one PodSet of podCount pods of `request` asking for its level (required, preferred, or
//   "balanced": a slice request with sliceSize). Here the PodSet is the RayJob's worker group, with a head of 1m CPU
//   (placed unconstrained in the TAS-only ClusterQueue: one pod more per workload; a PodSet that requests nothing the
//   queue covers gets no flavor, and Kueue refuses it TAS: "no TAS flavor assigned").
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse, stringify } from 'yaml';

export const KUEUE_SCALE_CONFIGS = ['baseline', 'large-scale', 'tas'] as const;
export type KueueScaleConfig = typeof KUEUE_SCALE_CONFIGS[number];

interface WorkloadTemplate {
  className: string; runtimeMs: number; priority: number; request: string | number;
  podCount?: number; tasConstraint?: 'required' | 'preferred' | 'balanced'; tasLevel?: string; sliceSize?: number;
}
interface TopologyLevel { name: string; count: number; nodeLabel: string; capacity?: { cpu?: string; memory?: string } }
interface WorkloadsSet { count: number; creationIntervalMs: number; workloads: WorkloadTemplate[] }
interface QueuesSet {
  className: string; count: number; nominalQuota: string | number; borrowingLimit?: string | number;
  reclaimWithinCohort?: string; withinClusterQueue?: string; workloadsSets: WorkloadsSet[];
}
interface CohortSet { className: string; count: number; queuesSets: QueuesSet[] }
export interface GeneratorConfig {
  cohorts: CohortSet[];
  topology?: { name: string; levels: TopologyLevel[] };
  resourceFlavor?: { name: string; nodeLabel?: string; topologyName?: string };
}

/** What Kueue published for a config: per class, the average time to admission (ms); the wall-time bound. */
export interface PublishedFigures {
  readonly avgTimeToAdmissionMs: Record<string, number>;
  readonly maxWallMs?: number;
  /** The measured mean wall time, where the rangespec's comment states it. */
  readonly meanWallMs?: number;
}

export interface ReplayInput {
  readonly kueueObjects: any[];
  readonly arrivals: any[];
  /** Workload id ("RayJob namespace/name") → its class. */
  readonly classOf: Map<string, string>;
}

/** The folder of Kueue's scalability configs in the Go module cache, downloading the module if it is missing. */
export function kueueScaleConfigDir(kueueVersion: string): string {
  const modCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const dir = path.join(modCache, 'sigs.k8s.io', `kueue@${kueueVersion}`, 'test', 'performance', 'scheduler', 'configs');
  if (!fs.existsSync(dir)) {
    // A module-mode download outside any module: the proxy's copy, checked against the checksum database.
    execFileSync('go', ['mod', 'download', `sigs.k8s.io/kueue@${kueueVersion}`], { stdio: 'inherit', env: { ...process.env, GOFLAGS: '-mod=mod' } });
  }
  if (!fs.existsSync(dir)) throw new Error(`Kueue ${kueueVersion}'s scalability configs are not at ${dir}`);
  return dir;
}

/** Reads one config's generator and its published figures. */
export function readKueueScaleConfig(dir: string, name: KueueScaleConfig): { generator: GeneratorConfig; published: PublishedFigures } {
  const generator = parse(fs.readFileSync(path.join(dir, name, 'generator.yaml'), 'utf8')) as GeneratorConfig;
  return { generator, published: publishedFigures(fs.readFileSync(path.join(dir, name, 'rangespec.yaml'), 'utf8')) };
}

/**
 * The averages the rangespec's comments state, per class under wlClassesMaxAvgTimeToAdmissionMs: "Average value
 * 16501 (+/- 13%)" on a line above the class, or "# mean=105604ms" or "# 37862 / 1573 / 4.15%" (mean / stddev / CV)
 * after it. The bound itself is +20-40 % above.
 */
export function publishedFigures(rangespec: string): PublishedFigures {
  const lines = rangespec.split('\n');
  const avgTimeToAdmissionMs: Record<string, number> = {};
  let inClasses = false;
  let lastAverage: number | undefined;
  let maxWallMs: number | undefined;
  let meanWallMs: number | undefined;
  const num = (s: string) => Number(s.replace(/_/g, ''));
  for (const line of lines) {
    if (/^\S/.test(line)) inClasses = line.startsWith('wlClassesMaxAvgTimeToAdmissionMs:');
    const average = /Average value ([\d.]+)/.exec(line);
    if (average) lastAverage = num(average[1]);
    const wall = /^\s+maxWallMs:\s*([\d_]+)\s*(?:#\s*([\d.]+)\s*\/)?/.exec(line);
    if (wall) {
      maxWallMs = num(wall[1]);
      meanWallMs = wall[2] !== undefined ? num(wall[2]) : lastAverage;
      lastAverage = undefined;
    }
    const cls = /^\s+([a-z][\w-]*):\s*([\d_]+)\s*(?:#\s*(?:mean=([\d.]+)ms|([\d.]+)\s*\/))?/.exec(line);
    if (inClasses && cls) {
      const mean = cls[3] !== undefined ? num(cls[3]) : cls[4] !== undefined ? num(cls[4]) : lastAverage;
      if (mean === undefined) throw new Error(`rangespec: no measured average for class ${cls[1]}`);
      avgTimeToAdmissionMs[cls[1]] = mean;
      lastAverage = undefined;
    }
  }
  if (!Object.keys(avgTimeToAdmissionMs).length) throw new Error('rangespec: no wlClassesMaxAvgTimeToAdmissionMs figures');
  return { avgTimeToAdmissionMs, maxWallMs, meanWallMs };
}

const API = 'kueue.x-k8s.io/v1beta2';

/** Kueue's generator's objects as plan input: queues, priority classes, and a RayJob per workload. */
export function replayInput(config: GeneratorConfig): ReplayInput {
  const rf = config.resourceFlavor;
  const flavor = rf?.name ?? 'rf';
  const kueueObjects: any[] = [{ apiVersion: API, kind: 'ResourceFlavor', metadata: { name: flavor },
    spec: rf?.topologyName ? { topologyName: rf.topologyName, nodeLabels: { [rf.nodeLabel!]: 'tas' } } : {} }];
  if (config.topology) {
    kueueObjects.push({ apiVersion: API, kind: 'Topology', metadata: { name: config.topology.name },
      spec: { levels: config.topology.levels.map((l) => ({ nodeLabel: l.nodeLabel })) } }, ...topologyNodes(config.topology.levels, rf?.nodeLabel));
  }
  const arrivals: Array<{ at: number; seq: number; obj: any }> = [];
  const classOf = new Map<string, string>();
  const priorities = new Set<number>();
  for (const cs of config.cohorts) {
    for (let c = 0; c < cs.count; c++) {
      const cohort = `${cs.className}-${c}`;
      cs.queuesSets.forEach((qs, qsIdx) => {
        for (let q = 0; q < qs.count; q++) {
          const name = `${qs.className}-${qsIdx}-${q}-${cohort}`;
          kueueObjects.push(clusterQueue(name, cohort, qs, flavor), { apiVersion: API, kind: 'LocalQueue', metadata: { name, namespace: name },
            spec: { clusterQueue: name } });
          qs.workloadsSets.forEach((ws, wsIdx) => {
            for (let si = 0; si < ws.count; si++) {
              ws.workloads.forEach((wt, i) => {
                // The generator waits creationIntervalMs before each workload of the set.
                const atMs = (si * ws.workloads.length + i + 1) * ws.creationIntervalMs;
                const job = rayJob(`${wt.className}-${wsIdx}-${si}-${i}`, name, wt, atMs);
                priorities.add(wt.priority);
                classOf.set(`RayJob ${name}/${job.metadata.name}`, wt.className);
                arrivals.push({ at: atMs, seq: arrivals.length, obj: job });
              });
            }
          });
        }
      });
    }
  }
  for (const p of [...priorities].sort((a, b) => a - b)) {
    kueueObjects.push({ apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: `priority-${p}` }, value: p });
  }
  // In arrival order (ties in generation order), as the plan's input lists them.
  arrivals.sort((a, b) => a.at - b.at || a.seq - b.seq);
  return { kueueObjects, arrivals: arrivals.map((a) => a.obj), classOf };
}

/** generateNodesRecursive: a Node per leaf, labelled with each level's `name-i`, named node-b0-r2-n15. */
function topologyNodes(levels: readonly TopologyLevel[], groupLabel = 'tas-node-group'): any[] {
  const leaf = levels[levels.length - 1];
  const cpu = leaf.capacity?.cpu ?? '96', memory = leaf.capacity?.memory ?? '256Gi';
  const out: any[] = [];
  const walk = (i: number, values: string[]) => {
    if (i === levels.length) {
      const name = `node${values.map((v) => `-${v[0]}${v.split('-')[1]}`).join('')}`;
      const labels: Record<string, string> = { [groupLabel]: 'tas' };
      values.forEach((v, k) => { labels[levels[k].nodeLabel] = v; });
      // The hostname level's value is the node's own name, as on a real node.
      for (const l of levels) if (l.nodeLabel === 'kubernetes.io/hostname') labels[l.nodeLabel] = name;
      out.push({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels },
        status: { allocatable: { cpu, memory, pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] } });
      return;
    }
    for (let k = 0; k < levels[i].count; k++) walk(i + 1, [...values, `${levels[i].name}-${k}`]);
  };
  walk(0, []);
  return out;
}

function clusterQueue(name: string, cohort: string, qs: QueuesSet, flavor: string): any {
  return {
    apiVersion: API, kind: 'ClusterQueue', metadata: { name },
    spec: {
      namespaceSelector: {}, cohortName: cohort,
      preemption: { reclaimWithinCohort: qs.reclaimWithinCohort ?? 'Never', withinClusterQueue: qs.withinClusterQueue ?? 'Never' },
      resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: flavor, resources: [{
        name: 'cpu', nominalQuota: String(qs.nominalQuota), ...(qs.borrowingLimit !== undefined ? { borrowingLimit: String(qs.borrowingLimit) } : {}),
      }] }] }],
    },
  };
}

/** The RayJob of one generated workload (HTTPMode: no submitter pod), its queue, priority, runtime and arrival. */
function rayJob(name: string, namespace: string, wt: WorkloadTemplate, atMs: number): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: {
      name, namespace,
      labels: { 'kueue.x-k8s.io/queue-name': namespace, 'kueue.x-k8s.io/priority-class': `priority-${wt.priority}` },
      annotations: { 'cdk8s-kueue-ray.io/expected-duration': `${wt.runtimeMs}ms`, 'cdk8s-kueue-ray.io/plan-arrival': `${atMs}ms` },
    },
    spec: {
      submissionMode: 'HTTPMode', entrypoint: 'python -c pass', shutdownAfterJobFinishes: true,
      rayClusterSpec: wt.tasLevel ? tasClusterSpec(wt) : { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{
        name: 'ray-head', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu: String(wt.request) }, limits: { cpu: String(wt.request) } },
      }] } } } },
    },
  };
}

/** A TAS workload's cluster: its one PodSet is the worker group asking for its level; the head requests 1m CPU. */
function tasClusterSpec(wt: WorkloadTemplate): any {
  const level = wt.tasLevel!;
  const ann: Record<string, string> = wt.tasConstraint === 'required' ? { 'kueue.x-k8s.io/podset-required-topology': level }
    : wt.tasConstraint === 'preferred' ? { 'kueue.x-k8s.io/podset-preferred-topology': level }
      : { 'kueue.x-k8s.io/podset-slice-required-topology': level, 'kueue.x-k8s.io/podset-slice-size': String(wt.sliceSize ?? 1) };
  const c = (cpu: string) => ({ name: 'ray', image: 'rayproject/ray:2.46.0', resources: { requests: { cpu }, limits: { cpu } } });
  return {
    headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [c('1m')] } } },
    workerGroupSpecs: [{ groupName: 'main', replicas: wt.podCount ?? 1, minReplicas: 0, maxReplicas: wt.podCount ?? 1, rayStartParams: {},
      template: { metadata: { annotations: ann }, spec: { containers: [c(String(wt.request))] } } }],
  };
}

/** Writes the input as two YAML files (queues, then workloads in arrival order), as a user's dist/ would hold them. */
export function writeReplayYaml(dir: string, input: ReplayInput): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files = [path.join(dir, '0000-queues.yaml'), path.join(dir, '0001-workloads.yaml')];
  fs.writeFileSync(files[0], input.kueueObjects.map((o) => stringify(o)).join('---\n'));
  fs.writeFileSync(files[1], input.arrivals.map((o) => stringify(o)).join('---\n'));
  return files;
}

/** Per class: the count, the plan's average time from arrival to (last) admission in ms, and how many never started. */
export function classAverages(workloads: ReadonlyArray<{ workload: string; arrivesAt: number; admittedAt: number | null }>,
  classOf: Map<string, string>): Record<string, { count: number; avgMs: number; neverAdmitted: number }> {
  const acc: Record<string, { count: number; sumMs: number; admitted: number; neverAdmitted: number }> = {};
  for (const w of workloads) {
    const cls = classOf.get(w.workload);
    if (!cls) continue;
    const a = (acc[cls] ??= { count: 0, sumMs: 0, admitted: 0, neverAdmitted: 0 });
    a.count++;
    if (w.admittedAt === null) a.neverAdmitted++;
    else {
      a.admitted++;
      a.sumMs += (w.admittedAt - w.arrivesAt) * 1000;
    }
  }
  return Object.fromEntries(Object.entries(acc).map(([k, a]) => [k, { count: a.count, avgMs: a.admitted ? a.sumMs / a.admitted : NaN,
    neverAdmitted: a.neverAdmitted }]));
}

/**
 * `cdk8s-kueue-ray plan FILES -o json` through the CLI's bundle, end to end (read, parse, simulate, write): its wall
 * seconds, its peak RSS (the process reports its own on exit) and the plan it printed.
 */
export function runPlanCli(bundle: string, files: string[], outFile: string): { seconds: number; peakRssMib: number; plan: any } {
  const wrapper = 'process.on("exit", () => process.stderr.write(`\\nBENCH_MAX_RSS_KIB=${process.resourceUsage().maxRSS}\\n`));'
    + 'require(process.argv[1]).runCli(process.argv.slice(2));';
  const out = fs.openSync(outFile, 'w');
  const t0 = process.hrtime.bigint();
  let stderr: string;
  try {
    const r = spawnSync(process.execPath, ['-e', wrapper, bundle, 'plan', ...files, '-o', 'json'],
      { stdio: ['ignore', out, 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    stderr = r.stderr ?? '';
    // plan exits 0 here (no --fail-on); anything else is the CLI failing.
    if (r.status !== 0) throw new Error(`plan CLI exited ${r.status ?? r.signal}: ${stderr.slice(-400)}`);
  } finally {
    fs.closeSync(out);
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const rss = /BENCH_MAX_RSS_KIB=(\d+)/.exec(stderr);
  if (!rss) throw new Error(`plan CLI printed no peak RSS: ${stderr.slice(-400)}`);
  return { seconds, peakRssMib: Number(rss[1]) / 1024, plan: JSON.parse(fs.readFileSync(outFile, 'utf8')) };
}
