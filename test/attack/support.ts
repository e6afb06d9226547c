/**
 * The attack suite's harness: the controller's real entrypoint (cdk8s-kueue-ray controller, compiled
 * with tsc so the admission worker runs as in the image) in a child process, over real TLS on loopback.
 * A child process, because several attacks aimed at killing the process (V8 aborts no try/catch stops).
 */
import { execFileSync, spawn, ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as path from 'path';
import { makePki, Pki } from '../e2e/support/pki';
import { freePort } from '../e2e/support/cluster';
import { tmpdir } from '../support/synth';
import { REPO_ROOT } from '../support/upstream';

// Its own output directory: the entrypoint test compiles into lib/ at the same time.
export const OUT = path.join(REPO_ROOT, 'node_modules', '.cache', 'cdk8s-kueue-ray-attack');
const ENTRY = path.join(OUT, 'src', 'cli', 'main.js');

/** Compiles the controller (entrypoint, worker and what they import) once per suite. */
export function compileController(): void {
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'),
    path.join(REPO_ROOT, 'src', 'cli', 'main.ts'), path.join(REPO_ROOT, 'src', 'controller', 'admission-worker.ts'),
    '--outDir', OUT, '--rootDir', REPO_ROOT, '--module', 'commonjs', '--target', 'ES2020', '--lib', 'ES2020', '--esModuleInterop', '--skipLibCheck',
    '--resolveJsonModule', '--strict'],
  { stdio: 'pipe' });
}

let pki: Pki | undefined;
export function testPki(): Pki {
  return (pki ??= makePki(path.join(tmpdir(), 'attack-pki')));
}

export interface Controller {
  readonly proc: ChildProcess;
  readonly port: number;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process ended. */
  readonly exited: Promise<number | string>;
  alive(): boolean;
  /** Peak resident memory so far (VmHWM), MiB. */
  peakRssMiB(): number;
  rssMiB(): number;
  stop(): Promise<void>;
}

// The controller image's V8 flags and environment (package.json), read once.
const IMAGE = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))['cdk8s-kueue-ray'];
const NODE_FLAGS: string[] = IMAGE.controllerNodeFlags;
const CONTROLLER_ENV: Record<string, string> = IMAGE.controllerEnvironment;

let controllerNode: string | undefined;
/** The image's Node (scripts/image/node.sh: the pinned package, checked; fetched once into the cache), not the one running jest. */
function imageNode(): string {
  return (controllerNode ??= execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'image', 'node.sh')], { encoding: 'utf8' }).trim());
}

export async function startController(args: string[] = []): Promise<Controller> {
  const p = testPki();
  const port = await freePort();
  // On the image's Node with the image's V8 flags and environment, so memory figures (the pod's limit is sized from them) are the image's.
  const proc = spawn(imageNode(), [...NODE_FLAGS, ENTRY, 'controller', `--tls-cert-file=${p.servingCrt}`, `--tls-key-file=${p.servingKey}`,
    `--port=${port}`, '--host=127.0.0.1', '--reconciler=false', ...args],
  { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...CONTROLLER_ENV } });
  let out = '';
  let ended = false;
  proc.stdout!.on('data', (d) => { out += d; });
  proc.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (c, s) => { ended = true; resolve(c ?? s ?? -1); }));
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => { if (out.includes('webhook listening')) { clearInterval(t); resolve(); } }, 20);
    void exited.then((c) => { clearInterval(t); reject(new Error(`controller exited ${c}: ${out}`)); });
  });
  // Ready once its admission worker has loaded (the server answers /readyz 503 until then).
  for (const t0 = Date.now(); (await request(port, 'GET', '/readyz').catch(() => ({ status: 0 }))).status !== 200;) {
    if (ended) throw new Error(`controller exited: ${out}`);
    if (Date.now() - t0 > 60_000) throw new Error(`controller not ready within 60 s: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const status = (field: string) => {
    try {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    } catch {
      return NaN;
    }
  };
  return {
    proc, port, exited, output: () => out, alive: () => !ended,
    peakRssMiB: () => status('VmHWM'), rssMiB: () => status('VmRSS'),
    stop: async () => {
      if (ended) return;
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: import('http').IncomingHttpHeaders;
  readonly ms: number;
}

/** One HTTPS request on its own connection; a network error becomes status -1 with the error in body. */
export function request(port: number, method: string, p: string, body?: string | Buffer, opts: https.RequestOptions = {}): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port, path: p, method, ca: fs.readFileSync(testPki().caCrt), agent: false,
      headers: { 'Content-Type': 'application/json' }, timeout: 15000, ...opts }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end',
        () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers, ms: Date.now() - started }));
      res.on('error', (e) => resolve({ status: -1, body: String(e), headers: {}, ms: Date.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', (e) => resolve({ status: -1, body: String(e), headers: {}, ms: Date.now() - started }));
    req.end(body);
  });
}

export const post = (port: number, p: string, body: unknown) =>
  request(port, 'POST', p, typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
export const healthy = async (port: number) => (await request(port, 'GET', '/healthz')).status === 200;

/** A valid RayJob, allowed by the policy (no queue label: the controller runs here without an inventory). */
export function rayJob(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name: 'job', namespace: 'team-a', ...metadata },
    spec: {
      entrypoint: 'python train.py', shutdownAfterJobFinishes: true, suspend: true,
      rayClusterSpec: {
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.9.0',
          resources: { requests: { cpu: '1', memory: '2Gi' } } }] } } },
        workerGroupSpecs: [{ groupName: 'workers', replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {},
          template: { spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.9.0',
            resources: { requests: { cpu: '1', memory: '2Gi' } } }] } } }],
      },
      ...spec,
    },
  };
}

export function review(object: any, request: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: { uid: 'attack-1', kind: { group: 'ray.io', version: 'v1', kind: object?.kind ?? 'RayJob' }, namespace: 'team-a', operation: 'CREATE',
      object, ...request },
  };
}

/** The AdmissionReview response of an answer (throws with the answer when it is none). */
export function responseOf(a: Answer): any {
  try {
    const r = JSON.parse(a.body).response;
    if (!r) throw new Error('no response');
    return r;
  } catch {
    throw new Error(`not an AdmissionReview answer: HTTP ${a.status} ${a.body.slice(0, 300)}`);
  }
}
