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
function byNamespace(workloads: readonly any[]): Map<string, any[]> {
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
function signature(all: ReadonlyMap<string, readonly any[]>, namespaces: Iterable<string>): string {
  const parts: string[] = [];
  for (const ns of namespaces) for (const w of all.get(ns) ?? []) parts.push(`${w.metadata.name}@${w.metadata.resourceVersion}`);
  return parts.sort().join(',');
}

/**
 * Waits until Kueue has settled on the Workloads of these namespaces, and resolves with a list of them. `quietMs`
 * reads the watched Workloads: undefined while the state cannot be final (an object without its Workload), else how
 * long nothing may change. Settled: that long without a change, at least `stepMs` after `stepStart`, and a list (a
 * consistent read) showing the same resourceVersions, for a watch may trail the server.
 */
export async function settleWorkloads(client: KubeClient, wlApi: string, watched: WatchedCollection, namespaces: readonly string[],
  stepStart: number, stepMs: number, quietMs: (all: ReadonlyMap<string, readonly any[]>) => number | undefined): Promise<Map<string, any[]>> {
  let last = '';
  let since = Date.now();
  return waitFor('Kueue to settle', async () => {
    const all = byNamespace(watched.objects());
    const quiet = quietMs(all);
    const sig = signature(all, namespaces);
    if (sig !== last) {
      last = sig;
      since = Date.now();
    }
    if (quiet === undefined || Date.now() - since < quiet || Date.now() - stepStart < stepMs) return false;
    const listed = await workloadsByNamespace(client, wlApi);
    if (signature(listed, namespaces) === sig) return listed;
    since = Date.now();
    return false;
  }, 90000, 200);
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
