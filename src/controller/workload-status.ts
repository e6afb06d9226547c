/**
 * What a Kueue Workload says about its Ray object, in words a user reads in `kubectl describe`:
 * pending with Kueue's reason and the gang's numbers, admitted, preempted (by whom) or evicted.
 * Pure: Workload (and the Ray object, for the gang) in, status and Event out.
 */
import { computeGang, formatResources, KueueCapabilities, RayObject, rayKindOf } from '../policy';
import type { KubernetesObject } from '../kube/client';

/**
 * `awaiting-check`: quota reserved, but an admission check (MultiKueue's dispatch, a provisioning
 * request) has not said Ready yet: the object stays suspended.
 */
export type QueueState = 'pending' | 'awaiting-check' | 'admitted' | 'preempted' | 'evicted' | 'finished';

export interface QueueStatus {
  readonly state: QueueState;
  /** Event reason, e.g. KueuePending. */
  readonly reason: string;
  readonly message: string;
}

export const QUEUE_STATUS_ANNOTATION = 'cdk8s-kueue-ray.io/queue-status';

/** A condition of a Workload's status (metav1.Condition). */
export interface WorkloadCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** One entry of a Workload's status.admissionChecks. */
export interface AdmissionCheckState {
  readonly name?: string;
  readonly state?: string;
  readonly message?: string;
}

/** The fields of a Kueue Workload this file reads, as the API server returns it (checked against Kueue's CRD). */
export interface Workload extends KubernetesObject {
  readonly spec?: { readonly queueName?: string; readonly active?: boolean };
  readonly status?: {
    readonly conditions?: readonly WorkloadCondition[];
    readonly admission?: { readonly clusterQueue?: string };
    readonly admissionChecks?: readonly AdmissionCheckState[];
    readonly clusterName?: string;
  };
}

export function rayOwnerOf(wl: Workload): { kind: string; name: string; uid: string; apiVersion: string } | undefined {
  const o = (wl?.metadata?.ownerReferences ?? []).find((r) => rayKindOf(r) !== undefined && (r.controller ?? true));
  return o ? { kind: o.kind, name: o.name, uid: o.uid, apiVersion: o.apiVersion ?? 'ray.io/v1' } : undefined;
}

function cond(wl: Workload, type: string): WorkloadCondition | undefined {
  return (wl?.status?.conditions ?? []).find((c) => c.type === type);
}

export function workloadStatus(wl: Workload, owner?: RayObject, kueue?: KueueCapabilities): QueueStatus {
  const cq = wl?.status?.admission?.clusterQueue;
  const finished = cond(wl, 'Finished');
  if (finished?.status === 'True') return { state: 'finished', reason: 'KueueFinished',
    message: `Workload ${wl.metadata!.name} finished: ${finished.message ?? finished.reason}` };
  const evicted = cond(wl, 'Evicted');
  const preempted = cond(wl, 'Preempted');
  if (preempted?.status === 'True' || (evicted?.status === 'True' && evicted.reason === 'Preempted')) {
    return { state: 'preempted', reason: 'KueuePreempted',
      message: `Workload ${wl.metadata!.name} was `
        + `preempted: ${(preempted?.status === 'True' ? preempted.message : evicted!.message) ?? 'no message'}` };
  }
  if (evicted?.status === 'True') return { state: 'evicted', reason: 'KueueEvicted',
    message: `Workload ${wl.metadata!.name} was evicted (${evicted.reason}): ${evicted.message ?? ''}`.trim() };
  if (cond(wl, 'Admitted')?.status === 'True') {
    const worker = typeof wl.status?.clusterName === 'string' ? `, dispatched by MultiKueue to worker cluster ${wl.status.clusterName}` : '';
    return { state: 'admitted', reason: 'KueueAdmitted', message: `Workload ${wl.metadata!.name} admitted by ClusterQueue ${cq ?? '?'}${worker}` };
  }
  const qr = cond(wl, 'QuotaReserved');
  const listed = wl?.status?.admissionChecks;
  const checks: readonly AdmissionCheckState[] = Array.isArray(listed) ? listed : [];
  const waiting = checks.filter((c) => c?.state !== 'Ready');
  if (qr?.status === 'True' && waiting.length) {
    const list = waiting.map((c) => `${c.name} (${c.state ?? 'Pending'}${c.message ? `: ${c.message}` : ''})`).join(', ');
    const multiKueue = owner?.spec?.managedBy === 'kueue.x-k8s.io/multikueue'
      ? '; MultiKueue dispatches it once a worker cluster admits it: no worker has room for the whole gang yet, or none is reachable (see the '
        + 'MultiKueueClusters\' Active condition)'
      : '';
    return {
      state: 'awaiting-check', reason: 'KueueAdmissionCheckPending',
      message: `Workload ${wl?.metadata?.name} reserved quota in ClusterQueue ${cq ?? '?'} and waits for admission check ${list}${multiKueue}`,
    };
  }
  let gang = '';
  if (owner && kueue) {
    try {
      gang = `; the gang needs ${formatResources(computeGang(owner, kueue).total)}`;
    } catch {
      gang = '';
    }
  }
  const why = qr?.message ?? (wl?.spec?.active === false ? 'the Workload is inactive' : 'waiting for Kueue to consider it');
  return { state: 'pending', reason: 'KueuePending',
    message: `Workload ${wl?.metadata?.name} is pending in queue ${wl?.spec?.queueName ?? '?'}: ${why}${gang}` };
}

/** The annotation value recorded on the Ray object, e.g. "pending: ...". */
export function statusAnnotation(s: QueueStatus): string {
  const text = `${s.state}: ${s.message}`;
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}

/** A core/v1 Event as statusEvent writes it: its timestamps are RFC 3339 strings to the second. */
export interface StatusEvent {
  readonly apiVersion: 'v1';
  readonly kind: 'Event';
  readonly metadata: { readonly generateName: string; readonly namespace: string };
  readonly involvedObject: {
    readonly apiVersion: string; readonly kind: string; readonly name: string; readonly namespace: string; readonly uid: string;
  };
  readonly reason: string;
  readonly message: string;
  readonly type: 'Normal' | 'Warning';
  readonly source: { readonly component: string };
  readonly reportingComponent: string;
  readonly reportingInstance: string;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly count: number;
}

/** A core/v1 Event on the Ray object. */
export function statusEvent(
  s: QueueStatus, owner: { kind: string; name: string; uid: string; apiVersion: string }, namespace: string, component: string, now: Date,
): StatusEvent {
  const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { generateName: `${owner.name}.`, namespace },
    involvedObject: { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, namespace, uid: owner.uid },
    reason: s.reason,
    message: s.message.length > 1000 ? `${s.message.slice(0, 999)}…` : s.message,
    type: s.state === 'pending' || s.state === 'awaiting-check' || s.state === 'admitted' || s.state === 'finished' ? 'Normal' : 'Warning',
    source: { component },
    reportingComponent: component,
    reportingInstance: component,
    firstTimestamp: ts, lastTimestamp: ts, count: 1,
  };
}

/** What the reconciler last wrote for one Workload. */
export interface Reported {
  /** State of the last Event written. */
  readonly state?: QueueState;
  /** `workloadFingerprint` of the Workload version whose Event and annotation were both written. */
  readonly fingerprint?: string;
  readonly status?: QueueStatus;
}

/**
 * What a Workload says, from the Workload alone (its state and Kueue's message; the gang's numbers
 * come from the Ray object and do not change while the Workload does not), or undefined when there is
 * nothing to mirror: no Ray owner, or a new Workload Kueue has not looked at yet (writing "pending"
 * then would make the real pending state, with Kueue's reason, look already reported).
 */
export function workloadFingerprint(wl: Workload): string | undefined {
  if (!rayOwnerOf(wl)) return undefined;
  const status = workloadStatus(wl);
  if (status.state === 'pending' && !cond(wl, 'QuotaReserved')) return undefined;
  return `${wl?.metadata?.uid ?? ''}|${statusAnnotation(status)}`;
}

/** True when the Workload says something the reconciler has not written yet (so it reads the Ray object). */
export function needsSync(fingerprint: string | undefined, reported: Reported | undefined): boolean {
  return fingerprint !== undefined && reported?.fingerprint !== fingerprint;
}

/**
 * What to write on the Ray object: an Event when the state changed since the last one reported (by
 * this replica, or else by any replica, as the annotation on the object says), and the annotation
 * when its text differs (it follows every change of Kueue's message).
 */
export function plannedWrites(
  status: QueueStatus, currentAnnotation: string | undefined, reported: Reported | undefined,
): { event: boolean; annotation?: string } {
  const value = statusAnnotation(status);
  const previous = reported?.state ?? (currentAnnotation ? currentAnnotation.split(':')[0] : undefined);
  return { event: previous !== status.state, ...(currentAnnotation !== value ? { annotation: value } : {}) };
}
