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

/** The releases' own group cases: v0.14.8 and v0.17.0 count every child (`first`), v0.17.8 only leader holders. */
export const GROUP_CASES_BY_RELEASE: ReadonlyArray<[string, LeaderPlacement, readonly GroupCase[]]> = [
  ['v0.14.8', 'first', [
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
  ]],
  ['v0.17.0', 'first', [
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
  ]],
  ['v0.17.8', 'contributors', [
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
      nodes: [
        node('small-used', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-used' }, { cpu: '2800m', pods: '10' }),
        node('small-free', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-free' }, { cpu: '2800m', pods: '10' }),
        node('large-free', { [BLOCK]: 'b1', [RACK]: 'large', [HOST]: 'large-free' }, { cpu: '6', pods: '10' }),
      ],
      pods: [
        pod('filler', 'small-used', { cpu: '2500m' }, 'Running'),
      ],
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
      nodes: [
        node('small-used', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-used' }, { cpu: '2800m', pods: '10' }),
        node('small-free', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-free' }, { cpu: '2800m', pods: '10' }),
        node('large-free', { [BLOCK]: 'b1', [RACK]: 'large', [HOST]: 'large-free' }, { cpu: '6', pods: '10' }),
      ],
      pods: [
        pod('filler', 'small-used', { cpu: '2500m' }, 'Running'),
      ],
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
      nodes: [
        node('small-used', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-used' }, { cpu: '2800m', pods: '10' }),
        node('small-free', { [BLOCK]: 'b1', [RACK]: 'small', [HOST]: 'small-free' }, { cpu: '2800m', pods: '10' }),
        node('large-free', { [BLOCK]: 'b1', [RACK]: 'large', [HOST]: 'large-free' }, { cpu: '6', pods: '10' }),
      ],
      pods: [
        pod('filler', 'small-used', { cpu: '2500m' }, 'Running'),
      ],
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
  ]],
];
