/**
 * The reconciler: a client-node informer on Kueue Workloads mirrors each Workload's state onto the
 * Ray object that owns it, as an Event plus the `cdk8s-kueue-ray.io/queue-status` annotation, so
 * `kubectl describe rayjob` answers "why pending" (with Kueue's reason and the gang's numbers),
 * "admitted", or "preempted, and by whom". One replica works at a time, elected through a Lease.
 */
import { KueueCapabilities, RayObject, rayKindNamed } from '../policy';
import {
  apiClient, errorCode, k8s, restartOnError, sharedKubeConfig, type CoordinationV1Api, type CoreV1Api, type CoreV1Event, type CustomObjectsApi,
  type Informer, type KubeConfig, type ObjectCache, type V1Lease,
} from '../kube/client';
import { WorkQueue } from './work-queue';
import {
  needsSync, plannedWrites, QUEUE_STATUS_ANNOTATION, QueueStatus, Reported, rayOwnerOf, statusEvent, Workload, workloadFingerprint,
  workloadStatus,
} from './workload-status';



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
  /** Workloads reconciled at once (each is up to three API requests). @default 4 */
  readonly concurrency?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

export class Reconciler {
  private readonly kc: KubeConfig;
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly coord: CoordinationV1Api;
  private informer?: Informer<Workload> & ObjectCache<Workload>;
  private leaseTimer?: NodeJS.Timeout;
  private leasing?: Promise<void>;
  /** When this replica last wrote the Lease (ms). */
  private renewedAt = 0;
  private leader = false;
  private stopped = false;
  /** What this replica last wrote per Workload ("namespace/name"); cleared when it loses the Lease. */
  private readonly last = new Map<string, Reported>();
  private readonly queue: WorkQueue<Workload>;
  private readonly version: string;

  constructor(private readonly opts: ReconcilerOptions) {
    this.kc = sharedKubeConfig(opts.kubeconfigFile);
    this.custom = apiClient(opts.kubeconfigFile, k8s.CustomObjectsApi);
    this.core = apiClient(opts.kubeconfigFile, k8s.CoreV1Api);
    this.coord = apiClient(opts.kubeconfigFile, k8s.CoordinationV1Api);
    this.version = opts.kueue.apiVersion.split('/')[1];
    // Bounded, one at a time per Workload, yielding between items: a Lease gained with 1,000
    // Workloads in the informer no longer fires 1,000 requests at once on the webhook's thread.
    this.queue = new WorkQueue<Workload>({
      concurrency: opts.concurrency ?? 4,
      handle: (_key, wl) => this.reconcile(wl),
      onError: (key, e) => this.log('warn', `reconcile ${key}`, e),
    });
  }

  get isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    await this.renewLease();
    const duration = (this.opts.leaseDurationSeconds ?? 15) * 1000;
    // Its own timer, and no reconcile ever holds the event loop for long (see WorkQueue), so renewal
    // is on time under load; a late renewal used to lose the Lease and re-reconcile everything.
    this.leaseTimer = setInterval(() => {
      // A leader that could not renew within the Lease's duration stops writing: another may lead now.
      if (this.leader && Date.now() - this.renewedAt > duration) this.setLeader(false);
      this.renewLease().catch((e) => this.log('warn', 'lease', e));
    }, Math.max(1000, duration / 3));
    const path = `/apis/kueue.x-k8s.io/${this.version}/workloads`;
    const informer = k8s.makeInformer<Workload>(this.kc, path,
      () => this.custom.listClusterCustomObject({ group: 'kueue.x-k8s.io', version: this.version, plural: 'workloads' }));
    this.informer = informer;
    const onChange = (wl: Workload) => this.enqueue(wl);
    informer.on('add', onChange);
    informer.on('update', onChange);
    // Forget deleted Workloads, so the map does not grow with every job ever run.
    informer.on('delete', (wl: Workload) => {
      const key = `${wl?.metadata?.namespace}/${wl?.metadata?.name}`;
      this.last.delete(key);
      this.queue.forget(key);
    });
    restartOnError(informer, 'Workload', () => this.stopped, this.opts.log);
    await informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.queue.stop();
    await this.informer?.stop();
  }

  /** Resolves when no reconcile waits or runs (tests). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private enqueue(wl: Workload): void {
    // Only the leader works; gaining the Lease enqueues every Workload the informer holds.
    if (!this.leader || this.stopped) return;
    // Decided from the Workload alone: no request at all when it says nothing new.
    const key = `${wl?.metadata?.namespace}/${wl?.metadata?.name}`;
    if (!needsSync(workloadFingerprint(wl), this.last.get(key))) return;
    this.queue.add(key, wl);
  }

  /** One renewal at a time: a slow API server must not pile up Lease requests. */
  private renewLease(): Promise<void> {
    this.leasing ??= this.tryLead().finally(() => { this.leasing = undefined; });
    return this.leasing;
  }

  /** Acquires or renews the Lease; only the holder writes Events and annotations. */
  private async tryLead(): Promise<void> {
    const name = this.opts.leaseName ?? 'cdk8s-kueue-ray-controller';
    const ns = this.opts.leaseNamespace;
    const duration = this.opts.leaseDurationSeconds ?? 15;
    // Lease times are MicroTime (6 fractional digits); a plain Date serializes with 3 and is refused.
    const now = new k8s.V1MicroTime(Date.now());
    let lease: V1Lease;
    try {
      lease = await this.coord.readNamespacedLease({ name, namespace: ns });
    } catch (e) {
      if (errorCode(e) !== 404) throw e;
      try {
        const spec = { holderIdentity: this.opts.identity, leaseDurationSeconds: duration, acquireTime: now, renewTime: now, leaseTransitions: 0 };
        await this.coord.createNamespacedLease({ namespace: ns, body: { metadata: { name, namespace: ns }, spec } });
        this.renewedAt = now.getTime();
        this.setLeader(true);
      } catch (err) {
        if (errorCode(err) !== 409) this.log('warn', 'cannot create the Lease', err);
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
      this.renewedAt = now.getTime();
      this.setLeader(true);
    } catch (err) {
      if (errorCode(err) !== 409) this.log('warn', 'cannot renew the Lease', err);
      this.setLeader(false); // lost the race (resourceVersion conflict)
    }
  }

  private setLeader(v: boolean): void {
    if (v === this.leader) return;
    this.log('info', v ? 'became leader' : 'not the leader');
    this.leader = v;
    if (!v) {
      // Another replica writes now: what this one wrote may be stale when it leads again, so it then
      // reads each object's annotation once more instead of trusting its memory (no duplicate Events).
      this.queue.clear();
      this.last.clear();
      return;
    }
    // The Lease was just written (renewed before any work); the queue bounds and spreads the rest.
    for (const wl of this.informer?.list?.() ?? []) this.enqueue(wl);
  }

  /**
   * Mirrors one Workload onto its Ray owner, once per state change. Reads the Ray object only when the
   * Workload says something not yet written (for the gang's numbers and the annotation there).
   */
  async reconcile(wl: Workload): Promise<QueueStatus | undefined> {
    if (!this.leader) return undefined;
    const owner = rayOwnerOf(wl);
    const kind = rayKindNamed(owner?.kind);
    if (!owner || !kind) return undefined;
    // A Workload with a Ray owner has metadata, and the API server gives a namespaced one its namespace.
    const resource = { group: kind.group, version: kind.version, namespace: wl.metadata!.namespace!, plural: kind.plural };
    const fingerprint = workloadFingerprint(wl);
    if (fingerprint === undefined) return undefined;
    const ns = wl.metadata!.namespace!;
    const key = `${ns}/${wl.metadata!.name}`; // a Workload has one Ray owner
    const reported = this.last.get(key);
    if (!needsSync(fingerprint, reported)) return reported?.status;
    let obj: RayObject;
    try {
      obj = (await this.custom.getNamespacedCustomObject({ ...resource, name: owner.name })) as RayObject;
    } catch (e) {
      if (errorCode(e) === 404) return undefined; // deleted meanwhile
      throw e;
    }
    const status = workloadStatus(wl, obj, this.opts.kueue);
    const current = obj.metadata?.annotations?.[QUEUE_STATUS_ANNOTATION];
    // The Event goes first, so a failed Event is retried rather than hidden by an annotation already written.
    const plan = plannedWrites(status, current, this.last.get(key));
    if (plan.event) {
      // Claimed before the await, so a concurrent reconcile of the same Workload (a direct call next
      // to the queue's) does not emit it twice; released if the Event could not be written.
      const claimed = this.last.get(key);
      this.last.set(key, { state: status.state });
      try {
        // Its timestamps are strings to the second, which client-node sends as written (it converts only Date objects).
        const body = statusEvent(status, owner, ns, 'cdk8s-kueue-ray-controller', new Date()) as unknown as CoreV1Event;
        await this.core.createNamespacedEvent({ namespace: ns, body });
      } catch (e) {
        if (claimed === undefined) this.last.delete(key);
        else this.last.set(key, claimed);
        throw e;
      }
      this.log('info', 'queue status', { object: `${owner.kind} ${ns}/${owner.name}`, state: status.state });
    }
    if (plan.annotation !== undefined) {
      try {
        await this.custom.patchNamespacedCustomObject(
          { ...resource, name: owner.name, body: { metadata: { annotations: { [QUEUE_STATUS_ANNOTATION]: plan.annotation } } } },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        );
      } catch (e) {
        if (errorCode(e) === 404) return undefined; // deleted between the read and the patch
        throw e;
      }
    }
    // Both written (or already there): later versions saying the same need no request at all.
    if (this.leader) this.last.set(key, { state: status.state, fingerprint, status });
    return status;
  }

  private log(level: string, msg: string, detail?: unknown): void {
    const err = detail instanceof Error ? detail.message : detail;
    this.opts.log?.({ level, msg, ...(err !== undefined ? { detail: err } : {}) });
  }
}
