#!/usr/bin/env node
// npm test's jest step, in two lanes that run at once, each one jest process running its suites one
// after the other:
//   - node: the real-node suites (test/node: a kubelet, pods, real Ray) and upstream agreement
//     (test/agreement);
//   - rest: everything else (control planes as host processes, the packages, the unit tests).
// One jest with two workers would also pair two real-node suites, and without a timing cache (a fresh
// clone) in no useful order. The real-node suites mostly wait on Ray's and Kueue's own timers, so on
// the 2-core CI machine the lanes overlap well: serially the jest step took 55 minutes.
// The clusters of the two lanes do not collide: each real node takes a free address slot and each
// test control plane free ports (scripts/cluster/network.ts, test/e2e/support/cluster.ts).
// TEST_LANES=1 runs one jest over everything, as before.
'use strict';
const { spawn } = require('child_process');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const JEST = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const NODE_LANE = ['<rootDir>/test/node/', '<rootDir>/test/agreement/'];

const lanes = process.env.TEST_LANES === '1'
  ? [{ name: 'all', args: [] }]
  : [
    { name: 'node', args: NODE_LANE.map((p) => p.replace('<rootDir>/', '')) },
    { name: 'rest', args: ['--testPathIgnorePatterns', ...NODE_LANE] },
  ];

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

function run(lane) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [JEST, ...lane.args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    prefixed(child.stdout, lane.name, process.stdout);
    prefixed(child.stderr, lane.name, process.stderr);
    child.on('close', (code, signal) => resolve({ lane: lane.name, code: code ?? 1, signal, seconds: (Date.now() - started) / 1000 }));
  });
}

(async () => {
  const results = await Promise.all(lanes.map(run));
  for (const r of results) {
    process.stdout.write(`[lanes] ${r.lane}: ${r.code === 0 ? 'passed' : `failed (exit ${r.code}${r.signal ? `, ${r.signal}` : ''})`} `
      + `in ${r.seconds.toFixed(0)} s\n`);
  }
  process.exit(results.every((r) => r.code === 0) ? 0 : 1);
})();
