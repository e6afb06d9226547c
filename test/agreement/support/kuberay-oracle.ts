/**
 * The KubeRay oracle: KubeRay's own validation, for one pinned version, as a long-lived process
 * (scripts/kuberay-validate, built by scripts/testcluster/build.sh into the cache as
 * kuberay-validate-<version>-<source hash>). It answers what the operator's reconcilers would refuse,
 * with the operator's message and the KubeRay function that refused.
 *
 *   const oracle = await KubeRayOracle.start('v1.6.2');
 *   const [verdict] = await oracle.validate([rayJob]);   // { errors: [] } when KubeRay accepts
 *   await oracle.stop();
 */
import { ChildProcessWithoutNullStreams, execFileSync, spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { cacheDir, REPO_ROOT } from '../../support/upstream';

export const ORACLE_SOURCE_DIR = path.join(REPO_ROOT, 'scripts', 'kuberay-validate');

export interface KubeRayVerdict {
  /** KubeRay's refusal (the reconciler stops at the first failing check); empty when it accepts. */
  readonly errors: string[];
  /** The KubeRay function that refused, e.g. "utils.ValidateRayJobSpec". */
  readonly check?: string;
  /** The object does not decode into KubeRay's API types (e.g. a string where a bool belongs). */
  readonly decodeError?: string;
  /** The refusing check panicked (the operator's reconcile would recover and requeue forever). */
  readonly panic?: boolean;
  /** Why the operator does not validate this object at all (e.g. an external spec.managedBy). */
  readonly skipped?: string;
}

export interface KubeRayOracleOptions {
  /** The operator's --feature-gates, e.g. { RayJobDeletionPolicy: true }; default: the operator's defaults. */
  readonly featureGates?: Record<string, boolean>;
}

/** The hash build.sh puts in the binary name: sha256 over "<relative path>\n<content>" of each .go file, by path. */
export function oracleSourceHash(dir = ORACLE_SOURCE_DIR): string {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && e.name.endsWith('.go')) files.push(r);
    }
  };
  walk('');
  // build.sh sorts with LC_ALL=C: by bytes, which for these ASCII names is JavaScript's default order.
  files.sort();
  const h = createHash('sha256');
  for (const f of files) {
    h.update(`${f}\n`);
    h.update(fs.readFileSync(path.join(dir, f)));
  }
  return h.digest('hex').slice(0, 12);
}

/** Where the oracle binary of a KubeRay version is, built from the current sources. */
export function oracleBinary(version: string): string {
  return path.join(cacheDir(), 'bin', `kuberay-validate-${version}-${oracleSourceHash()}`);
}

export function oracleBuildCommand(version: string): string {
  return `ONLY=kuberay-validate KUBERAY_VERSIONS=${version} scripts/testcluster/build.sh`;
}

/** True when the oracle of that version is built from the current sources. */
export function oracleBuilt(version: string): boolean {
  return fs.existsSync(oracleBinary(version));
}

interface Pending {
  resolve: (v: KubeRayVerdict) => void;
  reject: (e: Error) => void;
}

export class KubeRayOracle {
  /** Spawns the oracle of a KubeRay version; throws with the build command when it is not built. */
  public static async start(version: string, options: KubeRayOracleOptions = {}): Promise<KubeRayOracle> {
    const bin = oracleBinary(version);
    if (!fs.existsSync(bin)) {
      throw new Error(`the KubeRay ${version} oracle is not built from the current scripts/kuberay-validate sources (${bin} is missing). `
        + `Fix: run \`${oracleBuildCommand(version)}\` (see ${path.join(cacheDir(), 'build')}/kuberay-validate-${version}.log if it fails)`);
    }
    // The version stamped into the binary must be the one asked for (a mislabelled build would compare wrongly).
    const stamped = execFileSync(bin, ['--version']).toString().trim();
    if (stamped !== version) throw new Error(`${bin} was built from KubeRay ${stamped}, not ${version}. Fix: delete it and run `
      + `\`${oracleBuildCommand(version)}\``);
    const gates = Object.entries(options.featureGates ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
    const child = spawn(bin, gates ? [`--feature-gates=${gates}`] : [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const oracle = new KubeRayOracle(version, child);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return oracle;
  }

  private readonly pending = new Map<string, Pending>();
  private buffer = '';
  private stderr = '';
  private next = 0;
  private exited?: Error;

  private constructor(public readonly version: string, private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => { this.stderr = (this.stderr + chunk).slice(-4000); });
    child.stdin.on('error', () => { /* reported through 'exit' */ });
    child.on('exit', (code, signal) => {
      const e = new Error(`the KubeRay ${version} oracle exited (${signal ?? `code ${code}`})${this.stderr ? `: ${this.stderr.trim()}` : ''}`);
      this.exited ??= e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    });
  }

  /** KubeRay's verdict on each object, in order. Objects stream through the one process. */
  public validate(objects: readonly unknown[]): Promise<KubeRayVerdict[]> {
    if (this.exited) return Promise.reject(this.exited);
    // Serialise first: an object JSON cannot hold throws here, before anything is pending.
    const ids = objects.map(() => String(this.next++));
    const lines = objects.map((object, i) => JSON.stringify({ id: ids[i], object }));
    const promises = ids.map((id) => new Promise<KubeRayVerdict>((resolve, reject) => this.pending.set(id, { resolve, reject })));
    if (lines.length) this.child.stdin.write(lines.join('\n') + '\n');
    return Promise.all(promises);
  }

  /** Ends the process (closing its input lets it finish what it has). */
  public async stop(): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await done;
    clearTimeout(timer);
  }

  private onData(chunk: string): void {
    const lines = (this.buffer + chunk).split('\n');
    this.buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      let out: KubeRayVerdict & { id?: string };
      try {
        out = JSON.parse(line);
      } catch {
        out = {} as never;
      }
      const p = out.id === undefined ? undefined : this.pending.get(out.id);
      if (!p) {
        this.fail(new Error(`the KubeRay ${this.version} oracle wrote a line that answers nothing asked: ${line.slice(0, 300)}`));
        return;
      }
      this.pending.delete(out.id!);
      delete out.id;
      p.resolve(out);
    }
  }

  private fail(e: Error): void {
    this.exited = e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.child.kill('SIGKILL');
  }
}
