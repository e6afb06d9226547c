#!/usr/bin/env node
/**
 * Bundles the controller (src/cli/main.ts and what it loads) into lib/controller/: one file for the
 * bin and the image, plus the admission worker thread, which admission-pool.ts starts from
 * `admission-worker.js` beside the file that runs it, and the one-line alias bin cdk8s-kueue-ray-apply.
 * @kubernetes/client-node and node-forge go into the bundle, so construct users never install them. The licenses of the bundled packages are written to
 * lib/controller/THIRD-PARTY-NOTICES.txt (they ship with the bundle, in the npm package and the image).
 *
 * Refuses a bundle that contains cdk8s, constructs or cdk8s-plus: the controller never loads constructs.
 */
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const OUT = path.join(ROOT, 'lib', 'controller');
const FORBIDDEN = /^(cdk8s|cdk8s-plus-\d+|constructs)$/;
/** The alias bin cdk8s-kueue-ray-apply (package.json "bin"). */
const ALIAS = 'cdk8s-kueue-ray-apply.js';

/** The package a bundled input belongs to: its name and its folder, or undefined for the repo's own source. */
function packageOf(input) {
  const m = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m ? { name: m[2], dir: path.join(ROOT, m[1], m[2]) } : undefined;
}

function notices(packages) {
  const parts = ['Third-party software bundled in cdk8s-kueue-ray.js and admission-worker.js, with its licenses.\n'];
  for (const [name, dir] of [...packages].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const file = fs.readdirSync(dir).find((f) => /^(licen[sc]e|copying)(\.|$)/i.test(f));
    // A package without a license file still names its license; say so rather than drop it.
    const text = file ? fs.readFileSync(path.join(dir, file), 'utf8').trim()
      : `(no license file in the package; package.json says: ${pkg.license ?? 'nothing'})`;
    parts.push(`${'='.repeat(78)}\n${pkg.name}@${pkg.version} (${pkg.license ?? 'unknown'})\n${'-'.repeat(78)}\n${text}\n`);
  }
  return parts.join('\n');
}

async function main() {
  fs.rmSync(OUT, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { 'cdk8s-kueue-ray': 'src/cli/main.ts', 'admission-worker': 'src/controller/admission-worker.ts' },
    outdir: OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    // The bin runs on the package's engines.node floor; the image carries Node 24.
    target: 'node20',
    // Smaller, but names stay readable in stack traces and logs.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: 'none', // the full license texts go to THIRD-PARTY-NOTICES.txt
    metafile: true,
    logLevel: 'warning',
  });
  const packages = new Map();
  for (const input of Object.keys(result.metafile.inputs)) {
    const p = packageOf(input);
    if (p) packages.set(p.name, p.dir);
  }
  const forbidden = [...packages.keys()].filter((n) => FORBIDDEN.test(n));
  if (forbidden.length) {
    const via = Object.keys(result.metafile.inputs).filter((i) => forbidden.includes(packageOf(i)?.name ?? '')).slice(0, 5);
    throw new Error(`the controller bundle pulls in ${forbidden.join(', ')} (e.g. ${via.join(', ')}): the controller must never load cdk8s `
      + 'constructs; find the import in src/controller, src/policy or src/cli and remove it');
  }
  fs.writeFileSync(path.join(OUT, 'THIRD-PARTY-NOTICES.txt'), notices(packages));
  fs.writeFileSync(path.join(OUT, 'bundle-inputs.json'), `${JSON.stringify({ packages: [...packages.keys()].sort() }, null, 2)}\n`);
  fs.chmodSync(path.join(OUT, 'cdk8s-kueue-ray.js'), 0o755);
  // The bin's earlier name, which released docs use: no code of its own, `cdk8s-kueue-ray apply` in the same bundle.
  fs.writeFileSync(path.join(OUT, ALIAS), "#!/usr/bin/env node\n'use strict';\n"
    + "require('./cdk8s-kueue-ray.js').runCli(['apply', ...process.argv.slice(2)]);\n", { mode: 0o755 });
  const size = (f) => `${(fs.statSync(path.join(OUT, f)).size / 1e6).toFixed(1)} MB`;
  process.stdout.write(`bundle: lib/controller/cdk8s-kueue-ray.js (${size('cdk8s-kueue-ray.js')}), admission-worker.js `
    + `(${size('admission-worker.js')}), ${packages.size} packages bundled\n`);
}

main().catch((e) => {
  process.stderr.write(`bundle: ${e.message}\n`);
  process.exit(1);
});
