/**
 * What a person at a terminal watches while the guide runs (`kubectl get rayjobs,workloads,pods -w`), as
 * data: a poller that records when each RayJob was first admitted, got its pods Running, reached a Ray job
 * status, and lost its cluster. A job's cluster and pods vanish seconds after it finishes
 * (ttlSecondsAfterFinished; KubeRay v1.6.2 keeps the RayJob itself), and statuses pass between two gets,
 * so the record is what a test asserts on, not a final get.
 */
import { isAdmitted, KubeClient } from '../e2e/support/kube';

export interface JobRecord {
  readonly name: string;
  uid?: string;
  /** Seconds since the watch started, first seen. */
  readonly at: Record<string, number>;
  /** Every jobStatus / jobDeploymentStatus value seen, in order, without repeats. */
  readonly statuses: string[];
  /**
   * The RayClusters this job's attempts ran on (a retry gets a new one): names from status.rayClusterName whose
   * RayCluster was seen. KubeRay names a cluster when it first sees the RayJob; seen while Kueue still holds it
   * suspended, the RayJob goes Initializing → Suspending → Suspended, the name is dropped and another is given on
   * admission, so a name can stand for a cluster never created (CI of 2026-12-07: three names, two clusters).
   */
  readonly clusters: string[];
  /** Pod names of the job's clusters and submitter that were ever seen Running. */
  readonly runningPods: Set<string>;
  /** The last RayJob seen. */
  last?: any;
  gone?: boolean;
}

export interface ClusterQueueSample {
  readonly t: number;
  readonly reserving: number;
  readonly pending: number;
  readonly admitted: number;
  readonly cpu: string;
}

/**
 * What both watches share: the clock they report in, the once-a-second sampling loop, and the samples that
 * failed. A failed sample is an API hiccup the next sample sees past; it is kept (when, and why) so that a
 * timeline that stops moving says whether the watch was blind. Subclasses call start() once their own
 * fields are set.
 */
abstract class SampledWatch {
  /** Samples that failed: seconds since the start, and the error's first line. */
  public readonly failedSamples: string[] = [];
  private readonly t0 = Date.now();
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  public now(): number {
    return (Date.now() - this.t0) / 1000;
  }

  public async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** A few lines for a failed test's report (job-diagnosis.ts): what was seen when, and any failed samples. */
  public abstract summary(): string;

  protected abstract sample(): Promise<void>;

  protected start(): void {
    this.loop = this.run();
  }

  /** One line when samples failed: how many, and the last one's time and error. */
  protected failedSamplesLine(): string[] {
    const failed = this.failedSamples;
    return failed.length ? [`(${failed.length} sample(s) failed; last at ${failed[failed.length - 1]})`] : [];
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.sample();
      } catch (e) {
        this.failedSamples.push(`${this.now().toFixed(1)}s ${(e as Error).message.split('\n')[0].slice(0, 120)}`);
      }
      await new Promise((res) => setTimeout(res, 1000));
    }
  }
}

export class RayWatch extends SampledWatch {
  public readonly jobs = new Map<string, JobRecord>();
  public readonly queue: ClusterQueueSample[] = [];

  constructor(private readonly client: KubeClient, private readonly namespace: string, private readonly clusterQueue: string) {
    super();
    this.start();
  }

  public watch(name: string): JobRecord {
    const r: JobRecord = { name, at: { created: this.now() }, statuses: [], clusters: [], runningPods: new Set() };
    this.jobs.set(name, r);
    return r;
  }

  /** The ClusterQueue's (reserving, pending) pairs in the order they were seen, without repeats. */
  public queueSteps(): string[] {
    const steps: string[] = [];
    for (const s of this.queue) {
      const k = `${s.reserving} reserving, ${s.pending} pending`;
      if (steps[steps.length - 1] !== k) steps.push(k);
    }
    return steps;
  }

  public timeline(): string {
    return [...this.jobs.values()].map((j) => `${j.name}: `
      + `${Object.entries(j.at).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ')}`)
      .concat(this.failedSamplesLine()).join('\n');
  }

  public summary(): string {
    return this.timeline();
  }

  private mark(r: JobRecord, what: string): void {
    if (r.at[what] === undefined) r.at[what] = this.now();
  }

  protected async sample(): Promise<void> {
    const ns = this.namespace;
    const [jobs, wls, pods, rayClusters, cq] = await Promise.all([
      this.client.list('ray.io/v1', 'RayJob', ns),
      this.client.list('kueue.x-k8s.io/v1beta2', 'Workload', ns),
      this.client.list('v1', 'Pod', ns),
      this.client.list('ray.io/v1', 'RayCluster', ns),
      this.client.getOrUndefined(`/apis/kueue.x-k8s.io/v1beta2/clusterqueues/${this.clusterQueue}`),
    ]);
    if (cq?.status) {
      const usage = (cq.status.flavorsUsage ?? []).flatMap((f: any) => f.resources ?? []).find((r: any) => r.name === 'cpu')?.total ?? '0';
      const st = cq.status;
      this.queue.push({
        t: this.now(), reserving: st.reservingWorkloads ?? 0, pending: st.pendingWorkloads ?? 0, admitted: st.admittedWorkloads ?? 0, cpu: usage,
      });
    }
    for (const r of this.jobs.values()) {
      const j = jobs.find((x) => x.metadata.name === r.name);
      if (!j) {
        if (r.last) { r.gone = true; this.mark(r, 'deleted'); }
        continue;
      }
      r.uid = j.metadata.uid;
      r.last = j;
      for (const s of [j.status?.jobDeploymentStatus, j.status?.jobStatus].filter(Boolean)) {
        if (!r.statuses.includes(s)) r.statuses.push(s);
        this.mark(r, s);
      }
      const rc = j.status?.rayClusterName;
      const created = rc && rayClusters.some((c: any) => c.metadata.name === rc);
      if (created && !r.clusters.includes(rc)) { r.clusters.push(rc); this.mark(r, `cluster ${r.clusters.length}`); }
      const owned = wls.filter((w) => (w.metadata.ownerReferences ?? []).some((o: any) => o.uid === j.metadata.uid));
      if (owned.some(isAdmitted)) this.mark(r, 'admitted');
      if (owned.some((w) => (w.status?.conditions ?? []).some((c: any) => c.type === 'Evicted' && c.status === 'True'))) this.mark(r, 'evicted');
      for (const p of pods) {
        const labels = p.metadata.labels ?? {};
        const mine = r.clusters.includes(labels['ray.io/cluster']) || labels['batch.kubernetes.io/job-name'] === r.name;
        if (!mine || p.status?.phase !== 'Running') continue;
        r.runningPods.add(p.metadata.name);
        const role = labels['ray.io/node-type'] ?? 'submitter';
        this.mark(r, `${role} Running`);
      }
    }
  }
}

/** A Workload slice of an elastic object, as first seen: its worker count and when Kueue admitted (or replaced) it. */
export interface Slice { readonly name: string; readonly created: number; readonly workers: number; admitted?: number; finished?: number }

export interface ElasticSample { readonly t: number; readonly replicas: number; readonly running: number; readonly cpu: string }

/**
 * An elastic RayCluster (or a RayService's cluster) over time: its Workload slices, the worker replicas
 * the autoscaler asked for, the worker pods Running, and the ClusterQueue's CPU usage. Objects are matched
 * by name prefix, so a RayService's generated cluster counts.
 */
export class ElasticWatch extends SampledWatch {
  public readonly slices = new Map<string, Slice>();
  public readonly samples: ElasticSample[] = [];
  public readonly marks: Record<string, number> = {};

  constructor(private readonly client: KubeClient, private readonly namespace: string, private readonly prefix: string,
    private readonly clusterQueue?: string) {
    super();
    this.start();
  }

  public mark(what: string, at = this.now()): number {
    this.marks[what] = at;
    return at;
  }

  public get last(): ElasticSample | undefined {
    return this.samples[this.samples.length - 1];
  }

  /** The first sample after `after` (seconds) that satisfies `pred`. */
  public firstAfter(after: number, pred: (s: ElasticSample) => boolean): ElasticSample | undefined {
    return this.samples.find((s) => s.t >= after && pred(s));
  }

  /** The marks, any failed samples and the slices, without the step-by-step samples. */
  public summary(): string {
    return this.report('elastic', false);
  }

  public report(title: string, withSteps = true): string {
    const slices = [...this.slices.values()].map((s) => `  ${s.name}: ${s.workers} worker(s), created ${s.created.toFixed(1)}s`
      + `${s.admitted !== undefined ? `, admitted ${s.admitted.toFixed(1)}s` : ', never admitted'}`
      + `${s.finished !== undefined ? `, replaced ${s.finished.toFixed(1)}s` : ''}`);
    const changed = (s: ElasticSample, p: ElasticSample | undefined) => !p || s.replicas !== p.replicas || s.running !== p.running || s.cpu !== p.cpu;
    const steps = this.samples.filter((s, i) => changed(s, this.samples[i - 1]))
      .map((s) => `  ${s.t.toFixed(1)}s replicas ${s.replicas} running ${s.running} cpu ${s.cpu}`);
    const marks = Object.entries(this.marks).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ');
    const head = [`${title}: ${marks}`, ...this.failedSamplesLine(), 'slices:', ...slices];
    return `${[...head, ...(withSteps ? ['steps:', ...steps] : [])].join('\n')}\n`;
  }

  protected async sample(): Promise<void> {
    const mine = (n: string | undefined) => (n ?? '').startsWith(this.prefix);
    const [rcs, wls, pods, cq] = await Promise.all([
      this.client.list('ray.io/v1', 'RayCluster', this.namespace),
      this.client.list('kueue.x-k8s.io/v1beta2', 'Workload', this.namespace),
      this.client.list('v1', 'Pod', this.namespace, 'ray.io/node-type=worker'),
      this.clusterQueue ? this.client.getOrUndefined(`/apis/kueue.x-k8s.io/v1beta2/clusterqueues/${this.clusterQueue}`) : Promise.resolve(undefined),
    ]);
    const t = this.now();
    for (const w of wls.filter((x) => (x.metadata.ownerReferences ?? []).some((o: any) => mine(o.name)))) {
      const conds = w.status?.conditions ?? [];
      const s: Slice = this.slices.get(w.metadata.name)
        ?? { name: w.metadata.name, created: t,
          workers: (w.spec.podSets ?? []).filter((p: any) => p.name !== 'head').reduce((n: number, p: any) => n + p.count, 0) };
      if (s.admitted === undefined && conds.some((c: any) => c.type === 'Admitted' && c.status === 'True')) s.admitted = t;
      if (s.finished === undefined && conds.some((c: any) => c.type === 'Finished' && c.status === 'True')) s.finished = t;
      this.slices.set(w.metadata.name, s);
    }
    const rc = rcs.find((x) => mine(x.metadata.name));
    const cpu = (cq?.status?.flavorsUsage ?? []).flatMap((f: any) => f.resources ?? []).find((r: any) => r.name === 'cpu')?.total ?? '0';
    const running = pods.filter((p) => mine(p.metadata.labels?.['ray.io/cluster']) && p.status?.phase === 'Running').length;
    const replicas = rc ? (rc.spec.workerGroupSpecs ?? []).reduce((n: number, g: any) => n + (g.replicas ?? 0), 0) : -1;
    this.samples.push({ t, replicas, running, cpu });
  }
}
