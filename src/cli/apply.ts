/**
 * `cdk8s-kueue-ray apply [DIR | FILES…] [-f FILE|DIR|-]… [--dry-run] [--no-wait] [--kubeconfig FILE] [--verbose]`:
 * the ordered, server-side apply of a synthesized dist/ (the examples app or any app using the install charts):
 *   1. every CustomResourceDefinition, server-side, then wait until they are Established;
 *   2. every Namespace;
 *   3. the serving files (those holding CRDs or webhook configurations: the Kueue and KubeRay installs, the
 *      AdmissionController) without their webhook configurations;
 *   4. wait until their Deployments are rolled out and every Service a webhook calls has endpoints (from
 *      Kueue 0.15 its conversion webhook serves ClusterQueue/LocalQueue/Cohort);
 *   5. their webhook configurations, then wait until each has a caBundle (Kueue, our controller or
 *      cert-manager injects it; until then the API server cannot call the webhook);
 *   6. everything else (queues, tenants, workloads).
 * Jobs with generateName (dist/create/) are not applied: they are created with `kubectl create -f`.
 * A re-apply never restarts, unsuspends or reshapes a workload: a Ray object that exists already is applied
 * with its live suspend value (Kueue's to change: it unsuspends on admission and suspends on preemption),
 * guarded by its resourceVersion, and without --force-conflicts; if a field of it is owned by Kueue, KubeRay
 * or the Ray autoscaler (an elastic cluster's worker groups), the object is left as it is and listed with
 * those fields. The phases and the re-apply are the pure apply-plan.ts; this file reads the files and runs kubectl.
 * The old bin name cdk8s-kueue-ray-apply runs this command (scripts/bundle.js writes its one-line alias).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import {
  ApplyFile, applyPlan, conflictsOf, isApplyConflict, isRayObject, Manifest, objectKey, suspendNote, withLiveSuspend,
} from './apply-plan';
import { FlagSpec, parseFlags, usageErrorText } from './args';
import { readKubernetesYaml } from './kubernetes-yaml';
import { debugRequested, errorText } from './errors';
import { MissingFileError, UsageError } from './yaml-source';

export const APPLY_USAGE = `usage: cdk8s-kueue-ray apply [DIR | FILES…] [-f FILE|DIR|-]… [--dry-run] [--no-wait] [--kubeconfig FILE] [--verbose]

The ordered, server-side apply of a synthesized dist/ (default dist): CRDs, then namespaces, the
installs and the controller, their rollout and webhook endpoints, the webhook configurations and their
caBundles, then queues, tenants and workloads. Ray objects that exist already keep what Kueue and KubeRay
own (their live suspend value is re-applied and conflicts are never forced), so a re-apply restarts and
unsuspends nothing.
Paths, positional and -f alike, in the order given: a folder's *.k8s.yaml files directly in it, in name
order (so not dist/create/, whose generateName jobs are for kubectl create); a file as given; "-"
standard input. An object without a name stops the apply before anything is applied.

  -f, --filename X   a file, a folder or - (repeatable, comma lists too), added to the positional paths
  --dry-run          server-side dry run of every object (the CRDs and namespaces must exist already)
  --no-wait          do not wait for rollouts, endpoints or caBundles (a cluster that runs no pods)
  --kubeconfig FILE  the cluster (default: kubectl's, i.e. KUBECONFIG or ~/.kube/config)
  --verbose          an error's stack trace too (as CDK8S_KUEUE_RAY_DEBUG=1)
  -h, --help         this text

kubectl is taken from KUBECTL (default: kubectl on the PATH); APPLY_TIMEOUT bounds each wait (300s).
Also installed as cdk8s-kueue-ray-apply, the same command under its earlier name.
Exit code: 0 applied, 1 an apply or a wait failed (kubectl's message says which object), 2 a usage error
or a file or folder that does not exist (nothing is applied).
`;

/** apply's flags; `-f` and positional paths add up, in the order given. */
export const APPLY_FLAGS: Record<string, FlagSpec> = {
  'filename': { type: 'string', short: 'f', repeat: true },
  'dry-run': { type: 'boolean' },
  'no-wait': { type: 'boolean' },
  'kubeconfig': { type: 'string' },
  'verbose': { type: 'boolean' },
  'help': { type: 'boolean', short: 'h' },
};

export interface ApplyOptions {
  /** The paths in the order given; none given, dist. */
  readonly inputs: string[];
  readonly dryRun: boolean;
  readonly noWait: boolean;
  readonly kubeconfig?: string;
  readonly help: boolean;
}

/** The options; throws UsageError (one line) on a bad flag, decided before anything is read or applied. */
export function parseApplyArgs(argv: readonly string[]): ApplyOptions {
  const { values: v, paths } = parseFlags(argv, APPLY_FLAGS);
  if (paths.filter((p) => p === '-').length > 1) throw new UsageError('- (standard input) given twice: it is read once');
  return { inputs: paths.length ? paths : ['dist'], dryRun: v['dry-run'] === true, noWait: v['no-wait'] === true,
    kubeconfig: v.kubeconfig as string | undefined, help: v.help === true };
}

/**
 * The files to apply, each with its objects. A folder gives its *.k8s.yaml files directly in it, in name
 * order (not dist/create/), each named by its name in the folder when the folder is the only path (as the
 * apply always listed them), else by its path. A path that does not exist is a MissingFileError.
 */
export function readApplyFiles(inputs: readonly string[], stdin: () => string = () => fs.readFileSync(0, 'utf8')): ApplyFile[] {
  const out: ApplyFile[] = [];
  for (const input of inputs) {
    if (input === '-') {
      out.push({ file: '-', objects: parseObjects('-', stdin()) });
      continue;
    }
    if (!fs.existsSync(input)) {
      throw new MissingFileError(`${input}: no such file or folder (run \`npx cdk8s synth\` first, or give the synthesized folder or its files)`);
    }
    if (!fs.statSync(input).isDirectory()) {
      out.push({ file: input, objects: parseObjects(input, fs.readFileSync(input, 'utf8')) });
      continue;
    }
    for (const f of fs.readdirSync(input).filter((n) => n.endsWith('.k8s.yaml')).sort()) {
      const full = path.join(input, f);
      out.push({ file: inputs.length === 1 ? f : full, objects: parseObjects(full, fs.readFileSync(full, 'utf8')) });
    }
  }
  return out;
}

/** A file's objects, read as kubectl reads them (kubernetes-yaml.ts): what is applied is what `kubectl apply` would send. */
function parseObjects(file: string, text: string): Manifest[] {
  return readKubernetesYaml(file, text) as Manifest[];
}

export interface ApplyIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
}

/** The text kubectl wrote to stderr for a failed call, or the error's own message. */
function kubectlError(e: unknown): string {
  // execFileSync's error carries kubectl's stderr; the others are Errors.
  const err = e as { readonly stderr?: Buffer | string; readonly message: string };
  return err.stderr ? err.stderr.toString() : err.message;
}

/** Blocks for `ms`: the waits poll kubectl synchronously, as every other step runs. */
function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs the ordered apply of `opts` with kubectl; throws on a failed apply or wait. */
export function runApply(opts: ApplyOptions, io: ApplyIo, env: NodeJS.ProcessEnv = process.env): void {
  if (opts.kubeconfig !== undefined && !fs.existsSync(opts.kubeconfig)) throw new MissingFileError(`--kubeconfig ${opts.kubeconfig}: no such file`);
  new Applier(opts, io, env).run(applyPlan(readApplyFiles(opts.inputs)));
}

/** One apply's kubectl calls, in the order of the phases (file header). */
class Applier {
  private readonly kubectl: string;
  private readonly timeout: string;
  private readonly dry: string;

  constructor(private readonly opts: ApplyOptions, private readonly io: ApplyIo, private readonly env: NodeJS.ProcessEnv) {
    this.kubectl = env.KUBECTL || 'kubectl';
    this.timeout = env.APPLY_TIMEOUT || '300s';
    this.dry = opts.dryRun ? 'dry-run ' : '';
  }

  run(p: ReturnType<typeof applyPlan>): void {
    const { dryRun, noWait } = this.opts;
    this.apply(p.crds, 'CustomResourceDefinitions');
    if (p.crds.length && !dryRun) {
      this.kubectlRun(['wait', '--for=condition=Established', `--timeout=${this.timeout}`, ...p.crds.map((c) => `crd/${c.metadata!.name}`)]);
      this.io.stdout(`${p.crds.length} CRDs Established\n`);
    }
    this.apply(p.namespaces, 'Namespaces');
    this.apply(p.serving, 'install objects (operators, controller, RBAC, services, config)');
    if (!noWait && !dryRun) {
      for (const d of p.deployments) {
        this.kubectlRun(['-n', d.namespace, 'rollout', 'status', `deployment/${d.name}`, `--timeout=${this.timeout}`]);
      }
      for (const s of p.services) {
        this.kubectlRun(['-n', s.namespace, 'wait', '--for=jsonpath={.subsets[0].addresses[0].ip}', `endpoints/${s.name}`,
          `--timeout=${this.timeout}`]);
      }
      this.io.stdout(`${p.deployments.length} deployments rolled out; ${p.services.length} webhook services have endpoints\n`);
      this.apply(p.webhooks, 'webhook configurations');
      this.waitCaBundles(p.webhooks);
      this.io.stdout('every webhook configuration has its caBundle\n');
      this.applyRest(p.rest);
    } else {
      // No pods serve the webhooks (or nothing is really applied): register them last, so none rejects the rest.
      this.applyRest(p.rest);
      this.apply(p.webhooks, 'webhook configurations');
    }
  }

  private kubectlRun(argv: string[], input?: string): string {
    const full = [...(this.opts.kubeconfig ? ['--kubeconfig', this.opts.kubeconfig] : []), ...argv];
    try {
      return execFileSync(this.kubectl, full, { input, env: this.env, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 }).toString();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new Error(`${this.kubectl}: not found; put kubectl on the PATH or set KUBECTL to its path`);
      throw e;
    }
  }

  private apply(objects: readonly Manifest[], what: string, force = true): void {
    if (!objects.length) return;
    const input = objects.map((o) => stringify(o)).join('---\n');
    try {
      this.kubectlRun(['apply', '--server-side', ...(force ? ['--force-conflicts'] : []), '--field-manager=cdk8s-kueue-ray',
        ...(this.opts.dryRun ? ['--dry-run=server'] : []), '-f', '-'], input);
    } catch (e) {
      throw new Error(`apply of ${what} failed:\n${kubectlError(e)}`);
    }
    this.io.stdout(`${this.dry}applied ${objects.length} ${what}\n`);
  }

  /** The live objects of `objects` that exist already, by kind/namespace/name. */
  private existing(objects: readonly Manifest[]): Map<string, Manifest> {
    if (!objects.length) return new Map();
    const input = objects.map((o) => stringify({ apiVersion: o.apiVersion, kind: o.kind,
      metadata: { name: o.metadata!.name, namespace: o.metadata!.namespace } })).join('---\n');
    // kubectl prints a List, one object, or nothing (none found), depending on the count.
    const text = this.kubectlRun(['get', '--ignore-not-found', '-o', 'json', '-f', '-'], input).trim();
    const got = (text ? JSON.parse(text) : {}) as Manifest;
    const items = (Array.isArray(got.items) ? got.items : [got]) as Manifest[];
    return new Map(items.filter((o) => o && o.metadata && o.metadata.name).map((o): [string, Manifest] => [objectKey(o), o]));
  }

  /**
   * Queues, tenants and workloads. A Ray object already on the cluster is applied on its own, with its live
   * suspend value and without forcing: applying suspend: true again would suspend an admitted workload
   * (KubeRay deletes its RayCluster, Kueue admits it again, the work restarts), leaving it out would
   * unsuspend a pending one (server-side apply removes a field its manager set and no longer sends), and
   * forcing would take back worker replicas the autoscaler or Kueue set. If another manager owns a field,
   * the object is left as it is.
   */
  private applyRest(objects: readonly Manifest[]): void {
    const ray = objects.filter(isRayObject);
    const there = this.existing(ray);
    this.apply(objects.filter((o) => !isRayObject(o) || !there.has(objectKey(o))), 'queues, tenants and workloads');
    const kept: string[] = [];
    const updated: string[] = [];
    for (const o of ray.filter((x) => there.has(objectKey(x)))) {
      const name = `${o.kind} ${o.metadata!.namespace || ''}/${o.metadata!.name}`;
      try {
        updated.push(`  ${name}: ${this.applyExisting(o, there.get(objectKey(o))!)}`);
      } catch (e) {
        const err = kubectlError(e);
        if (!isApplyConflict(err)) throw new Error(`apply of ${objectKey(o)} failed:\n${err}`);
        const { fields, owners } = conflictsOf(err);
        kept.push(`  ${name}: ${fields.join(', ') || 'fields'} owned by ${owners.join(', ')}; `
          + `${suspendNote(withLiveSuspend(o, there.get(objectKey(o))!))}`);
      }
    }
    if (updated.length) {
      this.io.stdout(`${this.dry}updated ${updated.length} Ray object(s) that exist already (their suspend field left to Kueue):\n`
        + `${updated.join('\n')}\n`);
    }
    if (kept.length) {
      this.io.stdout(`left ${kept.length} Ray object(s) as they are: Kueue, KubeRay or the autoscaler own these fields (delete and apply again `
        + `to change them; the work restarts):\n${kept.join('\n')}\n`);
    }
  }

  /** Applies one Ray object that exists with its live suspend value; returns what became of its suspend field. */
  private applyExisting(o: Manifest, live: Manifest): string {
    for (let attempt = 1; ; attempt++) {
      const next = withLiveSuspend(o, live);
      try {
        this.kubectlRun(['apply', '--server-side', '--field-manager=cdk8s-kueue-ray', ...(this.opts.dryRun ? ['--dry-run=server'] : []),
          '-f', '-'], stringify(next.object));
        return suspendNote(next);
      } catch (e) {
        // The object changed since it was read (Kueue admitted it, KubeRay wrote its status): read it again.
        if (attempt >= 5 || !/the object has been modified/.test(kubectlError(e))) throw e;
        const again = this.existing([o]).get(objectKey(o));
        if (!again) throw new Error(`${objectKey(o)} was deleted during the apply`);
        live = again;
      }
    }
  }

  private waitCaBundles(webhooks: readonly Manifest[]): void {
    const deadline = Date.now() + parseInt(this.timeout, 10) * 1000;
    for (const w of webhooks.filter((x) => x.kind !== 'APIService')) {
      const ref = `${w.kind!.toLowerCase()}/${w.metadata!.name}`;
      for (;;) {
        const got = JSON.parse(this.kubectlRun(['get', ref, '-o', 'json'])) as Manifest;
        if ((got.webhooks || []).every((h) => h.clientConfig && h.clientConfig.caBundle)) break;
        if (Date.now() > deadline) {
          throw new Error(`${ref} has no caBundle after ${this.timeout}: is the controller that injects it running (Kueue, `
            + 'cdk8s-kueue-ray-controller, or cert-manager\'s cainjector)?');
        }
        sleep(2000);
      }
    }
  }
}

/** The `apply` command: --help on stdout (0), a usage error in one line or a missing file (2), a failed apply or wait (1). */
// eslint-disable-next-line @typescript-eslint/require-await -- the commands share one async signature; apply runs kubectl synchronously
export async function apply(argv: string[], io: ApplyIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let opts: ApplyOptions;
  try {
    opts = parseApplyArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(usageErrorText('apply', e.message));
      return 2;
    }
    io.stderr(errorText('apply', e, debugRequested(argv, env)));
    return 1;
  }
  if (opts.help) {
    io.stdout(APPLY_USAGE);
    return 0;
  }
  try {
    runApply(opts, io, env);
  } catch (e) {
    io.stderr(errorText('apply', e, debugRequested(argv, env)));
    return e instanceof UsageError || e instanceof MissingFileError ? 2 : 1;
  }
  return 0;
}
