// imports/ is generated, never hand-edited: regenerating it from the pinned CRDs gives the committed files.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from '../support/upstream';
import { tmpdir } from '../support/synth';

test('npm run import reproduces the committed imports/ byte for byte', () => {
  const out = tmpdir();
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'import-crds.js')],
    { env: { ...process.env, KUEUE_RAY_IMPORTS_OUT: out }, stdio: 'pipe' });
  const committed = fs.readdirSync(path.join(REPO_ROOT, 'imports')).sort();
  expect(fs.readdirSync(out).sort()).toEqual(committed);
  expect(committed).toEqual(['kueue-v1beta1-kueue.x-k8s.io.ts', 'kueue-v1beta2-kueue.x-k8s.io.ts']);
  for (const f of committed) {
    expect(fs.readFileSync(path.join(out, f), 'utf8')).toBe(fs.readFileSync(path.join(REPO_ROOT, 'imports', f), 'utf8'));
  }
});
