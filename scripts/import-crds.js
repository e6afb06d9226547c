#!/usr/bin/env node
// Regenerates imports/ with `cdk8s import` from the pinned upstream CRDs in ../shared/vendor.
// Only the kinds and API versions the library emits are imported (domain.md §9: the full KubeRay
// import is 8.5 MB of TypeScript). Each group/version gets one concatenated multi-doc input, because
// a second import of the same group overwrites the first (cdk8s#2156).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const YAML = require('yaml');

const { vendorDir } = require('./vendor-dir');

const ROOT = path.resolve(__dirname, '..');
const KINDS = ['resourceflavors', 'clusterqueues', 'localqueues', 'workloadpriorityclasses', 'cohorts'];

// name => { tag, version }: v1beta1 is read from the newest v1beta1-only line, v1beta2 from the newest line.
const IMPORTS = [
  { name: 'kueue-v1beta1', tag: 'v0.14.8', version: 'v1beta1' },
  { name: 'kueue-v1beta2', tag: 'v0.19.2', version: 'v1beta2' },
];

function filteredCrd(file, version) {
  const crd = YAML.parse(fs.readFileSync(file, 'utf8'));
  crd.spec.versions = crd.spec.versions.filter((v) => v.name === version);
  if (crd.spec.versions.length !== 1) throw new Error(`${file} has no version ${version}`);
  return crd;
}

function main() {
  const VENDOR = vendorDir('scripts/import-crds.js');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-import-'));
  const outDir = process.env.KUEUE_RAY_IMPORTS_OUT || path.join(ROOT, 'imports');
  fs.mkdirSync(outDir, { recursive: true });
  for (const imp of IMPORTS) {
    const docs = KINDS.map((k) =>
      YAML.stringify(filteredCrd(path.join(VENDOR, 'kueue', imp.tag, 'config/components/crd/bases', `kueue.x-k8s.io_${k}.yaml`), imp.version)));
    const input = path.join(tmp, `${imp.name}.yaml`);
    fs.writeFileSync(input, docs.join('---\n'));
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'cdk8s'),
      ['import', '--no-check-upgrade', `${imp.name}:=${input}`, '--language', 'typescript', '--output', outDir, '--no-save'],
      { stdio: process.env.KUEUE_RAY_IMPORTS_OUT ? 'pipe' : 'inherit', cwd: ROOT });
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log(`imports regenerated in ${outDir}`);
}

main();
