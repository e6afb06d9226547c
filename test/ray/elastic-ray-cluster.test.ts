// ElasticRayCluster: maxReplicas required, and the warnings that do not fail synth.
import { ElasticRayCluster } from '../../src';
import { setup, head, worker } from '../support/constructs';

describe('ElasticRayCluster', () => {
  test('an elastic workload needs maxReplicas, at construction', () => {
    const { chart, lq } = setup();
    expect(() => new ElasticRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker()] })).toThrow(/maxReplicas is required for an elastic workload/);
  });

  test('borrowing and gate warnings are available without failing synth', () => {
    const { chart, lq } = setup('v0.17.8');
    const c = new ElasticRayCluster(chart, 'c', { queue: lq, headGroup: head, workerGroups: [worker({ maxReplicas: 20 })] });
    const w = c.policyWarnings().join('\n');
    expect(w).toMatch(/ElasticJobsViaWorkloadSlices is Alpha and off by default on Kueue v0.17.8/);
    expect(w).toMatch(/at maxReplicas the cluster needs cpu 21/);
    expect(w).toMatch(/does not count the autoscaler sidecar/);
  });
});
