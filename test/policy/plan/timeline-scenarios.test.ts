// The fixed timeline scenarios tell their stories in the plan (the agreement suite then holds the real Kueue to the
// same events), and the random ones skip what Kueue decides by timing.
import { simulatePlan } from '../../../src/policy/plan';
import { randomFairSharingTimelineScenario } from './fair-sharing-scenarios';
import { fixedTimelineScenarios, randomTimelineScenario, randomTimelineScenarios, timelineAmbiguity } from './timeline-scenarios';

const KUEUE = 'v0.19.2';
const plan = (name: string) => {
  const s = fixedTimelineScenarios(KUEUE).find((x) => x.name === name)!;
  const p = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: KUEUE, trace: false });
  const at = (n: string) => p.workloads.find((w) => w.name === n)!;
  const story = (n: string) => at(n).events.map((e) => `${e.event}@${e.at / 60}m`).join(' ');
  return { p, at, story };
};

test('the guide\'s two toy jobs: the first at once, the second when the first finishes, waiting for it', () => {
  const { at, story } = plan('timeline-guide-toy-jobs');
  expect(story('dev-1')).toBe('arrived@0m admitted@0m finished@10m');
  expect(story('dev-2')).toBe('arrived@0m admitted@10m finished@20m');
  expect(at('dev-2').waitsFor).toEqual(['RayJob plan/dev-1']);
});

test('a preempted workload starts over once the preemptor finishes', () => {
  const { at, story } = plan('timeline-preemption-restart');
  expect(story('high')).toBe('arrived@2m admitted@2m finished@7m');
  expect(story('low')).toBe('arrived@0m admitted@0m preempted@2m admitted@7m finished@17m');
  expect(at('high').waitsFor).toEqual(['RayCluster plan/low']);
  expect(at('low').waitsFor).toEqual(['RayCluster plan/high']);
});

test('reclaim in a cohort, then the borrower runs again for its whole duration', () => {
  const { story } = plan('timeline-reclaim-in-cohort');
  expect(story('b')).toBe('arrived@5m admitted@5m finished@10m');
  expect(story('a')).toBe('arrived@0m admitted@0m preempted@5m admitted@10m finished@30m');
});

test('a workload that waited, then preempted, waited for both the finish and its victim', () => {
  const { at, story } = plan('timeline-waits-then-preempts');
  expect(story('c')).toBe('arrived@0m admitted@3m finished@8m');
  expect(story('b')).toBe('arrived@0m admitted@0m preempted@3m admitted@8m finished@16m');
  expect(at('c').waitsFor).toEqual(['RayCluster plan/a', 'RayCluster plan/b']);
});

test('a preemptor preempted in turn waits, when admitted again, only for what freed quota then', () => {
  const { at, story } = plan('timeline-readmitted-waits-anew');
  expect(story('j1')).toBe('arrived@0m admitted@0m preempted@3m admitted@6m finished@10m');
  expect(at('j1').waitsFor).toEqual(['RayCluster plan/j3']);
  expect(at('j0').waitsFor).toEqual(['RayCluster plan/j1']);
});

test('BestEffortFIFO lets the small job pass; StrictFIFO keeps it behind', () => {
  expect(plan('timeline-best-effort-small-passes').story('c')).toBe('arrived@2m admitted@2m finished@7m');
  expect(plan('timeline-best-effort-small-passes').story('b')).toBe('arrived@1m admitted@10m finished@20m');
  const strict = plan('timeline-strict-fifo-waits');
  expect(strict.story('c')).toBe('arrived@2m admitted@10m finished@15m');
  expect(strict.at('c').waitsFor).toEqual(['RayCluster plan/a']);
});

test('random timeline scenarios carry times from their seed, and the ambiguous ones are skipped', () => {
  const s = randomTimelineScenario(KUEUE, 11);
  expect(randomTimelineScenario(KUEUE, 11)).toEqual(s);
  expect(s.arrivals.every((o) => /^\d+m$/.test(o.metadata.annotations['cdk8s-kueue-ray.io/plan-arrival']))).toBe(true);
  const { scenarios } = randomTimelineScenarios(KUEUE, 1000, 20);
  expect(scenarios).toHaveLength(20);
  for (const sc of scenarios) {
    expect(timelineAmbiguity(simulatePlan({ kueueObjects: sc.objects, arrivals: sc.arrivals, kueueVersion: KUEUE, trace: false }))).toBeUndefined();
  }
});

test('random fair-sharing timelines: the random timeline with a weight per ClusterQueue, the same for a seed', () => {
  const s = randomFairSharingTimelineScenario(KUEUE, 21);
  expect(randomFairSharingTimelineScenario(KUEUE, 21)).toEqual(s);
  const plain = randomTimelineScenario(KUEUE, 21);
  expect(s.arrivals).toEqual(plain.arrivals);
  const weights = s.objects.filter((o: any) => o.kind === 'ClusterQueue').map((o: any) => o.spec.fairSharing.weight);
  expect(weights.length).toBeGreaterThan(0);
  for (const w of weights) expect(['0.5', '1', '2', '4']).toContain(w);
});
