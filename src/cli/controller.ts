/**
 * `cdk8s-kueue-ray controller ...`: the admission webhook server (the image's entrypoint). main.ts loads
 * this module only for that subcommand, so `check` and `plan` never load the controller.
 *
 * It serves the webhook (view of the cluster from informers; `--reconciler=false` runs it without
 * cluster access, on an empty view) and runs the reconciler. Certificates come from files, or are
 * self-managed (Secret, caBundle, renewal) when no files are given.
 */
import * as fs from 'fs';
import { AdmissionConfig, ClusterView } from '../controller/admission';
import { MetricsServer } from '../controller/metrics-server';
import { WebhookServer } from '../controller/server';
import {
  CONTROLLER_SERVICE_ACCOUNT, DEFAULT_KUBERAY_VERSION, DEFAULT_KUEUE_VERSION, DEFAULT_TRUSTED_WRITERS, Inventory, KUBERAY_OPERATOR_SERVICE_ACCOUNT,
  kubeRayCapabilities,
  KUEUE_CONTROLLER_SERVICE_ACCOUNT, kueueCapabilities, parseServiceAccount,
} from '../policy';
import { log } from './json-log';

function parseFlags(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of argv) {
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument '${a}' (flags are --name=value)`);
    out[m[1]] = m[2] ?? 'true';
  }
  return out;
}

const KNOWN = ['kueue-version', 'kuberay-version', 'namespace', 'port', 'host', 'tls-cert-file', 'tls-key-file', 'webhook-configurations', 'service',
  'graceful-preemption', 'reconciler', 'kubeconfig', 'admission-workers', 'tls-reload-seconds', 'shutdown-grace-seconds', 'metrics-port',
  'kuberay-service-account', 'kueue-service-account', 'controller-service-account', 'client-ca-file'];

/** The checked numbers and switches of the controller's flags. */
interface ControllerSettings {
  readonly clusterAccess: boolean;
  readonly kubeconfigFile?: string;
  readonly namespace: string;
  readonly graceSeconds: number;
  readonly workers: number;
  readonly metricsPort: number;
}

/** Refuses unknown flags and out-of-range values before anything starts. */
function controllerSettings(f: Record<string, string>): ControllerSettings {
  const unknown = Object.keys(f).filter((k) => !KNOWN.includes(k));
  if (unknown.length) throw new Error(`unknown flag(s) ${unknown.map((u) => `--${u}`).join(', ')}; known: ${KNOWN.map((k) => `--${k}`).join(', ')}`);
  const clusterAccess = (f.reconciler ?? 'true') !== 'false';
  if (f['tls-reload-seconds'] !== undefined && !(Number(f['tls-reload-seconds']) >= 1)) throw new Error('--tls-reload-seconds takes a number of '
    + `seconds >= 1, got '${f['tls-reload-seconds']}'`);
  const graceSeconds = Number(f['shutdown-grace-seconds'] ?? 5);
  if (!(graceSeconds >= 0 && graceSeconds <= 300)) throw new Error('--shutdown-grace-seconds takes 0 to 300 (how long the webhook keeps serving '
    + `after SIGTERM, with /readyz failing), got '${f['shutdown-grace-seconds']}'`);
  const workers = Number(f['admission-workers'] ?? 1);
  if (!Number.isInteger(workers) || workers < 0 || workers > 16) throw new Error('--admission-workers takes 0 to 16 (worker threads that parse and '
    + `decide reviews; 0 decides on the server thread), got '${f['admission-workers']}'`);
  const metricsPort = Number(f['metrics-port'] ?? 8080);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535 || (metricsPort !== 0 && metricsPort === Number(f.port
    ?? 9443))) throw new Error(`--metrics-port takes a port other than the webhook's (0 turns metrics off), got '${f['metrics-port']}'`);
  if (!!f['tls-cert-file'] !== !!f['tls-key-file']) throw new Error('--tls-cert-file and --tls-key-file go together');
  if (!f['tls-cert-file'] && !clusterAccess) throw new Error('without cluster access (--reconciler=false) give --tls-cert-file and --tls-key-file');
  return { clusterAccess, kubeconfigFile: f.kubeconfig ?? process.env.KUBECONFIG, namespace: f.namespace ?? 'cdk8s-kueue-ray-system', graceSeconds,
    workers, metricsPort };
}

/** What the webhooks decide with: the versions, the trusted writers, the graceful-preemption defaults. */
function admissionConfigOf(f: Record<string, string>, namespace: string): AdmissionConfig {
  return {
    kueue: kueueCapabilities(f['kueue-version'] ?? DEFAULT_KUEUE_VERSION),
    kubeRay: kubeRayCapabilities(f['kuberay-version'] ?? DEFAULT_KUBERAY_VERSION),
    elasticGate: 'unknown',
    writers: {
      ...DEFAULT_TRUSTED_WRITERS,
      kubeRay: [parseServiceAccount(f['kuberay-service-account']
        ?? `${KUBERAY_OPERATOR_SERVICE_ACCOUNT.namespace}/${KUBERAY_OPERATOR_SERVICE_ACCOUNT.name}`, '--kuberay-service-account')],
      kueue: [parseServiceAccount(f['kueue-service-account']
        ?? `${KUEUE_CONTROLLER_SERVICE_ACCOUNT.namespace}/${KUEUE_CONTROLLER_SERVICE_ACCOUNT.name}`, '--kueue-service-account')],
      controller: [parseServiceAccount(f['controller-service-account'] ?? `${namespace}/${CONTROLLER_SERVICE_ACCOUNT.name}`,
        '--controller-service-account')],
    },
    gracefulPreemption: f['graceful-preemption'] ? (() => {
      const [g, s] = f['graceful-preemption'].split(':').map(Number);
      if (!(g >= 0) || !(s >= 0)) throw new Error('--graceful-preemption takes <terminationGracePeriodSeconds>:<preStopSleepSeconds>, e.g. 120:30');
      return { terminationGracePeriodSeconds: g, preStopSleepSeconds: s };
    })() : undefined,
  };
}

type CertificateRenewal = { start(cb: (p: { cert: string; key: string }) => void): void; stop(): void };

/** The serving pair: from files, or self-managed (a Secret, the caBundle of our webhook configurations, renewal). */
async function servingCertificate(f: Record<string, string>, s: ControllerSettings)
  : Promise<{ cert: string | Buffer; key: string | Buffer; store?: CertificateRenewal }> {
  if (f['tls-cert-file']) return { cert: fs.readFileSync(f['tls-cert-file']), key: fs.readFileSync(f['tls-key-file']) };
  const [mutating, validating] = (f['webhook-configurations'] ?? 'cdk8s-kueue-ray-mutating,cdk8s-kueue-ray-validating').split(',');
  const { CertificateStore } = await import('../controller/certificate-store');
  const store = new CertificateStore({
    kubeconfigFile: s.kubeconfigFile, namespace: s.namespace, service: f.service ?? 'cdk8s-kueue-ray-controller',
    mutatingWebhookConfiguration: mutating, validatingWebhookConfiguration: validating, log,
  });
  const pair = await store.ensure();
  return { cert: pair.cert, key: pair.key, store };
}

/**
 * Re-reads certificate files (e.g. a cert-manager Secret mounted by the kubelet) every `seconds` and
 * serves a changed pair on new connections. A timer, not a file watch: the kubelet swaps the files.
 */
function reloadCertificateFiles(server: WebhookServer, certFile: string, keyFile: string, seconds: number, initial: string): NodeJS.Timeout {
  let last = initial;
  const timer = setInterval(() => {
    try {
      const c = fs.readFileSync(certFile);
      const k = fs.readFileSync(keyFile);
      const pair = `${c.toString()}\n${k.toString()}`;
      if (pair === last) return;
      server.reloadCertificate(c, k);
      last = pair;
      log({ level: 'info', msg: 'webhook certificate reloaded', file: certFile });
    } catch (e) {
      // A half-swapped pair or a missing file: keep serving the old certificate, try again next time.
      log({ level: 'warn', msg: 'webhook certificate not reloaded', error: (e as Error).message });
    }
  }, seconds * 1000);
  timer.unref();
  return timer;
}

/** What a stop has to end; the cluster parts are set once they have started. */
interface Running {
  readonly server: WebhookServer;
  readonly metrics?: MetricsServer;
  readonly store?: CertificateRenewal;
  readonly reloadTimer?: NodeJS.Timeout;
  reconciler?: { stop(): Promise<void> };
  cache?: { stop(): Promise<void> };
  stopping: boolean;
}

/**
 * Installs the SIGTERM/SIGINT handlers. As PID 1 of a container the process ignores SIGTERM until it
 * has one, and the informers and the Lease can take a while to start; a stop during start-up exits all the same.
 */
function stopOnSignals(run: Running, graceSeconds: number): void {
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      if (run.stopping) return;
      run.stopping = true;
      // Readiness fails at once; the webhook keeps serving for the grace period (the API server may
      // still hold connections to this pod), then drains; the informers serve its view until then.
      log({ level: 'info', msg: 'stopping: readiness fails, serving for the grace period, then draining in-flight requests', signal: sig,
        graceSeconds });
      run.store?.stop();
      if (run.reloadTimer) clearInterval(run.reloadTimer);
      const drained = run.server.stop(20000, graceSeconds * 1000).then(() => run.cache?.stop());
      void Promise.all([drained, run.metrics?.stop(), run.reconciler?.stop()]).then(() => {
        log({ level: 'info', msg: 'stopped' });
        process.exit(0);
      });
    });
  }
}

/**
 * Starts the informers (the webhook's view from then on) and the reconciler. Loaded only when used:
 * they pull in @kubernetes/client-node (ESM, loaded with require on Node >= 20.19).
 */
async function startClusterAccess(run: Running, config: AdmissionConfig, s: ControllerSettings,
  setView: (view: () => ClusterView, ready: () => boolean) => void): Promise<void> {
  const { InventoryCache } = await import('../controller/inventory-cache');
  const c = new InventoryCache({ kubeconfigFile: s.kubeconfigFile, kueueApiVersion: config.kueue.apiVersion.split('/')[1], log });
  await c.start();
  if (run.stopping) return; // stopped while the informers started: exit goes on without them
  setView(() => c.view(), () => c.ready());
  run.cache = c;
  const { Reconciler } = await import('../controller/reconciler');
  const r = new Reconciler({
    kubeconfigFile: s.kubeconfigFile, kueue: config.kueue,
    leaseNamespace: s.namespace, identity: process.env.POD_NAME ?? `controller-${process.pid}`, log,
  });
  if (run.stopping) return;
  await r.start();
  run.reconciler = r;
  log({ level: 'info', msg: 'reconciler started' });
}

export async function controller(argv: string[]): Promise<WebhookServer> {
  const f = parseFlags(argv);
  const s = controllerSettings(f);
  const config = admissionConfigOf(f, s.namespace);
  const empty: Inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
  let view: () => ClusterView = () => ({ inventory: empty });
  let ready = () => true;
  const { cert, key, store } = await servingCertificate(f, s);
  const server = new WebhookServer({
    cert, key, workers: s.workers, ...(f['client-ca-file'] ? { clientCa: fs.readFileSync(f['client-ca-file']) } : {}),
    host: f.host ?? '0.0.0.0', port: Number(f.port ?? 9443), config, view: () => view(), ready: () => ready(), log,
  });
  const port = await server.listen();
  // /metrics on its own port (0: off), never on the webhook port: the chart's NetworkPolicy opens
  // the webhook port to the API server and this one only to the scrapers.
  const metrics = s.metricsPort ? new MetricsServer({ render: () => server.metrics.render(), host: f.host ?? '0.0.0.0', port: s.metricsPort })
    : undefined;
  await metrics?.listen();
  store?.start((p) => { server.reloadCertificate(p.cert, p.key); log({ level: 'info', msg: 'webhook certificate reloaded' }); });
  const reloadTimer = f['tls-cert-file']
    ? reloadCertificateFiles(server, f['tls-cert-file'], f['tls-key-file'], Number(f['tls-reload-seconds'] ?? 60),
      `${cert.toString()}\n${key.toString()}`)
    : undefined;
  log({ level: 'info', msg: 'webhook listening', port, metricsPort: s.metricsPort, kueue: config.kueue.version, kubeRay: config.kubeRay.version });
  const run: Running = { server, metrics, store, reloadTimer, stopping: false };
  // Handlers first, before the informers and the Lease start (stopOnSignals says why).
  stopOnSignals(run, s.graceSeconds);
  if (s.clusterAccess) {
    await startClusterAccess(run, config, s, (v, r) => { view = v; ready = r; });
  }
  return server;
}
