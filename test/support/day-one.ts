// Issue 24's day one, as the consumer tests (TypeScript and Python) run it from the built packages: one
// app with the day-one options, synthesized through a release mirror, then its dist/ read the way an
// operator reads it and `check dist/` / `plan dist/` run on it. Both languages write the same app, so
// one set of assertions judges both.
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { vendorDir } from '../../scripts/vendor-dir';
import { startReleaseServer, ReleaseServer } from './release-server';

/** Not the default pair, so check and plan only run for it when they read what dist/ records. */
export const DAY_ONE_KUEUE = 'v0.14.8';
export const DAY_ONE_KUBERAY = 'v1.4.2';
export const DAY_ONE_MIRROR = 'registry.corp.example/mirror';
/** The KubeRay install's own image, whose tag is no version: the annotation must say it. */
export const DAY_ONE_KUBERAY_IMAGE = { repository: 'registry.corp.example/kuberay/operator', tag: 'corp-build-7' };

/**
 * A release mirror on 127.0.0.1 with upstream's layout (<root>/kueue/<v>/manifests.yaml,
 * <root>/kuberay/<v>/ray-operator/config/crd/bases/), serving the vendored files of these versions, and
 * the environment that points synth at it with a fresh cache.
 */
export async function startReleaseMirror(root: string, versions: { kueue: string[]; kubeRay: string[] }, who: string)
  : Promise<{ server: ReleaseServer; env: Record<string, string> }> {
  const vendor = vendorDir(who);
  const crds = path.join('ray-operator', 'config', 'crd', 'bases');
  for (const v of versions.kueue) {
    fs.mkdirSync(path.join(root, 'kueue', v), { recursive: true });
    fs.copyFileSync(path.join(vendor, 'kueue', v, 'manifests.yaml'), path.join(root, 'kueue', v, 'manifests.yaml'));
  }
  for (const v of versions.kubeRay) fs.cpSync(path.join(vendor, 'kuberay', v, crds), path.join(root, 'kuberay', v, crds), { recursive: true });
  const server = await startReleaseServer(root, path.join(root, 'requests.log'));
  return {
    server,
    env: {
      CDK8S_KUEUE_RAY_KUEUE_RELEASES_URL: `${server.url}/kueue`, CDK8S_KUEUE_RAY_KUBERAY_SOURCES_URL: `${server.url}/kuberay`,
      CDK8S_KUEUE_RAY_CACHE: path.join(root, 'cache'),
    },
  };
}

function objectsOf(file: string): any[] {
  return parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS()).filter(Boolean);
}

/**
 * The day-one app's dist/ (in `app`): the generateName run in dist/create/ only, the installs' images
 * from the mirror (KubeRay's own image winning), the pull secret on each install, Kueue's
 * waitForPodsReady, KubeRay's batch scheduler; then check and plan (run by `cli` in the app's folder)
 * for the versions dist/ records, each saying where it read them.
 */
export function expectDayOne(app: string, cli: (args: string[]) => string, controllerVersion: string): void {
  const dist = path.join(app, 'dist');
  expect(fs.readdirSync(path.join(dist, 'create'))).toEqual(['runs.k8s.yaml']);
  const run = objectsOf(path.join(dist, 'create', 'runs.k8s.yaml'));
  expect(run.map((o) => [o.kind, o.metadata.name, o.metadata.generateName])).toEqual([['RayJob', undefined, 'nightly-']]);
  const top = fs.readdirSync(dist).filter((f) => f.endsWith('.k8s.yaml')).flatMap((f) => objectsOf(path.join(dist, f)));
  expect(top.filter((o) => o.metadata?.generateName)).toEqual([]);

  const deployment = (name: string) => top.find((o) => o.kind === 'Deployment' && o.metadata.name === name)?.spec.template.spec;
  const kueue = deployment('kueue-controller-manager');
  const kubeRay = deployment('kuberay-operator');
  const controller = deployment('cdk8s-kueue-ray-controller');
  expect(kueue.containers[0].image).toBe(`${DAY_ONE_MIRROR}/kueue/kueue:${DAY_ONE_KUEUE}`);
  expect(kubeRay.containers[0].image).toBe(`${DAY_ONE_KUBERAY_IMAGE.repository}:${DAY_ONE_KUBERAY_IMAGE.tag}`);
  expect(controller.containers[0].image).toBe(`${DAY_ONE_MIRROR}/cdk8s-kueue-ray/controller:${controllerVersion}`);
  for (const spec of [kueue, kubeRay, controller]) expect(spec.imagePullSecrets).toEqual([{ name: 'corp-pull' }]);
  expect(kubeRay.containers[0].args).toContain('--batch-scheduler=volcano');
  const config = top.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'kueue-manager-config');
  expect(parseYaml(config.data['controller_manager_config.yaml']).waitForPodsReady).toMatchObject({ enable: true, timeout: '45m' });

  const kueueNote = `Kueue ${DAY_ONE_KUEUE} as recorded in dist/0001-kueue.k8s.yaml (Deployment kueue-controller-manager, `
    + 'annotation cdk8s-kueue-ray.io/kueue-version)';
  const kubeRayNote = `KubeRay ${DAY_ONE_KUBERAY} as recorded in dist/0000-kuberay.k8s.yaml (Deployment kuberay-operator, `
    + 'annotation cdk8s-kueue-ray.io/kuberay-version)';
  const check = cli(['check', 'dist/']);
  expect(check).toContain(`note: ${kueueNote}`);
  expect(check).toContain(`note: ${kubeRayNote}`);
  expect(check).toMatch(new RegExp(`check: 0 errors, 0 warnings in 2 Ray objects .*Kueue ${DAY_ONE_KUEUE} \\(files\\), `
    + `KubeRay ${DAY_ONE_KUBERAY} \\(files\\)`));
  const plan = cli(['plan', 'dist/']);
  expect(plan).toMatch(new RegExp(`^Plan for Kueue ${DAY_ONE_KUEUE}: 2 workload\\(s\\): 2 admitted`));
  expect(plan).toContain('RayJob team-a/nightly-');
  expect(plan).toContain(`  ${kueueNote}\n`);
  expect(plan).toContain(`  ${kubeRayNote}\n`);
}
