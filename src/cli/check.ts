/**
 * `cdk8s-kueue-ray check FILES…`: the shared policy on plain YAML (Helm output, kubectl manifests, a
 * cdk8s dist/), for the Ray objects in the files. Each object is decided as the controller's webhooks
 * decide a CREATE: the tenant defaults of the mutating webhook, then every policy rule and the tenant
 * queue-label check of the validating webhook. Queues come from the same files, from --queues files,
 * and/or from a live cluster (--kubeconfig). Exit 1 with errors, 0 otherwise, 2 on a usage error.
 */
import * as fs from 'fs';
import {
  ClusterObjects, DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, evaluateRayObject, Finding, Inventory, inventoryFromObjects, isRecord,
  KUEUE_API_VERSION_RULE, kubeRayCapabilities, kueueCapabilities, normalizeVersion, objectRef, PolicyContext, RayObject,
  SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS, rayKindOf, rayParentOf, tenantQueueLabel,
} from '../policy';
import { CRD_SCHEMA_RULE } from '../policy/schema/rule';
import { KueueConfig, kueueConfigOf, KueueConfigSource } from '../policy/plan';
import { kueueSetupFindings } from '../policy/rules/kueue-setup';
import { isKueueObject } from '../policy/rules/kueue-api-version';
import { asWritten } from '../policy/json';
import { asCreated } from '../policy/decide';
import { QUEUE_NAME_LABEL } from '../policy/ray-object';
import { applyDefaults, CelEvaluator, checkSchema } from '../policy/schema/structural';
import { crdSchemas, CrdSchemas, loadCelEvaluator } from './crd-schemas';
import { CHECK_REPORT_SCHEMA_VERSION, CheckedObject, CheckFinding, CheckReport, exitCodeOf, renderJson, renderText } from './check-report';
import type { ClusterSource } from './cluster-queues';
import { InstallFacts, installFacts, modelledFlagVersion, pickVersion, settleVersionConflicts, VersionSource,
  versionSourceNotes } from './install-facts';
import { renderSarif } from './sarif';
import { FlagSpec, parseFlags, usageErrorText } from './args';
import { debugRequested, errorText } from './errors';
import { ReadResult, readSources, SourceObject, UsageError } from './yaml-source';
import { YAML_SYNTAX_RULE } from './yaml-syntax';
import { fieldAt, shownAt } from './json-fields';

export type OutputFormat = 'text' | 'json' | 'sarif';

export interface CheckOptions {
  readonly files: readonly string[];
  readonly kueueVersion?: string;
  /**
   * The Kueue version --kueue-version asked for, when it is not modelled itself (kueueVersion stands in for it):
   * the Kueue APIs served are read at it. @default kueueVersion
   */
  readonly kueueTarget?: string;
  readonly kubeRayVersion?: string;
  /** Files or directories holding the queues (LocalQueue, ClusterQueue, Cohort, WorkloadPriorityClass, Namespace). */
  readonly queues?: readonly string[];
  readonly kubeconfig?: string;
  readonly output: OutputFormat;
  readonly elasticGate?: 'on' | 'off' | 'unknown';
  /** Namespace of objects that name none (as `kubectl apply -n`). */
  readonly namespace?: string;
  /** Folders or files of CustomResourceDefinitions to judge against, when the checked files hold none. */
  readonly crdDirs?: readonly string[];
  /** How a flag's version was mapped to a modelled one (another patch of a modelled minor). */
  readonly versionNotes?: readonly string[];
  /** No Ray object in the input is expected (else it is an error). */
  readonly allowEmpty?: boolean;
}

export const CHECK_USAGE = `usage: cdk8s-kueue-ray check FILE|DIR|- … [-f FILE|DIR|-]… [--kueue-version=${DEFAULT_KUEUE_VERSION}] `
  + `[--kuberay-version=${DEFAULT_KUBERAY_VERSION}]
       [--queues=FILE|DIR]… [--crd-dir=DIR]… [--kubeconfig=FILE] [-o|--output=text|json|sarif] [--elastic-gate=on|off|unknown]
       [-n|--namespace=default] [--allow-empty] [--verbose]

Runs the cdk8s-kueue-ray policy (the rules of synth and of the admission webhook) on the Ray objects
(RayJob, RayCluster, RayService) in the YAML files; directories are read for *.yaml and *.yml, "-"
reads standard input. Queues for the cross-object rules come from the same files, from --queues, and
from the live cluster with --kubeconfig (the files win over --queues, which wins over the cluster).
Versions and Kueue's ElasticJobsViaWorkloadSlices gate come from the flags, else from a Kueue or
KubeRay install in the files (the versions its cdk8s-kueue-ray.io/*-version annotations record; files
recording two versions are an error unless a flag says which), else (--kubeconfig) from the cluster's kueue-system/kueue-controller-manager,
else ${DEFAULT_KUEUE_VERSION} / ${DEFAULT_KUBERAY_VERSION} with the gate unknown. Modelled versions: Kueue ${SUPPORTED_KUEUE_VERSIONS.join(', ')};
KubeRay ${SUPPORTED_KUBERAY_VERSIONS.map((v) => (kubeRayCapabilities(v).notRunBecause ? `${v} (modelled, not run)` : v)).join(', ')};
another patch of a modelled minor (with or without the v)
runs as the closest modelled patch below it, with a note.
Each Ray object is first judged against its CRD as the API server would (defaults filled in, then types,
enums, minimums, patterns, required fields, CEL rules, and unknown fields, which kubectl's strict field
validation refuses): the CustomResourceDefinitions in the files (an app's dist/ holds KubeRay's), else
those of --crd-dir (e.g. KubeRay's ray-operator/config/crd/bases); without either, a note says the
schema was not checked.
Flags follow kubectl: -f/--filename (repeatable, or comma-separated) adds paths beside the positional
ones, -o is --output, -n is --namespace (the namespace of objects that name none).
Exit code: 0 no errors (warnings allowed), 1 errors found, 2 the check could not run (usage error, a
file or folder that does not exist (as in plan), no Ray or Kueue object without --allow-empty, --queues without
queues, unreachable cluster), printed once without a stack trace; --verbose or CDK8S_KUEUE_RAY_DEBUG=1 adds it.
`;

/** check's flags; `-f` and positional paths add up, in the order given. */
export const CHECK_FLAGS: Record<string, FlagSpec> = {
  'filename': { type: 'string', short: 'f', repeat: true },
  'output': { type: 'string', short: 'o' },
  'namespace': { type: 'string', short: 'n' },
  'kueue-version': { type: 'string' },
  'kuberay-version': { type: 'string' },
  'queues': { type: 'string', repeat: true },
  'crd-dir': { type: 'string', repeat: true },
  'kubeconfig': { type: 'string' },
  'elastic-gate': { type: 'string' },
  'allow-empty': { type: 'boolean' },
  'verbose': { type: 'boolean' },
  'help': { type: 'boolean', short: 'h' },
};

/** Parses `check`'s arguments (kubectl's conventions, args.ts); --queues, --crd-dir and -f repeat or take commas. */
export function parseCheckArgs(argv: readonly string[]): CheckOptions | 'help' {
  const { values: v, paths: files } = parseFlags(argv, CHECK_FLAGS);
  if (v.help) return 'help';
  if (!files.length) throw new UsageError('no FILES given: name YAML files or directories to check (or - for standard input)');
  const output = (v.output as string | undefined) ?? 'text';
  if (!['text', 'json', 'sarif'].includes(output)) throw new UsageError(`--output takes text, json or sarif, got '${output}'`);
  const gate = v['elastic-gate'] as string | undefined;
  if (gate !== undefined && !['on', 'off', 'unknown'].includes(gate)) throw new UsageError(`--elastic-gate takes on, off or unknown, got '${gate}'`);
  const versionNotes: string[] = [];
  const version = (x: unknown, project: 'Kueue' | 'KubeRay') =>
    (x === undefined ? undefined : modelledFlagVersion(project, x as string, versionNotes));
  const queues = v.queues as string[] | undefined;
  const crdDirs = v['crd-dir'] as string[] | undefined;
  return {
    files,
    kueueVersion: version(v['kueue-version'], 'Kueue'),
    kueueTarget: v['kueue-version'] === undefined ? undefined : normalizeVersion(v['kueue-version'] as string),
    kubeRayVersion: version(v['kuberay-version'], 'KubeRay'),
    versionNotes,
    queues: queues?.length ? queues : undefined,
    kubeconfig: v.kubeconfig as string | undefined,
    output: output as OutputFormat,
    elasticGate: gate as CheckOptions['elasticGate'],
    namespace: v.namespace as string | undefined,
    crdDirs: crdDirs?.length ? crdDirs : undefined,
    allowEmpty: v['allow-empty'] === true,
  };
}

const KUEUE_KINDS: Record<string, keyof ClusterObjects> = {
  LocalQueue: 'localQueues', ClusterQueue: 'clusterQueues', Cohort: 'cohorts', WorkloadPriorityClass: 'priorityClasses',
};

const groupOf = (o: unknown): string => {
  const apiVersion = fieldAt(o, 'apiVersion');
  return typeof apiVersion === 'string' && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
};

/** A Ray object (its kind and API group are a Ray kind's): the policy's rules read it. */
function isRay(o: unknown): o is RayObject {
  const kind = rayKindOf(o);
  return kind !== undefined && groupOf(o) === kind.group;
}

/** A source whose object is a Ray object. */
const isRaySource = (src: SourceObject): src is SourceObject & { readonly object: RayObject } => isRay(src.object);

/** The queue objects among `objects` (namespaced ones without a namespace get `namespace`). */
function queueObjectsOf(objects: readonly unknown[], namespace: string): ClusterObjects {
  type Lists = { -readonly [K in keyof ClusterObjects]: unknown[] };
  const out: Lists = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
  for (const o of objects) {
    // A Kueue group was read, so `o` is a JSON object; its kind indexes KUEUE_KINDS as a property key.
    if (groupOf(o) === 'kueue.x-k8s.io' && isRecord(o) && KUEUE_KINDS[String(o.kind)]) {
      const list = KUEUE_KINDS[String(o.kind)];
      const md = o.metadata;
      out[list].push(list === 'localQueues' && !fieldAt(md, 'namespace') ? { ...o, metadata: { ...(md as object), namespace } } : o);
    } else if (fieldAt(o, 'apiVersion') === 'v1' && fieldAt(o, 'kind') === 'Namespace') {
      out.namespaces.push(o);
    }
  }
  return out;
}

const count = (c: ClusterObjects) => c.localQueues.length + c.clusterQueues.length + c.cohorts.length + c.priorityClasses.length;

/** Later sources override earlier ones object by object (same kind, namespace and name). */
function mergeObjects(sources: readonly ClusterObjects[]): ClusterObjects {
  const merged = {} as { -readonly [K in keyof ClusterObjects]: unknown[] };
  for (const list of ['localQueues', 'clusterQueues', 'cohorts', 'priorityClasses', 'namespaces'] as const) {
    const byKey = new Map<string, unknown>();
    for (const s of sources) {
      for (const o of s[list]) byKey.set(`${shownAt(o, 'metadata', 'namespace') ?? ''}/${asWritten(fieldAt(o, 'metadata', 'name'))}`, o);
    }
    merged[list] = [...byKey.values()];
  }
  return merged;
}


/** The cluster reader, loaded on first use (it pulls in @kubernetes/client-node). */
function kubeconfigSourceLoader(kubeconfig: string): ClusterSource {
  const load = () => import('./cluster-queues').then((m) => m.kubeconfigSource(kubeconfig));
  return { install: async () => (await load()).install(), queues: async (v) => (await load()).queues(v) };
}

export interface CheckDependencies {
  /** Standard input, for "-". */
  readonly stdin?: () => string;
  /** The live cluster of --kubeconfig (tests may give their own). */
  readonly cluster?: (kubeconfig: string) => ClusterSource;
}

type From = VersionSource;

/** The versions and the ElasticJobsViaWorkloadSlices gate the check runs for, and where each came from. */
interface RunContext {
  readonly kueue: ReturnType<typeof kueueCapabilities>;
  /** The Kueue version the flag or install asks for (modelled or not); `kueue` is the modelled one standing in for it. */
  readonly kueueTarget: string;
  readonly kueueFrom: From;
  readonly kubeRay: ReturnType<typeof kubeRayCapabilities>;
  readonly kubeRayFrom: From;
  readonly elasticGate: 'on' | 'off' | 'unknown';
  readonly elasticGateFrom: From;
}

type InstallFactsBySource = { readonly files: InstallFacts; readonly cluster: InstallFacts };

/** What the installs say: in the files, else in the cluster (what is about to be applied wins). */
async function installFactsOf(read: ReadResult, cluster: ClusterSource | undefined, notes: string[]): Promise<InstallFactsBySource> {
  const files = installFacts(read.objects.map((o) => o.object), read.objects.map((o) => o.file));
  if (!cluster) return { files, cluster: {} };
  const inst = await cluster.install();
  for (const n of inst.notes) notes.push(n);
  return { files, cluster: installFacts(inst.objects) };
}

/** The flag, else what the files, then the cluster, install (pickVersion); a note for a version check does not support. */
function checkVersion(flag: string | undefined, facts: InstallFactsBySource, key: 'kueueVersion' | 'kubeRayVersion',
  what: 'Kueue' | 'KubeRay', notes: string[]): [string | undefined, From] {
  return pickVersion(flag, [[facts.files[key], 'files'], [facts.cluster[key], 'cluster']], what, notes, (found, from) =>
    `the ${from === 'files' ? 'files install' : 'cluster runs'} ${what} ${found}, which check does not support: the check ran for `
      + 'the default instead');
}

/** The versions and the gate, with a note wherever a flag overrides what an install says. */
function resolveRunContext(opts: CheckOptions, facts: InstallFactsBySource, notes: string[]): RunContext {
  notes.push(...settleVersionConflicts(facts.files, { kueue: opts.kueueVersion, kubeRay: opts.kubeRayVersion }));
  const [kueueVersion, kueueFrom] = checkVersion(opts.kueueVersion, facts, 'kueueVersion', 'Kueue', notes);
  const [kubeRayVersion, kubeRayFrom] = checkVersion(opts.kubeRayVersion, facts, 'kubeRayVersion', 'KubeRay', notes);
  const kueue = kueueCapabilities(kueueVersion ?? DEFAULT_KUEUE_VERSION);
  const kubeRay = kubeRayCapabilities(kubeRayVersion ?? DEFAULT_KUBERAY_VERSION);
  notes.push(...versionSourceNotes(facts.files, { kueue: kueue.version, kubeRay: kubeRay.version }));
  for (const [f, from] of [[facts.files, 'files install'], [facts.cluster, 'cluster runs']] as const) {
    for (const [what, found, used, flag] of [['Kueue', f.kueueVersion, kueue.version, opts.kueueVersion],
      ['KubeRay', f.kubeRayVersion, kubeRay.version, opts.kubeRayVersion]]) {
      if (found && flag && found !== used) notes.push(`the ${from} ${what} ${found}, but the check ran for ${used} (the flag)`);
    }
  }
  // The gate: the flag, else what the Kueue install sets (its version's default when it sets nothing).
  let elasticGate: 'on' | 'off' | 'unknown' = 'unknown';
  let elasticGateFrom: From = 'default';
  const gateFacts = facts.files.elasticGate ? { gate: facts.files.elasticGate, from: 'files' as const }
    : facts.cluster.elasticGate ? { gate: facts.cluster.elasticGate, from: 'cluster' as const } : undefined;
  if (opts.elasticGate) {
    elasticGate = opts.elasticGate;
    elasticGateFrom = 'flag';
  } else if (gateFacts) {
    elasticGate = gateFacts.gate === 'default' ? (kueue.elasticGateDefaultOn ? 'on' : 'off') : gateFacts.gate;
    elasticGateFrom = gateFacts.from;
  }
  const asked = kueueFrom === 'flag' ? opts.kueueTarget : kueueFrom === 'files' ? facts.files.kueueVersion
    : kueueFrom === 'cluster' ? facts.cluster.kueueVersion : undefined;
  const kueueTarget = asked ? normalizeVersion(asked) : kueue.version;
  return { kueue, kueueTarget, kueueFrom, kubeRay, kubeRayFrom, elasticGate, elasticGateFrom };
}

type QueueSource = 'files' | 'queues' | 'cluster';

/** The CRD schemas and the CEL evaluator a run judges with. */
interface SchemaInput {
  readonly schemas: CrdSchemas;
  readonly cel?: CelEvaluator;
}

/** Queues: the cluster, then --queues files, then the checked files (what is about to be applied wins). */
async function gatherInventory(opts: CheckOptions, deps: CheckDependencies, cluster: ClusterSource | undefined, all: readonly unknown[],
  kueueApiVersion: string, notes: string[]): Promise<{ inventory: Inventory | undefined; from: QueueSource[] }> {
  const namespace = opts.namespace ?? 'default';
  const sources: ClusterObjects[] = [];
  const from: QueueSource[] = [];
  if (cluster) {
    const live = await cluster.queues(kueueApiVersion);
    sources.push(live.objects);
    from.push('cluster');
    for (const n of live.notes) notes.push(n);
  }
  if (opts.queues) {
    const q = readSources(opts.queues, deps.stdin);
    if (q.errors.length) throw new UsageError('--queues: '
      + `${q.errors.map((e) => `${e.file}:${e.region.line}:${e.region.column}: ${e.message}`).join('; ')}`);
    const queueObjects = queueObjectsOf(q.objects.map((o) => o.object), namespace);
    if (count(queueObjects) === 0) {
      throw new UsageError(`--queues ${opts.queues.join(', ')}: no LocalQueue, ClusterQueue, Cohort or WorkloadPriorityClass in it (read `
        + `${q.files.length} file${q.files.length === 1 ? '' : 's'}); give the files that define the queues`);
    }
    sources.push(queueObjects);
    from.push('queues');
  }
  const own = queueObjectsOf(all, namespace);
  if (count(own) > 0 || (own.namespaces.length > 0 && sources.length > 0)) {
    sources.push(own);
    from.push('files');
  }
  const inventory = sources.length ? inventoryFromObjects(mergeObjects(sources)) : undefined;
  if (!inventory) {
    notes.push('no queues: the files hold no LocalQueue, ClusterQueue, Cohort or WorkloadPriorityClass and neither --queues nor --kubeconfig was '
      + 'given, so the cross-object rules (queue exists, namespace admitted, priority class exists, gang fits the quota) did not run');
  }
  return { inventory, from };
}

/** A finding placed at its field's line and column in the source. */
function placeFinding(src: SourceObject, f: Finding): CheckFinding {
  const l = src.locate(f.field);
  const location = { file: src.file, document: src.document, line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn };
  return { ...f, location: { ...location, exact: l.exact, resolvedField: l.resolved } };
}

/**
 * Decides one Ray object as the webhooks decide a CREATE; KubeRay's children are skipped (their owner is
 * checked). Returns its entry in the report and its findings.
 */
function checkRayObject(src: SourceObject & { readonly object: RayObject }, namespace: string, run: RunContext, inventory: Inventory | undefined,
  schema: SchemaInput): { entry: CheckedObject; findings: CheckFinding[] } {
  // As the webhook sees it: the namespace of the request (here --namespace) when the object names none.
  // Metadata of the wrong type is left as written, for the objectShape rule to report.
  const md = src.object.metadata;
  let obj: RayObject = md === undefined || isRecord(md)
    ? { ...src.object, metadata: { ...(md ?? {}), namespace: md?.namespace ?? namespace } }
    : src.object;
  const entry = { object: objectRef(obj), file: src.file, document: src.document, line: src.region.line };
  const parent = rayParentOf(obj);
  if (parent) {
    const note = `controlled by ${parent.kind} "${parent.name}": KubeRay creates it from its owner, which is checked instead (the controller refuses `
      + 'it from anyone but KubeRay\'s operator)';
    return { entry: { ...entry, status: 'skipped', note }, findings: [] };
  }
  const { kueue, kubeRay, elasticGate } = run;
  let note: string | undefined;
  const crd = schema.schemas.schemaFor(obj);
  let schemaFindings: Finding[] = [];
  if (crd) {
    // As the API server: the CRD's defaults first, then its validation; the rules judge the defaulted object.
    obj = applyDefaults(crd, obj);
    schemaFindings = checkSchema(crd, obj, schema.cel).problems.map((p) => ({ rule: CRD_SCHEMA_RULE.name, severity: 'error' as const,
      object: objectRef(obj), field: p.field, message: `${p.message} (CRD schema)`, fix: p.fix, source: CRD_SCHEMA_RULE.source }));
  }
  if (inventory) {
    const c = asCreated(obj, { kueue, kubeRay, elasticGate, inventory });
    obj = c.obj;
    if (c.ours.length) {
      note = `checked with the labels the controller's mutating webhook adds in this tenant namespace: ${c.ours.map((l) => `${l.key}: ${l.value}`)
        .join(', ')}`;
    }
    if (c.kueueQueue) {
      note = `checked with ${QUEUE_NAME_LABEL}: ${c.kueueQueue}, which Kueue's webhook adds (the namespace has a LocalQueue named ${c.kueueQueue})`;
    }
  }
  const ctx: PolicyContext = { kueue, kubeRay, elasticGate, inventory };
  const found = [...schemaFindings, ...evaluateRayObject(obj, ctx), ...(inventory ? tenantQueueLabel(obj, { kueue, inventory }) : [])];
  return { entry: { ...entry, status: 'checked', ...(note ? { note } : {}) }, findings: found.map((f) => placeFinding(src, f)) };
}

/**
 * The rules on Kueue's own objects and on the manager's Configuration as the files install it (Kueue's settings that
 * leave it admitting nothing, or running as if a setting were off). A Configuration Kueue refuses at start-up is
 * noted, and the rules then read the objects alone.
 */
function kueueSetupChecks(read: ReadResult, manager: KueueConfigSource | undefined, run: RunContext, inventory: Inventory | undefined,
  notes: string[]): CheckFinding[] {
  let config: KueueConfig | undefined;
  if (manager) {
    try {
      config = kueueConfigOf(manager, run.kueue);
    } catch (e) {
      notes.push((e as Error).message);
    }
  }
  return kueueSetupFindings({ objects: read.objects.map((o) => o.object), config, inventory, kueue: run.kueue })
    .map((p) => placeFinding(read.objects[p.index], p.finding));
}

/** Runs the check; throws UsageError for bad input that is not a finding (a missing file). */
export async function runCheck(opts: CheckOptions, deps: CheckDependencies = {}): Promise<CheckReport> {
  const namespace = opts.namespace ?? 'default';
  if (opts.kubeconfig && !deps.cluster && !fs.existsSync(opts.kubeconfig)) throw new UsageError(`--kubeconfig ${opts.kubeconfig}: no such file`);
  const notes: string[] = [...(opts.versionNotes ?? [])];
  const read = readSources(opts.files, deps.stdin);
  const all = read.objects.map((o) => o.object);
  const cluster = opts.kubeconfig ? (deps.cluster ?? kubeconfigSourceLoader)(opts.kubeconfig) : undefined;
  const facts = await installFactsOf(read, cluster, notes);
  const run = resolveRunContext(opts, facts, notes);
  const { inventory, from } = await gatherInventory(opts, deps, cluster, all, run.kueue.apiVersion, notes);

  const findings: CheckFinding[] = read.errors.map((e) => YAML_SYNTAX_RULE.check(e));
  const objects: CheckedObject[] = [];
  const schemas = crdSchemas(all, opts.crdDirs, run.kubeRay.version);
  const schema: SchemaInput = { schemas, cel: schemas.from ? await loadCelEvaluator() : undefined };
  const rayKinds = [...new Set(read.objects.filter(isRaySource).map((o) => String(o.object.kind)))];
  const unschemaed = schemas.missing(rayKinds);
  if (unschemaed.length) {
    notes.push(`the CRD schema of ${unschemaed.join(', ')} was not checked (types, enums, minimums, CEL rules, unknown fields): `
      + `${schemas.from ? 'the CRDs read do not define it' : 'the files hold no CustomResourceDefinition for it'}; give --crd-dir with KubeRay's `
      + 'CRDs (ray-operator/config/crd/bases of the version), or the app\'s dist/ with its KubeRay install chart');
  }
  for (const src of read.objects) {
    // A Kueue object of an API version its Kueue does not serve (read at the version asked for, modelled or newer).
    for (const f of KUEUE_API_VERSION_RULE.check(src.object, run.kueueTarget)) findings.push(placeFinding(src, f));
    if (!isRaySource(src)) continue;
    const checked = checkRayObject(src, namespace, run, inventory, schema);
    objects.push(checked.entry);
    findings.push(...checked.findings);
  }
  findings.push(...kueueSetupChecks(read, facts.files.kueueManager, run, inventory, notes));
  findings.sort((a, b) => (a.location.file < b.location.file ? -1 : a.location.file > b.location.file ? 1 : 0)
    || a.location.line - b.location.line || a.location.column - b.location.column);
  const ray = objects.length;
  // Kueue's own objects are checked too (kueueSetupChecks): files of queues alone are something to check.
  const kueueObjects = read.objects.filter((o) => isKueueObject(o.object)).length;
  if (!ray && kueueObjects) {
    notes.push(`no Ray object in the files: their ${kueueObjects} Kueue object${kueueObjects > 1 ? 's were' : ' was'} checked, and the Kueue `
      + 'Configuration if the files install it');
  } else if (!ray && !read.errors.length) {
    const what = read.files.length ? `${read.files.join(', ')} hold${read.files.length === 1 ? 's' : ''} no Ray object` : 'no YAML file was found';
    if (!opts.allowEmpty) {
      throw new UsageError(`${what} (apiVersion ray.io/v1, kind RayJob, RayCluster or RayService): nothing to check. Give the files or folders `
        + 'that hold them, or --allow-empty when an empty input is expected');
    }
    notes.push(`${what} (apiVersion ray.io/*, kind RayJob, RayCluster or RayService)`);
  }
  return {
    schemaVersion: CHECK_REPORT_SCHEMA_VERSION,
    tool: 'cdk8s-kueue-ray check',
    context: {
      kueue: run.kueue.version, kueueFrom: run.kueueFrom, kubeRay: run.kubeRay.version, kubeRayFrom: run.kubeRayFrom,
      elasticGate: run.elasticGate, elasticGateFrom: run.elasticGateFrom, namespace, crdSchemaFrom: schemas.from ?? 'none',
    },
    inventory: inventory ? {
      from, localQueues: inventory.localQueues.length, clusterQueues: inventory.clusterQueues.length, cohorts: inventory.cohorts.length,
      priorityClasses: inventory.priorityClasses.length, namespaces: inventory.namespaces.length,
    } : null,
    files: read.files,
    objects,
    findings,
    notes,
    summary: { errors: findings.filter((f) => f.severity === 'error').length, warnings: findings.filter((f) => f.severity === 'warning').length,
      objects: ray, kueueObjects, files: read.files.length },
  };
}

export interface CheckIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
}

/** The `check` command: renders the report and returns the exit code (0; 1 on errors found; 2 on a usage error, a missing file included). */
export async function check(argv: readonly string[], io: CheckIo, deps: CheckDependencies = {}): Promise<number> {
  let opts: CheckOptions | 'help';
  try {
    opts = parseCheckArgs(argv);
  } catch (e) {
    io.stderr(usageErrorText('check', (e as Error).message));
    return 2;
  }
  if (opts === 'help') {
    io.stdout(CHECK_USAGE);
    return 0;
  }
  let report: CheckReport;
  try {
    report = await runCheck(opts, deps);
  } catch (e) {
    // The check could not run (a path that does not exist, unreadable --queues, an unreachable cluster, nothing
    // to check): 2, as a usage error, in every subcommand; 1 is kept for findings.
    io.stderr(errorText('check', e, debugRequested(argv)));
    return 2;
  }
  io.stdout(opts.output === 'json' ? renderJson(report) : opts.output === 'sarif' ? renderSarif(report) : renderText(report));
  return exitCodeOf(report);
}
