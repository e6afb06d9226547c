/**
 * `plan --kubeconfig` on the timeline (issue 43, item 4): how long what the cluster runs has left, and how long
 * the workloads that declare nothing will run, from what the cluster already did. Pure: the Workloads and the
 * read time come in, durations and notes go out.
 *
 * - An admitted workload with `cdk8s-kueue-ray.io/expected-duration` runs for what is left of it: the duration
 *   minus the time since Kueue admitted its Workload (at least 0: an overdue one is taken to finish at once).
 * - A workload without the annotation takes the median run time (Finished minus Admitted) of the finished
 *   Workloads of its LocalQueue that the cluster still holds, and a note says so with their number. Kueue keeps
 *   a finished Workload until its owner goes (or its retention time passes), so that is what is left to learn from.
 */
import { EXPECTED_DURATION_ANNOTATION, expectedDurationOf, QUEUE_NAME_LABEL, RayObject } from '../policy';
import { formatGoDuration } from '../policy/go-duration';

/** The median run time of a LocalQueue's finished Workloads, and how many there were. */
export interface QueueRunTime {
  readonly seconds: number;
  readonly finished: number;
}

/** A condition of a Workload's status (metav1.Condition). */
export interface LiveCondition {
  readonly type?: string;
  readonly status?: string;
  readonly lastTransitionTime?: string;
}

/** A Kueue Workload as the cluster lists it (checked against Kueue's CRD): the fields `plan` reads. */
export interface LiveWorkload {
  readonly metadata?: {
    readonly namespace?: string;
    readonly creationTimestamp?: string;
    readonly ownerReferences?: ReadonlyArray<{ readonly uid?: string }>;
  };
  readonly spec?: { readonly queueName?: string };
  readonly status?: { readonly conditions?: readonly LiveCondition[] };
}

const cond = (o: LiveWorkload | undefined, type: string) => (o?.status?.conditions ?? []).find((c) => c?.type === type && c?.status === 'True');
const seconds = (iso: unknown) => (typeof iso === 'string' ? Date.parse(iso) / 1000 : NaN);

/** When Kueue admitted a Workload (Admitted, else QuotaReserved: without admission checks the two are one), in epoch seconds. */
export function admittedAtOf(workload: LiveWorkload | undefined): number | undefined {
  const t = seconds((cond(workload, 'Admitted') ?? cond(workload, 'QuotaReserved'))?.lastTransitionTime);
  return Number.isFinite(t) ? t : undefined;
}

/** The median run time per LocalQueue ("namespace/name") of the finished Workloads that were admitted. */
export function queueRunTimes(workloads: readonly LiveWorkload[]): Map<string, QueueRunTime> {
  const runs = new Map<string, number[]>();
  for (const w of workloads) {
    const finished = seconds(cond(w, 'Finished')?.lastTransitionTime);
    const admitted = admittedAtOf(w);
    const queue = w?.spec?.queueName;
    if (!Number.isFinite(finished) || admitted === undefined || typeof queue !== 'string' || finished < admitted) continue;
    const key = `${w.metadata?.namespace}/${queue}`;
    runs.set(key, [...(runs.get(key) ?? []), finished - admitted]);
  }
  const out = new Map<string, QueueRunTime>();
  for (const [key, xs] of runs) {
    const s = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(s.length / 2);
    out.set(key, { seconds: Math.round(s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2), finished: s.length });
  }
  return out;
}

const withDuration = (obj: RayObject, secs: number): RayObject => ({
  ...obj,
  metadata: { ...obj.metadata, annotations: { ...(obj.metadata?.annotations ?? {}), [EXPECTED_DURATION_ANNOTATION]: formatGoDuration(secs) } },
});

const queueOf = (obj: RayObject) => `${obj.metadata?.namespace ?? 'default'}/${obj.metadata?.labels?.[QUEUE_NAME_LABEL]}`;

/**
 * The objects with the durations the cluster implies: what is left for an admitted one (`admittedAt`, epoch
 * seconds, by object), the queue's median for one that declares none. Notes say which, once per queue.
 */
export function liveDurations(objects: readonly RayObject[], runTimes: ReadonlyMap<string, QueueRunTime>,
  admittedAt: ReadonlyMap<RayObject, number>, now: number): { objects: RayObject[]; notes: string[] } {
  const notes: string[] = [];
  const byMedian = new Map<string, number>();
  const left: string[] = [];
  const out = objects.map((obj) => {
    const declared = expectedDurationOf(obj);
    const median = runTimes.get(queueOf(obj));
    const total = declared ?? median?.seconds;
    if (declared === undefined && median) byMedian.set(queueOf(obj), (byMedian.get(queueOf(obj)) ?? 0) + 1);
    const since = admittedAt.get(obj);
    if (total === undefined) return obj;
    if (since === undefined) return declared === undefined ? withDuration(obj, total) : obj;
    const remaining = Math.max(0, Math.round(total - (now - since)));
    left.push(`${obj.kind} ${obj.metadata?.namespace}/${obj.metadata?.name} ${formatGoDuration(remaining)} of ${formatGoDuration(total)}`);
    return withDuration(obj, remaining);
  });
  for (const [queue, n] of byMedian) {
    const m = runTimes.get(queue)!;
    notes.push(`LocalQueue ${queue}: ${n} workload(s) without ${EXPECTED_DURATION_ANNOTATION} take ${formatGoDuration(m.seconds)}, the median `
      + `run time of the ${m.finished} finished Workload(s) of the queue the cluster still holds`);
  }
  if (left.length) notes.push(`admitted workloads run for what is left of their duration since Kueue admitted them: ${left.join(', ')}`);
  return { objects: out, notes };
}
