// `check dist/` and `plan dist/` run for the versions the app was synthesized for, read from the
// installs' version annotations; a flag still wins; files recording two versions are an error naming both.
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { AdmissionController, KubeRayVersion, KueueRayVersions, KueueVersion } from '../../src';
import { runCheck } from '../../src/cli/check';
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
