/**
 * The flavor assigner on its own, with a stub preemption oracle: which flavor each PodSet gets, in
 * which mode, with which borrowing, and the reasons when none fits (taints, node affinity, maximum
 * capacity, uncovered resources). The last table pins a former disagreement with Kueue: no flavor
 * matching the workload is NoMatchingFlavor (never admissible), not a quota wait.
 */
import { FlavorResource } from '../../../src/policy/plan/quota-tree';
import { Assignment, briefOf, Granular, granular, NO_CANDIDATES, PREEMPT, PreemptionOracle } from '../../../src/policy/plan/assignment';
import { FlavorAssigner } from '../../../src/policy/plan/flavor-assigner';
import { assignmentMessage } from '../../../src/policy/plan/render';
import { ClusterQueue, Snapshot, Workload } from '../../../src/policy/plan/snapshot';
import { simulatePlan } from '../../../src/policy/plan';
import { admit, B, fixture, taintedFlavor, withScheduling } from './fixtures';
import { clusterQueue, CQSpec, flavor, localQueue, rayCluster, wpc } from './scenarios';

/** Answers every oracle call with `answer`; records the flavors it was asked about. */
class StubOracle implements PreemptionOracle {
  lastEndedAtBound = false;
  readonly asked: string[] = [];
  constructor(private readonly snapshot: () => Snapshot, private readonly answer: Granular, private readonly endsAtBound = false) {}
  simulatePreemption(_w: Workload, _cq: ClusterQueue, id: FlavorResource): Granular {
    this.asked.push(this.snapshot().flavorResourceNames[id].flavor);
    this.lastEndedAtBound = this.endsAtBound;
    return this.answer;
  }
}

const TAINT = { key: 'gpu', value: 'only', effect: 'NoSchedule' };
const TOLERATE = { key: 'gpu', operator: 'Equal', value: 'only', effect: 'NoSchedule' };

interface Case {
  readonly name: string;
  readonly flavors?: any[];
  readonly queue: CQSpec;
  /** A second ClusterQueue in the same cohort (to borrow from). */
  readonly lender?: CQSpec;
  /** CPU of a low-priority workload admitted before in the first flavor. */
  readonly used?: number;
  readonly cpu: number;
  /** CPU per worker of a worker group of one (a second PodSet asking for the same flavor/resource). */
  readonly workerCpu?: number;
  readonly scheduling?: { tolerations?: any[]; nodeSelector?: Record<string, string> };
  readonly gpu?: boolean;
  readonly oracle?: Granular;
  readonly endsAtBound?: boolean;
  readonly expected: Expected;
}

interface Expected {
  readonly mode: string;
  readonly flavors?: string;
  readonly borrowing?: number;
  readonly category?: string;
  readonly message?: string;
  readonly asked?: string[];
  readonly hopeless?: boolean;
}

function assign(c: Case): { a: Assignment; message: string; oracle: StubOracle; assigner: FlavorAssigner; w: Workload } {
  const head = withScheduling(rayCluster('w', { lq: 'lq', priority: 'high', headCpu: String(c.cpu),
    ...(c.workerCpu ? { workers: [{ name: 'workers', replicas: 1, cpu: String(c.workerCpu) }] } : {}) }), c.scheduling ?? {});
  if (c.gpu) head.spec.headGroupSpec.template.spec.containers[0].resources.requests['nvidia.com/gpu'] = '1';
  const arrivals = [head, ...(c.used ? [rayCluster('used', { lq: 'lq', priority: 'low', headCpu: String(c.used) })] : [])];
  const objects = [...(c.flavors ?? [flavor(B, 'f1'), flavor(B, 'f2')]), wpc(B, 'low', 10), wpc(B, 'high', 100),
    clusterQueue(B, 'cq', c.queue), localQueue(B, 'lq', 'cq'), ...(c.lender ? [clusterQueue(B, 'lender', c.lender)] : [])];
  const { snapshot, workloads } = fixture(objects, arrivals);
  if (c.used) admit(snapshot, workloads.get('used')!, c.queue.quotas[0].flavor);
  const oracle = new StubOracle(() => snapshot, c.oracle ?? granular(NO_CANDIDATES, 0), c.endsAtBound);
  const assigner = new FlavorAssigner(snapshot, oracle);
  const w = workloads.get('w')!;
  const a = assigner.assign(w);
  return { a, message: assignmentMessage(snapshot, briefOf(a, w.clusterQueue!)), oracle, assigner, w };
}

function summary(c: Case, r: ReturnType<typeof assign>): Expected {
  const { a, message, oracle } = r;
  const category = a.podSets.find((p) => p.category)?.category;
  const flavors = a.podSets.map((p) => `${p.name}:${[...new Set(p.flavors.map((f) => f.flavor))].join('+') || '-'}`).join(' ');
  return {
    mode: a.mode, flavors, ...(a.borrowing ? { borrowing: a.borrowing } : {}), ...(category ? { category } : {}), ...(message ? { message } : {}),
    ...(c.expected.asked ? { asked: oracle.asked } : {}),
    ...(c.expected.hopeless !== undefined ? { hopeless: a.podSets.some((p) => p.flavors.some((f) => f.hopeless)) } : {}),
  };
}

const TWO = (cpu1: string, cpu2: string, s: Partial<CQSpec> = {}): CQSpec =>
  ({ quotas: [{ flavor: 'f1', cpu: cpu1 }, { flavor: 'f2', cpu: cpu2 }], ...s });

describe('flavor assigner', () => {
  test.each<Case>([
    { name: 'the first flavor that fits', queue: TWO('4', '4'), cpu: 2, expected: { mode: 'Fit', flavors: 'head:f1' } },
    {
      name: 'a flavor too small is passed over, and its reason dropped once one fits',
      queue: TWO('1', '4'), cpu: 2, expected: { mode: 'Fit', flavors: 'head:f2' },
    },
    {
      name: 'more than any flavor can ever hold: NoFit at maximum capacity',
      queue: TWO('1', '1'), cpu: 2,
      expected: {
        mode: 'NoFit', flavors: 'head:-', category: 'max-capacity',
        message: 'couldn\'t assign flavors to pod set head: insufficient quota for cpu in flavor f1, previously considered podsets requests (0) '
          + '+ current podset request (2) > maximum capacity (1), insufficient quota for cpu in flavor f2, previously considered '
          + 'podsets requests (0) '
          + '+ current podset request (2) > maximum capacity (1)',
      },
    },
    {
      name: 'a resource the ClusterQueue does not cover',
      queue: TWO('4', '4'), cpu: 1, gpu: true,
      expected: { mode: 'NoFit', flavors: 'head:-', category: 'max-capacity',
        message: 'couldn\'t assign flavors to pod set head: resource nvidia.com/gpu unavailable in ClusterQueue' },
    },
    {
      name: 'borrowing in the first flavor stops the search (whenCanBorrow MayStopSearch)',
      queue: TWO('1', '3', { cohort: 'co' }), lender: TWO('3', '0', { cohort: 'co' }), cpu: 2,
      expected: { mode: 'Fit', flavors: 'head:f1', borrowing: 1 },
    },
    {
      name: 'whenCanBorrow TryNextFlavor takes the flavor that fits without borrowing',
      queue: TWO('1', '3', { cohort: 'co', whenCanBorrow: 'try' }), lender: TWO('3', '0', { cohort: 'co' }), cpu: 2,
      expected: { mode: 'Fit', flavors: 'head:f2' },
    },
    {
      name: 'a flavor that needs preemption: the next one is tried first (whenCanPreempt TryNextFlavor)',
      queue: TWO('2', '4', { within: 'LowerPriority' }), used: 2, cpu: 2, oracle: granular(PREEMPT, 0),
      expected: { mode: 'Fit', flavors: 'head:f2', asked: ['f1'] },
    },
    {
      name: 'whenCanPreempt MayStopSearch preempts in the first flavor',
      queue: TWO('2', '4', { within: 'LowerPriority', whenCanPreempt: 'stop' }), used: 2, cpu: 2, oracle: granular(PREEMPT, 0),
      expected: {
        mode: 'Preempt', flavors: 'head:f1', category: 'quota', asked: ['f1'],
        message: 'couldn\'t assign flavors to pod set head: insufficient unused quota for cpu in flavor f1, 2 more needed',
      },
    },
    {
      name: 'no candidates because the search bound failed: the assignment says hopeless',
      queue: { quotas: [{ flavor: 'f1', cpu: '2' }], within: 'LowerPriority' }, used: 2, cpu: 2, oracle: granular(NO_CANDIDATES, 0),
      endsAtBound: true,
      expected: {
        mode: 'Preempt', flavors: 'head:f1', category: 'quota', hopeless: true,
        message: 'couldn\'t assign flavors to pod set head: insufficient unused quota for cpu in flavor f1, 2 more needed',
      },
    },
    {
      name: 'each PodSet on a flavor/resource whose search ended at its bound is hopeless (the preemptor answers the second from its memo)',
      queue: { quotas: [{ flavor: 'f1', cpu: '3' }], within: 'LowerPriority' }, used: 2, cpu: 2, workerCpu: 1, oracle: granular(NO_CANDIDATES, 0),
      endsAtBound: true,
      expected: {
        mode: 'Preempt', flavors: 'head:f1 workers:f1', category: 'quota', hopeless: true, asked: ['f1', 'f1'],
        message: 'couldn\'t assign flavors to pod set head: insufficient unused quota for cpu in flavor f1, 1 more needed; couldn\'t assign '
          + 'flavors to pod set workers: insufficient unused quota for cpu in flavor f1, 2 more needed',
      },
    },
    {
      name: 'without the bound, the second PodSet\'s total is searched again, and neither is hopeless',
      queue: { quotas: [{ flavor: 'f1', cpu: '3' }], within: 'LowerPriority' }, used: 2, cpu: 2, workerCpu: 1, oracle: granular(NO_CANDIDATES, 0),
      expected: {
        mode: 'Preempt', flavors: 'head:f1 workers:f1', category: 'quota', hopeless: false, asked: ['f1', 'f1'],
        message: 'couldn\'t assign flavors to pod set head: insufficient unused quota for cpu in flavor f1, 1 more needed; couldn\'t assign '
          + 'flavors to pod set workers: insufficient unused quota for cpu in flavor f1, 2 more needed',
      },
    },
    {
      name: 'an untolerated taint passes a flavor over',
      flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), flavor(B, 'f2')], queue: TWO('4', '4'), cpu: 1,
      expected: { mode: 'Fit', flavors: 'head:f2' },
    },
    {
      name: 'a tolerated taint does not',
      flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), flavor(B, 'f2')], queue: TWO('4', '4'), cpu: 1, scheduling: { tolerations: [TOLERATE] },
      expected: { mode: 'Fit', flavors: 'head:f1' },
    },
    {
      name: 'a node selector that a flavor\'s labels contradict passes it over',
      flavors: [taintedFlavor('f1', { nodeLabels: { zone: 'a' } }), taintedFlavor('f2', { nodeLabels: { zone: 'b' } })], queue: TWO('4', '4'), cpu: 1,
      scheduling: { nodeSelector: { zone: 'b' } }, expected: { mode: 'Fit', flavors: 'head:f2' },
    },
    {
      name: 'no flavor matches: NoFit with every flavor\'s reason',
      flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), taintedFlavor('f2', { nodeLabels: { zone: 'a' } })], queue: TWO('4', '4'), cpu: 1,
      scheduling: { nodeSelector: { zone: 'b' } },
      expected: {
        mode: 'NoFit', flavors: 'head:-', category: 'max-capacity',
        message: 'couldn\'t assign flavors to pod set head: untolerated taint {gpu: only} in flavor f1, flavor f2 doesn\'t match node affinity',
      },
    },
  ])('$name', (c) => {
    expect(summary(c, assign(c))).toEqual(c.expected);
  });

  test.each<{ name: string; flavors: any[]; scheduling?: Case['scheduling']; expected: string | undefined }>([
    {
      name: 'every flavor tainted',
      flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), taintedFlavor('f2', { nodeTaints: [{ ...TAINT, effect: 'NoExecute' }] })],
      expected: 'no flavor of ClusterQueue cq matches pod set head (NoMatchingFlavor): untolerated taint {gpu: only} in flavor f1, untolerated taint '
        + '{gpu: only} in flavor f2',
    },
    { name: 'one flavor matches', flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), flavor(B, 'f2')], expected: undefined },
    { name: 'a PreferNoSchedule taint does not keep a PodSet off',
      flavors: [taintedFlavor('f1', { nodeTaints: [{ ...TAINT, effect: 'PreferNoSchedule' }] }), flavor(B, 'f2')], expected: undefined },
    {
      name: 'tolerated', flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), taintedFlavor('f2', { nodeTaints: [TAINT] })],
      scheduling: { tolerations: [{ operator: 'Exists' }] }, expected: undefined,
    },
    { name: 'an inactive ClusterQueue (its flavors not found) says so itself', flavors: [], expected: undefined },
  ])('noMatchingFlavor: $name', ({ flavors, scheduling, expected }) => {
    const r = assign({ name: '', flavors, queue: TWO('4', '4'), cpu: 1, scheduling, expected: { mode: '' } });
    expect(r.assigner.noMatchingFlavor(r.w)).toBe(expected);
  });

  // Kueue reports NoMatchingFlavor when no flavor matches the workload's tolerations or node selector,
  // as it does for a resource the ClusterQueue does not cover: the workload never becomes admissible.
  // The plan used to call this a wait at maximum capacity.
  test.each([
    {
      name: 'every flavor has an untolerated taint',
      flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), taintedFlavor('f2', { nodeTaints: [TAINT] })], scheduling: {},
      expected: { outcome: 'never-admissible', category: 'max-capacity', never: /NoMatchingFlavor\): untolerated taint \{gpu: only\} in flavor f1, untolerated taint/ },
    },
    {
      name: 'every flavor fails the node selector',
      flavors: [taintedFlavor('f1', { nodeLabels: { zone: 'a' } }), taintedFlavor('f2', { nodeLabels: { zone: 'a' } })],
      scheduling: { nodeSelector: { zone: 'b' } },
      expected: { outcome: 'never-admissible', category: 'max-capacity', never: /NoMatchingFlavor\): flavor f1 doesn't match node affinity, flavor f2/ },
    },
    {
      name: 'a resource the ClusterQueue does not cover (as before)',
      flavors: [flavor(B, 'f1'), flavor(B, 'f2')], scheduling: {}, gpu: true,
      expected: { outcome: 'never-admissible', category: 'max-capacity', never: /does not cover/ },
    },
    {
      name: 'one flavor matches but is full: a quota wait, admissible later',
      flavors: [taintedFlavor('f1', { nodeTaints: [TAINT] }), flavor(B, 'f2')], scheduling: {}, blocker: true,
      expected: { outcome: 'pending', category: 'quota', never: undefined },
    },
  ])('whole plan, Kueue\'s NoMatchingFlavor: $name', ({ flavors, scheduling, gpu, blocker, expected }) => {
    const w = withScheduling(rayCluster('w', { lq: 'lq', headCpu: '2' }), scheduling);
    if (gpu) w.spec.headGroupSpec.template.spec.containers[0].resources.requests['nvidia.com/gpu'] = '1';
    const arrivals = [...(blocker ? [rayCluster('blocker', { lq: 'lq', headCpu: '3' })] : []), w];
    const plan = simulatePlan({ kueueObjects: [...flavors, clusterQueue(B, 'cq', TWO('4', '4')), localQueue(B, 'lq', 'cq')], arrivals,
      kueueVersion: 'v0.19.2' });
    const result = plan.workloads.find((x) => x.name === 'w')!;
    expect(result.outcome).toBe(expected.outcome);
    expect(result.pending?.category).toBe(expected.category);
    if (expected.never) expect(result.neverAdmissible).toMatch(expected.never);
    else expect(result.neverAdmissible).toBeUndefined();
  });
});
