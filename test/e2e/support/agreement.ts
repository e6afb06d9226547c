// What the two plan agreement harnesses (the admitted set, and the timeline) share: reading Kueue's Workloads, the
// pending category a QuotaReserved condition expresses, and putting a batch of isolated scenarios' queues in place.
import type { PlanScenario } from '../../policy/plan/scenarios';
import { cond, KubeClient, objectPath, waitFor, WatchedCollection } from './kube';

/** The pending category Kueue's QuotaReserved condition expresses, in the plan's vocabulary. */
export function kueueCategory(wl: any): string {
  const qr = cond(wl, 'QuotaReserved');
  if (!qr) return 'none';
  if (qr.status === 'True') return 'admitted';
  const m = String(qr.message ?? '');
  // A victim that was requeued and not evaluated since keeps the eviction message: not evaluated.
  if (/^Preempted to accommodate/.test(m)) return 'none';
  if (/maximum capacity|unavailable in ClusterQueue|doesn't match node affinity|untolerated taint/.test(m)) return 'max-capacity';
  if (/Pending the preemption/.test(m)) return 'preemption-in-progress';
  if (/insufficient unused quota|no longer fits|overlapping preemption/.test(m)) return 'quota';
  if (/inactive|is stopped/i.test(m)) return 'inactive';
  if (/doesn't exist|not found|namespace/i.test(m)) return 'misconfigured';
  return `other: ${m}`;
}

export function wasPreempted(wl: any): boolean {
  const p = cond(wl, 'Preempted');
  const e = cond(wl, 'Evicted');
  return p?.status === 'True' || (e?.status === 'True' && e.reason === 'Preempted');
}

/** Workloads by namespace. */
export function byNamespace(workloads: readonly any[]): Map<string, any[]> {
  const out = new Map<string, any[]>();
  for (const w of workloads) {
    const list = out.get(w.metadata.namespace) ?? [];
    list.push(w);
    out.set(w.metadata.namespace, list);
  }
  return out;
}

/** Every Workload of the cluster in one request, by namespace (one list per scenario would be 100 requests a poll). */
export async function workloadsByNamespace(client: KubeClient, wlApi: string): Promise<Map<string, any[]>> {
  return byNamespace((await client.get(`/apis/${wlApi}/workloads`)).items ?? []);
}

/**
 * Every Workload of the cluster, watched. The settle waits read it every 200 ms; listing them instead cost the API
 * server about half a core while an agreement suite ran (every Workload encoded five times a second).
 */
export function watchWorkloads(client: KubeClient, wlApi: string): Promise<WatchedCollection> {
  return WatchedCollection.start(client, `/apis/${wlApi}/workloads`);
}

/** The state of the Workloads of these namespaces: name@resourceVersion of each, sorted. Equal signatures, same state. */
export function signature(all: ReadonlyMap<string, readonly any[]>, namespaces: Iterable<string>): string {
  const parts: string[] = [];
  for (const ns of namespaces) for (const w of all.get(ns) ?? []) parts.push(`${w.metadata.name}@${w.metadata.resourceVersion}`);
  return parts.sort().join(',');
}

/**
 * A list of the Workloads (a consistent read) if it shows the state `sig` the watch shows, else undefined: a watch
 * may trail the server, so a state read from it counts as settled only once a list agrees.
 */
export async function confirmedByList(client: KubeClient, wlApi: string, namespaces: readonly string[],
  sig: string): Promise<Map<string, any[]> | undefined> {
  const listed = await workloadsByNamespace(client, wlApi);
  return signature(listed, namespaces) === sig ? listed : undefined;
}

const KIND_ORDER = ['Namespace', 'ResourceFlavor', 'WorkloadPriorityClass', 'Cohort', 'ClusterQueue', 'LocalQueue'];

/** Applies the scenarios' queues in dependency order and waits until Kueue knows them all (else "LocalQueue doesn't exist"). */
export async function applyQueues(client: KubeClient, isolated: readonly PlanScenario[]): Promise<void> {
  for (const kind of KIND_ORDER) {
    await Promise.all(isolated.flatMap((s) => s.objects.filter((o) => o.kind === kind).map((o) => client.apply(o))));
  }
  await waitFor('ClusterQueues and LocalQueues known to Kueue', async () => {
    for (const s of isolated) {
      for (const o of s.objects.filter((x) => x.kind === 'ClusterQueue' || x.kind === 'LocalQueue')) {
        const got = await client.get(objectPath(o));
        const held = o.kind === 'ClusterQueue' && o.spec.stopPolicy;
        if (!cond(got, 'Active') || (!held && o.kind === 'ClusterQueue' && cond(got, 'Active').status !== 'True')) return false;
      }
    }
    return true;
  }, 60000, 250);
}
