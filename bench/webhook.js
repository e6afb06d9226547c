#!/usr/bin/env node
// bench:webhook — drives the admission webhook's HTTPS server on loopback over keep-alive connections
// (the API server reuses them) with realistic AdmissionReviews (full RayJob/RayCluster/RayService
// objects of 5-20 KB: allowed, denied and mutated), and in the same run a bare Node HTTPS server that
// returns a fixed response, as the baseline. Each server runs in its own process; the load generator
// is this process. Runs against the compiled lib/.
'use strict';
const { fork, execFileSync } = require('child_process');
const fs = require('fs');
const https = require('https');
const os = require('os');
const path = require('path');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 20);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const RATE = Number(process.env.BENCH_RATE || 5000);

function pki(dir) {
  const run = (args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
  return { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
}

// ---- realistic reviews -------------------------------------------------------------------------
function podTemplate(name, cpu, extra) {
  return {
    metadata: { labels: { app: 'train', team: 'research', 'ray.io/group': name }, annotations: { 'prometheus.io/scrape': 'true' } },
    spec: {
      serviceAccountName: 'ray-workers',
      nodeSelector: { 'cloud.google.com/gke-nodepool': `pool-${name}` },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'datasets' } }, { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '8Gi' } }],
      containers: [{
        name: `ray-${name}`, image: 'rayproject/ray-ml:2.46.0-py311-gpu',
        env: Array.from({ length: 24 }, (_, i) => ({ name: `ENV_${i}`, value: `value-${i}-${'x'.repeat(20)}` })),
        ports: [{ containerPort: 6379, name: 'gcs' }, { containerPort: 8265, name: 'dashboard' }, { containerPort: 10001, name: 'client' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'shm', mountPath: '/dev/shm' }],
        resources: { requests: { cpu, memory: '8Gi' }, limits: { cpu, memory: '8Gi' } },
        ...extra,
      }],
    },
  };
}

function cluster(workers) {
  return {
    rayVersion: '2.46.0',
    headGroupSpec: { rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '0' }, template: podTemplate('head', '2') },
    workerGroupSpecs: Array.from({ length: workers }, (_, i) => ({ groupName: `group-${i}`, replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {}, template: podTemplate(`w${i}`, '1') })),
  };
}

function reviews() {
  const labels = (ns) => (ns === 'team-a' ? {} : { 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
  const objs = [];
  for (const workers of [1, 3, 5]) {
    for (const ns of ['default', 'team-a']) {
      objs.push({ kind: 'RayJob', metadata: { name: `job-${workers}`, namespace: ns, labels: labels(ns) }, spec: { entrypoint: 'python train.py --epochs 10', shutdownAfterJobFinishes: true, suspend: true, ttlSecondsAfterFinished: 60, runtimeEnvYAML: '{"pip":["torch==2.4.0"]}', rayClusterSpec: cluster(workers) } });
      objs.push({ kind: 'RayJob', metadata: { name: `bad-${workers}`, namespace: ns, labels: labels(ns) }, spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: false, rayClusterSpec: cluster(workers) } });
      objs.push({ kind: 'RayCluster', metadata: { name: `rc-${workers}`, namespace: ns, labels: labels(ns), annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } }, spec: { ...cluster(workers), enableInTreeAutoscaling: true, suspend: true } });
      objs.push({ kind: 'RayService', metadata: { name: `svc-${workers}`, namespace: ns, labels: labels(ns), annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } }, spec: { serveConfigV2: 'applications:\n  - name: app\n    import_path: app:deploy\n'.repeat(10), rayClusterConfig: { ...cluster(workers), enableInTreeAutoscaling: true } } });
    }
  }
  return objs.flatMap((o, i) => ['/validate', '/mutate'].map((p) => ({
    path: p,
    body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `uid-${i}-${p}`, kind: { group: 'ray.io', version: 'v1', kind: o.kind }, resource: { group: 'ray.io', version: 'v1', resource: `${o.kind.toLowerCase()}s` }, namespace: o.metadata.namespace, operation: 'CREATE', userInfo: { username: 'alice', groups: ['system:authenticated'] }, object: { apiVersion: 'ray.io/v1', ...o } } }),
  })));
}

// ---- servers (children) ------------------------------------------------------------------------
function runServer(kind, certFile, keyFile) {
  const cert = fs.readFileSync(certFile);
  const key = fs.readFileSync(keyFile);
  if (kind === 'bare') {
    const fixed = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } });
    const srv = https.createServer({ cert, key, minVersion: 'TLSv1.2' }, (req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(fixed) }); res.end(fixed); });
    });
    srv.keepAliveTimeout = 60000;
    srv.listen(0, '127.0.0.1', () => process.send({ port: srv.address().port }));
  } else {
    const { WebhookServer } = require('../lib/src/controller/server');
    const policy = require('../lib/src/policy');
    const q = policy.parseQuantity;
    const rg = (cpu) => [{ coveredResources: ['cpu', 'memory'], flavors: [{ flavor: 'f', resources: [{ resource: 'cpu', nominal: q(cpu) }, { resource: 'memory', nominal: q('512Gi') }] }] }];
    const inventory = {
      localQueues: [{ namespace: 'default', name: 'user-queue', clusterQueue: 'cq' }, { namespace: 'team-a', name: 'default', clusterQueue: 'team-a', tenant: { defaultPriorityClass: 'dev-priority', allowedPriorityClasses: ['dev-priority'] } }],
      clusterQueues: [{ name: 'cq', namespaceSelector: {}, resourceGroups: rg('64') }, { name: 'team-a', namespaceSelector: {}, resourceGroups: rg('64') }],
      cohorts: [], priorityClasses: [{ name: 'dev-priority', value: 100 }], namespaces: [],
    };
    const server = new WebhookServer({
      cert, key, config: { kueue: policy.kueueCapabilities('v0.19.2'), kuberay: policy.kuberayCapabilities('v1.6.2'), elasticGate: 'on' }, view: () => ({ inventory }),
    });
    server.listen().then((port) => process.send({ port }));
  }
  process.on('message', (m) => { if (m === 'rss') process.send({ rssMib: process.resourceUsage().maxRSS / 1024 }); if (m === 'stop') process.exit(0); });
}

// ---- load generator ----------------------------------------------------------------------------
function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function drive(port, ca, payloads, { seconds, rate }) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca });
  const latencies = [];
  let errors = 0;
  let sent = 0;
  const end = Date.now() + seconds * 1000;
  const one = (p) => new Promise((resolve) => {
    const t = process.hrtime.bigint();
    const req = https.request({ host: '127.0.0.1', port, path: p.path, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(p.body) } }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => { if (res.statusCode !== 200) errors++; latencies.push(Number(process.hrtime.bigint() - t) / 1e6); resolve(); });
    });
    req.on('error', () => { errors++; resolve(); });
    req.end(p.body);
  });
  if (!rate) {
    // closed loop: CONNECTIONS workers back to back, for throughput
    await Promise.all(Array.from({ length: CONNECTIONS }, async (_, w) => {
      let i = w;
      while (Date.now() < end) { await one(payloads[i++ % payloads.length]); sent++; }
    }));
  } else {
    // open loop at a fixed rate, for latency under load
    const inflight = new Set();
    const start = Date.now();
    while (Date.now() < end) {
      const due = Math.floor(((Date.now() - start) / 1000) * rate);
      while (sent < due) {
        const pr = one(payloads[sent % payloads.length]);
        inflight.add(pr);
        pr.then(() => inflight.delete(pr));
        sent++;
      }
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(inflight);
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, n: latencies.length };
}

function start(kind, certs) {
  return new Promise((resolve) => {
    const p = fork(__filename, ['--server', kind, certs.cert, certs.key]);
    p.once('message', (m) => resolve({ proc: p, port: m.port }));
  });
}

async function main() {
  if (!fs.existsSync(path.join(__dirname, '..', 'lib', 'src', 'controller', 'server.js'))) throw new Error('lib/ is missing: npm run bench:webhook builds it');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhook-'));
  const certs = pki(dir);
  const ca = fs.readFileSync(certs.cert);
  const payloads = reviews();
  const sizes = payloads.map((p) => p.body.length).sort((a, b) => a - b);
  console.log(`payloads: ${payloads.length} AdmissionReviews, ${(sizes[0] / 1024).toFixed(1)}-${(sizes[sizes.length - 1] / 1024).toFixed(1)} KB; ${CONNECTIONS} keep-alive connections, ${SECONDS} s per phase`);
  const bare = await start('bare', certs);
  await drive(bare.port, ca, payloads, { seconds: 1 }); // warm-up
  const b = await drive(bare.port, ca, payloads, { seconds: SECONDS });
  bare.proc.send('stop');
  const ours = await start('ours', certs);
  await drive(ours.port, ca, payloads, { seconds: 1 }); // warm-up
  const o = await drive(ours.port, ca, payloads, { seconds: SECONDS });
  const atRate = await drive(ours.port, ca, payloads, { seconds: SECONDS, rate: RATE });
  const rss = await new Promise((r) => { ours.proc.once('message', r); ours.proc.send('rss'); });
  ours.proc.send('stop');
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`bare:  ${b.rps.toFixed(0)} req/s closed-loop, p50 ${b.p50.toFixed(2)} ms, p99 ${b.p99.toFixed(2)} ms, errors ${b.errors}`);
  console.log(`ours:  ${o.rps.toFixed(0)} req/s closed-loop, p50 ${o.p50.toFixed(2)} ms, p99 ${o.p99.toFixed(2)} ms, errors ${o.errors}`);
  console.log(`ours at ${RATE} req/s offered: ${atRate.rps.toFixed(0)} req/s served, p50 ${atRate.p50.toFixed(2)} ms, p99 ${atRate.p99.toFixed(2)} ms, errors ${atRate.errors}`);
  console.log('targets: p99 <= 5 ms at 5000 req/s, throughput >= 60% of the bare server, RSS <= 150 MiB');
  console.log(`bench:webhook p99_ms=${atRate.p99.toFixed(2)} rps=${o.rps.toFixed(0)} ratio=${(o.rps / b.rps).toFixed(2)} rss_mib=${rss.rssMib.toFixed(0)}`);
}

if (process.argv[2] === '--server') runServer(process.argv[3], process.argv[4], process.argv[5]);
else main().catch((e) => { console.error(e); process.exit(1); });
