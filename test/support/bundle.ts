/**
 * The package's bin as `npm run bundle` builds it (lib/controller/), for tests that run it as a user
 * does. Rebuilt only when a source is newer than the bundle: in CI `npm test` bundles before jest
 * (npm run image), and several suites rebuilding lib/controller/ at once would pull files from under
 * each other. The returned path is a private copy, so a later rebuild cannot change it mid-test.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REPO_ROOT } from './upstream';

const OUT = path.join(REPO_ROOT, 'lib', 'controller');
const FILES = ['cdk8s-kueue-ray.js', 'admission-worker.js', 'cdk8s-kueue-ray-apply.js'];

function newestSource(): number {
  let newest = 0;
  const walk = (p: string) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['src', 'scripts/bundle.js', 'package-lock.json']) walk(path.join(REPO_ROOT, p));
  return newest;
}

function built(): number {
  try {
    return Math.min(...FILES.map((f) => fs.statSync(path.join(OUT, f)).mtimeMs));
  } catch {
    return 0;
  }
}

/** A private copy of the bundled bin (cdk8s-kueue-ray.js, with its admission worker and the alias cdk8s-kueue-ray-apply.js beside it). */
export function bundledBin(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kueue-ray-bin-'));
  for (let attempt = 1; ; attempt++) {
    if (built() < newestSource()) execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'bundle.js')], { stdio: 'pipe' });
    try {
      for (const f of FILES) fs.copyFileSync(path.join(OUT, f), path.join(dir, f));
      return path.join(dir, FILES[0]);
    } catch (e) {
      // Another suite was rebuilding at that moment: build again.
      if (attempt >= 3) throw e;
    }
  }
}
