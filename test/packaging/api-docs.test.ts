// Issue 41: the API reference (API.md for TypeScript, API.python.md for Python) is what jsii-docgen
// writes for the current assembly; a stale one fails here with the fix (`npm run docgen`).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from '../support/upstream';

test('API.md and API.python.md are current (npm run docgen)', () => {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'docgen.js'), '--check'], { cwd: REPO_ROOT, encoding: 'utf8' });
  expect([r.status, r.stderr.split('\n').filter((l) => l.startsWith('docgen:'))]).toEqual([0, []]);
  expect(r.stdout).toBe('docgen: API.md, API.python.md current\n');
}, 300_000);

test('the references cover the constructs in each language, and the README points at them', () => {
  const ts = fs.readFileSync(path.join(REPO_ROOT, 'API.md'), 'utf8');
  const py = fs.readFileSync(path.join(REPO_ROOT, 'API.python.md'), 'utf8');
  for (const name of ['KueueInstall', 'KubeRayInstall', 'ElasticRayCluster', 'ElasticRayService', 'QueuedRayJob', 'TenantQueue']) {
    expect([name, ts.includes(`### ${name} `), py.includes(`### ${name} `)]).toEqual([name, true, true]);
  }
  expect(ts).toContain("import { KueueInstall } from 'cdk8s-kueue-ray'");
  expect(py).toContain('import cdk8s_kueue_ray');
  expect(py).toContain('manifest_file');
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain('[API.md](API.md)');
  expect(readme).toContain('[API.python.md](API.python.md)');
});
