import { ApiObject, Duration, JsonPatch } from 'cdk8s';
import { lazyToken } from '../platform/lazy';
import { Construct } from 'constructs';
import { ILocalQueue } from '../kueue/local-queue';
import { IWorkloadPriorityClass } from '../kueue/workload-priority-class';
import { AppInventory } from '../platform/inventory';
import { resolveVersions, ResolvedVersions } from '../platform/versions';
import { evaluateRayObject, Finding, formatFinding, formatQuantity, computeGang, RayObject, PolicyContext, RAY_SERVICE } from '../policy';
import { ELASTIC_JOB_ANNOTATION, PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL } from '../policy/ray-object';
import { formatGoDuration } from '../policy/go-duration';
import { TOKEN_AUTH_RAY, tokenAuthUnsupported } from '../policy/rules/kuberay-cluster';
import { EXPECTED_DURATION_ANNOTATION } from '../policy/rules/plan-annotations';
import { MULTIKUEUE_CONTROLLER_NAME, multiKueueCheckOf } from '../policy/rules/multikueue';
import type { ObjectMetaJson, RayClusterSpecJson, RayJobSpecJson, RayServiceSpecJson } from '../policy/kinds/ray-json';
import { compact } from './pod-template';
import { AutoscalingOptions, buildClusterSpec, ClusterSpecInput, HeadGroupOptions, WorkerGroupOptions } from './ray-cluster-spec';
import { RayServeProps, serveConfigV2 } from './serve-config';

/** Props shared by QueuedRayJob, QueuedRayCluster, QueuedRayService, ElasticRayCluster and ElasticRayService. */
export interface RayWorkloadProps {
  /**
   * metadata.name.
   * @default - the construct id
   */
  readonly name?: string;
  /**
   * Namespace of the workload; must be the queue's namespace.
   * @default - the queue's namespace, else "default"
   */
  readonly namespace?: string;
  /**
   * The LocalQueue or TenantQueue to submit to (LocalQueue.fromLocalQueueName() for one defined elsewhere).
   * @default - none: give `queueName` instead
   */
  readonly queue?: ILocalQueue;
  /**
   * Name of a LocalQueue in the workload's namespace. It must be defined in this app; use
   * `queue: LocalQueue.fromLocalQueueName()` for queues defined elsewhere.
   * @default - none: give `queue` instead
   */
  readonly queueName?: string;
  /**
   * WorkloadPriorityClass of the workload.
   * @default - the TenantQueue's default priority class, else none (priority 0)
   */
  readonly priorityClass?: IWorkloadPriorityClass;
  /**
   * Ray version (spec.rayVersion) and the default image tag.
   * @default "2.46.0"
   */
  readonly rayVersion?: string;
  /**
   * Default image of every Ray container.
   * @default "rayproject/ray:<rayVersion>"
   */
  readonly image?: string;
  /**
   * Ray's token authentication (`authOptions.mode: token`): KubeRay generates a token Secret for the
   * cluster and gives it to every Ray container, and the dashboard, the job API, the GCS and Ray's other
   * control-plane services then refuse callers without it, so a pod of another namespace that reaches
   * the head cannot run code there. Needs KubeRay 1.5 or later and Ray 2.52.0 or later; true on older
   * versions is an error. Clients outside KubeRay (`ray job submit`, a Ray-client script) need the token
   * from that Secret (RAY_AUTH_MODE=token, RAY_AUTH_TOKEN).
   * @default - on where the KubeRay and Ray versions support it; off otherwise (the default Ray 2.46.0 has no token authentication)
   */
  readonly authentication?: boolean;
  /** The head pod: its resources, image and rayStartParams (Kueue counts it as the 'head' PodSet). */
  readonly headGroup: HeadGroupOptions;
  /**
   * Worker groups, each a PodSet of the gang Kueue admits; more with addWorkerGroup().
   * @default - none
   */
  readonly workerGroups?: WorkerGroupOptions[];
  /**
   * Extra labels. The Kueue queue and priority labels are set by the construct.
   * @default - none
   */
  readonly labels?: Record<string, string>;
  /**
   * Extra annotations.
   * @default - none
   */
  readonly annotations?: Record<string, string>;
  /**
   * How long the workload runs once Kueue admits it (for an elastic RayCluster or RayService: how long it
   * holds its quota), for `cdk8s-kueue-ray plan`'s timeline: when it finishes, its quota goes back and the
   * workloads behind it start. Written as the annotation `cdk8s-kueue-ray.io/expected-duration` in Go
   * duration syntax (e.g. "10m"); Kueue and KubeRay ignore it. A whole number of seconds, above 0.
   * @default - unknown: plan takes a RayJob's activeDeadlineSeconds as an upper bound ("at most"), else says the start of what waits behind it is unknown
   */
  readonly expectedDuration?: Duration;
}

/** One PodSet of a workload's gang, as Kueue counts it. */
export interface PodSetSummary {
  /** PodSet name: "head" or the worker group's name. */
  readonly name: string;
  /** Pods of the PodSet Kueue admits together. */
  readonly count: number;
  /** Requests of one pod, e.g. { cpu: "1", memory: "2Gi" }. */
  readonly perPodRequests: Record<string, string>;
  /** Version extras Kueue adds (submitter, autoscaler sidecar, ...). */
  readonly extras: string[];
}

/** The gang Kueue admits all-or-nothing. */
export interface GangSummary {
  /** The PodSets of the gang: the head, then each worker group. */
  readonly podSets: PodSetSummary[];
  /** Total requests, e.g. { cpu: "2.5", memory: "4296Mi" }. */
  readonly totalRequests: Record<string, string>;
}

const RESERVED_LABELS = [QUEUE_NAME_LABEL, PRIORITY_CLASS_LABEL];

/** The Ray version of the guide, every Ray construct's default (the `rayVersion` props document it). */
const DEFAULT_RAY_VERSION = '2.46.0';

/**
 * Base of the queued Ray workloads: queue and priority labels, the spec built once, the policy run
 * at synth, and the gang as the chosen Kueue version counts it.
 */
export abstract class RayWorkload extends ApiObject {
  /**
   * The Ray object as synthesized: the workload itself, an ApiObject. Add fields KubeRay accepts that no prop
   * covers with `addJsonPatch`.
   */
  public readonly apiObject: ApiObject;
  /** Namespace the workload is created in. */
  public readonly namespace: string;
  /** Queue name (the kueue.x-k8s.io/queue-name label). */
  public readonly queueName: string;
  /** WorkloadPriorityClass name (the kueue.x-k8s.io/priority-class label), when any. */
  public readonly workloadPriorityClassName?: string;
  /** @internal */
  protected readonly _versions: ResolvedVersions;
  /** @internal */
  protected readonly _workers: WorkerGroupOptions[];
  /** @internal */
  protected readonly _props: RayWorkloadProps;
  /** Which references were given as objects (queue, priorityClass) rather than by name. @internal */
  private readonly _referencedObjects: { queue: boolean; priorityClass: boolean };
  /** Whether the workload is elastic (annotation kueue.x-k8s.io/elastic-job). */
  public readonly elastic: boolean;
  private readonly generateName?: string;
  private readonly inventory: AppInventory;
  private readonly ownMetadata: { labels: Record<string, string>; annotations: Record<string, string> };
  private generation = 0;
  private memo?: { generation: number; inventoryVersion: number; base: RayObject; manifest: RayObject };
  private findingsMemo?: { generation: number; inventoryVersion: number; findings: Finding[]; errors: string[]; warnings: string[] };
  /** Finding lines already printed, so each is printed once however often validation runs. */
  private readonly warned = new Set<string>();

  /**
   * `instanceof` as for any class: ApiObject's own test says yes to every ApiObject, which would make each of the
   * app's objects a QueuedRayJob.
   * @internal
   */
  public static [Symbol.hasInstance](x: unknown): x is RayWorkload {
    return Function.prototype[Symbol.hasInstance].call(this, x);
  }

  protected constructor(scope: Construct, id: string, kind: string, props: RayWorkloadProps, elastic: boolean, generateName?: string) {
    // The workload is its own ApiObject rather than a construct holding one: cdk8s walks the whole construct
    // tree once per chart at synth, so a wrapper per workload doubles that walk (docs/dev/benchmarks.md).
    const init = initOf(scope, id, kind, props, elastic, generateName);
    const self: { workload?: RayWorkload } = {};
    super(scope, id, {
      apiVersion: 'ray.io/v1',
      kind,
      metadata: { name: init.name, namespace: init.namespace, labels: init.labels,
        annotations: Object.keys(init.annotations).length ? init.annotations : undefined },
      spec: lazyToken(() => self.workload!.manifest().spec),
    });
    self.workload = this;
    this.apiObject = this;
    this._versions = init.versions;
    this._props = props;
    this._workers = [...(props.workerGroups ?? [])];
    this.namespace = init.namespace;
    this.queueName = init.queueName;
    this.workloadPriorityClassName = init.priorityClassName;
    this._referencedObjects = init.referenced;
    this.elastic = elastic;
    this.generateName = generateName;
    this.ownMetadata = { labels: init.labels, annotations: init.annotations };
    if (generateName) {
      // ApiObject always has a name; the API server generates one from generateName instead.
      this.addJsonPatch(JsonPatch.remove('/metadata/name'), JsonPatch.add('/metadata/generateName', generateName));
    }

    this.inventory = AppInventory.of(this);
    this.inventory.registerWorkload(kind, elastic);
    // One validation per workload, memoized: cdk8s validates the whole app once per chart at synth.
    this.node.addValidation({ validate: () => this.validationErrors() });
  }

  /** Adds a worker group after construction; the group is checked now, and refused if it is invalid. */
  public addWorkerGroup(group: WorkerGroupOptions): void {
    this._workers.push(group);
    this._changed();
    try {
      this._checkSpec();
    } catch (e) {
      this._workers.pop();
      this._changed();
      throw e;
    }
  }

  /** The Kubernetes JSON of the object, exactly as synthesized (before user JSON patches on apiObject). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any, not unknown: a public jsii method whose callers (TypeScript users and the tests) read its fields directly.
  public toManifest(): any {
    return JSON.parse(JSON.stringify(this.manifest()));
  }

  /**
   * The gang as the chosen Kueue version counts it: one PodSet per Ray group (head, each worker group with
   * replicas x numOfHosts pods, the submitter where the version creates one), limits used as requests where
   * requests are unset, init containers, sidecars and pod overhead included.
   */
  public get gang(): GangSummary {
    const g = computeGang(this.manifest(), this._versions.kueue);
    const fmt = (m: Map<string, bigint>) => Object.fromEntries([...m].map(([k, v]) => [k, formatQuantity(v, k)]));
    return {
      podSets: g.podSets.map((p) => ({ name: p.name, count: p.count, perPodRequests: fmt(p.perPod), extras: [...p.extras] })),
      totalRequests: fmt(g.total),
    };
  }

  /** Every policy finding (errors and warnings), formatted. */
  public policyFindings(): string[] {
    return this.findings().map((f) => `${f.severity}: ${formatFinding(f)}`);
  }

  /** Policy warnings (soft findings), formatted. */
  public policyWarnings(): string[] {
    this.findings();
    return [...this.findingsMemo!.warnings];
  }

  /** @internal the object's spec in Kubernetes JSON */
  protected abstract _buildSpec(): RayClusterSpecJson | RayJobSpecJson | RayServiceSpecJson;

  /** The default image of every Ray container (the `image` prop, else rayproject/ray:<rayVersion>). @internal */
  protected get _image(): string {
    return this._props.image ?? `rayproject/ray:${this._rayVersion}`;
  }

  /** @internal */
  protected get _rayVersion(): string {
    return this._props.rayVersion ?? DEFAULT_RAY_VERSION;
  }

  /** @internal */
  protected get _where(): string {
    return `${this.kind} '${this.node.path}'`;
  }

  /** The RayClusterSpec of the shared props (head, worker groups, Ray version, image), with the kind's own settings. @internal */
  protected _clusterSpec(opts: Pick<ClusterSpecInput, 'autoscaling' | 'suspend' | 'servePort'>): RayClusterSpecJson {
    return buildClusterSpec({ where: this._where, rayVersion: this._rayVersion, image: this._image, head: this._props.headGroup,
      workers: this._workers, elastic: this.elastic, tokenAuthentication: this.tokenAuthentication, ...opts });
  }

  /** Whether the cluster runs with Ray's token authentication (the `authentication` prop, else what the versions support). */
  public get tokenAuthentication(): boolean {
    const unsupported = tokenAuthUnsupported(this._versions.kubeRay, this._rayVersion);
    if (this._props.authentication === true && unsupported) {
      throw new Error(`${this._where}: authentication is true, but ${unsupported}. Fix: use rayVersion "${TOKEN_AUTH_RAY}" or later on `
        + 'KubeRay 1.5 or later, or remove authentication: true.');
    }
    return this._props.authentication ?? !unsupported;
  }

  /**
   * A RayService spec: the Serve config and the cluster config. Before 0.17 Kueue suspends the child
   * RayCluster itself, and a suspended config would be copied onto every new cluster: suspend only where
   * Kueue queues the RayService. On KubeRay 1.7 too, not its top-level spec.suspend: Kueue neither reads nor
   * clears it (RAY_SERVICE.suspendFieldAtCreate). @internal
   */
  protected _rayServiceSpec(serve: RayServeProps, autoscaling?: AutoscalingOptions): RayServiceSpecJson {
    const suspend = RAY_SERVICE.suspendFieldAtCreate(this.elastic, this._versions.kueue) ? true : undefined;
    return { serveConfigV2: serveConfigV2(serve), rayClusterConfig: this._clusterSpec({ autoscaling, servePort: true, suspend }) };
  }

  /**
   * Builds the spec now, so that a bad prop throws at the user's call (constructor, addWorkerGroup) rather
   * than first at synth. Subclasses call it at the end of their constructor. @internal
   */
  protected _checkSpec(): void {
    this.manifest();
  }

  /** @internal call when something that shapes the manifest changes */
  protected _changed(): void {
    this.generation++;
  }

  private manifest(): RayObject {
    const inventoryVersion = this.inventory.version;
    const memo = this.memo;
    if (memo && memo.generation === this.generation && memo.inventoryVersion === inventoryVersion) return memo.manifest;
    // The object as the props shape it is built once per change of them: of the app's other objects only the
    // MultiKueue check below reads any, and queues registered after this workload must not rebuild it.
    const base = memo && memo.generation === this.generation ? memo.base : this.buildManifest();
    let manifest = base;
    // A queue behind a MultiKueue AdmissionCheck: the manager's KubeRay must leave the object to MultiKueue,
    // and Kueue's adapter dispatches only objects managed by it. RayService has the field from KubeRay 1.6;
    // before, the policy (multiKueueDispatch) refuses the object instead of emitting a field the API server prunes.
    if (multiKueueCheckOf(manifest, this.inventory.snapshot(), this._versions.kueue)
      && (!RAY_SERVICE.is(manifest) || this._versions.kubeRay.rayServiceManagedBy)) {
      manifest = { ...manifest, spec: { ...manifest.spec, managedBy: MULTIKUEUE_CONTROLLER_NAME } };
    }
    this.memo = { generation: this.generation, inventoryVersion, base, manifest };
    return manifest;
  }

  private buildManifest(): RayObject {
    const metadata: ObjectMetaJson = {
      ...(this.generateName ? { generateName: this.generateName } : { name: this.name }),
      namespace: this.namespace,
      labels: { ...this.ownMetadata.labels },
      ...(Object.keys(this.ownMetadata.annotations).length ? { annotations: { ...this.ownMetadata.annotations } } : {}),
    };
    return compact({ apiVersion: 'ray.io/v1', kind: this.kind, metadata, spec: this._buildSpec() });
  }

  private findings(): Finding[] {
    const inv = this.inventory;
    const m = this.findingsMemo;
    if (m && m.generation === this.generation && m.inventoryVersion === inv.version) return m.findings;
    const ctx: PolicyContext = {
      kueue: this._versions.kueue,
      kubeRay: this._versions.kubeRay,
      elasticGate: this._versions.elasticGate !== 'unknown' ? this._versions.elasticGate : inv.installElasticGate ?? 'unknown',
      inventory: inv.snapshot(),
      external: this.externalReferences(inv),
    };
    const findings = evaluateRayObject(this.manifest(), ctx);
    const formatted = (severity: string) => findings.filter((f) => f.severity === severity).map(formatFinding);
    this.findingsMemo = { generation: this.generation, inventoryVersion: inv.version, findings, errors: formatted('error'),
      warnings: formatted('warning') };
    return findings;
  }

  /**
   * A queue or priority class given as an object and not defined in the app was imported by name
   * (fromLocalQueueName, fromWorkloadPriorityClassName): the policy then does not require it to exist.
   * A plain `queueName` always refers to the app's own queues.
   */
  private externalReferences(inv: AppInventory): { localQueue: boolean; priorityClass: boolean } {
    const snapshot = inv.snapshot();
    return {
      localQueue: this._referencedObjects.queue && !snapshot.localQueues.some((q) => q.namespace === this.namespace && q.name === this.queueName),
      priorityClass: this._referencedObjects.priorityClass && !snapshot.priorityClasses.some((c) => c.name === this.workloadPriorityClassName),
    };
  }

  /**
   * Prints new findings once and returns the errors (one validation per workload). The errors are printed
   * too, first: cdk8s throws them wrapped in its "Validation failed" error and a stack trace.
   */
  private validationErrors(): string[] {
    this.findings();
    const m = this.findingsMemo!;
    // cdk8s validates the whole app once per chart: the environment is read only when there is something to print.
    if ((m.errors.length || m.warnings.length) && process.env.CDK8S_KUEUE_RAY_QUIET !== '1') {
      this.print('error', m.errors);
      this.print('warning', m.warnings);
    }
    return m.errors;
  }

  private print(severity: 'error' | 'warning', lines: readonly string[]): void {
    for (const line of lines) {
      if (this.warned.has(line)) continue;
      this.warned.add(line);
      process.stderr.write(`[cdk8s-kueue-ray] ${severity}: ${line}\n`);
    }
  }
}

/** What the constructor checks and derives from the props before the ApiObject exists (its metadata needs them). */
function initOf(scope: Construct, id: string, kind: string, props: RayWorkloadProps, elastic: boolean, generateName?: string) {
  const path = scope.node.path ? `${scope.node.path}/${id}` : id;
  const where = `${kind} '${path}'`;
  const versions = resolveVersions(scope);
  if (!!props.queue === !!props.queueName) {
    throw new Error(`${where}: give exactly one of 'queue' (a LocalQueue/TenantQueue object) or 'queueName'. Fix: e.g. queue: myTenantQueue.`);
  }
  const queueNs = props.queue?.namespace;
  const namespace = props.namespace ?? queueNs ?? 'default';
  if (queueNs !== undefined && queueNs !== namespace) {
    throw new Error(`${where}: metadata.namespace "${namespace}" differs from the queue's namespace "${queueNs}"; a LocalQueue only serves `
      + `its own namespace. Fix: drop 'namespace' or use a queue in "${namespace}".`);
  }
  const queueName = props.queue?.localQueueName ?? props.queueName!;
  const priority = props.priorityClass ?? props.queue?.defaultPriorityClass;
  const priorityClassName = priority?.workloadPriorityClassName;
  for (const k of RESERVED_LABELS) {
    if (props.labels && k in props.labels) {
      throw new Error(`${where}: labels must not set "${k}"; the construct sets it `
        + `from ${k === QUEUE_NAME_LABEL ? "'queue'/'queueName'" : "'priorityClass'"}. Fix: use that prop.`);
    }
  }
  if (props.annotations && ELASTIC_JOB_ANNOTATION in props.annotations) {
    throw new Error(`${where}: annotations must not set "${ELASTIC_JOB_ANNOTATION}"; ElasticRayCluster/ElasticRayService (or QueuedRayJob `
      + 'autoscaling) set it. Fix: remove it.');
  }
  const labels: Record<string, string> = { ...(props.labels ?? {}), [QUEUE_NAME_LABEL]: queueName };
  if (priorityClassName) labels[PRIORITY_CLASS_LABEL] = priorityClassName;
  const annotations: Record<string, string> = { ...(props.annotations ?? {}) };
  if (elastic) annotations[ELASTIC_JOB_ANNOTATION] = 'true';
  if (props.expectedDuration !== undefined) annotations[EXPECTED_DURATION_ANNOTATION] = expectedDurationText(props, where);
  return {
    versions, namespace, queueName, priorityClassName, labels, annotations,
    referenced: { queue: props.queue !== undefined, priorityClass: priority !== undefined },
    name: props.name ?? (generateName ? 'generated' : id),
  };
}

/** The expectedDuration prop as a Go duration; refuses one that is no whole number of seconds above 0, or given twice. */
function expectedDurationText(props: RayWorkloadProps, where: string): string {
  if (props.annotations && EXPECTED_DURATION_ANNOTATION in props.annotations) {
    throw new Error(`${where}: expectedDuration and annotations["${EXPECTED_DURATION_ANNOTATION}"] both set it. Fix: keep one (expectedDuration).`);
  }
  let seconds: number;
  try {
    seconds = props.expectedDuration!.toSeconds();
  } catch {
    throw new Error(`${where}: expectedDuration ${props.expectedDuration!.toHumanString()} is not a whole number of seconds. Fix: round it, `
      + 'e.g. Duration.seconds(90) or Duration.minutes(10).');
  }
  if (!(seconds > 0)) throw new Error(`${where}: expectedDuration must be above 0 seconds, got ${seconds}. Fix: give how long the workload runs once `
    + 'admitted, or leave it out (unknown).');
  return formatGoDuration(seconds);
}
