/**
 * What this library knows about one Ray kind, in one place: Kueue keeps each integration in its own
 * folder (pkg/controller/jobs/rayjob/, raycluster/, rayservice/) behind the GenericJob interface
 * (pkg/controller/jobframework/interface.go); this interface plays that part here. Pure data and
 * accessors: no cdk8s, no I/O.
 */
import type { KueueCapabilities } from '../versions';
import type { RayKindName } from './name';
import type { RaySpecJson } from './ray-json';

/** A Ray object as the API server sees it (plain Kubernetes JSON; the spec as ray-json.ts declares it). */
export interface RayObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly generateName?: string;
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly ownerReferences?: ReadonlyArray<{ kind?: string; name?: string; apiVersion?: string; controller?: boolean }>;
  };
  readonly spec?: RaySpecJson;
}

/** Where Kueue suspends a queued object when it is created. */
export type SuspendField = 'spec.suspend' | 'spec.rayClusterConfig.suspend';

/** A JSON type the CRD schema gives a field (checked by the objectShape rule). */
export type SpecFieldType = 'string' | 'boolean' | 'integer' | 'string map' | 'object';

export interface ElasticSupport {
  readonly supported: boolean;
  /** The first upstream Kueue version that admits it. */
  readonly first: string;
}

export interface RayKind {
  readonly kind: RayKindName;
  readonly group: 'ray.io';
  readonly version: 'v1';
  /** `group/version`. */
  readonly apiVersion: 'ray.io/v1';
  /** The resource name in API paths, webhook rules and RBAC. */
  readonly plural: string;
  /** Where the RayClusterSpec lives, as a dotted path (`spec` for a RayCluster). */
  readonly clusterSpecPath: string;
  /** Whatever the object holds at clusterSpecPath, of any type (the caller checks it). */
  clusterSpecValue(obj: RayObject): unknown;
  /** Longest metadata.name KubeRay accepts (it derives child names from it). */
  readonly maxNameLength: number;
  /** The kind's own entry in Kueue's integrations.frameworks. */
  readonly kueueFramework: string;
  /** The integrations.frameworks entry Kueue needs to queue this kind at a version. */
  kueueFrameworkFor(kueue: Pick<KueueCapabilities, 'rayServiceQueueing'>): string;
  /**
   * Where Kueue suspends and unsuspends the kind, on every version that suspends it there (the ordered
   * apply leaves this field to Kueue on a re-apply); suspendFieldAtCreate says whether a version does.
   */
  readonly suspendField: SuspendField;
  /**
   * Where a queued object is suspended when it is created, for a Kueue version, or undefined where it
   * must not be. Shared by the constructs (synth) and the mutating webhook.
   */
  suspendFieldAtCreate(autoscaling: boolean, kueue: Pick<KueueCapabilities, 'rayServiceQueueing' | 'elasticRayJob'>): SuspendField | undefined;
  /** Kueue's IsSuspended for the kind. */
  isSuspended(obj: RayObject): boolean;
  /**
   * Kueue's JobWithSkip (Skip): Kueue leaves the object alone although it is queued: it makes no Workload
   * and never unsuspends it. The webhook, `check` and `plan` all ask this, so they give one answer.
   */
  skipsKueue(obj: RayObject, kueue: Pick<KueueCapabilities, 'rayJobClusterSelectorRules'>): boolean;
  /** Where the submitter pod template lives, for a kind that has one. */
  readonly submitterTemplatePath?: string;
  /** Whether Kueue admits an elastic (or autoscaling) object of this kind at a version, and from which upstream version. */
  elasticSupport(kueue: Pick<KueueCapabilities, 'elasticRayCluster' | 'elasticRayJob' | 'elasticRayService'>): ElasticSupport;
  /** First version whose MultiKueue adapter for this kind the library checked (for "needs Kueue >= vX"). */
  readonly firstMultiKueueVersion: string;
  /** Kueue builds a `submitter` PodSet for the object. */
  hasSubmitterPodSet(obj: RayObject): boolean;
  /** Top-level spec fields and the types the CRD gives them, in the order objectShape checks them. */
  readonly specFieldTypes: ReadonlyArray<readonly [string, SpecFieldType]>;
  /** KubeRay creates the RayCluster of such an object and is its controlling owner. */
  readonly ownsRayCluster: boolean;
  /** The object (or owner reference) is of this kind. */
  is(obj: { readonly kind?: unknown } | undefined): boolean;
}
