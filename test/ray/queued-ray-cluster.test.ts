// QueuedRayCluster: a fixed gang, run through the same rules as the RayJob.
import { QueuedRayCluster, QueuedRayService } from '../../src';
import { setup, head, worker } from '../support/constructs';

describe('QueuedRayCluster', () => {
  test('QueuedRayCluster is a fixed gang: no autoscaler, no elastic annotation, suspended, counted as written', () => {
    const { chart, lq, dev } = setup();
    const c = new QueuedRayCluster(chart, 'c', { queue: lq, priorityClass: dev, headGroup: head, workerGroups: [worker({ replicas: 2 })] });
    const out = c.apiObject.toJson();
    expect(out).toEqual(c.toManifest());
    expect(out.metadata).toEqual({ name: 'c', namespace: 'default',
      labels: { 'kueue.x-k8s.io/queue-name': 'lq', 'kueue.x-k8s.io/priority-class': 'dev' } });
    expect(out.spec.suspend).toBe(true);
    expect(out.spec.enableInTreeAutoscaling).toBeUndefined();
    expect(out.spec.autoscalerOptions).toBeUndefined();
    expect(out.spec.workerGroupSpecs[0]).toMatchObject({ replicas: 2, minReplicas: 2, maxReplicas: 2 });
    expect(c.elastic).toBe(false);
    // The hand-written gang: head 1 CPU / 2Gi + 2 x (1 CPU / 2Gi), nothing added.
    expect(c.gang.totalRequests).toEqual({ cpu: '3', memory: '6Gi' });
    expect(c.gang.podSets.map((p) => [p.name, p.count, p.extras])).toEqual([['head', 1, []], ['workers', 2, []]]);
  });

  test('the fixed-size siblings run the same rules: a gang that can never fit, a broken RayService pair', () => {
    const { app, chart, lq } = setup();
    new QueuedRayCluster(chart, 'big', { queue: lq, headGroup: head, workerGroups: [worker({ replicas: 8 })] });
    expect(() => app.synth()).toThrow(/RayCluster .*the gang needs cpu 9, memory 18Gi .* but ClusterQueue "cq" can provide at most cpu 8, memory 16Gi/);
    const broken = setup('v0.17.8', 'v1.4.2');
    new QueuedRayService(broken.chart, 's', { queue: broken.lq, serveConfig: { applications: [] }, headGroup: head });
    expect(() => broken.app.synth()).toThrow(/kuberay#4686/);
  });
});
