/**
 * Plan scenarios shared by the simulator's unit tests and the agreement suite against the real
 * Kueue: fixed ones (issue 12's list) and a seeded random generator. Every scenario is plain
 * Kubernetes objects; `isolate` renames the cluster-scoped ones so many scenarios share one control plane.
 */
import { kueueCapabilities } from '../../../src/policy/versions';
import { mulberry32 } from '../../support/random';

export interface PlanScenario {
  readonly name: string;
  /** Kueue objects (ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, WorkloadPriorityClasses). */
  readonly objects: any[];
  /** Ray objects in arrival order; an elastic object listed again with other replicas is a scale. */
  readonly arrivals: any[];
}

export interface Builder {
  readonly api: string;
  readonly cohortField: string;
  readonly beta2: boolean;
}

export function builder(kueueVersion: string): Builder {
  const caps = kueueCapabilities(kueueVersion);
  return { api: caps.apiVersion, cohortField: caps.cohortField, beta2: caps.apiVersion.endsWith('v1beta2') };
}

export const NS = 'plan';

export function flavor(b: Builder, name: string): any {
  return { apiVersion: b.api, kind: 'ResourceFlavor', metadata: { name }, spec: {} };
}

export function wpc(b: Builder, name: string, value: number): any {
  return { apiVersion: b.api, kind: 'WorkloadPriorityClass', metadata: { name }, value, description: name };
}

export interface QuotaSpec { readonly flavor: string; readonly cpu: string; readonly borrowingLimit?: string; readonly lendingLimit?: string }

export interface CQSpec {
  readonly cohort?: string;
  readonly quotas: readonly QuotaSpec[];
  readonly within?: string;
  readonly reclaim?: string;
  readonly borrowWithinCohort?: string;
  readonly strict?: boolean;
  readonly whenCanBorrow?: 'stop' | 'try';
  readonly whenCanPreempt?: 'stop' | 'try';
  readonly stopPolicy?: string;
}

export function clusterQueue(b: Builder, name: string, s: CQSpec): any {
  const preemption: any = { withinClusterQueue: s.within ?? 'Never', reclaimWithinCohort: s.reclaim ?? 'Never' };
  if (s.borrowWithinCohort) preemption.borrowWithinCohort = { policy: s.borrowWithinCohort };
  const flavorFungibility: any = {};
  if (s.whenCanBorrow) flavorFungibility.whenCanBorrow = s.whenCanBorrow === 'try' ? 'TryNextFlavor' : b.beta2 ? 'MayStopSearch' : 'Borrow';
  if (s.whenCanPreempt) flavorFungibility.whenCanPreempt = s.whenCanPreempt === 'try' ? 'TryNextFlavor' : b.beta2 ? 'MayStopSearch' : 'Preempt';
  return {
    apiVersion: b.api, kind: 'ClusterQueue', metadata: { name },
    spec: {
      namespaceSelector: {}, ...(s.cohort ? { [b.cohortField]: s.cohort } : {}), queueingStrategy: s.strict ? 'StrictFIFO' : 'BestEffortFIFO',
      preemption, ...(Object.keys(flavorFungibility).length ? { flavorFungibility } : {}), ...(s.stopPolicy ? { stopPolicy: s.stopPolicy } : {}),
      // memory is covered (generously) because the RayJob submitter and the autoscaler sidecar request it.
      resourceGroups: [{
        coveredResources: ['cpu', 'memory'],
        flavors: s.quotas.map((q) => ({
          name: q.flavor,
          resources: [
            { name: 'cpu', nominalQuota: q.cpu, ...(q.borrowingLimit ? { borrowingLimit: q.borrowingLimit } : {}),
              ...(q.lendingLimit ? { lendingLimit: q.lendingLimit } : {}) },
            { name: 'memory', nominalQuota: '64Gi' },
          ],
        })),
      }],
    },
  };
}

export function cohort(b: Builder, name: string, parent?: string, cpu?: { flavor: string; cpu: string }): any {
  return {
    apiVersion: b.api, kind: 'Cohort', metadata: { name },
    spec: {
      ...(parent ? { parentName: parent } : {}),
      ...(cpu ? { resourceGroups: [{ coveredResources: ['cpu', 'memory'],
        flavors: [{ name: cpu.flavor, resources: [{ name: 'cpu', nominalQuota: cpu.cpu }, { name: 'memory', nominalQuota: '0' }] }] }] } : {}),
    },
  };
}

export function localQueue(b: Builder, name: string, cq: string): any {
  return { apiVersion: b.api, kind: 'LocalQueue', metadata: { name, namespace: NS }, spec: { clusterQueue: cq } };
}

function container(name: string, cpu: string): any {
  return { name, image: 'rayproject/ray:2.46.0', resources: { requests: { cpu }, limits: { cpu } } };
}

export interface JobSpec {
  readonly lq: string;
  readonly priority?: string;
  readonly headCpu: string;
  readonly workers?: ReadonlyArray<{ readonly name: string; readonly replicas: number; readonly cpu: string }>;
  readonly elastic?: boolean;
}

/** A RayCluster (no submitter, nothing to run without the operator): the gang is head + workers. */
export function rayCluster(name: string, j: JobSpec): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayCluster',
    metadata: {
      name, namespace: NS,
      labels: { 'kueue.x-k8s.io/queue-name': j.lq, ...(j.priority ? { 'kueue.x-k8s.io/priority-class': j.priority } : {}) },
      ...(j.elastic ? { annotations: { 'kueue.x-k8s.io/elastic-job': 'true' } } : {}),
    },
    spec: {
      rayVersion: '2.46.0',
      ...(j.elastic ? { enableInTreeAutoscaling: true } : {}),
      headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head', j.headCpu)] } } },
      workerGroupSpecs: (j.workers ?? []).map((w) => ({
        groupName: w.name, replicas: w.replicas, minReplicas: 0, maxReplicas: 10, rayStartParams: {},
        template: { spec: { containers: [container('ray-worker', w.cpu)] } },
      })),
    },
  };
}

/** The guide's toy RayJob (1 CPU head, one 1 CPU worker, default submitter 500m): 2.5 CPU. */
export function toyRayJob(name: string, lq: string, priority: string): any {
  const c = (n: string) => ({ name: n, image: 'rayproject/ray:2.46.0',
    resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '1', memory: '2Gi' } } });
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob',
    metadata: { name, namespace: NS, labels: { 'kueue.x-k8s.io/queue-name': lq, 'kueue.x-k8s.io/priority-class': priority } },
    spec: {
      entrypoint: 'python -c "import time; [time.sleep(1) for _ in range(600)]"', shutdownAfterJobFinishes: true, ttlSecondsAfterFinished: 10,
      rayClusterSpec: {
        rayVersion: '2.46.0',
        headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [c('ray-head')] } } },
        workerGroupSpecs: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5, rayStartParams: {},
          template: { spec: { containers: [c('ray-worker')] } } }],
      },
    },
  };
}

function priorities(b: Builder): any[] {
  return [wpc(b, 'low', 10), wpc(b, 'mid', 50), wpc(b, 'high', 100), wpc(b, 'dev-priority', 100), wpc(b, 'prod-priority', 1000)];
}

const rc = (name: string, lq: string, cpu: number, priority?: string) => rayCluster(name, { lq, priority, headCpu: String(cpu) });

/** The fixed scenarios for a Kueue version (field spellings follow its API version). */
export function fixedScenarios(kueueVersion: string): PlanScenario[] {
  const b = builder(kueueVersion);
  const f = flavor(b, 'f1');
  const f2 = flavor(b, 'f2');
  const base = [f, f2, ...priorities(b)];
  const one = (name: string, cq: CQSpec, arrivals: any[]): PlanScenario => ({
    name, objects: [...base, clusterQueue(b, 'cq', cq), localQueue(b, 'lq', 'cq')], arrivals,
  });
  const pair = (name: string, a: CQSpec, bb: CQSpec, arrivals: any[], extra: any[] = []): PlanScenario => ({
    name, objects: [...base, ...extra, clusterQueue(b, 'cq-a', a), clusterQueue(b, 'cq-b', bb), localQueue(b, 'lq-a', 'cq-a'),
      localQueue(b, 'lq-b', 'cq-b')], arrivals,
  });
  const guideCq: CQSpec = { quotas: [{ flavor: 'f1', cpu: '3' }], within: 'LowerPriority' };
  const list: PlanScenario[] = [
    one('guide-gang', guideCq, [toyRayJob('dev-1', 'lq', 'dev-priority'), toyRayJob('dev-2', 'lq', 'dev-priority')]),
    one('guide-priority', guideCq, [toyRayJob('dev-1', 'lq', 'dev-priority'), toyRayJob('prod-1', 'lq', 'prod-priority')]),
    one('gang-three', { quotas: [{ flavor: 'f1', cpu: '5' }] }, [rc('a', 'lq', 2), rc('b', 'lq', 2), rc('c', 'lq', 2)]),
    one('never-fits', { quotas: [{ flavor: 'f1', cpu: '4' }] }, [rc('big', 'lq', 5), rc('small', 'lq', 1)]),
    one('stop-policy-hold', { quotas: [{ flavor: 'f1', cpu: '4' }], stopPolicy: 'Hold' }, [rc('a', 'lq', 1)]),
    one('best-effort-skips-head', { quotas: [{ flavor: 'f1', cpu: '4' }] }, [rc('a', 'lq', 3), rc('b', 'lq', 2), rc('c', 'lq', 1)]),
    one('strict-fifo-blocks', { quotas: [{ flavor: 'f1', cpu: '4' }], strict: true }, [rc('a', 'lq', 3), rc('b', 'lq', 2), rc('c', 'lq', 1)]),
    one('strict-fifo-priority-jumps', { quotas: [{ flavor: 'f1', cpu: '4' }], strict: true },
      [rc('a', 'lq', 3, 'low'), rc('b', 'lq', 2, 'low'), rc('c', 'lq', 1, 'high')]),
    one('priority-ties-no-preemption', { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' },
      [rc('a', 'lq', 2, 'mid'), rc('b', 'lq', 2, 'mid'), rc('c', 'lq', 2, 'mid')]),
    one('newer-equal-priority', { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerOrNewerEqualPriority' },
      [rc('a', 'lq', 3, 'mid'), rc('b', 'lq', 2, 'mid')]),
    one('preemption-chain', { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' },
      [rc('low', 'lq', 2, 'low'), rc('mid', 'lq', 2, 'mid'), rc('high', 'lq', 3, 'high')]),
    one('preemption-minimal-set', { quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority' },
      [rc('low-a', 'lq', 1, 'low'), rc('low-b', 'lq', 2, 'low'), rc('mid', 'lq', 1, 'mid'), rc('high', 'lq', 2, 'high')]),
    one('preemption-cascade', { quotas: [{ flavor: 'f1', cpu: '3' }], within: 'LowerPriority' },
      [rc('low', 'lq', 2, 'low'), rc('mid', 'lq', 2, 'mid'), rc('high', 'lq', 2, 'high')]),
    pair('cohort-borrow', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] }, { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      [rc('a', 'lq-a', 3)]),
    pair('cohort-borrowing-limit', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2', borrowingLimit: '500m' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] }, [rc('a', 'lq-a', 3), rc('b', 'lq-a', 2)]),
    pair('cohort-lending-limit-zero', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2', lendingLimit: '0' }] }, [rc('a', 'lq-a', 3)]),
    pair('cohort-lending-limit-partial', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2', lendingLimit: '1' }] }, [rc('a', 'lq-a', 3), rc('b', 'lq-b', 1), rc('c', 'lq-b', 1)]),
    pair('reclaim-lower-priority', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }], reclaim: 'LowerPriority' }, [rc('a', 'lq-a', 3, 'low'), rc('b', 'lq-b', 2, 'high')]),
    pair('reclaim-any', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }], reclaim: 'Any' }, [rc('a', 'lq-a', 3, 'high'), rc('b', 'lq-b', 2, 'low')]),
    pair('reclaim-never', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] }, { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      [rc('a', 'lq-a', 3, 'low'), rc('b', 'lq-b', 2, 'high')]),
    pair('borrow-within-cohort',
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }], reclaim: 'LowerPriority', borrowWithinCohort: 'LowerPriority' },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] },
      [rc('b1', 'lq-b', 1, 'low'), rc('a1', 'lq-a', 2, 'low'), rc('b2', 'lq-b', 1, 'low'), rc('a2', 'lq-a', 1, 'high')]),
    one('two-flavors-fungibility-default', { quotas: [{ flavor: 'f1', cpu: '2' }, { flavor: 'f2', cpu: '4' }], within: 'LowerPriority' },
      [rc('low', 'lq', 2, 'low'), rc('high', 'lq', 2, 'high')]),
    one('two-flavors-preempt-first',
      { quotas: [{ flavor: 'f1', cpu: '2' }, { flavor: 'f2', cpu: '4' }], within: 'LowerPriority', whenCanPreempt: 'stop' },
      [rc('low', 'lq', 2, 'low'), rc('high', 'lq', 2, 'high')]),
    pair('two-flavors-borrow-first', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '1' }, { flavor: 'f2', cpu: '3' }] },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '3' }, { flavor: 'f2', cpu: '0' }] },
      [rc('a', 'lq-a', 2)]),
    pair('two-flavors-try-next-on-borrow', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '1' }, { flavor: 'f2', cpu: '3' }], whenCanBorrow: 'try' },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '3' }, { flavor: 'f2', cpu: '0' }] }, [rc('a', 'lq-a', 2)]),
    {
      name: 'hierarchical-cohorts',
      objects: [...base, cohort(b, 'root', undefined, { flavor: 'f1', cpu: '2' }), cohort(b, 'child', 'root'),
        clusterQueue(b, 'cq-a', { cohort: 'child', quotas: [{ flavor: 'f1', cpu: '1' }] }),
        clusterQueue(b, 'cq-b', { cohort: 'root', quotas: [{ flavor: 'f1', cpu: '1' }] }),
        localQueue(b, 'lq-a', 'cq-a'), localQueue(b, 'lq-b', 'cq-b')],
      arrivals: [rc('a', 'lq-a', 3), rc('b', 'lq-b', 1), rc('c', 'lq-b', 1)],
    },
    // Seed 926106's random-926124: after the preemption the StrictFIFO preemptor (b2) and the parked a1 both fit
    // alone. Kueue up to 0.15.4 requeues a1 with the release and admits the older a1; from 0.15.5 the parked a1
    // comes back a second later and b2 is admitted first.
    pair('requeue-after-preemption',
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '1', lendingLimit: '1' }], within: 'LowerOrNewerEqualPriority' },
      { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '1', lendingLimit: '1' }], within: 'LowerPriority', reclaim: 'LowerPriority',
        borrowWithinCohort: 'LowerPriority', strict: true },
      [rayCluster('b1', { lq: 'lq-b', priority: 'low', headCpu: '1', workers: [{ name: 'w', replicas: 1, cpu: '1' }] }),
        rayCluster('a1', { lq: 'lq-a', priority: 'mid', headCpu: '1', workers: [{ name: 'w', replicas: 1, cpu: '500m' }] }),
        rc('b2', 'lq-b', 2, 'mid')]),
    one('missing-local-queue', { quotas: [{ flavor: 'f1', cpu: '4' }] }, [rc('a', 'nope', 1), rc('b', 'lq', 1)]),
    one('elastic-scale-up-does-not-fit', { quotas: [{ flavor: 'f1', cpu: '4' }] }, [
      rayCluster('el', { lq: 'lq', headCpu: '1', workers: [{ name: 'workers', replicas: 1, cpu: '1' }], elastic: true }),
      rc('other', 'lq', 1),
      rayCluster('el', { lq: 'lq', headCpu: '1', workers: [{ name: 'workers', replicas: 3, cpu: '1' }], elastic: true }),
    ]),
    one('elastic-scale-up-fits', { quotas: [{ flavor: 'f1', cpu: '6' }] }, [
      rayCluster('el', { lq: 'lq', headCpu: '1', workers: [{ name: 'workers', replicas: 1, cpu: '1' }], elastic: true }),
      rc('other', 'lq', 1),
      rayCluster('el', { lq: 'lq', headCpu: '1', workers: [{ name: 'workers', replicas: 3, cpu: '1' }], elastic: true }),
    ]),
  ];
  return list;
}

/** The seeded PRNG the scenarios draw from: the same seed gives the same scenarios on every machine. */
export const prng = mulberry32;

/**
 * A random scenario: 1-3 ClusterQueues (one flavor, cpu only), often in one cohort with borrowing and
 * lending limits, random preemption policies and queueing strategies, and 3-6 RayClusters of random
 * sizes and priorities. It avoids what Kueue decides by timing: one flavor only (no flavor-scan
 * resumption), no elastic slices.
 */
export function randomScenario(kueueVersion: string, seed: number): PlanScenario {
  const b = builder(kueueVersion);
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const n = 1 + Math.floor(r() * 3);
  const inCohort = n > 1 && r() < 0.8;
  const cqs: any[] = [];
  for (let i = 0; i < n; i++) {
    const nominal = 1 + Math.floor(r() * 5);
    const reclaim = inCohort ? pick(['Never', 'LowerPriority', 'Any']) : 'Never';
    cqs.push(clusterQueue(b, `cq-${i}`, {
      cohort: inCohort ? 'co' : undefined,
      quotas: [{
        flavor: 'f1', cpu: String(nominal),
        borrowingLimit: inCohort && r() < 0.3 ? String(Math.floor(r() * 3)) : undefined,
        lendingLimit: inCohort && r() < 0.3 ? String(Math.floor(r() * (nominal + 1))) : undefined,
      }],
      within: pick(['Never', 'LowerPriority', 'LowerPriority', 'LowerOrNewerEqualPriority']),
      reclaim,
      borrowWithinCohort: reclaim !== 'Never' && r() < 0.3 ? 'LowerPriority' : undefined,
      strict: r() < 0.3,
    }));
  }
  const jobs = 3 + Math.floor(r() * 4);
  const arrivals: any[] = [];
  for (let j = 0; j < jobs; j++) {
    const cq = Math.floor(r() * n);
    const workers = Math.floor(r() * 3);
    arrivals.push(rayCluster(`j${j}`, {
      lq: `lq-${cq}`, priority: pick(['low', 'mid', 'high']), headCpu: pick(['500m', '1', '2']),
      workers: workers ? [{ name: 'w', replicas: workers, cpu: pick(['500m', '1']) }] : [],
    }));
  }
  return {
    name: `random-${seed}`,
    objects: [flavor(b, 'f1'), ...priorities(b), ...cqs, ...cqs.map((c, i) => localQueue(b, `lq-${i}`, c.metadata.name))],
    arrivals,
  };
}

/**
 * The scenario with its cluster-scoped names (flavors, cohorts, ClusterQueues, priority classes) and
 * its namespace prefixed, so scenarios can run side by side on one control plane.
 */
export function isolate(s: PlanScenario, prefix: string): PlanScenario {
  const p = (n: string | undefined) => (n === undefined ? n : `${prefix}-${n}`);
  const ns = `${prefix}-${NS}`;
  const objects = s.objects.map((o) => {
    const c = JSON.parse(JSON.stringify(o));
    if (c.kind === 'LocalQueue') {
      c.metadata.namespace = ns;
      c.spec.clusterQueue = p(c.spec.clusterQueue);
      return c;
    }
    c.metadata.name = p(c.metadata.name);
    if (c.kind === 'ClusterQueue') {
      if (c.spec.cohort) c.spec.cohort = p(c.spec.cohort);
      if (c.spec.cohortName) c.spec.cohortName = p(c.spec.cohortName);
      for (const g of c.spec.resourceGroups) for (const f of g.flavors) f.name = p(f.name);
    }
    if (c.kind === 'Cohort') {
      if (c.spec.parentName) c.spec.parentName = p(c.spec.parentName);
      for (const g of c.spec.resourceGroups ?? []) for (const f of g.flavors) f.name = p(f.name);
    }
    return c;
  });
  const arrivals = s.arrivals.map((o) => {
    const c = JSON.parse(JSON.stringify(o));
    c.metadata.namespace = ns;
    const pc = c.metadata.labels?.['kueue.x-k8s.io/priority-class'];
    if (pc) c.metadata.labels['kueue.x-k8s.io/priority-class'] = p(pc);
    return c;
  });
  return { name: s.name, objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, ...objects], arrivals };
}
