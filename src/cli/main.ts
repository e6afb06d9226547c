#!/usr/bin/env node
/**
 * The package's CLI. `cdk8s-kueue-ray controller ...` starts the admission webhook server (the image's
 * entrypoint); `cdk8s-kueue-ray check FILES…` runs the policy on plain YAML (check.ts). It never loads
 * cdk8s constructs: only the policy and the controller modules.
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

function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`);
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
      if (`${c}\n${k}` === last) return;
      server.reloadCertificate(c, k);
      last = `${c}\n${k}`;
      log({ level: 'info', msg: 'webhook certificate reloaded', file: certFile });
    } catch (e) {
      // A half-swapped pair or a missing file: keep serving the old certificate, try again next time.
      log({ level: 'warn', msg: 'webhook certificate not reloaded', error: (e as Error).message });
    }
  }, seconds * 1000);
  timer.unref();
  return timer;
}

export async function controller(argv: string[]): Promise<WebhookServer> {
  const f = parseFlags(argv);
  const unknown = Object.keys(f).filter((k) => !KNOWN.includes(k));
  if (unknown.length) throw new Error(`unknown flag(s) ${unknown.map((u) => `--${u}`).join(', ')}; known: ${KNOWN.map((k) => `--${k}`).join(', ')}`);
  const clusterAccess = (f.reconciler ?? 'true') !== 'false';
  const kubeconfigFile = f.kubeconfig ?? process.env.KUBECONFIG;
  const namespace = f.namespace ?? 'cdk8s-kueue-ray-system';
  if (f['tls-reload-seconds'] !== undefined && !(Number(f['tls-reload-seconds']) >= 1)) throw new Error(`--tls-reload-seconds takes a number of seconds >= 1, got '${f['tls-reload-seconds']}'`);
  const graceSeconds = Number(f['shutdown-grace-seconds'] ?? 5);
  if (!(graceSeconds >= 0 && graceSeconds <= 300)) throw new Error(`--shutdown-grace-seconds takes 0 to 300 (how long the webhook keeps serving after SIGTERM, with /readyz failing), got '${f['shutdown-grace-seconds']}'`);
  const workers = Number(f['admission-workers'] ?? 1);
  if (!Number.isInteger(workers) || workers < 0 || workers > 16) throw new Error(`--admission-workers takes 0 to 16 (worker threads that parse and decide reviews; 0 decides on the server thread), got '${f['admission-workers']}'`);
  const metricsPort = Number(f['metrics-port'] ?? 8080);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535 || (metricsPort !== 0 && metricsPort === Number(f.port ?? 9443))) throw new Error(`--metrics-port takes a port other than the webhook's (0 turns metrics off), got '${f['metrics-port']}'`);
  if (!!f['tls-cert-file'] !== !!f['tls-key-file']) throw new Error('--tls-cert-file and --tls-key-file go together');
  if (!f['tls-cert-file'] && !clusterAccess) throw new Error('without cluster access (--reconciler=false) give --tls-cert-file and --tls-key-file');
  const config: AdmissionConfig = {
    kueue: kueueCapabilities(f['kueue-version'] ?? DEFAULT_KUEUE_VERSION),
    kubeRay: kubeRayCapabilities(f['kuberay-version'] ?? DEFAULT_KUBERAY_VERSION),
    elasticGate: 'unknown',
    writers: {
      ...DEFAULT_TRUSTED_WRITERS,
      kubeRay: [parseServiceAccount(f['kuberay-service-account'] ?? `${KUBERAY_OPERATOR_SERVICE_ACCOUNT.namespace}/${KUBERAY_OPERATOR_SERVICE_ACCOUNT.name}`, '--kuberay-service-account')],
      kueue: [parseServiceAccount(f['kueue-service-account'] ?? `${KUEUE_CONTROLLER_SERVICE_ACCOUNT.namespace}/${KUEUE_CONTROLLER_SERVICE_ACCOUNT.name}`, '--kueue-service-account')],
      controller: [parseServiceAccount(f['controller-service-account'] ?? `${namespace}/${CONTROLLER_SERVICE_ACCOUNT.name}`, '--controller-service-account')],
    },
    gracefulPreemption: f['graceful-preemption'] ? (() => {
      const [g, s] = f['graceful-preemption'].split(':').map(Number);
      if (!(g >= 0) || !(s >= 0)) throw new Error('--graceful-preemption takes <terminationGracePeriodSeconds>:<preStopSleepSeconds>, e.g. 120:30');
      return { terminationGracePeriodSeconds: g, preStopSleepSeconds: s };
    })() : undefined,
  };
  const empty: Inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
  let view: () => ClusterView = () => ({ inventory: empty });
  let ready = () => true;
  // Certificates: from files, or self-managed (a Secret, the caBundle of our webhook configurations, renewal).
  let cert: string | Buffer;
  let key: string | Buffer;
  let store: { start(cb: (p: { cert: string; key: string }) => void): void; stop(): void } | undefined;
  if (f['tls-cert-file']) {
    cert = fs.readFileSync(f['tls-cert-file']);
    key = fs.readFileSync(f['tls-key-file']);
  } else {
    const [mutating, validating] = (f['webhook-configurations'] ?? 'cdk8s-kueue-ray-mutating,cdk8s-kueue-ray-validating').split(',');
    const { CertificateStore } = await import('../controller/certificate-store');
    const s = new CertificateStore({
      kubeconfigFile, namespace, service: f.service ?? 'cdk8s-kueue-ray-controller',
      mutatingWebhookConfiguration: mutating, validatingWebhookConfiguration: validating, log,
    });
    const pair = await s.ensure();
    cert = pair.cert;
    key = pair.key;
    store = s;
  }
  const server = new WebhookServer({
    cert, key, workers, ...(f['client-ca-file'] ? { clientCa: fs.readFileSync(f['client-ca-file']) } : {}),
    host: f.host ?? '0.0.0.0', port: Number(f.port ?? 9443), config, view: () => view(), ready: () => ready(), log,
  });
  const port = await server.listen();
  // /metrics on its own port (0: off), never on the webhook port: the chart's NetworkPolicy opens
  // the webhook port to the API server and this one only to the scrapers.
  const metrics = metricsPort ? new MetricsServer({ render: () => server.metrics.render(), host: f.host ?? '0.0.0.0', port: metricsPort }) : undefined;
  await metrics?.listen();
  store?.start((p) => { server.reloadCertificate(p.cert, p.key); log({ level: 'info', msg: 'webhook certificate reloaded' }); });
  const reloadTimer = f['tls-cert-file'] ? reloadCertificateFiles(server, f['tls-cert-file'], f['tls-key-file'], Number(f['tls-reload-seconds'] ?? 60), `${cert}\n${key}`) : undefined;
  log({ level: 'info', msg: 'webhook listening', port, metricsPort, kueue: config.kueue.version, kubeRay: config.kubeRay.version });
  let reconciler: { stop(): Promise<void> } | undefined;
  let cache: { stop(): Promise<void> } | undefined;
  // Handlers first: as PID 1 of a container the process ignores SIGTERM until it has one, and the
  // informers and the Lease can take a while to start; a stop during start-up exits all the same.
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      if (stopping) return;
      stopping = true;
      // Readiness fails at once; the webhook keeps serving for the grace period (the API server may
      // still hold connections to this pod), then drains; the informers serve its view until then.
      log({ level: 'info', msg: 'stopping: readiness fails, serving for the grace period, then draining in-flight requests', signal: sig, graceSeconds });
      store?.stop();
      if (reloadTimer) clearInterval(reloadTimer);
      Promise.all([server.stop(20000, graceSeconds * 1000).then(() => cache?.stop()), metrics?.stop(), reconciler?.stop()]).then(() => {
        log({ level: 'info', msg: 'stopped' });
        process.exit(0);
      });
    });
  }
  if (clusterAccess) {
    // Loaded only when used: they pull in @kubernetes/client-node (ESM, loaded with require on Node >= 20.19).
    const { InventoryCache } = await import('../controller/inventory-cache');
    const c = new InventoryCache({ kubeconfigFile, kueueApiVersion: config.kueue.apiVersion.split('/')[1], log });
    await c.start();
    if (stopping) return server; // stopped while the informers started: exit goes on without them
    view = () => c.view();
    ready = () => c.ready();
    cache = c;
    const { Reconciler } = await import('../controller/reconciler');
    const r = new Reconciler({
      kubeconfigFile, kueue: config.kueue,
      leaseNamespace: namespace, identity: process.env.POD_NAME ?? `controller-${process.pid}`, log,
    });
    if (stopping) return server;
    await r.start();
    reconciler = r;
    log({ level: 'info', msg: 'reconciler started' });
  }
  return server;
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  if (cmd === 'controller') {
    await controller(rest);
    return;
  }
  if (cmd === 'check') {
    // exitCode, not exit(): a large report piped to another process must be flushed first.
    process.exitCode = await (await import('./check')).check(rest, { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) });
    return;
  }
  if (cmd === 'plan') {
    process.stdout.write(await (await import('./plan')).planMain(rest));
    return;
  }
  process.stderr.write(`usage: cdk8s-kueue-ray controller [--kueue-version=${DEFAULT_KUEUE_VERSION}] [--kuberay-version=${DEFAULT_KUBERAY_VERSION}] [--namespace=NS] [--service=SVC] [--webhook-configurations=MUT,VAL] [--port=9443] [--tls-cert-file=F --tls-key-file=F] [--reconciler=false] [--graceful-preemption=GRACE:SLEEP] [--admission-workers=1] [--tls-reload-seconds=60] [--shutdown-grace-seconds=5] [--metrics-port=8080] [--kuberay-service-account=NS/NAME] [--kueue-service-account=NS/NAME] [--controller-service-account=NS/NAME] [--client-ca-file=F]\n`
    + '       cdk8s-kueue-ray check FILE|DIR|- ... [--kueue-version=V] [--kuberay-version=V] [--queues=FILE] [--kubeconfig=FILE] [--output=text|json|sarif] [--elastic-gate=on|off|unknown] (check --help)\n'
    + '       cdk8s-kueue-ray plan [dist/ or FILES...] [--arrivals=FILE] [--kueue-version=V] [--kuberay-version=V] [--output=text|json|html] [--trace] [--kubeconfig=FILE]\n');
  process.exit(cmd ? 2 : 0);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => {
    log({ level: 'error', msg: (e as Error).message });
    process.exit(1);
  });
}
