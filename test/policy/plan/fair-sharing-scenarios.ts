/**
 * Fair-sharing scenarios on the plan's timeline (issue 44), shared by the simulator's unit tests and the agreement
 * against a real Kueue started with fair sharing on: each is one where the tournament's order decides who starts
 * when quota comes back, and the first two are ones where the classical order decides otherwise.
 */
import { builder, clusterQueue, cohort, flavor, localQueue, PlanScenario, prng, rayCluster, wpc } from './scenarios';
import { randomTimelineScenario, timed } from './timeline-scenarios';

const rc = (name: string, lq: string, cpu: number) => rayCluster(name, { lq, headCpu: String(cpu) });

export function fairSharingTimelineScenarios(kueueVersion: string): PlanScenario[] {
  const b = builder(kueueVersion);
  const q = (name: string, cohortName: string, cpu: string, weight?: string, reclaim?: string) => {
    const o = clusterQueue(b, name, { cohort: cohortName, quotas: [{ flavor: 'f', cpu }], reclaim });
    if (weight) o.spec.fairSharing = { weight };
    return o;
  };
  // Cohort co: a and b with 2 CPU, lender l with 6. a runs 6 (borrows 4), b 2, l 2 until 10m: full. a2 and b2 (2 each)
  // wait; at 10m both heads meet with room for one. With a2, a borrows 6 of 10 (share 600); with b2, b 2 of 10 (200).
  const twoQueues = (aWeight?: string) => [flavor(b, 'f'), q('a', 'co', '2', aWeight), q('b', 'co', '2'), q('l', 'co', '6'),
    localQueue(b, 'qa', 'a'), localQueue(b, 'qb', 'b'), localQueue(b, 'ql', 'l')];
  const twoQueueArrivals = [timed(rc('a1', 'qa', 6), 0, 30), timed(rc('b1', 'qb', 2), 0, 30), timed(rc('l1', 'ql', 2), 0, 10),
    timed(rc('a2', 'qa', 2), 1, 5), timed(rc('b2', 'qb', 2), 2, 5)];
  return [
    // b2 starts at 10m (the classical order would start the older a2), a2 when b2 ends at 15m.
    { name: 'fs-lower-share-first', objects: twoQueues(), arrivals: twoQueueArrivals },
    // a's weight 4 puts its share with a2 at 150, under b's 200: a2 starts at 10m.
    { name: 'fs-weight', objects: twoQueues('4'), arrivals: twoQueueArrivals },
    // root (own quota 4) over cohort x (a 2, b 2) and c (1). a runs 4, b 2, c 1 and 2 until 10m: full. At the root, x with
    // a2 would borrow 4 of 9 (444), c with c2 2 of 9 (222): c2 starts at 10m (classically the older a2).
    {
      name: 'fs-hierarchical',
      objects: [flavor(b, 'f'), cohort(b, 'root', undefined, { flavor: 'f', cpu: '4' }), cohort(b, 'x', 'root'), q('a', 'x', '2'),
        q('b', 'x', '2'), q('c', 'root', '1'), localQueue(b, 'qa', 'a'), localQueue(b, 'qb', 'b'), localQueue(b, 'qc', 'c')],
      arrivals: [timed(rc('a1', 'qa', 4), 0, 30), timed(rc('b1', 'qb', 2), 0, 30), timed(rc('c0', 'qc', 1), 0, 30), timed(rc('c1', 'qc', 2), 0, 10),
        timed(rc('a2', 'qa', 2), 1, 5), timed(rc('c2', 'qc', 2), 2, 5)],
    },
    // Preemption by share: a and b with 2 CPU reclaim (Any), shared with 4 does not. b runs four 1-CPU jobs (borrows 2), a 2, shared 2:
    // full. a2 (1 CPU) would make a borrow 1: its share 125 is at most b's 125 once b4 goes (LessThanOrEqualToFinalShare), so
    // b4 is preempted. Without fair sharing a2 waits: a borrowing may not reclaim (borrowWithinCohort Never).
    {
      name: 'fs-preempt-by-share',
      objects: [flavor(b, 'f'), q('a', 'co', '2', undefined, 'Any'), q('b', 'co', '2', undefined, 'Any'), q('s', 'co', '4'),
        localQueue(b, 'qa', 'a'), localQueue(b, 'qb', 'b'), localQueue(b, 'qs', 's')],
      arrivals: [...[1, 2, 3, 4].map((i) => timed(rc(`b${i}`, 'qb', 1), 0, 60)), timed(rc('a1', 'qa', 2), 0, 60), timed(rc('s1', 'qs', 2), 0, 60),
        timed(rc('a2', 'qa', 1), 1, 5)],
    },
    // Within nominal: a and b with 4 CPU; b runs three 2-CPU jobs (borrows 2), a 1. a2 (2 CPU) keeps a within its nominal quota: from
    // 0.17 Kueue reclaims b3 regardless of the shares (FairSharingPreemptWithinNominal); on 0.14 the first strategy takes it too.
    {
      name: 'fs-preempt-within-nominal',
      objects: [flavor(b, 'f'), q('a', 'co', '4', undefined, 'Any'), q('b', 'co', '4', undefined, 'Any'), localQueue(b, 'qa', 'a'),
        localQueue(b, 'qb', 'b')],
      arrivals: [...[1, 2, 3].map((i) => timed(rc(`b${i}`, 'qb', 2), 0, 60)), timed(rc('a1', 'qa', 1), 0, 60), timed(rc('a2', 'qa', 2), 1, 5)],
    },
  ];
}

/**
 * kueue#14543, as the plan found it in random scenario 1909: j2 (high) in cq-1 may preempt j0 (low) in its own queue, which
 * brings cq-1's share down so that j1 in cq-0 becomes preemptible; fillBackWorkloads then puts j0 back, and j1, requeued,
 * wins the next tournament (its share is the lower) and is admitted ahead of j2, which preempts it again.
 */
export function fairSharingLoopScenario(kueueVersion: string): PlanScenario {
  const b = builder(kueueVersion);
  const worker = (n: number, cpu: string) => ({ name: 'w', replicas: n, cpu });
  return {
    name: 'fs-loop-14543',
    objects: [flavor(b, 'f1'), wpc(b, 'low', 10), wpc(b, 'high', 100),
      clusterQueue(b, 'cq-0', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }], reclaim: 'LowerPriority' }),
      clusterQueue(b, 'cq-1', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '4' }], within: 'LowerPriority', reclaim: 'Any' }),
      localQueue(b, 'lq-0', 'cq-0'), localQueue(b, 'lq-1', 'cq-1')],
    arrivals: [rayCluster('j0', { lq: 'lq-1', priority: 'low', headCpu: '2' }),
      rayCluster('j1', { lq: 'lq-0', priority: 'low', headCpu: '2', workers: [worker(1, '500m')] }),
      rayCluster('j2', { lq: 'lq-1', priority: 'high', headCpu: '2', workers: [worker(2, '1')] })],
  };
}

/**
 * The manager's admission fair sharing for the agreement: half-life a week and sampling every five days, so that within
 * a test (minutes of real time, an hour of the plan's) no sampling reconcile runs and the decay at each settlement is
 * under a percent: what orders the queues is the entry penalty (1 - 0.5^(120/168) = 0.31 of each admission's requests),
 * the same in real and in scaled time. Memory weighs nothing (the scenarios request CPU only).
 */
export const AGREEMENT_AFS = { usageHalfLifeTime: '168h', usageSamplingInterval: '120h', resourceWeights: { memory: 0 } };

/**
 * Admission fair sharing scenarios on the timeline (issue 44, stage 5): a ClusterQueue with
 * UsageBasedAdmissionFairSharing that runs one 4-CPU job at a time, where the LocalQueue usage decides who starts
 * when quota comes back (the classical order decides otherwise in both).
 */
export function admissionFairSharingTimelineScenarios(kueueVersion: string): PlanScenario[] {
  const b = builder(kueueVersion);
  const cq = () => {
    const o = clusterQueue(b, 'cq', { quotas: [{ flavor: 'f', cpu: '4' }] });
    o.spec.admissionScope = { admissionMode: 'UsageBasedAdmissionFairSharing' };
    return o;
  };
  const weighted = (name: string, weight: string) => {
    const o = localQueue(b, name, 'cq');
    o.spec.fairSharing = { weight };
    return o;
  };
  const base = [flavor(b, 'f'), wpc(b, 'low', 10), wpc(b, 'high', 100), cq(), localQueue(b, 'qa', 'cq'), localQueue(b, 'qb', 'cq')];
  const job = (name: string, lq: string, priority?: string) => rayCluster(name, { lq, priority, headCpu: '4' });
  // Every decision below is apart by at least half a penalty (0.62 CPU): the decay terms, which differ between the plan's
  // scaled time and the real seconds (and, before 0.19, with the Workload's path to Admitted: kueue#12539), are 1e-4 to
  // 3e-3. Two queues that each paid one penalty would tie up to those terms, and the real order would be timing's.
  return [
    // qb weighs 2. a1 runs; a2, then b1 and b2 wait. At 10m b1 (qa paid a1's penalty, qb nothing), at 20m b2 (qb's one
    // penalty counts half), at 30m a2. Classically a2, b1, b2 by creation.
    {
      name: 'afs-weighted-turns', objects: [...base.slice(0, -1), weighted('qb', '2')],
      arrivals: [timed(job('a1', 'qa'), 0, 10), timed(job('a2', 'qa'), 1, 10), timed(job('b1', 'qb'), 2, 10), timed(job('b2', 'qb'), 3, 10)],
    },
    // qa's a1 runs; b-low (qb) and a-high (qa) wait. At 10m b-low starts: the LocalQueue usage ranks above priority.
    {
      name: 'afs-above-priority', objects: base,
      arrivals: [timed(job('a1', 'qa', 'high'), 0, 10), timed(job('b-low', 'qb', 'low'), 1, 5), timed(job('a-high', 'qa', 'high'), 2, 5)],
    },
  ];
}

/** Fair-sharing weights the random scenarios draw from (0: never ahead while borrowing). */
const WEIGHTS = ['0.5', '1', '1', '2', '4'];

/**
 * A random timeline scenario (randomTimelineScenario) whose ClusterQueues get fair-sharing weights from the seed, so
 * that the shares, not only the usage, decide; the same seed always gives the same scenario.
 */
export function randomFairSharingTimelineScenario(kueueVersion: string, seed: number): PlanScenario {
  const s = randomTimelineScenario(kueueVersion, seed);
  const r = prng(seed ^ 0xfa125);
  const objects = s.objects.map((o: any) => (o.kind !== 'ClusterQueue' ? o
    : { ...o, spec: { ...o.spec, fairSharing: { weight: WEIGHTS[Math.floor(r() * WEIGHTS.length)] } } }));
  return { name: `fs-${s.name}`, objects, arrivals: s.arrivals };
}
