/**
 * Kueue's own scheduler tests for topology-aware scheduling, through the whole plan: TestScheduleForTAS,
 * TestScheduleForTASPreemption and TestScheduleForTASCohorts of pkg/scheduler/scheduler_tas_test.go at v0.19.2, case by
 * case. Each upstream case sets up nodes, bound pods, Topologies, flavors and ClusterQueues, queues its pending workloads
 * and runs ONE schedule() cycle; here the same objects go to simulatePlan (kueueVersion v0.19.2) and the expectations are
 * Kueue's: which workloads are admitted in that cycle (wantNewAssignments: each PodSet's flavors, count and topology
 * assignment), which stay pending (wantLeft / wantInadmissibleLeft, with the message where the test asserts it in an
 * event or a condition) and which are preempted (the Preempted conditions and events, with their reason).
 *
 * How an upstream case is written for the plan, which takes Ray objects only:
 * - a Kueue PodSet of N pods is a RayCluster worker group of N replicas named as the PodSet (the plan names a worker
 *   PodSet by its lower-cased groupName, so Kueue's messages read the same), its template carrying the TAS annotations;
 *   the head (one pod, PodSet "head") requests only `example.com/head`, which a plain flavor `ray-head` covers in its own
 *   resource group of every ClusterQueue: the head takes no node capacity and no quota of the TAS resources;
 * - where a ClusterQueue must stay TAS-only (TAS implied for a PodSet that asks nothing), or the case has no TAS at all,
 *   the one-pod first PodSet is the head itself (named "head" then) and no `ray-head` group is added;
 * - priorities are WorkloadPriorityClasses `p<value>` named by the kueue.x-k8s.io/priority-class label; creation order
 *   is arrival order; pods bound to nodes are `boundPods`;
 * - a workload the case has admitted already (ReserveQuotaAt with a pre-set topology assignment) is an earlier arrival
 *   that the plan admits, and the test first checks that the plan put it where the case says it is. Where the plan would
 *   not put it there (a node that is gone, a PodSet requiring one host spread over two, five 1-CPU pods on a 3-CPU node),
 *   or where it must be in before several pending workloads are queued together, it is given as Kueue's cache holds it
 *   (PlanInput.admitted: quota on its flavors, pods on the nodes it names), in the describe blocks saying so;
 * - the pending workloads of the cycle arrive last, queued together (`queuedAtStart`) when there are several; the plan
 *   then goes on to settle, so the case's cycle is read from the plan's trace (the first cycle after the last arrival):
 *   `admitted`, `preempting`, `pending` (parked as inadmissible: wantInadmissibleLeft) or `skipped` (back in the queue);
 *   what Kueue leaves in the queue (wantLeft) is what the plan's next cycle looks at again. A preemptor issues its
 *   preemptions in that cycle (Kueue: wantLeft, its victims Preempted); the plan then releases the victims and admits it
 *   in a later cycle, so its outcome is admitted-by-preempting and its `preempted` are Kueue's victims. Its
 *   WaitingForPreemptedWorkloads message ("... Pending the preemption of N workload(s)") is not in the plan's result,
 *   nor are the QuotaReserved and Admitted events' messages (wait times, flavors considered).
 *
 * Counts: TestScheduleForTAS 67 cases, 35 translated, 32 skipped; TestScheduleForTASPreemption 11, 10 translated, 1
 * skipped; TestScheduleForTASCohorts 26, 17 translated, 9 skipped. The "two flavors in cohort; re-evaluation is sticky and
 * does not switch to second flavor; ...enabled" case also checks the cycle after upstream's one: b1, which waited on
 * tas-flavor-1, goes back to the queue at once because tas-flavor-2 is untried (LastAssignment.PendingFlavors) and is
 * admitted there.
 * Skipped, by reason:
 * - ProvisioningRequest / admission checks (10): "workload in CQ with ProvisioningRequest; second pass; baseline
 *   scenario", "...; second pass; multi-resource workload fully consumes quota", "workload in CQ with two TAS flavors,
 *   only the second is using Provisioning Admission Check", "large workload in CQ with ProvisioningRequest; second pass",
 *   "workload in CQ with ProvisioningRequest when two TAS flavors; second pass", "workload in CQ with two TAS flavors -
 *   one with ProvisioningRequest, one regular; second pass", "workload in CQ with ProvisioningRequest gets QuotaReserved
 *   only; implicit defaulting", "workload in CQ with ProvisioningRequest when two TAS flavors; second pass; implicit
 *   defaulting", "workload in CQ with ProvisioningRequest gets QuotaReserved only", "workload with a custom
 *   AdmissionCheck gets TAS assigned" — the plan models no admission checks (QuotaReserved without Admitted).
 * - Second pass / node replacement / unhealthy nodes (19): "second pass replacement must not take a domain claimed by
 *   another workload in the same cycle", the 11 "workload with unhealthyNode annotation; second pass; ..." cases
 *   (baseline scenario; preferred; fit in different rack; preferred; no fit; podspec constraints apply; preferred; no
 *   fit; FailFast; ... (not found error on patch); ... (test error on patch); required rack; fit; required rack for a
 *   single node; fit; required rack; no fit; two podsets), the 6 "workload with unhealthyNode; second pass; slices; ..."
 *   cases (baseline; unhealthy node hosts incomplete slice; ... whole slices; ... whole slice and incomplete slice; ...
 *   the whole workload; finds correct slice domain) and "workload with unhealthyNode annotation; second pass;
 *   preferred; no fit when using slices; FailFast" — node replacement is not modelled.
 * - Partial admission (2): "TAS workload gets scheduled as trimmed by partial admission", "reclaim within cohort;
 *   preempting with partial admission" (Cohorts) — PodSet minCount, which Ray objects do not set and the plan does not
 *   model.
 * - Resource transformations (2): "workload with Resource Transformation (Retain CPU → cpu_credits)", "... not enough
 *   credits)" — the plan reads no resources.transformations from the Configuration.
 * - An Alpha gate off by default in v0.19 (1): "preempting workload recomputes both overlapping preemption targets and
 *   TAS topology assignment; both features enabled" (Preemption; RecomputeAssignmentUponPreemptionTargetsOverlap).
 * - The TASRecomputeAssignmentWithinSchedulingCycle-disabled variants (8, Cohorts; the enabled one, v0.19's default,
 *   is translated): "reclaim within cohort; capacity reserved by preempting workload does not allow to schedule last
 *   workload", "workload with preemption target recomputes stale TAS assignment in cohort", "two flavors in cohort;
 *   re-evaluation is sticky and does not switch to second flavor", "two workloads in cohort nominated to the same node;
 *   enough capacity to admit both", "two small workloads considered; there is only space for one of them on the initial
 *   node", "two workloads considered; both overlapping in the initial flavor assignment", "preempting workload with
 *   targets reserves capacity so that lower priority workload cannot use it", "preempting workload without targets
 *   reserves capacity so that lower priority workload cannot use it" (each "...; ...disabled").
 * Gates the translated cases set: TopologyAwareScheduling off ("TAS disabled, ..."; the plan's Kueue config sets it), and,
 * with the same outcome at v0.19's default, VectorizedResourceRequests off (a representation of the TAS snapshot's
 * requests, pkg/resources/factory.go) and SchedulerLibraryIntegration on (off, nodesCache.sync drops an unschedulable
 * node too).
 */
import { PlanAdmission, simulatePlan } from '../../../src/policy/plan';
import { KueueConfig, kueueConfigOf } from '../../../src/policy/plan/kueue-config';
import type { PlanCycle, PlanResult, PlanWorkload } from '../../../src/policy/plan/schema';
import { kueueCapabilities } from '../../../src/policy/versions';

const V = 'v0.19.2';
const API = 'kueue.x-k8s.io/v1beta2';
const NS = 'default';
const HOST = 'kubernetes.io/hostname';
const BLOCK = 'cloud.com/topology-block';
const RACK = 'cloud.provider.com/rack';
const HEAD = 'example.com/head';
const HEAD_FLAVOR = 'ray-head';

type Res = Record<string, string>;
type Labels = Record<string, string>;

// ---- Kubernetes and Kueue objects, as the upstream wrappers build them ----

/** testingnode.MakeNode(name).Label("tas-node", "true").Label(...).StatusAllocatable(...).Ready(). */
function node(name: string, labels: Labels, allocatable: Res, spec: { taints?: unknown[]; unschedulable?: boolean } = {}): unknown {
  return {
    apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'tas-node': 'true', ...labels } },
    spec: { ...(spec.taints ? { taints: spec.taints } : {}), ...(spec.unschedulable ? { unschedulable: true } : {}) },
    status: { allocatable, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
const host = (h: string, more: Labels = {}): Labels => ({ [HOST]: h, ...more });

/** testingpod.MakePod(name, "test-ns").NodeName(node).StatusPhase(phase).Request(...). */
function boundPod(name: string, nodeName: string, phase: string, requests: Res): unknown {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'test-ns' },
    spec: { nodeName, containers: [{ name: 'c', image: 'pause', resources: { requests } }] }, status: { phase } };
}

function topology(name: string, levels: readonly string[]): unknown {
  return { apiVersion: API, kind: 'Topology', metadata: { name }, spec: { levels: levels.map((nodeLabel) => ({ nodeLabel })) } };
}

/** MakeResourceFlavor(name).NodeLabel(...).TopologyName(...), with tolerations or node taints. */
function flavor(name: string, topologyName?: string, spec: { nodeLabels?: Labels; tolerations?: unknown[]; nodeTaints?: unknown[] } = {})
  : unknown {
  return {
    apiVersion: API, kind: 'ResourceFlavor', metadata: { name },
    spec: { ...(topologyName ? { nodeLabels: spec.nodeLabels ?? { 'tas-node': 'true' }, topologyName } : {}),
      ...(spec.tolerations ? { tolerations: spec.tolerations } : {}), ...(spec.nodeTaints ? { nodeTaints: spec.nodeTaints } : {}) },
  };
}
const headFlavor = flavor(HEAD_FLAVOR);

/** A resource's quota: the nominal quota, or [nominal, borrowingLimit]. */
type Quota = string | readonly [string, string];
/** A flavor's quotas in a resource group: resource → quota, in order. */
type FlavorQuotas = readonly [string, Record<string, Quota>];

interface CQOpts {
  readonly cohort?: string;
  readonly within?: 'Never' | 'LowerPriority';
  readonly reclaim?: 'Never' | 'LowerPriority' | 'Any';
  readonly borrowWithinCohort?: 'LowerPriority';
  /** The ray-head resource group (for heads that stand for no Kueue PodSet). @default true */
  readonly head?: boolean;
}

/** MakeClusterQueue(name).ResourceGroup(...)...: BestEffortFIFO, whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor. */
function clusterQueue(name: string, groups: ReadonlyArray<readonly FlavorQuotas[]>, o: CQOpts = {}): unknown {
  const group = (fqs: readonly FlavorQuotas[]) => ({
    coveredResources: [...new Set(fqs.flatMap(([, r]) => Object.keys(r)))],
    flavors: fqs.map(([f, r]) => ({
      name: f,
      resources: Object.entries(r).map(([res, q]) => (typeof q === 'string' ? { name: res, nominalQuota: q }
        : { name: res, nominalQuota: q[0], borrowingLimit: q[1] })),
    })),
  });
  const all = o.head === false ? groups : [...groups, [[HEAD_FLAVOR, { [HEAD]: '1000' }] as FlavorQuotas]];
  return {
    apiVersion: API, kind: 'ClusterQueue', metadata: { name },
    spec: {
      namespaceSelector: {}, queueingStrategy: 'BestEffortFIFO', ...(o.cohort ? { cohortName: o.cohort } : {}),
      flavorFungibility: { whenCanBorrow: 'MayStopSearch', whenCanPreempt: 'TryNextFlavor' },
      preemption: { withinClusterQueue: o.within ?? 'Never', reclaimWithinCohort: o.reclaim ?? 'Never',
        ...(o.borrowWithinCohort ? { borrowWithinCohort: { policy: o.borrowWithinCohort } } : {}) },
      resourceGroups: all.map(group),
    },
  };
}

function localQueue(name: string, cq: string): unknown {
  return { apiVersion: API, kind: 'LocalQueue', metadata: { name, namespace: NS }, spec: { clusterQueue: cq } };
}

const priorityClasses = [-1000, 0, 1, 2, 3, 5, 10]
  .map((v) => ({ apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: `p${v}` }, value: v }));

/** A Kueue PodSet: MakePodSet(name, count).Request(...) with its TAS request, tolerations and required node affinity. */
interface PodSet {
  readonly name: string;
  readonly count: number;
  readonly requests: Res;
  readonly required?: string;
  readonly preferred?: string;
  readonly unconstrained?: boolean;
  /** SliceRequiredTopologyConstraints: the layers, outermost first. */
  readonly sliceLayers?: ReadonlyArray<{ readonly topology: string; readonly size: number }>;
  readonly tolerations?: unknown[];
  /** RequiredDuringSchedulingIgnoredDuringExecution's node selector terms. */
  readonly affinity?: unknown[];
}

const ps = (name: string, count: number, requests: Res, more: Omit<PodSet, 'name' | 'count' | 'requests'> = {}): PodSet =>
  ({ name, count, requests, ...more });

function template(p: PodSet, container: string): unknown {
  const ann: Record<string, string> = {};
  if (p.required) ann['kueue.x-k8s.io/podset-required-topology'] = p.required;
  if (p.preferred) ann['kueue.x-k8s.io/podset-preferred-topology'] = p.preferred;
  if (p.unconstrained) ann['kueue.x-k8s.io/podset-unconstrained-topology'] = 'true';
  if (p.sliceLayers) ann['kueue.x-k8s.io/podset-slice-required-topology-constraints'] = JSON.stringify(p.sliceLayers);
  return {
    ...(Object.keys(ann).length ? { metadata: { annotations: ann } } : {}),
    spec: {
      containers: [{ name: container, image: 'rayproject/ray:2.46.0', resources: { requests: p.requests } }],
      ...(p.tolerations ? { tolerations: p.tolerations } : {}),
      ...(p.affinity ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: p.affinity } } } } : {}),
    },
  };
}

interface WlOpts {
  readonly priority?: number;
  /** The first (one-pod) PodSet is the head itself, named "head"; no ray-head group is needed. */
  readonly headIsFirst?: boolean;
}

/** A Kueue Workload as a RayCluster (see the header): each PodSet a worker group, or the first one the head. */
function workload(name: string, lq: string, podSets: readonly PodSet[], o: WlOpts = {}): any {
  const [first, ...rest] = podSets;
  const head = o.headIsFirst ? template(first, 'ray-head') : template(ps('head', 1, { [HEAD]: '1' }), 'ray-head');
  const workers = o.headIsFirst ? rest : podSets;
  return {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name, namespace: NS,
      labels: { 'kueue.x-k8s.io/queue-name': lq, ...(o.priority !== undefined ? { 'kueue.x-k8s.io/priority-class': `p${o.priority}` } : {}) } },
    spec: {
      rayVersion: '2.46.0',
      headGroupSpec: { rayStartParams: {}, template: head },
      workerGroupSpecs: workers.map((p) => ({ groupName: p.name, replicas: p.count, minReplicas: 0, maxReplicas: Math.max(p.count, 1),
        rayStartParams: {}, template: template(p, 'ray-worker') })),
    },
  };
}

// ---- running the plan and reading it ----

interface Case {
  readonly objects: readonly unknown[];
  readonly nodes: readonly unknown[];
  readonly pods?: readonly unknown[];
  /** Arrivals in order: those the upstream case has admitted first, then its pending ones. */
  readonly arrivals: readonly unknown[];
  /** How many of the first arrivals are queued together before the first cycle. @default 0 (each settles alone) */
  readonly queuedAtStart?: number;
  readonly kueueConfig?: KueueConfig;
  /** By arrival: the admission an upstream case has pre-set for a workload it has admitted already (PlanInput.admitted). */
  readonly admitted?: ReadonlyArray<PlanAdmission | undefined>;
}

function plan(c: Case): PlanResult {
  return simulatePlan({ kueueObjects: [...priorityClasses, headFlavor, ...c.objects], arrivals: c.arrivals as any, nodes: c.nodes,
    boundPods: c.pods, kueueVersion: V, queuedAtStart: c.queuedAtStart, kueueConfig: c.kueueConfig, admitted: c.admitted });
}

const byName = (p: PlanResult, name: string): PlanWorkload => {
  const w = p.workloads.find((x) => x.name === name);
  if (!w) throw new Error(`no workload ${name}`);
  return w;
};

/** A PodSet's admission as Kueue's test states it: flavor per resource, count, and the topology assignment. */
interface Want {
  readonly count: number;
  readonly flavors: Record<string, string>;
  readonly levels?: readonly string[];
  /** "value:count,..." (the values of a domain joined by "/"). */
  readonly domains?: string;
}

/** The workload's admission by PodSet, without the head that stands for no Kueue PodSet. */
function admission(p: PlanResult, name: string): Record<string, Want> {
  const out: Record<string, Want> = {};
  for (const a of byName(p, name).admission ?? []) {
    if (a.podSet === 'head' && Object.keys(a.flavors).every((r) => r === HEAD)) continue;
    out[a.podSet] = {
      count: a.count, flavors: a.flavors,
      ...(a.topology ? { levels: a.topology.levels, domains: a.topology.domains.map((d) => `${d.values.join('/')}:${d.count}`).join(',') } : {}),
    };
  }
  return out;
}

const hostAt = (count: number, flavors: Record<string, string>, domains: string, levels: readonly string[] = [HOST]): Want =>
  ({ count, flavors, levels, domains });

/**
 * An upstream case's pre-set admission of PodSet `one` (MakeAdmission(...).PodSets(MakePodSetAssignment("one")...)): its
 * flavor per resource and its domains on the hostname level ("x1:3,y1:2"); the head that stands for no Kueue PodSet on
 * ray-head.
 */
function given(flavors: Record<string, string>, domains: string): PlanAdmission {
  return { podSets: [{ name: 'head', flavors: { [HEAD]: HEAD_FLAVOR } }, { name: 'one', flavors,
    topology: { levels: [HOST], domains: domains.split(',').map((d) => ({ values: [d.split(':')[0]], count: Number(d.split(':')[1]) })) } }] };
}

/** The first cycle after the last arrival: the upstream case's one schedule(). */
function theCycle(p: PlanResult, arrivals: number): PlanCycle {
  const c = p.trace.find((x) => x.afterArrival === arrivals - 1 && x.candidates.length > 0);
  if (!c) throw new Error('no cycle after the last arrival');
  return c;
}

/** What that cycle did with each workload it looked at: admitted | preempting | pending | skipped. */
const results = (c: PlanCycle): Record<string, string> =>
  Object.fromEntries(c.candidates.map((x) => [x.workload.split('/')[1], x.result]));

/** What the cycle says of a workload it looked at: the pending message (NoFit, or Preempt without candidates), or why it was skipped. */
const detail = (c: PlanCycle, name: string): string | undefined => c.candidates.find((x) => x.workload.endsWith(`/${name}`))?.detail;

/** The workloads the cycle after `c` looks at: those `c` left in the queue (Kueue's wantLeft), not parked as inadmissible. */
const nextCycle = (p: PlanResult, c: PlanCycle): string[] =>
  (p.trace.find((x) => x.cycle === c.cycle + 1)?.candidates ?? []).map((x) => x.workload.split('/')[1]);

const victims = (p: PlanResult, name: string) => (byName(p, name).preempted ?? []).map((v) => `${v.workload.split('/')[1]} (${v.reason})`);

const gatesOff = (...gates: string[]): KueueConfig => kueueConfigOf({ args: [`--feature-gates=${gates.map((g) => `${g}=false`).join(',')}`],
  where: 'test' }, kueueCapabilities(V));

// ---- TestScheduleForTAS ----

describe('TestScheduleForTAS (v0.19.2), through the plan', () => {
  const singleLevel = topology('tas-single-level', [HOST]);
  const twoLevel = topology('tas-two-level', [RACK, HOST]);
  const threeLevel = topology('tas-three-level', [BLOCK, RACK, HOST]);
  const tasDefault = flavor('tas-default', 'tas-single-level');
  const tasDefaultTwoLevel = flavor('tas-default', 'tas-two-level');
  const tasDefaultThreeLevel = flavor('tas-default', 'tas-three-level');
  const defaultFlavor = flavor('default');
  const defaultSingleNode = [node('x1', host('x1'), { cpu: '1', memory: '1Gi', pods: '10' })];
  const nodesWithZeroCapacityInstance = [
    node('x1', host('x1', { [RACK]: 'r1' }), { cpu: '0', pods: '10' }),
    node('x2', host('x2', { [RACK]: 'r1' }), { cpu: '1', pods: '10' }),
    node('x3', host('x3', { [RACK]: 'r1' }), { cpu: '1', pods: '10' }),
  ];
  /** defaultClusterQueue: tas-default with 50 CPUs and 50Gi. */
  const defaultCQ = (o: CQOpts = {}) => clusterQueue('tas-main', [[['tas-default', { cpu: '50', memory: '50Gi' }]]], o);
  const lq = localQueue('tas-main', 'tas-main');
  const one = (name: string, podSets: readonly PodSet[], o: WlOpts = {}) => workload(name, 'tas-main', podSets, o);

  test('initial scheduling; one-byte memory request fits on a 2Gi node with vectorized requests disabled', () => {
    // VectorizedResourceRequests only switches the TAS snapshot's request representation (pkg/resources/factory.go).
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: [node('x1', host('x1'), { memory: '2Gi', pods: '10' })],
      arrivals: [one('tiny-memory', [ps('one', 1, { memory: '1' }, { required: HOST })])] });
    expect(admission(p, 'tiny-memory')).toEqual({ one: hostAt(1, { memory: 'tas-default' }, 'x1:1') });
  });

  test('initial scheduling; TAS uses podspec memory for placement', () => {
    const nodes = ['x1', 'x2'].map((n) => node(n, host(n), { cpu: '4', memory: '2Gi', pods: '10' }));
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes,
      arrivals: [one('foo', [ps('one', 2, { cpu: '1', memory: '1536Mi' }, { preferred: HOST })])] });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(2, { cpu: 'tas-default', memory: 'tas-default' }, 'x1:1,x2:1') });
  });

  test('workload with a PodSet of size zero', () => {
    // launcher is the head; worker a worker group of 0 replicas.
    const p = plan({ objects: [twoLevel, tasDefaultTwoLevel, defaultCQ({ head: false }), lq],
      nodes: [node('x1', host('x1', { [RACK]: 'r1' }), { cpu: '3', pods: '10' })],
      arrivals: [one('foo', [ps('launcher', 1, { cpu: '1' }, { preferred: HOST }), ps('worker', 0, { cpu: '1' }, { preferred: HOST })],
        { headIsFirst: true })] });
    const got = admission(p, 'foo');
    expect(got.head).toEqual(hostAt(1, { cpu: 'tas-default' }, 'x1:1'));
    expect(got.worker).toMatchObject({ count: 0, flavors: { cpu: 'tas-default' } });
    expect(got.worker.domains ?? '').toBe('');
  });

  test('workload which does not specify TAS annotation uses the only TAS flavor', () => {
    // The ClusterQueue is TAS-only (TAS implied): the one PodSet is the head.
    const p = plan({ objects: [singleLevel, tasDefault, defaultFlavor, clusterQueue('tas-main', [[['tas-default', { cpu: '50' }]]], { head: false }),
      lq], nodes: defaultSingleNode, arrivals: [one('foo', [ps('one', 1, { cpu: '1' })], { headIsFirst: true })] });
    expect(admission(p, 'foo')).toEqual({ head: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
  });

  test('workload requiring TAS skips the non-TAS flavor', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultFlavor,
      clusterQueue('tas-main', [[['default', { cpu: '50' }], ['tas-default', { cpu: '50' }]]]), lq], nodes: defaultSingleNode,
    arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { required: HOST })])] });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
  });

  test('workload which does not need TAS skips the TAS flavor', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultFlavor,
      clusterQueue('tas-main', [[['tas-default', { cpu: '50' }], ['default', { cpu: '50' }]]]), lq], nodes: defaultSingleNode,
    arrivals: [one('foo', [ps('one', 1, { cpu: '1' })])] });
    expect(admission(p, 'foo')).toEqual({ one: { count: 1, flavors: { cpu: 'default' } } });
  });

  test('workload with mixed PodSets (requiring TAS and not)', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultFlavor,
      clusterQueue('tas-main', [[['tas-default', { cpu: '50' }], ['default', { cpu: '50' }]]]), lq], nodes: defaultSingleNode,
    arrivals: [one('foo', [ps('launcher', 1, { cpu: '500m' }), ps('worker', 1, { cpu: '500m' }, { required: HOST })])] });
    expect(admission(p, 'foo')).toEqual({ launcher: { count: 1, flavors: { cpu: 'default' } },
      worker: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
  });

  test('workload required TAS gets scheduled', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
      arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { required: HOST })])] });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
  });

  test('workload requests topology level which is not present in topology', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
      arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { required: 'cloud.com/non-existing' })])] });
    const w = byName(p, 'foo');
    // Kueue: inadmissible, NoMatchingFlavor; the plan's outcome for NoMatchingFlavor is never-admissible.
    expect([w.outcome, w.reason]).toEqual(['never-admissible', 'NoMatchingFlavor']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: Flavor "tas-default" does not contain the requested level');
  });

  test('workload requests topology level which is only present in second flavor', () => {
    const custom = 'cloud.com/custom-level';
    const p = plan({
      objects: [singleLevel, topology('tas-custom-topology', [custom]), tasDefault, flavor('tas-custom-flavor', 'tas-custom-topology'),
        clusterQueue('tas-main', [[['tas-default', { cpu: '50' }], ['tas-custom-flavor', { cpu: '50' }]]]), lq],
      nodes: [node('x1', { [custom]: 'x1' }, { cpu: '1', pods: '10' })],
      arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { required: custom })])],
    });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-custom-flavor' }, 'x1:1', [custom]) });
  });

  test('workload does not get scheduled as it does not fit within the node capacity', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
      arrivals: [one('foo', [ps('one', 2, { cpu: '1' }, { required: HOST })])] });
    const w = byName(p, 'foo');
    expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to fit only 1 out of 2 pod(s)');
  });

  test('workload does not get scheduled as the node capacity is already used by another TAS workload', () => {
    const wl = (name: string) => one(name, [ps('one', 1, { cpu: '1' }, { required: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode, arrivals: [wl('bar-admitted'), wl('foo')] });
    expect(admission(p, 'bar-admitted')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
    const w = byName(p, 'foo');
    expect([w.outcome, w.reason]).toEqual(['pending', 'WaitingForQuota']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). '
      + 'Total nodes: 1; excluded: resource "cpu": 1');
  });

  test('workload does not get scheduled as the node capacity is already used by a non-TAS pod', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
      pods: [boundPod('test-pending', 'x1', 'Pending', { cpu: '600m' })],
      arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { required: HOST })])] });
    const w = byName(p, 'foo');
    expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). '
      + 'Total nodes: 1; excluded: resource "cpu": 1');
  });

  test('workload does not get scheduled as node capacity is completely used by non-TAS pod', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: [node('x1', host('x1'), { cpu: '1', memory: '1Gi', pods: '1' })],
      pods: [boundPod('test-pending', 'x1', 'Running', { cpu: '1', memory: '1Gi' })],
      arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { required: HOST })])] });
    const w = byName(p, 'foo');
    expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). '
      + 'Total nodes: 1; excluded: resource "cpu": 1');
  });

  test('workload gets admitted next to already admitted workload, multiple resources used', () => {
    const wl = (name: string) => one(name, [ps('one', 1, { cpu: '500m', memory: '500Mi' }, { required: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode, arrivals: [wl('bar-admitted'), wl('foo')] });
    expect(results(theCycle(p, 2))).toEqual({ foo: 'admitted' });
    const want = { one: hostAt(1, { cpu: 'tas-default', memory: 'tas-default' }, 'x1:1') };
    expect(admission(p, 'bar-admitted')).toEqual(want);
    expect(admission(p, 'foo')).toEqual(want);
  });

  describe('multiple PodSets', () => {
    const nodes = (cpu: string) => ['x1', 'y1'].map((n) => node(n, host(n, { [RACK]: 'r1' }), { cpu, pods: '10' }));
    const cq = (cpu: string) => clusterQueue('tas-main', [[['tas-default', { cpu }]]]);

    test('workload with multiple PodSets requesting the same TAS flavor; multiple levels', () => {
      const p = plan({ objects: [twoLevel, tasDefaultTwoLevel, cq('50'), lq], nodes: nodes('3'),
        arrivals: [one('foo', [ps('launcher', 1, { cpu: '1' }, { preferred: HOST }), ps('worker', 1, { cpu: '7' }, { preferred: HOST })])] });
      const w = byName(p, 'foo');
      expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
      expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set worker: topology "tas-two-level" doesn\'t allow to fit any of 1 pod(s). '
        + 'Total nodes: 2; excluded: resource "cpu": 2');
    });

    test('scheduling workload with multiple PodSets requesting TAS flavor and will succeed', () => {
      const p = plan({ objects: [twoLevel, tasDefaultTwoLevel, cq('16'), lq], nodes: nodes('8'),
        arrivals: [one('foo', [ps('launcher', 1, { cpu: '1' }, { required: HOST }), ps('worker', 15, { cpu: '1' }, { preferred: HOST })])] });
      expect(admission(p, 'foo')).toEqual({ launcher: hostAt(1, { cpu: 'tas-default' }, 'x1:1'),
        worker: hostAt(15, { cpu: 'tas-default' }, 'x1:7,y1:8') });
    });

    test('scheduling workload with multiple PodSets requesting higher level topology', () => {
      const p = plan({ objects: [twoLevel, tasDefaultTwoLevel, cq('16'), lq], nodes: nodes('8'),
        arrivals: [one('foo', [ps('launcher', 1, { cpu: '1' }, { required: RACK }), ps('worker', 15, { cpu: '1' }, { required: RACK })])] });
      expect(admission(p, 'foo')).toEqual({ launcher: hostAt(1, { cpu: 'tas-default' }, 'x1:1'),
        worker: hostAt(15, { cpu: 'tas-default' }, 'x1:7,y1:8') });
    });
  });

  test('scheduling workload on a tainted node when the toleration is on ResourceFlavor', () => {
    const p = plan({
      objects: [singleLevel, flavor('tas-default', 'tas-single-level', { tolerations: [{ key: 'example.com/gpu', operator: 'Exists' }] }),
        clusterQueue('tas-main', [[['tas-default', { cpu: '50' }]]]), lq],
      nodes: [node('x1', host('x1'), { cpu: '1', pods: '10' }, { taints: [{ key: 'example.com/gpu', value: 'present', effect: 'NoSchedule' }] })],
      arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { preferred: HOST })])],
    });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
  });

  test('two ResourceFlavors share nodes: pending workload lands on the fallback flavor when the primary flavor is full', () => {
    const nodes = ['x1', 'x2'].map((n) => node(n, host(n), { cpu: '400m', memory: '400Mi', pods: '10' }));
    const objects = [singleLevel, flavor('tas-flavor-a', 'tas-single-level'),
      flavor('tas-flavor-b', 'tas-single-level', { nodeTaints: [{ key: 'tas-class', value: 'b', effect: 'NoSchedule' }] }),
      clusterQueue('tas-main', [[['tas-flavor-a', { cpu: '400m', memory: '400Mi' }], ['tas-flavor-b', { cpu: '100m', memory: '100Mi' }]]]), lq];
    const primary = (name: string) => one(name, [ps('one', 1, { cpu: '200m', memory: '200Mi' }, { preferred: HOST })]);
    const pending = one('pending-wl', [ps('one', 1, { cpu: '100m', memory: '100Mi' },
      { preferred: HOST, tolerations: [{ key: 'tas-class', operator: 'Equal', value: 'b', effect: 'NoSchedule' }] })]);
    const p = plan({ objects, nodes, arrivals: [primary('primary-admitted-1'), primary('primary-admitted-2'), pending] });
    expect(results(theCycle(p, 3))).toEqual({ 'pending-wl': 'admitted' });
    const a = hostAt(1, { cpu: 'tas-flavor-a', memory: 'tas-flavor-a' }, 'x1:1');
    expect([admission(p, 'primary-admitted-1'), admission(p, 'primary-admitted-2')]).toEqual([{ one: a }, { one: a }]);
    expect(admission(p, 'pending-wl')).toEqual({ one: hostAt(1, { cpu: 'tas-flavor-b', memory: 'tas-flavor-b' }, 'x2:1') });
  });

  test('multi-PodSet workload across sibling flavors must not self-overlap on shared node', () => {
    const nodes = ['x1', 'x2'].map((n) => node(n, host(n), { cpu: '400m', memory: '400Mi', pods: '10' }));
    const taint = (v: string) => ({ key: 'example.com/flavor', value: v, effect: 'NoSchedule' });
    const toleration = (v: string) => ({ key: 'example.com/flavor', operator: 'Equal', value: v, effect: 'NoSchedule' });
    const objects = [singleLevel, flavor('flavor-a', 'tas-single-level', { nodeTaints: [taint('a')] }),
      flavor('flavor-b', 'tas-single-level', { nodeTaints: [taint('b')] }),
      clusterQueue('tas-main', [[['flavor-a', { cpu: '400m', memory: '400Mi' }], ['flavor-b', { cpu: '400m', memory: '400Mi' }]]]), lq];
    const p = plan({ objects, nodes, arrivals: [one('multi-podset-wl', [
      ps('ps-a', 1, { cpu: '300m', memory: '300Mi' }, { preferred: HOST, tolerations: [toleration('a')] }),
      ps('ps-b', 1, { cpu: '300m', memory: '300Mi' }, { preferred: HOST, tolerations: [toleration('b')] })])] });
    expect(admission(p, 'multi-podset-wl')).toEqual({
      'ps-a': hostAt(1, { cpu: 'flavor-a', memory: 'flavor-a' }, 'x1:1'), 'ps-b': hostAt(1, { cpu: 'flavor-b', memory: 'flavor-b' }, 'x2:1') });
  });

  test('workload does not get scheduled as the node capacity (.status.allocatable[\'pods\']) is already used by non-TAS and TAS workloads', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: [node('x1', host('x1'), { cpu: '1000m', pods: '3' })],
      pods: [boundPod('test-running', 'x1', 'Running', { cpu: '300m' })],
      arrivals: [one('bar-admitted', [ps('one', 2, { cpu: '150m' }, { required: HOST })]),
        one('foo', [ps('one', 1, { cpu: '300m' }, { required: HOST })])] });
    expect(admission(p, 'bar-admitted')).toEqual({ one: hostAt(2, { cpu: 'tas-default' }, 'x1:2') });
    const w = byName(p, 'foo');
    expect([w.outcome, w.reason]).toEqual(['pending', 'WaitingForQuota']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). '
      + 'Total nodes: 1; excluded: resource "pods": 1');
  });

  test('workload with zero value request gets scheduled', () => {
    // No TAS annotation in a TAS-only ClusterQueue (TAS implied): the one PodSet is the head.
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ({ head: false }), lq], nodes: defaultSingleNode,
      arrivals: [one('foo', [ps('one', 1, { cpu: '0', memory: '10Mi' })], { headIsFirst: true })] });
    expect(admission(p, 'foo')).toEqual({ head: hostAt(1, { cpu: 'tas-default', memory: 'tas-default' }, 'x1:1') });
  });

  describe('required node affinity', () => {
    const term = (key: string, value: string) => [{ matchExpressions: [{ key, operator: 'In', values: [value] }] }];

    test('does not admit workload when node does not match required affinity', () => {
      const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
        arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { preferred: HOST, affinity: term('unused-key', 'value') })])] });
      const w = byName(p, 'foo');
      expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
    });

    test('admits workload when node matches required affinity', () => {
      const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq],
        nodes: [node('x1', host('x1', { 'expected-label': 'expected-value' }), { cpu: '1', memory: '1Gi', pods: '10' })],
        arrivals: [one('foo', [ps('one', 1, { cpu: '1' }, { preferred: HOST, affinity: term('expected-label', 'expected-value') })])] });
      expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
    });
  });

  test.each([
    ['unconstrained', { unconstrained: true }],
    ['preferred', { preferred: RACK }],
    ['required', { required: RACK }],
  ])('admits workload when nodes are partially empty; %s', (_, request) => {
    const p = plan({ objects: [twoLevel, tasDefaultTwoLevel, defaultCQ(), lq], nodes: nodesWithZeroCapacityInstance,
      arrivals: [one('foo', [ps('one', 2, { cpu: '1' }, request)])] });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(2, { cpu: 'tas-default' }, 'x2:1,x3:1') });
  });

  test('admits workload with zero-quantity request for resource not in ClusterQueue with TAS', () => {
    const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
      arrivals: [one('foo', [ps('one', 1, { 'cpu': '1', 'example.com/gpu': '0' }, { preferred: HOST })])] });
    expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
  });

  describe('multi-layer topology (TASMultiLayerTopology, on by default in v0.19)', () => {
    test('multi-layer topology: block required with rack and host slices; workload fits', () => {
      const nodes = [['b1-r1-x1', 'r1', 'x1', '1'], ['b1-r1-x2', 'r1', 'x2', '4'], ['b1-r2-x3', 'r2', 'x3', '3'], ['b1-r2-x4', 'r2', 'x4', '4']]
        .map(([name, rack, h, cpu]) => node(name, host(h, { [BLOCK]: 'b1', [RACK]: rack }), { cpu, pods: '10' }));
      const p = plan({ objects: [threeLevel, tasDefaultThreeLevel, defaultCQ(), lq], nodes,
        arrivals: [one('foo', [ps('one', 8, { cpu: '1' }, { required: BLOCK,
          sliceLayers: [{ topology: RACK, size: 4 }, { topology: HOST, size: 2 }] })])] });
      expect(admission(p, 'foo')).toEqual({ one: hostAt(8, { cpu: 'tas-default' }, 'x2:4,x3:2,x4:2') });
    });

    test('multi-layer topology: host slice rounding makes rack slice impossible; NoFit', () => {
      const nodes = [['b1-r1-x1', 'x1'], ['b1-r1-x2', 'x2']].map(([name, h]) => node(name, host(h, { [BLOCK]: 'b1', [RACK]: 'r1' }),
        { cpu: '3', pods: '10' }));
      const p = plan({ objects: [threeLevel, tasDefaultThreeLevel, defaultCQ(), lq], nodes,
        arrivals: [one('foo', [ps('one', 6, { cpu: '1' }, { required: BLOCK,
          sliceLayers: [{ topology: RACK, size: 6 }, { topology: HOST, size: 2 }] })])] });
      const w = byName(p, 'foo');
      expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
      expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set one: topology "tas-three-level" doesn\'t allow to fit; 0/1 slice(s) fit '
        + 'on level cloud.provider.com/rack; 2/3 slice(s) fit on level kubernetes.io/hostname');
    });
  });

  // SchedulerLibraryIntegration is Alpha and off by default in v0.19: with it off, nodesCache.sync (pkg/cache/scheduler/
  // tas_nodes_cache.go) drops an unschedulable node, so the outcome is the same.
  describe('SchedulerLibraryIntegration enabled', () => {
    test('SchedulerLibraryIntegration enabled: generic TAS workload admitted on healthy node', () => {
      const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq], nodes: defaultSingleNode,
        arrivals: [one('wl', [ps('main', 1, { cpu: '1' }, { required: HOST })])] });
      expect(admission(p, 'wl')).toEqual({ main: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
    });

    test('SchedulerLibraryIntegration enabled: non-hostname lowest-level TAS excludes unschedulable node', () => {
      const p = plan({
        objects: [topology('tas-rack-only', [RACK]), flavor('tas-rack-flavor', 'tas-rack-only'),
          clusterQueue('tas-main', [[['tas-rack-flavor', { cpu: '50' }]]]), lq],
        nodes: [node('x1', { [RACK]: 'r1' }, { cpu: '1', pods: '10' }),
          node('x2', { [RACK]: 'r2' }, { cpu: '1', pods: '10' }, { unschedulable: true })],
        arrivals: [one('wl-rack', [ps('main', 1, { cpu: '1' }, { required: RACK })])],
      });
      expect(admission(p, 'wl-rack')).toEqual({ main: hostAt(1, { cpu: 'tas-rack-flavor' }, 'r1:1', [RACK]) });
    });

    test('SchedulerLibraryIntegration enabled: hostname lowest-level TAS filters unschedulable node via WAS', () => {
      const p = plan({ objects: [singleLevel, tasDefault, defaultCQ(), lq],
        nodes: [node('x1', host('x1'), { cpu: '1', pods: '10' }, { unschedulable: true }), node('x2', host('x2'), { cpu: '1', pods: '10' })],
        arrivals: [one('wl-hostname', [ps('main', 1, { cpu: '1' }, { required: HOST })])] });
      expect(admission(p, 'wl-hostname')).toEqual({ main: hostAt(1, { cpu: 'tas-default' }, 'x2:1') });
    });
  });

  describe('an admitted workload as Kueue holds it (PlanInput.admitted)', () => {
    test('scheduling workload when the node for another admitted workload is deleted', () => {
      const objects = [singleLevel, tasDefault, clusterQueue('tas-main', [[['tas-default', { cpu: '50' }]]]), lq];
      const arrivals = [one('bar-admitted', [ps('one', 1, { cpu: '1' }, { required: HOST })]),
        one('foo', [ps('one', 1, { cpu: '1' }, { preferred: HOST })])];
      // bar-admitted is on x1, which is gone: it holds its quota and nothing on the nodes.
      const p = plan({ objects, nodes: [node('y1', host('y1'), { cpu: '1', pods: '10' })], arrivals, queuedAtStart: 2,
        admitted: [given({ cpu: 'tas-default' }, 'x1:1')] });
      expect(results(theCycle(p, 2))).toEqual({ foo: 'admitted' });
      expect(admission(p, 'foo')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'y1:1') });
    });
  });
});

// ---- TestScheduleForTASPreemption ----

describe('TestScheduleForTASPreemption (v0.19.2), through the plan', () => {
  const singleLevel = topology('tas-single-level', [HOST]);
  const tasDefault = flavor('tas-default', 'tas-single-level');
  const x1 = (alloc: Res = {}) => node('x1', host('x1'), { cpu: '5', memory: '5Gi', pods: '10', ...alloc });
  const defaultTwoNodes = [x1(), node('y1', host('y1'), { cpu: '5', memory: '5Gi', pods: '10' })];
  const withPreemption = clusterQueue('tas-main', [[['tas-default', { cpu: '50', memory: '50Gi' }]]], { within: 'LowerPriority' });
  const lq = localQueue('tas-main', 'tas-main');
  const one = (name: string, priority: number, podSets: readonly PodSet[], o: WlOpts = {}) => workload(name, 'tas-main', podSets, { priority, ...o });
  const requiredHost = (count: number, requests: Res) => [ps('one', count, requests, { required: HOST })];
  const preferredHost = (count: number, requests: Res) => [ps('one', count, requests, { preferred: HOST })];

  /**
   * The upstream case with its admitted workloads first, then its pending one: `setup` plans the admitted ones alone (where
   * the plan put them, which the test compares with the upstream case's assignment), `p` the whole case.
   */
  const run = (c: Omit<Case, 'arrivals'>, admitted: readonly unknown[], pending: unknown) =>
    ({ setup: plan({ ...c, arrivals: admitted }), p: plan({ ...c, arrivals: [...admitted, pending] }), arrivals: admitted.length + 1 });

  /** The preemptor's cycle (Kueue's wantLeft and Preempted events), then its admission once the victims are gone. */
  const expectPreempts = (p: PlanResult, arrivals: number, preemptor: string, want: string[]) => {
    const c = theCycle(p, arrivals);
    expect(results(c)).toEqual({ [preemptor]: 'preempting' });
    expect(c.candidates[0].mode).toBe('Preempt');
    expect(byName(p, preemptor).outcome).toBe('admitted-by-preempting');
    expect(victims(p, preemptor)).toEqual(want);
  };

  test('preemption; TAS uses podspec memory for fit', () => {
    const { setup, p, arrivals } = run({ objects: [singleLevel, tasDefault, withPreemption, lq], nodes: [x1()] },
      [one('low-priority-admitted', 1, requiredHost(1, { cpu: '1', memory: '2Gi' }))], one('foo', 3, preferredHost(1, { cpu: '1', memory: '4Gi' })));
    expect(admission(setup, 'low-priority-admitted').one).toEqual(hostAt(1, { cpu: 'tas-default', memory: 'tas-default' }, 'x1:1'));
    expectPreempts(p, arrivals, 'foo', ['low-priority-admitted (InClusterQueue)']);
  });

  test('only low priority workload is preempted', () => {
    const { setup, p, arrivals } = run({ objects: [singleLevel, tasDefault, withPreemption, lq], nodes: [x1()] },
      [one('low-priority-admitted', 1, requiredHost(1, { cpu: '5' }))], one('foo', 3, preferredHost(1, { cpu: '2' })));
    expect(admission(setup, 'low-priority-admitted').one).toEqual(hostAt(1, { cpu: 'tas-default' }, 'x1:1'));
    expectPreempts(p, arrivals, 'foo', ['low-priority-admitted (InClusterQueue)']);
  });

  test('With pods count usage pressure on nodes: only low priority workload is preempted', () => {
    const { setup, p, arrivals } = run({ objects: [singleLevel, tasDefault, withPreemption, lq], nodes: [x1({ pods: '1' })] },
      [one('low-priority-admitted', 1, requiredHost(1, { cpu: '5' }))], one('high-priority-waiting', 3, preferredHost(1, { cpu: '2' })));
    expect(admission(setup, 'low-priority-admitted').one).toEqual(hostAt(1, { cpu: 'tas-default' }, 'x1:1'));
    expectPreempts(p, arrivals, 'high-priority-waiting', ['low-priority-admitted (InClusterQueue)']);
  });

  test('low priority workload is preempted, mid-priority workload survives', () => {
    const { setup, p, arrivals } = run({ objects: [singleLevel, tasDefault, withPreemption, lq], nodes: [x1()] },
      [one('mid-priority-admitted', 2, requiredHost(1, { cpu: '2' })), one('low-priority-admitted', 1, requiredHost(1, { cpu: '2' }))],
      one('foo', 3, preferredHost(1, { cpu: '2' })));
    for (const name of ['mid-priority-admitted', 'low-priority-admitted']) {
      expect(admission(setup, name).one).toEqual(hostAt(1, { cpu: 'tas-default' }, 'x1:1'));
    }
    expectPreempts(p, arrivals, 'foo', ['low-priority-admitted (InClusterQueue)']);
    expect(byName(p, 'mid-priority-admitted').outcome).toBe('admitted');
  });

  test('low priority workload is preempted even though there is enough capacity, but fragmented', () => {
    const { setup, p, arrivals } = run({ objects: [singleLevel, tasDefault, withPreemption, lq], nodes: defaultTwoNodes },
      [one('mid-priority-admitted', 2, requiredHost(1, { cpu: '4' })), one('low-priority-admitted', 1, requiredHost(1, { cpu: '4' }))],
      one('foo', 3, requiredHost(2, { cpu: '1' })));
    expect(admission(setup, 'mid-priority-admitted').one).toEqual(hostAt(1, { cpu: 'tas-default' }, 'x1:1'));
    expect(admission(setup, 'low-priority-admitted').one).toEqual(hostAt(1, { cpu: 'tas-default' }, 'y1:1'));
    expectPreempts(p, arrivals, 'foo', ['low-priority-admitted (InClusterQueue)']);
  });

  test('workload with equal priority awaits for other workloads to complete', () => {
    // The admitted workload is queued with the two pending ones and, of equal priority and created first, is the head of
    // the first cycle, which admits it; the second cycle is the upstream case's: its head is mid-priority-waiting.
    const arrivals = [one('mid-priority-admitted', 2, requiredHost(1, { cpu: '4' })),
      one('low-priority-which-would-fit', 1, requiredHost(1, { cpu: '1' })),
      one('mid-priority-waiting', 2, requiredHost(2, { cpu: '1' }))];
    const p = plan({ objects: [singleLevel, tasDefault, withPreemption, lq], nodes: [x1()], arrivals, queuedAtStart: 3 });
    const [first, second] = p.trace.filter((c) => c.candidates.length);
    expect(results(first)).toEqual({ 'mid-priority-admitted': 'admitted' });
    expect(admission(p, 'mid-priority-admitted').one).toEqual(hostAt(1, { cpu: 'tas-default' }, 'x1:1'));
    // Kueue: mid-priority-waiting inadmissible (WaitingForQuota: it may preempt no one), low-priority-which-would-fit left in the queue.
    expect(results(second)).toEqual({ 'mid-priority-waiting': 'pending' });
    expect(second.candidates[0].detail).toBe('needs preemption but no workload may be preempted: couldn\'t assign flavors to pod set one: '
      + 'topology "tas-single-level" allows to fit only 1 out of 2 pod(s)');
    expect(nextCycle(p, second)).toEqual(['low-priority-which-would-fit']);
    expect(byName(p, 'mid-priority-waiting').reason).toBe('WaitingForQuota');
  });

  test('TAS disabled, preemption succeeds even with ResourceFlavor topologyName', () => {
    const cq = clusterQueue('tas-main', [[['tas-default', { cpu: '3', memory: '3Gi' }]]], { within: 'LowerPriority', head: false });
    const main = [ps('main', 1, { cpu: '3' })];
    const kueueConfig = gatesOff('TopologyAwareScheduling');
    const { setup, p, arrivals } = run({ objects: [singleLevel, tasDefault, cq, lq], nodes: [x1()], kueueConfig },
      [one('low-priority', 1, main, { headIsFirst: true })], one('high-priority', 2, main, { headIsFirst: true }));
    expect(admission(setup, 'low-priority')).toEqual({ head: { count: 1, flavors: { cpu: 'tas-default' } } });
    expectPreempts(p, arrivals, 'high-priority', ['low-priority (InClusterQueue)']);
  });

  test('sibling-flavor usage on the shared node forces same-flavor preemption', () => {
    const taint = (v: string) => ({ key: 'example.com/flavor', value: v, effect: 'NoSchedule' });
    const toleration = (v: string) => [{ key: 'example.com/flavor', operator: 'Equal', value: v, effect: 'NoSchedule' }];
    const objects = [singleLevel, flavor('flavor-a', 'tas-single-level', { nodeTaints: [taint('a')] }),
      flavor('flavor-b', 'tas-single-level', { nodeTaints: [taint('b')] }),
      clusterQueue('tas-main', [[['flavor-a', { cpu: '5', memory: '5Gi' }], ['flavor-b', { cpu: '5', memory: '5Gi' }]]], { within: 'LowerPriority' }),
      lq];
    const { setup, p, arrivals } = run({ objects, nodes: [x1()] }, [
      one('w1-low-prio-a', 1, [ps('one', 1, { cpu: '1', memory: '1Gi' }, { preferred: HOST, tolerations: toleration('a') })]),
      one('w2-sibling-b', 1, [ps('one', 1, { cpu: '3', memory: '3Gi' }, { preferred: HOST, tolerations: toleration('b') })]),
    ], one('w3-pending', 5, [ps('one', 1, { cpu: '2', memory: '2Gi' }, { preferred: HOST, tolerations: toleration('a') })]));
    expect(admission(setup, 'w1-low-prio-a').one).toEqual(hostAt(1, { cpu: 'flavor-a', memory: 'flavor-a' }, 'x1:1'));
    expect(admission(setup, 'w2-sibling-b').one).toEqual(hostAt(1, { cpu: 'flavor-b', memory: 'flavor-b' }, 'x1:1'));
    expectPreempts(p, arrivals, 'w3-pending', ['w1-low-prio-a (InClusterQueue)']);
    expect(byName(p, 'w2-sibling-b').outcome).toBe('admitted');
  });

  describe('admitted workloads as Kueue holds them (PlanInput.admitted)', () => {
    test('workload preempted due to quota is using deleted Node', () => {
      const cq = clusterQueue('tas-main', [[['tas-default', { cpu: '10', memory: '10Gi' }]]], { within: 'LowerPriority' });
      const arrivals = [one('low-priority-admitted', 1, requiredHost(1, { cpu: '5' })), one('foo', 3, preferredHost(10, { cpu: '1' }))];
      // The victim is on z1, which is gone: it holds 5 CPUs of quota and nothing on the nodes.
      const p = plan({ objects: [singleLevel, tasDefault, cq, lq], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2,
        admitted: [given({ cpu: 'tas-default' }, 'z1:1')] });
      expectPreempts(p, 2, 'foo', ['low-priority-admitted (InClusterQueue)']);
    });

    test('preempt in multiple flavors out of which one requires update Fit -> Preempt due to fragmentation', () => {
      const cq = clusterQueue('tas-main', [[['tas-default', { cpu: '10', memory: '10Gi' }]]], { within: 'LowerPriority' });
      // Both admitted PodSets require one host but are spread over two (the upstream case's pre-set assignments).
      const arrivals = [one('low-cpu', -1000, requiredHost(2, { cpu: '3' })), one('low-mem', -1000, requiredHost(2, { cpu: '10m', memory: '5Gi' })),
        one('high-priority', 0, requiredHost(1, { cpu: '3', memory: '5Gi' }))];
      const p = plan({ objects: [singleLevel, tasDefault, cq, lq], nodes: defaultTwoNodes, arrivals, queuedAtStart: 3,
        admitted: [given({ cpu: 'tas-default' }, 'x1:1,y1:1'), given({ cpu: 'tas-default', memory: 'tas-default' }, 'x1:1,y1:1')] });
      const c = theCycle(p, 3);
      expect(results(c)).toEqual({ 'high-priority': 'preempting' });
      expect(victims(p, 'high-priority').sort()).toEqual(['low-cpu (InClusterQueue)', 'low-mem (InClusterQueue)']);
    });
  });
});

// ---- TestScheduleForTASCohorts ----

describe('TestScheduleForTASCohorts (v0.19.2), through the plan', () => {
  const singleLevel = topology('tas-single-level', [HOST]);
  const tasDefault = flavor('tas-default', 'tas-single-level');
  const nodeX1 = node('x1', host('x1'), { cpu: '3', memory: '5Gi', pods: '10' });
  const nodeY1 = node('y1', host('y1'), { cpu: '5', memory: '3Gi', pods: '10' });
  const defaultTwoNodes = [nodeX1, nodeY1];
  const cohort = 'tas-cohort-main';
  const cqA = clusterQueue('tas-cq-a', [[['tas-default', { cpu: '4', memory: '4Gi' }]]], { cohort, within: 'LowerPriority', reclaim: 'Any' });
  const cqB = clusterQueue('tas-cq-b', [[['tas-default', { cpu: '4', memory: '4Gi' }]]], { cohort, reclaim: 'Any' });
  const lqs = ['a', 'b', 'c'].map((x) => localQueue(`tas-lq-${x}`, `tas-cq-${x}`));
  const inA = (name: string, priority: number | undefined, podSets: readonly PodSet[]) => workload(name, 'tas-lq-a', podSets, { priority });
  const inB = (name: string, priority: number | undefined, podSets: readonly PodSet[]) => workload(name, 'tas-lq-b', podSets, { priority });
  /** a1 in tas-lq-a and b1 in tas-lq-b, one PodSet each, queued together. */
  const a1b1 = (a: readonly [number, PodSet], b: readonly [number, PodSet]) => [inA('a1', a[0], [a[1]]), inB('b1', b[0], [b[1]])];
  const eightCpuNodes = (labels: (n: string) => Labels = () => ({})) => ['node-1', 'node-2']
    .map((n) => node(n, host(n, labels(n)), { cpu: '8', pods: '10' }));

  test('two workloads in cohort nominated to the same node; enough capacity to admit both; '
    + 'TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
    const objects = [singleLevel, tasDefault, clusterQueue('tas-cq-a', [[['tas-default', { cpu: '8' }]]], { cohort }),
      clusterQueue('tas-cq-b', [[['tas-default', { cpu: '8' }]]], { cohort }), ...lqs];
    const arrivals = a1b1([10, ps('one', 1, { cpu: '8' }, { required: HOST })], [5, ps('one', 1, { cpu: '8' }, { required: HOST })]);
    const p = plan({ objects, nodes: eightCpuNodes(), arrivals, queuedAtStart: 2 });
    expect(results(theCycle(p, 2))).toEqual({ a1: 'admitted', b1: 'admitted' });
    expect(admission(p, 'a1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'node-1:1') });
    expect(admission(p, 'b1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'node-2:1') });
  });

  test('two flavors in cohort; re-evaluation is sticky and does not switch to second flavor; TASRecomputeAssignmentWithinSchedulingCycle '
    + 'enabled', () => {
    const f1 = flavor('tas-flavor-1', 'tas-single-level', { nodeLabels: { 'tas-flavor': 'f1' } });
    const f2 = flavor('tas-flavor-2', 'tas-single-level', { nodeLabels: { 'tas-flavor': 'f2' } });
    const objects = [singleLevel, f1, f2, clusterQueue('tas-cq-a', [[['tas-flavor-1', { cpu: '8' }]]], { cohort }),
      clusterQueue('tas-cq-b', [[['tas-flavor-1', { cpu: '8' }], ['tas-flavor-2', { cpu: '8' }]]], { cohort }), ...lqs];
    const nodes = [node('node-1', host('node-1', { 'tas-flavor': 'f1' }), { cpu: '8', pods: '10' }),
      node('node-2', host('node-2', { 'tas-flavor': 'f2' }), { cpu: '8', pods: '10' })];
    const arrivals = a1b1([10, ps('one', 1, { cpu: '8' }, { required: HOST })], [5, ps('one', 1, { cpu: '8' }, { required: HOST })]);
    const p = plan({ objects, nodes, arrivals, queuedAtStart: 2 });
    // Upstream's one cycle: b1's scan stops at tas-flavor-1 (it fits the quota), whose node a1 took, and it waits.
    const c = theCycle(p, 2);
    expect(results(c)).toEqual({ a1: 'admitted', b1: 'pending' });
    expect(detail(c, 'b1')).toBe('needs preemption but no workload may be preempted: couldn\'t assign flavors to pod set one: topology '
      + '"tas-single-level" doesn\'t allow to fit any of 1 pod(s). Total nodes: 1; excluded: resource "cpu": 1');
    expect(admission(p, 'a1')).toEqual({ one: hostAt(1, { cpu: 'tas-flavor-1' }, 'node-1:1') });
    // tas-flavor-2 is still untried (LastAssignment.PendingFlavors): Kueue puts b1 back in the queue at once, and the next
    // cycle resumes the scan there, where node-2 takes it.
    expect(nextCycle(p, c)).toEqual(['b1']);
    expect(admission(p, 'b1')).toEqual({ one: hostAt(1, { cpu: 'tas-flavor-2' }, 'node-2:1') });
  });

  test('two workloads considered; both overlapping in the initial flavor assignment; TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
    const arrivals = a1b1([2, ps('one', 1, { cpu: '2' }, { preferred: HOST })], [1, ps('one', 1, { cpu: '2' }, { preferred: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2 });
    expect(results(theCycle(p, 2))).toEqual({ a1: 'admitted', b1: 'admitted' });
    expect(admission(p, 'a1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
    expect(admission(p, 'b1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'y1:1') });
  });

  test('two small workloads considered; there is only space for one of them on the initial node; '
    + 'TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
    const arrivals = a1b1([2, ps('one', 1, { cpu: '1' }, { preferred: HOST })], [1, ps('one', 3, { cpu: '1' }, { preferred: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2 });
    expect(results(theCycle(p, 2))).toEqual({ a1: 'admitted', b1: 'admitted' });
    expect(admission(p, 'a1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
    expect(admission(p, 'b1')).toEqual({ one: hostAt(3, { cpu: 'tas-default' }, 'y1:3') });
  });

  test('workload with two PodSets exceeds node pods capacity', () => {
    const p = plan({ objects: [singleLevel, tasDefault, cqA, ...lqs], nodes: [node('x1', host('x1'), { cpu: '2', pods: '1' })],
      arrivals: [inA('foo', undefined, [ps('one', 1, { cpu: '1' }, { required: HOST }), ps('two', 1, { cpu: '1' }, { required: HOST })])] });
    const w = byName(p, 'foo');
    expect([w.outcome, w.reason]).toEqual(['pending', 'TopologyPlacementFailed']);
    expect(w.pending?.message).toBe('couldn\'t assign flavors to pod set two: topology "tas-single-level" doesn\'t allow to fit any of 1 pod(s). '
      + 'Total nodes: 1; excluded: resource "pods": 1');
  });

  test('workload which requires borrowing gets scheduled', () => {
    const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes,
      arrivals: [inA('a1', undefined, [ps('one', 6, { cpu: '1' }, { preferred: HOST })])] });
    expect(admission(p, 'a1')).toEqual({ one: hostAt(6, { cpu: 'tas-default' }, 'x1:1,y1:5') });
  });

  test('two small workloads considered; both get scheduled on different nodes', () => {
    const arrivals = a1b1([2, ps('one', 1, { cpu: '5' }, { preferred: HOST })], [1, ps('one', 1, { memory: '5' }, { preferred: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2 });
    expect(results(theCycle(p, 2))).toEqual({ a1: 'admitted', b1: 'admitted' });
    expect(admission(p, 'a1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'y1:1') });
    expect(admission(p, 'b1')).toEqual({ one: hostAt(1, { memory: 'tas-default' }, 'x1:1') });
  });

  test('two small workloads considered; both get scheduled on the same node', () => {
    const arrivals = a1b1([2, ps('one', 1, { cpu: '1' }, { preferred: HOST })], [1, ps('one', 2, { cpu: '1' }, { preferred: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2 });
    expect(results(theCycle(p, 2))).toEqual({ a1: 'admitted', b1: 'admitted' });
    expect(admission(p, 'a1')).toEqual({ one: hostAt(1, { cpu: 'tas-default' }, 'x1:1') });
    expect(admission(p, 'b1')).toEqual({ one: hostAt(2, { cpu: 'tas-default' }, 'x1:2') });
  });

  test('two workloads considered; there is enough space only for the first', () => {
    const arrivals = a1b1([2, ps('one', 5, { cpu: '1' }, { preferred: HOST })], [1, ps('one', 5, { cpu: '1' }, { preferred: HOST })]);
    const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2 });
    // Kueue: a1 admitted; b1 left in the queue (it no longer fits once a1 is in): the next cycle looks at it again.
    const c = theCycle(p, 2);
    expect(results(c)).toEqual({ a1: 'admitted', b1: 'skipped' });
    expect(c.candidates.find((x) => x.workload.endsWith('/b1'))?.detail).toBe('Workload no longer fits after processing another workload');
    expect(nextCycle(p, c)).toEqual(['b1']);
    expect(admission(p, 'a1')).toEqual({ one: hostAt(5, { cpu: 'tas-default' }, 'y1:5') });
  });

  describe('admitted workloads as Kueue holds them (PlanInput.admitted)', () => {
    const cqC = clusterQueue('tas-cq-c', [[['tas-default', { cpu: '4', memory: '4Gi' }]]], { cohort, reclaim: 'Any' });
    const inC = (name: string, priority: number | undefined, podSets: readonly PodSet[]) => workload(name, 'tas-lq-c', podSets, { priority });
    const cpu = { cpu: 'tas-default' };
    /** PodSet one of `count` pods of `c` CPUs, requiring or preferring one host. */
    const req = (count: number, c = '1') => [ps('one', count, { cpu: c }, { required: HOST })];
    const pref = (count: number, c = '1') => [ps('one', count, { cpu: c }, { preferred: HOST })];
    /** tas-cq-a of 8 CPUs and 4Gi that may not borrow, with its preemption policies. */
    const cqA8 = (reclaim: 'Any' | 'LowerPriority') => clusterQueue('tas-cq-a',
      [[['tas-default', { cpu: ['8', '0'], memory: ['4Gi', '0'] }]]], { cohort, within: 'LowerPriority', reclaim });

    test('reclaim within cohort; capacity reserved by preempting workload does not allow to schedule last workload; '
      + 'TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
      const arrivals = [inA('a1-admitted', 2, req(5)), inA('a2-admitted', 1, req(1)), inA('a3-admitted', 1, req(1)), inB('b1', 3, req(3)),
        inC('c1', 1, pref(1))];
      const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, cqC, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 5,
        admitted: [given(cpu, 'x1:3,y1:2'), given(cpu, 'y1:1'), given(cpu, 'y1:1')] });
      expect(results(theCycle(p, 5))).toEqual({ b1: 'preempting', c1: 'preempting' });
      expect(victims(p, 'b1').sort()).toEqual(['a2-admitted (InCohortReclamation)', 'a3-admitted (InCohortReclamation)']);
      expect(victims(p, 'c1')).toEqual(['a1-admitted (InCohortReclamation)']);
    });

    test('preempting workload with targets reserves capacity so that lower priority workload cannot use it; '
      + 'TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
      const arrivals = [inA('a1-admitted', 1, req(2)), inA('a2', 2, pref(4)), inB('b1', 1, pref(3))];
      const p = plan({ objects: [singleLevel, tasDefault, cqA8('Any'), cqB, ...lqs], nodes: [nodeY1], arrivals, queuedAtStart: 3,
        admitted: [given(cpu, 'y1:2')] });
      const c = theCycle(p, 3);
      // Kueue: a2 preempts a1-admitted (wantLeft); b1 inadmissible (WaitingForQuota).
      expect(results(c)).toEqual({ a2: 'preempting', b1: 'pending' });
      expect(victims(p, 'a2')).toEqual(['a1-admitted (InClusterQueue)']);
      expect(detail(c, 'b1')).toContain('couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 3 pod(s). '
        + 'Total nodes: 1; excluded: resource "cpu": 1');
    });

    test('preempting workload without targets reserves capacity so that lower priority workload cannot use it; '
      + 'TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
      const arrivals = [inA('a1-admitted', 2, req(2)), inA('a2', 2, pref(4)), inB('b1', 1, pref(3))];
      const p = plan({ objects: [singleLevel, tasDefault, cqA8('LowerPriority'), cqB, ...lqs], nodes: [nodeY1], arrivals, queuedAtStart: 3,
        admitted: [given(cpu, 'y1:2')] });
      const c = theCycle(p, 3);
      // Kueue: both inadmissible (WaitingForQuota); a2, which cannot always reclaim, holds the node for the cycle.
      expect(results(c)).toEqual({ a2: 'pending', b1: 'pending' });
      expect(detail(c, 'a2')).toContain('couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to fit only 3 out of 4 pod(s)');
      expect(detail(c, 'b1')).toContain('couldn\'t assign flavors to pod set one: topology "tas-single-level" doesn\'t allow to fit any of 3 pod(s). '
        + 'Total nodes: 1; excluded: resource "cpu": 1');
      expect([byName(p, 'a2').reason, byName(p, 'b1').reason]).toEqual(['WaitingForQuota', 'WaitingForQuota']);
    });

    test('workload with preemption target recomputes stale TAS assignment in cohort; TASRecomputeAssignmentWithinSchedulingCycle enabled', () => {
      const nodes = [['node-1', '1'], ['node-2', '2'], ['node-3', '2']].map(([n, c]) => node(n, host(n), { cpu: c, pods: '10' }));
      const objects = [singleLevel, tasDefault, clusterQueue('tas-cq-a', [[['tas-default', { cpu: '2' }]]], { cohort }),
        clusterQueue('tas-cq-b', [[['tas-default', { cpu: ['2', '0'] }]]], { cohort, within: 'LowerPriority' }), ...lqs];
      // a1 is created before b1.
      const arrivals = [inB('b-low-admitted', 1, req(1)), inA('a1', 2, pref(1, '2')), inB('b1', 2, pref(1, '2'))];
      const p = plan({ objects, nodes, arrivals, queuedAtStart: 3, admitted: [given(cpu, 'node-1:1')] });
      expect(results(theCycle(p, 3))).toEqual({ a1: 'admitted', b1: 'preempting' });
      expect(admission(p, 'a1')).toEqual({ one: hostAt(1, cpu, 'node-2:1') });
      expect(victims(p, 'b1')).toEqual(['b-low-admitted (InClusterQueue)']);
    });

    test('preempting workload without targets doesn\'t reserve capacity when it can always reclaim', () => {
      const arrivals = [inA('a1-admitted', 2, req(2)), inA('a2', 2, pref(4)), inB('b1', 1, pref(3))];
      const p = plan({ objects: [singleLevel, tasDefault, cqA8('Any'), cqB, ...lqs], nodes: [nodeY1], arrivals, queuedAtStart: 3,
        admitted: [given(cpu, 'y1:2')] });
      const c = theCycle(p, 3);
      expect(results(c)).toEqual({ a2: 'pending', b1: 'admitted' });
      expect(detail(c, 'a2')).toContain('couldn\'t assign flavors to pod set one: topology "tas-single-level" allows to fit only 3 out of 4 pod(s)');
      expect(byName(p, 'a2').reason).toBe('WaitingForQuota');
      expect(admission(p, 'b1')).toEqual({ one: hostAt(3, cpu, 'y1:3') });
    });

    test('reclaim within cohort; single borrowing workload gets preempted', () => {
      // The admitted workload's five 1-CPU pods are on x1, which has 3 CPUs (the upstream case's pre-set assignment).
      const arrivals = [inA('a1-admitted', undefined, req(5)), inB('b1', undefined, pref(4))];
      const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 2,
        admitted: [given(cpu, 'x1:5')] });
      expect(results(theCycle(p, 2))).toEqual({ b1: 'preempting' });
      expect(victims(p, 'b1')).toEqual(['a1-admitted (InCohortReclamation)']);
    });

    test('reclaim within cohort; single workload is preempted out three candidates', () => {
      const arrivals = [inA('a1-admitted', 1, req(5)), inA('a2-admitted', 2, req(2)), inA('a3-admitted', 2, req(1)), inB('b1', 3, pref(3))];
      const p = plan({ objects: [singleLevel, tasDefault, cqA, cqB, ...lqs], nodes: defaultTwoNodes, arrivals, queuedAtStart: 4,
        admitted: [given(cpu, 'x1:5'), given(cpu, 'y1:2'), given(cpu, 'y1:1')] });
      expect(results(theCycle(p, 4))).toEqual({ b1: 'preempting' });
      expect(victims(p, 'b1')).toEqual(['a1-admitted (InCohortReclamation)']);
    });

    test('preempt in multiple flavors out of which one requires update Fit -> Preempt due to fragmentation', () => {
      const GPU = 'example.com/gpu';
      const nodes = ['node-1', 'node-2'].map((n) => node(n, host(n), { cpu: '8', [GPU]: '8', pods: '10' }));
      const cohortObject = { apiVersion: API, kind: 'Cohort', metadata: { name: cohort }, spec: { resourceGroups: [{ coveredResources: ['cpu', GPU],
        flavors: [{ name: 'tas-default', resources: [{ name: 'cpu', nominalQuota: '16' }, { name: GPU, nominalQuota: '16' }] }] }] } };
      const cq = (name: string) => clusterQueue(name, [[['tas-default', { cpu: ['0', '16'], [GPU]: ['0', '16'] }]]],
        { cohort, within: 'LowerPriority', reclaim: 'Any', borrowWithinCohort: 'LowerPriority' });
      const objects = [topology('tas-topology', [HOST]), flavor('tas-default', 'tas-topology'), cohortObject, cq('tas-cq-a'), cq('tas-cq-b'), ...lqs];
      // Both admitted PodSets require one host but are spread over two (the upstream case's pre-set assignments).
      const arrivals = [inA('low-cpu', -1000, req(2, '5')),
        inA('low-gpu', -1000, [ps('one', 2, { 'cpu': '10m', [GPU]: '8' }, { required: HOST })]),
        inB('standard', 0, [ps('one', 1, { 'cpu': '5', [GPU]: '8' }, { required: HOST })])];
      const p = plan({ objects, nodes, arrivals, queuedAtStart: 3,
        admitted: [given(cpu, 'node-1:1,node-2:1'), given({ 'cpu': 'tas-default', [GPU]: 'tas-default' }, 'node-1:1,node-2:1')] });
      expect(results(theCycle(p, 3))).toEqual({ standard: 'preempting' });
      expect(victims(p, 'standard').sort()).toEqual(['low-cpu (InCohortReclaimWhileBorrowing)', 'low-gpu (InCohortReclaimWhileBorrowing)']);
    });
  });
});
