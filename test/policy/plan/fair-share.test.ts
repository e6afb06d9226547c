/**
 * The dominant resource share against Kueue's own tests, translated case by case from
 * pkg/cache/scheduler/fair_sharing_test.go at v0.19.2 (TestDominantResourceShare, TestIsBorrowingOn,
 * TestPreciseWeightedShareSerialized): the same quotas, usage and request, the same rounded share,
 * dominant resource and borrowing flag for every ClusterQueue and Cohort. Then what the translation
 * cannot hold (the exabyte case, v0.13's integer share) and the weights Kueue refuses.
 */
import { kueueCapabilities } from '../../../src/policy/versions';
import {
  compareDrs, dominantResourceShare, Drs, formatShare, isBorrowingOn, parseFairWeight, roundedWeightedShare,
} from '../../../src/policy/plan/fair-share';
import { addUsage, FlavorResource, QuotaNode, removeUsage, VersionStash } from '../../../src/policy/plan/quota-tree';
import { buildSnapshot, Snapshot } from '../../../src/policy/plan/snapshot';
import { parseQuantity } from '../../../src/policy/quantity';

const API = 'kueue.x-k8s.io/v1beta2';
const GPU = 'example.com/gpu';
type Quota = [resource: string, nominal: string, limits?: { borrowingLimit?: string; lendingLimit?: string }];
type Flavors = Record<string, Quota[]>;

const groups = (flavors: Flavors) => {
  const covered = [...new Set(Object.values(flavors).flat().map(([r]) => r))];
  return [{
    coveredResources: covered,
    flavors: Object.entries(flavors).map(([name, quotas]) => ({
      name, resources: quotas.map(([r, nominal, limits]) => ({ name: r, nominalQuota: nominal, ...limits })),
    })),
  }];
};
const cq = (name: string, cohortName: string | undefined, flavors: Flavors, weight?: string) => ({
  apiVersion: API, kind: 'ClusterQueue', metadata: { name },
  spec: { ...(cohortName ? { cohortName } : {}), resourceGroups: groups(flavors), ...(weight === undefined ? {} : { fairSharing: { weight } }) },
});
const cohort = (name: string, parentName?: string, flavors?: Flavors, weight?: string) => ({
  apiVersion: API, kind: 'Cohort', metadata: { name },
  spec: { ...(parentName ? { parentName } : {}), ...(flavors ? { resourceGroups: groups(flavors) } : {}),
    ...(weight === undefined ? {} : { fairSharing: { weight } }) },
});
const flavor = (name: string) => ({ apiVersion: API, kind: 'ResourceFlavor', metadata: { name }, spec: {} });

/** [flavor, resource, quantity]: admitted usage of ClusterQueue cq, or the request. */
type Amount = [flavor: string, resource: string, quantity: string];
type Want = [share: number, resource: string, borrowing: boolean];

/** The snapshot, with every quantity of the case among those the simulator's units are picked from. */
function snapshotOf(objects: unknown[], amounts: readonly Amount[]): Snapshot {
  // One PodSet per amount: each value must divide into the unit.
  const podSets = amounts.map(([, r, q]) => ({ total: new Map([[r, parseQuantity(q)]]), count: 1 }));
  return buildSnapshot([flavor('default'), flavor('on-demand'), flavor('spot'), ...objects], [{ podSets: podSets as any, total: new Map() }]);
}

function toMap(s: Snapshot, amounts: readonly Amount[]): Map<FlavorResource, number> {
  const m = new Map<FlavorResource, number>();
  for (const [f, r, q] of amounts) {
    const fr = s.flavorResourceOf(f, r);
    m.set(fr, (m.get(fr) ?? 0) + s.toUnits(r, parseQuantity(q)));
  }
  return m;
}

function sharesOf(objects: unknown[], usage: readonly Amount[], request: readonly Amount[] = [],
  arithmetic = kueueCapabilities('v0.19.2').drsArithmetic) {
  const s = snapshotOf(objects, [...usage, ...request]);
  const q = s.clusterQueues.get('cq')!;
  for (const [fr, v] of toMap(s, usage)) addUsage(q, fr, v);
  const req = request.length ? toMap(s, request) : undefined;
  const nodes: QuotaNode[] = [...s.clusterQueues.values(), ...s.cohorts.values()];
  const out: Record<string, Want> = {};
  for (const n of nodes) {
    const d = dominantResourceShare(n, s.shareUnits(), arithmetic, req);
    out[n.name] = [roundedWeightedShare(d), d.resource, d.borrowing];
  }
  return out;
}

const NONE: Want = [0, '', false];
const pair = (cqFlavors: Flavors, cqWeight: string | undefined, lending: Flavors, lendingWeight?: string) =>
  [cq('cq', 'test-cohort', cqFlavors, cqWeight), cq('lending-cq', 'test-cohort', lending, lendingWeight)];

/** The pair most upstream cases use: cq with cpu 2 and gpu 5, lending-cq with cpu 8 and gpu 5, weights 1. */
const CPU_GPU = () => pair({ default: [['cpu', '2'], [GPU, '5']] }, '1', { default: [['cpu', '8'], [GPU, '5']] }, '1');

// Each case: the upstream name and line (fair_sharing_test.go at v0.19.2), objects, usage, request, want.
const CASES: Array<{ name: string; line: number; objects: unknown[]; usage: Amount[]; request?: Amount[]; want: Record<string, Want> }> = [
  { name: 'no cohort', line: 61, objects: [cq('cq', undefined, { default: [['cpu', '2000'], [GPU, '5']] })],
    usage: [['default', 'cpu', '1'], ['default', GPU, '2']], want: { cq: NONE } },
  { name: 'usage below nominal', line: 83, objects: CPU_GPU(),
    usage: [['default', 'cpu', '1'], ['default', GPU, '2']], want: { 'cq': NONE, 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'usage above nominal', line: 130, objects: CPU_GPU(),
    usage: [['default', 'cpu', '3'], ['default', GPU, '7']], want: { 'cq': [200, GPU, true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'usage slightly above nominal in a cohort with large quotas', line: 177,
    objects: pair({ default: [[GPU, '500']] }, '1', { default: [[GPU, '1000']] }, '300'),
    usage: [['default', GPU, '501']], want: { 'cq': [1, GPU, true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'usage way above nominal in a cohort with large quotas and weights', line: 221,
    objects: pair({ default: [[GPU, '500']] }, '300', { default: [[GPU, '1000']] }, '300'),
    usage: [['default', GPU, '800']], want: { 'cq': [1, GPU, true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'one resource above nominal', line: 265, objects: CPU_GPU(),
    usage: [['default', 'cpu', '3'], ['default', GPU, '3']], want: { 'cq': [100, 'cpu', true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'usage with workload above nominal', line: 312, objects: CPU_GPU(),
    usage: [['default', 'cpu', '1'], ['default', GPU, '2']], request: [['default', 'cpu', '4'], ['default', GPU, '4']],
    want: { 'cq': [300, 'cpu', true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'A resource with zero lendable', line: 363,
    objects: pair({ default: [['cpu', '2'], [GPU, '2', { lendingLimit: '0' }]] }, '1',
      { default: [['cpu', '8'], [GPU, '64', { lendingLimit: '0' }]] }, '1'),
    usage: [['default', 'cpu', '1'], ['default', GPU, '1']], request: [['default', 'cpu', '4'], ['default', GPU, '4']],
    want: { 'cq': [300, 'cpu', true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'multiple flavors', line: 414,
    objects: pair({ 'on-demand': [['cpu', '20']], 'spot': [['cpu', '80']] }, '1', { default: [['cpu', '100']] }, '1'),
    usage: [['on-demand', 'cpu', '15'], ['spot', 'cpu', '5']], request: [['on-demand', 'cpu', '10']],
    want: { 'cq': [25, 'cpu', true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'above nominal with integer weight', line: 465, objects: pair({ default: [[GPU, '5']] }, '2', { default: [[GPU, '5']] }, '1'),
    usage: [['default', GPU, '7']], want: { 'cq': [100, GPU, true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'above nominal with decimal weight', line: 509, objects: pair({ default: [[GPU, '5']] }, '0.5', { default: [[GPU, '5']] }, '1'),
    usage: [['default', GPU, '7']], want: { 'cq': [400, GPU, true], 'lending-cq': NONE, 'test-cohort': NONE } },
  // math.MaxInt upstream: Infinity stands for it.
  { name: 'above nominal with zero weight', line: 553, objects: pair({ default: [[GPU, '5']] }, '0', { default: [[GPU, '10']] }, '1'),
    usage: [['default', GPU, '7']], want: { 'cq': [Infinity, GPU, true], 'lending-cq': NONE, 'test-cohort': NONE } },
  { name: 'cohort has resource share', line: 597,
    objects: [cq('cq', 'child-cohort', { default: [[GPU, '5']] }, '1'), cohort('child-cohort', 'root', undefined, '2'),
      cohort('root', undefined, { default: [[GPU, '45']] })],
    usage: [['default', GPU, '10']], want: { 'cq': [100, GPU, true], 'child-cohort': [50, GPU, true], 'root': NONE } },
  { name: 'resource share defined for resources only available at the root cohort', line: 641,
    objects: [cq('cq', 'child-cohort', { default: [[GPU, '0']] }, '1'), cohort('child-cohort', 'root', undefined, '2'),
      cohort('root', undefined, { default: [[GPU, '50']] })],
    usage: [['default', GPU, '10']], want: { 'cq': [200, GPU, true], 'child-cohort': [100, GPU, true], 'root': NONE } },
  { name: 'resource share affected by borrowing limit', line: 685,
    objects: [cq('cq', 'child-cohort', { default: [[GPU, '0']] }),
      cohort('child-cohort', 'root', { default: [[GPU, '0', { borrowingLimit: '10' }]] }),
      cohort('root', undefined, { default: [[GPU, '50']] })],
    usage: [['default', GPU, '10']], want: { 'cq': [1000, GPU, true], 'child-cohort': [200, GPU, true], 'root': NONE } },
];

describe('dominantResourceShare: Kueue v0.19.2 TestDominantResourceShare', () => {
  test.each(CASES)('$name (fair_sharing_test.go:$line)', ({ objects, usage, request, want }) => {
    expect(sharesOf(objects, usage, request)).toEqual(want);
  });

  test('not translated: "borrowing against unlimited lendable capacity (exabyte-scale quota)" (:741); the plan refuses a 1E CPU quota', () => {
    // Kueue turns a quota beyond int64 milli-CPU into Unlimited; the plan holds quantities exactly and refuses it instead.
    expect(() => sharesOf(pair({ default: [['cpu', '0']] }, '1', { default: [['cpu', '1E']] }, '1'), [['default', 'cpu', '1']]))
      .toThrow(/cpu quotas and requests add up to .* more than the simulator holds exactly/);
  });
});

describe('isBorrowingOn: Kueue v0.19.2 TestIsBorrowingOn (fair_sharing_test.go:887)', () => {
  const objects = [cq('cq', 'cohort', { default: [['cpu', '2'], [GPU, '5']] }, '1'),
    cq('lending-cq', 'cohort', { default: [['cpu', '8'], [GPU, '5']] })];
  test.each([
    { name: 'borrows on requested flavor', usage: [['default', 'cpu', '3']], request: [['default', 'cpu', '1']], on: true, borrowing: true },
    { name: 'borrows on unrequested flavor only', usage: [['default', 'cpu', '1'], ['default', GPU, '7']], request: [['default', 'cpu', '1']],
      on: false, borrowing: true },
    { name: 'borrows on both, requests one', usage: [['default', 'cpu', '3'], ['default', GPU, '7']], request: [['default', GPU, '1']], on: true,
      borrowing: true },
    { name: 'no borrowing', usage: [['default', 'cpu', '1'], ['default', GPU, '2']], request: [['default', 'cpu', '1']], on: false,
      borrowing: false },
    { name: 'nil requestedFRs', usage: [['default', 'cpu', '3']], request: undefined, on: false, borrowing: true },
  ] as Array<{ name: string; usage: Amount[]; request?: Amount[]; on: boolean; borrowing: boolean }>)('$name', ({ usage, request, on,
    borrowing }) => {
    const s = snapshotOf(objects, [...usage, ...(request ?? [])]);
    const q = s.clusterQueues.get('cq')!;
    for (const [fr, v] of toMap(s, usage)) addUsage(q, fr, v);
    const d = dominantResourceShare(q, s.shareUnits(), 'float');
    expect([d.borrowing, isBorrowingOn(d, request && toMap(s, request))]).toEqual([borrowing, on]);
  });
});

describe('formatShare: Kueue v0.19.2 TestPreciseWeightedShareSerialized (fair_sharing_test.go:986)', () => {
  const drs = (weight: number, unweightedRatio: number): Drs => ({
    weight, unweightedRatio, share: unweightedRatio === 0 ? 0 : weight === 0 ? Infinity : unweightedRatio / weight,
    resource: 'cpu', borrowing: unweightedRatio > 0, borrowed: [], arithmetic: 'float',
  });
  test.each([
    ['zero weight returning Inf', drs(0, 100), '+Inf'],
    ['zero unweighted ratio returns 0', drs(1, 0), '0'],
    ['regular integer division', drs(2, 400), '200'],
    ['decimal division', drs(4, 10), '2.5'],
  ])('%s', (_name, d, want) => {
    expect(formatShare(d)).toBe(want);
  });

  test('no exponent notation, as Go\'s FormatFloat(f, \'f\', -1, 64)', () => {
    expect(formatShare(drs(1, 1.5e-7))).toBe('0.00000015');
    expect(formatShare(drs(1e-8, 1e15))).toBe('100000000000000000000000');
  });
});

describe('the share compared', () => {
  const base = { resource: 'cpu', borrowing: true, borrowed: [], arithmetic: 'float' as const };
  test('CompareDRS: lower first; a zero weight that borrows after everyone, two of them by their unweighted ratio', () => {
    const a: Drs = { ...base, weight: 1, unweightedRatio: 100, share: 100 };
    const b: Drs = { ...base, weight: 2, unweightedRatio: 300, share: 150 };
    const z1: Drs = { ...base, weight: 0, unweightedRatio: 10, share: Infinity };
    const z2: Drs = { ...base, weight: 0, unweightedRatio: 20, share: Infinity };
    const idle: Drs = { ...base, weight: 0, unweightedRatio: 0, share: 0, borrowing: false };
    expect([compareDrs(a, b), compareDrs(b, a), compareDrs(a, a)]).toEqual([-1, 1, 0]);
    expect([compareDrs(z1, b), compareDrs(b, z1), compareDrs(z1, z2), compareDrs(z2, z1)]).toEqual([1, -1, -1, 1]);
    // A zero weight that borrows nothing is not a borrower: share 0, first.
    expect(compareDrs(idle, a)).toBe(-1);
  });

  test('v0.13\'s integer share: truncated ratio, divided by the weight in milli-units, at least 1, MaxInt for a zero weight', () => {
    expect(kueueCapabilities('v0.13.4').drsArithmetic).toBe('integer');
    expect(kueueCapabilities('v0.14.8').drsArithmetic).toBe('float');
    const objects = (w: string) => pair({ default: [['cpu', '3']] }, w, { default: [['cpu', '6']] }, '1');
    // (4-3)*1000/9 = 111.1: the integer form truncates to 111; weight 3 gives 37 (float: 37.04, rounded up to 38).
    expect(sharesOf(objects('3'), [['default', 'cpu', '4']], [], 'integer').cq).toEqual([37, 'cpu', true]);
    expect(sharesOf(objects('3'), [['default', 'cpu', '4']], [], 'float').cq).toEqual([38, 'cpu', true]);
    // A share below 1 is 1; a zero weight is math.MaxInt (Infinity here).
    expect(sharesOf(objects('1000'), [['default', 'cpu', '4']], [], 'integer').cq).toEqual([1, 'cpu', true]);
    expect(sharesOf(objects('0'), [['default', 'cpu', '4']], [], 'integer').cq).toEqual([Infinity, 'cpu', true]);
  });

  test('v0.13\'s integer share ties where the double does not', () => {
    const s = snapshotOf([cq('cq', 'co', { default: [['cpu', '0']] }), cq('other', 'co', { default: [['cpu', '0']] }),
      cq('lender', 'co', { default: [['cpu', '3000']] })], [['default', 'cpu', '1'], ['default', 'cpu', '1.001']]);
    const [a, b] = ['cq', 'other'].map((n) => s.clusterQueues.get(n)!);
    const fr = s.flavorResourceOf('default', 'cpu');
    addUsage(a, fr, s.toUnits('cpu', parseQuantity('1')));
    addUsage(b, fr, s.toUnits('cpu', parseQuantity('1.001')));
    const at = (arithmetic: 'integer' | 'float') => compareDrs(dominantResourceShare(a, s.shareUnits(), arithmetic),
      dominantResourceShare(b, s.shareUnits(), arithmetic));
    // 1000/3000 and 1001/3000 per mille: both 0 as integers (then at least 1), 0.333 and 0.3337 as doubles.
    expect([at('integer'), at('float')]).toEqual([0, -1]);
  });

  test('the double is Kueue\'s: computed in Kueue\'s units (bytes), not the simulator\'s', () => {
    // 12 TiB borrowed of 7 TiB lendable... in bytes × 1000 the product passes 2^53 and rounds, as in Go.
    const s = snapshotOf(pair({ default: [['memory', '1Ti']] }, '1', { default: [['memory', '7Ti']] }, '1'), [['default', 'memory', '13Ti']]);
    const q = s.clusterQueues.get('cq')!;
    addUsage(q, s.flavorResourceOf('default', 'memory'), s.toUnits('memory', parseQuantity('13Ti')));
    const d = dominantResourceShare(q, s.shareUnits(), 'float');
    const b = 12 * 2 ** 40;
    const lr = 8 * 2 ** 40;
    expect(d.unweightedRatio).toBe((b * 1000) / lr);
    expect(d.resource).toBe('memory');
  });
});

describe('fair-sharing weights as Kueue reads and refuses them', () => {
  test.each([
    [undefined, 1], ['1', 1], ['2', 2], ['0.5', 0.5], ['500m', 0.5], ['0', 0], ['2n', 2e-9], [3, 3], ['1Ki', 1024], ['1e-3', 0.001],
  ])('%s reads as %s', (w, want) => {
    expect(parseFairWeight(w, 'ClusterQueue a').weight).toBe(want);
  });

  test.each([
    ['-1', /ClusterQueue a: spec.fairSharing.weight is -1: Kueue refuses a negative weight; use 0 .* or more/],
    ['1n', /spec.fairSharing.weight is 1n: Kueue refuses a weight in \(0, 1n\]/],
    ['0.5n', /refuses a weight in \(0, 1n\]/],
    ['heavy', /ClusterQueue a: spec.fairSharing.weight: 'heavy' is not a Kubernetes quantity/],
    [[1], /spec.fairSharing.weight must be a quantity such as 1, 2 or 0.5, not a list/],
  ])('%s is refused', (w, message) => {
    expect(() => parseFairWeight(w, 'ClusterQueue a')).toThrow(message);
  });

  test('the snapshot reads ClusterQueue and Cohort weights, and names the object whose weight Kueue would refuse', () => {
    const s = snapshotOf([cq('cq', 'co', { default: [['cpu', '1']] }, '2'), cohort('co', undefined, undefined, '250m')], []);
    expect([s.clusterQueues.get('cq')!.fairWeight, s.cohorts.get('co')!.fairWeight, s.cohorts.get('co')!.fairWeightMilli]).toEqual([2, 0.25, 250]);
    expect(() => snapshotOf([cq('cq', 'co', { default: [['cpu', '1']] }), cohort('co', undefined, undefined, '-2')], []))
      .toThrow(/Cohort co: spec.fairSharing.weight is -2/);
  });
});

describe('shares kept per usage version', () => {
  // The searches ask for a node's share again and again; it is kept until the node's usage changes. A change undone
  // exactly may put the versions back (VersionStash), and the kept share is then right again.
  const objects = [
    cohort('root'), cq('a', 'root', { default: [['cpu', '10']] }), cq('b', 'root', { default: [['cpu', '10']] }),
  ];
  const fresh = () => {
    const s = snapshotOf(objects, [['default', 'cpu', '1']]);
    const a = s.clusterQueues.get('a')! as QuotaNode, b = s.clusterQueues.get('b')! as QuotaNode;
    return { s, a, b, cpu: s.flavorResourceOf('default', 'cpu'), units: s.shareUnits() };
  };

  it('follows every change of the usage, and gives the same object while it does not change', () => {
    const { s, a, cpu, units } = fresh();
    const before = dominantResourceShare(a, units, 'float');
    expect(before.borrowing).toBe(false);
    expect(dominantResourceShare(a, units, 'float')).toBe(before);
    addUsage(a, cpu, s.toUnits('cpu', parseQuantity('15')));
    const borrowing = dominantResourceShare(a, units, 'float');
    // 5 borrowed of the 20 the root can lend: 250 per mille.
    expect([borrowing.borrowing, borrowing.share]).toEqual([true, 250]);
    removeUsage(a, cpu, s.toUnits('cpu', parseQuantity('10')));
    expect(dominantResourceShare(a, units, 'float').borrowing).toBe(false);
    // The integer arithmetic is not answered from the float's memo.
    expect(dominantResourceShare(a, units, 'integer').arithmetic).toBe('integer');
  });

  it('VersionStash puts the versions back after a change undone exactly, so the kept share is read again', () => {
    const { s, a, b, cpu, units } = fresh();
    const kept = dominantResourceShare(a, units, 'float');
    const versions = [a.usageVersion, b.usageVersion, a.parent!.usageVersion];
    const stash = new VersionStash();
    stash.keep(a);
    addUsage(a, cpu, s.toUnits('cpu', parseQuantity('15')));
    expect(a.usageVersion).not.toBe(versions[0]);
    expect(a.parent!.usageVersion).not.toBe(versions[2]);
    // Read during the change: the borrowing share, not the kept one.
    expect(dominantResourceShare(a, units, 'float').borrowing).toBe(true);
    removeUsage(a, cpu, s.toUnits('cpu', parseQuantity('15')));
    stash.restore();
    expect([a.usageVersion, b.usageVersion, a.parent!.usageVersion]).toEqual(versions);
    expect(dominantResourceShare(a, units, 'float')).toEqual(kept);
    // A later change gets a version no usage had before, so nothing kept during the undone change is read for it.
    addUsage(a, cpu, s.toUnits('cpu', parseQuantity('12')));
    expect(dominantResourceShare(a, units, 'float').share).toBe(100);
  });
});
