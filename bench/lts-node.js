// The Node the benches measure on: the pinned LTS the controller image ships (scripts/image/node.sh fetches it
// once into the cache and checks it against its pins), so that a figure is the product's on a supported runtime,
// whatever node runs the bench script. BENCH_NODE=<path> measures on another one (to compare runtimes).
'use strict';
const { execFileSync } = require('child_process');
const path = require('path');

function ltsNode() {
  if (process.env.BENCH_NODE) return process.env.BENCH_NODE;
  return execFileSync('bash', [path.join(__dirname, '..', 'scripts', 'image', 'node.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim();
}

module.exports = { ltsNode };
