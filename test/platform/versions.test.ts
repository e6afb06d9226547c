// KueueRayVersions, KueueVersion, KubeRayVersion: the supported versions and the pair an app uses.
import { Chart, Testing } from 'cdk8s';
import { KubeRayVersion, KueueRayVersions, KueueVersion, ResourceFlavor } from '../../src';

describe('versions', () => {
  test('default pair is Kueue v0.19.2 + KubeRay v1.6.2, emitting v1beta2', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    const f = new ResourceFlavor(chart, 'f');
    expect(KueueRayVersions.of(chart)).toEqual({ kueueVersion: 'v0.19.2', kubeRayVersion: 'v1.6.2', elasticGateEnabled: undefined });
    expect(f.apiObject.toJson().apiVersion).toBe('kueue.x-k8s.io/v1beta2');
  });

  test('an unknown version is refused with the supported list', () => {
    expect(() => KueueVersion.of('v0.15.2'))
      .toThrow("Kueue version 'v0.15.2' is not supported: choose one of v0.13.4, v0.14.8, v0.17.0, v0.17.8, v0.19.2");
    expect(() => KubeRayVersion.of('1.8.0')).toThrow("KubeRay version '1.8.0' is not supported");
    const app = Testing.app();
    app.node.setContext('cdk8s-kueue-ray:kueueVersion', 'v9.9.9');
    expect(() => new ResourceFlavor(new Chart(app, 'c'), 'f')).toThrow(/v9.9.9.*is not supported.*context at 'c\/f'/);
  });
});
