#!/usr/bin/env node
// bench:webhook — drives the controller's admission webhook server on loopback over keep-alive
// connections (the API server reuses them) with realistic AdmissionReviews (full RayJob/RayCluster/
// RayService objects of 5-20 KB: allowed, denied and mutated), and in the same run, with the same load
// generator, connections and reviews:
// - Kueue's own webhook server (Go, controller-runtime) on its ray.io validate and mutate paths, as the
//   test control plane runs it (etcd + kube-apiserver + Kueue, built by scripts/testcluster/build.sh);
// - a Node HTTPS server that only reads and JSON.parses the body and returns a fixed answer: the
//   ceiling of any Node webhook that parses the review ("parse-only");
// - our own webhook as built before the tenant-isolation work (BENCH_BASELINE, a git revision; "before"):
//   issue 19 asks that the ratios measured then hold, and this machine's speed moves them more than any
//   change does, so the build they were measured on runs in the same rounds, on the same runtime and flags.
// Ours and Kueue see the same cluster: 50 tenant namespaces (TenantQueue: namespace, LocalQueue,
// ClusterQueue in a cohort, priority classes) plus a shared queue, synthesized by the constructs,
// applied to Kueue's API server and turned into our inventory by the controller's own code.
// Each server runs in its own process, and so does the load generator (bench/loadgen, Go). Runs
// against the compiled lib/. `node bench/webhook.js --dump FILE` writes the reviews, for profiling.
'use strict';
const { fork, execFile, execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const https = require('https');
const os = require('os');
const path = require('path');
const { ltsNode } = require('./lts-node');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 20);
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const RATE = Number(process.env.BENCH_RATE || 2500);
const TENANTS = 50;
// The default versions, from the one list of supported versions.
const { defaultKueue: KUEUE_VERSION, defaultKubeRay: KUBERAY_VERSION } = require('../src/policy/supported-versions.json');
// As the controller runs by default (--admission-workers=1).
const WORKERS = Number(process.env.BENCH_WORKERS ?? 1);
// A multiple of 6, so that each of the three Node servers takes each place in the order equally often.
const ROUNDS = Number(process.env.BENCH_ROUNDS || 6);
// The commit the tenant-isolation work (issue 19) started from, where its figures were measured
// (0.91 of parse-only, p99 2.7 ms, 160 MiB). BENCH_BASELINE=none leaves it out.
const BASELINE = process.env.BENCH_BASELINE || '6610e7d';
// Both Node servers run with the controller image's V8 flags and environment (package.json), as well as on its Node (ltsNode, lts-node.js).
const { controllerNodeFlags: NODE_FLAGS, controllerEnvironment: CONTROLLER_ENV } = require('../package.json')['cdk8s-kueue-ray'];

function pki(dir) {
  const run = (args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1']);
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
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'datasets' } },
        { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '8Gi' } }],
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
    workerGroupSpecs: Array.from({ length: workers },
      (_, i) => ({ groupName: `group-${i}`, replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {}, template: podTemplate(`w${i}`, '1') })),
  };
}

function reviews() {
  const labels = (ns) => (ns === 'team-a' ? {} : { 'kueue.x-k8s.io/queue-name': 'user-queue', 'kueue.x-k8s.io/priority-class': 'dev-priority' });
  const objs = [];
  for (const workers of [1, 3, 5]) {
    for (const ns of ['default', 'team-a']) {
      objs.push({ kind: 'RayJob', metadata: { name: `job-${workers}`, namespace: ns, labels: labels(ns) },
        spec: { entrypoint: 'python train.py --epochs 10', shutdownAfterJobFinishes: true, suspend: true, ttlSecondsAfterFinished: 60,
          runtimeEnvYAML: '{"pip":["torch==2.4.0"]}', rayClusterSpec: cluster(workers) } });
      objs.push({ kind: 'RayJob', metadata: { name: `bad-${workers}`, namespace: ns, labels: labels(ns) },
        spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: false, rayClusterSpec: cluster(workers) } });
      objs.push({ kind: 'RayCluster', metadata: { name: `rc-${workers}`, namespace: ns, labels: labels(ns),
        annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } }, spec: { ...cluster(workers), enableInTreeAutoscaling: true, suspend: true } });
      objs.push({ kind: 'RayService',
        metadata: { name: `svc-${workers}`, namespace: ns, labels: labels(ns), annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } },
        spec: { serveConfigV2: 'applications:\n  - name: app\n    import_path: app:deploy\n'.repeat(10),
          rayClusterConfig: { ...cluster(workers), enableInTreeAutoscaling: true } } });
    }
  }
  return objs.flatMap((o, i) => ['/validate', '/mutate'].map((p) => ({
    path: p,
    body: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      request: { uid: `uid-${i}-${p}`, kind: { group: 'ray.io', version: 'v1', kind: o.kind },
        resource: { group: 'ray.io', version: 'v1', resource: `${o.kind.toLowerCase()}s` }, namespace: o.metadata.namespace, operation: 'CREATE',
        userInfo: { username: 'alice', groups: ['system:authenticated'] }, object: { apiVersion: 'ray.io/v1', ...o } } }),
  })));
}

// ---- the cluster both webhooks see -------------------------------------------------------------
// The objects of a platform app: 50 TenantQueues (team-a, which the reviews use, and team-01..49), each
// with its namespace, LocalQueue "default" and ClusterQueue in one cohort, two priority classes, and a
// shared ClusterQueue with LocalQueue default/user-queue. Synthesized by the constructs.
function platformObjects() {
  process.env.CDK8S_KUEUE_RAY_QUIET = '1';
  const cdk8s = require('cdk8s');
  const lib = require('../lib/src');
  const app = new cdk8s.App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhook-synth-')) });
  lib.KueueRayVersions.use(app, { kueue: { version: KUEUE_VERSION }, kubeRay: { version: KUBERAY_VERSION } });
  const chart = new cdk8s.Chart(app, 'platform');
  const flavor = new lib.ResourceFlavor(chart, 'default-flavor');
  const dev = new lib.WorkloadPriorityClass(chart, 'dev', { name: 'dev-priority', value: 100 });
  const prod = new lib.WorkloadPriorityClass(chart, 'prod', { name: 'prod-priority', value: 1000 });
  const cohort = new lib.Cohort(chart, 'research');
  const resourceGroups = [{ flavors: [{ flavor, quotas: [
    { resource: lib.ResourceName.CPU, nominalQuota: lib.Quantity.cpu(64) },
    { resource: lib.ResourceName.MEMORY, nominalQuota: lib.Quantity.gibibytes(512) },
  ] }] }];
  const shared = new lib.ClusterQueue(chart, 'cq', { name: 'cq', cohort, resourceGroups });
  new lib.LocalQueue(chart, 'user-queue', { name: 'user-queue', namespace: 'default', clusterQueue: shared });
  for (let t = 0; t < TENANTS; t++) {
    new lib.TenantQueue(chart, `tenant-${t}`, {
      namespace: t === 0 ? 'team-a' : `team-${String(t).padStart(2, '0')}`, cohort, defaultPriorityClass: dev, allowedPriorityClasses: [dev, prod],
      resourceGroups,
    });
  }
  const objects = chart.toJson();
  fs.rmSync(app.outdir, { recursive: true, force: true });
  return objects;
}

function inventoryOf(objects) {
  const { inventoryFromObjects } = require('../lib/src/policy/inventory-objects');
  const of = (kind) => objects.filter((o) => o.kind === kind);
  // The API server's own namespace, which informers would list too.
  const namespaces = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }, ...of('Namespace')];
  return inventoryFromObjects({ localQueues: of('LocalQueue'), clusterQueues: of('ClusterQueue'), cohorts: of('Cohort'),
    priorityClasses: of('WorkloadPriorityClass'), namespaces });
}

// ---- servers (children) ------------------------------------------------------------------------
function runServer(kind, certFile, keyFile, objectsFile) {
  const cert = fs.readFileSync(certFile);
  const key = fs.readFileSync(keyFile);
  if (kind === 'parse') {
    const fixed = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } });
    const reply = (res) => { res.writeHead(200,
      { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(fixed) }); res.end(fixed); };
    const srv = https.createServer({ cert, key, minVersion: 'TLSv1.2' }, (req, res) => {
      // The least a webhook must do: read the whole body and parse it.
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
    const inventory = inventoryOf(JSON.parse(fs.readFileSync(objectsFile, 'utf8')));
    const server = new WebhookServer({
      cert, key, workers: WORKERS, config: { kueue: policy.kueueCapabilities(KUEUE_VERSION), kubeRay: policy.kubeRayCapabilities(KUBERAY_VERSION),
        elasticGate: 'on' }, view: () => ({ inventory }),
    });
    server.listen().then((port) => process.send({ port }));
  }
  process.on('message', (m) => {
    if (m === 'rss') {
      const mu = process.memoryUsage();
      const mib = (x) => x / 1048576;
      process.send({
        rssMib: process.resourceUsage().maxRSS / 1024, nowMib: mib(mu.rss), mainHeapMib: mib(mu.heapTotal), externalMib: mib(mu.external),
      });
    }
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
  const hash = crypto.createHash('sha256').update(fs.readFileSync(path.join(src, 'main.go'))).update(fs.readFileSync(path.join(src, 'go.mod')))
    .digest('hex').slice(0, 16);
  const bin = path.join(defaultCacheDir(), 'bench', `loadgen-${hash}`);
  if (!fs.existsSync(bin)) {
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    execFileSync('go', ['build', '-trimpath', '-o', bin, '.'],
      { cwd: src, stdio: 'inherit', env: { ...process.env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0' } });
  }
  return bin;
}

// The baseline build: that revision's sources (git archive), compiled with this checkout's node_modules
// (the dependencies did not change since), once per revision into the user cache. Its own
// bench/webhook.js --server runs it, so its server's options are those of its time.
function baselineBuild(rev) {
  const { defaultCacheDir } = require('../lib/src/install/release-source');
  const repo = path.join(__dirname, '..');
  let commit;
  try {
    commit = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`],
      { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch {
    throw new Error(`BENCH_BASELINE=${rev}: no such commit in this clone (a shallow clone lacks it: git fetch --unshallow, or BENCH_BASELINE=none)`);
  }
  const dir = path.join(defaultCacheDir(), 'bench', `baseline-${commit.slice(0, 12)}`);
  // This checkout's node_modules, every time: the clone that built the cached copy may be gone.
  const linkModules = () => {
    fs.rmSync(path.join(dir, 'node_modules'), { force: true });
    fs.symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
  };
  if (fs.existsSync(path.join(dir, 'lib', 'src', 'controller', 'server.js'))) {
    linkModules();
    return dir;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('bash', ['-c', 'git archive "$1" | tar -x -C "$2"', 'archive', commit, dir], { cwd: repo, stdio: 'inherit' });
  linkModules();
  try {
    execFileSync(path.join(repo, 'node_modules', '.bin', 'jsii'), ['--silence-warnings=reserved-word'], { cwd: dir, stdio: 'inherit' });
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return dir;
}

function drive(bin, target, payloadFile, { seconds, rate, warmup = 1 }) {
  return new Promise((resolve, reject) => {
    execFile(bin, ['-url', `https://127.0.0.1:${target.port}`, '-ca', target.ca, '-payloads', payloadFile, '-connections', String(CONNECTIONS), '-duration', `${seconds}s`, '-warmup', `${warmup}s`, '-rate', String(rate || 0)], (err, stdout, stderr) => {
      if (err) return reject(new Error(`loadgen failed: ${stderr || err.message}`));
      resolve(JSON.parse(stdout));
    });
  });
}

function ask(server, what) {
  return new Promise((resolve) => { server.proc.once('message', resolve); server.proc.send(what); });
}

// CPU time (µs) of a process we did not fork (Kueue), from /proc: utime + stime in clock ticks.
const TICK_US = 1e6 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);
function procCpuUs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
}
function procRssMib(pid, field = 'VmHWM') {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

// One phase, with the server's CPU time per request (all its threads) and the load generator's.
// cores: the CPU both processes used per second of the phase; near 2 means they had the machine.
async function phase(bin, target, opts) {
  const before = await target.cpuUs();
  const res = await drive(bin, target, target.payloads, opts);
  const after = await target.cpuUs();
  const serverCpuUs = (after - before) / (res.n + res.warmupN);
  return { ...res, serverCpuUs, cores: ((serverCpuUs + res.clientCpuUs) * res.rps) / 1e6 };
}

function start(kind, certs, objectsFile, payloads, execPath, script = __filename) {
  return new Promise((resolve) => {
    const p = fork(script, ['--server', kind, certs.cert, certs.key, objectsFile],
      { execPath, execArgv: NODE_FLAGS, env: { ...process.env, ...CONTROLLER_ENV } });
    p.once('message', (m) => {
      const server = { proc: p, port: m.port, ca: certs.cert, payloads };
      server.cpuUs = async () => (await ask(server, 'cpu')).cpuUs;
      resolve(server);
    });
  });
}

// Kueue's webhook on the test control plane: the harness the e2e tests use (test/e2e/support), loaded
// through ts-node, with Kueue only (no KubeRay operator), and the platform objects applied.
async function startKueue(objects) {
  require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs', target: 'ES2020', esModuleInterop: true } });
  delete process.env.E2E_KUBECONFIG; // the bench needs Kueue's webhook on loopback, not an existing cluster
  const { KUEUE_PRODUCTION_LOG_LEVEL, TestCluster } = require('../test/e2e/support/cluster');
  const cluster = await TestCluster.start({ kueue: KUEUE_VERSION, kubeRay: KUBERAY_VERSION, kubeRayOperator: false,
    kueueLogLevel: KUEUE_PRODUCTION_LOG_LEVEL });
  // Namespaces first, then cluster-scoped Kueue objects, then LocalQueues (their webhook checks nothing
  // across objects, but the order is the one a real apply takes).
  const rank = (o) => (o.kind === 'Namespace' ? 0 : o.kind === 'LocalQueue' ? 2 : 1);
  for (const r of [0, 1, 2]) await Promise.all(objects.filter((o) => rank(o) === r).map((o) => cluster.client.apply(o)));
  // Kueue's cache must hold the LocalQueues before its defaulting webhook can see team-a's "default" queue.
  await new Promise((r) => setTimeout(r, 2000));
  return cluster;
}

// Each review once, on its own: every answer must be an AdmissionReview for its uid, so the figures
// measure decisions, not errors. Returns what was decided, e.g. "24 allowed, 6 denied, 18 patched".
function decide(target) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: fs.readFileSync(target.ca) });
  const one = (p) => new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: target.port, path: p.path, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const r = (() => { try { return JSON.parse(text).response; } catch { return undefined; } })();
        if (res.statusCode !== 200 || !r || r.uid !== JSON.parse(p.body).request.uid) {
          reject(new Error(`${p.path}: HTTP ${res.statusCode} ${text.slice(0, 300)}`));
        }
        else resolve(r);
      });
    });
    req.on('error', reject);
    req.end(p.body);
  });
  return (async () => {
    const n = { allowed: 0, denied: 0, patched: 0 };
    for (const p of JSON.parse(fs.readFileSync(target.payloads, 'utf8'))) {
      const r = await one(p);
      n[r.allowed ? (r.patch ? 'patched' : 'allowed') : 'denied']++;
    }
    agent.destroy();
    return `${n.allowed} allowed, ${n.denied} denied, ${n.patched} patched`;
  })();
}

// Of an even count, the mean of the two middle values (the upper one alone would favour the higher figure).
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const loadavg = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  if (!fs.existsSync(path.join(__dirname, '..', 'lib', 'src', 'controller', 'server.js'))) throw new Error('lib/ is missing: npm run '
    + 'bench:webhook builds it');
  const bin = loadgen();
  const loads = [`start ${loadavg()}`];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-webhook-'));
  const certs = pki(dir);
  const payloads = reviews();
  const ourPayloads = path.join(dir, 'payloads.json');
  fs.writeFileSync(ourPayloads, JSON.stringify(payloads));
  // The same bodies on Kueue's paths: /validate-ray-io-v1-rayjob, /mutate-ray-io-v1-raycluster, ...
  const kueuePayloads = path.join(dir, 'payloads-kueue.json');
  fs.writeFileSync(kueuePayloads,
    JSON.stringify(payloads.map((p) => ({ path: `${p.path}-ray-io-v1-${JSON.parse(p.body).request.kind.kind.toLowerCase()}`, body: p.body }))));
  const objects = platformObjects();
  const objectsFile = path.join(dir, 'platform.json');
  fs.writeFileSync(objectsFile, JSON.stringify(objects));
  const sizes = payloads.map((p) => p.body.length).sort((a, b) => a - b);
  console.log(`payloads: ${payloads.length} AdmissionReviews, ${(sizes[0] / 1024).toFixed(1)}-${(sizes[sizes.length - 1] / 1024).toFixed(1)} `
    + `KB; ${CONNECTIONS} keep-alive connections, ${SECONDS} s per phase, ${ROUNDS} alternating rounds, ${WORKERS} admission workers; `
    + `cluster: ${TENANTS} tenant namespaces, ${objects.length} objects (${[...new Set(objects.map((o) => o.kind))].join(', ')})`);
  const cpu = (x) => `${x.serverCpuUs.toFixed(0)}+${x.clientCpuUs.toFixed(0)} µs, ${x.cores.toFixed(2)} cores`;
  const lat = (x) => `p50 ${x.p50.toFixed(2)} ms, p99 ${x.p99.toFixed(2)} ms, max ${x.max.toFixed(2)} ms${x.errors ? `, ${x.errors} failed` : ''}`;
  const failed = (round, xs) => {
    const bad = Object.entries(xs).filter(([, x]) => x.errors).map(([k, x]) => `${k} ${x.errors}`);
    if (bad.length) throw new Error(`requests failed during ${round} (${bad.join(', ')}); the figures are not valid`);
  };
  const node = ltsNode();
  const runtime = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  console.log(`runtime of both Node servers: node ${runtime} (${process.env.BENCH_NODE ? 'BENCH_NODE' : "the controller image's"}), `
    + `flags ${NODE_FLAGS.join(' ')}, environment ${Object.entries(CONTROLLER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  const baselineDir = BASELINE === 'none' ? undefined : baselineBuild(BASELINE);
  const parse = await start('parse', certs, objectsFile, ourPayloads, node);
  const ours = await start('ours', certs, objectsFile, ourPayloads, node);
  const before = baselineDir && await start('ours', certs, objectsFile, ourPayloads, node, path.join(baselineDir, 'bench', 'webhook.js'));
  console.log(before ? `before: our webhook at ${BASELINE} (${baselineDir})` : 'before: left out (BENCH_BASELINE=none)');
  let cluster;
  try {
    console.log(`decisions on the ${payloads.length} reviews: ours ${await decide(ours)}${before ? `; before ${await decide(before)}` : ''}`);
    // Part 1, the Node servers alone: Kueue's control plane is not started yet. Idle, it keeps a quarter
    // of a core busy (etcd, kube-apiserver, Kueue's controllers), which the server with a second thread
    // (ours) loses more to than the single-threaded ceiling; that is the machine, not either server.
    const quiet = [];
    // The machine's speed drifts over seconds (a 2-core VM with neighbours), so the order changes by round
    // (each server in each place equally often over six rounds): a drift within a round does not always
    // favour the same server, and the median of the rounds' ratios cancels it.
    const inOrder = async (r, runs) => {
      const n = runs.length;
      const order = runs.map((_, i) => (i + r) % n);
      if (Math.floor(r / n) % 2) order.reverse();
      const out = [];
      for (const i of order) out[i] = await runs[i]();
      return out;
    };
    for (let r = 0; r < ROUNDS; r++) {
      const [p, o, b] = await inOrder(r, [() => phase(bin, parse, { seconds: SECONDS }),
        () => phase(bin, ours, { seconds: SECONDS, warmup: r === 0 ? 2 : 1 }),
        ...(before ? [() => phase(bin, before, { seconds: SECONDS, warmup: r === 0 ? 2 : 1 })] : [])]);
      // The same open loop on the parse-only server: what the machine allows any Node webhook at this rate.
      const [oRate, pRate, bRate] = await inOrder(r, [() => drive(bin, ours, ourPayloads, { seconds: SECONDS, rate: RATE }),
        () => drive(bin, parse, ourPayloads, { seconds: SECONDS, rate: RATE }),
        ...(before ? [() => drive(bin, before, ourPayloads, { seconds: SECONDS, rate: RATE })] : [])]);
      loads.push(`round ${r + 1} ${loadavg()}`);
      failed(`round ${r + 1}`, { 'parse-only': p, ours: o, [`ours at ${RATE}/s`]: oRate, ...(before ? { before: b } : {}) });
      quiet.push({ p, o, oRate, pRate, b, bRate });
      console.log(`round ${r + 1}: parse-only ${p.rps.toFixed(0)} req/s | ours ${o.rps.toFixed(0)} req/s (p99 ${o.p99.toFixed(2)} ms) | `
        + `${before ? `before ${b.rps.toFixed(0)} req/s | ` : ''}CPU per request (server+load generator): parse-only ${cpu(p)}, ours ${cpu(o)}`
        + `${before ? `, before ${cpu(b)}` : ''}`);
      console.log(`round ${r + 1} open loop at ${RATE} req/s: ours ${lat(oRate)} | parse-only ${lat(pRate)}`
        + `${before ? ` | before ${lat(bRate)}` : ''}`);
    }
    const beforeRss = before && await ask(before, 'rss');
    // Part 2, with Kueue's control plane running: Kueue against ours, and the ceiling again under that load.
    cluster = await startKueue(objects);
    const kw = cluster.kueueWebhook;
    const kueue = { port: kw.port, ca: kw.caFile, payloads: kueuePayloads, cpuUs: async () => procCpuUs(kw.pid) };
    console.log(`decisions on the ${payloads.length} reviews: Kueue ${await decide(kueue)}`);
    const busy = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Kueue in the middle; ours and parse-only swap places each round, as in part 1.
      const ends = [() => phase(bin, ours, { seconds: SECONDS }), () => phase(bin, parse, { seconds: SECONDS })];
      const a = await ends[r % 2]();
      const k = await phase(bin, kueue, { seconds: SECONDS, warmup: r === 0 ? 2 : 1 });
      const b = await ends[1 - (r % 2)]();
      const [o, p] = r % 2 ? [b, a] : [a, b];
      loads.push(`with Kueue, round ${r + 1} ${loadavg()}`);
      failed(`round ${r + 1} with Kueue`, { ours: o, Kueue: k, 'parse-only': p });
      busy.push({ o, k, p });
      console.log(`with Kueue's control plane, round ${r + 1}: ours ${o.rps.toFixed(0)} req/s | Kueue ${k.rps.toFixed(0)} req/s (p99 `
        + `${k.p99.toFixed(2)} ms) | parse-only ${p.rps.toFixed(0)} req/s | CPU per request: ours ${cpu(o)}, Kueue ${cpu(k)}`);
    }
    const rss = await ask(ours, 'rss');
    const kueueRss = procRssMib(kw.pid);
    const p99 = median(quiet.map((x) => x.oRate.p99));
    const rps = median(quiet.map((x) => x.o.rps));
    const kueueRps = median(busy.map((x) => x.k.rps));
    const ratioKueue = median(busy.map((x) => x.o.rps / x.k.rps));
    const ratioCeiling = median(quiet.map((x) => x.o.rps / x.p.rps));
    const ratioCeilingBusy = median(busy.map((x) => x.o.rps / x.p.rps));
    console.log(`medians: parse-only ${median(quiet.map((x) => x.p.rps)).toFixed(0)} req/s; CPU per request: `
      + `ours ${median(quiet.map((x) => x.o.serverCpuUs)).toFixed(0)} µs, Kueue ${median(busy.map((x) => x.k.serverCpuUs)).toFixed(0)} µs, `
      + `parse-only ${median(quiet.map((x) => x.p.serverCpuUs)).toFixed(0)} µs; p99 at ${RATE} req/s: `
      + `parse-only ${median(quiet.map((x) => x.pRate.p99)).toFixed(2)} ms; ours/parse-only with Kueue's control plane running `
      + `${ratioCeilingBusy.toFixed(2)}; peak RSS ours ${rss.rssMib.toFixed(0)} MiB (at the `
      + `end ${rss.nowMib.toFixed(0)} MiB, of which the server thread's heap ${rss.mainHeapMib.toFixed(0)} MiB and external `
      + `memory ${rss.externalMib.toFixed(0)} MiB; the rest is the admission worker's heap, code and buffers), Kueue ${kueueRss.toFixed(0)} MiB`);
    // Before: the same figures for the build the issue's were measured on, from the same rounds.
    const beforeFigures = before ? {
      ratioBefore: median(quiet.map((x) => x.o.rps / x.b.rps)), ratioCeiling: median(quiet.map((x) => x.b.rps / x.p.rps)),
      p99: median(quiet.map((x) => x.bRate.p99)), rps: median(quiet.map((x) => x.b.rps)), cpuUs: median(quiet.map((x) => x.b.serverCpuUs)),
    } : undefined;
    if (beforeFigures) {
      console.log(`before (${BASELINE}): ${beforeFigures.rps.toFixed(0)} req/s, ${beforeFigures.ratioCeiling.toFixed(2)} of parse-only, `
        + `CPU per request ${beforeFigures.cpuUs.toFixed(0)} µs, p99 at ${RATE} req/s ${beforeFigures.p99.toFixed(2)} ms, `
        + `peak RSS ${beforeRss.rssMib.toFixed(0)} MiB; `
        + `ours / before ${beforeFigures.ratioBefore.toFixed(2)} (rounds ${quiet.map((x) => (x.o.rps / x.b.rps).toFixed(2)).join(' ')})`);
    }
    console.log(`load average (1/5/15 min) ${loads.join(' | ')} on ${os.cpus().length} CPUs`);
    // Issue 19: "the throughput ratios must hold" (they were 5.82 and 0.91 then, on that day's machine); the
    // build they were measured on, in the same rounds, is what holding is measured against.
    console.log('targets: ratio_kueue >= 3, ratio_ceiling at least the before build\'s (ratio_before >= 1; it was 0.91 when measured '
      + `for the issue), p99 <= 5 ms at ${RATE} req/s, RSS <= 150 MiB`);
    console.log(`bench:webhook p99_ms_at_${RATE}=${p99.toFixed(2)} rps=${rps.toFixed(0)} kueue_rps=${kueueRps.toFixed(0)} `
      + `ratio_kueue=${ratioKueue.toFixed(2)} ratio_ceiling=${ratioCeiling.toFixed(2)} ratio_ceiling_with_kueue=${ratioCeilingBusy.toFixed(2)} `
      + `rss_mib=${rss.rssMib.toFixed(0)} node=${runtime}`
      + `${beforeFigures ? ` ratio_before=${beforeFigures.ratioBefore.toFixed(2)} before_ratio_ceiling=${beforeFigures.ratioCeiling.toFixed(2)} `
        + `before_p99_ms_at_${RATE}=${beforeFigures.p99.toFixed(2)} before_rss_mib=${beforeRss.rssMib.toFixed(0)}` : ''}`);
  } finally {
    for (const s of [parse, ours, before]) s?.proc.send('stop');
    await cluster?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--dump') fs.writeFileSync(process.argv[3], JSON.stringify(reviews()));
else if (process.argv[2] === '--server') runServer(process.argv[3], process.argv[4], process.argv[5], process.argv[6]);
else main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
