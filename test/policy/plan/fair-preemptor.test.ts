/**
 * Fair-sharing preemption against Kueue's own tests (issue 44, stage 4): TestFairPreemptions (35 cases) and
 * TestFairPreemptionSkipsUnsatisfiableTournament (2) of
 * pkg/scheduler/preemption/preemption_fair_test.go at v0.19.2, case by case. Each case sets up the same
 * ClusterQueues, Cohorts and admitted workloads (all admitted at the same moment, so candidates that tie are
 * ordered by name, as the upstream test sets UID = name), asks the preemptor for the targets of the incoming
 * workload in its ClusterQueue, and compares the victims and their reasons.
 */
import { Preemptor } from '../../../src/policy/plan/preemptor';
import { FairSharingStrategy, kueueConfigOf } from '../../../src/policy/plan/kueue-config';
import { simulatePlan } from '../../../src/policy/plan';
import { CONFIG_V1BETA1, CONFIG_V1BETA2, kueueCapabilities } from '../../../src/policy/versions';
import { fairSharingLoopScenario } from './fair-sharing-scenarios';
import { admit, B, fixture } from './fixtures';
import { localQueue, rayCluster } from './scenarios';

const API = 'kueue.x-k8s.io/v1beta2';
const BOTH: FairSharingStrategy[] = ['LessThanOrEqualToFinalShare', 'LessThanInitialShare'];

/**
 * A ClusterQueue: `cpu` is the nominal quota of the "default" flavor, `flavors` (flavor: nominal cpu) a resource group of other
 * flavors instead; with neither the ClusterQueue has no resource group.
 */
interface CQ { readonly cohort?: string; readonly cpu?: string; readonly flavors?: Readonly<Record<string, string>>;
  readonly within?: string; readonly reclaim?: string; readonly weight?: string;
  readonly borrowingLimit?: string; readonly lendingLimit?: string; readonly borrowWithinCohort?: boolean }
interface CohortSpec { readonly parent?: string; readonly cpu?: string; readonly weight?: string }

const cqObject = (name: string, s: CQ) => ({
  apiVersion: API, kind: 'ClusterQueue', metadata: { name },
  spec: {
    namespaceSelector: {}, ...(s.cohort ? { cohortName: s.cohort } : {}),
    preemption: {
      withinClusterQueue: s.within ?? 'Never', reclaimWithinCohort: s.reclaim ?? 'Never',
      ...(s.borrowWithinCohort ? { borrowWithinCohort: { policy: 'LowerPriority', maxPriorityThreshold: -3 } } : {}),
    },
    ...(s.weight !== undefined ? { fairSharing: { weight: s.weight } } : {}),
    ...(s.flavors ? { resourceGroups: [{ coveredResources: ['cpu'],
      flavors: Object.entries(s.flavors).map(([name, cpu]) => ({ name, resources: [{ name: 'cpu', nominalQuota: cpu }] })) }] } : {}),
    ...(!s.flavors && s.cpu !== undefined ? { resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'default', resources: [{
      name: 'cpu', nominalQuota: s.cpu,
      ...(s.borrowingLimit ? { borrowingLimit: s.borrowingLimit } : {}), ...(s.lendingLimit ? { lendingLimit: s.lendingLimit } : {}) }] }] }] } : {}),
  },
});
const cohortObject = (name: string, s: CohortSpec) => ({
  apiVersion: API, kind: 'Cohort', metadata: { name },
  spec: { ...(s.parent ? { parentName: s.parent } : {}), ...(s.weight !== undefined ? { fairSharing: { weight: s.weight } } : {}),
    ...(s.cpu ? { resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ name: 'default', resources: [{ name: 'cpu', nominalQuota: s.cpu }] }] }] }
      : {}) },
});

/** The upstream baseCQs: a, b and c with 3 CPU (LowerPriority within, Any reclaim, borrowWithinCohort LowerPriority up to -3), preemptible with 0. */
const BASE: Record<string, CQ> = {
  a: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any', borrowWithinCohort: true },
  b: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any', borrowWithinCohort: true },
  c: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any', borrowWithinCohort: true },
  preemptible: { cohort: 'all', cpu: '0' },
};

/** An admitted workload: [name, ClusterQueue, cpu, priority, flavor ("default" if absent)]. */
type Admitted = readonly [string, string, string, number?, string?];

interface Case {
  readonly name: string;
  /** Line of the case in preemption_fair_test.go at v0.19.2. */
  readonly line: number;
  readonly queues?: Record<string, CQ>;
  readonly cohorts?: Record<string, CohortSpec>;
  readonly strategies?: FairSharingStrategy[];
  /** The ResourceFlavors (upstream `flavors`), ["default"] if absent. */
  readonly flavors?: readonly string[];
  /** The flavor of the incoming workload's cpu (upstream `assignmentFlavor`), "default" if absent. */
  readonly assignmentFlavor?: string;
  readonly admitted: readonly Admitted[];
  /** [ClusterQueue, cpu, priority]. */
  readonly incoming: readonly [string, string, number?];
  /** "name:Reason" per victim. */
  readonly want: readonly string[];
}

const unit = (name: string, q: string, priority?: number, flavor?: string): Admitted => [name, q, '1', priority, flavor];

/**
 * The targets of the case's incoming workload. `admittedAt`: when each admitted workload was admitted (all at once if
 * absent); `ties` collects the candidate pairs only a UID separates, as the preemptor reports them.
 */
function targetsOf(c: Case, admittedAt?: (name: string) => number, ties?: string[]): string[] {
  const queues = c.queues ?? BASE;
  const priorities = [...new Set([...c.admitted.map((a) => a[3] ?? 0), c.incoming[2] ?? 0])];
  const pc = (p: number) => `p${p < 0 ? 'm' : ''}${Math.abs(p)}`;
  const objects = [...(c.flavors ?? ['default']).map((name) => ({ apiVersion: API, kind: 'ResourceFlavor', metadata: { name }, spec: {} })),
    ...priorities.map((p) => ({ apiVersion: API, kind: 'WorkloadPriorityClass', metadata: { name: pc(p) }, value: p })),
    ...Object.entries(c.cohorts ?? {}).map(([n, s]) => cohortObject(n, s)), ...Object.entries(queues).map(([n, s]) => cqObject(n, s)),
    ...Object.keys(queues).map((n) => localQueue(B, `lq-${n}`, n))];
  // Ties on everything but the UID go by name upstream (UID = name): the arrival number follows the names.
  const admitted = [...c.admitted].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const arrivals = [...admitted.map(([n, q, cpu, p]) => rayCluster(n, { lq: `lq-${q}`, headCpu: cpu, priority: pc(p ?? 0) })),
    rayCluster('incoming', { lq: `lq-${c.incoming[0]}`, headCpu: c.incoming[1], priority: pc(c.incoming[2] ?? 0) })];
  const { snapshot, workloads } = fixture(objects, arrivals);
  for (const [n, , , , flavor] of admitted) admit(snapshot, workloads.get(n)!, flavor ?? 'default', admittedAt?.(n) ?? 0);
  const preemptor = new Preemptor(snapshot, false, (a, b) => ties?.push(`${a.name}~${b.name}`),
    { strategies: c.strategies ?? BOTH, arithmetic: 'float', withinNominalBypass: true });
  const w = workloads.get('incoming')!;
  const flavor = c.assignmentFlavor ?? 'default';
  const id = snapshot.flavorResourceOf(flavor, 'cpu');
  const value = [...snapshot.usageOf(w.podSets, w.podSets.map(() => new Map([['cpu', flavor]]))).values()][0];
  const nodes = [...snapshot.clusterQueues.values(), ...snapshot.cohorts.values()];
  const versions = () => nodes.map((n) => `${n.usageVersion}/${n.treeVersion}`);
  const before = versions();
  const targets = preemptor.getTargets(w, w.clusterQueue!, [id], [id], [value], undefined).map((t) => `${t.workload.name}:${t.reason}`).sort();
  // The bound and the search put back what they took, and the versions with it: what is kept per version stays valid.
  expect(versions()).toEqual(before);
  return targets;
}

const CASES: Case[] = [
  { name: 'reclaim nominal from user using the most', line: 108,
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('b4', 'b'),
      unit('b5', 'b'), unit('c1', 'c')],
    incoming: ['c', '1'], want: ['b1:InCohortReclamation'] },
  { name: 'can reclaim from queue using less, if taking the latest workload from user using the most isn\'t enough', line: 125,
    admitted: [['a1', 'a', '3'], ['a2', 'a', '1'], ['b1', 'b', '2'], ['b2', 'b', '3']],
    incoming: ['c', '3'], want: ['a1:InCohortReclamation'] },
  { name: 'reclaim borrowable quota from user using the most', line: 137,
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('b4', 'b'),
      unit('b5', 'b'), unit('c1', 'c')],
    incoming: ['a', '1'], want: ['b1:InCohortFairSharing'] },
  { name: 'preempt one from each CQ borrowing', line: 154,
    admitted: [['a1', 'a', '0.5'], ['a2', 'a', '0.5'], ['a3', 'a', '3'], ['b1', 'b', '0.5'], ['b2', 'b', '0.5'], ['b3', 'b', '3']],
    incoming: ['c', '2'], want: ['a1:InCohortReclamation', 'b1:InCohortReclamation'] },
  { name: 'can\'t preempt when everyone under nominal', line: 171,
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('c1', 'c'),
      unit('c2', 'c'), unit('c3', 'c')],
    incoming: ['c', '1'], want: [] },
  { name: 'can\'t preempt when it would switch the imbalance', line: 187,
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('b4', 'b'),
      unit('b5', 'b')],
    incoming: ['a', '2'], want: [] },
  { name: 'can preempt lower priority workloads from same CQ', line: 202,
    admitted: [unit('a1_low', 'a', -1), unit('a2_low', 'a', -1), unit('a3', 'a'), unit('a4', 'a'), unit('b1', 'b'), unit('b2', 'b'),
      unit('b3', 'b'), unit('b4', 'b'), unit('b5', 'b')],
    incoming: ['a', '2'], want: ['a1_low:InClusterQueue', 'a2_low:InClusterQueue'] },
  { name: 'can preempt a combination of same CQ and highest user', line: 222,
    admitted: [unit('a_low', 'a', -1), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('b4', 'b'),
      unit('b5', 'b'), unit('b6', 'b')],
    incoming: ['a', '2'], want: ['a_low:InClusterQueue', 'b1:InCohortFairSharing'] },
  { name: 'preempt huge workload if there is no other option, as long as the target CQ gets a lower share', line: 242,
    admitted: [['b1', 'b', '9']], incoming: ['a', '2'], want: ['b1:InCohortReclamation'] },
  { name: 'can\'t preempt huge workload if the incoming is also huge', line: 251,
    admitted: [['a1', 'a', '2'], ['b1', 'b', '7']], incoming: ['a', '5'], want: [] },
  { name: 'can\'t preempt 2 smaller workloads if the incoming is huge', line: 260,
    admitted: [['b1', 'b', '2'], ['b2', 'b', '2'], ['b3', 'b', '3']], incoming: ['a', '6'], want: [] },
  { name: 'preempt from target and others even if over nominal', line: 270,
    admitted: [['a1_low', 'a', '2', -1], ['a2_low', 'a', '1', -1], ['b1', 'b', '3'], ['b2', 'b', '3']],
    incoming: ['a', '4'], want: ['a1_low:InClusterQueue', 'b1:InCohortFairSharing'] },
  { name: 'prefer to preempt workloads that don\'t make the target CQ have the biggest share', line: 285,
    admitted: [['b1', 'b', '2'], ['b2', 'b', '1'], ['b3', 'b', '2'], ['c1', 'c', '1']],
    incoming: ['a', '3.5'], want: ['b2:InCohortFairSharing'] },
  { name: 'preempt from different cluster queues if the end result has a smaller max share', line: 298,
    admitted: [['b1', 'b', '2'], ['b2', 'b', '2.5'], ['c1', 'c', '2'], ['c2', 'c', '2.5']],
    incoming: ['a', '3.5'], want: ['b1:InCohortFairSharing', 'c1:InCohortFairSharing'] },
  { name: 'scenario above does not flap', line: 313,
    admitted: [['a1', 'a', '3.5'], ['b2', 'b', '2.5'], ['c2', 'c', '2.5']], incoming: ['b', '2'], want: [] },
  { name: 'cannot preempt if it would make the candidate CQ go under nominal after preempting one element', line: 323,
    admitted: [['b1', 'b', '3'], ['b2', 'b', '3'], ['c1', 'c', '3']], incoming: ['a', '4'], want: [] },
  { name: 'workloads under priority threshold not capriciously preempted', line: 338,
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'),
      unit('preemptible1', 'preemptible', -3), unit('preemptible2', 'preemptible', -3), unit('preemptible3', 'preemptible', -3)],
    incoming: ['a', '2'], want: [] },
  { name: 'preempt lower priority first, even if big', line: 355, strategies: ['LessThanInitialShare'],
    admitted: [['a1', 'a', '3'], ['b_low', 'b', '5', 0], ['b_high', 'b', '1', 1]], incoming: ['a', '1'], want: ['b_low:InCohortFairSharing'] },
  { name: 'preempt workload that doesn\'t transfer the imbalance, even if high priority', line: 367, strategies: ['LessThanOrEqualToFinalShare'],
    admitted: [['a1', 'a', '3'], ['b_low', 'b', '5', 0], ['b_high', 'b', '1', 1]], incoming: ['a', '1'], want: ['b_high:InCohortFairSharing'] },
  { name: 'CQ with higher weight can preempt more', line: 379,
    queues: { a: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any', weight: '2' },
      b: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any' },
      c: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any' } },
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('b4', 'b'),
      unit('b5', 'b'), unit('b6', 'b')],
    incoming: ['a', '2'], want: ['b1:InCohortFairSharing', 'b2:InCohortFairSharing'] },
  { name: 'can preempt anything borrowing from CQ with 0 weight', line: 428,
    queues: { a: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any' },
      b: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any', weight: '0' },
      c: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any' } },
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b'), unit('b4', 'b'),
      unit('b5', 'b'), unit('b6', 'b')],
    incoming: ['a', '3'], want: ['b1:InCohortFairSharing', 'b2:InCohortFairSharing', 'b3:InCohortFairSharing'] },
  { name: 'can\'t preempt nominal from CQ with 0 weight', line: 478,
    queues: { a: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any' },
      b: { cohort: 'all', cpu: '3', within: 'LowerPriority', reclaim: 'Any', weight: '0' } },
    admitted: [unit('a1', 'a'), unit('a2', 'a'), unit('a3', 'a'), unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b')],
    incoming: ['a', '1'], want: [] },
  { name: 'can\'t preempt nominal from Cohort with 0 weight', line: 511,
    queues: { 'left-cq': { cohort: 'root', cpu: '0', reclaim: 'Any' },
      'right-cq': { cohort: 'right-cohort', cpu: '0', reclaim: 'Any', weight: '0' } },
    cohorts: { 'right-cohort': { parent: 'root', weight: '0', cpu: '1' } },
    admitted: [unit('right-1', 'right-cq')],
    incoming: ['left-cq', '1'], want: [] },
  { name: 'can preempt within cluster queue when no cohort', line: 545,
    queues: { a: { cpu: '1', within: 'LowerPriority' } },
    admitted: [unit('a1', 'a')],
    incoming: ['a', '1', 1000], want: ['a1:InClusterQueue'] },
  { name: 'hierarchical preemption', line: 581,
    queues: { a: { cohort: 'LEFT', weight: '2', cpu: '1', reclaim: 'Any' }, b: { cohort: 'LEFT', cpu: '1' }, c: { cohort: 'ROOT', cpu: '1' },
      d: { cohort: 'RIGHT', cpu: '1' }, e: { cohort: 'RIGHT', weight: '0.99', cpu: '1' } },
    cohorts: { ROOT: { cpu: '5' }, LEFT: { weight: '2', parent: 'ROOT', cpu: '5' }, RIGHT: { parent: 'ROOT', cpu: '5' } },
    admitted: ['b', 'c', 'd', 'e'].flatMap((q) => [1, 2, 3, 4, 5].map((p) => unit(`${q}${p}`, q, p))),
    incoming: ['a', '5'],
    want: ['b1:InCohortFairSharing', 'b2:InCohortFairSharing', 'c1:InCohortFairSharing', 'c2:InCohortFairSharing', 'e1:InCohortFairSharing'] },
  { name: 'borrowing cq in non-borrowing cohort is protected', line: 675,
    queues: { a: { cohort: 'ROOT', weight: '10', cpu: '5', reclaim: 'Any', within: 'LowerPriority' }, b: { cohort: 'RIGHT', weight: '0.1' } },
    cohorts: { ROOT: {}, RIGHT: { parent: 'ROOT', weight: '0.1', cpu: '1' } },
    admitted: [unit('a1', 'a', -1), unit('a2', 'a', -1), unit('a3', 'a', -1), unit('b1', 'b', -1)],
    incoming: ['a', '5'], want: ['a1:InClusterQueue', 'a2:InClusterQueue', 'a3:InClusterQueue'] },
  { name: 'forced to preempt within clusterqueue because borrowing workload too important', line: 723,
    queues: { a: { cohort: 'ROOT', weight: '10', cpu: '5', reclaim: 'LowerPriority', within: 'LowerPriority' },
      b: { cohort: 'RIGHT', weight: '0.1' } },
    cohorts: { ROOT: {}, RIGHT: { parent: 'ROOT', weight: '0.1', cpu: '3' } },
    admitted: [unit('a1', 'a', -1), unit('a2', 'a', -1), unit('a3', 'a', -1), ['b1', 'b', '4', 100]],
    incoming: ['a', '4'], want: ['a1:InClusterQueue', 'a2:InClusterQueue', 'a3:InClusterQueue'] },
  { name: 'deep preemption', line: 776,
    queues: { a: { cohort: 'AAA', cpu: '0', reclaim: 'Any' }, b: { cohort: 'BBB', cpu: '0' } },
    cohorts: { ROOT: {}, A: { parent: 'ROOT', weight: '1.01' }, AA: { parent: 'A' }, AAA: { parent: 'AA' }, B: { parent: 'ROOT', weight: '0.99' },
      BB: { parent: 'B' }, BBB: { parent: 'BB' }, C: { parent: 'ROOT' }, CC: { parent: 'C' }, CCC: { parent: 'CC' },
      CCCC: { parent: 'CCC', cpu: '1' } },
    admitted: [unit('b1', 'b')],
    incoming: ['a', '1'], want: ['b1:InCohortFairSharing'] },
  { name: 'cq with zero weight can reclaim nominal quota', line: 832,
    queues: { a: { cohort: 'ROOT', weight: '0.0', cpu: '1', reclaim: 'Any' }, b: { cohort: 'ROOT', cpu: '0', weight: '1.0' } },
    admitted: [unit('b1', 'b')],
    incoming: ['a', '1'], want: ['b1:InCohortReclamation'] },
  { name: 'cohort with zero weight can reclaim nominal quota', line: 859,
    queues: { a: { cohort: 'A', weight: '0.0', cpu: '0', reclaim: 'Any' }, b: { cohort: 'ROOT', cpu: '0', weight: '1.0' } },
    cohorts: { A: { parent: 'ROOT', weight: '0.0', cpu: '1' } },
    admitted: [unit('b1', 'b')],
    incoming: ['a', '1'], want: ['b1:InCohortFairSharing'] },
  // a's FlavorFungibility (MayStopSearch when it can borrow or preempt) is left out: Kueue's preemptor does not read it.
  { name: 'nominal first: workload fitting within nominal can preempt despite high aggregate DRS', line: 903,
    flavors: ['premium', 'cheap'], assignmentFlavor: 'premium',
    queues: { a: { cohort: 'all', flavors: { premium: '3', cheap: '0' }, reclaim: 'Any' },
      b: { cohort: 'all', flavors: { premium: '0', cheap: '6' } } },
    admitted: [unit('a_prem1', 'a', undefined, 'premium'), unit('a_prem2', 'a', undefined, 'premium'),
      ...[1, 2, 3, 4, 5].map((i) => unit(`a_cheap${i}`, 'a', undefined, 'cheap')), unit('b_prem1', 'b', undefined, 'premium')],
    incoming: ['a', '1'], want: ['b_prem1:InCohortReclamation'] },
  { name: 'zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight', line: 951,
    queues: { a: { cohort: 'all', weight: '0', cpu: '1', reclaim: 'Any' }, b: { cohort: 'all', weight: '1', cpu: '1' } },
    admitted: [unit('a1', 'a'), unit('b1', 'b'), unit('b2', 'b')],
    incoming: ['a', '1'], want: [] },
  { name: 'zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight', line: 982,
    cohorts: { all: { cpu: '3' } },
    queues: { a: { cohort: 'all', weight: '0', cpu: '1', reclaim: 'Any' }, b: { cohort: 'all', weight: '0', cpu: '0' } },
    admitted: [unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b')],
    incoming: ['a', '2'], want: ['b1:InCohortFairSharing'] },
  { name: 'non-zero weight borrowing preemptor preempts from a borrowing CQ', line: 1019,
    cohorts: { all: { cpu: '3' } },
    queues: { a: { cohort: 'all', weight: '1', cpu: '1', reclaim: 'Any' }, b: { cohort: 'all', weight: '1', cpu: '0' } },
    admitted: [unit('b1', 'b'), unit('b2', 'b'), unit('b3', 'b')],
    incoming: ['a', '2'], want: ['b1:InCohortFairSharing'] },
  { name: 'candidates skipped by the first strategy are still available to the second strategy', line: 1065,
    cohorts: { A: { parent: 'ROOT', weight: '0', cpu: '1' } },
    queues: { p: { cohort: 'A', cpu: '2', weight: '1', reclaim: 'Any' }, y: { cohort: 'A', cpu: '2', weight: '1' },
      x: { cohort: 'ROOT', cpu: '1', weight: '1' } },
    admitted: [['p1', 'p', '2'], ['y1', 'y', '2'], ['y2', 'y', '2'], unit('x1', 'x'), unit('x2', 'x')],
    incoming: ['p', '1'], want: ['x1:InCohortFairSharing', 'y1:InCohortFairSharing'] },
  // TestFairPreemptionSkipsUnsatisfiableTournament (same file): both cases expect no target; their counts of log lines are not translated.
  { name: 'zero weight preemptor: share is +Inf and the tournament is skipped', line: 1204,
    queues: { a: { cohort: 'all', weight: '0', cpu: '1', reclaim: 'Any' }, b: { cohort: 'all', weight: '1', cpu: '1' } },
    admitted: [unit('a1', 'a'), unit('b1', 'b'), unit('b2', 'b')],
    incoming: ['a', '1'], want: [] },
  { name: 'non-zero weight preemptor: share is finite so the tournament runs', line: 1212,
    queues: { a: { cohort: 'all', weight: '1', cpu: '1', reclaim: 'Any' }, b: { cohort: 'all', weight: '1', cpu: '1' } },
    admitted: [unit('a1', 'a'), unit('b1', 'b'), unit('b2', 'b')],
    incoming: ['a', '1'], want: [] },
];

describe('fair-sharing preemption: Kueue v0.19.2 TestFairPreemptions and TestFairPreemptionSkipsUnsatisfiableTournament', () => {
  test.each(CASES)('$name (preemption_fair_test.go:$line)', (c) => {
    expect(targetsOf(c)).toEqual([...c.want].sort());
  });
});

describe('the first strategy over a ClusterQueue none of whose candidates it passes', () => {
  // a takes 1 CPU over its nominal 3; b borrows 3 in two workloads of 3. Removing either leaves b borrowing nothing, below a's
  // share: LessThanOrEqualToFinalShare passes none, so every candidate of b goes on the retry list, and LessThanInitialShare
  // (a's 1 borrowed below b's 3) takes the list's first: b's first candidate, the most recently admitted.
  const c: Case = { name: 'two large candidates', line: 0, admitted: [['a1', 'a', '3'], ['b1', 'b', '3'], ['b2', 'b', '3']],
    incoming: ['a', '1'], want: [] };

  test('the second strategy takes the first of b\'s candidates in order: the most recently admitted', () => {
    const ties: string[] = [];
    expect(targetsOf(c, (n) => ({ a1: 1, b1: 2, b2: 3 } as Record<string, number>)[n], ties)).toEqual(['b2:InCohortFairSharing']);
    expect(targetsOf(c, (n) => ({ a1: 1, b1: 3, b2: 2 } as Record<string, number>)[n], ties)).toEqual(['b1:InCohortFairSharing']);
    expect(ties).toEqual([]);
  });

  test('candidates admitted together are still reported as a tie (Kueue orders them by UID), and the first by UID is taken', () => {
    const ties: string[] = [];
    expect(targetsOf(c, (n) => (n === 'a1' ? 1 : 2), ties)).toEqual(['b1:InCohortFairSharing']);
    expect(ties).toEqual(['b1~b2']);
  });
});

describe('a fair-sharing preemption loop (kueue#14543), named', () => {
  test('on every modelled version: j2 preempts j1, which wins the next tournament, again; without fair sharing the plan settles', () => {
    for (const v of ['v0.13.4', 'v0.14.8', 'v0.17.0', 'v0.19.2']) {
      const caps = kueueCapabilities(v);
      const v2 = caps.configApiVersions.includes(CONFIG_V1BETA2);
      const kueueConfig = kueueConfigOf({ config: { apiVersion: v2 ? CONFIG_V1BETA2 : CONFIG_V1BETA1, kind: 'Configuration',
        fairSharing: v2 ? { preemptionStrategies: BOTH } : { enable: true } }, where: 'test' }, caps);
      const s = fairSharingLoopScenario(v);
      const fair = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: v, kueueConfig });
      expect(fair.ambiguities).toEqual(['arrival 2: fair-sharing preemption loop: RayCluster plan/j2 preempts RayCluster plan/j1 (3 times), and '
        + 'again; Kueue\'s fair-sharing preemption cycles like this for as long as they wait (kueue#14543: fillBackWorkloads puts back a '
        + 'preemptor\'s own victims after they made other workloads preemptible). The plan stops the loop here']);
      const classical = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: v });
      expect(classical.ambiguities).toEqual([]);
    }
  });
});
