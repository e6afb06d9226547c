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

const unreadyHead = (p: any) => p.metadata.labels?.['ray.io/node-type'] === 'head' && p.status?.phase === 'Running'
  && !p.metadata.deletionTimestamp && (p.status?.containerStatuses ?? []).some((c: any) => c.name === 'ray-head' && !c.ready);

/**
 * Run in the head's ray-head container (Python is in every Ray image): KubeRay's two probe URLs for Ray
 * < 2.53 (the agent's raylet check, the dashboard's GCS check) with their answers and times; the Ray
 * processes with age and RSS (from /proc: the image has no ps); the container's cgroup v1 memory and CPU-throttling
 * records (a dashboard killed alone leaves the container running); the dashboard's last log lines.
 */
const HEAD_PROBE = `
import glob, os, time, urllib.request
def read(f):
    try:
        return open(f).read().strip()
    except OSError as e:
        return str(e)
for url in ('http://localhost:52365/api/local_raylet_healthz', 'http://localhost:8265/api/gcs_healthz'):
    t = time.time()
    try:
        r = urllib.request.urlopen(url, timeout=10); answer = f'{r.status} {r.read()[:60]!r}'
    except Exception as e:
        answer = f'{type(e).__name__}: {str(e)[:120]}'
    print(f'probe {url[17:]}: {answer} in {time.time() - t:.2f}s')
m = '/sys/fs/cgroup/memory/'
print('memory', {k: read(m + 'memory.' + k) for k in ('limit_in_bytes', 'max_usage_in_bytes', 'failcnt')},
      [l for l in read(m + 'memory.oom_control').splitlines() if 'oom_kill ' in l])
# A CPU limit throttles the whole container once its processes want more than it, and the dashboard's GCS
# check allows 0.1 s: throttling can fail that check while GCS is healthy.
c = next((d for d in ('/sys/fs/cgroup/cpu,cpuacct/', '/sys/fs/cgroup/cpu/') if os.path.isdir(d)), '')
print('cpu', 'quota_us', read(c + 'cpu.cfs_quota_us'), ' '.join(read(c + 'cpu.stat').split()))
# No ps in Ray's image: /proc gives each process's age, RSS and state (T stopped, D blocked, Z dead), briefly.
hz, up, procs = os.sysconf('SC_CLK_TCK'), float(read('/proc/uptime').split()[0]), []
for d in sorted(glob.glob('/proc/[0-9]*'), key=lambda d: int(d[6:])):
    args = read(d + '/cmdline').split('\\0')
    if int(d[6:]) == os.getpid() or args[0] in ('', 'bash', 'python', 'sleep', 'wget', 'grep'):
        continue
    name, rest = os.path.basename(args[0].split(' ')[0]), [a for a in args[1:] if a]
    if name.startswith('python'):
        module = [b for a, b in zip(rest, rest[1:]) if a == '-m']
        name = module[0] if module else os.path.basename(next((a for a in rest if not a.startswith('-')), name))
    stat = read(d + '/stat').rsplit(')', 1)[1].split()
    age, state = up - int(stat[19]) / hz, '' if stat[0] in 'RS' else f' state {stat[0]}'
    rss = next((int(l.split()[1]) for l in read(d + '/status').splitlines() if l.startswith('VmRSS')), 0)
    cpu = (int(stat[11]) + int(stat[12])) / hz
    procs.append(f'{name[:28]} {age:.0f}s cpu {cpu:.0f}s {rss >> 10}M{state}')
for i in range(0, len(procs), 4):
    print('procs', ', '.join(procs[i:i + 4]))
for f in ('dashboard.log', 'dashboard.err'):
    for l in read('/tmp/ray/session_latest/logs/' + f).splitlines()[-5:]:
        print(f, l[:200])
`;

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
  // A Ray head that runs but never turns Ready keeps its job Initializing: what its probes see, which Ray
  // processes live, the container's memory and CPU records and the dashboard's last lines say why.
  for (const p of pods.filter(unreadyHead)) {
    const inside = await safe('exec into the head', () => kubectl('exec', '--request-timeout=30s', '-n', namespace, p.metadata.name,
      '-c', 'ray-head', '--', 'python', '-c', HEAD_PROBE), '');
    const started = await safe('head log', () => kubectl('logs', '--request-timeout=20s', '-n', namespace, p.metadata.name, '-c', 'ray-head',
      '--tail=40'), '');
    out.push(`  ${p.metadata.name} (not Ready) inside:`, ...tail(inside, 22), `  ${p.metadata.name} log:`,
      ...tail(started.split('\n').filter((l) => /error|fail|timed? ?out|dashboard|killed|exception/i.test(l)).join('\n'), 8));
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
  const notable = operator.split('\n').filter((l) => /"level":"(error|warn)"|\b(ERROR|WARN(ING)?)\b/.test(l));
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
