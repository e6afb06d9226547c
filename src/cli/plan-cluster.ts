/**
 * `plan --kubeconfig`: the live cluster's queues and the Ray workloads it already holds, so the plan
 * answers "what happens if I apply this now". Read once through the CLIs' cluster reader (loaded only
 * when used: it pulls in @kubernetes/client-node).
 *
 * The existing workloads are replayed before the new manifests: those holding quota first, in the
 * order Kueue reserved it (QuotaReserved time), then the pending ones in creation order. Finished
 * workloads and clusters KubeRay created for a RayJob or RayService are left out.
 */
import { RAY_KIND_TABLE, rayKindOf, RayObject } from '../policy';
import { isRecord } from '../policy/json';
import { PlanAdmission, topologyAssignmentOf } from '../policy/plan';
import { admittedAtOf, LiveCondition, LiveWorkload, QueueRunTime, queueRunTimes } from './plan-live-durations';

/** A Ray object as the cluster lists it: what the replay reads beside what the policy reads. */
export interface LiveRayObject extends RayObject {
  readonly metadata?: RayObject['metadata'] & { readonly uid?: string; readonly creationTimestamp?: string };
}

export interface LiveCluster {
  /** ClusterQueues, Cohorts, ResourceFlavors, LocalQueues, WorkloadPriorityClasses, Namespaces. */
  readonly kueueObjects: unknown[];
  /** Ray objects with a queue name, in the order the plan replays them. */
  readonly existing: RayObject[];
  /** When Kueue admitted each of `existing` that is admitted (epoch seconds). */
  readonly admittedAt: Map<RayObject, number>;
  /** How Kueue admitted each of `existing` that holds quota: its flavors, and its pods' places on TAS nodes. */
  readonly admissions: Map<RayObject, PlanAdmission>;
  /** The median run time of each LocalQueue's finished Workloads ("namespace/name"). */
  readonly runTimes: Map<string, QueueRunTime>;
  /** When the cluster was read (epoch seconds): the plan's start. */
  readonly readAt: number;
  readonly notes: string[];
  /** Nodes and the pods bound to them, read when some ResourceFlavor has a topologyName (topology-aware scheduling). */
  readonly nodes?: unknown[];
  readonly boundPods?: unknown[];
}

const cond = (o: LiveWorkload | undefined, type: string): LiveCondition | undefined =>
  (o?.status?.conditions ?? []).find((c) => c?.type === type);

/** Orders the cluster's Ray objects as the plan replays them (pure; exported for tests). */
export function replayOrder(rayObjects: readonly LiveRayObject[], workloads: readonly LiveWorkload[])
  : { existing: RayObject[]; admittedAt: Map<RayObject, number>; admissions: Map<RayObject, PlanAdmission>; notes: string[] } {
  const byOwner = new Map<string | undefined, LiveWorkload>();
  for (const w of workloads) for (const o of w?.metadata?.ownerReferences ?? []) byOwner.set(o.uid, w);
  const notes: string[] = [];
  const rows: Array<{ obj: LiveRayObject; admittedAt?: string; admittedSeconds?: number; createdAt: string; admission?: PlanAdmission }> = [];
  for (const obj of rayObjects) {
    const metadata = obj?.metadata;
    if (!metadata?.labels?.['kueue.x-k8s.io/queue-name']) continue;
    if ((metadata.ownerReferences ?? []).some((o) => rayKindOf(o)?.ownsRayCluster)) continue;
    const wl = byOwner.get(metadata.uid);
    if (cond(wl, 'Finished')?.status === 'True') continue;
    const reserved = cond(wl, 'QuotaReserved');
    rows.push({ obj, admittedAt: reserved?.status === 'True' ? reserved.lastTransitionTime : undefined,
      admittedSeconds: reserved?.status === 'True' ? admittedAtOf(wl) : undefined,
      createdAt: wl?.metadata?.creationTimestamp ?? metadata.creationTimestamp ?? '',
      admission: reserved?.status === 'True' ? admissionOf(wl) : undefined });
  }
  rows.sort((a, b) => {
    if (!!a.admittedAt !== !!b.admittedAt) return a.admittedAt ? -1 : 1;
    const ka = a.admittedAt ?? a.createdAt;
    const kb = b.admittedAt ?? b.createdAt;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const admitted = rows.filter((r) => r.admittedAt).length;
  notes.push(`the cluster holds ${rows.length} queued Ray workload(s) (${admitted} with quota reserved): replayed before the new manifests`);
  // Status is the cluster's, not an input of the plan.
  const existing = rows.map((r) => ({ ...r.obj, status: undefined }));
  const admittedAt = new Map<RayObject, number>();
  const admissions = new Map<RayObject, PlanAdmission>();
  rows.forEach((r, i) => {
    if (r.admittedSeconds !== undefined) admittedAt.set(existing[i], r.admittedSeconds);
    if (r.admission) admissions.set(existing[i], r.admission);
  });
  return { existing, admittedAt, admissions, notes };
}

/** A Workload's admission as the plan keeps it: each PodSet's flavors, and its topology assignment on a TAS flavor. */
export function admissionOf(wl: LiveWorkload | undefined): PlanAdmission | undefined {
  const podSets = (wl as { status?: { admission?: { podSetAssignments?: unknown } } } | undefined)?.status?.admission?.podSetAssignments;
  if (!Array.isArray(podSets)) return undefined;
  return {
    podSets: (podSets as unknown[]).filter((p): p is Record<string, unknown> => isRecord(p) && typeof p.name === 'string').map((p) => {
      const flavors: Record<string, string> = {};
      const given = typeof p.flavors === 'object' && p.flavors !== null ? p.flavors as Record<string, unknown> : {};
      for (const [r, f] of Object.entries(given)) if (typeof f === 'string') flavors[r] = f;
      const topology = topologyAssignmentOf(p.topologyAssignment);
      return { name: p.name as string, flavors, ...(topology ? { topology } : {}) };
    }),
  };
}

export async function readLiveCluster(kubeconfig: string, kueueApiVersion: string): Promise<LiveCluster> {
  const { ClusterReader } = await import('./cluster-reader');
  const r = new ClusterReader(kubeconfig);
  const kueue = (plural: string, kind: string) => r.listCustom(kueueApiVersion, plural, kind);
  // One list after the other: a CLI reads once, and a burst of parallel reads gains nothing here.
  const lqs = await kueue('localqueues', 'LocalQueue');
  const cqs = await kueue('clusterqueues', 'ClusterQueue');
  const cohorts = await kueue('cohorts', 'Cohort');
  const flavors = await kueue('resourceflavors', 'ResourceFlavor');
  const wpcs = await kueue('workloadpriorityclasses', 'WorkloadPriorityClass');
  const tas = flavors.some((f) => typeof (f.spec as { topologyName?: unknown } | undefined)?.topologyName === 'string');
  const topologies = tas ? await kueue('topologies', 'Topology') : [];
  const { nodes, boundPods } = tas ? await nodesAndPods(r) : { nodes: undefined, boundPods: undefined };
  const namespaces = await r.listNamespaces(true);
  let rayObjects: LiveRayObject[] = [];
  for (const k of RAY_KIND_TABLE) rayObjects = rayObjects.concat(await r.listCustom(k.apiVersion, k.plural, k.kind));
  const workloads = await kueue('workloads', 'Workload');
  const order = replayOrder(rayObjects, workloads);
  const kueueObjects = [...cqs, ...cohorts, ...flavors, ...lqs, ...wpcs, ...namespaces, ...topologies];
  return { kueueObjects, existing: order.existing, admittedAt: order.admittedAt, admissions: order.admissions, runTimes: queueRunTimes(workloads),
    readAt: Date.now() / 1000,
    notes: [...r.notes, ...order.notes], ...(nodes ? { nodes, boundPods } : {}) };
}

/**
 * The Nodes and bound pods, for a TAS flavor. Pods placed by TAS are left to the replay of their workloads (the plan
 * places those again, see docs/plan.md). Without the right to list them, a note: the TAS flavors have no nodes.
 */
async function nodesAndPods(r: import('./cluster-reader').ClusterReader): Promise<{ nodes?: unknown[]; boundPods?: unknown[] }> {
  try {
    return { nodes: await r.listNodes(), boundPods: await r.listBoundPods() };
  } catch (e) {
    r.notes.push(`${(e as Error).message.split('. Fix:')[0]}: topology-aware scheduling is planned without the cluster's nodes (give --nodes FILE)`);
    return {};
  }
}
