/**
 * Kueue's own scheduler tests for fair sharing, through the whole plan: TestScheduleForFairSharing of
 * pkg/scheduler/scheduler_fs_test.go at v0.19.2 (run by runScheduleTestCases in scheduler_test.go), case by case. Each
 * upstream case loads the suite's flavors, ClusterQueues and LocalQueues plus its own (Cohorts with their quotas and
 * weights, ClusterQueues, LocalQueues), the workloads it admitted already (ReserveQuotaAt / SimpleReserveQuota) and its
 * pending ones, turns fair sharing on (`config.FairSharing{}`: both preemption strategies, parseStrategies in
 * preemption.go) and runs ONE schedule() call. Here the same objects go to simulatePlan (kueueVersion v0.19.2; v1beta2
 * Configuration with a fairSharing section naming both strategies), the admitted workloads first as `admitted`, then
 * the pending ones, all queued before the first cycle (`queuedAtStart`).
 *
 * How a Kueue Workload is written for the plan, which only takes Ray objects: a RayCluster of one head pod in the
 * Workload's namespace, labelled with its LocalQueue, requesting the PodSet's total (count × the per-pod request): only
 * quota matters here (no ClusterQueue covers `pods`). Priorities are WorkloadPriorityClasses named by the
 * kueue.x-k8s.io/priority-class label (Priority(0) is no class). Creation(...) is the arrival order: the plan's workloads
 * are created in the order they arrive; upstream, a workload without Creation has the zero timestamp (the earliest).
 * The pod set is the plan's `head`, not the upstream `one` or `main`, which only renames it in messages.
 *
 * What is compared. Kueue's expectations are those of ONE cycle; the plan goes on to a settled state. So every case
 * compares the plan's FIRST cycle (trace[0]): which heads it looked at and what it did with each ('admitted', Kueue's
 * wantAssignments; 'preempting', a preemptor Kueue leaves in wantLeft with its victims Preempted; 'skipped' with Kueue's
 * "Workload no longer fits after processing another workload" or "Workload has overlapping preemption targets with
 * another workload"; 'pending' for a NoFit), the victims that cycle released with their reasons (wantPreempted, the
 * Preempted conditions' reasons), and the flavors of what the cycle admitted (wantAssignments; those stay admitted to
 * the end). Where later cycles change nothing (the quota left is too small for what is still queued), the
 * case also checks the end state: what Kueue left stays pending. After a preemption Kueue's next cycles (the victims
 * gone) admit the preemptor: the plan does that and says `admitted-by-preempting`, with the victims of cycle 1.
 *
 * Upstream details kept: the suite's Namespaces with their `dep` labels (the ClusterQueues' namespaceSelectors), its
 * six ClusterQueues (flavor-nonexistent-cq is inactive) and eight LocalQueues (cq-nonexistent-queue names a missing
 * ClusterQueue) in every case. One addition: in "with fair sharing: preempt workload from CQ with the highest share"
 * the admitted workloads have no queue name (Kueue's cache holds them by their admission); a plan arrival needs a
 * LocalQueue to find its ClusterQueue, so they name `main`, and a LocalQueue main in eng-gamma (no pending workload in
 * it) leads to eng-gamma.
 *
 * Ties that upstream breaks by UID (workloads admitted at the same time): the plan admits the `admitted` arrivals one
 * after the other, so they are listed in the order that gives the same candidate order (said where it matters).
 *
 * Counts: 22 cases, 22 translated, 0 skipped. No case uses partial admission, admission checks, a second pass, DRA or
 * admission fair sharing; the only gate a case sets, RecomputeAssignmentUponPreemptionTargetsOverlap=false, is v0.19's
 * default (Alpha), which the plan models; FairSharingPrioritizeNonBorrowing and FairSharingPreemptWithinNominal are on
 * (v0.19 defaults, set explicitly here). "prefer flavor with most local capacity (FS=false)" runs without fair sharing.
 * 21 cases agree with Kueue. One does not: "with fair sharing: nominal-first ordering admits workload fitting within
 * nominal despite higher CQ DRS", whose ClusterQueues cover cpu in two resource groups (a ClusterQueue Kueue's webhook
 * refuses), which Kueue and the plan resolve differently (said at the case).
 */
import { simulatePlan } from '../../../src/policy/plan';
import { kueueConfigOf } from '../../../src/policy/plan/kueue-config';
import type { PlanCandidate, PlanResult } from '../../../src/policy/plan/schema';
import { CONFIG_V1BETA2, kueueCapabilities } from '../../../src/policy/versions';

const V = 'v0.19.2';
const API = 'kueue.x-k8s.io/v1beta2';
const GPU = 'example.com/gpu';

// ---- the upstream wrappers ----

/** A resource's quota, as FlavorQuotas.Resource(name, nominal, borrowingLimit, lendingLimit) takes it ('' for none). */
type Quota = string | readonly [string, string?, string?];
/** One flavor of a resource group: [flavor, resource → quota]. */
type FlavorQuotas = readonly [string, Readonly<Record<string, Quota>>];

function resourceGroup(fqs: readonly FlavorQuotas[]) {
  return {
    coveredResources: [...new Set(fqs.flatMap(([, r]) => Object.keys(r)))],
    flavors: fqs.map(([name, r]) => ({
      name,
      resources: Object.entries(r).map(([res, q]) => {
        const [nominal, borrowingLimit, lendingLimit] = typeof q === 'string' ? [q] : q;
        return { name: res, nominalQuota: nominal, ...(borrowingLimit ? { borrowingLimit } : {}), ...(lendingLimit ? { lendingLimit } : {}) };
      }),
    })),
  };
}

interface CQ {
  readonly cohort?: string;
  /** dep In [value]; absent: select-all (MakeClusterQueue). */
  readonly dep?: string;
  readonly strict?: boolean;
  /**
   * Preemption(...): the fields the upstream struct sets. One it leaves out is Go's zero value '', not the API's default
   * Never: the unit test loads the ClusterQueue into the cache without the API server, and Kueue compares it as it is
   * (`ReclaimWithinCohort != Never`: canPreemptWhileBorrowing, flavorassigner.go:1382-1385; preemption.go:639). The plan
   * gets the same ''. Without Preemption(...) the cache's defaultPreemption (Never, Never) applies, as the plan's default.
   */
  readonly within?: string;
  readonly reclaim?: string;
  readonly weight?: string;
  /** Flavor fungibility; MakeClusterQueue's default is whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor. */
  readonly fungibility?: Record<string, string>;
  readonly groups: ReadonlyArray<readonly FlavorQuotas[]>;
}

/** MakeClusterQueue(name): a select-all namespaceSelector, BestEffortFIFO, whenCanBorrow MayStopSearch, whenCanPreempt TryNextFlavor. */
function clusterQueue(name: string, c: CQ) {
  return {
    apiVersion: API, kind: 'ClusterQueue', metadata: { name },
    spec: {
      namespaceSelector: c.dep ? { matchExpressions: [{ key: 'dep', operator: 'In', values: [c.dep] }] } : {},
      queueingStrategy: c.strict ? 'StrictFIFO' : 'BestEffortFIFO',
      flavorFungibility: c.fungibility ?? { whenCanBorrow: 'MayStopSearch', whenCanPreempt: 'TryNextFlavor' },
      ...(c.cohort ? { cohortName: c.cohort } : {}),
      ...(c.within || c.reclaim ? { preemption: { withinClusterQueue: c.within ?? '', reclaimWithinCohort: c.reclaim ?? '' } } : {}),
      ...(c.weight !== undefined ? { fairSharing: { weight: c.weight } } : {}),
      resourceGroups: c.groups.map(resourceGroup),
    },
  };
}

function cohort(name: string, o: { parent?: string; weight?: string; groups?: ReadonlyArray<readonly FlavorQuotas[]> } = {}) {
  return {
    apiVersion: API, kind: 'Cohort', metadata: { name },
    spec: {
      ...(o.parent ? { parentName: o.parent } : {}), ...(o.weight !== undefined ? { fairSharing: { weight: o.weight } } : {}),
      ...(o.groups ? { resourceGroups: o.groups.map(resourceGroup) } : {}),
    },
  };
}

function localQueue(name: string, namespace: string, cq: string) {
  return { apiVersion: API, kind: 'LocalQueue', metadata: { name, namespace }, spec: { clusterQueue: cq } };
}

const namespace = (name: string, dep?: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(dep ? { labels: { dep } } : {}) } });
const flavor = (name: string) => ({ apiVersion: API, kind: 'ResourceFlavor', metadata: { name }, spec: {} });
const priorityClass = (value: number) => ({ apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: pc(value) }, value });
const pc = (value: number) => `p${value < 0 ? 'm' : ''}${Math.abs(value)}`;

/** The suite's objects (TestScheduleForFairSharing's resourceFlavors, clusterQueues, queues, and runScheduleTestCases' Namespaces). */
const SUITE = [
  namespace('default'), namespace('eng-alpha', 'eng'), namespace('eng-beta', 'eng'), namespace('eng-gamma', 'eng'), namespace('sales', 'sales'),
  namespace('lend', 'lend'),
  flavor('default'), flavor('on-demand'), flavor('spot'), flavor('model-a'),
  ...[-1, 50, 99, 100, 101, 9001].map(priorityClass),
  clusterQueue('sales', { dep: 'sales', strict: true, groups: [[['default', { cpu: ['50', '0'] }]]] }),
  clusterQueue('eng-alpha', { cohort: 'eng', dep: 'eng', strict: true,
    groups: [[['on-demand', { cpu: ['50', '50'] }], ['spot', { cpu: ['100', '0'] }]]] }),
  clusterQueue('eng-beta', { cohort: 'eng', dep: 'eng', strict: true, reclaim: 'Any', within: 'LowerPriority',
    groups: [[['on-demand', { cpu: ['50', '10'] }], ['spot', { cpu: ['0', '100'] }]], [['model-a', { [GPU]: ['20', '0'] }]]] }),
  clusterQueue('flavor-nonexistent-cq', { strict: true, groups: [[['nonexistent-flavor', { cpu: '50' }]]] }),
  clusterQueue('lend-a', { cohort: 'lend', dep: 'lend', groups: [[['default', { cpu: ['3', '', '2'] }]]] }),
  clusterQueue('lend-b', { cohort: 'lend', dep: 'lend', groups: [[['default', { cpu: ['2', '', '2'] }]]] }),
  localQueue('main', 'sales', 'sales'), localQueue('blocked', 'sales', 'eng-alpha'), localQueue('main', 'eng-alpha', 'eng-alpha'),
  localQueue('main', 'eng-beta', 'eng-beta'), localQueue('flavor-nonexistent-queue', 'sales', 'flavor-nonexistent-cq'),
  localQueue('cq-nonexistent-queue', 'sales', 'nonexistent-cq'), localQueue('lend-a-queue', 'lend', 'lend-a'),
  localQueue('lend-b-queue', 'lend', 'lend-b'),
];

/** A Kueue Workload "namespace/name" of one PodSet, as a RayCluster of one head pod requesting the PodSet's total. */
function workload(ref: string, lq: string, requests: string | Readonly<Record<string, string>>, priority?: number) {
  const [ns, name] = ref.split('/');
  return {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: { name, namespace: ns,
      labels: { 'kueue.x-k8s.io/queue-name': lq, ...(priority ? { 'kueue.x-k8s.io/priority-class': pc(priority) } : {}) } },
    spec: { headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'head', image: 'rayproject/ray:2.46.0',
      resources: { requests: typeof requests === 'string' ? { cpu: requests } : requests } }] } } } },
  };
}
type Ray = ReturnType<typeof workload>;

function config(fairSharing: boolean) {
  return kueueConfigOf({
    config: { apiVersion: CONFIG_V1BETA2, kind: 'Configuration',
      ...(fairSharing ? { fairSharing: { preemptionStrategies: ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'] } } : {}) },
    args: ['--feature-gates=FairSharingPrioritizeNonBorrowing=true,FairSharingPreemptWithinNominal=true'], where: 'test',
  }, kueueCapabilities(V));
}

// ---- the cases ----

interface Case {
  readonly name: string;
  /** Line of the case in scheduler_fs_test.go at v0.19.2. */
  readonly line: number;
  /** enableFairSharing (true unless said). */
  readonly fairSharing?: false;
  readonly cohorts?: readonly unknown[];
  readonly clusterQueues?: readonly unknown[];
  readonly localQueues?: readonly unknown[];
  /** The workloads admitted before the cycle, with each resource's flavor (their Admission). */
  readonly admitted?: ReadonlyArray<readonly [Ray, Readonly<Record<string, string>>]>;
  /** The pending workloads, in creation order. */
  readonly pending: readonly Ray[];
  /** The first cycle: each head ("namespace/name") and what Kueue's cycle does with it. */
  readonly cycle: Readonly<Record<string, PlanCandidate['result']>>;
  /** wantAssignments of the workloads the cycle admits: resource → flavor. */
  readonly assigned?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The preemptions the cycle issues (the Preempted conditions): preemptor → ["victim:Reason"]. */
  readonly preempted?: Readonly<Record<string, readonly string[]>>;
  /** Kueue's message where the cycle leaves a workload pending (QuotaReserved=False), by head. */
  readonly messages?: Readonly<Record<string, string>>;
  /** Later cycles change nothing: what the first cycle left is still pending at the end. */
  readonly settled?: boolean;
}

const NO_LONGER_FITS = 'Workload no longer fits after processing another workload';

const CASES: Case[] = [
  {
    name: 'with fair sharing: schedule workload with lowest share first', line: 145,
    clusterQueues: [clusterQueue('eng-shared', { cohort: 'eng', groups: [[['on-demand', { cpu: ['10', '0'] }]]] })],
    admitted: [
      [workload('eng-alpha/all_nominal', 'main', '50'), { cpu: 'on-demand' }],
      [workload('eng-beta/borrowing', 'main', '55'), { cpu: 'on-demand' }],
    ],
    // older_new: Creation(now - 1m); new: Creation(now).
    pending: [workload('eng-beta/older_new', 'main', '1'), workload('eng-alpha/new', 'main', '5')],
    cycle: { 'eng-alpha/new': 'admitted', 'eng-beta/older_new': 'skipped' },
    assigned: { 'eng-alpha/new': { cpu: 'on-demand' } },
    messages: { 'eng-beta/older_new': NO_LONGER_FITS },
    // Not settled: in a later cycle older_new borrows spot from eng-alpha (eng-beta's spot borrowingLimit is 100).
  },
  {
    name: 'with fair sharing: nominal-first ordering admits workload fitting within nominal despite higher CQ DRS', line: 271,
    // Upstream puts each flavor in a resource group of its own, both covering cpu. Kueue's webhook refuses that
    // (validateResourceGroups, clusterqueue_webhook.go:309-314), but the unit test loads the ClusterQueues into the cache
    // directly, whose RGByResource (clusterqueue_snapshot.go:84-91) takes the FIRST group covering a resource: cpu is
    // assigned from on-demand alone. Kept as written. The plan takes the LAST one (groupByResource in snapshot.ts
    // addClusterQueue): it assigns cpu from spot, and disagrees here. With one valid group [on-demand, spot] it agrees on
    // this cycle (nom-wl on on-demand, borrow-wl skipped).
    clusterQueues: [
      clusterQueue('fs-nom-a', { cohort: 'fs-nom', groups: [[['on-demand', { cpu: ['50', '0'] }]], [['spot', { cpu: ['50', '50'] }]]] }),
      clusterQueue('fs-nom-b', { cohort: 'fs-nom', groups: [[['on-demand', { cpu: ['10', '50'] }]], [['spot', { cpu: ['50', '0'] }]]] }),
    ],
    localQueues: [localQueue('fs-nom', 'eng-alpha', 'fs-nom-a'), localQueue('fs-nom', 'eng-beta', 'fs-nom-b')],
    admitted: [
      [workload('eng-alpha/spot-heavy', 'fs-nom', '80'), { cpu: 'spot' }],
      [workload('eng-beta/light-usage', 'fs-nom', '5'), { cpu: 'on-demand' }],
    ],
    // borrow-wl: Creation(now - 1m); nom-wl: Creation(now).
    pending: [workload('eng-beta/borrow-wl', 'fs-nom', '15'), workload('eng-alpha/nom-wl', 'fs-nom', '45')],
    cycle: { 'eng-alpha/nom-wl': 'admitted', 'eng-beta/borrow-wl': 'skipped' },
    assigned: { 'eng-alpha/nom-wl': { cpu: 'on-demand' } },
    messages: { 'eng-beta/borrow-wl': NO_LONGER_FITS },
  },
  {
    name: 'with fair sharing: hierarchical nominal-first prefers non-borrowing subtree', line: 437,
    cohorts: [cohort('root'), cohort('Cohort-A', { parent: 'root', groups: [[['on-demand', { cpu: '10' }]]] }),
      cohort('Cohort-B', { parent: 'root' })],
    clusterQueues: [
      clusterQueue('cq-a', { cohort: 'Cohort-A', groups: [[['on-demand', { cpu: '0' }]]] }),
      clusterQueue('cq-b', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '5' }]]] }),
      clusterQueue('cq-c', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '0' }]]] }),
    ],
    localQueues: [localQueue('lq-a', 'eng-alpha', 'cq-a'), localQueue('lq-b', 'eng-alpha', 'cq-b'), localQueue('lq-c', 'eng-alpha', 'cq-c')],
    admitted: [[workload('eng-alpha/c0', 'lq-c', '10'), { cpu: 'on-demand' }]],
    pending: [workload('eng-alpha/wl-a', 'lq-a', '5'), workload('eng-alpha/wl-b', 'lq-b', '5')],
    cycle: { 'eng-alpha/wl-a': 'admitted', 'eng-alpha/wl-b': 'skipped' },
    assigned: { 'eng-alpha/wl-a': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/wl-b': NO_LONGER_FITS },
    settled: true,
  },
  {
    name: 'with fair sharing: hierarchical nominal-first with deeper nesting', line: 588,
    cohorts: [cohort('root'), cohort('Cohort-A', { parent: 'root' }),
      cohort('SUB-A', { parent: 'Cohort-A', groups: [[['on-demand', { cpu: '10' }]]] }), cohort('Cohort-B', { parent: 'root' })],
    clusterQueues: [
      clusterQueue('cq-a', { cohort: 'SUB-A', groups: [[['on-demand', { cpu: '0' }]]] }),
      clusterQueue('cq-b', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '5' }]]] }),
      clusterQueue('cq-c', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '0' }]]] }),
    ],
    localQueues: [localQueue('lq-a', 'eng-alpha', 'cq-a'), localQueue('lq-b', 'eng-alpha', 'cq-b'), localQueue('lq-c', 'eng-alpha', 'cq-c')],
    admitted: [[workload('eng-alpha/c0', 'lq-c', '10'), { cpu: 'on-demand' }]],
    pending: [workload('eng-alpha/wl-a', 'lq-a', '5'), workload('eng-alpha/wl-b', 'lq-b', '5')],
    cycle: { 'eng-alpha/wl-a': 'admitted', 'eng-alpha/wl-b': 'skipped' },
    assigned: { 'eng-alpha/wl-a': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/wl-b': NO_LONGER_FITS },
    settled: true,
  },
  {
    name: 'with fair sharing: hierarchical nominal-first with mixed CQ and cohort quotas', line: 739,
    cohorts: [cohort('root'), cohort('Cohort-A', { parent: 'root', groups: [[['on-demand', { cpu: '10' }]]] }),
      cohort('Cohort-B', { parent: 'root', groups: [[['on-demand', { cpu: '10' }]]] })],
    clusterQueues: [
      clusterQueue('cq-a1', { cohort: 'Cohort-A', groups: [[['on-demand', { cpu: '5' }]]] }),
      clusterQueue('cq-a2', { cohort: 'Cohort-A', groups: [[['on-demand', { cpu: '3' }]]] }),
      clusterQueue('cq-b', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '5' }]]] }),
      clusterQueue('cq-c', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '3' }]]] }),
    ],
    localQueues: [localQueue('lq-a1', 'eng-alpha', 'cq-a1'), localQueue('lq-a2', 'eng-alpha', 'cq-a2'), localQueue('lq-b', 'eng-alpha', 'cq-b'),
      localQueue('lq-c', 'eng-alpha', 'cq-c')],
    admitted: [
      [workload('eng-alpha/a2-admitted', 'lq-a2', '6'), { cpu: 'on-demand' }],
      [workload('eng-alpha/c-admitted', 'lq-c', '20'), { cpu: 'on-demand' }],
    ],
    pending: [workload('eng-alpha/wl-a1', 'lq-a1', '7'), workload('eng-alpha/wl-b', 'lq-b', '4')],
    cycle: { 'eng-alpha/wl-a1': 'admitted', 'eng-alpha/wl-b': 'skipped' },
    assigned: { 'eng-alpha/wl-a1': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/wl-b': NO_LONGER_FITS },
    settled: true,
  },
  {
    name: 'with fair sharing: hierarchical nominal-first per-flavor ignores cross-flavor borrowing', line: 931,
    cohorts: [cohort('root'), cohort('Cohort-A', { parent: 'root', groups: [[['on-demand', { cpu: '10' }]]] }),
      cohort('Cohort-B', { parent: 'root', groups: [[['spot', { cpu: '10' }]]] })],
    clusterQueues: [
      clusterQueue('cq-a', { cohort: 'Cohort-A', groups: [[['on-demand', { cpu: '0' }], ['spot', { cpu: '0' }]]] }),
      clusterQueue('cq-b', { cohort: 'Cohort-B', groups: [[['on-demand', { cpu: '5' }], ['spot', { cpu: '0' }]]] }),
    ],
    localQueues: [localQueue('lq-a', 'eng-alpha', 'cq-a'), localQueue('lq-b', 'eng-alpha', 'cq-b')],
    admitted: [
      [workload('eng-alpha/spot-admitted', 'lq-a', '5'), { cpu: 'spot' }],
      [workload('eng-alpha/od-admitted', 'lq-b', '8'), { cpu: 'on-demand' }],
    ],
    pending: [workload('eng-alpha/wl-a', 'lq-a', '4'), workload('eng-alpha/wl-b', 'lq-b', '4')],
    cycle: { 'eng-alpha/wl-a': 'admitted', 'eng-alpha/wl-b': 'skipped' },
    assigned: { 'eng-alpha/wl-a': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/wl-b': NO_LONGER_FITS },
  },
  {
    name: 'hierarchical fair sharing schedule workload which wins tournament', line: 1123,
    cohorts: [cohort('A', { groups: [[['on-demand', { cpu: '200' }]]] }), cohort('B', { parent: 'A' }), cohort('C', { parent: 'A' })],
    clusterQueues: ['d', 'e', 'f', 'g'].map((n) => clusterQueue(n, { cohort: n < 'f' ? 'B' : 'C', groups: [[['on-demand', { cpu: '0' }]]] })),
    localQueues: ['d', 'e', 'f', 'g'].map((n) => localQueue(`lq-${n}`, 'eng-alpha', n)),
    admitted: [
      [workload('eng-alpha/d0', 'lq-d', '10'), { cpu: 'on-demand' }],
      [workload('eng-alpha/e0', 'lq-e', '20'), { cpu: 'on-demand' }],
      [workload('eng-alpha/g0', 'lq-g', '100'), { cpu: 'on-demand' }],
    ],
    pending: [workload('eng-alpha/d1', 'lq-d', '70'), workload('eng-alpha/e1', 'lq-e', '61'), workload('eng-alpha/f1', 'lq-f', '1'),
      workload('eng-alpha/g1', 'lq-g', '1')],
    cycle: { 'eng-alpha/d1': 'admitted', 'eng-alpha/e1': 'skipped', 'eng-alpha/f1': 'skipped', 'eng-alpha/g1': 'skipped' },
    assigned: { 'eng-alpha/d1': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/e1': NO_LONGER_FITS, 'eng-alpha/f1': NO_LONGER_FITS, 'eng-alpha/g1': NO_LONGER_FITS },
    settled: true,
  },
  {
    name: 'fair sharing schedule workload with lowest drf after admission', line: 1401,
    cohorts: [cohort('A', { groups: [[['on-demand', { cpu: '100' }]]] })],
    clusterQueues: ['b', 'c'].map((n) => clusterQueue(n, { cohort: 'A', groups: [[['on-demand', { cpu: '0' }]]] })),
    localQueues: [localQueue('lq-b', 'eng-alpha', 'b'), localQueue('lq-c', 'eng-alpha', 'c')],
    admitted: [[workload('eng-alpha/b0', 'lq-b', '10'), { cpu: 'on-demand' }]],
    pending: [workload('eng-alpha/b1', 'lq-b', '50'), workload('eng-alpha/c1', 'lq-c', '75')],
    cycle: { 'eng-alpha/b1': 'admitted', 'eng-alpha/c1': 'skipped' },
    assigned: { 'eng-alpha/b1': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/c1': NO_LONGER_FITS },
    settled: true,
  },
  ...(['0', '123456789'] as const).map((weight): Case => ({
    name: weight === '0' ? 'fair sharing two queues with weight 0 schedules workload which borrows less'
      : 'fair sharing two queues with high weight schedules workload which borrows less',
    line: weight === '0' ? 1543 : 1701,
    cohorts: [cohort('A', { groups: [[['on-demand', { cpu: '8' }]]] })],
    clusterQueues: ['b', 'c'].map((n) => clusterQueue(n, { cohort: 'A', weight, reclaim: 'Any', within: 'Never',
      groups: [[['on-demand', { cpu: '0' }]]] })),
    localQueues: [localQueue('lq-b', 'eng-alpha', 'b'), localQueue('lq-c', 'eng-alpha', 'c')],
    admitted: [[workload('eng-alpha/b0', 'lq-b', '4'), { cpu: 'on-demand' }]],
    pending: [workload('eng-alpha/b1', 'lq-b', '4', 9001), workload('eng-alpha/c1', 'lq-c', '4')],
    cycle: { 'eng-alpha/c1': 'admitted', 'eng-alpha/b1': 'skipped' },
    assigned: { 'eng-alpha/c1': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/b1': NO_LONGER_FITS },
    // b1 may reclaim (Any), but taking c1 would leave b with the larger share: no strategy allows it.
    settled: true,
  })),
  {
    name: 'fair sharing schedule singleton cqs and cq without cohort', line: 1863,
    cohorts: [cohort('A', { groups: [[['on-demand', { cpu: '10' }]]] }), cohort('B')],
    clusterQueues: [
      clusterQueue('a', { cohort: 'A', groups: [[['on-demand', { cpu: '0' }]]] }),
      clusterQueue('b', { cohort: 'B', groups: [[['on-demand', { cpu: '10' }]]] }),
      clusterQueue('c', { groups: [[['on-demand', { cpu: '10' }]]] }),
    ],
    localQueues: ['a', 'b', 'c'].map((n) => localQueue(`lq-${n}`, 'eng-alpha', n)),
    pending: ['a', 'b', 'c'].map((n) => workload(`eng-alpha/${n}1`, `lq-${n}`, '10')),
    cycle: { 'eng-alpha/a1': 'admitted', 'eng-alpha/b1': 'admitted', 'eng-alpha/c1': 'admitted' },
    assigned: { 'eng-alpha/a1': { cpu: 'on-demand' }, 'eng-alpha/b1': { cpu: 'on-demand' }, 'eng-alpha/c1': { cpu: 'on-demand' } },
    settled: true,
  },
  {
    name: 'fair sharing schedule highest priority first', line: 2031,
    cohorts: [cohort('A', { groups: [[['on-demand', { cpu: '10' }]]] }), cohort('B')],
    clusterQueues: ['b', 'c'].map((n) => clusterQueue(n, { cohort: 'A', groups: [[['on-demand', { cpu: '0' }]]] })),
    localQueues: [localQueue('lq-b', 'eng-alpha', 'b'), localQueue('lq-c', 'eng-alpha', 'c')],
    pending: [workload('eng-alpha/b1', 'lq-b', '10', 99), workload('eng-alpha/c1', 'lq-c', '10', 101)],
    cycle: { 'eng-alpha/c1': 'admitted', 'eng-alpha/b1': 'skipped' },
    assigned: { 'eng-alpha/c1': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/b1': NO_LONGER_FITS },
    settled: true,
  },
  {
    name: 'fair sharing schedule earliest timestamp first', line: 2146,
    cohorts: [cohort('A', { groups: [[['on-demand', { cpu: '10' }]]] }), cohort('B')],
    clusterQueues: ['b', 'c'].map((n) => clusterQueue(n, { cohort: 'A', groups: [[['on-demand', { cpu: '0' }]]] })),
    localQueues: [localQueue('lq-b', 'eng-alpha', 'b'), localQueue('lq-c', 'eng-alpha', 'c')],
    // c1: Creation(now), b1: Creation(now + 1s).
    pending: [workload('eng-alpha/c1', 'lq-c', '10', 101), workload('eng-alpha/b1', 'lq-b', '10', 101)],
    cycle: { 'eng-alpha/c1': 'admitted', 'eng-alpha/b1': 'skipped' },
    assigned: { 'eng-alpha/c1': { cpu: 'on-demand' } },
    messages: { 'eng-alpha/b1': NO_LONGER_FITS },
    settled: true,
  },
  {
    name: 'with fair sharing: preempt workload from CQ with the highest share', line: 2265,
    clusterQueues: [clusterQueue('eng-gamma', { cohort: 'eng', groups: [[['on-demand', { cpu: ['50', '0'] }]]] })],
    localQueues: [localQueue('main', 'eng-gamma', 'eng-gamma')],
    // All admitted at the same time upstream, so candidates of one priority go by UID (alpha1 < ... < gamma4; UID = name),
    // after "most recently admitted first" (ordering.go CandidatesOrdering). The plan admits them one arrival after the
    // other, the last the most recent: they arrive in reverse UID order, so that the two orders are the same.
    admitted: [
      ...[4, 3, 2].map((i) => [workload(`eng-gamma/gamma${i}`, 'main', '20'), { cpu: 'on-demand' }] as const),
      [workload('eng-gamma/gamma1', 'main', '10'), { cpu: 'on-demand' }],
      ...[4, 3, 2, 1].map((i) => [workload(`eng-alpha/alpha${i}`, 'main', '20'), { cpu: 'on-demand' }] as const),
      [workload('eng-alpha/all_spot', 'main', '100'), { cpu: 'spot' }],
    ],
    pending: [workload('eng-beta/preemptor', 'main', '30')],
    cycle: { 'eng-beta/preemptor': 'preempting' },
    preempted: { 'eng-beta/preemptor': ['eng-alpha/alpha1:InCohortReclamation', 'eng-gamma/gamma1:InCohortReclamation'] },
  },
  {
    name: 'multiple preemptions within cq when fair sharing', line: 2449,
    // Preemption{WithinClusterQueue: LowerPriority}: reclaimWithinCohort is '' (see CQ.within), so a preemptor that would
    // borrow may still preempt (canPreemptWhileBorrowing). With the API's default Never, fitsResourceQuota
    // (flavorassigner.go:1371) finds no preemption possible (3 CPU over a nominal of 2, the cohort full): NoFit.
    clusterQueues: [
      ...['alpha', 'beta', 'gamma'].map((n) => clusterQueue(`other-${n}`, { cohort: 'other', within: 'LowerPriority',
        groups: [[['default', { cpu: '2' }]]] })),
      clusterQueue('resource-bank', { cohort: 'other', groups: [[['default', { cpu: '3' }]]] }),
    ],
    localQueues: ['alpha', 'beta', 'gamma'].map((n) => localQueue('other', `eng-${n}`, `other-${n}`)),
    admitted: [
      [workload('eng-alpha/a1', 'other', '3'), { cpu: 'default' }],
      [workload('eng-beta/b1', 'other', '3'), { cpu: 'default' }],
      [workload('eng-gamma/c1', 'other', '3'), { cpu: 'default' }],
    ],
    pending: ['alpha', 'beta', 'gamma'].map((n) => workload(`eng-${n}/preemptor`, 'other', '3', 100)),
    cycle: { 'eng-alpha/preemptor': 'preempting', 'eng-beta/preemptor': 'preempting', 'eng-gamma/preemptor': 'preempting' },
    preempted: {
      'eng-alpha/preemptor': ['eng-alpha/a1:InClusterQueue'], 'eng-beta/preemptor': ['eng-beta/b1:InClusterQueue'],
      'eng-gamma/preemptor': ['eng-gamma/c1:InClusterQueue'],
    },
  },
  {
    name: 'multiple preemptions skip overlapping preemption targets', line: 2723,
    clusterQueues: [
      ...['alpha', 'beta', 'gamma'].map((n) => clusterQueue(`other-${n}`, { cohort: 'other', within: 'LowerPriority', reclaim: 'Any',
        groups: [[['default', { cpu: '0', [`${n}-resource`]: '1' }]]] })),
      clusterQueue('resource-bank', { cohort: 'other', groups: [[['default', { cpu: '9' }]]] }),
    ],
    localQueues: ['alpha', 'beta', 'gamma'].map((n) => localQueue('other', `eng-${n}`, `other-${n}`)),
    admitted: [
      [workload('eng-alpha/a1', 'other', { 'alpha-resource': '1' }), { 'alpha-resource': 'default' }],
      [workload('eng-beta/b1', 'other', { 'beta-resource': '1' }), { 'beta-resource': 'default' }],
      // Its admission assigns cpu alone: gamma-resource, without a flavor, holds no quota (in Kueue's cache as in the plan).
      [workload('eng-gamma/c1', 'other', { cpu: '9', 'gamma-resource': '1' }), { cpu: 'default' }],
    ],
    pending: [
      workload('eng-alpha/preemptor', 'other', { cpu: '3', 'alpha-resource': '1' }, 100),
      workload('eng-beta/pretending-preemptor', 'other', { cpu: '3', 'beta-resource': '1' }, 99),
    ],
    cycle: { 'eng-alpha/preemptor': 'preempting', 'eng-beta/pretending-preemptor': 'skipped' },
    preempted: { 'eng-alpha/preemptor': ['eng-alpha/a1:InClusterQueue', 'eng-gamma/c1:InCohortFairSharing'] },
    messages: { 'eng-beta/pretending-preemptor': 'Workload has overlapping preemption targets with another workload' },
  },
  {
    name: 'not enough resources with fair sharing enabled', line: 2963,
    pending: [workload('sales/new', 'main', '100')],
    cycle: { 'sales/new': 'pending' },
    messages: { 'sales/new': 'couldn\'t assign flavors to pod set head: insufficient quota for cpu in flavor default, previously considered '
      + 'podsets requests (0) + current podset request (100) > maximum capacity (50)' },
    settled: true,
  },
  {
    name: 'with fair sharing: prefer reclamation over cq priority based preemption; with preemption while borrowing', line: 3005,
    clusterQueues: [
      clusterQueue('other-alpha', { cohort: 'other', within: 'LowerPriority', reclaim: 'LowerPriority',
        groups: [[['on-demand', { gpu: '7' }], ['spot', { gpu: '7' }]]] }),
      clusterQueue('other-beta', { cohort: 'other', groups: [[['on-demand', { gpu: '3' }], ['spot', { gpu: '3' }]]] }),
    ],
    localQueues: [localQueue('other', 'eng-alpha', 'other-alpha'), localQueue('other', 'eng-beta', 'other-beta')],
    admitted: [
      [workload('eng-alpha/a1', 'other', { gpu: '5' }, 50), { gpu: 'on-demand' }],
      [workload('eng-beta/b1', 'other', { gpu: '5' }, 50), { gpu: 'spot' }],
    ],
    pending: [workload('eng-alpha/preemptor', 'other', { gpu: '8' }, 100)],
    cycle: { 'eng-alpha/preemptor': 'preempting' },
    preempted: { 'eng-alpha/preemptor': ['eng-beta/b1:InCohortFairSharing'] },
  },
  ...([true, false] as const).map((fs): Case => ({
    name: fs ? 'prefer flavor with most local capacity' : 'prefer flavor with most local capacity (FS=false)', line: fs ? 3129 : 3244,
    ...(fs ? {} : { fairSharing: false as const }),
    cohorts: [
      cohort('root-cohort', { groups: [[['on-demand', { gpu: '2' }], ['spot', { gpu: '0' }]]] }),
      cohort('child-cohort', { parent: 'root-cohort', groups: [[['on-demand', { gpu: '5' }], ['spot', { gpu: '7' }]]] }),
    ],
    clusterQueues: [clusterQueue('queue1', { cohort: 'child-cohort', within: 'LowerPriority', reclaim: 'Any',
      fungibility: { whenCanPreempt: 'TryNextFlavor', whenCanBorrow: 'TryNextFlavor' },
      groups: [[['on-demand', { gpu: '3' }], ['spot', { gpu: '3' }]]] })],
    localQueues: [localQueue('queue1', 'default', 'queue1')],
    admitted: [
      [workload('default/a1', 'queue1', { gpu: '8' }), { gpu: 'on-demand' }],
      [workload('default/a2', 'queue1', { gpu: '3' }), { gpu: 'spot' }],
    ],
    pending: [workload('default/a3', 'queue1', { gpu: '1' })],
    cycle: { 'default/a3': 'admitted' },
    assigned: { 'default/a3': { gpu: 'spot' } },
    settled: true,
  })),
  {
    name: 'fair sharing: in-CQ preemption for CQ without cohort; repro for nil pointer panic', line: 3359,
    clusterQueues: [clusterQueue('no-cohort-cq', { within: 'LowerPriority', groups: [[['default', { cpu: '4' }]]] })],
    localQueues: [localQueue('no-cohort-queue', 'default', 'no-cohort-cq')],
    admitted: [[workload('default/nc-low', 'no-cohort-queue', '4', -1), { cpu: 'default' }]],
    pending: [workload('default/nc-high', 'no-cohort-queue', '4', 100)],
    cycle: { 'default/nc-high': 'preempting' },
    preempted: { 'default/nc-high': ['default/nc-low:InClusterQueue'] },
  },
  {
    name: 'PreemptionOverBorrowing with fair sharing: preempt in first flavor instead of borrowing in second', line: 3464,
    clusterQueues: [
      clusterQueue('fs-pob-cq', { cohort: 'fs-pob-cohort', weight: '1', within: 'LowerPriority',
        fungibility: { whenCanBorrow: 'TryNextFlavor', whenCanPreempt: 'TryNextFlavor', preference: 'PreemptionOverBorrowing' },
        groups: [[['on-demand', { cpu: ['5', '0'] }], ['spot', { cpu: ['0', '5'] }]]] }),
      clusterQueue('fs-pob-lender', { cohort: 'fs-pob-cohort', weight: '1', groups: [[['on-demand', { cpu: '0' }], ['spot', { cpu: '5' }]]] }),
    ],
    localQueues: [localQueue('fs-pob-queue', 'default', 'fs-pob-cq')],
    admitted: [[workload('default/fs-low-pob', 'fs-pob-queue', '5', -1), { cpu: 'on-demand' }]],
    pending: [workload('default/fs-high-pob', 'fs-pob-queue', '5')],
    cycle: { 'default/fs-high-pob': 'preempting' },
    preempted: { 'default/fs-high-pob': ['default/fs-low-pob:InClusterQueue'] },
  },
];

// ---- the comparison ----

const key = (ref: string) => ref.replace(/^RayCluster /, '');

function plan(c: Case): PlanResult {
  const given = c.admitted ?? [];
  const arrivals = [...given.map(([w]) => w), ...c.pending];
  return simulatePlan({
    kueueObjects: [...SUITE, ...(c.cohorts ?? []), ...(c.clusterQueues ?? []), ...(c.localQueues ?? [])],
    arrivals: arrivals as any, kueueVersion: V, kueueConfig: config(c.fairSharing ?? true), queuedAtStart: arrivals.length,
    admitted: given.map(([, flavors]) => ({ podSets: [{ name: 'head', flavors }] })),
  });
}

describe('TestScheduleForFairSharing (v0.19.2), through the plan', () => {
  test('22 upstream cases, all translated', () => {
    expect(CASES.length).toBe(22);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(22);
  });

  test.each(CASES.map((c) => [`${c.name} (line ${c.line})`, c] as const))('%s', (_, c) => {
    const p = plan(c);
    const byKey = new Map(p.workloads.map((w) => [key(w.workload), w]));
    const first = p.trace[0];
    expect(first.cycle).toBe(1);
    // The admitted workloads hold their quota from the start (their ClusterQueue found through their LocalQueue), are no
    // heads, and keep their flavors unless preempted.
    for (const [w, flavors] of c.admitted ?? []) {
      const got = byKey.get(`${w.metadata.namespace}/${w.metadata.name}`)!;
      const events = got.events.map((e) => e.event);
      expect([got.workload, events.slice(0, 2)]).toEqual([got.workload, ['arrived', 'admitted']]);
      expect(first.candidates.map((x) => x.workload)).not.toContain(got.workload);
      if (!events.includes('preempted')) expect([got.workload, got.admission?.[0]?.flavors]).toEqual([got.workload, flavors]);
    }
    // The first cycle: the heads it looked at and what it did with each.
    expect(Object.fromEntries(first.candidates.map((x) => [key(x.workload), x.result]))).toEqual(c.cycle);
    for (const [ref, message] of Object.entries(c.messages ?? {})) {
      const line = first.candidates.find((x) => key(x.workload) === ref)!;
      expect([ref, line.detail]).toEqual([ref, expect.stringContaining(message)]);
    }
    // wantAssignments: what the cycle admitted, with its flavors (still admitted at the end).
    for (const [ref, flavors] of Object.entries(c.assigned ?? {})) {
      const w = byKey.get(ref)!;
      expect([ref, w.outcome, w.admission?.[0]?.flavors]).toEqual([ref, 'admitted', flavors]);
    }
    // The victims: released at the end of the cycle, each with Kueue's reason; their preemptor is admitted once they are gone.
    const victims = Object.values(c.preempted ?? {}).flat().map((v) => v.split(':')[0]);
    expect(first.released.map(key).sort()).toEqual(victims.sort());
    for (const [ref, want] of Object.entries(c.preempted ?? {})) {
      const w = byKey.get(ref)!;
      expect([ref, w.outcome, w.preempted?.map((v) => `${key(v.workload)}:${v.reason}`).sort()])
        .toEqual([ref, 'admitted-by-preempting', [...want].sort()]);
      for (const v of want) expect(byKey.get(v.split(':')[0])!.preemptedBy?.map(key)).toContain(ref);
    }
    // Where nothing changes after the first cycle, what it left is still pending at the end (never-admissible: the plan's
    // word for a workload over its ClusterQueue's maximum capacity, which Kueue keeps pending).
    if (c.settled) {
      for (const [ref, result] of Object.entries(c.cycle)) {
        const left = expect.stringMatching(/^(pending|never-admissible)$/);
        expect([ref, byKey.get(ref)!.outcome]).toEqual([ref, result === 'admitted' ? 'admitted' : left]);
      }
    }
  });
});
