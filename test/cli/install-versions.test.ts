// `check dist/` and `plan dist/` run for the versions the app was synthesized for, read from the
// installs' version annotations; a flag still wins; files recording two versions are an error naming both.
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { AdmissionController, KubeRayVersion, KueueRayVersions, KueueVersion } from '../../src';
import { runCheck } from '../../src/cli/check';
import { pickVersion } from '../../src/cli/install-facts';
import { planCommand } from '../../src/cli/plan';
import { tmpdir } from '../support/synth';

/** dist/ of an app pinned to `kueue`/`kubeRay` that deploys the controller (whose Deployment records both). */
function dist(kueue: KueueVersion, kubeRay: KubeRayVersion, outdir = tmpdir()): string {
  const app = new App({ outdir });
  KueueRayVersions.use(app, { kueue, kubeRay });
  new AdmissionController(app, 'controller', { image: 'registry.corp.example/controller:1' });
  app.synth();
  return outdir;
}

const plan = (args: string[]) => JSON.parse(planCommand([...args, '--output', 'json']));
const recorded = (file: string, what: string) => `${file} (Deployment cdk8s-kueue-ray-controller, annotation cdk8s-kueue-ray.io/${what}-version)`;

test('check dist/ runs for the recorded versions and says where they came from; a flag wins', async () => {
  const out = dist(KueueVersion.V0_17_8, KubeRayVersion.V1_5_2);
  const file = path.join(out, 'controller.k8s.yaml');
  const r = await runCheck({ files: [out], output: 'text', allowEmpty: true });
  expect(r.context).toMatchObject({ kueue: 'v0.17.8', kueueFrom: 'files', kubeRay: 'v1.5.2', kubeRayFrom: 'files' });
  expect(r.notes).toEqual(expect.arrayContaining([`Kueue v0.17.8 as recorded in ${recorded(file, 'kueue')}`,
    `KubeRay v1.5.2 as recorded in ${recorded(file, 'kuberay')}`]));
  const flagged = await runCheck({ files: [out], output: 'text', allowEmpty: true, kueueVersion: 'v0.19.2' });
  expect(flagged.context).toMatchObject({ kueue: 'v0.19.2', kueueFrom: 'flag', kubeRay: 'v1.5.2', kubeRayFrom: 'files' });
  expect(flagged.notes).toContain('the files install Kueue v0.17.8, but the check ran for v0.19.2 (the flag)');
});

test('plan dist/ plans for the recorded versions, with a note; a flag wins; without an install the note says default', () => {
  const out = dist(KueueVersion.V0_17_8, KubeRayVersion.V1_5_2);
  const file = path.join(out, 'controller.k8s.yaml');
  const p = plan([out]);
  expect(p.kueueVersion).toBe('v0.17.8');
  expect(p.notes).toEqual(expect.arrayContaining([`Kueue v0.17.8 as recorded in ${recorded(file, 'kueue')}`,
    `KubeRay v1.5.2 as recorded in ${recorded(file, 'kuberay')}`]));
  expect(plan([out, '--kueue-version', 'v0.14.8']).kueueVersion).toBe('v0.14.8');
  const empty = tmpdir();
  fs.writeFileSync(path.join(empty, 'q.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n');
  const d = plan([empty]);
  expect(d.kueueVersion).toBe('v0.19.2');
  expect(d.notes).toContain('Kueue v0.19.2 (the default: no install in the files records a Kueue version; pass --kueue-version)');
});

test('files recording two versions are an error naming both, unless a flag says which', async () => {
  const both = tmpdir();
  dist(KueueVersion.V0_17_8, KubeRayVersion.V1_6_2, path.join(both, 'a'));
  dist(KueueVersion.V0_19_2, KubeRayVersion.V1_6_2, path.join(both, 'b'));
  const [a, b] = ['a', 'b'].map((d) => path.join(both, d, 'controller.k8s.yaml'));
  const message = `the files record two Kueue versions: v0.17.8 in ${recorded(a, 'kueue')} and v0.19.2 in ${recorded(b, 'kueue')}. `
    + 'Fix: synthesize the app with one version choice (KueueRayVersions.use), or pass --kueue-version.';
  await expect(runCheck({ files: [both], output: 'text', allowEmpty: true })).rejects.toThrow(message);
  expect(() => plan([both])).toThrow(message);
  const flagged = await runCheck({ files: [both], output: 'text', allowEmpty: true, kueueVersion: 'v0.19.2' });
  expect(flagged.notes.join('\n')).toContain('the files record two Kueue versions');
  expect(plan([both, '--kueue-version=v0.19.2']).kueueVersion).toBe('v0.19.2');
});

test('check and plan read an install of a patch they do not model as the same modelled patch, and an unmodelled minor as the default', async () => {
  const installs = (kueueTag: string, kubeRayTag: string) => {
    const dir = tmpdir();
    const deployment = (name: string, ns: string, image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: manager, image: "${image}"}]}
`;
    fs.writeFileSync(path.join(dir, 'installs.yaml'), [
      deployment('kueue-controller-manager', 'kueue-system', `registry.corp.example/kueue/kueue:${kueueTag}`),
      deployment('kuberay-operator', 'kuberay-system', `registry.corp.example/kuberay/operator:${kubeRayTag}`)].join('---\n'));
    return dir;
  };
  const patches = installs('v0.17.5', 'v1.5.0');
  const c = await runCheck({ files: [patches], output: 'text', allowEmpty: true });
  const p = plan([patches]);
  expect(c.context).toMatchObject({ kueue: 'v0.17.0', kueueFrom: 'files', kubeRay: 'v1.5.2', kubeRayFrom: 'files' });
  expect(p.kueueVersion).toBe('v0.17.0');
  // The plan's JSON names no KubeRay version; its notes say which one it ran for, as check's do.
  for (const note of ['Kueue v0.17.5 is not modelled itself: it runs as v0.17.0, the modelled patch of v0.17 closest below it (modelled: v0.17.0, '
    + 'v0.17.8)', 'KubeRay v1.5.0 is not modelled itself: it runs as v1.5.2, the modelled patch of v1.5 closest above it (modelled: v1.5.2)']) {
    expect(c.notes).toContain(note);
    expect(p.notes).toContain(note);
  }
  const old = installs('v0.12.0', 'v1.5.2');
  const oc = await runCheck({ files: [old], output: 'text', allowEmpty: true });
  const op = plan([old]);
  expect(oc.context).toMatchObject({ kueue: 'v0.19.2', kueueFrom: 'default' });
  expect(op.kueueVersion).toBe('v0.19.2');
  expect(oc.notes).toContain('the files install Kueue v0.12.0, which check does not support: the check ran for the default instead');
  expect(op.notes).toContain('the files install Kueue v0.12.0, which plan does not model: planned for the default v0.19.2 instead');
});

test('check and plan pick a version one way: the flag, else the first install with a modelled version, else the default', () => {
  const notes: string[] = [];
  const unmodelled = (v: string, from: string) => `${from} ${v} unmodelled`;
  expect(pickVersion('v0.17.0', [['v0.14.8', 'files']], 'Kueue', notes, unmodelled)).toEqual(['v0.17.0', 'flag']);
  expect(pickVersion(undefined, [[undefined, 'files'], ['v0.19.2', 'cluster']], 'Kueue', notes, unmodelled)).toEqual(['v0.19.2', 'cluster']);
  expect(notes).toEqual([]);
  // An install no modelled patch stands for is passed over, with the command's note.
  expect(pickVersion(undefined, [['v0.1.0', 'files'], ['v0.14.8', 'cluster']], 'Kueue', notes, unmodelled)).toEqual(['v0.14.8', 'cluster']);
  expect(notes).toEqual(['files v0.1.0 unmodelled']);
  expect(pickVersion(undefined, [[undefined, 'files']], 'KubeRay', notes, unmodelled)).toEqual([undefined, 'default']);
});
