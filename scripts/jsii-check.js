#!/usr/bin/env node
// Builds the package with jsii (the package's own build: `npm run build`) and checks what bindings and
// Construct Hub read: the assembly holds the public constructs, no `@internal` member reaches the
// published .d.ts (stripInternal), and no public doc points at a file outside this repo.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
const pkg = require(path.join(ROOT, 'package.json'));
const asm = JSON.parse(fs.readFileSync(path.join(ROOT, '.jsii'), 'utf8'));
const types = Object.keys(asm.types);
const problems = [];
for (const t of ['QueuedRayJob', 'ElasticRayCluster', 'ElasticRayService', 'TenantQueue', 'ClusterQueue', 'Quantity',
  'KueueInstall', 'KubeRayInstall', 'AdmissionController']) {
  if (!types.includes(`${pkg.name}.${t}`)) problems.push(`${t} is missing from the jsii assembly`);
}
const walk = (d) => fs.readdirSync(d, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
for (const f of walk(path.join(ROOT, 'lib', 'src')).filter((f) => f.endsWith('.d.ts'))) {
  if (fs.readFileSync(f, 'utf8').includes('@internal')) problems.push(`${path.relative(ROOT, f)} publishes an @internal member `
    + '(stripInternal is off?)');
}
// Public docs are read on Construct Hub and in Python docstrings: no pointers to files users do not have.
const docText = JSON.stringify(Object.values(asm.types)
  .map((t) => [t.docs, (t.properties ?? []).map((p) => p.docs), (t.methods ?? []).map((m) => m.docs)]));
for (const m of docText.matchAll(/[\w./-]*(domain\.md|research\/[\w.-]+\.md|shared\/)[\w./§ -]*/g)) problems.push(`a public doc names a file outside the repo: "${m[0]}"`);
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`jsii assembly: ${types.length} types`);
