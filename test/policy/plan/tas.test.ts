/**
 * Topology-aware scheduling in the whole plan (issue 44, stage 6): the flavor match (checkPodSetAndFlavorMatchForTAS),
 * Fit→Preempt→NoFit on the nodes, preemption for room on the nodes, the per-version placement (LeastFreeCapacity for
 * unconstrained requests from 0.15) and the recomputation within a cycle (0.19), the nodes the plan reads (Ready,
 * schedulable, the pods bound to them), and the JSON. What the real Kueue does with the fixed scenarios is
 * test/e2e/tas-agreement.e2e.test.ts; the placement algorithm against Kueue's own table is tas-assigner.test.ts.
 */
import { kueueConfigOf, simulatePlan, topologyAssignmentOf } from '../../../src/policy/plan';
import type { PlanResult, PlanWorkload } from '../../../src/policy/plan/schema';
import { HOSTNAME_LABEL } from '../../../src/policy/plan/topology';
import { CONFIG_V1BETA2, kueueCapabilities } from '../../../src/policy/versions';
import { builder, clusterQueue, localQueue } from './scenarios';
import { boundPod, cohortTasScenarios, fixedTasScenarios, node, RACK, tasCluster, tasFlavor, TasScenario, topology } from './tas-scenarios';

const V = 'v0.19.2';

function plan(s: TasScenario, version = V, extra: Partial<Parameters<typeof simulatePlan>[0]> = {}): PlanResult {
  return simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, nodes: s.nodes, boundPods: s.pods, kueueVersion: version, trace: false,
    ...extra });
}

const scenario = (name: string, version = V) => fixedTasScenarios(version).find((s) => s.name === name)!;
const placed = (w: PlanWorkload | undefined) => (w?.admission ?? []).map((a) => `${a.podSet}:${(a.topology?.domains ?? [])
  .map((d) => `${d.values.join('/')}x${d.count}`).join(',')}`).join(' ');
const byName = (p: PlanResult, name: string) => p.workloads.find((w) => w.name === name);

describe('placement on the nodes', () => {
  test('a required rack: BestFit takes the rack with the fewest free places that holds the PodSet; the JSON says where', () => {
    const p = plan(scenario('tas-required-rack-best-fit'));
    expect(placed(byName(p, 'a'))).toBe('head:n4x1 workers:n3x3');
    const topo = byName(p, 'a')!.admission![1].topology!;
    expect(topo).toEqual({ flavor: 'tas', levels: [HOSTNAME_LABEL], domains: [{ values: ['n3'], count: 3 }] });
    expect(p.notes).toContain('topology-aware scheduling: flavor tas (Topology default: 8 node(s), 8 kubernetes.io/hostname domain(s))');
  });

  test('a PodSet no rack can hold, even empty, stays pending with Kueue\'s message (TopologyPlacementFailed)', () => {
    const w = byName(plan(scenario('tas-required-rack-never-fits')), 'huge')!;
    expect(w.outcome).toBe('pending');
    expect(w.pending?.category).toBe('topology');
    expect(w.reason).toBe('TopologyPlacementFailed');
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set workers: topology "default" allows to fit only 2 out of 5 pod(s). '
      + 'Total nodes: 8; excluded: resource "cpu": 2');
  });

  test('excluded nodes are counted by cause: taints and node selectors', () => {
    expect(byName(plan(scenario('tas-node-selector')), 'pickier')!.pending?.message).toContain('excluded: nodeSelector: 6, resource "cpu": 1');
    const taints = plan(scenario('tas-taints'));
    expect(placed(byName(taints, 'intolerant'))).not.toMatch(/n5|n6/);
  });

  test('unconstrained requests: LeastFreeCapacity from 0.15 (TASProfileMixed), BestFit before', () => {
    expect(placed(byName(plan(scenario('tas-unconstrained'), 'v0.19.2'), 'u1'))).toBe('head:n4x1 workers:n1x2,n2x2,n6x1');
    expect(placed(byName(plan(scenario('tas-unconstrained', 'v0.14.8'), 'v0.14.8'), 'u1'))).toBe('head:n4x1 workers:n5x4,n6x1');
  });

  test('pods bound to the nodes take their requests and a pod each; without them the 8-CPU host is the fit', () => {
    const s = scenario('tas-bound-pods');
    expect(byName(plan(s), 'around')!.outcome).toBe('pending');
    expect(byName(plan({ ...s, pods: undefined }), 'around')!.outcome).toBe('admitted');
    // A node's "pods" allocatable counts too: one place left, taken by a bound pod, leaves none.
    const full = { ...s, nodes: s.nodes.map((n) => ({ ...n, status: { ...n.status, allocatable: { ...n.status.allocatable, pods: '1' } } })),
      pods: s.nodes.map((n, i) => boundPod(`p${i}`, n.metadata.name, '0')) };
    expect(byName(plan(full), 'rest')!.pending?.message).toContain('resource "pods": 8');
  });

  test('PodSet groups by release: a group whose counts overstate the room beside its leader is placed nowhere before v0.18.6', () => {
    // g takes n5 and n6, apart n1 and n2; h (a head of 1 CPU with three 4-CPU workers, preferring a rack, grouped) is then
    // counted to fit a block with its head under the `first` rule, but the racks below do not hold it ("unexpected
    // remainingCount").
    const at = (v: string) => plan(scenario('tas-group-head-with-workers', v), v);
    const v14 = at('v0.14.8');
    expect(placed(byName(v14, 'h'))).toBe('head: workers:');
    expect(v14.notes).toContain('RayCluster plan/h: Kueue admits pod set head, workers with an empty topology assignment (its leader placement '
      + 'overstates the room; Kueue logs "unexpected remainingCount"), so TAS does not place those pods');
    // v1beta2 (0.16+) requires the assignment's slices: the admission is refused, and the workload waits.
    const v17 = at('v0.17.0');
    const h17 = byName(v17, 'h')!;
    expect(h17.outcome).toBe('pending');
    expect(h17.pending?.category).toBe('topology');
    expect(h17.pending?.message).toContain('the API server refuses the Workload\'s admission with that empty placement');
    // Kueue retries it at once, and what passes it meanwhile depends on timing: an ambiguity.
    expect(v17.ambiguities.join('\n')).toContain('RayCluster plan/h: the API server refuses Kueue\'s admission of it');
    expect(v14.ambiguities).toEqual([]);
    // v0.19.2 places the head beside its workers, and h spreads over racks (it prefers one; none holds it).
    expect(placed(byName(at(V), 'h'))).toBe('head:n4x1 workers:n3x1,n7x1,n8x1');
  });

  test('only Ready, schedulable nodes count; a node whose allocatable does not parse is left out with a note', () => {
    const s = scenario('tas-required-rack-best-fit');
    const nodes = s.nodes.map((n) => (n.metadata.name === 'n3' ? { ...n, spec: { unschedulable: true } }
      : n.metadata.name === 'n4' ? { ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'False' }] } }
        : n.metadata.name === 'n5' ? { ...n, status: { ...n.status, allocatable: { cpu: 'lots' } } } : n));
    const p = plan({ ...s, nodes });
    expect(p.notes.some((m) => m.startsWith('Node n5: status.allocatable.cpu:') && m.endsWith('left out of topology-aware scheduling'))).toBe(true);
    expect(p.notes).toContain('topology-aware scheduling: flavor tas (Topology default: 5 node(s), 5 kubernetes.io/hostname domain(s))');
    expect(JSON.stringify(p.workloads)).not.toMatch(/"n[345]"/);
  });
});

describe('the flavor match and the queues', () => {
  const b = builder(V);
  const queues = (extra: any[] = []) => [topology(b, 'default'), tasFlavor(b, 'tas', 'default'), ...extra,
    clusterQueue(b, 'cq', { quotas: [{ flavor: 'tas', cpu: '64' }] }), localQueue(b, 'lq', 'cq')];
  const job = (ann?: Record<string, string>) => tasCluster('j', { lq: 'lq', headCpu: '1', workers: 1, workerCpu: '1', ann });
  const nodes = [node({ name: 'n1', block: 'b1', rack: 'r1', cpu: 4 })];

  test('a level the flavor\'s Topology lacks: the flavor does not match, and the workload is never admissible', () => {
    const w = plan({ name: 'x', objects: queues(), arrivals: [job({ 'kueue.x-k8s.io/podset-required-topology': 'example.com/zone' })], nodes })
      .workloads[0];
    expect(w.outcome).toBe('never-admissible');
    expect(w.neverAdmissible).toContain('Flavor "tas" does not contain the requested level');
  });

  test('a TAS flavor beside a plain one: a PodSet that asks nothing skips it ("supports only TopologyAwareScheduling")', () => {
    const objects = [topology(b, 'default'), tasFlavor(b, 'tas', 'default'), clusterQueue(b, 'cq', { quotas: [{ flavor: 'tas', cpu: '64' },
      { flavor: 'plain', cpu: '1' }] }), { apiVersion: b.api, kind: 'ResourceFlavor', metadata: { name: 'plain' }, spec: {} },
    localQueue(b, 'lq', 'cq')];
    const w = plan({ name: 'x', objects, arrivals: [job()], nodes }).workloads[0];
    expect(w.pending?.message).toContain('Flavor "tas" supports only TopologyAwareScheduling');
    // Asking for a rack, it goes to the TAS flavor (the plain one "does not support TopologyAwareScheduling").
    expect(plan({ name: 'y', objects, arrivals: [job({ 'kueue.x-k8s.io/podset-required-topology': RACK })], nodes }).workloads[0].outcome)
      .toBe('admitted');
  });

  test('a PodSet group (podset-group-name) puts the head in the rack of its workers; apart, each PodSet takes its own best fit', () => {
    // r1 holds 3 workers of 2 CPUs, or the head and 2 of them; r2 (one host of 8) holds the head with 3.
    const groupNodes = [node({ name: 'n1', block: 'b1', rack: 'r1', cpu: 4 }), node({ name: 'n2', block: 'b1', rack: 'r1', cpu: 2 }),
      node({ name: 'n3', block: 'b1', rack: 'r2', cpu: 8 })];
    const cluster = (ann: Record<string, string>) => tasCluster('j', { lq: 'lq', headCpu: '1', workers: 3, workerCpu: '2', ann });
    const rack = { 'kueue.x-k8s.io/podset-required-topology': RACK };
    const apart = plan({ name: 'x', objects: queues(), arrivals: [cluster(rack)], nodes: groupNodes }).workloads[0];
    expect(placed(apart)).toBe('head:n2x1 workers:n3x3');
    for (const version of ['v0.14.8', 'v0.17.0', V]) {
      const p = plan({ name: 'x', objects: queues(), arrivals: [cluster({ ...rack, 'kueue.x-k8s.io/podset-group-name': 'g' })], nodes: groupNodes },
        version);
      expect(placed(p.workloads[0])).toBe('head:n3x1 workers:n3x3');
      expect(p.notes.join('\n')).not.toContain('podset-group-name');
    }
  });

  test('a PodSet group gets its flavors together (their requests summed); apart, each PodSet takes the first flavor that fits it', () => {
    // Flavor tas has quota for the head (1 CPU) but not for the head and the workers (2 x 2 CPUs); tas2 for all of them.
    const objects = [topology(b, 'default'), tasFlavor(b, 'tas', 'default'), tasFlavor(b, 'tas2', 'default'),
      clusterQueue(b, 'cq', { quotas: [{ flavor: 'tas', cpu: '3' }, { flavor: 'tas2', cpu: '64' }] }), localQueue(b, 'lq', 'cq')];
    const cluster = (ann: Record<string, string>) => tasCluster('j', { lq: 'lq', headCpu: '1', workers: 2, workerCpu: '2', ann });
    const rack = { 'kueue.x-k8s.io/podset-required-topology': RACK };
    const big = [node({ name: 'n1', block: 'b1', rack: 'r1', cpu: 8 })];
    const flavorsOf = (p: PlanResult) => (p.workloads[0].admission ?? []).map((a) => `${a.podSet}:${Object.values(a.flavors).join('+')}`).join(' ');
    expect(flavorsOf(plan({ name: 'x', objects, arrivals: [cluster(rack)], nodes: big }))).toBe('head:tas workers:tas2');
    expect(flavorsOf(plan({ name: 'x', objects, arrivals: [cluster({ ...rack, 'kueue.x-k8s.io/podset-group-name': 'g' })], nodes: big })))
      .toBe('head:tas2 workers:tas2');
  });

  test('a TAS flavor whose Topology is missing makes its ClusterQueue inactive (TopologyNotFound)', () => {
    const objects = [tasFlavor(b, 'tas', 'nowhere'), clusterQueue(b, 'cq', { quotas: [{ flavor: 'tas', cpu: '64' }] }), localQueue(b, 'lq', 'cq')];
    const w = plan({ name: 'x', objects, arrivals: [job()], nodes }).workloads[0];
    expect(w.pending).toMatchObject({ category: 'inactive',
      message: 'ClusterQueue cq is inactive: there is no Topology "nowhere" for TAS flavor "tas"' });
  });

  test('no nodes: the plan says so, and what asks for TAS waits with Kueue\'s message', () => {
    const p = plan({ name: 'x', objects: queues(), arrivals: [job({ 'kueue.x-k8s.io/podset-required-topology': RACK })], nodes: [] });
    expect(p.notes.some((n) => n.includes('no Node objects were given'))).toBe(true);
    expect(p.workloads[0].pending?.message).toContain('no topology domains at level: cloud.example.com/rack');
  });

  test('Kueue before 0.14 (the TopologyAwareScheduling gate off): a TAS flavor is a plain one', () => {
    const b13 = builder('v0.13.4');
    const objects = [topology(b13, 'default'), tasFlavor(b13, 'tas', 'default'), clusterQueue(b13, 'cq', { quotas: [{ flavor: 'tas', cpu: '64' }] }),
      localQueue(b13, 'lq', 'cq')];
    const w = plan({ name: 'x', objects, arrivals: [job({ 'kueue.x-k8s.io/podset-required-topology': RACK })], nodes: [] }, 'v0.13.4').workloads[0];
    expect(w.outcome).toBe('admitted');
    expect(w.admission![0].topology).toBeUndefined();
  });
});

describe('preemption and the scheduling cycle', () => {
  test('the quota fits but the racks are taken: the high-priority job preempts for room on the nodes', () => {
    const p = plan(scenario('tas-preempt-fragmentation'));
    const high = byName(p, 'high')!;
    expect(high.outcome).toBe('admitted-by-preempting');
    expect(high.preempted!.map((v) => v.workload)).toEqual(['RayCluster plan/low3']);
    expect(high.preempted![0].why).toMatch(/smallest set that frees enough quota and room on the nodes of its TAS flavor$/);
    expect(placed(high)).toBe('head:n2x1 workers:n5x4');
  });

  test('two heads of one cycle want the same rack: 0.19 assigns the second again in the cycle, 0.17 skips it to the next', () => {
    const run = (version: string) => {
      const b = builder(version);
      const objects = [topology(b, 'default'), tasFlavor(b, 'tas', 'default'),
        clusterQueue(b, 'cq1', { quotas: [{ flavor: 'tas', cpu: '64' }] }), clusterQueue(b, 'cq2', { quotas: [{ flavor: 'tas', cpu: '64' }] }),
        localQueue(b, 'lq1', 'cq1'), localQueue(b, 'lq2', 'cq2')];
      const nodes = [node({ name: 'n1', block: 'b1', rack: 'r1', cpu: 4 }), node({ name: 'n2', block: 'b1', rack: 'r2', cpu: 8 })];
      const ann = { 'kueue.x-k8s.io/podset-required-topology': RACK };
      const arrivals = ['lq1', 'lq2'].map((lq, i) => tasCluster(`j${i}`, { lq, headCpu: '1', workers: 2, workerCpu: '1', ann }));
      return simulatePlan({ kueueObjects: objects, arrivals, nodes, kueueVersion: version, queuedAtStart: 2 });
    };
    const results = (p: PlanResult) => p.trace!.flatMap((c) => c.candidates.map((x) => `${c.cycle}:${x.workload}:${x.result}`));
    expect(results(run('v0.19.2'))).toEqual(['1:RayCluster plan/j0:admitted', '1:RayCluster plan/j1:admitted']);
    expect(results(run('v0.17.0'))).toEqual(['1:RayCluster plan/j0:admitted', '1:RayCluster plan/j1:skipped', '2:RayCluster plan/j1:admitted']);
  });
});

describe('workloads Kueue admitted already (a live cluster)', () => {
  test('an admitted arrival keeps its flavors and nodes, though the scheduler would choose others', () => {
    const s = scenario('tas-required-rack-best-fit');
    const admitted = [{ podSets: [
      { name: 'head', flavors: { cpu: 'tas' }, topology: { levels: [HOSTNAME_LABEL], domains: [{ values: ['n5'], count: 1 }] } },
      { name: 'workers', flavors: { cpu: 'tas' }, topology: { levels: [HOSTNAME_LABEL], domains: [{ values: ['n5'], count: 3 }] } },
    ] }];
    const p = plan(s, V, { admitted });
    expect(placed(byName(p, 'a'))).toBe('head:n5x1 workers:n5x3');
    // Scheduled, it would have gone to n4 and n3 (the first test); kept on n5, the rest see n5 full.
    expect(placed(byName(p, 'c'))).not.toMatch(/n5/);
    expect(byName(p, 'a')!.events).toEqual([{ at: 0, event: 'arrived' }, { at: 0, event: 'admitted' }]);
  });

  test('a node the admission names but the cluster no longer has holds nothing; a PodSet it does not name is noted', () => {
    const s = scenario('tas-required-rack-best-fit');
    const p = plan(s, V, { admitted: [{ podSets: [{ name: 'head', flavors: { cpu: 'tas' },
      topology: { levels: [HOSTNAME_LABEL], domains: [{ values: ['gone'], count: 1 }] } }] }] });
    expect(byName(p, 'a')!.outcome).toBe('admitted');
    expect(p.notes).toContain('RayCluster plan/a is admitted without an assignment for pod set workers: it holds no quota for it');
  });

  test('topologyAssignmentOf reads v1beta1 domains and v1beta2 slices (universal values, prefix + roots + suffix)', () => {
    expect(topologyAssignmentOf({ levels: ['h'], domains: [{ values: ['n1'], count: 2 }] })).toEqual({ levels: ['h'],
      domains: [{ values: ['n1'], count: 2 }] });
    expect(topologyAssignmentOf({ levels: ['rack', 'h'], slices: [{ domainCount: 2,
      valuesPerLevel: [{ universal: 'r1' }, { individual: { prefix: 'node-', roots: ['a', 'b'], suffix: '.x' } }],
      podCounts: { individual: [3, 1] } }, { domainCount: 1, valuesPerLevel: [{ universal: 'r2' }, { universal: 'node-c' }],
      podCounts: { universal: 4 } }] })).toEqual({ levels: ['rack', 'h'], domains: [{ values: ['r1', 'node-a.x'], count: 3 },
      { values: ['r1', 'node-b.x'], count: 1 }, { values: ['r2', 'node-c'], count: 4 }] });
    expect(topologyAssignmentOf({ slices: [{ domainCount: 1, valuesPerLevel: [{ universal: 'x' }], podCounts: {} }] })).toBeUndefined();
  });
});

describe('preemption frees the nodes, with fair sharing too (cohortTasScenarios)', () => {
  const [s] = cohortTasScenarios(V);
  const fairSharing = kueueConfigOf({ config: { apiVersion: CONFIG_V1BETA2, kind: 'Configuration',
    fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] } }, where: 'test' }, kueueCapabilities(V));

  test.each([['classical', undefined], ['fair sharing', fairSharing]])('%s: the victim is the one whose host the preemptor needs', (_, config) => {
    const p = plan(s, V, { kueueConfig: config });
    expect(placed(byName(p, 'b1'))).toBe('');
    expect(byName(p, 'a1')!.outcome).toBe('admitted-by-preempting');
    expect(byName(p, 'a1')!.preempted!.map((v) => v.workload)).toEqual(['RayCluster plan/b1']);
    expect(placed(byName(p, 'a1'))).toBe('head:n1x1');
    expect(placed(byName(p, 'b2'))).toBe('head:n2x1');
  });
});
