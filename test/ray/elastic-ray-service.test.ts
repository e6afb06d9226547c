// ElasticRayService: suspend through rayClusterConfig, and the serve port.
import { ElasticRayCluster, ElasticRayService } from '../../src';
import { setup, head, worker } from '../support/constructs';

describe('ElasticRayService', () => {
  test('ElasticRayService suspends through rayClusterConfig on Kueue >= 0.17 only', () => {
    for (const [kueue, suspend] of [['v0.14.8', undefined], ['v0.17.8', true]] as const) {
      const { chart, lq } = setup(kueue, 'v1.5.2');
      const s = new ElasticRayService(chart, 's',
        { queue: lq, serveConfig: { applications: [] }, headGroup: head, workerGroups: [worker({ maxReplicas: 3 })] });
      expect(s.toManifest().spec.rayClusterConfig.suspend).toBe(suspend);
      expect(s.toManifest().spec.serveConfigV2).toBe('applications: []\n');
    }
  });

  test('ElasticRayService\'s head has the port named serve KubeRay routes Serve traffic through; a RayCluster\'s has not', () => {
    const { chart, lq } = setup();
    const s = new ElasticRayService(chart, 's',
      { queue: lq, serveConfig: { applications: [] }, headGroup: head, workerGroups: [worker({ maxReplicas: 3 })] });
    const ports = (spec: any) => spec.headGroupSpec.template.spec.containers[0].ports;
    expect(ports(s.toManifest().spec.rayClusterConfig)).toContainEqual({ containerPort: 8000, name: 'serve' });
    const c = new ElasticRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker({ maxReplicas: 3 })] });
    expect(ports(c.toManifest().spec).map((p: any) => p.name)).toEqual(['gcs-server', 'dashboard', 'client']);
  });
});
