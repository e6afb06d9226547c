/**
 * `cdk8s-kueue-ray plan [dist/ or files…] [-f FILE|DIR|-]… [--arrivals FILE] [--nodes FILE] [--kueue-version V] [--kuberay-version V]
 * [-o text|json|html] [-n NS] [--trace] [--kubeconfig FILE]`: what Kueue will admit, keep pending or preempt, and why, before apply.
 *
 * Reads every YAML document of the given paths in the order given (a folder: its *.yaml/*.yml/*.json
 * files in name order, sub-folders included), keeps the Kueue objects and the Ray objects, and plans the
 * Ray objects in that order (or in the order of --arrivals FILE, a YAML file of Ray objects), moved by
 * their cdk8s-kueue-ray.io/plan-arrival annotation when they carry one (arrivals.ts). The simulation is
 * the pure src/policy/plan.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, evaluateRayObject, isRecord, kubeRayCapabilities, kueueCapabilities, normalizeVersion, RAY_KINDS,
  RayObject,
} from '../policy';
import { parseGoDuration } from '../policy/go-duration';
import { asWritten, isList } from '../policy/json';
import {
  DEFAULT_HORIZON_SECONDS, KueueConfig, kueueConfigNote, kueueConfigOf, PlanAdmission, PlanOutcome, PlanResult, simulatePlan,
} from '../policy/plan';
import { planToHtml, planToText } from './plan-output';
import { InstallFacts, installFacts, modelledFlagVersion, pickVersion, settleVersionConflicts, versionSourceNotes } from './install-facts';
import { FlagSpec, parseFlags, usageErrorText } from './args';
import { debugRequested, errorText } from './errors';
import { arrivalOrder } from './arrivals';
import { readKubernetesYaml } from './kubernetes-yaml';
import { MissingFileError, UsageError } from './yaml-source';
import { liveDurations, QueueRunTime } from './plan-live-durations';
import { fieldAt, shownAt } from './json-fields';

export const PLAN_USAGE = 'usage: cdk8s-kueue-ray plan [dist/ or YAML files…] [-f FILE|DIR|-]… [--arrivals FILE] [--nodes FILE] '
  + `[--kueue-version ${DEFAULT_KUEUE_VERSION}] [--kuberay-version ${DEFAULT_KUBERAY_VERSION}]
       [-o|--output text|json|html] [-n|--namespace NS] [--trace] [--kubeconfig FILE] [--horizon 168h]
       [--fail-on pending,never-admissible,preempting] [--verbose]

What Kueue will admit, keep pending or preempt, and why, before apply: the Kueue objects and Ray objects of
the files (default dist/), on top of the live cluster with --kubeconfig.
Arrival order: the paths in the order given (positional and -f alike; "-" is standard input), each
file's documents in order, a folder's files in name order (a note says so); then, stably, by the
annotation cdk8s-kueue-ray.io/plan-arrival (a duration after the plan's start such as 90s, 10m or
1h30m; without it, 0). --arrivals FILE gives the Ray objects in its own order instead.
Timeline: an object with cdk8s-kueue-ray.io/expected-duration (or a construct's expectedDuration)
finishes that long after its admission and gives its quota back; the plan says when each workload
starts and what it waits for, and runs until nothing more happens or --horizon (default 168h).
Topology-aware scheduling: the pods of a TAS flavor are placed on the Node objects of the files, of
--nodes FILE (kubectl get nodes -o yaml; it wins) or of the cluster (--kubeconfig, with its bound pods).
--trace adds every scheduling cycle (to the JSON too, which leaves it out otherwise).
An error prints once, without a stack trace; --verbose or CDK8S_KUEUE_RAY_DEBUG=1 adds it.
-n/--namespace: the namespace of Ray objects and LocalQueues that name none (as kubectl apply -n).
The versions: the flags, else those the files' installs record (their cdk8s-kueue-ray.io/*-version
annotations, else their images), else ${DEFAULT_KUEUE_VERSION} / ${DEFAULT_KUBERAY_VERSION}, with a note saying which.
Exit code: 0 (whatever the plan says), 1 when --fail-on names an outcome some workload has (pending,
never-admissible, preempting = admitted by preempting others) or the input cannot be read, 2 on a usage
error or a file or folder that does not exist (as in check).
`;
const FAIL_ON: Record<string, PlanOutcome> = { pending: 'pending', 'never-admissible': 'never-admissible', preempting: 'admitted-by-preempting' };
const KUEUE_KINDS = new Set<unknown>(['ClusterQueue', 'Cohort', 'ResourceFlavor', 'LocalQueue', 'WorkloadPriorityClass', 'Namespace', 'Topology']);

/** An object of a Ray kind, which the policy and the simulator read. */
const isRayKind = (o: unknown): o is RayObject => (RAY_KINDS as readonly unknown[]).includes(fieldAt(o, 'kind'));

function filesUnder(p: string): string[] {
  if (p === '-') return [p];
  const st = fs.statSync(p);
  if (!st.isDirectory()) return [p];
  return fs.readdirSync(p).sort().flatMap((f) => {
    const full = path.join(p, f);
    if (fs.statSync(full).isDirectory()) return filesUnder(full);
    return /\.(ya?ml|json)$/.test(f) ? [full] : [];
  });
}

/**
 * Every object of a YAML (or JSON) file, read as kubectl reads it (kubernetes-yaml.ts); a document that does not parse is
 * an error naming the file and the document. A `List` gives its items.
 */
export function readObjects(file: string, stdin: () => string = () => fs.readFileSync(0, 'utf8')): unknown[] {
  const out: unknown[] = [];
  for (const v of readKubernetesYaml(file, file === '-' ? stdin() : fs.readFileSync(file, 'utf8'))) {
    const items = fieldAt(v, 'items');
    if (fieldAt(v, 'kind') === 'List' && isList(items)) out.push(...items);
    else if (isList(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}

interface PlanFlags {
  /** The flags' versions; unset, the versions the files' installs record, else the defaults. */
  inputs: string[]; arrivals?: string; nodes?: string; kueue?: string; kubeRay?: string; output: string; trace: boolean; kubeconfig?: string;
  /** Where the timeline stops, in seconds. */
  horizonSeconds: number;
  /** Outcomes that make the command exit 1. */
  failOn: PlanOutcome[];
  help: boolean;
  /** The namespace of Ray objects and LocalQueues that name none. */
  namespace?: string;
  /** How a flag's version was mapped to a modelled one. */
  versionNotes: string[];
}

/** plan's flags; `-f` and positional paths add up, in the order given. */
export const PLAN_FLAGS: Record<string, FlagSpec> = {
  'filename': { type: 'string', short: 'f', repeat: true },
  'output': { type: 'string', short: 'o' },
  'namespace': { type: 'string', short: 'n' },
  'arrivals': { type: 'string' },
  'nodes': { type: 'string' },
  'kueue-version': { type: 'string' },
  'kuberay-version': { type: 'string' },
  'trace': { type: 'boolean' },
  'horizon': { type: 'string' },
  'kubeconfig': { type: 'string' },
  'fail-on': { type: 'string', repeat: true },
  'verbose': { type: 'boolean' },
  'help': { type: 'boolean', short: 'h' },
};

export function parsePlanArgs(argv: string[]): PlanFlags {
  const { values: v, paths } = parseFlags(argv, PLAN_FLAGS);
  const f: PlanFlags = { inputs: paths, output: (v.output as string | undefined) ?? 'text', trace: v.trace === true, versionNotes: [],
    failOn: [], help: v.help === true, arrivals: v.arrivals as string | undefined, nodes: v.nodes as string | undefined,
    kueue: v['kueue-version'] as string | undefined,
    kubeRay: v['kuberay-version'] as string | undefined, kubeconfig: v.kubeconfig as string | undefined,
    namespace: v.namespace as string | undefined, horizonSeconds: DEFAULT_HORIZON_SECONDS };
  if (f.help) return f;
  if (v.horizon !== undefined) {
    const h = parseGoDuration(String(v.horizon));
    if (h === undefined || !(h > 0)) throw new UsageError(`--horizon takes a duration above 0 such as 168h or 90m, got '${String(v.horizon)}'`);
    f.horizonSeconds = h;
  }
  for (const o of (v['fail-on'] as string[] | undefined) ?? []) {
    if (!(o in FAIL_ON)) throw new UsageError(`--fail-on takes ${Object.keys(FAIL_ON).join(', ')} (comma-separated), got '${o}'`);
    f.failOn.push(FAIL_ON[o]);
  }
  if (!['text', 'json', 'html'].includes(f.output)) throw new UsageError(`--output takes text, json or html, got '${f.output}'`);
  if (f.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(f.namespace)) {
    throw new UsageError(`--namespace '${f.namespace}' is not a namespace name (lowercase letters, digits and '-')`);
  }
  for (const [project, key] of [['Kueue', 'kueue'], ['KubeRay', 'kubeRay']] as const) {
    const given = f[key];
    if (given === undefined) continue;
    f[key] = modelledFlagVersion(project, given, f.versionNotes);
  }
  return f;
}

/** What the live cluster adds to a plan (plan --kubeconfig): its Kueue objects and the workloads it already holds. */
export interface PlanLiveInput {
  readonly kueueObjects: readonly unknown[];
  readonly existing: readonly RayObject[];
  readonly notes: readonly string[];
  /** When Kueue admitted each admitted one of `existing` (epoch seconds): it runs for what is left of its duration. */
  readonly admittedAt?: ReadonlyMap<RayObject, number>;
  /** How Kueue admitted each admitted one of `existing`: it keeps its flavors and nodes instead of being scheduled again. */
  readonly admissions?: ReadonlyMap<RayObject, PlanAdmission>;
  /** The median run time of each LocalQueue's finished Workloads, for the workloads that declare no duration. */
  readonly runTimes?: ReadonlyMap<string, QueueRunTime>;
  /** When the cluster was read (epoch seconds): the plan's start, printed as wall-clock times. */
  readonly readAt?: number;
  /** The cluster's Nodes and the pods bound to them, for topology-aware scheduling (read when a flavor has a topologyName). */
  readonly nodes?: readonly unknown[];
  readonly boundPods?: readonly unknown[];
}

const identity = (o: unknown) => `${asWritten(fieldAt(o, 'kind'))}/${shownAt(o, 'metadata', 'namespace') ?? ''}/`
  + `${shownAt(o, 'metadata', 'name') ?? shownAt(o, 'metadata', 'generateName') ?? ''}`;

/**
 * Runs `plan`; returns what to print. With a live cluster, its Kueue objects come first and the files'
 * replace those of the same kind and name; its workloads are replayed before the files' (a file object
 * with the same kind and name replaces the live one: planned as a new arrival).
 */
export function planCommand(argv: string[], live?: PlanLiveInput): string {
  const f = parsePlanArgs(argv);
  return planRun(f, readInputs(f), live).output;
}

/** The files' objects and the versions to plan for: the flags, else what the files' installs record, else the defaults. */
interface PlanInputs {
  readonly objects: unknown[];
  readonly files: string[];
  readonly kueue: string;
  readonly kubeRay: string;
  readonly notes: string[];
  /** Kueue's ElasticJobsViaWorkloadSlices gate as the files' install sets it (as check reads it), else unknown. */
  readonly elasticGate: 'on' | 'off' | 'unknown';
  /** The manager's Configuration as the files' install sets it, else Kueue's defaults. */
  readonly kueueConfig?: KueueConfig;
}

/**
 * `cluster`: what the live cluster's install says (plan --kubeconfig: Kueue's manager Deployment and its ConfigMap); the
 * files' installs win over it, as in check: what is about to be applied is what runs next.
 */
function readInputs(f: PlanFlags, cluster?: { readonly facts: InstallFacts; readonly notes: readonly string[] }): PlanInputs {
  const inputs = f.inputs.length ? f.inputs : ['dist'];
  const objects: unknown[] = [];
  const files: string[] = [];
  const folders: string[] = [];
  for (const input of inputs) {
    if (input !== '-' && !fs.existsSync(input)) {
      throw new MissingFileError(`${input}: no such file or folder (give the cdk8s output folder, e.g. dist/, or YAML files)`);
    }
    if (input !== '-' && fs.statSync(input).isDirectory()) folders.push(input);
    for (const file of filesUnder(input)) {
      const objs = readObjects(file);
      objects.push(...objs);
      files.push(...objs.map(() => file));
    }
  }
  if (f.namespace) {
    // As kubectl apply -n: the namespaced objects plan reads that name no namespace get this one.
    for (const o of objects) {
      const namespaced = isRayKind(o) || fieldAt(o, 'kind') === 'LocalQueue';
      const metadata = fieldAt(o, 'metadata');
      if (namespaced && isRecord(metadata) && !metadata.namespace) metadata.namespace = f.namespace;
    }
  }
  const facts = installFacts(objects, files);
  const live = cluster?.facts ?? {};
  const notes = [...f.versionNotes, ...(cluster?.notes ?? []), ...settleVersionConflicts(facts, { kueue: f.kueue, kubeRay: f.kubeRay })];
  const pick = (flag: string | undefined, key: 'kueueVersion' | 'kubeRayVersion', project: 'Kueue' | 'KubeRay', fallback: string): string => {
    const [version, from] = pickVersion(flag, [[facts[key], 'files'], [live[key], 'cluster']], project, notes,
      (v, where) => `the ${where === 'files' ? 'files install' : 'cluster runs'} ${project} ${v}, which plan does not model: planned for the `
        + `default ${fallback} instead`);
    if (from === 'cluster') notes.push(`${project} ${version}: the version the cluster runs (its manager's image), as no flag or file gives one`);
    if (!flag && !facts[key] && !live[key]) {
      notes.push(`${project} ${fallback} (the default: no install in the files${cluster ? ' or the cluster' : ''} records a ${project} version; `
        + `pass --${project.toLowerCase()}-version)`);
    }
    if (flag && live[key] && normalizeVersion(live[key]) !== normalizeVersion(flag)) {
      notes.push(`the cluster runs ${project} ${live[key]}, but the plan is for ${flag} (the flag)`);
    }
    return version ?? fallback;
  };
  const kueue = pick(f.kueue, 'kueueVersion', 'Kueue', DEFAULT_KUEUE_VERSION);
  const kubeRay = pick(f.kubeRay, 'kubeRayVersion', 'KubeRay', DEFAULT_KUBERAY_VERSION);
  notes.push(...versionSourceNotes(facts, { kueue, kubeRay }));
  let kueueConfig: KueueConfig | undefined;
  // The files' manager, else the cluster's (kueue-system/kueue-manager-config and the manager's args).
  const manager = facts.kueueManager ?? live.kueueManager;
  const caps = kueueCapabilities(kueue);
  if (manager) {
    // Refuses what Kueue refuses at start-up; notes what it turns on and what of it the plan does not model yet.
    kueueConfig = kueueConfigOf(manager, caps);
    const note = kueueConfigNote(kueueConfig, caps, manager.where) ?? (facts.kueueManager ? undefined
      : `Kueue's Configuration read from ${manager.where}: fair sharing and admission fair sharing off, as the plan models by default`);
    if (note) notes.push(note);
  }
  if (folders.length) {
    notes.push(`arrival order: the files of ${folders.join(', ')} were read in name order, each file's documents in order; give files in the `
      + 'order they arrive, or annotate objects with cdk8s-kueue-ray.io/plan-arrival, to plan another order');
  }
  const gateSet = facts.elasticGate ?? live.elasticGate;
  const gate = gateSet === 'default' ? (caps.elasticGateDefaultOn ? 'on' : 'off') : gateSet ?? 'unknown';
  return { objects, files, kueue, kubeRay, notes, elasticGate: gate, kueueConfig };
}

/** A Ray object the admission webhooks refuse: it is never created, so it is not planned. */
export interface PlanRefusal {
  /** "Kind namespace/name", as a plan's workloads are named. */
  readonly workload: string;
  readonly rule: string;
  readonly field: string;
  readonly message: string;
  readonly fix: string;
}

/**
 * The arrivals the policy refuses (every error finding, as the controller's validating webhook and
 * `check` decide them; without queues, so the cross-object rules stay the plan's own), apart from
 * those it plans. So plan and check agree: nothing check refuses is shown as admitted.
 */
function refusedAtAdmission(arrivals: readonly RayObject[], input: PlanInputs): { kept: RayObject[]; refused: PlanRefusal[] } {
  const ctx = { kueue: kueueCapabilities(input.kueue), kubeRay: kubeRayCapabilities(input.kubeRay), elasticGate: input.elasticGate };
  const kept: RayObject[] = [];
  const refused: PlanRefusal[] = [];
  for (const o of arrivals) {
    const errors = evaluateRayObject(o, ctx).filter((x) => x.severity === 'error');
    if (!errors.length) {
      kept.push(o);
      continue;
    }
    const workload = `${o.kind} ${o.metadata?.namespace ?? 'default'}/${o.metadata?.name ?? `${o.metadata?.generateName ?? ''}*`}`;
    for (const e of errors) refused.push({ workload, rule: e.rule, field: e.field, message: e.message, fix: e.fix });
  }
  return { kept, refused };
}

function refusalsText(refused: readonly PlanRefusal[]): string {
  if (!refused.length) return '';
  const lines = ['', 'REFUSED at admission (never created, so not planned; `check` gives the same errors):'];
  for (const r of refused) lines.push(`  ${r.workload}: ${r.field}: ${r.message} [${r.rule}]`, `    fix: ${r.fix}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The Nodes topology-aware scheduling plans on: `--nodes FILE` (a list of Node objects, e.g. `kubectl get nodes -o yaml`)
 * wins; else the files' Node objects, then the live cluster's of other names.
 */
function nodesOf(f: PlanFlags, objects: readonly unknown[], live: PlanLiveInput | undefined, notes: string[]): unknown[] {
  if (f.nodes) {
    if (!fs.existsSync(f.nodes)) throw new MissingFileError(`--nodes ${f.nodes}: no such file`);
    const listed = readObjects(f.nodes);
    const other = listed.find((o) => fieldAt(o, 'kind') !== 'Node');
    if (other) {
      throw new Error(`${f.nodes}: ${shownAt(other, 'kind') ?? typeof other} ${shownAt(other, 'metadata', 'name') ?? ''} is not a Node; `
        + '--nodes lists Node objects (kubectl get nodes -o yaml)');
    }
    if (live?.nodes?.length) notes.push(`the Nodes of ${f.nodes} replace the cluster's ${live.nodes.length}`);
    return listed;
  }
  const fromFiles = objects.filter((o) => fieldAt(o, 'kind') === 'Node');
  const named = new Set(fromFiles.map(identity));
  return [...(live?.nodes ?? []).filter((o) => !named.has(identity(o))), ...fromFiles];
}

/** The plan and what to print. */
function planRun(f: PlanFlags, input: PlanInputs, live?: PlanLiveInput): { output: string; plan: PlanResult } {
  const { objects } = input;
  let kueueObjects = objects.filter((o) => KUEUE_KINDS.has(fieldAt(o, 'kind')));
  let arrivals = objects.filter(isRayKind);
  let admitted: ReadonlyArray<PlanAdmission | undefined> | undefined;
  const liveNotes: string[] = [];
  if (f.arrivals) {
    if (!fs.existsSync(f.arrivals)) throw new MissingFileError(`--arrivals ${f.arrivals}: no such file`);
    const listed = readObjects(f.arrivals);
    const other = listed.find((o) => !isRayKind(o));
    if (other) {
      throw new Error(`${f.arrivals}: ${shownAt(other, 'kind') ?? typeof other} ${shownAt(other, 'metadata', 'name') ?? ''} is not a Ray object; `
        + '--arrivals lists RayJobs, RayClusters and RayServices in arrival order');
    }
    // Each is a Ray object (or an empty item, which `find` passes over as before).
    arrivals = listed as RayObject[];
  }
  arrivals = arrivalOrder(arrivals);
  const { kept, refused } = refusedAtAdmission(arrivals, input);
  arrivals = kept;
  if (live) {
    const fromFiles = new Set(kueueObjects.map(identity));
    kueueObjects = [...live.kueueObjects.filter((o) => !fromFiles.has(identity(o))), ...kueueObjects];
    const newOnes = new Set(arrivals.map(identity));
    arrivals = [...live.existing.filter((o) => !newOnes.has(identity(o))), ...arrivals];
    // By index, before the durations below copy the objects (they keep the order).
    admitted = arrivals.map((o) => live.admissions?.get(o));
    if (live.runTimes && live.readAt !== undefined) {
      const d = liveDurations(arrivals, live.runTimes, live.admittedAt ?? new Map(), live.readAt);
      arrivals = d.objects;
      liveNotes.push(...d.notes);
    }
  }
  const nodes = nodesOf(f, objects, live, liveNotes);
  // The per-cycle trace only with --trace (at 50,000 workloads it was most of the JSON), and for the page's usage chart.
  const plan = simulatePlan({ kueueObjects, arrivals, admitted, nodes, boundPods: live?.boundPods, kueueVersion: input.kueue,
    kubeRayVersion: input.kubeRay,
    kueueConfig: input.kueueConfig, trace: f.trace || f.output === 'html', horizonSeconds: f.horizonSeconds,
    ...(live?.readAt !== undefined ? { startTime: live.readAt } : {}) });
  const rulesOf = (w: string) => refused.filter((r) => r.workload === w).map((r) => r.rule).join(', ');
  const refusedNotes = [...new Set(refused.map((r) => r.workload))]
    .map((w) => `${w} is refused at admission (${rulesOf(w)}): never created, so not planned; see check`);
  const withNotes: PlanResult = { ...plan, notes: [...input.notes, ...(live?.notes ?? []), ...liveNotes, ...refusedNotes, ...plan.notes],
    ...(live?.readAt !== undefined ? { startTime: new Date(Math.round(live.readAt) * 1000).toISOString() } : {}) };
  const output = f.output === 'html' ? planToHtml(withNotes)
    : f.output === 'json' ? `${JSON.stringify({ ...withNotes, refused }, null, 2)}\n`
      : planToText(withNotes, { trace: f.trace }) + refusalsText(refused);
  return { output, plan: withNotes };
}

/**
 * The plan, reading the live cluster first when --kubeconfig is given: its install (the Kueue and KubeRay versions, the
 * gate and Kueue's Configuration, where the files and flags say nothing), then its queues and workloads at that
 * Kueue's API version.
 */
async function planLive(argv: string[]): Promise<{ output: string; plan: PlanResult }> {
  const f = parsePlanArgs(argv);
  if (!f.kubeconfig) return planRun(f, readInputs(f));
  const { kubeconfigSource } = await import('./cluster-queues');
  const install = await kubeconfigSource(f.kubeconfig).install();
  const input = readInputs(f, { facts: installFacts(install.objects, install.objects.map(() => 'the cluster')), notes: install.notes });
  const { readLiveCluster } = await import('./plan-cluster');
  const live = await readLiveCluster(f.kubeconfig, kueueCapabilities(input.kueue).apiVersion);
  return planRun(f, input, live);
}

/** What to print for `plan argv` (the live cluster read first with --kubeconfig). */
export async function planMain(argv: string[]): Promise<string> {
  return (await planLive(argv)).output;
}

export interface PlanIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
}

/** The `plan` command: --help on stdout (0), usage errors in one line and a missing file (2, as in check), unreadable input (1), --fail-on (1). */
export async function plan(argv: string[], io: PlanIo): Promise<number> {
  let f: PlanFlags;
  try {
    f = parsePlanArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(usageErrorText('plan', e.message));
      return 2;
    }
    io.stderr(errorText('plan', e, debugRequested(argv)));
    return 1;
  }
  if (f.help) {
    io.stdout(PLAN_USAGE);
    return 0;
  }
  let result: { output: string; plan: PlanResult };
  try {
    result = await planLive(argv);
  } catch (e) {
    io.stderr(errorText('plan', e, debugRequested(argv)));
    return e instanceof UsageError || e instanceof MissingFileError ? 2 : 1;
  }
  io.stdout(result.output);
  const failing = result.plan.workloads.filter((w) => f.failOn.includes(w.outcome));
  if (failing.length) {
    io.stderr(`cdk8s-kueue-ray plan: --fail-on ${[...new Set(failing.map((w) => w.outcome))].join(', ')}: `
      + `${failing.map((w) => `${w.kind} ${w.namespace}/${w.name} ${w.outcome}`).join('; ')}\n`);
    return 1;
  }
  return 0;
}
