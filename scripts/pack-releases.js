#!/usr/bin/env node
// Part of `npm run build`: packs the pinned upstream release files the installs read (Kueue's
// manifests.yaml and KubeRay's CRDs of each vendored tag) into lib/releases/, brotli-compressed, with
// an index of their sha256. The npm package carries them, so a first `cdk8s synth` needs no network
// (src/install/bundled-releases.ts reads them). They come from the vendor folder at build time and are
// never tracked in the repository. Usage: pack-releases.js [out-dir] (default lib/releases).
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { vendorDir } = require('./vendor-dir');

const ROOT = path.resolve(__dirname, '..');
const CRDS = path.join('ray-operator', 'config', 'crd', 'bases');

/** key (as bundled-releases.ts asks for it) -> vendored file. */
function sources(vendor) {
  const out = {};
  const tags = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((t) => /^v\d+\.\d+\.\d+$/.test(t)).sort() : []);
  for (const tag of tags(path.join(vendor, 'kueue'))) {
    const f = path.join(vendor, 'kueue', tag, 'manifests.yaml');
    if (fs.existsSync(f)) out[`kueue/${tag}/manifests.yaml`] = f;
  }
  for (const tag of tags(path.join(vendor, 'kuberay'))) {
    const dir = path.join(vendor, 'kuberay', tag, CRDS);
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((n) => /^ray\.io_.*\.yaml$/.test(n)).sort()) out[`kuberay/${tag}/${f}`] = path.join(dir, f);
  }
  return out;
}

function main() {
  const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'lib', 'releases'));
  const files = sources(vendorDir('npm run build (scripts/pack-releases.js, the releases the npm package carries)'));
  if (!Object.keys(files).length) throw new Error('the vendor folder holds no kueue/<tag>/manifests.yaml or KubeRay CRDs. Fix: restore it.');
  fs.rmSync(out, { recursive: true, force: true });
  const index = {};
  let raw = 0;
  let packed = 0;
  for (const [key, file] of Object.entries(files)) {
    const buf = fs.readFileSync(file);
    // Quality 9 with a 16 MiB window: a tenth of gzip's size here, and decompressing stays a few ms per file.
    const br = zlib.brotliCompressSync(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_LGWIN]: 24,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length } });
    fs.mkdirSync(path.dirname(path.join(out, key)), { recursive: true });
    fs.writeFileSync(path.join(out, `${key}.br`), br);
    index[key] = { sha256: crypto.createHash('sha256').update(buf).digest('hex'), bytes: buf.length };
    raw += buf.length;
    packed += br.length;
  }
  fs.writeFileSync(path.join(out, 'index.json'), `${JSON.stringify({ files: index }, null, 2)}\n`);
  process.stdout.write(`pack-releases: ${Object.keys(index).length} files, ${(raw / 1e6).toFixed(1)} MB -> ${(packed / 1e3).toFixed(0)} kB in `
    + `${path.relative(ROOT, out) || out}\n`);
}

try {
  main();
} catch (e) {
  process.stderr.write(`pack-releases: ${e.message}\n`);
  process.exit(1);
}
