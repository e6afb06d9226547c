/**
 * Topology-aware scheduling scenarios (issue 44, stage 6), shared by the plan's unit tests and the agreement suite
 * against the real Kueue: a Topology of blocks, racks and hosts, Node objects with allocatable and a Ready condition,
 * TAS flavors selecting their nodes by a scenario label, and RayClusters whose pod templates carry Kueue's topology
 * annotations. `isolateTas` renames a scenario's cluster-scoped objects and nodes so many share one control plane: each
 * flavor then sees only its own scenario's nodes.
 */
import { HOSTNAME_LABEL } from '../../../src/policy/plan/topology';
import { mulberry32 } from '../../support/random';
import { Builder, builder, clusterQueue, CQSpec, flavor, isolate, localQueue, NS, PlanScenario, wpc } from './scenarios';

export const BLOCK = 'cloud.example.com/block';
export const RACK = 'cloud.example.com/rack';
/** The label a scenario's TAS flavors select their nodes by (Kueue's CRD wants at least one node label on a TAS flavor). */
export const SCENARIO_LABEL = 'plan.example.com/scenario';
const BASE = 'base';

export interface TasScenario extends PlanScenario {
  /** Node objects: Ready, with allocatable cpu and pods. */
  readonly nodes: any[];
  /** Pods bound to the nodes (not Kueue's): their requests come off the nodes' allocatable. */
  readonly pods?: any[];
}

/** A pod bound to a node (spec.nodeName), as a DaemonSet's or a static pod would be. */
export function boundPod(name: string, nodeName: string, cpu: string): any {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS },
    spec: { nodeName, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu } } }] } };
}

export interface NodeSpec {
  readonly name: string;
  readonly block: string;
  readonly rack: string;
  readonly cpu: number;
  readonly taint?: { readonly key: string; readonly value?: string; readonly effect: string };
  /** More labels (a node pool a flavor selects). */
  readonly labels?: Readonly<Record<string, string>>;
}

export function node(n: NodeSpec, scenario = BASE): any {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name: n.name, labels: { ...n.labels, [BLOCK]: n.block, [RACK]: n.rack, [HOSTNAME_LABEL]: n.name, [SCENARIO_LABEL]: scenario } },
    spec: n.taint ? { taints: [n.taint] } : {},
    status: { allocatable: { cpu: String(n.cpu), memory: '64Gi', pods: '110' }, capacity: { cpu: String(n.cpu), memory: '64Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'test node' }] },
  };
}

export function topology(b: Builder, name: string, levels = [BLOCK, RACK, HOSTNAME_LABEL]): any {
  // Topology is served as v1beta1 up to 0.14 and v1beta2 from 0.15, as the other Kueue kinds.
  return { apiVersion: b.api, kind: 'Topology', metadata: { name }, spec: { levels: levels.map((nodeLabel) => ({ nodeLabel })) } };
}

export function tasFlavor(b: Builder, name: string, topologyName: string, tolerations?: any[], nodeLabels: Record<string, string> = {}): any {
  return { apiVersion: b.api, kind: 'ResourceFlavor', metadata: { name },
    spec: { topologyName, nodeLabels: { ...nodeLabels, [SCENARIO_LABEL]: BASE }, ...(tolerations ? { tolerations } : {}) } };
}

export interface TasJobSpec {
  readonly lq: string;
  readonly priority?: string;
  readonly headCpu: string;
  readonly workers: number;
  readonly workerCpu: string;
  /** The pod templates' annotations (head and workers alike, unless `headAnn`). */
  readonly ann?: Record<string, string>;
  /** The head template's own annotations (a slice larger than its one pod is refused by Kueue's webhook). */
  readonly headAnn?: Record<string, string>;
  readonly tolerations?: any[];
  readonly nodeSelector?: Record<string, string>;
}

const container = (name: string, cpu: string) => ({ name, image: 'rayproject/ray:2.46.0', resources: { requests: { cpu }, limits: { cpu } } });

/** A RayCluster: a head and one worker group, both templates with the same TAS annotations. */
export function tasCluster(name: string, j: TasJobSpec): any {
  const template = (c: string, cpu: string, ann = j.ann) => ({
    ...(ann ? { metadata: { annotations: { ...ann } } } : {}),
    spec: { containers: [container(c, cpu)], ...(j.tolerations ? { tolerations: j.tolerations } : {}),
      ...(j.nodeSelector ? { nodeSelector: j.nodeSelector } : {}) },
  });
  return {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name, namespace: NS,
      labels: { 'kueue.x-k8s.io/queue-name': j.lq, ...(j.priority ? { 'kueue.x-k8s.io/priority-class': j.priority } : {}) } },
    spec: {
      rayVersion: '2.46.0',
      headGroupSpec: { rayStartParams: {}, template: template('ray-head', j.headCpu, j.headAnn ?? j.ann) },
      workerGroupSpecs: j.workers ? [{ groupName: 'workers', replicas: j.workers, minReplicas: 0, maxReplicas: 16, rayStartParams: {},
        template: template('ray-worker', j.workerCpu) }] : [],
    },
  };
}

const required = (level: string) => ({ 'kueue.x-k8s.io/podset-required-topology': level });
const preferred = (level: string) => ({ 'kueue.x-k8s.io/podset-preferred-topology': level });
const UNCONSTRAINED = { 'kueue.x-k8s.io/podset-unconstrained-topology': 'true' };
const GROUP = 'kueue.x-k8s.io/podset-group-name';

/** Two blocks of two racks, hosts of unequal size: BestFit and LeastFreeCapacity choose differently. */
const NODES: NodeSpec[] = [
  { name: 'n1', block: 'b1', rack: 'r1', cpu: 4 }, { name: 'n2', block: 'b1', rack: 'r1', cpu: 4 },
  { name: 'n3', block: 'b1', rack: 'r2', cpu: 4 }, { name: 'n4', block: 'b1', rack: 'r2', cpu: 2 },
  { name: 'n5', block: 'b2', rack: 'r3', cpu: 8 }, { name: 'n6', block: 'b2', rack: 'r3', cpu: 2 },
  { name: 'n7', block: 'b2', rack: 'r4', cpu: 4 }, { name: 'n8', block: 'b2', rack: 'r4', cpu: 4 },
];

function priorities(b: Builder): any[] {
  return [wpc(b, 'low', 10), wpc(b, 'high', 100)];
}

/** The fixed scenarios for a Kueue version. */
export function fixedTasScenarios(kueueVersion: string): TasScenario[] {
  const b = builder(kueueVersion);
  const base = (tasNodeLabels?: Record<string, string>) => [topology(b, 'default'), tasFlavor(b, 'tas', 'default', undefined, tasNodeLabels),
    ...priorities(b)];
  const cq = (s: Partial<CQSpec> = {}) => clusterQueue(b, 'cq', { quotas: [{ flavor: 'tas', cpu: '64' }], ...s });
  const one = (name: string, arrivals: any[], opts: { cq?: Partial<CQSpec>; nodes?: NodeSpec[]; extra?: any[]; pods?: any[];
    tasNodeLabels?: Record<string, string> } = {}): TasScenario => ({
    name, objects: [...base(opts.tasNodeLabels), ...(opts.extra ?? []), cq(opts.cq), localQueue(b, 'lq', 'cq')], arrivals,
    nodes: (opts.nodes ?? NODES).map((n) => node(n)), ...(opts.pods ? { pods: opts.pods } : {}),
  });
  const job = (name: string, workers: number, workerCpu: string, ann?: Record<string, string>, extra: Partial<TasJobSpec> = {}) =>
    tasCluster(name, { lq: 'lq', headCpu: '1', workers, workerCpu, ann, ...extra });
  return [
    one('tas-required-rack-best-fit', [job('a', 3, '1', required(RACK)), job('b', 4, '2', required(RACK)), job('c', 2, '4', required(RACK))]),
    one('tas-required-host-does-not-fit', [job('big', 3, '4', required(HOSTNAME_LABEL)), job('fits', 2, '4', required(HOSTNAME_LABEL))]),
    one('tas-required-rack-never-fits', [job('huge', 5, '4', required(RACK))]),
    one('tas-preferred-spreads-up', [job('p', 5, '4', preferred(RACK)), job('q', 3, '2', preferred(RACK))]),
    one('tas-preferred-block', [job('a', 6, '2', preferred(BLOCK)), job('b', 6, '2', preferred(BLOCK))]),
    // No host holds u1's workers: BestFit spreads from the largest host, LeastFreeCapacity (0.15+) from the smallest.
    one('tas-unconstrained', [job('u1', 5, '2', UNCONSTRAINED), job('u2', 2, '1', UNCONSTRAINED), job('u3', 4, '4', UNCONSTRAINED)]),
    // A ClusterQueue of TAS flavors only: TAS is implied for pods that ask nothing (unconstrained, at the lowest level).
    one('tas-implied', [job('plain', 3, '2'), job('plain2', 5, '1')]),
    one('tas-taints', [job('intolerant', 2, '4', required(RACK)), job('tolerant', 2, '8', required(RACK),
      { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] })],
    { nodes: NODES.map((n) => (n.rack === 'r3' ? { ...n, taint: { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' } } : n)) }),
    one('tas-node-selector', [job('picky', 2, '2', required(RACK), { nodeSelector: { [BLOCK]: 'b2' } }),
      job('pickier', 2, '4', required(HOSTNAME_LABEL), { nodeSelector: { [RACK]: 'r2' } })]),
    one('tas-slices', [job('s', 4, '2', { ...required(BLOCK), 'kueue.x-k8s.io/podset-slice-required-topology': HOSTNAME_LABEL,
      'kueue.x-k8s.io/podset-slice-size': '2' }, { headAnn: required(BLOCK) }), job('t', 6, '1', { ...required(BLOCK),
      'kueue.x-k8s.io/podset-slice-required-topology': RACK, 'kueue.x-k8s.io/podset-slice-size': '3' }, { headAnn: required(RACK) })]),
    // The quota fits but the racks are taken: the high-priority job preempts for room on the nodes.
    one('tas-preempt-fragmentation', [job('low1', 3, '2', required(RACK), { priority: 'low' }),
      job('low2', 3, '2', required(RACK), { priority: 'low' }), job('low3', 3, '2', required(RACK), { priority: 'low' }),
      job('low4', 3, '2', required(RACK), { priority: 'low' }),
      job('high', 4, '2', required(RACK), { priority: 'high' })], { cq: { within: 'LowerPriority' } }),
    // Pods already on the nodes take their requests: the 8-CPU host has 2 left, so the rack of two 4-CPU hosts is the fit.
    one('tas-bound-pods', [job('around', 2, '4', required(HOSTNAME_LABEL)), job('rest', 3, '2', required(RACK))],
      { pods: [boundPod('daemon-n5', 'n5', '6'), boundPod('daemon-n1', 'n1', '3')] }),
    // PodSet groups (podset-group-name on the head and the workers): the head is placed with its workers. Apart, the head
    // takes the fullest rack that holds one pod and the workers another; grouped, both go to a rack that holds the workers
    // with the head beside them. h last: before v0.18.6 Kueue places it nowhere, and on v1beta2 retries it at once, so
    // what it holds back behind it would depend on timing.
    one('tas-group-head-with-workers', [job('g', 4, '2', { ...required(RACK), [GROUP]: 'g' }), job('apart', 4, '2', required(RACK)),
      job('h', 3, '4', { ...preferred(RACK), [GROUP]: 'h' })]),
    // A group in a full cluster: the head must fit beside the workers, or the group waits.
    one('tas-group-tight', [job('fill', 6, '4', required(BLOCK)), job('g', 3, '2', { ...required(RACK), [GROUP]: 'g' }),
      job('g2', 1, '4', { ...required(HOSTNAME_LABEL), [GROUP]: 'g2' })]),
    // Where a flavor scan resumes: b's scan stops at tas (its quota fits) but a holds tas's one node, and no one may be
    // preempted; tas2 is untried, so Kueue puts b back at once and the next scan starts there (LastAssignment).
    one('tas-flavor-scan-resume', [job('a', 1, '7', required(HOSTNAME_LABEL)), tasCluster('b', { lq: 'lq2', headCpu: '1', workers: 1,
      workerCpu: '7', ann: required(HOSTNAME_LABEL) })], {
      cq: { cohort: 'co', quotas: [{ flavor: 'tas', cpu: '8' }] },
      extra: [clusterQueue(b, 'cq2', { cohort: 'co', quotas: [{ flavor: 'tas', cpu: '8' }, { flavor: 'tas2', cpu: '8' }] }),
        localQueue(b, 'lq2', 'cq2'), tasFlavor(b, 'tas2', 'default', undefined, { pool: 'b' })],
      nodes: [{ name: 'n1', block: 'b1', rack: 'r1', cpu: 8, labels: { pool: 'a' } }, { name: 'n2', block: 'b1', rack: 'r1', cpu: 8,
        labels: { pool: 'b' } }],
      tasNodeLabels: { pool: 'a' } }),
    // A non-TAS flavor first: a job without annotations takes it; one that asks for a rack cannot, and goes to the TAS flavor.
    one('tas-mixed-flavors', [job('anywhere', 2, '1'), job('racked', 2, '1', required(RACK))], {
      cq: { quotas: [{ flavor: 'plain', cpu: '4' }, { flavor: 'tas', cpu: '64' }] }, extra: [flavor(b, 'plain')] }),
  ];
}

/** A random scenario: random hosts in two blocks of two racks, and jobs asking for random levels. */
export function randomTasScenario(kueueVersion: string, seed: number): TasScenario {
  const b = builder(kueueVersion);
  const rnd = mulberry32(seed);
  // PodSet groups draw from a stream of their own, so the rest of a seed's scenario is as before they were drawn.
  const groupRnd = mulberry32(seed ^ 0x5bd1e995);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const nodes: NodeSpec[] = [];
  let n = 0;
  for (const block of ['b1', 'b2']) {
    for (const rack of block === 'b1' ? ['r1', 'r2'] : ['r3', 'r4']) {
      const hosts = 1 + Math.floor(rnd() * 3);
      for (let h = 0; h < hosts; h++) {
        nodes.push({ name: `n${++n}`, block, rack, cpu: pick([2, 4, 4, 8]),
          ...(rnd() < 0.1 ? { taint: { key: 'maintenance', effect: 'NoSchedule' } } : {}) });
      }
    }
  }
  const tasOnly = rnd() < 0.3;
  const within = pick(['Never', 'LowerPriority', 'LowerPriority']);
  const objects = [topology(b, 'default'), tasFlavor(b, 'tas', 'default'), ...priorities(b),
    // Quota mostly above what the nodes hold: the nodes decide.
    clusterQueue(b, 'cq', { quotas: [{ flavor: 'tas', cpu: String(pick([24, 64, 64])) }], within }), localQueue(b, 'lq', 'cq')];
  const arrivals: any[] = [];
  const jobs = 3 + Math.floor(rnd() * 4);
  for (let i = 0; i < jobs; i++) {
    const kind = pick(['required', 'required', 'preferred', 'unconstrained', 'slices', tasOnly ? 'none' : 'required']);
    const level = pick([BLOCK, RACK, RACK, HOSTNAME_LABEL]);
    const workers = 1 + Math.floor(rnd() * 5);
    const sliceSize = [2, 3].find((k) => workers % k === 0);
    const ann = kind === 'required' ? required(level) : kind === 'preferred' ? preferred(level) : kind === 'unconstrained' ? UNCONSTRAINED
      : kind === 'slices' && sliceSize ? { ...required(BLOCK), 'kueue.x-k8s.io/podset-slice-required-topology': pick([RACK, HOSTNAME_LABEL]),
        'kueue.x-k8s.io/podset-slice-size': String(sliceSize) } : kind === 'slices' ? required(RACK) : undefined;
    // A third of the jobs asking for a level group their head with their workers (the same request on both templates).
    const grouped = (kind === 'required' || kind === 'preferred') && ann && groupRnd() < 0.35;
    arrivals.push(tasCluster(`j${i}`, { lq: 'lq', headCpu: '1', workers, workerCpu: pick(['1', '2', '2', '4']),
      ann: grouped ? { ...ann, [GROUP]: `g${i}` } : ann,
      headAnn: kind === 'slices' ? required(BLOCK) : undefined, priority: pick(['low', 'low', 'high']) }));
  }
  return { name: `tas-random-${seed}`, objects, arrivals, nodes: nodes.map((x) => node(x)) };
}

/**
 * The scenario with its names prefixed (isolate) and its nodes its own: node names and hostnames prefixed, the scenario
 * label set to the prefix, and each TAS flavor selecting that label and naming the prefixed Topology.
 */
export function isolateTas(s: TasScenario, prefix: string): TasScenario {
  const iso = isolate(s, prefix);
  const objects = iso.objects.map((o) => {
    if (o.kind === 'ResourceFlavor' && o.spec.topologyName) {
      return { ...o, spec: { ...o.spec, topologyName: `${prefix}-${o.spec.topologyName}`,
        nodeLabels: { ...o.spec.nodeLabels, [SCENARIO_LABEL]: prefix } } };
    }
    return o;
  });
  const rename = (name: string) => `${prefix}-${name}`;
  const nodes = s.nodes.map((o) => {
    const c = JSON.parse(JSON.stringify(o));
    c.metadata.name = rename(c.metadata.name);
    c.metadata.labels[HOSTNAME_LABEL] = c.metadata.name;
    c.metadata.labels[SCENARIO_LABEL] = prefix;
    return c;
  });
  const pods = s.pods?.map((o) => {
    const c = JSON.parse(JSON.stringify(o));
    c.metadata.namespace = `${prefix}-${NS}`;
    c.spec.nodeName = rename(c.spec.nodeName);
    return c;
  });
  const arrivals = iso.arrivals.map((a) => {
    // A node selector on a hostname names the renamed node.
    for (const t of [a.spec.headGroupSpec.template, ...a.spec.workerGroupSpecs.map((g: any) => g.template)]) {
      const sel = t.spec.nodeSelector;
      if (sel?.[HOSTNAME_LABEL]) sel[HOSTNAME_LABEL] = rename(sel[HOSTNAME_LABEL]);
    }
    return a;
  });
  return { name: s.name, objects, arrivals, nodes, ...(pods ? { pods } : {}) };
}

/**
 * Preemption that must free a host, in a cohort (for fair sharing as well as classically): hosts n1 and n2 of 4 CPUs, n2
 * with a 2-CPU pod bound to it; b1 (3 CPUs) on n1 and b2 (2 CPUs) on n2, cq-b borrowing from cq-a; a1 (3 CPUs on one host)
 * needs quota back. Removing b2, the latest admitted, frees the quota but no host of 3 CPUs; Kueue's workloadFits places
 * the pods too, so the victim is b1 alone.
 */
export function cohortTasScenarios(kueueVersion: string): TasScenario[] {
  const b = builder(kueueVersion);
  const host = required(HOSTNAME_LABEL);
  const objects = [topology(b, 'default'), tasFlavor(b, 'tas', 'default'),
    clusterQueue(b, 'cq-a', { cohort: 'research', quotas: [{ flavor: 'tas', cpu: '4' }], reclaim: 'Any' }),
    clusterQueue(b, 'cq-b', { cohort: 'research', quotas: [{ flavor: 'tas', cpu: '2' }], reclaim: 'Any' }),
    localQueue(b, 'lq-a', 'cq-a'), localQueue(b, 'lq-b', 'cq-b')];
  const one = (name: string, lq: string, cpu: string) => tasCluster(name, { lq, headCpu: cpu, workers: 0, workerCpu: '1', ann: host });
  return [{
    name: 'tas-cohort-preempt-frees-host', objects, arrivals: [one('b1', 'lq-b', '3'), one('b2', 'lq-b', '2'), one('a1', 'lq-a', '3')],
    nodes: [node({ name: 'n1', block: 'b1', rack: 'r1', cpu: 4 }), node({ name: 'n2', block: 'b1', rack: 'r1', cpu: 4 })],
    pods: [boundPod('daemon', 'n2', '2')],
  }];
}
