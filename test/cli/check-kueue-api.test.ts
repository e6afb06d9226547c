// Issue 41, item 8: a target version the package does not model is named with the modelled one that stands in
// for it, and check refuses Kueue objects of an API version that target does not serve: kueue.x-k8s.io/v1beta1
// from Kueue 0.20 (kueue#13957), v1beta2 before 0.15. The target comes from --kueue-version or from the Kueue
// install in the files, as every other version fact does.
import { parseCheckArgs, runCheck } from '../../src/cli/check';
import { modelledVersion } from '../../src/policy/modelled-version';
import { compareVersions, kueueServedApiVersions, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { tmpFiles } from '../support/synth';
import { headOnlyRayJobYaml } from '../support/toy-job';

const lq = (apiVersion: string) => `apiVersion: ${apiVersion}
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
`;
const JOB = headOnlyRayJobYaml('j');
/** The controller Deployment of an upstream Kueue release, as its manifest names it. */
const kueueInstall = (v: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: kueue-controller-manager, namespace: kueue-system}
spec:
  selector: {matchLabels: {control-plane: controller-manager}}
  template:
    metadata: {labels: {control-plane: controller-manager}}
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:${v}
`;

const NEWEST = [...SUPPORTED_KUEUE_VERSIONS].sort(compareVersions)[SUPPORTED_KUEUE_VERSIONS.length - 1];

async function apiFindings(files: Record<string, string>, argv: string[] = []) {
  const opts = parseCheckArgs([tmpFiles(files), ...argv, '-o', 'json']);
  if (opts === 'help') throw new Error('help');
  const report = await runCheck(opts);
  return { report, errors: report.findings.filter((f) => f.rule === 'kueueApiVersionServed') };
}

test('a Kueue newer than every modelled one runs as the newest modelled, and the note says so; a minor between is refused', () => {
  const newest = NEWEST;
  const m = modelledVersion('Kueue', '0.20.1');
  expect(m).toEqual({ version: newest, target: 'v0.20.1', note: expect.stringMatching(new RegExp('^Kueue v0\\.20\\.1 is newer than every '
    + `modelled version: it runs as ${newest.replace(/\./g, '\\.')}, the newest modelled`)) });
  expect(modelledVersion('Kueue', 'v0.19.4')).toEqual(expect.objectContaining({ version: 'v0.19.2', target: 'v0.19.4' }));
  expect(() => modelledVersion('Kueue', 'v0.16.0')).toThrow(/Kueue v0\.16\.0 is not modelled: choose a patch of/);
});

test('the served APIs, by feature: v1beta1 alone before 0.15, both until 0.20, v1beta2 alone from 0.20', () => {
  expect(kueueServedApiVersions('v0.14.8')).toEqual(['kueue.x-k8s.io/v1beta1']);
  expect(kueueServedApiVersions('0.19.2')).toEqual(['kueue.x-k8s.io/v1beta1', 'kueue.x-k8s.io/v1beta2']);
  expect(kueueServedApiVersions('v0.20.0')).toEqual(['kueue.x-k8s.io/v1beta2']);
});

test('--kueue-version v0.20.0: a v1beta1 LocalQueue is an error naming the object, the field and the fix; v1beta2 passes', async () => {
  const { report, errors } = await apiFindings({ 'q.yaml': lq('kueue.x-k8s.io/v1beta1'), 'job.yaml': JOB }, ['--kueue-version', 'v0.20.0']);
  expect(report.context.kueue).toBe(NEWEST);
  expect(report.notes).toContainEqual(expect.stringMatching(/^Kueue v0\.20\.0 is newer than every modelled version: it runs as v0\.19\.2/));
  expect(errors).toEqual([expect.objectContaining({
    object: 'LocalQueue default/lq', field: 'apiVersion', severity: 'error', source: 'kubernetes',
    message: expect.stringMatching(/^Kueue v0\.20\.0 does not serve kueue\.x-k8s\.io\/v1beta1 \(it serves kueue\.x-k8s\.io\/v1beta2\)/),
    fix: expect.stringMatching(/^write it as kueue\.x-k8s\.io\/v1beta2 \(renamed fields: cohort → cohortName/),
    location: expect.objectContaining({ line: 1, exact: true }),
  })]);
  expect((await apiFindings({ 'q.yaml': lq('kueue.x-k8s.io/v1beta2'), 'job.yaml': JOB }, ['--kueue-version', 'v0.20.0'])).errors).toEqual([]);
});

test('on a modelled Kueue the same file passes, and before 0.15 a v1beta2 object is the error', async () => {
  expect((await apiFindings({ 'q.yaml': lq('kueue.x-k8s.io/v1beta1'), 'job.yaml': JOB }, ['--kueue-version', 'v0.19.2'])).errors).toEqual([]);
  const old = await apiFindings({ 'q.yaml': lq('kueue.x-k8s.io/v1beta2'), 'job.yaml': JOB }, ['--kueue-version', 'v0.14.8']);
  expect(old.errors.map((f) => f.message)).toEqual([expect.stringMatching(/^Kueue v0\.14\.8 does not serve kueue\.x-k8s\.io\/v1beta2/)]);
});

test('the Kueue install in the files sets the target: an upstream v0.20.0 manifest beside v1beta1 queues', async () => {
  const { report, errors } = await apiFindings({ 'kueue.yaml': kueueInstall('v0.20.0'), 'q.yaml': lq('kueue.x-k8s.io/v1beta1'), 'job.yaml': JOB });
  expect(report.context.kueue).toBe(NEWEST);
  expect(report.notes).toContainEqual(expect.stringMatching(/^Kueue v0\.20\.0 is newer than every modelled version/));
  expect(errors.map((f) => f.object)).toEqual(['LocalQueue default/lq']);
});
