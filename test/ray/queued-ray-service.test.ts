// QueuedRayService: the serve port, and where it is suspended on each version pair.
import { QueuedRayService } from '../../src';
import { setup, head, worker } from '../support/constructs';

describe('QueuedRayService', () => {
  test('QueuedRayService: serve port, suspend through rayClusterConfig on Kueue >= 0.17 only, no autoscaler', () => {
    for (const [kueue, suspend] of [['v0.14.8', undefined], ['v0.17.8', true]] as const) {
      const { chart, lq } = setup(kueue, 'v1.5.2');
      const s = new QueuedRayService(chart, 's',
        { queue: lq, serveConfigV2Yaml: 'applications: []\n', headGroup: head, workerGroups: [worker()] });
      const spec = s.toManifest().spec;
      expect(spec.serveConfigV2).toBe('applications: []\n');
      expect(spec.rayClusterConfig.suspend).toBe(suspend);
      expect(spec.rayClusterConfig.enableInTreeAutoscaling).toBeUndefined();
      expect(spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].ports).toContainEqual({ containerPort: 8000, name: 'serve' });
      expect(s.toManifest().metadata.annotations).toBeUndefined();
      expect(s.gang.totalRequests).toEqual({ cpu: '2', memory: '4Gi' });
    }
    const { chart, lq } = setup();
    expect(() => new QueuedRayService(chart, 'x', { queue: lq, headGroup: head })).toThrow(/give exactly one of 'serveConfig' or 'serveConfigV2Yaml'/);
  });

  test('KubeRay v1.7.0: a RayService is never suspended through spec.suspend; it synthesizes on Kueue < 0.17 and is refused on native Kueue', () => {
    const old = setup('v0.14.8', 'v1.7.0');
    const s = new QueuedRayService(old.chart, 's', { queue: old.lq, serveConfig: { applications: [] }, headGroup: head });
    old.app.synth();
    expect(s.toManifest().spec.suspend).toBeUndefined();
    expect(s.toManifest().spec.rayClusterConfig.suspend).toBeUndefined();
    const native = setup('v0.19.2', 'v1.7.0');
    const n = new QueuedRayService(native.chart, 's', { queue: native.lq, serveConfig: { applications: [] }, headGroup: head });
    // Kueue 0.19 suspends through rayClusterConfig.suspend, which 1.7.0 applies only when it creates the RayCluster.
    expect(n.toManifest().spec.suspend).toBeUndefined();
    expect(n.toManifest().spec.rayClusterConfig.suspend).toBe(true);
    expect(() => native.app.synth()).toThrow(/KubeRay v1.7.0 applies only when it creates the RayCluster/);
  });
});
