// The plan's timeline inputs (issue 43, item 1): the expected-duration and plan-arrival annotations, read by plan and
// checked by the shared policy (check, synth, admission); the constructs' expectedDuration prop writes the first.
import { App, Chart, Duration } from 'cdk8s';
import { KueueRayVersions, KubeRayVersion, KueueVersion, LocalQueue, QueuedRayCluster, QueuedRayJob } from '../../../src';
import {
  durationBoundOf, EXPECTED_DURATION_ANNOTATION, expectedDurationOf, PLAN_ARRIVAL_ANNOTATION, planAnnotations, planArrivalOf,
} from '../../../src/policy';
import * as rules from '../../../src/policy/rules/plan-annotations';
import { kubeRayCapabilities, kueueCapabilities } from '../../../src/policy/versions';
import * as fx from './fixtures';

const ctx: any = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2'), elasticGate: 'on' };
const job = (annotations?: Record<string, unknown>, spec: any = {}): any => ({ apiVersion: 'ray.io/v1', kind: 'RayJob',
  metadata: { name: 'train', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec: { entrypoint: 'python x.py', ...spec } });

test('well-formed values are read in seconds; a duration must be above 0, an arrival 0 or more', () => {
  expect(expectedDurationOf(job({ [EXPECTED_DURATION_ANNOTATION]: '10m' }))).toBe(600);
  expect(expectedDurationOf(job({ [EXPECTED_DURATION_ANNOTATION]: '1h30m' }))).toBe(5400);
  expect(expectedDurationOf(job({ [EXPECTED_DURATION_ANNOTATION]: '200s' }))).toBe(200);
  expect(expectedDurationOf(job({ [EXPECTED_DURATION_ANNOTATION]: '0s' }))).toBeUndefined();
  expect(expectedDurationOf(job())).toBeUndefined();
  expect(planArrivalOf(job({ [PLAN_ARRIVAL_ANNOTATION]: '0s' }))).toBe(0);
  expect(planArrivalOf(job({ [PLAN_ARRIVAL_ANNOTATION]: '90s' }))).toBe(90);
  expect(planArrivalOf(job({ [PLAN_ARRIVAL_ANNOTATION]: '-1m' }))).toBeUndefined();
});

test('a malformed value is an error naming the field and the fix; well-formed and absent ones pass', () => {
  for (const [key, bad] of [[EXPECTED_DURATION_ANNOTATION, '10 minutes'], [EXPECTED_DURATION_ANNOTATION, '0s'], [EXPECTED_DURATION_ANNOTATION, 600],
    [EXPECTED_DURATION_ANNOTATION, ' 10m'], [PLAN_ARRIVAL_ANNOTATION, '-5s'], [PLAN_ARRIVAL_ANNOTATION, 'soon']] as const) {
    const f = planAnnotations.check(job({ [key]: bad }), ctx);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ rule: 'planAnnotations', severity: 'error', field: `metadata.annotations[${key}]`, object: 'RayJob default/train' });
    expect(f[0].message).toMatch(/is not a Go duration (above 0|of 0 or more)/);
    expect(f[0].fix).toMatch(/^write it as Kubernetes and Go write durations, e\.g\. "10m"/);
  }
  expect(planAnnotations.check(job({ [EXPECTED_DURATION_ANNOTATION]: '10m', [PLAN_ARRIVAL_ANNOTATION]: '0s' }), ctx)).toEqual([]);
  expect(planAnnotations.check(job(), ctx)).toEqual([]);
  expect(planAnnotations.check({ ...job(), metadata: { name: 'x', annotations: 'bad' } } as any, ctx)).toEqual([]);
});

test('without a duration, a RayJob\'s activeDeadlineSeconds is the upper bound; other kinds have none', () => {
  expect(durationBoundOf(job(undefined, { activeDeadlineSeconds: 900 }))).toBe(900);
  expect(durationBoundOf(job())).toBeUndefined();
  expect(durationBoundOf({ apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'c' }, spec: { activeDeadlineSeconds: 900 } } as any))
    .toBeUndefined();
});

describe('the constructs\' expectedDuration', () => {
  const chart = () => {
    const app = new App();
    KueueRayVersions.use(app, { kueue: KueueVersion.V0_19_2, kubeRay: KubeRayVersion.V1_6_2 });
    return new Chart(app, 'c');
  };
  const head = { resources: { cpu: '1', memory: '2Gi' } } as any;
  const annotationsOf = (c: Chart) => c.toJson().find((o: any) => o.apiVersion === 'ray.io/v1').metadata.annotations;

  test('writes the annotation as a Go duration, which plan reads back', () => {
    const c = chart();
    const q = LocalQueue.fromLocalQueueName(c, 'q', 'default', 'user-queue');
    new QueuedRayJob(c, 'job', { queue: q, entrypoint: 'python x.py', headGroup: head, expectedDuration: Duration.minutes(90) });
    const a = annotationsOf(c);
    expect(a[EXPECTED_DURATION_ANNOTATION]).toBe('1h30m');
    expect(expectedDurationOf({ kind: 'RayJob', metadata: { annotations: a } } as any)).toBe(5400);
  });

  test('refuses a duration of no whole seconds, of 0, or given twice, naming the prop and the fix', () => {
    const make = (props: any) => () => {
      const c = chart();
      new QueuedRayCluster(c, 'rc', { queue: LocalQueue.fromLocalQueueName(c, 'q', 'default', 'user-queue'), headGroup: head, ...props });
    };
    expect(make({ expectedDuration: Duration.millis(1500) })).toThrow(/expectedDuration 1 second 500 millis is not a whole number of seconds\. Fix: round it/);
    expect(make({ expectedDuration: Duration.seconds(0) })).toThrow(/expectedDuration must be above 0 seconds, got 0\. Fix:/);
    expect(make({ expectedDuration: Duration.minutes(1), annotations: { [EXPECTED_DURATION_ANNOTATION]: '5m' } }))
      .toThrow(/expectedDuration and annotations\["cdk8s-kueue-ray.io\/expected-duration"\] both set it\. Fix: keep one/);
  });
});

// The table: a refused case and an accepted object for each rule src/policy/rules/plan-annotations.ts defines.
const CASES: fx.Case[] = [
  { rule: 'planAnnotations', name: 'an expected duration that is no Go duration (issue 43)', obj: fx.job((o) => { o.metadata.annotations = { 'cdk8s-kueue-ray.io/expected-duration': '10 minutes' }; }), ctx: fx.ctx(), severity: 'error', field: 'metadata.annotations[cdk8s-kueue-ray.io/expected-duration]', message: /"10 minutes" is not a Go duration above 0/ },
];

const ACCEPTED: fx.Accepted[] = [
  { rule: 'planAnnotations', name: 'an expected duration of 10m and an arrival of 30s',
    obj: fx.job((o) => { o.metadata.annotations = { [EXPECTED_DURATION_ANNOTATION]: '10m', [PLAN_ARRIVAL_ANNOTATION]: '30s' }; }), ctx: fx.ctx() },
];

fx.refuses(CASES);
fx.accepts(ACCEPTED);
fx.coversEveryRule(rules, CASES, ACCEPTED);
