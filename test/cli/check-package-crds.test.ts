// Issue 41: check judges Ray objects against KubeRay's CRDs of the version in force with no flag,
// from the copies the package carries; --crd-dir and CRDs in the files still win. So the schema facts
// that upstream refuses (preRunningDeadlineSeconds: 0, an unknown deletionRules policy) are errors
// out of the box, not a note.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { runCheck } from '../../src/cli/check';
import { renderText } from '../../src/cli/check-report';
import { RELEASES_DIR_ENV } from '../../src/install/bundled-releases';
import { tmpdir } from '../support/synth';
import { toyRayClusterSpecYaml } from '../support/toy-job';
import { REPO_ROOT, vendorDir } from '../support/upstream';

const saved = process.env[RELEASES_DIR_ENV];
let bundle: string;
beforeAll(() => {
  bundle = path.join(tmpdir(), 'releases');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'pack-releases.js'), bundle], { stdio: 'pipe' });
});
beforeEach(() => { process.env[RELEASES_DIR_ENV] = bundle; });
afterAll(() => (saved === undefined ? delete process.env[RELEASES_DIR_ENV] : (process.env[RELEASES_DIR_ENV] = saved)));

/** The guide's toy RayJob with `extra` spec lines. */
function job(extra: string): string {
  return `apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: toy
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  entrypoint: python -c "print(1)"
  shutdownAfterJobFinishes: true
${extra}${toyRayClusterSpecYaml()}`;
}

function file(text: string): string {
  const f = path.join(tmpdir(), 'job.yaml');
  fs.writeFileSync(f, text);
  return f;
}

const errorsOf = (r: Awaited<ReturnType<typeof runCheck>>) => r.findings.filter((f) => f.severity === 'error').map((f) => `${f.rule} ${f.field}`);

test('preRunningDeadlineSeconds: 0 is an error with no flag (the CRD\'s minimum 1)', async () => {
  const r = await runCheck({ files: [file(job('  preRunningDeadlineSeconds: 0\n'))], output: 'json' });
  expect(r.context.crdSchemaFrom).toBe('package');
  expect(errorsOf(r)).toEqual(['crdSchema spec.preRunningDeadlineSeconds']);
  expect(renderText(r)).toMatch(/CRD schema from the package's KubeRay CRDs/);
  expect(r.notes.join('\n')).not.toMatch(/was not checked/);
});

test('an unknown deletionRules policy is an error with no flag (the CRD\'s enum)', async () => {
  // deletionRules cannot go with shutdownAfterJobFinishes, which Kueue requires: an unqueued RayJob.
  const unqueued = (rules: string) => job(rules).replace('  labels: {kueue.x-k8s.io/queue-name: user-queue}\n', '')
    .replace('shutdownAfterJobFinishes: true', 'shutdownAfterJobFinishes: false');
  const rules = '  deletionStrategy:\n    deletionRules:\n    - policy: DeleteEverything\n      condition: {jobStatus: SUCCEEDED}\n';
  const r = await runCheck({ files: [file(unqueued(rules))], output: 'json' });
  expect(errorsOf(r)).toEqual(['crdSchema spec.deletionStrategy.deletionRules[0].policy']);
  const fixed = file(unqueued(rules.replace('DeleteEverything', 'DeleteCluster')));
  const good = await runCheck({ files: [fixed], kubeRayVersion: 'v1.6.2', output: 'json' });
  expect(errorsOf(good)).toEqual([]);
});

test('the CRDs are those of the KubeRay version in force', async () => {
  // deletionRules arrived after v1.4.2: its CRD does not know the field, which strict field validation refuses.
  const rules = '  deletionStrategy:\n    deletionRules:\n    - policy: DeleteCluster\n      condition: {jobStatus: SUCCEEDED}\n';
  const r = await runCheck({ files: [file(job(rules))], kubeRayVersion: 'v1.4.2', output: 'json' });
  expect(r.context).toMatchObject({ kubeRay: 'v1.4.2', crdSchemaFrom: 'package' });
  expect(r.findings.filter((f) => f.rule === 'crdSchema').map((f) => f.field)).toContain('spec.deletionStrategy');
});

test('--crd-dir still wins, and without the package\'s copies a note says the schema was not checked', async () => {
  const crdDir = path.join(vendorDir()!, 'kuberay', 'v1.6.2', 'ray-operator', 'config', 'crd', 'bases');
  const withDir = await runCheck({ files: [file(job('  preRunningDeadlineSeconds: 0\n'))], crdDirs: [crdDir], output: 'json' });
  expect(withDir.context.crdSchemaFrom).toBe('crd-dir');
  expect(errorsOf(withDir)).toEqual(['crdSchema spec.preRunningDeadlineSeconds']);
  process.env[RELEASES_DIR_ENV] = path.join(tmpdir(), 'none');
  const bare = await runCheck({ files: [file(job('  preRunningDeadlineSeconds: 0\n'))], output: 'json' });
  expect(bare.context.crdSchemaFrom).toBe('none');
  expect(errorsOf(bare)).toEqual([]);
  expect(bare.notes.join('\n')).toMatch(/the CRD schema of RayJob was not checked/);
});
