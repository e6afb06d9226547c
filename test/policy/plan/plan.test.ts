/**
 * The plan simulator on hand-made queues and workloads (pure logic); the agreement with the real
 * Kueue is test/e2e/plan-agreement.e2e.test.ts.
 */
import { ApiObject, Chart, Testing } from 'cdk8s';
import { KueueInstall, Plan, Quantity,
  ResourceFlavor, ResourceName, TenantQueue, WithinClusterQueuePolicy, WorkloadPriorityClass } from '../../../src';
import { PlanResult, simulatePlan } from '../../../src/policy/plan';
import { planToText } from '../../../src/plan/text';
import { isQueued } from '../../../src/policy/ray-object';
import { skipsKueue } from '../../../src/policy/kinds';
import { kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../../src/policy/versions';
import { examples, synthAll } from '../../support/synth';
import { fairSharingTimelineScenarios } from './fair-sharing-scenarios';
import { fixedTasScenarios } from './tas-scenarios';
import {
  builder, clusterQueue, fixedScenarios, flavor, isolate, localQueue, PlanScenario, randomScenario, rayCluster, toyRayJob, wpc,
} from './scenarios';

const V = 'v0.19.2';

function run(s: PlanScenario, version = V): PlanResult {
  return simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: version });
}

function scenario(name: string, version = V): PlanScenario {
  const s = fixedScenarios(version).find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}`);
  return s;
}

function outcomes(r: PlanResult): Record<string, string> {
  return Object.fromEntries(r.workloads.map((w) => [w.name, w.outcome]));
}

describe('plan simulator', () => {
  test('the guide gang scenario: one dev job admitted, the other pending for quota with the numbers', () => {
    const r = run(scenario('guide-gang'));
    expect(outcomes(r)).toEqual({ 'dev-1': 'admitted', 'dev-2': 'pending' });
    const p = r.workloads[1].pending!;
    expect(p.category).toBe('quota');
    expect(p.shortfalls).toContainEqual(expect.objectContaining({ resource: 'cpu', needs: '2.5', free: '0.5', nominal: '3' }));
    expect(planToText(r)).toContain('needs cpu 2.5, 0.5 free of 3');
  });

  test('the guide priority scenario: the prod job preempts the dev job, named, with the reason', () => {
    const r = run(scenario('guide-priority'));
    expect(outcomes(r)).toEqual({ 'dev-1': 'pending', 'prod-1': 'admitted-by-preempting' });
    expect(r.workloads[1].preempted).toEqual([expect.objectContaining({ workload: 'RayJob plan/dev-1', reason: 'InClusterQueue', priority: 100 })]);
    expect(r.workloads[0].preemptedBy).toEqual(['RayJob plan/prod-1']);
    // The trace shows the cycle that preempted, the release, and the admission after it; the requeued victim
    // is looked at again when the batched requeue (0.15.5+) brings the parked workloads back.
    const results = r.trace.flatMap((c) => c.candidates.map((e) => `${e.workload}:${e.result}`));
    expect(results).toEqual(['RayJob plan/dev-1:admitted', 'RayJob plan/prod-1:preempting', 'RayJob plan/prod-1:admitted',
      'RayJob plan/dev-1:pending', 'RayJob plan/dev-1:pending']);
  });

  test('BestEffortFIFO admits a smaller job behind a blocked head; StrictFIFO keeps it waiting', () => {
    expect(outcomes(run(scenario('best-effort-skips-head')))).toEqual({ a: 'admitted', b: 'pending', c: 'admitted' });
    const strict = run(scenario('strict-fifo-blocks'));
    expect(outcomes(strict)).toEqual({ a: 'admitted', b: 'pending', c: 'pending' });
    expect(strict.workloads[2].pending!.category).toBe('strict-fifo-blocked');
    expect(outcomes(run(scenario('strict-fifo-priority-jumps')))).toEqual({ a: 'admitted', b: 'pending', c: 'admitted' });
  });

  test('the minimal victim set: the most recently admitted lowest-priority workload that frees enough', () => {
    const r = run(scenario('preemption-minimal-set'));
    expect(outcomes(r)).toEqual({ 'low-a': 'admitted', 'low-b': 'pending', 'mid': 'admitted', 'high': 'admitted-by-preempting' });
    const chain = run(scenario('preemption-chain'));
    expect(chain.workloads.find((w) => w.name === 'high')!.preempted!.map((v) => v.workload)).toEqual(['RayCluster plan/low', 'RayCluster plan/mid']);
  });

  test('equal priority is never preempted under LowerPriority', () => {
    expect(outcomes(run(scenario('priority-ties-no-preemption')))).toEqual({ a: 'admitted', b: 'admitted', c: 'pending' });
  });

  test('cohorts: borrowing, borrowingLimit, lendingLimit, reclaim', () => {
    expect(outcomes(run(scenario('cohort-borrow')))).toEqual({ a: 'admitted' });
    const limited = run(scenario('cohort-borrowing-limit'));
    expect(outcomes(limited)).toEqual({ a: 'never-admissible', b: 'admitted' });
    expect(limited.workloads[0].pending!.category).toBe('max-capacity');
    expect(outcomes(run(scenario('cohort-lending-limit-zero')))).toEqual({ a: 'never-admissible' });
    expect(outcomes(run(scenario('cohort-lending-limit-partial')))).toEqual({ a: 'admitted', b: 'admitted', c: 'pending' });
    const reclaim = run(scenario('reclaim-lower-priority'));
    expect(outcomes(reclaim)).toEqual({ a: 'pending', b: 'admitted-by-preempting' });
    expect(reclaim.workloads[1].preempted![0].reason).toBe('InCohortReclamation');
    expect(outcomes(run(scenario('reclaim-any')))).toEqual({ a: 'pending', b: 'admitted-by-preempting' });
    expect(outcomes(run(scenario('reclaim-never')))).toEqual({ a: 'admitted', b: 'pending' });
  });

  test.each([
    // Parked workloads come back with the release (0.14.8): the older a1 goes first.
    ['v0.14.8', { b1: 'pending', a1: 'admitted', b2: 'pending' }],
    // Batched requeue (0.15.5+): the preemptor b2, still in its queue, is admitted before the parked a1 returns.
    ['v0.17.0', { b1: 'pending', a1: 'pending', b2: 'admitted-by-preempting' }],
    ['v0.19.2', { b1: 'pending', a1: 'pending', b2: 'admitted-by-preempting' }],
  ])('after a preemption on %s, which of two waiting workloads is admitted (seed 926106, random-926124)', (version, want) => {
    const r = run(scenario('requeue-after-preemption', version), version);
    expect(outcomes(r)).toEqual(want);
    expect(r.workloads[0].preemptedBy).toEqual(['RayCluster plan/b2']);
    expect(r.ambiguities).toEqual([]);
  });

  test('flavor fungibility: try the next flavor before preempting (default), or preempt in the first', () => {
    const d = run(scenario('two-flavors-fungibility-default'));
    expect(outcomes(d)).toEqual({ low: 'admitted', high: 'admitted' });
    expect(d.workloads[1].admission![0].flavors).toEqual({ cpu: 'f2' });
    // The victim is requeued and fits the second flavor.
    const pf = run(scenario('two-flavors-preempt-first'));
    expect(outcomes(pf)).toEqual({ low: 'admitted', high: 'admitted-by-preempting' });
    expect(pf.workloads[0].preemptedBy).toEqual(['RayCluster plan/high']);
    expect(pf.workloads[0].admission![0].flavors).toEqual({ cpu: 'f2' });
    expect(run(scenario('two-flavors-borrow-first')).workloads[0].admission![0].flavors).toEqual({ cpu: 'f1' });
    expect(run(scenario('two-flavors-try-next-on-borrow')).workloads[0].admission![0].flavors).toEqual({ cpu: 'f2' });
  });

  test('stopPolicy Hold, a missing LocalQueue, and an elastic scale-up that does not fit', () => {
    expect(run(scenario('stop-policy-hold')).workloads[0].pending!.category).toBe('inactive');
    expect(run(scenario('missing-local-queue')).workloads.map((w) => w.outcome)).toEqual(['pending', 'admitted']);
    const el = run(scenario('elastic-scale-up-does-not-fit'));
    expect(el.workloads.map((w) => `${w.name}:${w.outcome}`)).toEqual(['el:admitted', 'other:admitted', 'el:never-admissible']);
    expect(el.workloads[2].scaleUpOf).toBe('RayCluster plan/el');
    const fits = run(scenario('elastic-scale-up-fits'));
    expect(fits.workloads.map((w) => `${w.name}:${w.outcome}`)).toEqual(['other:admitted', 'el:admitted']);
    // head 1 + autoscaler sidecar 0.5 (v0.19) + 3 workers + the other job 1.
    expect(fits.clusterQueues[0].quotas[0].usage).toBe('5.5');
  });

  test('an admitted elastic workload scaled down stays a preemption candidate, with its new usage', () => {
    const b = builder(V);
    const objects = [flavor(b, 'f1'), wpc(b, 'low', 10), wpc(b, 'high', 100),
      clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '6' }], within: 'LowerPriority' }), localQueue(b, 'lq', 'cq')];
    const el = (replicas: number) => rayCluster('el',
      { lq: 'lq', priority: 'low', headCpu: '1', workers: [{ name: 'workers', replicas, cpu: '1' }], elastic: true });
    const r = simulatePlan({ kueueObjects: objects, arrivals: [el(3), el(1), rayCluster('h', { lq: 'lq', priority: 'high', headCpu: '5' })],
      kueueVersion: V });
    expect(r.workloads.map((w) => `${w.name}:${w.outcome}`)).toEqual(['el:pending', 'h:admitted-by-preempting']);
    expect(r.workloads[1].preempted!.map((v) => v.workload)).toEqual(['RayCluster plan/el']);
  });

  test('quantities stay exact in any unit: milli-CPU and odd byte counts add up to the quota, not past it', () => {
    const b = builder(V);
    // 1.5 CPU quota, 0.5 CPU per gang: three fit, the fourth does not. Memory in odd bytes: 3 x 1000001 fit in 3000003.
    const cq = clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '1500m' }] });
    cq.spec.resourceGroups[0].flavors[0].resources[1].nominalQuota = '3000003';
    const objects = [flavor(b, 'f1'), cq, localQueue(b, 'lq', 'cq')];
    const job = (name: string) => {
      const o = rayCluster(name, { lq: 'lq', headCpu: '500m' });
      o.spec.headGroupSpec.template.spec.containers[0].resources.requests.memory = '1000001';
      return o;
    };
    const r = simulatePlan({ kueueObjects: objects, arrivals: ['a', 'b', 'c', 'd'].map(job), kueueVersion: V });
    expect(r.workloads.map((w) => w.outcome)).toEqual(['admitted', 'admitted', 'admitted', 'pending']);
    expect(r.clusterQueues[0].quotas.map((q) => `${q.resource} ${q.usage}/${q.nominal}`)).toEqual(['cpu 1.5/1.5', 'memory 3000003/3000003']);
    expect(r.workloads[3].pending!.shortfalls).toContainEqual(expect.objectContaining({ resource: 'cpu', needs: '0.5', free: '0' }));
  });

  test('quantities too large to add up exactly are refused with the resource named', () => {
    const b = builder(V);
    const cq = clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '4' }] });
    // 4Ei plus an odd byte: the common unit is one byte, and the sum passes 2^53 bytes.
    cq.spec.resourceGroups[0].flavors[0].resources[1].nominalQuota = '4Ei';
    const o = rayCluster('a', { lq: 'lq', headCpu: '1' });
    o.spec.headGroupSpec.template.spec.containers[0].resources.requests.memory = '1';
    expect(() => simulatePlan({ kueueObjects: [flavor(b, 'f1'), cq, localQueue(b, 'lq', 'cq')], arrivals: [o], kueueVersion: V }))
      .toThrow(/the memory quotas and requests add up to \d+ units of 1, more than the simulator holds exactly \(2\^53\)/);
  });

  test('deterministic, and isolation does not change the decisions', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const s = randomScenario(V, seed);
      const a = run(s);
      expect(JSON.stringify(run(s))).toBe(JSON.stringify(a));
      expect(run(isolate(s, 'x')).workloads.map((w) => w.outcome)).toEqual(a.workloads.map((w) => w.outcome));
    }
  });

  test('a tenant\'s objects are planned as the controller\'s webhook creates them: queue label and default priority added', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    const flavor = new ResourceFlavor(chart, 'f1');
    const dev = new WorkloadPriorityClass(chart, 'dev', { value: 100 });
    const prod = new WorkloadPriorityClass(chart, 'prod', { value: 1000 });
    const team = new TenantQueue(chart, 'team', {
      namespace: 'team', defaultPriorityClass: prod, allowedPriorityClasses: [dev, prod],
      preemption: { withinClusterQueue: WithinClusterQueuePolicy.LOWER_PRIORITY },
      resourceGroups: [{ flavors: [{ flavor, quotas: [{ resource: ResourceName.CPU, nominalQuota: Quantity.cpu(2) },
        { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(8) }] }] }],
    });
    const inTeam = (o: any, labels?: Record<string, string>) => ({ ...o, metadata: { name: o.metadata.name, namespace: 'team', labels } });
    const lq = team.localQueueName;
    const labelled = inTeam(rayCluster('labelled', { lq, headCpu: '2' }),
      { 'kueue.x-k8s.io/queue-name': lq, 'kueue.x-k8s.io/priority-class': 'dev' });
    // No label at all, as a raw YAML user writes it: the webhook queues it at the tenant's default (prod, 1000).
    const bare = inTeam(rayCluster('bare', { lq: 'ignored', headCpu: '2' }));
    const r = simulatePlan({ kueueObjects: synthAll(app), arrivals: [labelled, bare], kueueVersion: V });
    expect(r.workloads.map((w) => `${w.name}:${w.outcome}:${w.priority}`)).toEqual(['labelled:pending:100', 'bare:admitted-by-preempting:1000']);
    expect(r.notes).toContainEqual(expect.stringContaining(`1 arrival(s) in namespace "team" planned with kueue.x-k8s.io/queue-name: ${lq}, `
      + 'kueue.x-k8s.io/priority-class: prod (the controller\'s webhook, the TenantQueue\'s defaults)'));
    // Outside a tenant namespace nothing is added: no label, not queued.
    const elsewhere = { ...bare, metadata: { name: 'bare', namespace: 'other' } };
    expect(simulatePlan({ kueueObjects: synthAll(app), arrivals: [elsewhere], kueueVersion: V }).workloads[0].outcome).toBe('not-queued');
  });

  test('Kueue\'s own default: an object without a queue label in a namespace with a LocalQueue named default is queued to it', () => {
    const b = builder(V);
    const objects = [flavor(b, 'f1'), clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '2' }] }), localQueue(b, 'default', 'cq')];
    const bare = rayCluster('bare', { lq: 'x', headCpu: '1' });
    delete bare.metadata.labels;
    const r = simulatePlan({ kueueObjects: objects, arrivals: [bare], kueueVersion: V });
    expect(r.workloads.map((w) => `${w.name}:${w.outcome}:${w.clusterQueue}`)).toEqual(['bare:admitted:cq']);
    expect(r.notes.join('\n')).toMatch(/planned with kueue.x-k8s.io\/queue-name: default \(Kueue's webhook: the namespace has a LocalQueue named default\)/);
    // A RayJob's own RayCluster is not defaulted (Kueue manages its owner), nor is anything where no default LocalQueue exists.
    const child = { ...bare, metadata: { ...bare.metadata, name: 'child',
      ownerReferences: [{ apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'j', uid: 'u', controller: true }] } };
    expect(simulatePlan({ kueueObjects: objects, arrivals: [child], kueueVersion: V }).workloads[0].outcome).toBe('not-queued');
  });

  // The RayJob shapes Kueue's Skip() and queue-name reading tell apart; the webhook's rules read the same predicates.
  const shapes: Array<[string, (o: any) => void]> = [
    ['an empty clusterSelector', (o) => { o.spec.clusterSelector = {}; delete o.spec.rayClusterSpec; }],
    ['a clusterSelector and no rayClusterSpec', (o) => { o.spec.clusterSelector = { 'ray.io/cluster': 'c' }; delete o.spec.rayClusterSpec; }],
    ['the queue-name annotation only', (o) => {
      o.metadata.annotations = { 'kueue.x-k8s.io/queue-name': o.metadata.labels['kueue.x-k8s.io/queue-name'] };
      delete o.metadata.labels['kueue.x-k8s.io/queue-name'];
    }],
  ];
  const cases = SUPPORTED_KUEUE_VERSIONS.flatMap((v) => shapes.map(([name, shape]) => [v, name, shape] as const));
  test.each(cases)('on %s, a RayJob with %s is queued by plan exactly when the webhook rules call it Kueue-managed', (version, _n, shape) => {
    const b = builder(version);
    const objects = [flavor(b, 'f1'), wpc(b, 'dev-priority', 100), clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '8' }] }),
      localQueue(b, 'lq', 'cq')];
    const job = toyRayJob('j', 'lq', 'dev-priority');
    shape(job);
    const caps = kueueCapabilities(version);
    const managed = isQueued(job, caps) && !skipsKueue(job, caps);
    const w = simulatePlan({ kueueObjects: objects, arrivals: [job], kueueVersion: version }).workloads[0];
    expect(w.outcome === 'not-queued').toBe(!managed);
  });

  test('an empty clusterSelector is not "an existing cluster": Kueue queues the job (its Skip() wants a non-empty selector)', () => {
    const b = builder(V);
    const objects = [flavor(b, 'f1'), clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '8' }] }), localQueue(b, 'lq', 'cq')];
    const job = toyRayJob('j', 'lq', 'dev-priority');
    delete job.metadata.labels['kueue.x-k8s.io/priority-class'];
    job.spec.clusterSelector = {};
    delete job.spec.rayClusterSpec;
    expect(simulatePlan({ kueueObjects: objects, arrivals: [job], kueueVersion: V }).workloads[0].outcome).toBe('admitted');
    job.spec.clusterSelector = { 'ray.io/cluster': 'c' };
    expect(simulatePlan({ kueueObjects: objects, arrivals: [job], kueueVersion: V }).workloads[0]).toEqual(expect.objectContaining({
      outcome: 'not-queued', notQueued: 'a RayJob with clusterSelector runs on an existing cluster: Kueue skips it' }));
  });

  test('Kueue before 0.15 reads the queue-name annotation: plan queues such a job there, and not on 0.17', () => {
    const s = scenario('guide-gang', 'v0.14.8');
    const annotated = s.arrivals.map((o) => {
      const c = JSON.parse(JSON.stringify(o));
      c.metadata.annotations = { 'kueue.x-k8s.io/queue-name': c.metadata.labels['kueue.x-k8s.io/queue-name'] };
      delete c.metadata.labels['kueue.x-k8s.io/queue-name'];
      return c;
    });
    expect(outcomes(run({ ...s, arrivals: annotated }, 'v0.14.8'))).toEqual({ 'dev-1': 'admitted', 'dev-2': 'pending' });
    const s17 = scenario('guide-gang', 'v0.17.0');
    expect(outcomes(run({ ...s17, arrivals: annotated }, 'v0.17.0'))).toEqual({ 'dev-1': 'not-queued', 'dev-2': 'not-queued' });
  });

  test('Plan.of(app) answers at synth: the examples app admits one gang job, and the other when the first finishes', () => {
    const app = examples({ kueue: V, kubeRay: 'v1.6.2', scenarios: ['queues', 'gang-scheduling'] });
    const plan = Plan.of(app);
    // The guide's two toy jobs (its 600-step loop, expectedDuration 10m): the second starts when the first finishes.
    expect(plan.workloads.map((w) => [w.outcome, w.admittedAt, w.finishedAt, w.waitsFor]))
      .toEqual([['admitted', 0, 600, []], ['admitted', 600, 1200, ['RayJob default/rayjob-sample-(1)']]]);
    expect(plan.isAdmitted('rayjob-sample-(1)')).toBe(true);
    expect(plan.startsAt('rayjob-sample-(1)')).toBe(0);
    expect(plan.startsAt('rayjob-sample-(2)')).toBe(600);
    expect(plan.text).toContain('when: starts in ~10m (after default/rayjob-sample-(1) finishes), finishes at ~20m');
    expect(() => plan.workload('nope')).toThrow(/no workload 'nope'.*rayjob-sample-\(1\)/);
  });

  test('Plan.of(app) plans with the app\'s KueueInstall Configuration: with fair sharing on, a2 preempts by share; off, it waits', () => {
    const [s] = fairSharingTimelineScenarios(V).filter((x) => x.name === 'fs-preempt-by-share');
    const planOf = (fairSharing: boolean) => {
      const app = Testing.app();
      const chart = new Chart(app, 'c');
      new KueueInstall(chart, 'kueue', { fairSharing: { enabled: fairSharing } });
      for (const [i, o] of [...s.objects, ...s.arrivals].entries()) new ApiObject(chart, `o${i}`, o);
      return Plan.of(app);
    };
    const on = planOf(true);
    expect(on.workload('a2').outcome).toBe('admitted-by-preempting');
    expect(on.workload('a2').preempted.map((v) => v.reason)).toEqual(['InCohortFairSharing']);
    expect(on.text).toMatch(/configuration read from the app \(ConfigMap kueue-manager-config\) and the app \(Deployment kueue-controller-manager\): fair sharing on/);
    const off = planOf(false);
    // Off: team-a would borrow and may not reclaim while borrowing; a2 waits for the 60-minute jobs to finish.
    expect(off.workload('a2').admittedAt).toBe(3600);
    expect(off.workload('a2').preempted).toEqual([]);
  });

  test('Plan.of(app) places TAS workloads on the app\'s Topology and Node objects; without Nodes they wait, and the plan says why', () => {
    const [s] = fixedTasScenarios(V).filter((x) => x.name === 'tas-required-rack-best-fit');
    const planOf = (withNodes: boolean) => {
      const app = Testing.app();
      const chart = new Chart(app, 'c');
      for (const [i, o] of [...s.objects, ...(withNodes ? s.nodes : []), ...s.arrivals].entries()) new ApiObject(chart, `o${i}`, o);
      return Plan.of(app);
    };
    expect(planOf(true).workload('a').admitted).toBe(true);
    expect(planOf(true).text).toContain('      workers on tas: n3 ×3');
    const none = planOf(false);
    expect(none.workload('a').admitted).toBe(false);
    expect(none.text).toContain('no Node objects were given');
  });
});
