/**
 * Pieces of the plan simulator set up by hand, for the tests of one module: a snapshot of Kueue
 * objects, workloads of Ray objects in it, and admissions into it (what the cycle would have done).
 */
import { computeGang } from '../../../src/policy/gang';
import { QUEUE_NAME_LABEL, PRIORITY_CLASS_LABEL } from '../../../src/policy/ray-object';
import { addUsageMap } from '../../../src/policy/plan/quota-tree';
import { addAdmitted, buildSnapshot, Snapshot, Workload } from '../../../src/policy/plan/snapshot';
import { newWorkload } from '../../../src/policy/plan/workload';
import { kueueCapabilities } from '../../../src/policy/versions';
import { builder, clusterQueue, flavor, localQueue, NS } from './scenarios';

export const V = 'v0.19.2';
export const B = builder(V);

export interface Fixture {
  readonly snapshot: Snapshot;
  /** One per arrival, by object name, queued in its ClusterQueue (not pushed). */
  readonly workloads: Map<string, Workload>;
}

/** The snapshot of `objects` and a workload per arrival (in arrival order: `created` is the index). */
export function fixture(objects: any[], arrivals: any[]): Fixture {
  const kueue = kueueCapabilities(V);
  const gangs = arrivals.map((a) => computeGang(a, kueue));
  const snapshot = buildSnapshot(objects, gangs);
  const workloads = new Map<string, Workload>();
  arrivals.forEach((obj, i) => {
    const lq = snapshot.localQueues.get(`${NS}/${obj.metadata.labels[QUEUE_NAME_LABEL]}`);
    const priorityClass = obj.metadata.labels[PRIORITY_CLASS_LABEL];
    workloads.set(obj.metadata.name, newWorkload({
      id: i, ref: `${obj.kind} ${NS}/${obj.metadata.name}`, kind: obj.kind, namespace: NS, name: obj.metadata.name, arrival: i, created: i, obj,
      localQueue: obj.metadata.labels[QUEUE_NAME_LABEL], clusterQueue: lq ? snapshot.clusterQueues.get(lq.clusterQueue) : undefined,
      clusterQueueName: lq?.clusterQueue, priority: priorityClass ? snapshot.priorities.get(priorityClass) : 0, priorityClass,
      podSets: gangs[i].podSets.map((p) => ({ name: p.name, count: p.count, total: p.total, perPod: p.perPod })), state: 'queued',
    }));
  });
  return { snapshot, workloads };
}

/** Admits `w` with every resource of every PodSet in `flavor`, at arrival `at`: its usage goes into the quota tree and the admitted set. */
export function admit(snapshot: Snapshot, w: Workload, flavor: string, at = w.arrival): void {
  w.flavors = w.podSets.map((ps) => new Map([...ps.total.keys()].map((r) => [r, flavor])));
  w.usage = snapshot.usageOf(w.podSets, w.flavors);
  w.admittedAt = at;
  w.state = 'admitted';
  addUsageMap(w.clusterQueue!, w.usage, 1);
  addAdmitted(w.clusterQueue!, w);
  w.clusterQueue!.memo.version++;
}

/** A ResourceFlavor with node labels and taints. */
export function taintedFlavor(name: string, spec: { nodeLabels?: Record<string, string>; nodeTaints?: any[] }): any {
  return { apiVersion: B.api, kind: 'ResourceFlavor', metadata: { name }, spec };
}

/** Adds tolerations and a node selector to every pod template of a RayCluster. */
export function withScheduling(rc: any, s: { tolerations?: any[]; nodeSelector?: Record<string, string> }): any {
  const templates = [rc.spec.headGroupSpec.template, ...rc.spec.workerGroupSpecs.map((g: any) => g.template)];
  for (const t of templates) Object.assign(t.spec, s);
  return rc;
}

/** Two ClusterQueues a and b of 2 CPU in flavor f1, in cohort co, with nothing admitted: their nodes and the CPU's id. */
export function twoQueueTree() {
  const objects = [flavor(B, 'f1'),
    clusterQueue(B, 'a', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] }), localQueue(B, 'lq-a', 'a'),
    clusterQueue(B, 'b', { cohort: 'co', quotas: [{ flavor: 'f1', cpu: '2' }] }), localQueue(B, 'lq-b', 'b')];
  const { snapshot } = fixture(objects, []);
  return { snapshot, a: snapshot.clusterQueues.get('a')!, b: snapshot.clusterQueues.get('b')!, id: snapshot.flavorResourceOf('f1', 'cpu') };
}
