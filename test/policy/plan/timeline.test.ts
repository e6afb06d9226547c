// The plan on a timeline (issue 43, item 2-3): workloads arrive at their plan-arrival time and finish after their
// expected duration, releasing their quota; the JSON says when each starts and what it waited for, the text in words.
import { PlanResult, simulatePlan } from '../../../src/policy/plan';
import { planToText } from '../../../src/plan/text';
import { EXPECTED_DURATION_ANNOTATION, PLAN_ARRIVAL_ANNOTATION } from '../../../src/policy';
import { builder, clusterQueue, flavor, localQueue, rayCluster, wpc } from './scenarios';

const V = 'v0.19.2';
const b = builder(V);
const objects = (within = 'Never', cpu = '4') => [flavor(b, 'f'), wpc(b, 'low', 10), wpc(b, 'high', 100),
  clusterQueue(b, 'cq', { quotas: [{ flavor: 'f', cpu }], within }), localQueue(b, 'lq', 'cq')];
/** A RayCluster of `cpu` on lq, with timeline annotations. */
const job = (name: string, cpu: number, t: { duration?: string; arrival?: string; priority?: string } = {}) => {
  const o = rayCluster(name, { lq: 'lq', headCpu: String(cpu), priority: t.priority });
  o.metadata.annotations = { ...(t.duration ? { [EXPECTED_DURATION_ANNOTATION]: t.duration } : {}),
    ...(t.arrival ? { [PLAN_ARRIVAL_ANNOTATION]: t.arrival } : {}) };
  return o;
};
const plan = (arrivals: any[], extra: { within?: string; horizonSeconds?: number } = {}) =>
  simulatePlan({ kueueObjects: objects(extra.within), arrivals, kueueVersion: V, horizonSeconds: extra.horizonSeconds });
const get = (r: PlanResult, name: string) => r.workloads.find((w) => w.name === name)!;

test('the guide\'s two toy jobs: the first is admitted at 0, the second when the first finishes, waiting for it', () => {
  const r = plan([job('a', 4, { duration: '10m' }), job('b', 4, { duration: '10m' })]);
  expect(get(r, 'a')).toMatchObject({ outcome: 'admitted', admittedAt: 0, finishedAt: 600, waitsFor: [], expectedDuration: 600 });
  expect(get(r, 'b')).toMatchObject({ outcome: 'admitted', admittedAt: 600, finishedAt: 1200, waitsFor: ['RayCluster plan/a'] });
  expect(get(r, 'b').events).toEqual([{ at: 0, event: 'arrived' }, { at: 600, event: 'admitted' }, { at: 1200, event: 'finished' }]);
  expect(r.timeline).toEqual({ ended: 'settled', at: 1200, horizon: 604800 });
  const text = planToText(r);
  expect(text).toContain('when: starts at once, finishes at ~10m');
  expect(text).toContain('when: starts in ~10m (after plan/a finishes), finishes at ~20m');
  expect(text).toContain('Timeline: settled at ~20m (nothing left to happen).');
});

test('arrival times order the queue; a later arrival waits for what runs then', () => {
  const r = plan([job('late', 2, { arrival: '5m', duration: '1m' }), job('early', 4, { arrival: '1m', duration: '10m' })]);
  expect(get(r, 'early')).toMatchObject({ arrivesAt: 60, admittedAt: 60, finishedAt: 660 });
  expect(get(r, 'late')).toMatchObject({ arrivesAt: 300, admittedAt: 660, finishedAt: 720, waitsFor: ['RayCluster plan/early'] });
  expect(planToText(r)).toContain('when: starts in ~6m ');
});

test('a preempted job starts over: it is admitted again once the preemptor finishes, and runs its full duration again', () => {
  const r = plan([job('low', 4, { duration: '10m', priority: 'low' }), job('high', 4, { duration: '5m', arrival: '2m', priority: 'high' })],
    { within: 'LowerPriority' });
  expect(get(r, 'high')).toMatchObject({ outcome: 'admitted-by-preempting', admittedAt: 120, finishedAt: 420, waitsFor: ['RayCluster plan/low'] });
  expect(get(r, 'low')).toMatchObject({ admittedAt: 420, finishedAt: 1020, waitsFor: ['RayCluster plan/high'],
    preemptedBy: ['RayCluster plan/high'] });
  expect(get(r, 'low').events.map((e) => `${e.at} ${e.event}`))
    .toEqual(['0 arrived', '0 admitted', '120 preempted', '420 admitted', '1020 finished']);
  expect(planToText(r)).toContain('when: starts in ~7m (after plan/high finishes), finishes at ~17m');
});

test('an unknown duration ahead: the start is unknown, naming what it waits for; a bound says "at most"', () => {
  const r = plan([job('unknown', 4), job('waiting', 4, { duration: '1m' })]);
  expect(get(r, 'unknown')).toMatchObject({ admittedAt: 0, finishedAt: null, expectedDuration: null });
  expect(get(r, 'waiting')).toMatchObject({ outcome: 'pending', admittedAt: null, finishedAt: null, reason: 'WaitingForQuota',
    waitsFor: ['RayCluster plan/unknown'] });
  const text = planToText(r);
  expect(text).toContain('when: start unknown: waits for plan/unknown, which has no expected duration');
  expect(text).toContain('when: starts at once, duration unknown');
});

test('the horizon cuts a long run: what waits behind it never starts within it, and the output says the plan was cut', () => {
  const r = plan([job('long', 4, { duration: '200h' }), job('next', 4, { duration: '1m' })]);
  expect(r.timeline).toEqual({ ended: 'horizon', at: 604800, horizon: 604800 });
  expect(get(r, 'long')).toMatchObject({ admittedAt: 0, finishedAt: null });
  expect(get(r, 'next')).toMatchObject({ outcome: 'pending', admittedAt: null });
  const text = planToText(r);
  expect(text).toContain('when: never within 168h');
  expect(text).toContain('Timeline: cut at the horizon, 168h, with work left.');
  expect(plan([job('long', 4, { duration: '200h' }), job('next', 4, { duration: '1m' })], { horizonSeconds: 300 * 3600 }).timeline)
    .toEqual({ ended: 'settled', at: 200 * 3600 + 60, horizon: 300 * 3600 });
});

test('without durations or arrival times nothing moves in time, and the text has no timeline lines', () => {
  const r = plan([job('a', 4), job('b', 4)]);
  expect(r.workloads.map((w) => [w.name, w.outcome, w.admittedAt, w.finishedAt])).toEqual([['a', 'admitted', 0, null], ['b', 'pending', null, null]]);
  expect(r.timeline).toEqual({ ended: 'settled', at: 0, horizon: 604800 });
  expect(planToText(r)).not.toMatch(/when:|Timeline:/);
});
