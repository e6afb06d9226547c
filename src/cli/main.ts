#!/usr/bin/env node
/**
 * The package's CLI. `cdk8s-kueue-ray controller ...` starts the admission webhook server (the image's
 * entrypoint). It never loads cdk8s constructs: only the policy and the controller modules.
 *
 * It serves the webhook (view of the cluster from informers; `--reconciler=false` runs it without
 * cluster access, on an empty view) and runs the reconciler. Certificates come from files: self-managed
 * certificates are not built yet.
 */
import * as fs from 'fs';
import { AdmissionConfig, ClusterView } from '../controller/admission';
import { WebhookServer } from '../controller/server';
import { Inventory, kuberayCapabilities, kueueCapabilities } from '../policy';

function parseFlags(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of argv) {
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument '${a}' (flags are --name=value)`);
    out[m[1]] = m[2] ?? 'true';
  }
  return out;
}

const KNOWN = ['kueue-version', 'kuberay-version', 'namespace', 'port', 'host', 'tls-cert-file', 'tls-key-file', 'webhook-configurations', 'service', 'graceful-preemption', 'reconciler', 'kubeconfig'];

function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`);
}

export async function controller(argv: string[]): Promise<WebhookServer> {
  const f = parseFlags(argv);
  const unknown = Object.keys(f).filter((k) => !KNOWN.includes(k));
  if (unknown.length) throw new Error(`unknown flag(s) ${unknown.map((u) => `--${u}`).join(', ')}; known: ${KNOWN.map((k) => `--${k}`).join(', ')}`);
  for (const req of ['tls-cert-file', 'tls-key-file']) {
    if (!f[req]) throw new Error(`--${req} is required (self-managed certificates are not implemented yet)`);
  }
  const config: AdmissionConfig = {
    kueue: kueueCapabilities(f['kueue-version'] ?? 'v0.19.2'),
    kuberay: kuberayCapabilities(f['kuberay-version'] ?? 'v1.6.2'),
    elasticGate: 'unknown',
    gracefulPreemption: f['graceful-preemption'] ? (() => {
      const [g, s] = f['graceful-preemption'].split(':').map(Number);
      if (!(g >= 0) || !(s >= 0)) throw new Error('--graceful-preemption takes <terminationGracePeriodSeconds>:<preStopSleepSeconds>, e.g. 120:30');
      return { terminationGracePeriodSeconds: g, preStopSleepSeconds: s };
    })() : undefined,
  };
  const empty: Inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
  let view: () => ClusterView = () => ({ inventory: empty });
  let ready = () => true;
  const server = new WebhookServer({
    cert: fs.readFileSync(f['tls-cert-file']), key: fs.readFileSync(f['tls-key-file']),
    host: f.host ?? '0.0.0.0', port: Number(f.port ?? 9443), config, view: () => view(), ready: () => ready(), log,
  });
  const port = await server.listen();
  log({ level: 'info', msg: 'webhook listening', port, kueue: config.kueue.version, kuberay: config.kuberay.version });
  let reconciler: { stop(): Promise<void> } | undefined;
  let cache: { stop(): Promise<void> } | undefined;
  if ((f.reconciler ?? 'true') !== 'false') {
    // Loaded only when used: they pull in @kubernetes/client-node (ESM, loaded with require on Node >= 20.19).
    const { InventoryCache } = await import('../controller/inventory-cache');
    const c = new InventoryCache({ kubeconfigFile: f.kubeconfig ?? process.env.KUBECONFIG, kueueApiVersion: config.kueue.apiVersion.split('/')[1], log });
    await c.start();
    view = () => c.view();
    ready = () => c.ready();
    cache = c;
    const { Reconciler } = await import('../controller/reconciler');
    const r = new Reconciler({
      kubeconfigFile: f.kubeconfig ?? process.env.KUBECONFIG, kueue: config.kueue,
      leaseNamespace: f.namespace ?? 'cdk8s-kueue-ray-system', identity: process.env.POD_NAME ?? `controller-${process.pid}`, log,
    });
    await r.start();
    reconciler = r;
    log({ level: 'info', msg: 'reconciler started' });
  }
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.once(sig, () => {
      if (stopping) return;
      stopping = true;
      log({ level: 'info', msg: 'draining in-flight requests', signal: sig });
      Promise.all([server.stop(20000), reconciler?.stop(), cache?.stop()]).then(() => {
        log({ level: 'info', msg: 'stopped' });
        process.exit(0);
      });
    });
  }
  return server;
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  if (cmd === 'controller') {
    await controller(rest);
    return;
  }
  process.stderr.write('usage: cdk8s-kueue-ray controller --tls-cert-file=F --tls-key-file=F [--port=9443] [--kueue-version=v0.19.2] [--kuberay-version=v1.6.2]\n');
  process.exit(cmd ? 2 : 0);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => {
    log({ level: 'error', msg: (e as Error).message });
    process.exit(1);
  });
}
