/**
 * Kueue's TestFindTopologyAssignments (pkg/cache/scheduler/tas_cache_test.go at v0.19.2), translated into calls of
 * findTopologyAssignment: each case's nodes, non-TAS pods and prior TAS usage build one TasFlavor (topology "default"),
 * the PodSet asks for a placement with the gates at their v0.19.2 defaults (TASProfileMixed on: LeastFreeCapacity for
 * unconstrained requests), and the result must be Kueue's wantAssignment (per domain: its values, the hostname alone
 * on a hostname-leaf topology, and its count, in Kueue's order) or its wantReason, word for word. Case names are
 * upstream's, to grep for. Nodes and pods go in as objects through tasNodesOf, nodeServesFlavor and boundPodsOf (the
 * readers of Kueue's node and non-TAS pod caches); requests are in Kueue's units (cpu in milli, memory in bytes).
 * A case with several PodSets (MULTI_POD_SET_CASES) places them in order, as FindTopologyAssignmentsForFlavor does:
 * two of one podSetGroupName together (the one of fewer pods as the leader, findLeaderAndWorkers), the others alone,
 * each seeing through opts.assumed what the earlier ones took (addAssumedUsage: per domain, one pod's requests times its
 * count, and the pods), and the first failure ends the call, the result then holding the PodSets placed so far.
 *
 * Upstream has 140 cases; 96 are here, the 17 PodSet-group cases among them. The other 44 exercise what the port does
 * not model (tas-assigner.ts):
 * - TASBalancedPlacement on with a preferred request, 19: the "balanced placement; ..." cases, 3 of them with a leader;
 * - TASRespectNodeAffinityPreferred (preferred node affinity), 11: "with preferred affinity", "with required and
 *   preferred affinity", "with multiple preferred affinities", "affinity takes precedence over best fit", the 2
 *   "affinity ordering with ..." cases, the 4 "flat topology, ..." cases and "LWS with leader and workers; preferred
 *   affinity on workers; ...";
 * - elastic workloads (ElasticJobsViaWorkloadSlicesWithTAS, a previous assignment), 8: the "elastic workload ..." cases;
 * - node replacement of an unhealthy node (a workload with UnhealthyNodes), 5: the "node replaced ..." / "node replacement ..." cases;
 * - usage of an overlapping sibling flavor (priorFlavorUsage), 1: "sibling-flavor usage on the shared hostname reduces
 *   remaining capacity".
 * The two "stable tie break ...: TASBalancedPlacement enabled" cases are kept: their request is required, and Kueue
 * runs balanced placement only for preferred ones. The group cases of the older releases, as their own tables have them,
 * run under each release's leader placement (tas-cases.ts): 7 of v0.14.8 and 8 of v0.17.0 (`first`), 11 of v0.17.8
 * (`contributors`).
 */
import { findTopologyAssignment, LeaderPlacement, TopologyRequest } from '../../../src/policy/plan/tas-assigner';
import { boundPodsOf, LeafCount, nodeServesFlavor, TasFlavor, tasNodesOf, TasUsageStore } from '../../../src/policy/plan/topology';
import { requiredAffinityOf, Toleration } from '../../../src/policy/scheduling';

import { AIZONE, BLOCK, DC, GROUP_CASES, GROUP_CASES_BY_RELEASE, HOST, node, Obj, ONE_LEVEL, pod, RACK, THREE_LEVELS, TWO_LEVELS } from './tas-cases';

/** The GB200 case's nodes, which upstream builds in a loop: 8 racks of 18 nodes with 2 GPUs each. */
function gb200Nodes(): Obj[] {
  const racks = [
    ['aizone0', 'block0', 'r0'], ['aizone0', 'block0', 'r1'], ['aizone0', 'block1', 'r2'], ['aizone0', 'block1', 'r3'],
    ['aizone1', 'block2', 'r4'], ['aizone1', 'block2', 'r5'], ['aizone1', 'block3', 'r6'], ['aizone1', 'block3', 'r7'],
  ];
  return racks.flatMap(([az, block, rack]) => Array.from({ length: 18 }, (_, i) =>
    node(`${block}-${rack}-${az}-n${i}`, { [DC]: 'dc0', [AIZONE]: az, [BLOCK]: block, [RACK]: rack }, { 'nvidia.com/gpu': '2', pods: '110' })));
}

const binaryTreesNodes = [
  node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r2-x1', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x1' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r2-x6', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x6' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r1-x2', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r1-x4', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x4' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r2-x7', { [BLOCK]: 'b2', [RACK]: 'r2', [HOST]: 'x7' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r2-x8', { [BLOCK]: 'b2', [RACK]: 'r2', [HOST]: 'x8' }, { cpu: '1', memory: '1Gi', pods: '10' }),
];
const defaultNodes = [
  node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r2-x5', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x5' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r2-x1', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x1' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r2-x6', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x6' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r2-x2', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r2-x4', { [BLOCK]: 'b2', [RACK]: 'r2', [HOST]: 'x4' }, { cpu: '2', memory: '4Gi', pods: '40' }),
];
//      b1                b2
//   /     \           /     \
//  r1      r2        r1      r2
//  |    /  |  \      |        |
//  x3  x5  x1  x6    x2       x4
const multipodNodes = [
  node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '10', memory: '1Gi', pods: '10' }),
  node('b1-r2-x5', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x5' }, { cpu: '10', memory: '1Gi', pods: '10' }),
  node('b1-r2-x1', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x1' }, { cpu: '10', memory: '1Gi', pods: '10' }),
  node('b1-r2-x6', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x6' }, { cpu: '10', memory: '1Gi', pods: '10' }),
  node('b2-r1-x2', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '10', memory: '1Gi', pods: '10' }),
  node('b2-r2-x4', { [BLOCK]: 'b2', [RACK]: 'r2', [HOST]: 'x4' }, { cpu: '20', memory: '4Gi', pods: '40' }),
];
const scatteredNodes = [
  node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '4', memory: '1Gi', pods: '10' }),
  node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', memory: '1Gi', pods: '10' }),
  node('b2-r1-x6', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x6' }, { cpu: '2', memory: '1Gi', pods: '10' }),
  node('b2-r1-x2', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', memory: '1Gi', pods: '10' }),
];

const CASES: Case[] = [
  {
    name: 'minimize the number of used racks before optimizing the number of nodes; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '2', pods: '10' }),
      node('b1-r2-x5', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x5' }, { cpu: '2', pods: '20' }),
      node('b1-r3-x1', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('b1-r3-x6', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x6' }, { cpu: '1', pods: '10' }),
      node('b1-r3-x2', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x2' }, { cpu: '1', pods: '10' }),
      node('b1-r3-x4', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x4' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['x1'], count: 1 }, { values: ['x2'], count: 1 }, { values: ['x4'], count: 1 }, { values: ['x6'], count: 1 }],
  },
  {
    name: 'choose the node that can accommodate all Pods',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '2', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '1', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 2 },
    want: [{ values: ['x3'], count: 2 }],
  },
  {
    name: 'no annotation; implied default to unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into '
      + 'single rack; BestFit',
    nodes: scatteredNodes,
    levels: THREE_LEVELS,
    podSet: { requests: { cpu: 1000 }, count: 6 },
    want: [
      { values: ['x1'], count: 1 }, { values: ['x3'], count: 1 }, { values: ['x5'], count: 1 }, { values: ['x2'], count: 1 },
      { values: ['x6'], count: 2 },
    ],
  },
  {
    name: 'unconstrained; 6 pods fit into hosts scattered across the whole datacenter even they could fit into single rack; BestFit',
    nodes: scatteredNodes,
    levels: THREE_LEVELS,
    podSet: { request: { unconstrained: true, slices: [] }, requests: { cpu: 1000 }, count: 6 },
    want: [
      { values: ['x1'], count: 1 }, { values: ['x3'], count: 1 }, { values: ['x5'], count: 1 }, { values: ['x2'], count: 1 },
      { values: ['x6'], count: 2 },
    ],
  },
  {
    name: 'unconstrained; a single pod fits into each host; BestFit',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { unconstrained: true, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'unconstrained; a single pod fits into each host; LeastFreeCapacity; TASProfileMixed',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { unconstrained: true, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'block required; 4 pods fit into one host each; BestFit',
    nodes: binaryTreesNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['x3'], count: 1 }, { values: ['x5'], count: 1 }, { values: ['x1'], count: 1 }, { values: ['x6'], count: 1 }],
  },
  {
    name: 'host required; single Pod fits in the host; BestFit',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'host required; single Pod fits in the host; BestFit; TASProfileMixed',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'host preferred; single Pod fits in the host; BestFit; TASProfileMixed',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'rack required; single Pod fits in a rack; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['b1', 'r1'], count: 1 }],
  },
  {
    name: 'rack required; multiple Pods fit in a rack; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 3 },
    want: [{ values: ['b1', 'r2'], count: 3 }],
  },
  {
    name: 'block preferred; Pods fit in 2 blocks; BestFit',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '2', pods: '20' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '1', pods: '10' }),
      node('b3', { [BLOCK]: 'b3' }, { cpu: '4', pods: '40' }),
    ],
    levels: [BLOCK],
    podSet: { request: { preferred: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 5 },
    want: [{ values: ['b2'], count: 1 }, { values: ['b3'], count: 4 }],
  },
  {
    name: 'rack required; multiple Pods fit in some racks; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 2 },
    want: [{ values: ['b2', 'r2'], count: 2 }],
  },
  {
    name: 'rack required; too many pods to fit in any rack; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 4 },
    want: 'topology "default" allows to fit only 3 out of 4 pod(s)',
  },
  {
    name: 'block required; single Pod fits in a block and a single rack; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['b2', 'r1'], count: 1 }],
  },
  {
    name: 'block required; single Pod fits in a block spread across two racks; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['b1', 'r1'], count: 1 }, { values: ['b1', 'r2'], count: 3 }],
  },
  {
    name: 'block required; Pods fit in a block spread across two racks; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['b1', 'r1'], count: 1 }, { values: ['b1', 'r2'], count: 3 }],
  },
  {
    name: 'block required; single Pod which cannot be split; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 4000 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: resource "cpu": 4',
  },
  {
    name: 'block required; too many Pods to fit requested; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 5 },
    want: 'topology "default" allows to fit only 4 out of 5 pod(s)',
  },
  {
    name: 'rack required; single Pod requiring memory; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { memory: 1024 }, count: 4 },
    want: [{ values: ['b1', 'r1'], count: 4 }],
  },
  {
    name: 'rack preferred; but only block can accommodate the workload; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { preferred: RACK, slices: [] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['b1', 'r1'], count: 1 }, { values: ['b1', 'r2'], count: 3 }],
  },
  {
    name: 'rack preferred; but only multiple blocks can accommodate the workload; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { preferred: RACK, slices: [] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['b1', 'r1'], count: 1 }, { values: ['b1', 'r2'], count: 3 }, { values: ['b2', 'r2'], count: 2 }],
  },
  {
    name: 'block preferred; but only multiple blocks can accommodate the workload; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { preferred: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['b1', 'r1'], count: 1 }, { values: ['b1', 'r2'], count: 3 }, { values: ['b2', 'r2'], count: 2 }],
  },
  {
    name: 'block preferred; but the workload cannot be accommodate in entire topology; BestFit',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { preferred: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 10 },
    want: 'topology "default" allows to fit only 7 out of 10 pod(s)',
  },
  {
    name: 'only nodes with matching labels are considered; no matching node; BestFit',
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }, { conditions: [] }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-b' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: 'no topology domains at level: kubernetes.io/hostname',
  },
  {
    name: 'only nodes with matching labels are considered; matching node is found; BestFit',
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'only nodes with matching levels are considered; no host label on node; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: 'no topology domains at level: cloud.com/topology-rack',
  },
  {
    name: "don't consider unscheduled Pods when computing capacity; BestFit",
    nodes: [
      node('x3', { [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    pods: [
      pod('test-unscheduled', undefined, { cpu: '600m' }),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 600 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: "don't consider terminal pods when computing the capacity; BestFit",
    nodes: [
      node('x3', { [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    pods: [
      pod('test-failed', 'x3', { cpu: '600m' }, 'Failed'),
      pod('test-succeeded', 'x3', { cpu: '600m' }, 'Succeeded'),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 600 }, count: 1 },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: 'include usage from pending scheduled non-TAS pods, blocked assignment; BestFit',
    nodes: [
      node('x3', { [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    pods: [
      pod('test-pending', 'x3', { cpu: '600m' }, 'Pending'),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 600 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1',
  },
  {
    name: 'include usage from running non-TAS pods, blocked assignment; BestFit',
    nodes: [
      node('x3', { [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    pods: [
      pod('test-running', 'x3', { cpu: '600m' }, 'Running'),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 600 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1',
  },
  {
    name: 'node allocatable capacity completely used by non-TAS pod; empty remainingCapacity',
    nodes: [
      node('x3', { [HOST]: 'x3' }, { cpu: '1', pods: '1' }),
    ],
    pods: [
      pod('running1', 'x3', { cpu: '1' }, 'Running'),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 100 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1',
  },
  {
    name: 'include usage from non-TAS pods; pod usage',
    nodes: [
      node('x3', { [HOST]: 'x3' }, { pods: '10' }),
    ],
    pods: [
      pod('running1', 'x3', {}, 'Running'),
      pod('running2', 'x3', {}, 'Running'),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 0 }, count: 9 },
    want: 'topology "default" allows to fit only 8 out of 9 pod(s)',
  },
  {
    name: 'include usage from running non-TAS pods, found free capacity on another node; BestFit',
    nodes: [
      node('x3', { [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
      node('x5', { [HOST]: 'x5' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    pods: [
      pod('test-pod', 'x3', { cpu: '600m' }),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 600 }, count: 1 },
    want: [{ values: ['x5'], count: 1 }],
  },
  {
    name: 'no assignment as node is not ready; BestFit',
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' },
        { conditions: [{ type: 'Ready', status: 'False' }, { type: 'NetworkUnavailable', status: 'True' }] }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: 'no topology domains at level: kubernetes.io/hostname',
  },
  {
    name: 'no assignment as node is unschedulable; BestFit',
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }, { unschedulable: true }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: 'no topology domains at level: kubernetes.io/hostname',
  },
  {
    name: 'skip node which has untolerated taint; BestFit',
    nodes: [
      node('x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' },
        { taints: [{ key: 'example.com/gpu', value: 'present', effect: 'NoSchedule' }] }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: taint "example.com/gpu=present:NoSchedule": 1',
  },
  {
    name: 'detailed failure message with exclusion stats',
    nodes: [
      node('x1', { [HOST]: 'x1' }, { cpu: '1', pods: '10' }, { taints: [{ key: 'key', value: 'value', effect: 'NoSchedule' }] }),
      node('x2', { [HOST]: 'x2', zone: 'zone-b' }, { cpu: '1', pods: '10' }),
      node('x3', { [HOST]: 'x3', zone: 'zone-b' }, { cpu: '2', pods: '10' }),
      node('x4', { [HOST]: 'x4', zone: 'zone-a' }, { cpu: '100m', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1, nodeSelector: { zone: 'zone-a' } },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: nodeSelector: 2, resource "cpu": 1, taint '
      + '"key=value:NoSchedule": 1',
  },
  {
    name: 'resource exclusion picks most restrictive resource',
    nodes: [
      node('dual-shortage', { [HOST]: 'dual-shortage' }, { cpu: '500m', pods: '10', 'example.com/gpu': '0' }),
    ],
    levels: ONE_LEVEL,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1',
  },
  {
    name: 'allow to schedule on node with tolerated taint; BestFit',
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' },
        { taints: [{ key: 'example.com/gpu', value: 'present', effect: 'NoSchedule' }] }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: {
      request: { required: HOST, slices: [] },
      requests: { cpu: 1000 },
      count: 1,
      tolerations: [{ key: 'example.com/gpu', value: 'present', operator: 'Equal' }],
    },
    want: [{ values: ['x3'], count: 1 }],
  },
  {
    name: "no assignment as node does not have enough allocatable pods (.status.allocatable['pods']); BestFit",
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1000m', pods: '1' }),
    ],
    pods: [
      pod('test-running', 'b1-r1-x3', { cpu: '300m' }, 'Running'),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 300 }, count: 1 },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1',
  },
  {
    name: "skip node which doesn't match node selector, missing label; BestFit",
    nodes: [
      node('x3', { zone: 'zone-a', [HOST]: 'x3' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 300 }, count: 1, nodeSelector: { 'custom-label-1': 'custom-value-1' } },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1',
  },
  {
    name: "skip node which doesn't match node selector, label exists, value doesn't match; BestFit",
    nodes: [
      node('x3', { zone: 'zone-a', [HOST]: 'x3', 'custom-label-1': 'value-1' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 300 }, count: 1, nodeSelector: { 'custom-label-1': 'value-2' } },
    want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: nodeSelector: 1',
  },
  {
    name: 'allow to schedule on node which matches node; BestFit',
    nodes: [
      node('b1-r1-x3', { zone: 'zone-a', [HOST]: 'x3', 'custom-label-1': 'value-1' }, { cpu: '1', memory: '1Gi', pods: '10' }),
      node('b1-r1-x5', { zone: 'zone-a', [HOST]: 'x5', 'custom-label-1': 'value-2' }, { cpu: '1', memory: '1Gi', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    nodeLabels: { zone: 'zone-a' },
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1, nodeSelector: { 'custom-label-1': 'value-2' } },
    want: [{ values: ['x5'], count: 1 }],
  },
  {
    name: 'block required for podset; host required for slices; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '3', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['x1'], count: 2 }, { values: ['x3'], count: 2 }, { values: ['x5'], count: 2 }],
  },
  {
    name: 'block required for podset; host required for slices; prioritize more free slice capacity first and then tight fit; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '6', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '5', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '4', pods: '10' }),
      node('b1-r1-x6', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x6' }, { cpu: '2', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 12 },
    want: [{ values: ['x1'], count: 4 }, { values: ['x3'], count: 6 }, { values: ['x6'], count: 2 }],
  },
  {
    name: 'block required for podset; host required for slices; select domains with tight fit; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '2', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '2', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['x1'], count: 2 }, { values: ['x5'], count: 2 }],
  },
  {
    name: 'block required for podset; rack required for slices; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '1', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '1', pods: '10' }),
      node('b1-r2-x1', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('b1-r2-x6', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x6' }, { cpu: '1', pods: '10' }),
      node('b1-r2-x2', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x2' }, { cpu: '1', pods: '10' }),
      node('b2-r1-x4', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x4' }, { cpu: '1', pods: '10' }),
      node('b2-r1-x7', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x7' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 2 }] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['x3'], count: 1 }, { values: ['x5'], count: 1 }, { values: ['x1'], count: 1 }, { values: ['x2'], count: 1 }],
  },
  {
    name: 'block preferred for podset; rack required for slices; BestFit',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { preferred: BLOCK, slices: [{ topology: RACK, size: 2 }] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['x1'], count: 1 }, { values: ['x5'], count: 1 }, { values: ['x4'], count: 2 }],
  },
  {
    name: 'block required for podset; host required for slices; optimize last domain; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '4', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '2', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['x1'], count: 2 }, { values: ['x3'], count: 4 }],
  },
  {
    name: 'block preferred for podset; host required for slices; 2 blocks with unbalanced subdomains; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '3', pods: '10' }),
      node('b2-r1-x6', { [BLOCK]: 'b2', [RACK]: 'r1', [HOST]: 'x6' }, { cpu: '6', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { preferred: BLOCK, slices: [{ topology: HOST, size: 3 }] }, requests: { cpu: 1000 }, count: 12 },
    want: [{ values: ['x1'], count: 3 }, { values: ['x3'], count: 3 }, { values: ['x6'], count: 6 }],
  },
  {
    name: 'block required for podset; rack required for slices; podset fits in a block, but slices do not fit in racks',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '2', pods: '10' }),
      node('b1-r2-x5', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x5' }, { cpu: '2', pods: '10' }),
      node('b1-r3-x1', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x1' }, { cpu: '2', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 3 }] }, requests: { cpu: 1000 }, count: 6 },
    want: 'topology "default" doesn\'t allow to fit any of 2 slice(s)',
  },
  {
    name: 'block required for podset; rack required for slices; only 1 out of 2 slices fit the topology',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r2-x5', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x5' }, { cpu: '1', pods: '10' }),
      node('b1-r3-x1', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('b1-r4-x6', { [BLOCK]: 'b1', [RACK]: 'r4', [HOST]: 'x6' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 3 }] }, requests: { cpu: 1000 }, count: 6 },
    want: 'topology "default" allows to fit only 1 out of 2 slice(s)',
  },
  {
    name: 'block required for podset; rack required for slices; podset fits in both blocks, but slices fit in only one block',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '2', pods: '10' }),
      node('b1-r2-x5', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x5' }, { cpu: '2', pods: '10' }),
      node('b1-r3-x1', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x1' }, { cpu: '2', pods: '10' }),
      node('b2-r4-x6', { [BLOCK]: 'b2', [RACK]: 'r4', [HOST]: 'x6' }, { cpu: '3', pods: '10' }),
      node('b2-r5-x2', { [BLOCK]: 'b2', [RACK]: 'r5', [HOST]: 'x2' }, { cpu: '3', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 3 }] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['x6'], count: 3 }, { values: ['x2'], count: 3 }],
  },
  {
    name: 'slice required topology level cannot be above the main required topology level',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [{ topology: BLOCK, size: 1 }] }, requests: { cpu: 1000 }, count: 1 },
    want: 'podset slice topology cloud.com/topology-block is above the podset topology kubernetes.io/hostname',
  },
  {
    name: 'slice size is required when slice topology is requested',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: HOST, size: 0 }] }, requests: { cpu: 1000 }, count: 1 },
    want: 'slice topology requested, but slice size not provided',
  },
  {
    name: 'cannot request not existing slice topology',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: 'not-existing-topology-level', size: 1 }] }, requests: { cpu: 1000 }, count: 1 },
    want: 'no requested topology level for slices: not-existing-topology-level',
  },
  {
    name: 'no topology for podset; host required for slices; BestFit',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '3', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['x1'], count: 2 }, { values: ['x3'], count: 2 }, { values: ['x5'], count: 2 }],
  },
  {
    name: 'no topology for podset; host required for slices; multiple blocks; BestFit',
    nodes: scatteredNodes,
    levels: THREE_LEVELS,
    podSet: { request: { slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 6 },
    want: [{ values: ['x3'], count: 4 }, { values: ['x6'], count: 2 }],
  },
  {
    name: 'no topology for podset; rack required for slices; multiple blocks; BestFit',
    nodes: defaultNodes,
    levels: THREE_LEVELS,
    podSet: { request: { slices: [{ topology: RACK, size: 2 }] }, requests: { cpu: 1000 }, count: 4 },
    want: [{ values: ['x1'], count: 1 }, { values: ['x5'], count: 1 }, { values: ['x4'], count: 2 }],
  },
  {
    name: 'multi-layer topology: block required; rack slices of 4; host slices of 2; TASMultiLayerTopology',
    nodes: [
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('b1-r1-x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '4', pods: '10' }),
      node('b1-r2-x3', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r2-x4', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x4' }, { cpu: '4', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 4 }, { topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 8 },
    want: [{ values: ['x2'], count: 4 }, { values: ['x3'], count: 2 }, { values: ['x4'], count: 2 }],
  },
  {
    name: 'multi-layer topology: no feature gate; additional layers ignored',
    nodes: [
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('b1-r1-x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '4', pods: '10' }),
      node('b1-r2-x3', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x3' }, { cpu: '3', pods: '10' }),
      node('b1-r2-x4', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x4' }, { cpu: '4', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 4 }] }, requests: { cpu: 1000 }, count: 8 },
    want: [{ values: ['x1'], count: 1 }, { values: ['x2'], count: 3 }, { values: ['x3'], count: 3 }, { values: ['x4'], count: 1 }],
  },
  {
    name: 'multi-layer topology: mimic a real-world GB200 cluster, with NVL36 arch (2GPUs/node); dc required; aizone slices of 48; rack slices of '
      + '16; TASMultiLayerTopology',
    nodes: gb200Nodes(),
    levels: [DC, AIZONE, BLOCK, RACK],
    podSet: {
      request: { required: DC, slices: [{ topology: AIZONE, size: 48 }, { topology: RACK, size: 16 }] },
      requests: { 'nvidia.com/gpu': 2 },
      count: 96,
    },
    want: [
      { values: ['dc0', 'aizone0', 'block0', 'r0'], count: 16 }, { values: ['dc0', 'aizone0', 'block0', 'r1'], count: 16 },
      { values: ['dc0', 'aizone0', 'block1', 'r2'], count: 16 }, { values: ['dc0', 'aizone1', 'block2', 'r4'], count: 16 },
      { values: ['dc0', 'aizone1', 'block2', 'r5'], count: 16 }, { values: ['dc0', 'aizone1', 'block3', 'r6'], count: 16 },
    ],
  },
  {
    name: 'multi-layer topology: host slice rounding makes rack slice impossible',
    nodes: [
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '3', pods: '10' }),
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '0', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 6 }, { topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 6 },
    want: 'topology "default" doesn\'t allow to fit; 0/1 slice(s) fit on level cloud.com/topology-rack; 2/3 slice(s) fit on level '
      + 'kubernetes.io/hostname. Total nodes: 3; excluded: resource "cpu": 1',
  },
  {
    name: 'multi-layer topology: small host kills rack slices despite enough total capacity',
    nodes: [
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '7', pods: '10' }),
      node('b1-r1-x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '4', pods: '10' }),
      node('b1-r2-x3', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x3' }, { cpu: '7', pods: '10' }),
      node('b1-r2-x4', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x4' }, { cpu: '3', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 8 }, { topology: HOST, size: 4 }] }, requests: { cpu: 1000 }, count: 16 },
    want: 'topology "default" doesn\'t allow to fit; 1/2 slice(s) fit on level cloud.com/topology-rack; 3/4 slice(s) fit on level '
      + 'kubernetes.io/hostname',
  },
  {
    name: 'multi-layer topology: enough hostname slices but not enough rack slices',
    nodes: [
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '4', pods: '10' }),
      node('b1-r2-x2', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x2' }, { cpu: '4', pods: '10' }),
      node('b1-r3-x3', { [BLOCK]: 'b1', [RACK]: 'r3', [HOST]: 'x3' }, { cpu: '4', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: BLOCK, slices: [{ topology: RACK, size: 6 }, { topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 12 },
    want: 'topology "default" doesn\'t allow to fit; 0/2 slice(s) fit on level cloud.com/topology-rack; 6/6 slice(s) fit on level '
      + 'kubernetes.io/hostname',
  },
  {
    name: 'multi-layer topology: 3-layer negative case with small hosts cascading up',
    nodes: [
      node('dc1-b1-r1-x1', { [DC]: 'dc1', [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '4', pods: '10' }),
      node('dc1-b1-r1-x2', { [DC]: 'dc1', [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '4', pods: '10' }),
      node('dc1-b1-r2-x3', { [DC]: 'dc1', [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x3' }, { cpu: '4', pods: '10' }),
      node('dc1-b1-r2-x4', { [DC]: 'dc1', [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x4' }, { cpu: '4', pods: '10' }),
      node('dc1-b2-r3-x5', { [DC]: 'dc1', [BLOCK]: 'b2', [RACK]: 'r3', [HOST]: 'x5' }, { cpu: '4', pods: '10' }),
      node('dc1-b2-r3-x6', { [DC]: 'dc1', [BLOCK]: 'b2', [RACK]: 'r3', [HOST]: 'x6' }, { cpu: '4', pods: '10' }),
      node('dc1-b2-r4-x7', { [DC]: 'dc1', [BLOCK]: 'b2', [RACK]: 'r4', [HOST]: 'x7' }, { cpu: '1', pods: '10' }),
      node('dc1-b2-r4-x8', { [DC]: 'dc1', [BLOCK]: 'b2', [RACK]: 'r4', [HOST]: 'x8' }, { cpu: '1', pods: '10' }),
    ],
    levels: [DC, BLOCK, RACK, HOST],
    podSet: {
      request: { required: DC, slices: [{ topology: BLOCK, size: 12 }, { topology: RACK, size: 6 }, { topology: HOST, size: 3 }] },
      requests: { cpu: 1000 },
      count: 24,
    },
    want: 'topology "default" doesn\'t allow to fit; 1/2 slice(s) fit on level cloud.com/topology-block; 3/4 slice(s) fit on level '
      + 'cloud.com/topology-rack; 6/8 slice(s) fit on level kubernetes.io/hostname',
  },
  {
    name: 'non-hostname-leaf topology: nil aggregatedDomainUsages preserves per-flavor behavior',
    nodes: defaultNodes,
    levels: TWO_LEVELS,
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['b1', 'r1'], count: 1 }],
  },
  {
    name: 'non-hostname-leaf topology: prior c.usage must be applied even when aggregatedDomainUsages is non-nil empty',
    nodes: [
      node('b1-r1', { [BLOCK]: 'b1', [RACK]: 'r1' }, { cpu: '1', pods: '10' }),
      node('b1-r2', { [BLOCK]: 'b1', [RACK]: 'r2' }, { cpu: '1', pods: '10' }),
      node('b2-r1', { [BLOCK]: 'b2', [RACK]: 'r1' }, { cpu: '1', pods: '10' }),
      node('b2-r2', { [BLOCK]: 'b2', [RACK]: 'r2' }, { cpu: '1', pods: '10' }),
    ],
    levels: TWO_LEVELS,
    priorOwnUsage: [{ values: ['b1', 'r1'], requests: { cpu: 1000 }, count: 1 }, { values: ['b1', 'r2'], requests: { cpu: 1000 }, count: 1 }],
    podSet: { request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['b2', 'r1'], count: 1 }],
  },
  // Upstream sets TASBalancedPlacement: it only applies to preferred requests (findTopologyAssignment), so not here.
  {
    name: 'stable tie break on identical nodes: TASBalancedPlacement enabled',
    nodes: [
      node('x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', pods: '10' }),
      node('x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x1'], count: 1 }],
  },
  {
    name: 'stable tie break on identical nodes: TASBalancedPlacement disabled',
    nodes: [
      node('x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', pods: '10' }),
      node('x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x1'], count: 1 }],
  },
  // Upstream sets TASBalancedPlacement: it only applies to preferred requests (findTopologyAssignment), so not here.
  {
    name: 'stable tie break on identical nodes: reversed order, TASBalancedPlacement enabled',
    nodes: [
      node('x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x1'], count: 1 }],
  },
  {
    name: 'stable tie break on identical nodes: reversed order, TASBalancedPlacement disabled',
    nodes: [
      node('x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '1', pods: '10' }),
      node('x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '1', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSet: { request: { required: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1 },
    want: [{ values: ['x1'], count: 1 }],
  },
];

const MULTI_POD_SET_CASES: MultiCase[] = [
  {
    name: 'multiple PodSets account assumed pod usage against allocatable pods; BestFit',
    nodes: [
      node('x1', { [HOST]: 'x1' }, { cpu: '2', pods: '1' }),
    ],
    levels: ONE_LEVEL,
    podSets: [
      {
        name: 'one',
        request: { required: HOST, slices: [] },
        requests: { cpu: 1000 },
        count: 1,
        want: [{ values: ['x1'], count: 1 }],
      },
      {
        name: 'two',
        request: { required: HOST, slices: [] },
        requests: { cpu: 1000 },
        count: 1,
        want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "pods": 1',
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with overlapping domain',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '2', pods: '10' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '2', pods: '10' }),
      node('b3', { [BLOCK]: 'b3' }, { cpu: '2', pods: '10' }),
    ],
    levels: [BLOCK],
    podSets: [
      {
        name: 'podset1',
        request: { preferred: BLOCK, slices: [] },
        requests: { cpu: 1000 },
        count: 3,
        want: [{ values: ['b1'], count: 2 }, { values: ['b2'], count: 1 }],
      },
      {
        name: 'podset2',
        request: { preferred: BLOCK, slices: [] },
        requests: { cpu: 1000 },
        count: 3,
        want: [{ values: ['b2'], count: 1 }, { values: ['b3'], count: 2 }],
      },
    ],
  },
  {
    name: 'multiple podsets: rack required for both, different resource requests; BestFit',
    nodes: multipodNodes,
    levels: TWO_LEVELS,
    podSets: [
      {
        name: 'podset1',
        request: { required: RACK, slices: [] },
        requests: { cpu: 1000 },
        count: 2,
        want: [{ values: ['b1', 'r1'], count: 2 }],
      },
      {
        name: 'podset2',
        request: { required: RACK, slices: [] },
        requests: { memory: 1024 },
        count: 1,
        want: [{ values: ['b1', 'r1'], count: 1 }],
      },
    ],
  },
  {
    name: 'multiple podsets: block required for one, unconstrained for another; TASProfileMixed',
    nodes: multipodNodes,
    levels: THREE_LEVELS,
    podSets: [
      {
        name: 'podset1',
        request: { required: BLOCK, slices: [] },
        requests: { cpu: 1000 },
        count: 8,
        want: [{ values: ['x2'], count: 8 }],
      },
      {
        name: 'podset2',
        request: { unconstrained: true, slices: [] },
        requests: { cpu: 1000 },
        count: 2,
        want: [{ values: ['x2'], count: 2 }],
      },
    ],
  },
  {
    name: 'temporary state cleanup prevents leakage across PodSets',
    nodes: [
      node('n1', { [HOST]: 'x1' }, { cpu: '4', memory: '4Gi', pods: '10' }),
      node('n2', { [HOST]: 'x2' }, { cpu: '4', memory: '4Gi', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    podSets: [
      {
        name: 'ps1',
        requests: { cpu: 1000, memory: 1000 },
        count: 1,
        want: [{ values: ['x1'], count: 1 }],
      },
      {
        name: 'ps2',
        requests: { cpu: 1000, memory: 1000 },
        count: 1,
        nodeSelector: { never: 'match' },
        want: 'topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 2; excluded: nodeSelector: 2',
      },
    ],
  },
  // PodSet groups (podSetGroupName): a leader of one pod placed with its workers in one call (tas-cases.ts).
  ...GROUP_CASES,
];

/** Kueue's TopologyAssignment.Domains: per domain its values and pod count; or the failure reason. */
type Want = ReadonlyArray<{ values: readonly string[]; count: number }> | string;

interface FlavorCase {
  readonly name: string;
  readonly nodes: readonly Obj[];
  readonly pods?: readonly Obj[];
  readonly levels: readonly string[];
  /** The ResourceFlavor's nodeLabels. */
  readonly nodeLabels?: Record<string, string>;
  /** TAS usage of an admitted workload of the flavor (the cache's addUsage): per domain, one pod's requests and the pods. */
  readonly priorOwnUsage?: ReadonlyArray<{ values: readonly string[]; requests: Record<string, number>; count: number }>;
}

interface PodSetCase {
  /** Undefined: no topology annotation, TAS implied. */
  readonly request?: TopologyRequest;
  /** One pod's requests, in Kueue's units. */
  readonly requests: Record<string, number>;
  readonly count: number;
  readonly nodeSelector?: Record<string, string>;
  readonly tolerations?: readonly Toleration[];
  /** The template's spec.affinity.nodeAffinity (corev1.NodeAffinity). */
  readonly nodeAffinity?: Obj;
  /** podSetGroupName: two PodSets of one group are placed together, the one of fewer pods as the leader. */
  readonly group?: string;
}

interface Case extends FlavorCase {
  readonly podSet: PodSetCase;
  readonly want: Want;
}

/** Upstream's podSets, in order: each with its podSetName and its own wantAssignment or wantReason. */
interface MultiCase extends FlavorCase {
  readonly podSets: ReadonlyArray<PodSetCase & { readonly name: string; readonly want: Want }>;
}

/** One pod's requests with the pod itself (Kueue adds resources.OnePodRequest). */
function perPodOf(requests: Record<string, number>): Map<string, number> {
  const out = new Map(Object.entries(requests));
  out.set('pods', (out.get('pods') ?? 0) + 1);
  return out;
}

function flavorOf(c: FlavorCase): TasFlavor {
  const skipped: string[] = [];
  const nodes = tasNodesOf(c.nodes, skipped).filter((n) => nodeServesFlavor(n, c.nodeLabels ?? {}, c.levels));
  const flavor = new TasFlavor('tas', 'default', c.levels, [], nodes, boundPodsOf(c.pods ?? [], skipped), new TasUsageStore());
  expect(skipped).toEqual([]);
  for (const u of c.priorOwnUsage ?? []) {
    // utiltas.DomainID: the values joined by ",".
    const leafIdx = flavor.leaves.findIndex((l) => l.id === u.values.join(','));
    expect(leafIdx).toBeGreaterThanOrEqual(0);
    flavor.addUsage(leafIdx, perPodOf(u.requests), u.count, 1);
  }
  return flavor;
}

function placePodSet(flavor: TasFlavor, name: string, ps: PodSetCase, assumed?: ReadonlyMap<string, ReadonlyMap<string, number>>,
  leader?: PodSetCase & { name: string }, leaderPlacement?: LeaderPlacement): Want | { workers: Want; leader: Want } {
  const result = findTopologyAssignment(flavor, {
    podSet: name,
    count: ps.count,
    perPod: perPodOf(ps.requests),
    request: ps.request,
    implied: ps.request === undefined,
    nodeSelector: ps.nodeSelector ?? {},
    tolerations: ps.tolerations ?? [],
    affinity: ps.nodeAffinity ? requiredAffinityOf({ affinity: { nodeAffinity: ps.nodeAffinity } }) : undefined,
    ...(leader ? { leader: { podSet: leader.name, perPod: perPodOf(leader.requests) } } : {}),
  }, { simulateEmpty: false, leastFreeForUnconstrained: true, assumed, leaderPlacement });
  if (result.reason !== undefined) return result.reason;
  const want = (placement: readonly LeafCount[]) => placement.map(({ leafIdx, count }) => {
    const values = flavor.leaves[leafIdx].levelValues;
    return { values: flavor.isLowestLevelNode ? values.slice(-1) : [...values], count };
  });
  return leader ? { workers: want(result.placement), leader: want(result.leader ?? []) } : want(result.placement);
}

function place(c: Case): Want {
  return placePodSet(flavorOf(c), 'main', c.podSet) as Want;
}

/**
 * FindTopologyAssignmentsForFlavor on several PodSets: grouped by podSetGroupName (else each alone), in order of first
 * appearance; a group of two placed in one call, the second the leader unless it has more pods (findLeaderAndWorkers).
 * Each assignment is then added to assumedUsage (addAssumedUsage: per utiltas.DomainID of the assignment's values, one
 * pod's requests times the count, and the pods); the first failure ends the call, given to every PodSet of its group.
 * By PodSet name, as TASAssignmentsResult.
 */
function placeAll(c: MultiCase, leaderPlacement?: LeaderPlacement): Record<string, Want> {
  const flavor = flavorOf(c);
  const assumed = new Map<string, Map<string, number>>();
  const out: Record<string, Want> = {};
  const groups = new Map<string, Array<MultiCase['podSets'][number]>>();
  c.podSets.forEach((ps, i) => {
    const key = ps.group ?? `#${i}`;
    groups.set(key, [...(groups.get(key) ?? []), ps]);
  });
  for (const members of groups.values()) {
    const [workers, leader] = members.length === 2 && members[1].count > members[0].count ? [members[1], members[0]] : members;
    const got = placePodSet(flavor, workers.name, workers, assumed, leader, leaderPlacement);
    if (typeof got === 'string') {
      for (const ps of members) out[ps.name] = got;
      break;
    }
    const placed: Array<[MultiCase['podSets'][number], Want]> = 'workers' in got ? [[workers, got.workers], [leader!, got.leader]] : [[workers, got]];
    for (const [ps, want] of placed) {
      out[ps.name] = want;
      const perPod = perPodOf(ps.requests);
      for (const { values, count } of want as Exclude<Want, string>) {
        const id = values.join(',');
        let used = assumed.get(id);
        if (!used) assumed.set(id, used = new Map());
        for (const [r, v] of perPod) used.set(r, (used.get(r) ?? 0) + v * count);
      }
    }
  }
  return out;
}

describe('findTopologyAssignment: Kueue v0.19.2 TestFindTopologyAssignments', () => {
  test.each(CASES)('$name', (c) => {
    expect(place(c)).toEqual(c.want);
  });
  test.each(MULTI_POD_SET_CASES)('$name', (c) => {
    expect(placeAll(c)).toEqual(Object.fromEntries(c.podSets.map((ps) => [ps.name, ps.want])));
  });
});

describe.each(GROUP_CASES_BY_RELEASE)('PodSet groups: Kueue %s TestFindTopologyAssignments, leader placement %s', (_release, placement, cases) => {
  test.each(cases)('$name', (c) => {
    expect(placeAll(c, placement)).toEqual(Object.fromEntries(c.podSets.map((ps) => [ps.name, ps.want])));
  });
});
