// `plan` on a timeline through the CLI (issue 43): the JSON's timeline fields, the text's "when" lines, --horizon,
// and the per-cycle trace only with --trace.
import * as path from 'path';
import { stringify } from 'yaml';
import { planCommand } from '../../src/cli/plan';
import { planUsageSeries } from '../../src/cli/plan-output';
import { UsageError } from '../../src/cli/yaml-source';
import { tmpFiles } from '../support/synth';

const API = 'kueue.x-k8s.io/v1beta2';
const queues = [
  { apiVersion: API, kind: 'ResourceFlavor', metadata: { name: 'f' }, spec: {} },
  { apiVersion: API, kind: 'ClusterQueue', metadata: { name: 'cq' }, spec: { namespaceSelector: {},
    resourceGroups: [{ coveredResources: ['cpu', 'memory'], flavors: [{ name: 'f', resources: [{ name: 'cpu', nominalQuota: '4' },
      { name: 'memory', nominalQuota: '8Gi' }] }] }] } },
  { apiVersion: API, kind: 'LocalQueue', metadata: { name: 'lq', namespace: 'default' }, spec: { clusterQueue: 'cq' } },
];
const cluster = (name: string, duration: string) => ({ apiVersion: 'ray.io/v1', kind: 'RayCluster',
  metadata: { name, namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'lq' },
    annotations: { 'cdk8s-kueue-ray.io/expected-duration': duration } },
  spec: { suspend: true, headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
    resources: { requests: { cpu: '4', memory: '1Gi' }, limits: { cpu: '4', memory: '1Gi' } } }] } } } } });
const dir = tmpFiles({ 'plan.yaml': [...queues, cluster('first', '10m'), cluster('second', '10m')].map((o) => stringify(o)).join('---\n') });
const file = path.join(dir, 'plan.yaml');

test('the JSON gives each workload its start, finish, what it waited for and its events; no trace without --trace', () => {
  const plan = JSON.parse(planCommand([file, '-o', 'json', '--kueue-version', 'v0.19.2']));
  expect(plan.schemaVersion).toBe(2);
  const w = (name: string) => plan.workloads.find((x: any) => x.name === name);
  expect(w('first')).toMatchObject({ admittedAt: 0, finishedAt: 600, waitsFor: [], expectedDuration: 600 });
  expect(w('second')).toMatchObject({ admittedAt: 600, finishedAt: 1200, waitsFor: ['RayCluster default/first'],
    events: [{ at: 0, event: 'arrived' }, { at: 600, event: 'admitted' }, { at: 1200, event: 'finished' }] });
  expect(plan.timeline).toEqual({ ended: 'settled', at: 1200, horizon: 604800 });
  expect(plan.trace).toEqual([]);
  const trace = JSON.parse(planCommand([file, '-o', 'json', '--trace'])).trace;
  // A finish is a release in the trace (no candidates), so a replay of the trace (the page's charts) ends where the plan does.
  expect(trace.filter((c: any) => !c.candidates.length)).toEqual([
    { cycle: 2, afterArrival: 1, candidates: [], released: ['RayCluster default/first'], at: 600 },
    { cycle: 3, afterArrival: 1, candidates: [], released: ['RayCluster default/second'], at: 1200 },
  ]);
  const cq = planUsageSeries(JSON.parse(planCommand([file, '-o', 'json', '--trace'])))
    .find((x) => x.name === 'cq' && x.resource === 'cpu')!;
  expect(cq.points).toEqual([0, 4, 4, 0, 4, 0]);
});

test('the text says when each starts; --horizon cuts the timeline, and a bad one is a usage error', () => {
  const text = planCommand([file]);
  expect(text).toContain('when: starts at once, finishes at ~10m');
  expect(text).toContain('when: starts in ~10m (after default/first finishes), finishes at ~20m');
  const cut = planCommand([file, '--horizon', '5m']);
  expect(cut).toContain('when: never within 5m');
  expect(cut).toContain('Timeline: cut at the horizon, 5m, with work left.');
  for (const bad of ['0s', 'soon', '-1h']) {
    expect(() => planCommand([file, `--horizon=${bad}`])).toThrow(UsageError);
    expect(() => planCommand([file, `--horizon=${bad}`])).toThrow(/--horizon takes a duration above 0 such as 168h or 90m/);
  }
});
