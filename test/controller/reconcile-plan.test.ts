// The reconciler's decisions (pure): from the Workload alone whether anything must be written (so an
// unchanged Workload costs no request), and which writes (Event, annotation) a changed one needs.
import { needsSync, plannedWrites, Reported, statusAnnotation, workloadFingerprint, workloadStatus } from '../../src/controller/workload-status';

const owner = { apiVersion: 'ray.io/v1', kind: 'RayJob', name: 'job-a', uid: 'u-job', controller: true };
const wl = (conditions: any[], extra: any = {}) => ({
  metadata: { name: 'rayjob-job-a-1', namespace: 'team-a', uid: 'u-wl', ownerReferences: [owner], ...extra.metadata },
  spec: { queueName: 'q' }, status: { conditions },
});
const pending = (msg: string) => ({ type: 'QuotaReserved', status: 'False', reason: 'Pending', message: msg });
const admitted = [{ type: 'QuotaReserved', status: 'True' }, { type: 'Admitted', status: 'True' }];

describe('workloadFingerprint', () => {
  test('nothing to mirror: no Ray owner, or Kueue has not looked at the Workload yet', () => {
    expect(workloadFingerprint(wl([]))).toBeUndefined();
    expect(workloadFingerprint(wl([pending('x')], { metadata: { ownerReferences: [{ kind: 'Job', name: 'j', uid: 'u' }] } }))).toBeUndefined();
    expect(workloadFingerprint(wl([pending('x')]))).toBeDefined();
  });

  test('same state and message: same fingerprint, whatever else changed (resourceVersion, timestamps)', () => {
    const a = wl([pending('no quota')], { metadata: { resourceVersion: '1' } });
    const b = wl([{ ...pending('no quota'), lastTransitionTime: 'later' }], { metadata: { resourceVersion: '2' } });
    expect(workloadFingerprint(a)).toBe(workloadFingerprint(b));
  });

  test('a new Kueue message, a new state or a recreated Workload changes it', () => {
    const base = workloadFingerprint(wl([pending('no quota for cpu')]));
    expect(workloadFingerprint(wl([pending('no quota for memory')]))).not.toBe(base);
    expect(workloadFingerprint(wl(admitted))).not.toBe(base);
    expect(workloadFingerprint(wl([pending('no quota for cpu')], { metadata: { uid: 'u-other' } }))).not.toBe(base);
  });
});

describe('needsSync', () => {
  const f = workloadFingerprint(wl([pending('no quota')]))!;
  test('nothing written yet, or something else written: sync (reads the Ray object)', () => {
    expect(needsSync(f, undefined)).toBe(true);
    expect(needsSync(f, { state: 'pending' })).toBe(true); // Event written, annotation not yet
    expect(needsSync(f, { state: 'pending', fingerprint: 'other' })).toBe(true);
  });
  test('already written, or nothing to mirror: no request', () => {
    expect(needsSync(f, { state: 'pending', fingerprint: f })).toBe(false);
    expect(needsSync(undefined, undefined)).toBe(false);
  });
});

describe('plannedWrites', () => {
  const status = workloadStatus(wl([pending('no quota')]));
  const value = statusAnnotation(status);
  test('first report: an Event and the annotation', () => {
    expect(plannedWrites(status, undefined, undefined)).toEqual({ event: true, annotation: value });
  });
  test('an earlier leader reported the state (annotation on the object): no second Event, the annotation follows the message', () => {
    expect(plannedWrites(status, 'pending: an older message', undefined)).toEqual({ event: false, annotation: value });
    expect(plannedWrites(status, value, undefined)).toEqual({ event: false });
  });
  test('this replica reported the state: its memory wins over a stale annotation', () => {
    const reported: Reported = { state: 'pending' };
    expect(plannedWrites(status, 'admitted: old', reported)).toEqual({ event: false, annotation: value });
  });
  test('a state change: a new Event', () => {
    const adm = workloadStatus(wl(admitted));
    expect(plannedWrites(adm, value, { state: 'pending' })).toEqual({ event: true, annotation: statusAnnotation(adm) });
  });
});

describe('workloadStatus: admission checks (MultiKueue)', () => {
  const reserved = { type: 'QuotaReserved', status: 'True' };
  const mkOwner = { apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'job-a', namespace: 'team-a' },
    spec: { managedBy: 'kueue.x-k8s.io/multikueue' } };
  test('quota reserved on the manager, the MultiKueue check pending: awaiting-check, saying no worker has room yet', () => {
    const w = { ...wl([reserved]), status: { conditions: [reserved], admission: { clusterQueue: 'cq' },
      admissionChecks: [{ name: 'multikueue', state: 'Pending', message: '' }] } };
    const s = workloadStatus(w, mkOwner as any);
    expect(s.state).toBe('awaiting-check');
    expect(s.reason).toBe('KueueAdmissionCheckPending');
    expect(s.message).toMatch(/reserved quota in ClusterQueue cq and waits for admission check multikueue \(Pending\); MultiKueue dispatches it once a worker cluster admits it/);
    // A state of its own: the Event is written when the job moves from pending to waiting on the check.
    expect(plannedWrites(s, 'pending: waiting', undefined).event).toBe(true);
  });
  test('dispatched: admitted, naming the worker cluster', () => {
    const w = { ...wl(admitted), status: { conditions: admitted, admission: { clusterQueue: 'cq' }, clusterName: 'worker-2',
      admissionChecks: [{ name: 'multikueue', state: 'Ready' }] } };
    expect(workloadStatus(w).message).toMatch(/admitted by ClusterQueue cq, dispatched by MultiKueue to worker cluster worker-2/);
  });
  test('a check that is Ready does not hold the workload; no check at all is the plain pending path', () => {
    const w = { ...wl([reserved]), status: { conditions: [reserved], admissionChecks: [{ name: 'prov', state: 'Ready' }] } };
    expect(workloadStatus(w).state).toBe('pending');
  });
});
