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
// Each lane's failing tests are printed again at the very end, with the head of each message: jest's own
// summary of failures is left out below 20 suites (the node lane has 9), and CI keeps only the log's tail.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
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

function run(lane) {
  const started = Date.now();
  const resultsFile = path.join(os.tmpdir(), `jest-lane-${lane.name}-${process.pid}.json`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [JEST, '--json', '--outputFile', resultsFile, ...lane.args],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    prefixed(child.stdout, lane.name, process.stdout);
    prefixed(child.stderr, lane.name, process.stderr);
    child.on('close', (code, signal) => {
      const failed = code === 0 ? [] : failures(resultsFile);
      fs.rmSync(resultsFile, { force: true });
      resolve({ lane: lane.name, code: code ?? 1, signal, seconds: (Date.now() - started) / 1000, failed });
    });
  });
}

(async () => {
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
})();
