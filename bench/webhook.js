#!/usr/bin/env node
// bench:webhook — drives the admission webhook's HTTPS server on loopback over keep-alive connections
// (the API server reuses them) with realistic AdmissionReviews (full RayJob/RayCluster/RayService
// objects of 5-20 KB: allowed, denied and mutated), and in the same run a bare Node HTTPS server that
// returns a fixed response, as the baseline. A third server, the bare one plus JSON.parse of the
// body, gives the ceiling any webhook that parses the review can reach here (see ceiling below).
// Each server runs in its own process, and so does the load generator (bench/loadgen, Go). Runs
// against the compiled lib/. `node bench/webhook.js --dump FILE` writes the reviews, for profiling.
'use strict';
const { fork, execFile, execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const https = require('https');
const os = require('os');
const path = require('path');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 20);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const RATE = Number(process.env.BENCH_RATE || 5000);
// As the controller runs by default (--admission-workers=1).
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);

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
  if (kind === 'bare' || kind === 'parse') {
    const fixed = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } });
    const reply = (res) => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(fixed) }); res.end(fixed); };
    const srv = https.createServer({ cert, key, minVersion: 'TLSv1.2' }, kind === 'bare' ? (req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => reply(res));
    } : (req, res) => {
      // The least a webhook must do beyond the bare server: read the whole body and parse it.
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (JSON.parse(Buffer.concat(chunks).toString('utf8')).kind !== 'AdmissionReview') throw new Error('not a review');
        reply(res);
      });
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
      cert, key, workers: WORKERS, config: { kueue: policy.kueueCapabilities('v0.19.2'), kuberay: policy.kuberayCapabilities('v1.6.2'), elasticGate: 'on' }, view: () => ({ inventory }),
    });
    server.listen().then((port) => process.send({ port }));
  }
  process.on('message', (m) => {
    if (m === 'rss') process.send({ rssMib: process.resourceUsage().maxRSS / 1024 });
    // CPU time of the whole process (every thread), for CPU per request.
    if (m === 'cpu') { const u = process.cpuUsage(); process.send({ cpuUs: u.user + u.system }); }
    if (m === 'stop') process.exit(0);
  });
}

// ---- load generator ----------------------------------------------------------------------------
// A Go program (bench/loadgen, standard library only), so the client costs the 2 cores far less than
// a Node client in the same process would. Built once per source hash into the user cache.
function loadgen() {
  // The project's cache rule (CDK8S_KUEUE_RAY_CACHE or ~/.cache/cdk8s-kueue-ray), as the test build uses.
  const { defaultCacheDir } = require('../lib/src/install/release-source');
  const src = path.join(__dirname, 'loadgen');
  const hash = crypto.createHash('sha256').update(fs.readFileSync(path.join(src, 'main.go'))).update(fs.readFileSync(path.join(src, 'go.mod'))).digest('hex').slice(0, 16);
  const bin = path.join(defaultCacheDir(), 'bench', `loadgen-${hash}`);
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    execFileSync('go', ['build', '-trimpath', '-o', bin, '.'], { cwd: src, stdio: 'inherit', env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' } });
  }
  return bin;
}

function drive(bin, port, certs, payloadFile, { seconds, rate, warmup = 1 }) {
  return new Promise((resolve, reject) => {
    execFile(bin, ['-url', `https://127.0.0.1:${port}`, '-ca', certs.cert, '-payloads', payloadFile, '-connections', String(CONNECTIONS), '-duration', `${seconds}s`, '-warmup', `${warmup}s`, '-rate', String(rate || 0)], (err, stdout, stderr) => {
      if (err) return reject(new Error(`loadgen failed: ${stderr || err.message}`));
      resolve(JSON.parse(stdout));
    });
  });
}

function ask(server, what) {
  return new Promise((resolve) => { server.proc.once('message', resolve); server.proc.send(what); });
}

// One phase, with the server's CPU time per request (all its threads) and the load generator's.
// cores: the CPU both processes used per second of the phase; near 2 means the machine was saturated.
async function phase(bin, server, certs, payloadFile, opts) {
  const before = (await ask(server, 'cpu')).cpuUs;
  const res = await drive(bin, server.port, certs, payloadFile, opts);
  const after = (await ask(server, 'cpu')).cpuUs;
  const serverCpuUs = (after - before) / (res.n + res.warmupN);
  return { ...res, serverCpuUs, cores: ((serverCpuUs + res.clientCpuUs) * res.rps) / 1e6 };
}

function start(kind, certs) {
  return new Promise((resolve) => {
    const p = fork(__filename, ['--server', kind, certs.cert, certs.key]);
    p.once('message', (m) => resolve({ proc: p, port: m.port }));
  });
}

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function main() {
  if (!fs.existsSync(path.join(__dirname, '..', 'lib', 'src', 'controller', 'server.js'))) throw new Error('lib/ is missing: npm run bench:webhook builds it');
  const bin = loadgen();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhook-'));
  const certs = pki(dir);
  const payloads = reviews();
  const payloadFile = path.join(dir, 'payloads.json');
  fs.writeFileSync(payloadFile, JSON.stringify(payloads));
  const sizes = payloads.map((p) => p.body.length).sort((a, b) => a - b);
  console.log(`payloads: ${payloads.length} AdmissionReviews, ${(sizes[0] / 1024).toFixed(1)}-${(sizes[sizes.length - 1] / 1024).toFixed(1)} KB; ${CONNECTIONS} keep-alive connections, ${SECONDS} s per phase, ${ROUNDS} alternating rounds, ${WORKERS} admission workers`);
  // All three servers stay up; rounds alternate bare / parse-only / ours / ours at the fixed rate, so
  // machine noise hits them alike, and the medians are reported.
  const bare = await start('bare', certs);
  const parse = await start('parse', certs);
  const ours = await start('ours', certs);
  const rows = [];
  for (let r = 0; r < ROUNDS; r++) {
    const b = await phase(bin, bare, certs, payloadFile, { seconds: SECONDS });
    const p = await phase(bin, parse, certs, payloadFile, { seconds: SECONDS });
    const o = await phase(bin, ours, certs, payloadFile, { seconds: SECONDS, warmup: r === 0 ? 2 : 1 });
    const atRate = await drive(bin, ours.port, certs, payloadFile, { seconds: SECONDS, rate: RATE });
    if (b.errors || p.errors || o.errors || atRate.errors) throw new Error(`requests failed during round ${r + 1}; the figures are not valid`);
    // With the machine saturated (cores near 2), throughput is cores / (server + client CPU per
    // request). Any webhook does at least the parse server's work, and the load generator costs
    // least per request against the bare server, so a webhook's ratio to the bare server cannot
    // exceed this, however many threads or processes it uses.
    const ceiling = (b.serverCpuUs + b.clientCpuUs) / (p.serverCpuUs + b.clientCpuUs);
    rows.push({ b, o, atRate, ceiling });
    const cpu = (x) => `${x.serverCpuUs.toFixed(0)}+${x.clientCpuUs.toFixed(0)} µs, ${x.cores.toFixed(2)} cores`;
    console.log(`round ${r + 1}: bare ${b.rps.toFixed(0)} req/s (p99 ${b.p99.toFixed(2)} ms) | parse-only ${p.rps.toFixed(0)} req/s, ratio ${(p.rps / b.rps).toFixed(2)} | ours ${o.rps.toFixed(0)} req/s (p99 ${o.p99.toFixed(2)} ms), ratio ${(o.rps / b.rps).toFixed(2)} | CPU per request (server+load generator): bare ${cpu(b)}, parse-only ${cpu(p)}, ours ${cpu(o)}; ratio ceiling ${ceiling.toFixed(2)} | ours at ${RATE} req/s: p50 ${atRate.p50.toFixed(2)} ms, p99 ${atRate.p99.toFixed(2)} ms, max ${atRate.max.toFixed(2)} ms`);
  }
  const rss = await ask(ours, 'rss');
  for (const s of [bare, parse, ours]) s.proc.send('stop');
  fs.rmSync(dir, { recursive: true, force: true });
  const p99 = median(rows.map((x) => x.atRate.p99));
  const rps = median(rows.map((x) => x.o.rps));
  const ratio = median(rows.map((x) => x.o.rps / x.b.rps));
  console.log(`ratio ceiling for any server that parses the review: ${median(rows.map((x) => x.ceiling)).toFixed(2)} (median)`);
  console.log('targets: p99 <= 5 ms at 5000 req/s, throughput >= 60% of the bare server, RSS <= 150 MiB');
  console.log(`bench:webhook p99_ms=${p99.toFixed(2)} rps=${rps.toFixed(0)} ratio=${ratio.toFixed(2)} rss_mib=${rss.rssMib.toFixed(0)}`);
}

if (process.argv[2] === '--dump') fs.writeFileSync(process.argv[3], JSON.stringify(reviews()));
else if (process.argv[2] === '--server') runServer(process.argv[3], process.argv[4], process.argv[5]);
else main().catch((e) => { console.error(e); process.exit(1); });
