/**
 * What the TAS placement tests share: Kueue's test nodes and pods as objects, the label keys of tas_cache_test.go, and
 * the PodSet-group cases of the releases before v0.19.2 as their own TestFindTopologyAssignments has them (the tag's
 * pkg/cache/scheduler/tas_cache_test.go), each run under its release's leader placement (LeaderPlacement).
 */
import type { LeaderPlacement, TopologyRequest } from '../../../src/policy/plan/tas-assigner';
import { HOSTNAME_LABEL } from '../../../src/policy/plan/topology';
import type { Taint } from '../../../src/policy/scheduling';

export const DC = 'cloud.com/datacenter';
export const AIZONE = 'cloud.com/aizone';
export const BLOCK = 'cloud.com/topology-block';
export const RACK = 'cloud.com/topology-rack';
export const ZONE = 'cloud.com/topology-zone';
export const HOST = HOSTNAME_LABEL;
export const ONE_LEVEL = [HOST];
export const TWO_LEVELS = [BLOCK, RACK];
export const THREE_LEVELS = [BLOCK, RACK, HOST];

export type Obj = Record<string, unknown>;

interface NodeExtra {
  /** Default: Ready. */
  readonly conditions?: ReadonlyArray<{ type: string; status: string }>;
  readonly unschedulable?: boolean;
  readonly taints?: readonly Taint[];
}

/** A Node as testingnode.MakeNode(name).Label(...).StatusAllocatable(...).Ready() builds it. */
export function node(name: string, labels: Record<string, string>, allocatable: Record<string, string>, extra: NodeExtra = {}): Obj {
  return {
    kind: 'Node',
    metadata: { name, labels },
    spec: { unschedulable: extra.unschedulable, taints: extra.taints },
    status: { allocatable, conditions: extra.conditions ?? [{ type: 'Ready', status: 'True' }] },
  };
}

/** A Pod as testingpod.MakePod(name, 'test-ns').NodeName(...).Request(...).StatusPhase(...) builds it. */
export function pod(name: string, nodeName: string | undefined, requests: Record<string, string>, phase?: string): Obj {
  return {
    kind: 'Pod',
    metadata: { name, namespace: 'test-ns' },
    spec: { nodeName, containers: [{ name: 'c', resources: { requests } }] },
    status: { phase },
  };
}

/** One case of several PodSets, as the test tables write it (tas-assigner.test.ts runs them). */
export interface GroupCase {
  readonly name: string;
  readonly nodes: readonly Obj[];
  readonly pods?: readonly Obj[];
  readonly levels: readonly string[];
  readonly podSets: ReadonlyArray<{
    readonly name: string;
    readonly request?: TopologyRequest;
    readonly requests: Record<string, number>;
    readonly count: number;
    readonly group?: string;
    readonly want: ReadonlyArray<{ values: readonly string[]; count: number }> | string;
  }>;
}

/** The nodes and the pod of the three "grouped podsets ... small / large" cases: a small rack half full, a large one free. */
const SMALL_AND_LARGE_RACKS = [
  node('small-used', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-used' }, { cpu: '2800m', pods: '10' }),
  node('small-free', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-free' }, { cpu: '2800m', pods: '10' }),
  node('large-free', { [BLOCK]: 'b1', [RACK]: 'large', [HOST]: 'large-free' }, { cpu: '6', pods: '10' }),
];
const FILLER = pod('filler', 'small-used', { cpu: '2500m' }, 'Running');

/**
 * The 17 PodSet-group cases of Kueue's TestFindTopologyAssignments at v0.19.2 (pkg/cache/scheduler/tas_cache_test.go),
 * translated: a leader of one pod placed with its workers in one call.
 */
export const GROUP_CASES: readonly GroupCase[] = [
  {
    name: 'find topology assignment for two podsets with the same group',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '2', 'example.com/gpu': '2', memory: '2Gi', pods: '10' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '5', 'example.com/gpu': '4', pods: '10' }),
      node('b3', { [BLOCK]: 'b3' }, { cpu: '2', 'example.com/gpu': '2', pods: '10' }),
    ],
    levels: [BLOCK],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['b2'], count: 1 }],
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 4, group: 'sameGroup',
        want: [{ values: ['b2'], count: 4 }],
      },
    ],
  },
  {
    name: 'find topology assignment for grouped podsets preserves worker capacity when placing leader',
    nodes: [
      node('h1', { [RACK]: 'r1', [HOST]: 'h1' }, { cpu: '2', pods: '10' }),
      node('h2', { [RACK]: 'r1', [HOST]: 'h2' }, { cpu: '4', pods: '10' }),
      node('h3', { [RACK]: 'r1', [HOST]: 'h3' }, { cpu: '3', pods: '10' }),
    ],
    levels: [RACK, HOST],
    podSets: [
      {
        name: 'leader', request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['h3'], count: 1 }],
      },
      {
        name: 'workers', request: { required: RACK, slices: [] }, requests: { cpu: 2000 }, count: 4, group: 'sameGroup',
        want: [{ values: ['h1'], count: 1 }, { values: ['h2'], count: 2 }, { values: ['h3'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for sliced grouped podsets preserves worker capacity when placing leader',
    nodes: [
      node('h1', { [RACK]: 'r1', [HOST]: 'h1' }, { cpu: '2', pods: '10' }),
      node('h2', { [RACK]: 'r1', [HOST]: 'h2' }, { cpu: '4', pods: '10' }),
      node('h3', { [RACK]: 'r1', [HOST]: 'h3' }, { cpu: '3', pods: '10' }),
    ],
    levels: [RACK, HOST],
    podSets: [
      {
        name: 'leader', request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['h3'], count: 1 }],
      },
      {
        name: 'workers', request: { required: RACK, slices: [{ topology: HOST, size: 2 }] }, requests: { cpu: 1000 }, count: 8, group: 'sameGroup',
        want: [{ values: ['h1'], count: 2 }, { values: ['h2'], count: 4 }, { values: ['h3'], count: 2 }],
      },
    ],
  },
  {
    name: 'find topology assignment for preferred grouped podsets preserves capacity across domains',
    nodes: [
      node('h1', { [HOST]: 'h1' }, { cpu: '8', pods: '10' }),
      node('h2', { [HOST]: 'h2' }, { cpu: '3', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    podSets: [
      {
        name: 'leader', request: { preferred: HOST, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['h2'], count: 1 }],
      },
      {
        name: 'workers', request: { preferred: HOST, slices: [] }, requests: { cpu: 2000 }, count: 5, group: 'sameGroup',
        want: [{ values: ['h1'], count: 4 }, { values: ['h2'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for unconstrained grouped podsets spreads leader and worker across domains with TASProfileMixed',
    nodes: [
      node('h1', { [HOST]: 'h1' }, { cpu: '1', pods: '10' }),
      node('h2', { [HOST]: 'h2' }, { 'example.com/gpu': '1', pods: '10' }),
    ],
    levels: ONE_LEVEL,
    podSets: [
      {
        name: 'leader', request: { unconstrained: true, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['h1'], count: 1 }],
      },
      {
        name: 'workers', request: { unconstrained: true, slices: [] }, requests: { 'example.com/gpu': 1 }, count: 1, group: 'sameGroup',
        want: [{ values: ['h2'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for grouped podsets preserves leader below the slice level',
    nodes: [
      node('leader-host', { [RACK]: 'r1', [HOST]: 'leader-host' }, { cpu: '1', pods: '10' }),
      node('worker-host', { [RACK]: 'r1', [HOST]: 'worker-host' }, { 'example.com/gpu': '1', pods: '10' }),
    ],
    levels: [RACK, HOST],
    podSets: [
      {
        name: 'leader', request: { required: RACK, slices: [{ topology: RACK, size: 1 }] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['leader-host'], count: 1 }],
      },
      {
        name: 'workers', request: { required: RACK, slices: [{ topology: RACK, size: 1 }] },
        requests: { 'example.com/gpu': 1 }, count: 1, group: 'sameGroup',
        want: [{ values: ['worker-host'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with the same group with domains that can tightly fit leader and workers',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '2', 'example.com/gpu': '2', pods: '10' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '8', 'example.com/gpu': '8', pods: '10' }),
      node('b3', { [BLOCK]: 'b3' }, { cpu: '2', 'example.com/gpu': '2', pods: '10' }),
    ],
    levels: [BLOCK],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['b2'], count: 1 }],
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 2 }, count: 4, group: 'sameGroup',
        want: [{ values: ['b2'], count: 4 }],
      },
    ],
  },
  {
    name: 'find topology assignment for grouped podsets skips domain where only workers fit without leader',
    nodes: SMALL_AND_LARGE_RACKS,
    pods: [FILLER],
    levels: THREE_LEVELS,
    podSets: [
      {
        name: 'leader', request: { required: RACK, slices: [] }, requests: { cpu: 2500 }, count: 1, group: 'sameGroup',
        want: [{ values: ['large-free'], count: 1 }],
      },
      {
        name: 'workers', request: { required: RACK, slices: [] }, requests: { cpu: 2500 }, count: 1, group: 'sameGroup',
        want: [{ values: ['large-free'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for grouped podsets skips domain where mixed-size workers only fit without leader',
    nodes: SMALL_AND_LARGE_RACKS,
    pods: [FILLER],
    levels: THREE_LEVELS,
    podSets: [
      {
        name: 'leader', request: { required: RACK, slices: [] }, requests: { cpu: 2500 }, count: 1, group: 'sameGroup',
        want: [{ values: ['large-free'], count: 1 }],
      },
      {
        name: 'workers', request: { required: RACK, slices: [] }, requests: { cpu: 500 }, count: 2, group: 'sameGroup',
        want: [{ values: ['large-free'], count: 2 }],
      },
    ],
  },
  {
    name: 'find topology assignment for grouped podsets keeps tight domain when leader and workers fit together',
    nodes: SMALL_AND_LARGE_RACKS,
    pods: [FILLER],
    levels: THREE_LEVELS,
    podSets: [
      {
        name: 'leader', request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['small-free'], count: 1 }],
      },
      {
        name: 'workers', request: { required: RACK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['small-free'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with the same group - no fit',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '1', 'example.com/gpu': '0', pods: '10' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '4', 'example.com/gpu': '4', pods: '10' }),
    ],
    levels: [BLOCK],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: 'topology "default" allows to fit only 4 out of 4 pod(s). Total nodes: 2; excluded: resource "example.com/gpu": 1',
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 4, group: 'sameGroup',
        want: 'topology "default" allows to fit only 4 out of 4 pod(s). Total nodes: 2; excluded: resource "example.com/gpu": 1',
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with the same group - optimizes domain for both leader and workers',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '11', 'example.com/gpu': '8', pods: '10' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '4', 'example.com/gpu': '4', pods: '10' }),
    ],
    levels: [BLOCK],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['b1'], count: 1 }],
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 4, group: 'sameGroup',
        want: [{ values: ['b1'], count: 4 }],
      },
    ],
  },
  {
    name: 'BestFit: podset group workers spread across hosts',
    nodes: [
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '20', 'example.com/gpu': '4', pods: '10' }),
      node('b1-r1-x2', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x2' }, { cpu: '20', 'example.com/gpu': '2', pods: '10' }),
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '20', 'example.com/gpu': '2', pods: '10' }),
      node('b1-r1-x4', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x4' }, { cpu: '20', 'example.com/gpu': '2', pods: '10' }),
    ],
    levels: THREE_LEVELS,
    podSets: [
      {
        name: 'leader', request: { preferred: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['x1'], count: 1 }],
      },
      {
        name: 'workers', request: { preferred: BLOCK, slices: [{ topology: HOST, size: 2 }] },
        requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 6, group: 'sameGroup',
        want: [{ values: ['x1'], count: 4 }, { values: ['x2'], count: 2 }],
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with the same group - leader does not fit anywhere',
    nodes: [
      node('b1', { [BLOCK]: 'b1' }, { cpu: '4', 'example.com/gpu': '4', pods: '10' }),
      node('b2', { [BLOCK]: 'b2' }, { cpu: '4', 'example.com/gpu': '4', pods: '10' }),
    ],
    levels: [BLOCK],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 10000 }, count: 1, group: 'sameGroup',
        want: 'topology "default" allows to fit only 4 out of 4 pod(s)',
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 4, group: 'sameGroup',
        want: 'topology "default" allows to fit only 4 out of 4 pod(s)',
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with the same group - multiple hosts',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '2', pods: '10', 'example.com/gpu': '1' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '2', pods: '10', 'example.com/gpu': '1' }),
      node('b1-r1-x1', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x1' }, { cpu: '2', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r4-x6', { [BLOCK]: 'b2', [RACK]: 'r4', [HOST]: 'x6' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r5-x2', { [BLOCK]: 'b2', [RACK]: 'r5', [HOST]: 'x2' }, { cpu: '2', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r6-x4', { [BLOCK]: 'b2', [RACK]: 'r6', [HOST]: 'x4' }, { cpu: '2', pods: '10', 'example.com/gpu': '1' }),
    ],
    levels: [BLOCK, RACK, HOST],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 2000 }, count: 1, group: 'sameGroup',
        want: [{ values: ['x1'], count: 1 }],
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 2, group: 'sameGroup',
        want: [{ values: ['x3'], count: 1 }, { values: ['x5'], count: 1 }],
      },
    ],
  },
  {
    name: 'find topology assignment for two podsets with the same group requesting same resources and nodes in the same rack',
    nodes: [
      node('b1-r1-x3', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x3' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b1-r1-x5', { [BLOCK]: 'b1', [RACK]: 'r1', [HOST]: 'x5' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b1-r2-x1', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x1' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b1-r2-x6', { [BLOCK]: 'b1', [RACK]: 'r2', [HOST]: 'x6' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r3-x2', { [BLOCK]: 'b2', [RACK]: 'r3', [HOST]: 'x2' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r3-x4', { [BLOCK]: 'b2', [RACK]: 'r3', [HOST]: 'x4' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r4-x7', { [BLOCK]: 'b2', [RACK]: 'r4', [HOST]: 'x7' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
      node('b2-r4-x8', { [BLOCK]: 'b2', [RACK]: 'r4', [HOST]: 'x8' }, { cpu: '1', pods: '10', 'example.com/gpu': '1' }),
    ],
    levels: [BLOCK, RACK, HOST],
    podSets: [
      {
        name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 1, group: 'sameGroup',
        want: [{ values: ['x3'], count: 1 }],
      },
      {
        name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 1 }, count: 2, group: 'sameGroup',
        want: [{ values: ['x5'], count: 1 }, { values: ['x1'], count: 1 }],
      },
    ],
  },
  {
    name: 'optimize the last domain for LWS using BestFit',
    nodes: [
      node('dom1-node', { [ZONE]: 'dom1', [RACK]: 'rack1', [HOST]: 'dom1-node' }, { cpu: '10', memory: '10Gi', pods: '10' }),
      node('dom2-node', { [ZONE]: 'dom2', [RACK]: 'rack2', [HOST]: 'dom2-node' }, { cpu: '6', memory: '10Gi', pods: '10' }),
    ],
    levels: [ZONE, RACK, HOST],
    podSets: [
      { name: 'leader', request: { required: ZONE, slices: [{ topology: RACK, size: 1 }] }, requests: { cpu: 1000, memory: 1024 * 1024 * 1024 },
        count: 1, group: 'lws', want: [{ values: ['dom2-node'], count: 1 }] },
      { name: 'workers', request: { required: ZONE, slices: [{ topology: RACK, size: 1 }] }, requests: { cpu: 1000, memory: 1024 * 1024 * 1024 },
        count: 5, group: 'lws', want: [{ values: ['dom2-node'], count: 5 }] },
    ],
  },
];

/**
 * The same test's group cases at v0.14.8 as that tag has this one: its PodSets carry no group, so the leader goes where a
 * PodSet of its own fits best.
 */
const UNGROUPED_AT_V0_14_8: GroupCase = {
  name: 'find topology assignment for two podsets with the same group with domains that can tightly fit leader and workers',
  nodes: [
    node('b1', { [BLOCK]: 'b1' }, { cpu: '2', 'example.com/gpu': '2', pods: '10' }),
    node('b2', { [BLOCK]: 'b2' }, { cpu: '8', 'example.com/gpu': '8', pods: '10' }),
    node('b3', { [BLOCK]: 'b3' }, { cpu: '2', 'example.com/gpu': '2', pods: '10' }),
  ],
  levels: [BLOCK],
  podSets: [
    { name: 'leader', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000 }, count: 1, want: [{ values: ['b1'], count: 1 }] },
    {
      name: 'workers', request: { required: BLOCK, slices: [] }, requests: { cpu: 1000, 'example.com/gpu': 2 }, count: 4,
      want: [{ values: ['b2'], count: 4 }],
    },
  ],
};

const byName = (names: readonly string[]): GroupCase[] => names.map((n) => {
  const c = GROUP_CASES.find((x) => x.name === n);
  if (!c) throw new Error(`no group case ${n}`);
  return c;
});

/**
 * The releases' own group cases, each run under its release's leader placement: those the tag's table has as v0.19.2's
 * (the same nodes, requests and expectations; checked when they were translated), by name, and the one it has otherwise.
 * v0.14.8 and v0.17.0 count every child (`first`), v0.17.8 only leader holders (`contributors`).
 */
export const GROUP_CASES_BY_RELEASE: ReadonlyArray<[string, LeaderPlacement, readonly GroupCase[]]> = [
  ['v0.14.8', 'first', [...byName([
    'find topology assignment for two podsets with the same group',
    'find topology assignment for two podsets with the same group - no fit',
    'find topology assignment for two podsets with the same group - optimizes domain for both leader and workers',
    'find topology assignment for two podsets with the same group - leader does not fit anywhere',
    'find topology assignment for two podsets with the same group - multiple hosts',
    'find topology assignment for two podsets with the same group requesting same resources and nodes in the same rack',
  ]), UNGROUPED_AT_V0_14_8]],
  ['v0.17.0', 'first', byName([
    'find topology assignment for two podsets with the same group',
    'find topology assignment for two podsets with the same group with domains that can tightly fit leader and workers',
    'find topology assignment for two podsets with the same group - no fit',
    'find topology assignment for two podsets with the same group - optimizes domain for both leader and workers',
    'BestFit: podset group workers spread across hosts',
    'find topology assignment for two podsets with the same group - leader does not fit anywhere',
    'find topology assignment for two podsets with the same group - multiple hosts',
    'find topology assignment for two podsets with the same group requesting same resources and nodes in the same rack',
  ])],
  ['v0.17.8', 'contributors', byName([
    'find topology assignment for two podsets with the same group',
    'find topology assignment for two podsets with the same group with domains that can tightly fit leader and workers',
    'find topology assignment for grouped podsets skips domain where only workers fit without leader',
    'find topology assignment for grouped podsets skips domain where mixed-size workers only fit without leader',
    'find topology assignment for grouped podsets keeps tight domain when leader and workers fit together',
    'find topology assignment for two podsets with the same group - no fit',
    'find topology assignment for two podsets with the same group - optimizes domain for both leader and workers',
    'BestFit: podset group workers spread across hosts',
    'find topology assignment for two podsets with the same group - leader does not fit anywhere',
    'find topology assignment for two podsets with the same group - multiple hosts',
    'find topology assignment for two podsets with the same group requesting same resources and nodes in the same rack',
  ])],
];
