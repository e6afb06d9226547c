#!/usr/bin/env node
// npm test's jest step, in two lanes that run at once, each one jest process running its suites one
// after the other:
//   - node: the real-node suites (test/node: a kubelet, pods, real Ray);
//   - rest: the unit tests, the packages and the CLIs;
// then both take from one pool of the suites that start test control planes (below), the rest lane with two
// workers, at most two pooled suites at once while the guide runs and three after (POOL_SLOTS_AFTER_NODE).
// One jest with two workers would also pair two real-node suites, and without a timing cache (a fresh
// clone) in no useful order. The real-node suites mostly wait on Ray's and Kueue's own timers, so on
// the 2-core CI machine the lanes overlap well: serially the jest step took 55 minutes.
// The clusters of the two lanes do not collide: each real node takes a free address slot and each
// test control plane free ports (scripts/cluster/network.ts, test/e2e/support/cluster.ts).
// TEST_LANES=1 runs one jest over everything, as before.
// Each lane runs in parts: first the suites that need only the first stage of the Go build; then, once the
// rest of the build that scripts/test.sh started in the background is done (REST_BUILD_DIR), the suites that
// need every Kueue × KubeRay pair, the KubeRay oracles or the rendered releases (GATED). Those form one pool
// shared by both lanes: each lane that reaches it takes the next suite, longest first, so the two lanes end
// together whichever finishes its own part first (cold, the rest lane waits for the build while the node lane
// runs Ray; warm, the other way round). A suite left out of GATED that needs the rest stage fails in CI,
// naming the missing binary (e2ePairs, binary(), describeOnNode).
// With CI_TIMINGS set, each lane, each part, each wait and each suite over 60 s is recorded for the table.
// Each lane's failing tests are printed again at the very end, with the head of each message: jest's own
// summary of failures is left out below 20 suites (the node lane has 9), and CI keeps only the log's tail.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const NODE_LANE = ['<rootDir>/test/node/'];
// Suites that need the rest stage of the Go build (every pair, the oracles, the rendered v0.17.0 release, promtool).
const GATED = ['<rootDir>/test/agreement/', '<rootDir>/test/e2e/', '<rootDir>/test/attack/.*\\.e2e\\.test\\.ts$',
  '<rootDir>/test/cli/check-corpus\\.test\\.ts$', '<rootDir>/test/install/install\\.test\\.ts$',
  '<rootDir>/test/observability/promtool\\.test\\.ts$'];
const bare = (patterns) => patterns.map((p) => p.replace('<rootDir>/', ''));
// Real-node suites that need the rest stage: the network-policy suite's enforcer (kube-router), which the background
// build makes after the rest stage (scripts/test.sh), so the rest lane does not wait for it.
const NODE_GATED = ['<rootDir>/test/node/network-policy\\.e2e\\.test\\.ts$'];

// The suites that need the rest stage, shared by the two lanes (above). The network-policy suite is in the
// pool too, for the node lane only (it runs a real node) and once its enforcer is built.
const POOL = { label: 'every pair (shared)', gated: true, pool: true, args: [...bare(GATED), ...bare(NODE_GATED)] };
const POOL_ONLY = { 'test/node/network-policy.e2e.test.ts': { lane: 'node', needs: 'kube-router-status' } };
// The pool's order: seconds each suite took in a cold run (docs/dev/ci.md), longest first, so that neither
// lane is left with a long suite at the end. Only the order: a suite not listed runs after these, by name.
// plan-agreement: 253 s cold at 11e6f24, plus its timeline test (issue 43), 338 s on its own on 2026-12-05.
const POOL_SECONDS = {
  'test/e2e/plan-agreement.e2e.test.ts': 590, 'test/agreement/upstream.e2e.test.ts': 526,
  'test/e2e/scenarios.e2e.test.ts': 261, 'test/e2e/multikueue.e2e.test.ts': 248, 'test/attack/tenants.e2e.test.ts': 187,
  'test/node/network-policy.e2e.test.ts': 173, 'test/e2e/install.e2e.test.ts': 81, 'test/e2e/tenant-namespace.e2e.test.ts': 76,
  'test/cli/check-corpus.test.ts': 68, 'test/install/install.test.ts': 67, 'test/e2e/reconciler.e2e.test.ts': 62,
  'test/e2e/install-settings.e2e.test.ts': 61, 'test/e2e/fair-sharing-agreement.e2e.test.ts': 250,
  'test/e2e/testcluster-ports.e2e.test.ts': 90, 'test/e2e/kueue-setup.e2e.test.ts': 60, 'test/e2e/watched-collection.e2e.test.ts': 20,
  'test/e2e/tas-agreement.e2e.test.ts': 190,
};

const lanes = process.env.TEST_LANES === '1'
  ? [{ name: 'all', parts: [{ label: 'every suite', gated: true, args: [] }] }]
  : [
    { name: 'node', parts: [{ label: 'real node', growsPool: true, args: ['test/node/', '--testPathIgnorePatterns', ...NODE_GATED] }, POOL] },
    // Two pool workers: the rest lane reaches the pool while the node lane's guide still runs (warm: after its own
    // part; cold: once the rest stage is built), and the guide, which mostly waits on Ray, leaves most of a core
    // idle. POOL_SLOTS keeps the pooled suites at two at once while the guide runs; when the node lane joins the
    // pool, its worker and these two run three at once (POOL_SLOTS_AFTER_NODE).
    { name: 'rest', poolWorkers: 2, parts: [{ label: 'unit, packages, CLIs', args: ['--testPathIgnorePatterns', ...NODE_LANE, ...GATED] }, POOL] },
  ];
// At most this many pooled suites run at once, whichever lanes run them. Each starts its own control plane and
// takes about 0.7 of a core: two beside the guide ask for about 2.1 cores of the 2, a third would starve the
// control planes whose settle windows read a quiet Kueue as a finished one.
const POOL_SLOTS = Number(process.env.POOL_SLOTS ?? 2);
// Once the node lane's own part (the guide) is done, the pool may run this many at once: with the guide over, two
// pooled suites left a fifth to a quarter of the two cores idle (vmstat in the last ten to twenty minutes of the
// runs of 2026-12-06), for they mostly wait on Kueue and on their control planes' starts.
const POOL_SLOTS_AFTER_NODE = Number(process.env.POOL_SLOTS_AFTER_NODE ?? 3);
// The suites that read "nothing changed for a while" as "Kueue has finished" (the agreement harnesses' settle
// windows): a slot past POOL_SLOTS never runs one of them, nor runs beside one, so they see the load they always saw.
const QUIET_READERS = new Set(['test/e2e/plan-agreement.e2e.test.ts', 'test/agreement/upstream.e2e.test.ts',
  'test/e2e/fair-sharing-agreement.e2e.test.ts', 'test/e2e/tas-agreement.e2e.test.ts']);

/**
 * The pool's running suites and its slots. A worker takes a suite through `take`, which waits while nothing may
 * start (every slot busy, or only suites that may not run beside the running ones) and hands out the first suite
 * that may, in the workers' order of asking.
 */
class Pool {
  constructor(slots) {
    this.slots = slots;
    this.running = new Set();
    this.waiting = [];
  }

  /** Whether `file` may start now. */
  fits(file) {
    if (this.running.size >= this.slots) return false;
    if (this.running.size < POOL_SLOTS) return true;
    return !QUIET_READERS.has(file) && ![...this.running].some((f) => QUIET_READERS.has(f));
  }

  /** Resolves with what `pick` returns once it returns something; `pick` is asked again whenever the pool changes. */
  async take(pick) {
    for (;;) {
      const got = pick();
      if (got !== undefined) return got;
      await new Promise((resolve) => this.waiting.push(resolve));
    }
  }

  start(file) {
    this.running.add(file);
  }

  done(file) {
    this.running.delete(file);
    this.changed();
  }

  grow(slots) {
    if (slots <= this.slots) return;
    this.slots = slots;
    this.changed();
  }

  changed() {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) w();
  }
}
const pool = new Pool(POOL_SLOTS);
const TIMINGS = process.env.CI_TIMINGS;
const record = (name, wall, cpu = '', rss = '') => {
  if (TIMINGS) fs.appendFileSync(TIMINGS, `${name}\t${Math.round(wall)}\t${cpu === '' ? '' : Math.round(cpu)}\t${rss}\n`);
};

/**
 * Resolves when the background rest stage of the Go build has finished (at once without REST_BUILD_DIR:
 * then the build was run whole beforehand). The first wait gives the build its normal CPU weight back:
 * a lane that waits for it has nothing else to run.
 */
const restBuild = {};
function restBuildDone(lane, status = 'status') {
  const dir = process.env.REST_BUILD_DIR;
  if (!dir) return Promise.resolve(0);
  const statusFile = path.join(dir, status);
  const started = Date.now();
  const done = () => built(status);
  const waits = !done();
  if (waits) {
    try {
      fs.writeFileSync(`/proc/${fs.readFileSync(path.join(dir, 'pid'), 'utf8').trim()}/autogroup`, '0');
    } catch { /* autogroups off, or the build already gone: it keeps its nice */ }
    process.stdout.write(`[lanes] ${lane}: waiting for the rest of the Go build (${path.join(dir, 'log')})\n`);
  }
  restBuild[status] ??= new Promise((resolve) => {
    const pidFile = path.join(dir, 'pid');
    // A build that died without writing its status (killed) counts as failed, not as one to wait for forever.
    const gone = () => fs.existsSync(pidFile) && !fs.existsSync(`/proc/${fs.readFileSync(pidFile, 'utf8').trim()}`) && !done();
    const poll = () => (done() ? resolve(Number(fs.readFileSync(statusFile, 'utf8').trim())) : gone() ? resolve(137) : setTimeout(poll, 2000));
    poll();
  });
  return restBuild[status].then((code) => {
    const what = status === 'status' ? '' : ` (${status})`;
    if (waits) record(`lane part: ${lane} waited for the rest of the Go build${what}`, (Date.now() - started) / 1000);
    return code;
  });
}

/** Each line of a lane's output, prefixed with its name (the two lanes print at the same time). */
function prefixed(stream, name, out) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const l of lines) out.write(`[${name}] ${l}\n`);
  });
  stream.on('end', () => { if (rest) out.write(`[${name}] ${rest}\n`); });
}

/** Lines of a failure message worth repeating: no colour codes, no stack frames outside the repository. */
// 100: a real-node scenario's failure carries the namespace's state after its message (test/node/job-diagnosis.ts).
const MESSAGE_LINES = 100;
function messageHead(message) {
  return message.replace(/\u001b\[[0-9;]*m/g, '').split('\n')
    .filter((l) => l.trim() && !/^\s+at .*(node_modules|\(<anonymous>\)|node:)/.test(l))
    .slice(0, MESSAGE_LINES);
}

/** The failures in jest's --json results: [suite, test or '(suite)', message lines]. */
function failures(resultsFile) {
  let results;
  try {
    results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  } catch (e) {
    return [[`(no results from jest: ${e.message})`, '', []]];
  }
  const out = [];
  for (const suite of results.testResults ?? []) {
    const file = path.relative(ROOT, suite.name);
    const failed = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failed) out.push([file, a.fullName, messageHead((a.failureMessages ?? []).join('\n'))]);
    // A suite that failed outside its tests (a hook, a compile error) has a message and no failed test.
    if (!failed.length && suite.status === 'failed') out.push([file, '(suite)', messageHead(suite.message ?? suite.failureMessage ?? '')]);
  }
  return out;
}

/**
 * One jest over a part of a lane, under /usr/bin/time for its CPU seconds and peak RSS. Records the part's
 * row unless `quiet` (a pooled suite: the pool's row sums them).
 */
function runPart(lane, part, index, quiet = false) {
  const started = Date.now();
  const resultsFile = path.join(os.tmpdir(), `jest-lane-${lane.name}-${index}-${process.pid}.json`);
  const usageFile = `${resultsFile}.usage`;
  return new Promise((resolve) => {
    const jest = [process.execPath, JEST, '--json', '--outputFile', resultsFile, ...part.args];
    const [cmd, ...args] = fs.existsSync('/usr/bin/time') ? ['/usr/bin/time', '-o', usageFile, '-f', '%U %S %M', ...jest] : jest;
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    prefixed(child.stdout, lane.name, process.stdout);
    prefixed(child.stderr, lane.name, process.stderr);
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      const failed = code === 0 ? [] : failures(resultsFile);
      const [cpuU, cpuS, rss] = (fs.existsSync(usageFile) ? fs.readFileSync(usageFile, 'utf8').trim().split('\n').pop() : '').split(' ');
      const cpu = cpuU === undefined || cpuS === undefined ? '' : Number(cpuU) + Number(cpuS);
      const rssMiB = rss ? Math.round(Number(rss) / 1024) : '';
      if (!quiet) record(`lane part: ${lane.name} ${index + 1}, ${part.label}`, seconds, cpu, rssMiB);
      for (const [file, s] of slowSuites(resultsFile)) record(`suite: ${file}`, s);
      fs.rmSync(resultsFile, { force: true });
      fs.rmSync(usageFile, { force: true });
      resolve({ code: code ?? 1, signal, failed, seconds, cpu, rss: rssMiB });
    });
  });
}

/** Suites of a jest --json results file that took over 60 s: [file, seconds]. */
function slowSuites(resultsFile) {
  try {
    const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
    return (results.testResults ?? []).map((t) => [path.relative(ROOT, t.name), ((t.endTime ?? 0) - (t.startTime ?? 0)) / 1000])
      .filter(([, s]) => s > 60);
  } catch {
    return [];
  }
}

/**
 * The pool's order: the settle-window suites first (QUIET_READERS: they may not take the third slot, so they should
 * be done before the guide ends; in a cold run the fair-sharing agreement, left among the short suites, ran last,
 * alone beside one other suite), then longest first (POOL_SECONDS), then by name.
 */
function poolOrder(files) {
  const est = (f) => POOL_SECONDS[f] ?? 0;
  const reader = (f) => (QUIET_READERS.has(f) ? 1 : 0);
  return [...files].sort((a, b) => reader(b) - reader(a) || est(b) - est(a) || a.localeCompare(b));
}

/** The pool's suites in poolOrder, listed once by jest for both lanes. */
let poolQueue;
function poolSuites() {
  poolQueue ??= new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [JEST, '--listTests', '--json', ...POOL.args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`jest --listTests exited ${code}`));
      resolve(poolOrder(JSON.parse(out).map((f) => path.relative(ROOT, f))));
    });
  });
  return poolQueue;
}

/** Whether the background build has written this status file (always, without REST_BUILD_DIR). */
function built(status) {
  const dir = process.env.REST_BUILD_DIR;
  const f = dir && path.join(dir, status);
  return !dir || (fs.existsSync(f) && fs.readFileSync(f, 'utf8').trim() !== '');
}

/**
 * Takes the pool's next suite this lane may run (POOL_ONLY) until none is left, holding one of the pool's slots
 * while a suite runs; one row for each worker's share, as one part. A suite whose build is not done yet is
 * passed over while others remain.
 */
async function runPool(lane, index) {
  const workers = Array.from({ length: lane.poolWorkers ?? 1 }, (_, w) => poolWorker(lane, index, w ? `${lane.name}+${w}` : lane.name));
  const shares = await Promise.all(workers);
  return {
    code: shares.find((s) => s.code !== 0)?.code ?? 0,
    signal: shares.find((s) => s.signal)?.signal ?? null,
    failed: shares.flatMap((s) => s.failed),
  };
}

async function poolWorker(lane, index, worker) {
  const queue = await poolSuites();
  const share = { code: 0, signal: null, failed: [], seconds: 0, cpu: 0, rss: 0, suites: 0 };
  const mine = (f) => (POOL_ONLY[f]?.lane ?? lane.name) === lane.name;
  const ready = (f) => mine(f) && built(POOL_ONLY[f]?.needs ?? 'status');
  for (;;) {
    // A suite to run; or, when every suite left to this lane waits for a build, that build (a worker does not hold
    // the pool while it waits); or nothing, when none is left.
    const next = await pool.take(() => {
      if (!queue.some(mine)) return {};
      const at = queue.findIndex((f) => ready(f) && pool.fits(f));
      if (at >= 0) return { file: queue.splice(at, 1)[0] };
      return queue.some(ready) ? undefined : { blocked: queue.find(mine) };
    });
    if (next.blocked) {
      const build = await restBuildDone(lane.name, POOL_ONLY[next.blocked].needs);
      if (build !== 0) {
        if (queue.includes(next.blocked)) queue.splice(queue.indexOf(next.blocked), 1);
        share.code = 1;
        const log = tail(path.join(process.env.REST_BUILD_DIR, 'log'), 20);
        share.failed.push([next.blocked, `(${POOL_ONLY[next.blocked].needs}: exit ${build})`, log]);
      }
      continue;
    }
    if (!next.file) break;
    const file = next.file;
    pool.start(file);
    process.stdout.write(`[lanes] ${worker}: takes ${file} from the pool (${pool.running.size} running)\n`);
    const r = await runPart({ ...lane, name: worker }, { label: file, args: ['--runTestsByPath', file] }, index, true);
    pool.done(file);
    if (r.code !== 0) share.code = r.code;
    share.signal ??= r.signal;
    share.failed.push(...r.failed);
    share.seconds += r.seconds;
    share.cpu += Number(r.cpu) || 0;
    share.rss = Math.max(share.rss, Number(r.rss) || 0);
    share.suites++;
  }
  record(`lane part: ${worker} ${index + 1}, ${POOL.label}: ${share.suites} suites`, share.seconds, share.cpu, share.rss || '');
  return share;
}

async function run(lane) {
  const started = Date.now();
  const out = { lane: lane.name, code: 0, signal: null, failed: [] };
  for (const [i, part] of lane.parts.entries()) {
    if (part.gated) {
      const build = await restBuildDone(lane.name);
      if (build !== 0) {
        out.code = 1;
        out.failed.push(['(the rest of the Go build)', '', [`exit ${build}; see ${path.join(process.env.REST_BUILD_DIR, 'log')}`,
          ...tail(path.join(process.env.REST_BUILD_DIR, 'log'), 20)]]);
      }
    }
    const r = await (part.pool ? runPool(lane, i) : runPart(lane, part, i));
    if (part.growsPool) pool.grow(POOL_SLOTS_AFTER_NODE);
    if (r.code !== 0) out.code = r.code;
    out.signal ??= r.signal;
    out.failed.push(...r.failed);
  }
  out.seconds = (Date.now() - started) / 1000;
  record(`lane ${lane.name}`, out.seconds);
  return out;
}

function tail(file, n) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n);
  } catch {
    return [];
  }
}

async function main() {
  const results = await Promise.all(lanes.map(run));
  for (const r of results) {
    process.stdout.write(`[lanes] ${r.lane}: ${r.code === 0 ? 'passed' : `failed (exit ${r.code}${r.signal ? `, ${r.signal}` : ''})`} `
      + `in ${r.seconds.toFixed(0)} s\n`);
    for (const [file, test, lines] of r.failed) {
      process.stdout.write(`[lanes] ${r.lane}: FAILED ${file} > ${test}\n`);
      for (const l of lines) process.stdout.write(`[lanes]     ${l}\n`);
    }
  }
  process.exit(results.every((r) => r.code === 0) ? 0 : 1);
}

// The lanes are exported for test/scripts/test-lanes.test.ts (every suite in exactly one part).
module.exports = { lanes, JEST, POOL, POOL_ONLY, POOL_SLOTS, POOL_SLOTS_AFTER_NODE, QUIET_READERS, Pool, poolOrder };
if (require.main === module) main();
