// Issue 43, item 4: plan --kubeconfig on the timeline. An admitted workload runs for what is left of its expected
// duration; one that declares none takes the median run time of its LocalQueue's finished Workloads; times are
// printed on the wall clock beside "in ~N". The Workloads are shaped as Kueue writes them (conditions Admitted,
// QuotaReserved, Finished with their lastTransitionTime; spec.queueName), read by plan-cluster.ts.
import { planCommand, PlanLiveInput } from '../../src/cli/plan';
import { replayOrder } from '../../src/cli/plan-cluster';
import { liveDurations, queueRunTimes } from '../../src/cli/plan-live-durations';
import { EXPECTED_DURATION_ANNOTATION } from '../../src/policy';
import { queuesYaml } from '../support/queues-yaml';
import { tmpFiles } from '../support/synth';

const T0 = Date.parse('2026-12-05T10:00:00Z') / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString();
const condition = (type: string, at: number) => ({ type, status: 'True', lastTransitionTime: iso(at), reason: type, message: '' });
/** A Workload as Kueue writes it, admitted at `admitted` and finished at `finished` (epoch seconds). */
const workload = (name: string, queue: string, owner: string, admitted?: number, finished?: number) => ({
  apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload',
  metadata: { name, namespace: 'default', creationTimestamp: iso(T0 - 7200),
    ownerReferences: [{ kind: 'RayJob', name: owner, uid: `uid-${owner}` }] },
  spec: { queueName: queue },
  status: { conditions: [...(admitted !== undefined ? [condition('QuotaReserved', admitted), condition('Admitted', admitted)] : []),
    ...(finished !== undefined ? [condition('Finished', finished)] : [])] },
});

const job = (name: string, duration?: string) => ({
  apiVersion: 'ray.io/v1', kind: 'RayJob',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: iso(T0 - 3600), labels: { 'kueue.x-k8s.io/queue-name': 'lq' },
    ...(duration ? { annotations: { [EXPECTED_DURATION_ANNOTATION]: duration } } : {}) },
  spec: { entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: true, rayClusterSpec: { headGroupSpec: { template: { spec: {
    containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0',
      resources: { requests: { cpu: '3', memory: '2Gi' }, limits: { cpu: '3', memory: '2Gi' } } }] } } } } },
});

test('the median run time per LocalQueue counts only finished, admitted Workloads (odd and even counts)', () => {
  const runs = queueRunTimes([
    workload('a', 'lq', 'a', T0 - 3000, T0 - 2400), // 600 s
    workload('b', 'lq', 'b', T0 - 3000, T0 - 1800), // 1200 s
    workload('c', 'lq', 'c', T0 - 3000, T0 - 2700), // 300 s
    workload('d', 'lq', 'd', T0 - 600), // running: not counted
    workload('e', 'lq', 'e', undefined, T0 - 100), // finished without admission (deactivated): not counted
    workload('f', 'other', 'f', T0 - 1000, T0 - 900), // 100 s
    workload('g', 'other', 'g', T0 - 1000, T0 - 700), // 300 s
  ]);
  expect(Object.fromEntries(runs)).toEqual({ 'default/lq': { seconds: 600, finished: 3 }, 'default/other': { seconds: 200, finished: 2 } });
});

test('an admitted workload runs for what is left; one without a duration takes its queue\'s median; notes say which', () => {
  const admitted = job('running', '10m');
  const overdue = job('overdue', '5m');
  const undeclared = job('undeclared');
  const elsewhere = { ...job('elsewhere'), metadata: { ...job('elsewhere').metadata, labels: { 'kueue.x-k8s.io/queue-name': 'empty' } } };
  const runTimes = new Map([['default/lq', { seconds: 720, finished: 4 }]]);
  const out = liveDurations([admitted, overdue, undeclared, elsewhere], runTimes, new Map([[admitted, T0 - 240], [overdue, T0 - 600]]), T0);
  const durationOf = (o: any) => o.metadata.annotations?.[EXPECTED_DURATION_ANNOTATION];
  expect(out.objects.map(durationOf)).toEqual(['6m', '0s', '12m', undefined]);
  expect(out.notes).toEqual([
    `LocalQueue default/lq: 1 workload(s) without ${EXPECTED_DURATION_ANNOTATION} take 12m, the median run time of the 4 finished `
      + 'Workload(s) of the queue the cluster still holds',
    'admitted workloads run for what is left of their duration since Kueue admitted them: RayJob default/running 6m of 10m, '
      + 'RayJob default/overdue 0s of 5m',
  ]);
  // The input objects are not changed.
  expect(durationOf(admitted)).toBe('10m');
});

test('plan with a live cluster: the new job starts when what is left of the running one is done, on the wall clock', () => {
  const queues = queuesYaml({ cpu: '4' });
  const running = job('running', '10m');
  const workloads = [workload('wl-running', 'lq', 'running', T0 - 240), workload('wl-old', 'lq', 'old', T0 - 7000, T0 - 6100)];
  const order = replayOrder([running], workloads);
  const live: PlanLiveInput = { kueueObjects: [], existing: order.existing, admittedAt: order.admittedAt, runTimes: queueRunTimes(workloads),
    readAt: T0, notes: order.notes };
  const dir = tmpFiles({ 'queues.yaml': queues, 'new.yaml': JSON.stringify(job('new')) });
  const plan = JSON.parse(planCommand([dir, '-o', 'json'], live));
  expect(plan.startTime).toBe('2026-12-05T10:00:00.000Z');
  const byName = (n: string) => plan.workloads.find((w: any) => w.workload === `RayJob default/${n}`);
  // 10m declared, admitted 4m before the read: 6m left. The new job declares nothing: the queue's one finished run, 15m.
  expect([byName('running').admittedAt, byName('running').finishedAt]).toEqual([0, 360]);
  expect([byName('new').admittedAt, byName('new').finishedAt, byName('new').waitsFor]).toEqual([360, 1260, ['RayJob default/running']]);
  const text = planCommand([dir], live);
  expect(text).toMatch(/RayJob default\/new[^\n]*\n[^\n]*\n +when: starts in ~6m \(10:06 UTC, after default\/running finishes\), finishes at ~21m \(10:21 UTC\)\n/);
  expect(text).toMatch(/\n +when: starts at once, finishes at ~6m \(10:06 UTC\)\n/);
  expect(text).toMatch(/LocalQueue default\/lq: 1 workload\(s\) without cdk8s-kueue-ray\.io\/expected-duration take 15m, the median run time of the 1 /);
  // Offline the same files have no wall clock.
  expect(planCommand([dir])).not.toMatch(/UTC/);
});
