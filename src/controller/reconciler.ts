/**
 * The reconciler: a client-node informer on Kueue Workloads mirrors each Workload's state onto the
 * Ray object that owns it, as an Event plus the `cdk8s-kueue-ray.io/queue-status` annotation, so
 * `kubectl describe rayjob` answers "why pending" (with Kueue's reason and the gang's numbers),
 * "admitted", or "preempted, and by whom". One replica works at a time, elected through a Lease.
 */
import { KueueCapabilities } from '../policy';
import { k8s, loadKubeConfig, restartOnError } from './kube-client';
import { QUEUE_STATUS_ANNOTATION, QueueStatus, rayOwnerOf, statusAnnotation, statusEvent, workloadStatus } from './workload-status';


const PLURAL: Record<string, string> = { RayJob: 'rayjobs', RayCluster: 'rayclusters', RayService: 'rayservices' };

export interface ReconcilerOptions {
  /** Path of a kubeconfig; in-cluster config when omitted. */
  readonly kubeconfigFile?: string;
  readonly kueue: KueueCapabilities;
  /** Namespace of the leader-election Lease. */
  readonly leaseNamespace: string;
  /** @default "cdk8s-kueue-ray-controller" */
  readonly leaseName?: string;
  /** This replica's identity (the pod name). */
  readonly identity: string;
  /** @default 15 */
  readonly leaseDurationSeconds?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

export class Reconciler {
  private readonly kc: any;
  private readonly custom: any;
  private readonly core: any;
  private readonly coord: any;
  private informer: any;
  private leaseTimer?: NodeJS.Timeout;
  private leader = false;
  private stopped = false;
  /** Last state reported per Workload ("namespace/name"). */
  private readonly last = new Map<string, string>();
  private readonly version: string;

  constructor(private readonly opts: ReconcilerOptions) {
    this.kc = loadKubeConfig(opts.kubeconfigFile);
    this.custom = this.kc.makeApiClient(k8s.CustomObjectsApi);
    this.core = this.kc.makeApiClient(k8s.CoreV1Api);
    this.coord = this.kc.makeApiClient(k8s.CoordinationV1Api);
    this.version = opts.kueue.apiVersion.split('/')[1];
  }

  get isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    await this.tryLead();
    const duration = (this.opts.leaseDurationSeconds ?? 15) * 1000;
    this.leaseTimer = setInterval(() => { this.tryLead().catch((e) => this.log('warn', 'lease', e)); }, Math.max(1000, duration / 3));
    const path = `/apis/kueue.x-k8s.io/${this.version}/workloads`;
    this.informer = k8s.makeInformer(this.kc, path, () => this.custom.listClusterCustomObject({ group: 'kueue.x-k8s.io', version: this.version, plural: 'workloads' }));
    const onChange = (wl: any) => { this.reconcile(wl).catch((e) => this.log('warn', 'reconcile', e)); };
    this.informer.on('add', onChange);
    this.informer.on('update', onChange);
    // Forget the last state of deleted Workloads, so the map does not grow with every job ever run.
    this.informer.on('delete', (wl: any) => this.last.delete(`${wl?.metadata?.namespace}/${wl?.metadata?.name}`));
    restartOnError(this.informer, 'Workload', () => this.stopped, this.opts.log);
    await this.informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    await this.informer?.stop();
  }

  /** Acquires or renews the Lease; only the holder writes Events and annotations. */
  private async tryLead(): Promise<void> {
    const name = this.opts.leaseName ?? 'cdk8s-kueue-ray-controller';
    const ns = this.opts.leaseNamespace;
    const duration = this.opts.leaseDurationSeconds ?? 15;
    // Lease times are MicroTime (6 fractional digits); a plain Date serializes with 3 and is refused.
    const now = new k8s.V1MicroTime(Date.now());
    let lease: any;
    try {
      lease = await this.coord.readNamespacedLease({ name, namespace: ns });
    } catch (e: any) {
      if (e?.code !== 404) throw e;
      try {
        await this.coord.createNamespacedLease({ namespace: ns, body: { metadata: { name, namespace: ns }, spec: { holderIdentity: this.opts.identity, leaseDurationSeconds: duration, acquireTime: now, renewTime: now, leaseTransitions: 0 } } });
        this.setLeader(true);
      } catch (err: any) {
        if (err?.code !== 409) this.log('warn', 'cannot create the Lease', err);
        this.setLeader(false); // another replica created it first
      }
      return;
    }
    const holder = lease.spec?.holderIdentity;
    const renew = lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
    const expired = now.getTime() > renew + (lease.spec?.leaseDurationSeconds ?? duration) * 1000;
    if (holder !== this.opts.identity && !expired) {
      this.setLeader(false);
      return;
    }
    const spec = { ...lease.spec, holderIdentity: this.opts.identity, leaseDurationSeconds: duration, renewTime: now };
    if (holder !== this.opts.identity) Object.assign(spec, { acquireTime: now, leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1 });
    try {
      await this.coord.replaceNamespacedLease({ name, namespace: ns, body: { ...lease, spec } });
      this.setLeader(true);
    } catch (err: any) {
      if (err?.code !== 409) this.log('warn', 'cannot renew the Lease', err);
      this.setLeader(false); // lost the race (resourceVersion conflict)
    }
  }

  private setLeader(v: boolean): void {
    if (v !== this.leader) this.log('info', v ? 'became leader' : 'not the leader');
    this.leader = v;
    if (v && this.informer) for (const wl of this.informer.list?.() ?? []) this.reconcile(wl).catch(() => undefined);
  }

  /** Mirrors one Workload onto its Ray owner, once per state change. */
  async reconcile(wl: any): Promise<QueueStatus | undefined> {
    if (!this.leader) return undefined;
    const owner = rayOwnerOf(wl);
    if (!owner || !PLURAL[owner.kind]) return undefined;
    const ns = wl.metadata.namespace;
    let obj: any;
    try {
      obj = await this.custom.getNamespacedCustomObject({ group: 'ray.io', version: 'v1', namespace: ns, plural: PLURAL[owner.kind], name: owner.name });
    } catch (e: any) {
      if (e?.code === 404) return undefined; // deleted meanwhile
      throw e;
    }
    const status = workloadStatus(wl, obj, this.opts.kueue);
    // A new Workload has no condition yet: nothing to mirror until Kueue has said something. (Writing
    // the annotation then would make the real "pending" look already reported below.)
    if (status.state === 'pending' && !(wl.status?.conditions ?? []).some((c: any) => c.type === 'QuotaReserved')) return undefined;
    const value = statusAnnotation(status);
    const key = `${ns}/${wl.metadata.name}`; // a Workload has one Ray owner
    const current = obj.metadata?.annotations?.[QUEUE_STATUS_ANNOTATION];
    // An Event per state change. The annotation says what an earlier leader already reported; the
    // Event goes first, so a failed Event is retried rather than hidden by an annotation already written.
    const previous = this.last.get(key) ?? (current ? current.split(':')[0] : undefined);
    if (previous !== status.state) {
      // Claimed before the await, so a concurrent reconcile of the same Workload does not emit it twice;
      // released if the Event could not be written, so the next reconcile retries.
      const claimed = this.last.get(key);
      this.last.set(key, status.state);
      try {
        await this.core.createNamespacedEvent({ namespace: ns, body: statusEvent(status, owner, ns, 'cdk8s-kueue-ray-controller', new Date()) });
      } catch (e) {
        if (claimed === undefined) this.last.delete(key);
        else this.last.set(key, claimed);
        throw e;
      }
      this.log('info', 'queue status', { object: `${owner.kind} ${ns}/${owner.name}`, state: status.state });
    }
    if (current !== value) {
      // The annotation follows every change of Kueue's message (e.g. the quota still missing).
      try {
        await this.custom.patchNamespacedCustomObject(
          { group: 'ray.io', version: 'v1', namespace: ns, plural: PLURAL[owner.kind], name: owner.name, body: { metadata: { annotations: { [QUEUE_STATUS_ANNOTATION]: value } } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
      } catch (e: any) {
        if (e?.code === 404) return undefined; // deleted between the read and the patch
        throw e;
      }
    }
    return status;
  }

  private log(level: string, msg: string, detail?: unknown): void {
    const err = detail instanceof Error ? detail.message : detail;
    this.opts.log?.({ level, msg, ...(err !== undefined ? { detail: err } : {}) });
  }
}
