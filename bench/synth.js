#!/usr/bin/env node
// bench:synth — 1,000 QueuedRayJobs over 50 TenantQueues with every synth-time check on, against the
// same objects written as plain cdk8s ApiObjects (the baseline), measured in the same run.
// Each side runs in its own child process so peak RSS is per side; the ratio is the median of
// per-round ratios, timed after the modules are loaded. Runs against the compiled lib/.
// Both sides run on the pinned LTS Node (the controller image's, scripts/image/node.sh), then on the machine's
// node when that is another version: the target is read on the LTS (docs/dev/benchmarks.md#benchsynth).
'use strict';
const { fork } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { ltsNode } = require('./lts-node');

const TENANTS = 50;
const JOBS = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);

function hr() { return Number(process.hrtime.bigint()) / 1e6; }
function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function ours(outRoot) {
  const t0 = hr();
  const cdk8s = require('cdk8s');
  const lib = require('../lib/src');
  const loadMs = hr() - t0;
  const build = (outdir) => {
    const app = new cdk8s.App({ outdir });
    lib.KueueRayVersions.use(app);
    const platform = new cdk8s.Chart(app, 'platform');
    const flavor = new lib.ResourceFlavor(platform, 'default-flavor');
    const dev = new lib.WorkloadPriorityClass(platform, 'dev', { value: 100 });
    const prod = new lib.WorkloadPriorityClass(platform, 'prod', { value: 1000 });
    const cohort = new lib.Cohort(platform, 'research');
    for (let t = 0; t < TENANTS; t++) {
      const chart = new cdk8s.Chart(app, `tenant-${t}`);
      const tenant = new lib.TenantQueue(chart, 'queue', {
        namespace: `team-${t}`, cohort, defaultPriorityClass: dev, allowedPriorityClasses: [dev, prod],
        resourceGroups: [{ flavors: [{ flavor, quotas: [
          { resource: lib.ResourceName.CPU, nominalQuota: lib.Quantity.cpu(64) },
          { resource: lib.ResourceName.MEMORY, nominalQuota: lib.Quantity.gibibytes(256) },
        ] }] }],
      });
      for (let j = 0; j < JOBS / TENANTS; j++) {
        new lib.QueuedRayJob(chart, `job-${j}`, {
          queue: tenant,
          priorityClass: j % 5 === 0 ? prod : undefined,
          entrypoint: `python train.py --shard ${j}`,
          runtimeEnv: { pip: ['torch==2.4.0'], env_vars: { SHARD: String(j) } },
          ttlSecondsAfterFinished: 60,
          headGroup: { resources: { cpu: lib.Quantity.cpu(2), memory: lib.Quantity.gibibytes(8) } },
          workerGroups: [
            { groupName: 'cpu', replicas: 2, minReplicas: 2, maxReplicas: 4,
              resources: { cpu: lib.Quantity.cpu(4), memory: lib.Quantity.gibibytes(16) } },
            { groupName: 'small', replicas: 1, resources: { cpu: lib.Quantity.cpu(1), memory: lib.Quantity.gibibytes(4) },
              podTemplate: { spec: { nodeSelector: { pool: 'general' } } } },
          ],
        });
      }
    }
    return app;
  };
  return { loadMs, build };
}

function baseline(outRoot, manifestsFile) {
  const t0 = hr();
  const cdk8s = require('cdk8s');
  const loadMs = hr() - t0;
  const charts = JSON.parse(fs.readFileSync(manifestsFile, 'utf8'));
  const build = (outdir) => {
    const app = new cdk8s.App({ outdir });
    for (const [chartId, objects] of Object.entries(charts)) {
      const chart = new cdk8s.Chart(app, chartId);
      objects.forEach((o, i) => new cdk8s.ApiObject(chart, `o${i}`, JSON.parse(JSON.stringify(o))));
    }
    return app;
  };
  return { loadMs, build };
}

// A child builds and synthesizes one fresh app per 'round' message; the parent alternates the two
// sides round by round so both see the same machine noise.
function runSide(side, outRoot, manifestsFile) {
  process.env.CDK8S_KUEUE_RAY_QUIET = '1';
  const { loadMs, build } = side === 'ours' ? ours(outRoot) : baseline(outRoot, manifestsFile);
  let round = 0;
  process.on('message', (msg) => {
    if (msg.cmd !== 'round') return process.exit(0);
    const outdir = path.join(outRoot, `${side}-${round++}`);
    if (global.gc) global.gc();
    const t = hr();
    const app = build(outdir);
    app.synth();
    const ms = hr() - t;
    let objects = 0;
    if (side === 'ours' && msg.writeManifests) {
      // Hand the exact objects to the baseline side.
      const charts = {};
      for (const c of app.charts) { charts[c.node.id] = c.toJson(); objects += charts[c.node.id].length; }
      fs.writeFileSync(manifestsFile, JSON.stringify(charts));
    }
    fs.rmSync(outdir, { recursive: true, force: true });
    process.send({ ms, loadMs, rssMib: process.resourceUsage().maxRSS / 1024, objects });
  });
  process.send({ ready: true, loadMs, node: process.version });
}

function startChild(side, outRoot, manifestsFile, execPath) {
  const p = fork(__filename, ['--child', side, outRoot, manifestsFile], { execPath, execArgv: ['--expose-gc'] });
  let waiting;
  p.on('message', (m) => { const w = waiting; waiting = undefined; w && w.resolve(m); });
  p.on('exit', (code) => { if (waiting) waiting.reject(new Error(`${side} exited with ${code}`)); });
  const next = () => new Promise((resolve, reject) => { waiting = { resolve, reject }; });
  const ready = next();
  return {
    ready,
    round: (extra = {}) => { const r = next(); p.send({ cmd: 'round', ...extra }); return r; },
    stop: () => p.send({ cmd: 'stop' }),
  };
}

// One run of alternating rounds on one Node: the printed summary, and the ratio.
async function measure(execPath) {
  const outRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-synth-'));
  const manifestsFile = path.join(outRoot, 'manifests.json');
  const ours = startChild('ours', outRoot, manifestsFile, execPath);
  const { loadMs: oursLoad, node } = await ours.ready;
  const warm = await ours.round({ writeManifests: true }); // warm-up round, also writes the baseline's input
  const base = startChild('baseline', outRoot, manifestsFile, execPath);
  const baseLoad = (await base.ready).loadMs;
  await base.round(); // warm-up
  const o = [];
  const b = [];
  let last;
  let baseRss = 0;
  for (let r = 0; r < ROUNDS; r++) {
    last = await ours.round();
    o.push(last.ms);
    const br = await base.round();
    b.push(br.ms);
    baseRss = br.rssMib;
  }
  ours.stop();
  base.stop();
  fs.rmSync(outRoot, { recursive: true, force: true });
  const ratios = o.map((x, i) => x / b[i]);
  return {
    node, ratio: median(ratios), rssMib: last.rssMib, loadMs: oursLoad,
    lines: [
      `node ${node}: ${warm.objects} objects (${JOBS} RayJobs over ${TENANTS} TenantQueues), ${ROUNDS} alternating rounds after one warm-up each`,
      `  ours:     synth median ${median(o).toFixed(0)} ms, peak RSS ${last.rssMib.toFixed(0)} MiB, load ${oursLoad.toFixed(0)} ms`,
      `  baseline: synth median ${median(b).toFixed(0)} ms, peak RSS ${baseRss.toFixed(0)} MiB, load ${baseLoad.toFixed(0)} ms (same objects `
        + 'as plain cdk8s ApiObjects)',
      `  per-round ratios: ${ratios.map((x) => x.toFixed(2)).join(' ')}`,
    ],
  };
}

async function main() {
  if (!fs.existsSync(path.join(__dirname, '..', 'lib', 'src', 'index.js'))) {
    throw new Error('lib/ is missing: run `npm run build` first (npm run bench:synth does)');
  }
  const lts = await measure(ltsNode());
  console.log(lts.lines.join('\n'));
  // The machine's node too when it is another version (Node 20 is end-of-life): its figure is printed, not the target's.
  const machine = lts.node === process.version ? undefined : await measure(process.execPath);
  if (machine) console.log(machine.lines.join('\n'));
  console.log(`targets (on the LTS, ${lts.node}): ratio <= 1.25, peak RSS <= 512 MiB, load <= 1000 ms`);
  console.log(`bench:synth ratio=${lts.ratio.toFixed(2)} peak_rss_mib=${lts.rssMib.toFixed(0)} load_ms=${lts.loadMs.toFixed(0)} jobs=${JOBS} `
    + `node=${lts.node}`);
  if (machine) {
    console.log(`bench:synth ratio=${machine.ratio.toFixed(2)} peak_rss_mib=${machine.rssMib.toFixed(0)} load_ms=${machine.loadMs.toFixed(0)} `
      + `jobs=${JOBS} node=${machine.node} (the machine's node)`);
  }
}

if (process.argv[2] === '--child') {
  runSide(process.argv[3], process.argv[4], process.argv[5]);
} else {
  main().catch((e) => { console.error(e); process.exit(1); });
}
