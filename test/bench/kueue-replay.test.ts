// The translation of Kueue's scalability configs into plan input (bench/kueue-replay.ts), on a small config in the
// generator's format: the names, arrival times, requests and priorities Kueue's generator would create, and the
// plan's times to admission on the timeline for a queue that can run one workload at a time.
import { classAverages, publishedFigures, replayInput } from '../../bench/kueue-replay';
import { simulatePlan } from '../../src/policy/plan';

const CONFIG = {
  cohorts: [{
    className: 'cohort', count: 1,
    queuesSets: [{
      className: 'cq', count: 2, nominalQuota: 4, borrowingLimit: 0, reclaimWithinCohort: 'Any', withinClusterQueue: 'LowerPriority',
      workloadsSets: [
        { count: 3, creationIntervalMs: 100, workloads: [{ className: 'small', runtimeMs: 1000, priority: 50, request: 4 }] },
        { count: 1, creationIntervalMs: 500, workloads: [{ className: 'large', runtimeMs: 2000, priority: 200, request: 4 }] },
      ],
    }],
  }],
};

test('queues, priority classes and workloads are named and timed as Kueue\'s generator makes them', () => {
  const input = replayInput(CONFIG);
  const cqs = input.kueueObjects.filter((o) => o.kind === 'ClusterQueue');
  expect(cqs.map((c) => c.metadata.name)).toEqual(['cq-0-0-cohort-0', 'cq-0-1-cohort-0']);
  expect(cqs[0].spec.cohortName).toBe('cohort-0');
  expect(cqs[0].spec.resourceGroups[0].flavors[0].resources[0]).toEqual({ name: 'cpu', nominalQuota: '4', borrowingLimit: '0' });
  expect(cqs[0].spec.preemption).toEqual({ reclaimWithinCohort: 'Any', withinClusterQueue: 'LowerPriority' });
  expect(input.kueueObjects.filter((o) => o.kind === 'WorkloadPriorityClass').map((o) => [o.metadata.name, o.value]))
    .toEqual([['priority-50', 50], ['priority-200', 200]]);
  // Per queue: small-0-{0,1,2}-0 at 100, 200, 300 ms and large-1-0-0 at 500 ms; both queues at once.
  const q0 = input.arrivals.filter((a) => a.metadata.namespace === 'cq-0-0-cohort-0');
  expect(q0.map((a) => [a.metadata.name, a.metadata.annotations['cdk8s-kueue-ray.io/plan-arrival']]))
    .toEqual([['small-0-0-0', '100ms'], ['small-0-1-0', '200ms'], ['small-0-2-0', '300ms'], ['large-1-0-0', '500ms']]);
  expect(input.arrivals).toHaveLength(8);
  const large = q0[3];
  expect(large.metadata.labels).toEqual({ 'kueue.x-k8s.io/queue-name': 'cq-0-0-cohort-0', 'kueue.x-k8s.io/priority-class': 'priority-200' });
  expect(large.metadata.annotations['cdk8s-kueue-ray.io/expected-duration']).toBe('2000ms');
  expect(large.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.requests).toEqual({ cpu: '4' });
  expect(input.classOf.get('RayJob cq-0-0-cohort-0/large-1-0-0')).toBe('large');
});

test('on the timeline, a queue that fits one workload at a time admits them in turn, and the large one preempts', () => {
  const input = replayInput(CONFIG);
  const plan = simulatePlan({ kueueObjects: input.kueueObjects, arrivals: input.arrivals, kueueVersion: 'v0.19.2', trace: false });
  expect(plan.timeline.ended).toBe('settled');
  const at = (name: string) => plan.workloads.find((w) => w.workload === `RayJob cq-0-0-cohort-0/${name}`)!;
  // small-0-0-0 runs 0.1-1.1 s, but the large one (priority 200) arrives at 0.5 s and preempts it (LowerPriority).
  expect(at('small-0-0-0').preemptedBy).toEqual(['RayJob cq-0-0-cohort-0/large-1-0-0']);
  expect(at('large-1-0-0').admittedAt).toBeCloseTo(0.5, 6);
  expect(at('large-1-0-0').finishedAt).toBeCloseTo(2.5, 6);
  const avg = classAverages(plan.workloads, input.classOf);
  expect(avg.large).toEqual({ count: 2, avgMs: 0, neverAdmitted: 0 });
  expect(avg.small.count).toBe(6);
  expect(avg.small.neverAdmitted).toBe(0);
  // Every small one waited for the large one to finish at 2.5 s (the first also for its restart): none waited less.
  expect(avg.small.avgMs).toBeGreaterThan(2000);
});

test('the published averages are read from the rangespec\'s comments, in both of its forms', () => {
  const rangespec = ['cmd:', '  # Average value 351116.4 (+/- 0.9%), setting at +20%', '  maxWallMs: 425_000', '',
    'clusterQueueClassesMinUsage:', '  cq: 50 #%', '', 'wlClassesMaxAvgTimeToAdmissionMs:',
    '  # Average value 16501 (+/- 13%) with SchedulingEquivalenceHashing enabled, setting at +40%.', '  large: 23_000', '',
    '  medium: 308_000  # mean=256413ms', ''].join('\n');
  expect(publishedFigures(rangespec)).toEqual({ avgTimeToAdmissionMs: { large: 16501, medium: 256413 }, maxWallMs: 425000, meanWallMs: 351116.4 });
  expect(() => publishedFigures('wlClassesMaxAvgTimeToAdmissionMs:\n  small: 1_000\n')).toThrow(/no measured average for class small/);
});

test('the TAS config\'s form of the rangespec: "# mean / stddev / CV%" after the class and the wall bound', () => {
  const rangespec = ['cmd:', '  maxWallMs: 482_000       # 401472 / 5737 / 1.43%', 'wlClassesMaxAvgTimeToAdmissionMs:',
    '  large-balanced-rack:    46_000        # 37862 / 1573 / 4.15%', ''].join('\n');
  expect(publishedFigures(rangespec))
    .toEqual({ avgTimeToAdmissionMs: { 'large-balanced-rack': 37862 }, maxWallMs: 482000, meanWallMs: 401472 });
});

test('the TAS config: the Topology, a Node per leaf named as Kueue names them, the TAS flavor, a PodSet per workload asking for its level', () => {
  const input = replayInput({
    topology: { name: 'default-topology', levels: [{ name: 'block', count: 1, nodeLabel: 'example.com/block' },
      { name: 'rack', count: 2, nodeLabel: 'example.com/rack' },
      { name: 'node', count: 2, nodeLabel: 'kubernetes.io/hostname', capacity: { cpu: '96', memory: '256Gi' } }] },
    resourceFlavor: { name: 'tas-flavor', nodeLabel: 'tas-node-group', topologyName: 'default-topology' },
    cohorts: [{ className: 'cohort', count: 1, queuesSets: [{ className: 'cq', count: 1, nominalQuota: 20, workloadsSets: [
      { count: 1, creationIntervalMs: 100, workloads: [{ className: 'r', runtimeMs: 200, priority: 50, request: '500m', podCount: 2,
        tasConstraint: 'required', tasLevel: 'example.com/rack' }] },
      { count: 1, creationIntervalMs: 100, workloads: [{ className: 'b', runtimeMs: 200, priority: 50, request: '500m', podCount: 4,
        tasConstraint: 'balanced', tasLevel: 'example.com/rack', sliceSize: 2 }] }] }] }],
  });
  const nodes = input.kueueObjects.filter((o) => o.kind === 'Node');
  expect(nodes.map((n) => n.metadata.name)).toEqual(['node-b0-r0-n0', 'node-b0-r0-n1', 'node-b0-r1-n0', 'node-b0-r1-n1']);
  expect(nodes[2].metadata.labels).toEqual({ 'tas-node-group': 'tas', 'example.com/block': 'block-0', 'example.com/rack': 'rack-1',
    'kubernetes.io/hostname': 'node-b0-r1-n0' });
  expect(input.kueueObjects.find((o) => o.kind === 'ResourceFlavor').spec).toEqual({ topologyName: 'default-topology',
    nodeLabels: { 'tas-node-group': 'tas' } });
  const workers = (i: number) => input.arrivals[i].spec.rayClusterSpec.workerGroupSpecs[0];
  expect([workers(0).replicas, workers(0).template.metadata.annotations])
    .toEqual([2, { 'kueue.x-k8s.io/podset-required-topology': 'example.com/rack' }]);
  expect(workers(1).template.metadata.annotations).toEqual({ 'kueue.x-k8s.io/podset-slice-required-topology': 'example.com/rack',
    'kueue.x-k8s.io/podset-slice-size': '2' });
  const plan = simulatePlan({ kueueObjects: input.kueueObjects, arrivals: input.arrivals, nodes, kueueVersion: 'v0.19.2', trace: false });
  expect(plan.workloads.every((w) => w.outcome === 'admitted' && w.admission!.some((a) => a.topology?.domains.length))).toBe(true);
});
