#!/usr/bin/env node
// Compiles the public construct API with jsii in a scratch folder, to keep it bindable for Python
// (the roadmap). The package itself is built with tsc; this only proves jsii accepts the API.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-jsii-'));
try {
  for (const d of ['src', 'imports']) fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'README.md'), path.join(dir, 'README.md'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const pkg = require(path.join(ROOT, 'package.json'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license,
    author: { name: pkg.author, organization: false }, repository: pkg.repository,
    main: 'lib/src/index.js', types: 'lib/src/index.d.ts',
    peerDependencies: { cdk8s: `^${pkg.dependencies.cdk8s}`, constructs: `^${pkg.dependencies.constructs}` },
    devDependencies: { cdk8s: pkg.dependencies.cdk8s, constructs: pkg.dependencies.constructs },
    dependencies: { 'cdk8s-plus-28': pkg.dependencies['cdk8s-plus-28'], yaml: pkg.dependencies.yaml },
    bundledDependencies: ['yaml'],
    jsii: { outdir: 'dist', targets: { python: { distName: 'cdk8s-kueue-ray', module: 'cdk8s_kueue_ray' } }, tsc: { outDir: 'lib', rootDir: '.' } },
  }, null, 2));
  // Reserved-word warnings come from the generated L1s (fields named like Python keywords).
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'jsii'), ['--silence-warnings=reserved-word', '--fail-on-warnings'], { cwd: dir, stdio: 'inherit' });
  const asm = JSON.parse(fs.readFileSync(path.join(dir, '.jsii'), 'utf8'));
  const types = Object.keys(asm.types);
  console.log(`jsii assembly: ${types.length} types`);
  for (const t of ['QueuedRayJob', 'ElasticRayCluster', 'ElasticRayService', 'TenantQueue', 'ClusterQueue', 'Quantity']) {
    if (!types.includes(`${pkg.name}.${t}`)) throw new Error(`${t} is missing from the jsii assembly`);
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
