/**
 * What a person would look at when a guide scenario stalls (`kubectl get rayjobs,rayclusters,workloads,pods`,
 * the Warning events, the submitter's and KubeRay's last lines), in a few dozen lines: a failed test appends
 * it to its error, because CI keeps only the tail of a run's output and the lanes repeat each failure's
 * message there.
 */
import { KubeClient } from '../e2e/support/kube';

type Kubectl = (...args: string[]) => Promise<string>;

const conditions = (o: any, types: readonly string[]) => (o.status?.conditions ?? [])
  .filter((c: any) => types.includes(c.type) && c.status === 'True').map((c: any) => `${c.type}${c.reason ? `(${c.reason})` : ''}`).join(',');
const tail = (text: string, n: number) => text.trim().split('\n').filter((l) => l.trim()).slice(-n).map((l) => `    ${l.slice(0, 220)}`);

/** Each line of the namespace's Ray, Kueue and pod state, then the last Warning events and log lines. */
export async function namespaceDiagnosis(client: KubeClient, kubectl: Kubectl, namespace: string): Promise<string> {
  const out: string[] = [`--- ${namespace} at failure`];
  const safe = async <T>(what: string, fn: () => Promise<T>, fallback: T): Promise<T> => fn().catch((e) => {
    out.push(`  (${what}: ${(e as Error).message.split('\n')[0]})`);
    return fallback;
  });
  const list = (apiVersion: string, kind: string) => safe(`list ${kind}`, () => client.list(apiVersion, kind, namespace), [] as any[]);
  for (const j of await list('ray.io/v1', 'RayJob')) {
    const s = j.status ?? {};
    out.push(`  RayJob ${j.metadata.name}: ${s.jobDeploymentStatus ?? '-'}/${s.jobStatus ?? '-'} cluster ${s.rayClusterName ?? '-'} `
      + `suspend ${j.spec?.suspend ?? false} failed ${s.failed ?? 0}${s.reason ? ` reason ${s.reason}` : ''}`
      + (s.message ? ` "${String(s.message).slice(0, 160)}"` : ''));
  }
  for (const c of await list('ray.io/v1', 'RayCluster')) {
    out.push(`  RayCluster ${c.metadata.name}: ${c.status?.state ?? '-'} ready workers ${c.status?.readyWorkerReplicas ?? 0} `
      + conditions(c, ['HeadPodReady', 'RayClusterProvisioned', 'RayClusterSuspended']));
  }
  for (const w of await list('kueue.x-k8s.io/v1beta2', 'Workload')) {
    out.push(`  Workload ${w.metadata.name}: ${conditions(w, ['QuotaReserved', 'Admitted', 'Evicted', 'Preempted', 'Finished']) || 'pending'}`);
  }
  const pods = await list('v1', 'Pod');
  for (const p of pods) {
    const cs = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].map((c: any) => {
      const state = Object.keys(c.state ?? {})[0] ?? '?';
      const why = c.state?.[state]?.reason ?? c.lastState?.terminated?.reason;
      return `${c.name} ${state}${why ? `(${why})` : ''}${c.ready ? ' ready' : ''}${c.restartCount ? ` restarts ${c.restartCount}` : ''}`;
    });
    out.push(`  Pod ${p.metadata.name}: ${p.status?.phase ?? '-'}${p.metadata.deletionTimestamp ? ' deleting' : ''} [${cs.join('; ')}]`);
  }
  const events = (await list('v1', 'Event')).filter((e) => e.type === 'Warning')
    .sort((a, b) => String(a.lastTimestamp ?? a.eventTime).localeCompare(String(b.lastTimestamp ?? b.eventTime))).slice(-8);
  if (events.length) out.push('  last Warning events:');
  for (const e of events) {
    out.push(`    ${e.involvedObject?.kind}/${e.involvedObject?.name} ${e.reason} x${e.count ?? 1}: ${String(e.message).slice(0, 180)}`);
  }
  // The submitter's `ray job submit` output: where the job's own story ends when KubeRay's status stops moving.
  for (const p of pods.filter((x) => x.metadata.labels?.['batch.kubernetes.io/job-name'])) {
    const log = await safe('submitter log', () => kubectl('logs', '--request-timeout=20s', '-n', namespace, p.metadata.name, '--tail=5'), '');
    out.push(`  ${p.metadata.name} log:`, ...tail(log, 5));
  }
  const operator = await safe('KubeRay log',
    () => kubectl('logs', '--request-timeout=20s', '-n', 'kuberay-system', 'deploy/kuberay-operator', '--tail=400'), '');
  const notable = operator.split('\n').filter((l) => /"level":"(error|warn)"|\bERROR\b|\bWARN/i.test(l));
  if (notable.length) out.push('  KubeRay operator, last errors/warnings:', ...tail(notable.join('\n'), 6));
  return out.join('\n');
}

/**
 * The test body, with the namespace's state (and the summary of each watch the body pushed onto `watches`)
 * appended to the error it throws. Jest reports the error's message, and the lanes repeat it at the end of
 * CI's output.
 */
export function diagnosed(client: () => KubeClient, kubectl: Kubectl, namespace: string, watches: Array<{ summary(): string }>,
  body: () => Promise<void>): () => Promise<void> {
  return async () => {
    watches.length = 0;
    try {
      await body();
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const timelines = watches.map((w) => w.summary()).filter(Boolean).join('\n');
      const state = await namespaceDiagnosis(client(), kubectl, namespace).catch((d) => `(no diagnosis: ${(d as Error).message})`);
      err.message = `${err.message}\n${timelines ? `--- timeline\n${timelines}\n` : ''}${state}`;
      throw err;
    }
  };
}
