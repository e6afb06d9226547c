/**
 * The plan's text: quantities in the units the user wrote, figures compared on one line in one unit
 * family, and a cohort's line with its usage, what its members borrow and what it pools.
 */
import { PlanResult, simulatePlan } from '../../../src/policy/plan';
import { planToText } from '../../../src/plan/text';
import { builder, clusterQueue, fixedScenarios, flavor, localQueue, rayCluster } from './scenarios';

const V = 'v0.19.2';

/** A RayCluster whose head requests `head` memory and, when given, one worker `worker`. */
function memoryJob(name: string, head: string, worker?: string): any {
  const rc = rayCluster(name, { lq: 'lq', headCpu: '1', workers: worker ? [{ name: 'w', replicas: 1, cpu: '1' }] : [] });
  rc.spec.headGroupSpec.template.spec.containers[0].resources.requests.memory = head;
  if (worker) rc.spec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.memory = worker;
  return rc;
}

function withMemoryQuota(memory: string, arrivals: any[]): PlanResult {
  const b = builder(V);
  const cq = clusterQueue(b, 'cq', { quotas: [{ flavor: 'f1', cpu: '10' }] });
  cq.spec.resourceGroups[0].flavors[0].resources[1].nominalQuota = memory;
  return simulatePlan({ kueueObjects: [flavor(b, 'f1'), cq, localQueue(b, 'lq', 'cq')], arrivals, kueueVersion: V });
}

describe('plan text: units', () => {
  test('a shortfall line prints needs, free and quota in one unit family (binary: a request in Mi against a 6G quota)', () => {
    const r = withMemoryQuota('6G', [memoryJob('a', '4296Mi'), memoryJob('b', '4296Mi')]);
    expect(r.workloads.map((w) => w.outcome)).toEqual(['admitted', 'pending']);
    // The JSON keeps Kubernetes notation, exact.
    expect(r.workloads[1].pending!.shortfalls[0]).toMatchObject({ resource: 'memory', needs: '4296Mi', free: '1460271Ki', nominal: '6G' });
    const text = planToText(r);
    expect(text).toContain('needs memory 4296Mi, 1426.05Mi free of 5722.05Mi in flavor f1 (at most 5722.05Mi)');
    expect(text).toContain('f1/memory 4296Mi of 5722.05Mi');
    // Only Kueue's own message, quoted as Kueue writes it, has KiB.
    expect(text.split('\n').filter((l) => !l.trim().startsWith('Kueue:')).join('\n')).not.toMatch(/[0-9]Ki/);
  });

  test('a sum of decimal and binary requests prints as the user wrote it, not in KiB', () => {
    const r = withMemoryQuota('16Gi', [memoryJob('a', '8G', '200Mi')]);
    expect(r.workloads[0].requests.memory).toBe('8017300Ki');
    expect(planToText(r)).toContain('(priority 0; cpu 2, memory 8G + 200Mi)');
  });
});

describe('plan text: a cohort says its usage, what members borrow, and what it pools', () => {
  test('3 cpu used of 4 pooled, of which 1 borrowed (cq-a has 2 of its own)', () => {
    const s = fixedScenarios(V).find((x) => x.name === 'cohort-borrow')!;
    const r = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: V });
    expect(r.cohorts[0].quotas.find((x) => x.resource === 'cpu')).toMatchObject({ usage: '3', nominal: '4', borrowed: '1' });
    expect(planToText(r)).toContain('cohort co: f1/cpu usage 3 of 4 pooled (1 borrowed)');
  });

  test('a member under a lendingLimit that uses its own quota borrows nothing', () => {
    const s = fixedScenarios(V).find((x) => x.name === 'cohort-lending-limit-partial')!;
    const r = simulatePlan({ kueueObjects: s.objects, arrivals: s.arrivals, kueueVersion: V });
    const cpu = r.cohorts[0].quotas.find((x) => x.resource === 'cpu')!;
    // cq-a (2 own) runs a (3): 1 borrowed; cq-b (2 own, lends 1) runs b (1) within its own quota.
    expect(r.workloads.map((w) => w.outcome)).toEqual(['admitted', 'admitted', 'pending']);
    expect(cpu.borrowed).toBe('1');
  });
});
