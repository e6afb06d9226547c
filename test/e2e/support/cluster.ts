/**
 * A real control plane as local processes: etcd, kube-apiserver, kube-controller-manager (garbage
 * collection), Kueue's manager with its webhooks registered by URL, and the KubeRay operator. Built by
 * scripts/testcluster/build.sh into ~/.cache/cdk8s-kueue-ray/bin. Everything binds 127.0.0.1 on free
 * ports in a temp dir and is torn down on stop(), on process exit and on Ctrl-C.
 *
 * E2E_KUBECONFIG=<file> targets an existing cluster instead (Kueue and KubeRay already installed).
 */
import { ChildProcess, spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments, stringify as stringifyYaml } from 'yaml';
import { cacheDir, kubeRayCrdPlurals, listKueueCrds, readKubeRayCrd, readKueueCrd, readKueueFile } from '../../support/upstream';
import { compareVersions } from '../../../src/policy/versions';
import { startTime } from '../../../scripts/cluster/processes';
import { GiveUp, KubeClient, waitFor, WaitTimeout } from './kube';
import { makePki, Pki } from './pki';

export const K8S_VERSION = process.env.K8S_VERSION ?? 'v1.34.1';
export const ETCD_VERSION = process.env.ETCD_VERSION ?? 'v3.6.4';
const SERVICE_CIDR = '10.0.0.0/24';
// Kueue's log verbosity. Upstream's Deployment runs it at 2 (a line per scheduling attempt and Workload event), which
// cost the plan-agreement suite's Kueue about a sixth of its CPU. A test cluster's logs are deleted with it unless
// E2E_KEEP_DIR keeps them, so only then are they written at upstream's level; KUEUE_LOG_LEVEL sets it either way,
// and the benches that time Kueue beside us ask for upstream's (ClusterOptions.kueueLogLevel).
const KUEUE_LOG_LEVEL = process.env.KUEUE_LOG_LEVEL ?? (process.env.E2E_KEEP_DIR ? '2' : 'info');
export const KUEUE_PRODUCTION_LOG_LEVEL = '2';
/** Bump when what a seed holds changes in a way its key does not cover. */
const SEED_FORMAT = 1;

export interface ClusterOptions {
  readonly kueue: string;
  readonly kubeRay: string;
  /** Start Kueue and KubeRay (default true). */
  readonly controllers?: boolean;
  /** With controllers, start the KubeRay operator too (default true; bench:webhook needs only Kueue). */
  readonly kubeRayOperator?: boolean;
  /** Extra Kueue feature gates. */
  readonly kueueFeatureGates?: Record<string, boolean>;
  /** Kueue's `--zap-log-level` (default: `info`, or KUEUE_LOG_LEVEL; 2, upstream's, with E2E_KEEP_DIR). */
  readonly kueueLogLevel?: string;
  /**
   * A Configuration to start Kueue with (e.g. the one KueueInstall synthesized): kept as it is but for
   * what the harness must own to run Kueue out of cluster (health and webhook ports, certificates,
   * leader election, internal cert management; metrics on a loopback port).
   */
  readonly kueueConfiguration?: Record<string, any>;
  /** Extra args for the KubeRay operator (e.g. the synthesized Deployment's flags). */
  readonly kubeRayArgs?: readonly string[];
  /**
   * The API server presents a client certificate (CN=kube-apiserver-webhook-client, signed by the
   * cluster's CA) to every admission webhook, as `--admission-control-config-file` with a
   * WebhookAdmissionConfiguration kubeConfigFile configures it on a self-managed control plane.
   */
  readonly webhookClientCertificate?: boolean;
  /**
   * Where each loopback port a component is given comes from, by role (`kuberay-health`, `etcd`, ...).
   * Default: a port the kernel has just handed out (freePort). The harness's own test hands out a port
   * that another process holds, as two clusters starting side by side can.
   */
  readonly portFor?: (role: string) => Promise<number>;
}

const children = new Set<ChildProcess>();
/** Processes that are not our children but die with the harness (the image's controller, behind unshare). */
const pids = new Set<number>();
let cleanupInstalled = false;
let started = 0;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills processes a previous harness left behind when its own process was killed outright (SIGKILL
 * gives no chance to clean up): each harness records its pid and its children's pids.
 */
function reapOrphans(): void {
  const dir = path.join(cacheDir(), 'run');
  if (!fs.existsSync(dir)) return;
  for (const f of fs.readdirSync(dir)) {
    const owner = Number(f.replace(/\.pids$/, ''));
    if (!owner || alive(owner)) continue;
    // A finished harness's record stays until the next harness reaps it, and harnesses start side by side (the CI
    // lanes): another one may have reaped this file since readdir (a cold CI run on 2026-12-07 failed on that).
    let recorded: string;
    try {
      recorded = fs.readFileSync(path.join(dir, f), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    for (const line of recorded.split('\n').filter(Boolean)) {
      // Only the very process recorded: pids are reused within minutes on a busy machine, and a bare pid
      // could by now be another run's (a CI run's npm was killed that way).
      const [pid, started] = line.split(' ').map(Number);
      if (pid && started && alive(pid) && startTime(pid) === started) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
    }
    fs.rmSync(path.join(dir, f), { force: true });
  }
}

function recordPid(pid: number): void {
  const dir = path.join(cacheDir(), 'run');
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, `${process.pid}.pids`), `${pid} ${startTime(pid) ?? 0}\n`);
}

/**
 * The record goes once nothing it lists runs any more: a harness that stopped its clusters leaves no file for the next
 * one to reap (jest's workers end without always running 'exit' handlers).
 */
function forgetIfIdle(): void {
  if (children.size || pids.size) return;
  fs.rmSync(path.join(cacheDir(), 'run', `${process.pid}.pids`), { force: true });
}

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  reapOrphans();
  const killAll = () => {
    for (const c of children) {
      try { c.kill('SIGKILL'); } catch { /* gone */ }
    }
    for (const pid of pids) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => { killAll(); process.exit(130); });
  }
}

/** Kills `proc` with the cluster's processes when the harness exits, and after a SIGKILLed run (orphan reaping). */
export function trackChild(proc: ChildProcess): void {
  installCleanup();
  children.add(proc);
  if (proc.pid) recordPid(proc.pid);
  proc.on('exit', () => {
    children.delete(proc);
    forgetIfIdle();
  });
}

/** The same for a process that is not our child; `untrack` once it is gone. */
export function trackPid(pid: number): { untrack(): void } {
  installCleanup();
  pids.add(pid);
  recordPid(pid);
  return { untrack: () => {
    pids.delete(pid);
    forgetIfIdle();
  } };
}

export function binary(name: string): string {
  const p = path.join(cacheDir(), 'bin', name);
  if (!fs.existsSync(p)) {
    throw new Error(`${p} is missing: build the test control plane with scripts/testcluster/build.sh (it reports what the Go module `
      + 'proxy could not serve)');
  }
  return p;
}

// The ports freePort() handed out lately: the kernel may give a port it just released to the next bind(0), and
// one component given two equal ports fails after its first listener answers (the metrics and health ports).
const recentPorts: number[] = [];

/** A loopback port no socket holds now, and not one this process handed out among its last 64. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    if (recentPorts.includes(port)) continue;
    recentPorts.push(port);
    if (recentPorts.length > 64) recentPorts.shift();
    return port;
  }
}

/** The TCP ports `pid` itself listens on: its socket fds matched against the kernel's table of listening sockets. */
export function listeningPorts(pid: number): Set<number> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { return new Set(); }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try { text = fs.readFileSync(table, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is ADDR:PORT in hex, st 0A is LISTEN, field 9 the socket's inode.
      if (f.length > 9 && f[3] === '0A' && inodes.has(f[9])) ports.add(parseInt(f[1].split(':')[1], 16));
    }
  }
  return ports;
}

/** A component that never listened on a port it was given: another process holds it (the boot is retried). */
class PortTaken extends Error {}

function probe(url: string, pki?: Pki): Promise<number> {
  return new Promise((resolve) => {
    const mod = url.startsWith('https') ? https : http;
    const tls = pki
      ? { ca: fs.readFileSync(pki.caCrt), cert: fs.readFileSync(pki.adminCrt), key: fs.readFileSync(pki.adminKey) }
      : { rejectUnauthorized: false };
    const req = (mod as typeof https).get(url, tls, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => { req.destroy(); resolve(0); });
  });
}

export class TestCluster {
  /** Starts a cluster (or attaches to E2E_KUBECONFIG). */
  static async start(opts: ClusterOptions): Promise<TestCluster> {
    if (process.env.E2E_KUBECONFIG) {
      const c = new TestCluster(opts, path.dirname(process.env.E2E_KUBECONFIG), process.env.E2E_KUBECONFIG, true);
      return c;
    }
    installCleanup();
    // freePort() releases the port before the process binds it, and clusters start side by side: another
    // process can take it in between. A boot that failed on a taken port is started again on fresh ports.
    for (let attempt = 1; ; attempt++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-cluster-'));
      const c = new TestCluster(opts, dir, path.join(dir, 'admin.kubeconfig'), false);
      c.bootAttempts = attempt;
      try {
        await c.boot();
        return c;
      } catch (e) {
        const logs = c.logTails();
        await c.stop();
        if (attempt < 3 && (e instanceof PortTaken || logs.includes('address already in use'))) {
          process.stdout.write(`[testcluster] a port was taken while booting (attempt ${attempt}: ${(e as Error).message.split('\n')[0]}); `
            + 'booting again on fresh ports\n');
          continue;
        }
        throw new Error(`${(e as Error).message}\n--- process logs ---\n${logs}`);
      }
    }
  }

  public readonly client: KubeClient;
  public readonly timings: Record<string, number> = {};
  /** Which boot this cluster is: above 1 when an earlier one found a port taken. */
  public bootAttempts = 1;
  /** Kueue's webhook server on loopback (set once Kueue started), with the CA its certificate chains to. */
  public kueueWebhook?: { readonly port: number; readonly caFile: string; readonly pid: number };
  /** Kueue's metrics port on loopback (HTTPS, bearer-token authorized), when started with kueueConfiguration. */
  public kueueMetricsPort?: number;
  /** The KubeRay operator's metrics port on loopback (HTTP). */
  public kubeRayMetricsPort?: number;
  private readonly procs: Array<{ name: string; proc: ChildProcess; log: string }> = [];
  private pki?: Pki;
  private clientInit?: KubeClient;
  private apiServerArgs?: string[];
  private apiServerUrl?: string;
  /** The pair's CRDs, read once per cluster (the seed's key and the install both need them). */
  private crds?: Promise<any[]>;

  private constructor(
    public readonly options: ClusterOptions, public readonly dir: string, public readonly kubeconfig: string, public readonly external: boolean,
  ) {
    this.client = external ? KubeClient.fromKubeconfig(kubeconfig) : (undefined as any);
  }

  private spawnProc(name: string, bin: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
    const log = path.join(this.dir, `${name}.log`);
    const fd = fs.openSync(log, 'a');
    const proc = spawn(bin, args, { stdio: ['ignore', fd, fd], env: { ...process.env, ...env } });
    fs.closeSync(fd);
    trackChild(proc);
    this.procs.push({ name, proc, log });
    return proc;
  }

  /**
   * Kills kube-apiserver (SIGKILL by default, as a crash: every watch and connection drops at once;
   * SIGTERM drains watches for about a minute) and starts it again on the same port and etcd;
   * resolves once it is ready again.
   */
  async restartApiServer(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.external || !this.apiServerArgs) throw new Error('restartApiServer needs the local test control plane');
    await this.stopProc('kube-apiserver', signal);
    await this.runApiServer('kube-apiserver /readyz after the restart');
  }

  private alive(name: string): void {
    const p = this.procs.find((x) => x.name === name);
    if (p && (p.proc.exitCode !== null || p.proc.signalCode !== null)) {
      throw new GiveUp(`${name} exited (${p.proc.exitCode ?? p.proc.signalCode})`);
    }
  }

  /** A loopback port for a component, from options.portFor when a test hands them out. */
  private port(role: string): Promise<number> {
    return this.options.portFor ? this.options.portFor(role) : freePort();
  }

  /**
   * Waits until `name` itself listens on each of `ports`. Its readiness probe alone does not show that:
   * the port may be another process's, which answers the probe, and the KubeRay operator v1.6.2 answers
   * /healthz before its metrics server fails to bind and the process exits (the v0.14.8 + v1.6.2 scenario
   * failures of issue 39: Kueue admitted every RayJob and no RayCluster ever appeared).
   */
  private async listening(name: string, ports: number[]): Promise<void> {
    const p = this.procs.find((x) => x.name === name && x.proc.exitCode === null && x.proc.signalCode === null);
    const pid = p?.proc.pid;
    let missing = ports;
    try {
      await waitFor(`${name} to listen on ${ports.join(', ')}`, async () => {
        this.alive(name);
        const own = pid ? listeningPorts(pid) : new Set<number>();
        missing = ports.filter((x) => !own.has(x));
        return missing.length === 0;
      }, 30000, 100);
    } catch (e) {
      if (!(e instanceof WaitTimeout)) throw e;
      throw new PortTaken(`${(e as Error).message}: it does not listen on 127.0.0.1:${missing.join(', 127.0.0.1:')}, which another `
        + 'process holds');
    }
  }

  logTails(lines = 25): string {
    return this.procs.map((p) => {
      const text = fs.existsSync(p.log) ? fs.readFileSync(p.log, 'utf8').trim().split('\n').slice(-lines).join('\n') : '';
      return `[${p.name}]\n${text}`;
    }).join('\n');
  }

  private async phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const t = Date.now();
    const r = await fn();
    this.timings[name] = (Date.now() - t) / 1000;
    return r;
  }

  private async boot(): Promise<void> {
    const t0 = Date.now();
    const cold = started++ === 0;
    const pki = (this.pki = makePki(path.join(this.dir, 'pki')));
    const ports = { etcd: await this.port('etcd'), peer: await this.port('etcd-peer'), api: await this.port('kube-apiserver'),
      kcm: await this.port('kube-controller-manager') };

    // etcd starts from the seed of this CRD set when one exists: the CRDs are then already stored and established.
    const seed = await this.etcdSeed();
    if (seed.exists) fs.cpSync(seed.dir, path.join(this.dir, 'etcd'), { recursive: true });
    await this.phase('etcd', () => this.startEtcd(ports));
    await this.phase('kube-apiserver', () => this.startApiServer(ports, pki));
    this.writeKubeconfig(`https://127.0.0.1:${ports.api}`);
    (this as any).client = KubeClient.fromKubeconfig(this.kubeconfig);
    this.clientInit = this.client;

    await this.phase('crds', () => this.installCrds(seed.exists));
    if (!seed.exists) await this.phase('etcd seed', () => this.saveEtcdSeed(seed.dir, ports));
    // Started after the CRDs exist, so the garbage collector's REST mapping covers the Ray and Kueue kinds at once.
    this.spawnProc('kube-controller-manager', binary(`kube-controller-manager-${K8S_VERSION}`), [
      `--kubeconfig=${this.componentKubeconfig('kcm')}`, `--authentication-kubeconfig=${this.kubeconfig}`,
      `--authorization-kubeconfig=${this.kubeconfig}`,
      '--controllers=garbage-collector-controller,namespace-controller', '--leader-elect=false', '--bind-address=127.0.0.1',
      `--secure-port=${ports.kcm}`, '--v=0',
    ]);


    if (this.options.controllers ?? true) {
      await this.phase('kueue', () => this.startKueue());
      if (this.options.kubeRayOperator ?? true) await this.phase('kuberay', () => this.startKubeRay());
    }
    // Nothing probes the garbage collector's readiness; that it holds its port shows it did not exit on a taken one.
    await this.listening('kube-controller-manager', [ports.kcm]);
    this.timings.total = (Date.now() - t0) / 1000;
    const parts = Object.entries(this.timings).filter(([k]) => k !== 'total').map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ');
    process.stdout.write(`[testcluster] Kueue ${this.options.kueue}`
      + `${this.options.kubeRayOperator === false ? '' : ` + KubeRay ${this.options.kubeRay}`} on kube-apiserver ${K8S_VERSION}: `
      + `${cold ? 'cold' : 'warm'} start ${this.timings.total.toFixed(1)} s (${parts})\n`);
  }

  private async startEtcd(ports: { etcd: number; peer: number }): Promise<void> {
    const url = `http://127.0.0.1:${ports.etcd}`;
    this.spawnProc('etcd', binary(`etcd-${ETCD_VERSION}`), [
      '--name=e2e', `--data-dir=${path.join(this.dir, 'etcd')}`, `--listen-client-urls=${url}`, `--advertise-client-urls=${url}`,
      `--listen-peer-urls=http://127.0.0.1:${ports.peer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${ports.peer}`,
      `--initial-cluster=e2e=http://127.0.0.1:${ports.peer}`, '--unsafe-no-fsync=true', '--logger=zap', '--log-level=warn',
    ]);
    await waitFor('etcd /health', async () => { this.alive('etcd'); return (await probe(`${url}/health`)) === 200; }, 30000, 100);
    await this.listening('etcd', [ports.etcd, ports.peer]);
  }

  private async startApiServer(ports: { etcd: number; api: number }, pki: Pki): Promise<void> {
    this.apiServerArgs = [
      `--etcd-servers=http://127.0.0.1:${ports.etcd}`, '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1',
      `--secure-port=${ports.api}`, `--cert-dir=${path.join(this.dir, 'apiserver-certs')}`,
      `--tls-cert-file=${pki.servingCrt}`, `--tls-private-key-file=${pki.servingKey}`, `--client-ca-file=${pki.caCrt}`,
      '--authorization-mode=RBAC', `--service-account-issuer=https://127.0.0.1:${ports.api}/`,
      `--service-account-key-file=${pki.saPub}`, `--service-account-signing-key-file=${pki.saKey}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`, '--allow-privileged=true', '--disable-admission-plugins=ServiceAccount',
      '--enable-priority-and-fairness=false', '--profiling=false', '--v=0',
      ...(this.options.webhookClientCertificate ? [`--admission-control-config-file=${this.webhookClientConfig(pki)}`] : []),
    ];
    this.apiServerUrl = `https://127.0.0.1:${ports.api}`;
    await this.runApiServer('kube-apiserver /readyz');
  }

  /** Starts kube-apiserver with the arguments startApiServer chose, and waits until it is ready on its own port. */
  private async runApiServer(what: string): Promise<void> {
    this.spawnProc('kube-apiserver', binary(`kube-apiserver-${K8S_VERSION}`), this.apiServerArgs!);
    await waitFor(what, async () => {
      this.alive('kube-apiserver');
      return (await probe(`${this.apiServerUrl}/readyz`, this.pki!)) === 200;
    }, 90000, 200);
    await this.listening('kube-apiserver', [Number(new URL(this.apiServerUrl!).port)]);
  }

  /**
   * Installing the CRDs costs kube-apiserver about 11 CPU seconds per boot (creating and establishing some 20 CRDs of
   * up to 1.4 MB: validation, managed fields, OpenAPI), against about 5 to start on an etcd that holds them already.
   * So the first boot of a CRD set keeps etcd's data dir once they are established (the seed), and later boots of that
   * set start etcd on a copy. The seed holds only what kube-apiserver writes for itself and the CRDs; its key covers
   * the CRDs, the Kubernetes and etcd versions and the service range.
   */
  private async etcdSeed(): Promise<{ dir: string; exists: boolean }> {
    const key = createHash('sha256').update(JSON.stringify([SEED_FORMAT, K8S_VERSION, ETCD_VERSION, SERVICE_CIDR, await this.crdDocs()]))
      .digest('hex').slice(0, 16);
    const dir = path.join(cacheDir(), 'etcd-seeds', `kueue-${this.options.kueue}_kuberay-${this.options.kubeRay}_${key}`);
    return { dir, exists: fs.existsSync(path.join(dir, 'member')) };
  }

  /** Stops kube-apiserver and etcd, keeps etcd's data dir as the seed, and starts both again on it. */
  private async saveEtcdSeed(seedDir: string, ports: { etcd: number; peer: number }): Promise<void> {
    await this.stopProc('kube-apiserver', 'SIGKILL'); // nothing is in flight: the CRDs are established
    await this.stopProc('etcd', 'SIGTERM'); // a clean stop: the data dir is whole
    fs.mkdirSync(path.dirname(seedDir), { recursive: true });
    const tmp = `${seedDir}.tmp-${process.pid}-${Date.now()}`;
    fs.cpSync(path.join(this.dir, 'etcd'), tmp, { recursive: true });
    try {
      fs.renameSync(tmp, seedDir);
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }); // a cluster booting beside this one saved the same seed first
    }
    await this.startEtcd(ports);
    await this.runApiServer('kube-apiserver /readyz on the seed');
  }

  private async stopProc(name: string, signal: NodeJS.Signals): Promise<void> {
    const i = this.procs.findIndex((x) => x.name === name && x.proc.exitCode === null && x.proc.signalCode === null);
    if (i < 0) return;
    const p = this.procs[i].proc;
    await new Promise<void>((r) => { p.once('exit', () => r()); p.kill(signal); });
    this.procs.splice(i, 1);
  }

  private writeKubeconfig(server: string): void {
    const pki = this.pki!;
    const write = (file: string, crt: string, key: string, user = 'e2e-admin') => {
      const b64 = (f: string) => fs.readFileSync(f).toString('base64');
      fs.writeFileSync(file, [
        'apiVersion: v1', 'kind: Config', 'current-context: e2e',
        'clusters:', '- name: e2e', '  cluster:', `    server: ${server}`, `    certificate-authority-data: ${b64(pki.caCrt)}`,
        'users:', `- name: ${user}`, '  user:', `    client-certificate-data: ${b64(crt)}`, `    client-key-data: ${b64(key)}`,
        'contexts:', '- name: e2e', '  context:', '    cluster: e2e', `    user: ${user}`, '',
      ].join('\n'));
    };
    write(this.kubeconfig, pki.adminCrt, pki.adminKey);
    // Each component acts as its real ServiceAccount would, so admission sees the same users as in a cluster.
    for (const [name, c] of Object.entries(pki.components)) write(this.componentKubeconfig(name as keyof Pki['components']), c.crt, c.key,
      `e2e-${name}`);
  }

  /** The AdmissionConfiguration that makes the API server present pki.webhookClient to every webhook ("*"). */
  private webhookClientConfig(pki: Pki): string {
    const kubeconfig = path.join(this.dir, 'webhook-client.kubeconfig');
    const b64 = (f: string) => fs.readFileSync(f).toString('base64');
    fs.writeFileSync(kubeconfig, [
      'apiVersion: v1', 'kind: Config', 'users:', '- name: "*"', '  user:',
      `    client-certificate-data: ${b64(pki.webhookClient.crt)}`, `    client-key-data: ${b64(pki.webhookClient.key)}`, '',
    ].join('\n'));
    const file = path.join(this.dir, 'admission-config.yaml');
    const plugin = (name: string) => [`- name: ${name}`, '  configuration:', '    apiVersion: apiserver.config.k8s.io/v1',
      '    kind: WebhookAdmissionConfiguration', `    kubeConfigFile: ${kubeconfig}`];
    fs.writeFileSync(file, ['apiVersion: apiserver.config.k8s.io/v1', 'kind: AdmissionConfiguration', 'plugins:',
      ...plugin('ValidatingAdmissionWebhook'), ...plugin('MutatingAdmissionWebhook'), ''].join('\n'));
    return file;
  }

  /** The kubeconfig a component (KubeRay, Kueue, kube-controller-manager) runs with. */
  componentKubeconfig(name: keyof Pki['components']): string {
    return this.external ? this.kubeconfig : path.join(this.dir, `${name}.kubeconfig`);
  }

  /** The CRDs of both projects at the chosen versions, parsed once and cached as JSON (YAML parsing of the 1.4 MB CRDs costs seconds). */
  private crdDocs(): Promise<any[]> {
    this.crds ??= this.readCrdDocs();
    return this.crds;
  }

  private async readCrdDocs(): Promise<any[]> {
    const file = path.join(cacheDir(), 'crd-json', `kueue-${this.options.kueue}_kuberay-${this.options.kubeRay}.json`);
    if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
    const docs: any[] = [];
    for (const f of await listKueueCrds(this.options.kueue)) {
      docs.push(...parseAllDocuments(await readKueueCrd(this.options.kueue, f.replace(/^kueue\.x-k8s\.io_/, '').replace(/\.yaml$/, ''))).map((d) => d.toJS()));
    }
    for (const p of kubeRayCrdPlurals(this.options.kubeRay)) {
      docs.push(...parseAllDocuments(await readKubeRayCrd(this.options.kubeRay, p)).map((d) => d.toJS()));
    }
    const crds = docs.filter((d) => d?.kind === 'CustomResourceDefinition');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(crds));
    return crds;
  }

  /**
   * Applies the CRDs (unless etcd's seed holds them already) and waits until each is served. It reads discovery (a
   * group-version lists a CRD's resource once the CRD is Established and its handler serves it), not the CRDs: a GET
   * of each CRD per poll made kube-apiserver encode up to 1.4 MB per CRD, 7 of its 12 CPU seconds of a boot.
   */
  private async installCrds(present: boolean): Promise<void> {
    const crds = await this.crdDocs();
    if (!present) await Promise.all(crds.map((crd) => this.client.apply(crd)));
    const pending = new Map<string, Set<string>>(); // /apis/group/version → the resources it must list
    for (const crd of crds) {
      for (const v of crd.spec.versions ?? []) {
        if (!v.served) continue;
        const gv = `/apis/${crd.spec.group}/${v.name}`;
        pending.set(gv, (pending.get(gv) ?? new Set()).add(crd.spec.names.plural));
      }
    }
    await waitFor('CRDs Established and served', async () => {
      for (const [gv, plurals] of pending) {
        const r = await this.client.request('GET', gv);
        const listed = new Set<string>(r.status === 200 ? (r.body?.resources ?? []).map((x: any) => x.name) : []);
        if ([...plurals].some((p) => !listed.has(p))) return false;
        pending.delete(gv);
      }
      return true;
    }, 60000);
  }

  private async startKueue(): Promise<void> {
    const v = this.options.kueue;
    const pki = this.pki!;
    const webhookPort = await this.port('kueue-webhook');
    const healthPort = await this.port('kueue-health');
    const certDir = path.join(this.dir, 'kueue-certs');
    fs.mkdirSync(certDir, { recursive: true });
    fs.copyFileSync(pki.servingCrt, path.join(certDir, 'tls.crt'));
    fs.copyFileSync(pki.servingKey, path.join(certDir, 'tls.key'));
    // Kueue reads a metrics certificate from a hard-coded path whenever internal cert management is
    // off, even with metrics disabled (research/testcluster.md §3.1 trap 1).
    const metricsCerts = '/etc/kueue/metrics/certs';
    if (!fs.existsSync(path.join(metricsCerts, 'tls.crt'))) {
      try {
        fs.mkdirSync(metricsCerts, { recursive: true });
        fs.copyFileSync(pki.servingCrt, path.join(metricsCerts, 'tls.crt'));
        fs.copyFileSync(pki.servingKey, path.join(metricsCerts, 'tls.key'));
      } catch (e) {
        throw new Error(`Kueue out of cluster needs ${metricsCerts}/tls.{crt,key} (any self-signed pair) and it cannot be `
          + `created: ${(e as Error).message}`);
      }
    }
    await this.client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kueue-system' } });
    const beta2 = compareVersions(v, 'v0.15.0') >= 0; // the Config API moved to v1beta2 in 0.15
    const frameworks = ['ray.io/rayjob', 'ray.io/raycluster', ...(compareVersions(v, 'v0.17.0') >= 0 ? ['ray.io/rayservice'] : [])];
    const metricsPort = this.options.kueueConfiguration ? await this.port('kueue-metrics') : undefined;
    const config = this.options.kueueConfiguration ? stringifyYaml({
      ...this.options.kueueConfiguration, namespace: 'kueue-system',
      health: { healthProbeBindAddress: `127.0.0.1:${healthPort}` },
      // Served over TLS with the certificate below, behind Kueue's authentication and authorization.
      metrics: { ...(this.options.kueueConfiguration.metrics ?? {}), bindAddress: `127.0.0.1:${metricsPort}` },
      webhook: { port: webhookPort, host: '127.0.0.1', certDir },
      leaderElection: { leaderElect: false },
      internalCertManagement: { enable: false },
    }) : [
      `apiVersion: config.kueue.x-k8s.io/${beta2 ? 'v1beta2' : 'v1beta1'}`, 'kind: Configuration', 'namespace: kueue-system',
      'health:', `  healthProbeBindAddress: 127.0.0.1:${healthPort}`,
      'metrics:', '  bindAddress: "0"',
      'webhook:', `  port: ${webhookPort}`, '  host: 127.0.0.1', `  certDir: ${certDir}`,
      'leaderElection:', '  leaderElect: false',
      'internalCertManagement:', '  enable: false',
      'integrations:', '  frameworks:', ...frameworks.map((f) => `  - ${f}`), '',
    ].join('\n');
    const configFile = path.join(this.dir, 'kueue-config.yaml');
    fs.writeFileSync(configFile, config);
    const gates = { VisibilityOnDemand: false, ElasticJobsViaWorkloadSlices: true, ...(this.options.kueueFeatureGates ?? {}) };
    const kueue = this.spawnProc('kueue', binary(`kueue-${v}`), [
      `--config=${configFile}`, `--zap-log-level=${this.options.kueueLogLevel ?? KUEUE_LOG_LEVEL}`,
      `--feature-gates=${Object.entries(gates).map(([k, b]) => `${k}=${b}`).join(',')}`,
    ], { KUBECONFIG: this.componentKubeconfig('kueue') }); // controller-runtime reads KUBECONFIG; a --kubeconfig flag is not registered everywhere
    await waitFor('Kueue /readyz', async () => { this.alive('kueue'); return (await probe(`http://127.0.0.1:${healthPort}/readyz`)) === 200; }, 90000, 250);
    await this.listening('kueue', [webhookPort, healthPort, ...(metricsPort ? [metricsPort] : [])]);
    await this.registerKueueWebhooks(webhookPort);
    this.kueueWebhook = { port: webhookPort, caFile: pki.caCrt, pid: kueue.pid! };
    if (metricsPort) this.kueueMetricsPort = metricsPort;
  }

  /** Kueue's webhook configurations, limited to the kueue.x-k8s.io and ray.io webhooks, pointed at the local server. */
  private async registerKueueWebhooks(port: number): Promise<void> {
    const text = await readKueueFile(this.options.kueue, 'config/components/webhook/manifests.yaml');
    const caBundle = fs.readFileSync(this.pki!.caCrt).toString('base64');
    for (const doc of parseAllDocuments(text).map((d) => d.toJS()).filter(Boolean)) {
      const webhooks = (doc.webhooks ?? []).filter((w: any) => (w.rules
        ?? []).some((r: any) => (r.apiGroups ?? []).some((g: string) => g === 'ray.io' || g === 'kueue.x-k8s.io')));
      const obj = {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: doc.kind,
        metadata: { name: doc.kind === 'MutatingWebhookConfiguration' ? 'kueue-mutating-webhook-configuration'
          : 'kueue-validating-webhook-configuration' },
        webhooks: webhooks.map((w: any) => ({ ...w, clientConfig: { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle } })),
      };
      await this.client.apply(obj);
    }
  }

  private async startKubeRay(): Promise<void> {
    const metrics = await this.port('kuberay-metrics');
    const health = await this.port('kuberay-health');
    this.spawnProc('kuberay-operator', binary(`kuberay-operator-${this.options.kubeRay}`), [
      `--metrics-addr=127.0.0.1:${metrics}`, `--health-probe-bind-address=127.0.0.1:${health}`,
      '--enable-leader-election=false', '--log-stdout-encoder=console', ...(this.options.kubeRayArgs ?? []),
    ], { KUBECONFIG: this.componentKubeconfig('kuberay') });
    this.kubeRayMetricsPort = metrics;
    await waitFor('KubeRay /healthz', async () => { this.alive('kuberay-operator'); return (await probe(`http://127.0.0.1:${health}/healthz`)) === 200; }, 60000, 250);
    await this.listening('kuberay-operator', [metrics, health]);
  }

  /** The processes that have exited, with their exit code or signal ("" when all run). For a timed-out wait's report. */
  exited(): string {
    return this.procs.filter((p) => p.proc.exitCode !== null || p.proc.signalCode !== null)
      .map((p) => `${p.name} exited (${p.proc.exitCode ?? p.proc.signalCode})`).join(', ');
  }

  /** The last `lines` lines of a process's log that mention `text` (an object's name): what a controller did with it. */
  logLines(name: string, text: string, lines = 30): string {
    const p = this.procs.find((x) => x.name === name);
    if (!p || !fs.existsSync(p.log)) return '';
    return fs.readFileSync(p.log, 'utf8').split('\n').filter((l) => l.includes(text)).slice(-lines).join('\n');
  }

  /** PIDs of the processes this cluster started. */
  pids(): number[] {
    return this.procs.map((p) => p.proc.pid).filter((p): p is number => p !== undefined);
  }

  /** Stops every process (SIGTERM, then SIGKILL) and removes the temp dir. */
  async stop(): Promise<void> {
    this.clientInit?.close();
    if (this.external) return;
    const order = [...this.procs].reverse();
    for (const p of order) if (p.proc.exitCode === null) p.proc.kill('SIGTERM');
    const deadline = Date.now() + 5000;
    const running = () => order.some((p) => p.proc.exitCode === null && p.proc.signalCode === null);
    while (running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const p of order) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    // Wait until each process is reaped, so none survives stop() even as a zombie.
    await Promise.all(order.map((p) => (p.proc.exitCode !== null || p.proc.signalCode !== null ? Promise.resolve()
      : new Promise<void>((r) => p.proc.once('exit', () => r())))));
    if (!process.env.E2E_KEEP_DIR) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
