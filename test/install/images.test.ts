// Air-gapped installs: the app-wide registry mirror, each install's image and pull secrets (the Helm
// charts' values), and the version annotations `check` and `plan` read back from dist/.
import * as path from 'path';
import { App, Testing } from 'cdk8s';
import {
  AdmissionController, ImageRegistry, KubeRayInstall, KubeRayVersion, KueueInstall, KueueRayVersions, KueueVersion,
} from '../../src';
import { mirroredImage } from '../../src/platform/image-registry';
import { KUBERAY_VERSION_ANNOTATION, KUEUE_VERSION_ANNOTATION } from '../../src/policy/versions';
import { vendorDir } from '../support/upstream';

const VENDOR = vendorDir();
if (!VENDOR) throw new Error('install tests need ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
const MANIFEST = path.join(VENDOR, 'kueue', 'v0.17.8', 'manifests.yaml');
const CRD_DIR = path.join(VENDOR, 'kuberay', 'v1.5.2', 'ray-operator', 'config', 'crd', 'bases');
const MIRROR = 'registry.corp.example/mirror';
const CONTROLLER_VERSION = require('../../package.json').version;

function app(mirror?: string): App {
  const a = Testing.app();
  KueueRayVersions.use(a, { kueue: KueueVersion.V0_17_8, kubeRay: KubeRayVersion.V1_5_2 });
  if (mirror) ImageRegistry.use(a, { mirror });
  return a;
}

const deploymentOf = (objs: any[]) => objs.find((o) => o.kind === 'Deployment');
const podOf = (objs: any[]) => deploymentOf(objs).spec.template.spec;

type Maker = (a: App, props: Record<string, any>) => any[];
const INSTALLS: Array<[string, Maker, string]> = [
  ['KueueInstall', (a, p) => new KueueInstall(a, 'kueue', { manifestFile: MANIFEST, ...p }).toJson(), 'registry.k8s.io/kueue/kueue:v0.17.8'],
  ['KubeRayInstall', (a, p) => new KubeRayInstall(a, 'kuberay', { crdDir: CRD_DIR, ...p }).toJson(), 'quay.io/kuberay/operator:v1.5.2'],
  ['AdmissionController', (a, p) => new AdmissionController(a, 'controller', p).toJson(),
    `ghcr.io/cdk8s-kueue-ray/controller:${CONTROLLER_VERSION}`],
];

describe.each(INSTALLS)('%s', (name, make, upstream) => {
  test('without the options: the upstream image and no pull secrets', () => {
    const pod = podOf(make(app(), {}));
    expect(pod.containers[0].image).toBe(upstream);
    expect(pod.imagePullSecrets).toBeUndefined();
  });

  test('the mirror pulls the same path from the mirror registry, and changes nothing else', () => {
    const plain = make(app(), {});
    const mirrored = make(app(MIRROR), {});
    const image = upstream.slice(upstream.indexOf('/') + 1);
    expect(podOf(mirrored).containers[0].image).toBe(`${MIRROR}/${image}`);
    podOf(mirrored).containers[0].image = upstream;
    expect(mirrored).toEqual(plain);
  });

  test('pull secrets are added to the pod spec, and nothing else changes', () => {
    const plain = make(app(), {});
    const withSecrets = make(app(), { imagePullSecrets: ['corp-pull', 'corp-pull-2'] });
    expect(podOf(withSecrets).imagePullSecrets).toEqual([{ name: 'corp-pull' }, { name: 'corp-pull-2' }]);
    delete podOf(withSecrets).imagePullSecrets;
    expect(withSecrets).toEqual(plain);
  });

  test('a pull secret that is not a Secret name is refused, naming the install and the fix', () => {
    expect(() => make(app(), { imagePullSecrets: ['Corp_Pull'] })).toThrow(
      new RegExp(`${name} '.*': imagePullSecrets 'Corp_Pull' is not a Secret name .* Fix:`));
  });
});

describe.each(INSTALLS.slice(0, 2))('%s image prop (the Helm chart\'s image.repository and image.tag)', (name, make, upstream) => {
  test('repository and tag win over the release and the mirror', () => {
    const pod = podOf(make(app(MIRROR), { image: { repository: 'registry.corp.example/team/operator', tag: 'v9-corp' } }));
    expect(pod.containers[0].image).toBe('registry.corp.example/team/operator:v9-corp');
  });

  test('a tag alone keeps the (mirrored) repository; a repository alone keeps the release tag', () => {
    const [repo, tag] = [upstream.slice(0, upstream.lastIndexOf(':')), upstream.slice(upstream.lastIndexOf(':') + 1)];
    expect(podOf(make(app(MIRROR), { image: { tag: 'patched' } })).containers[0].image)
      .toBe(`${MIRROR}/${repo.slice(repo.indexOf('/') + 1)}:patched`);
    expect(podOf(make(app(), { image: { repository: 'registry.corp.example:5000/x/y' } })).containers[0].image)
      .toBe(`registry.corp.example:5000/x/y:${tag}`);
  });

  test('a repository holding a tag, or a bad tag, is refused with the fix', () => {
    expect(() => make(app(), { image: { repository: 'registry.corp.example/x/y:v1' } }))
      .toThrow(new RegExp(`${name} '.*': image.repository 'registry.corp.example/x/y:v1' is not an image repository.*Fix: .*image.tag`));
    expect(() => make(app(), { image: { tag: 'v1 beta' } })).toThrow(new RegExp(`${name} '.*': image.tag 'v1 beta' is not an image tag`));
  });
});

test('AdmissionController: an explicit image is used as given, mirror or not', () => {
  expect(podOf(new AdmissionController(app(MIRROR), 'c', { image: 'registry.corp.example/c:1' }).toJson()).containers[0].image)
    .toBe('registry.corp.example/c:1');
  expect(() => new AdmissionController(app(), 'c', { image: '' })).toThrow(/AdmissionController 'c': image '' is not an image reference/);
});

test('ImageRegistry: a mirror with a scheme is refused; trailing slashes are dropped; of() reads it back', () => {
  expect(() => ImageRegistry.use(Testing.app(), { mirror: 'https://registry.corp.example' }))
    .toThrow(/mirror 'https:\/\/registry.corp.example' is not a registry host .*Fix: e.g. "registry.corp.example\/mirror"/);
  const a = Testing.app();
  expect(ImageRegistry.mirrorOf(a)).toBeUndefined();
  ImageRegistry.use(a, { mirror: 'registry.corp.example:5000/m/' });
  expect(ImageRegistry.mirrorOf(a)).toBe('registry.corp.example:5000/m');
});

test('the mirror replaces only the public registries the installs pull from', () => {
  for (const host of ['registry.k8s.io', 'quay.io', 'docker.io', 'ghcr.io']) {
    expect(mirroredImage(`${host}/a/b:v1`, MIRROR)).toBe(`${MIRROR}/a/b:v1`);
  }
  expect(mirroredImage('registry.other.example/a/b:v1', MIRROR)).toBe('registry.other.example/a/b:v1');
  expect(mirroredImage('quay.io/a/b:v1', undefined)).toBe('quay.io/a/b:v1');
});

test('the install Deployments, and only they, carry the versions the app was synthesized for', () => {
  const a = app();
  const objs = [
    ...new KueueInstall(a, 'kueue', { manifestFile: MANIFEST }).toJson(),
    ...new KubeRayInstall(a, 'kuberay', { crdDir: CRD_DIR }).toJson(),
    ...new AdmissionController(a, 'controller').toJson(),
  ];
  const annotated = objs.filter((o) => o.metadata?.annotations?.[KUEUE_VERSION_ANNOTATION] || o.metadata?.annotations?.[KUBERAY_VERSION_ANNOTATION]);
  expect(annotated.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['Deployment/kueue-controller-manager', 'Deployment/kuberay-operator',
    'Deployment/cdk8s-kueue-ray-controller']);
  expect(annotated.map((o) => o.metadata.annotations)).toEqual([
    { [KUEUE_VERSION_ANNOTATION]: 'v0.17.8' },
    { [KUBERAY_VERSION_ANNOTATION]: 'v1.5.2' },
    { [KUEUE_VERSION_ANNOTATION]: 'v0.17.8', [KUBERAY_VERSION_ANNOTATION]: 'v1.5.2' },
  ]);
});
