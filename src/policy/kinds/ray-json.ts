/**
 * The JSON of a Ray object as the KubeRay CRDs declare it (ray-operator/apis/ray/v1: raycluster_types.go,
 * rayjob_types.go, rayservice_types.go), for the fields the policy reads; every other field reads as
 * `unknown`. User-written: the webhook sees an object before the API server checks it against the CRD, so
 * a field may be absent or of another type. Readers check the type of what they use (json.ts), and the
 * objectShape rule reports a wrong one. Types only: nothing here exists at run time.
 */

/** The fields of a JSON object this module does not name: whatever their type, read as unknown. */
export interface JsonFields {
  readonly [field: string]: unknown;
}

/** A Kubernetes object's metadata, as far as the policy reads it. */
export interface ObjectMetaJson extends JsonFields {
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export interface EnvVarJson extends JsonFields {
  readonly name?: string;
  readonly value?: string;
  readonly valueFrom?: JsonFields;
}

export interface VolumeMountJson extends JsonFields {
  readonly name?: string;
  readonly mountPath?: string;
}

export interface VolumeJson extends JsonFields {
  readonly name?: string;
}

export interface TolerationJson extends JsonFields {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

export interface ResourceRequirementsJson extends JsonFields {
  /** Quantities by resource name (strings or numbers in the JSON). */
  readonly requests?: JsonFields;
  readonly limits?: JsonFields;
}

export interface ContainerJson extends JsonFields {
  readonly name?: string;
  readonly image?: string;
  readonly env?: readonly EnvVarJson[];
  readonly volumeMounts?: readonly VolumeMountJson[];
  readonly resources?: ResourceRequirementsJson;
  readonly lifecycle?: { readonly preStop?: unknown } & JsonFields;
  /** `Always` on an init container: a sidecar. */
  readonly restartPolicy?: string;
}

export interface PodSpecJson extends JsonFields {
  readonly containers?: readonly ContainerJson[];
  readonly initContainers?: readonly ContainerJson[];
  readonly volumes?: readonly VolumeJson[];
  readonly tolerations?: readonly TolerationJson[];
  readonly nodeSelector?: Record<string, string>;
  readonly overhead?: JsonFields;
  readonly serviceAccountName?: string;
  readonly priorityClassName?: string;
  readonly restartPolicy?: string;
  readonly terminationGracePeriodSeconds?: number;
}

export interface PodTemplateJson extends JsonFields {
  readonly metadata?: ObjectMetaJson;
  readonly spec?: PodSpecJson;
}

export interface HeadGroupSpecJson extends JsonFields {
  readonly template?: PodTemplateJson;
  readonly rayStartParams?: Record<string, string>;
  readonly headService?: { readonly metadata?: ObjectMetaJson } & JsonFields;
}

export interface WorkerGroupSpecJson extends JsonFields {
  readonly groupName?: string;
  readonly replicas?: number;
  readonly minReplicas?: number;
  readonly maxReplicas?: number;
  readonly numOfHosts?: number;
  readonly priority?: number;
  readonly suspend?: boolean;
  readonly template?: PodTemplateJson;
  readonly rayStartParams?: Record<string, string>;
}

export interface AutoscalerOptionsJson extends JsonFields {
  readonly version?: string;
  readonly resources?: JsonFields;
  readonly env?: readonly EnvVarJson[];
  readonly volumeMounts?: readonly VolumeMountJson[];
}

/** The ingress and egress rules of networkPolicy's head, worker or one of its workerGroups (KubeRay 1.7). */
export interface NetworkPolicyRulesJson extends JsonFields {
  readonly ingressRules?: readonly unknown[];
  readonly egressRules?: readonly unknown[];
}

export interface NetworkPolicyOptionsJson extends JsonFields {
  readonly mode?: string;
  readonly head?: NetworkPolicyRulesJson;
  readonly worker?: NetworkPolicyRulesJson;
  readonly workerGroups?: ReadonlyArray<NetworkPolicyRulesJson & { readonly groupName?: string }>;
}

export interface GcsFaultToleranceOptionsJson extends JsonFields {
  /** KubeRay 1.7: `redis` (the default) or the embedded `rocksdb`. */
  readonly backend?: string;
  readonly storage?: JsonFields;
}

/** A RayClusterSpec: a RayCluster's spec, a RayJob's rayClusterSpec, a RayService's rayClusterConfig. */
export interface RayClusterSpecJson extends JsonFields {
  readonly headGroupSpec?: HeadGroupSpecJson;
  readonly workerGroupSpecs?: readonly WorkerGroupSpecJson[];
  readonly enableInTreeAutoscaling?: boolean;
  readonly autoscalerOptions?: AutoscalerOptionsJson;
  readonly rayVersion?: string;
  readonly suspend?: boolean;
  readonly managedBy?: string;
  readonly gcsFaultToleranceOptions?: GcsFaultToleranceOptionsJson;
  /** A RayCluster's own upgrade strategy (KubeRay 1.6). */
  readonly upgradeStrategy?: { readonly type?: string } & JsonFields;
  /** KubeRay 1.7's history-server collector (a container KubeRay adds to every pod). */
  readonly historyServerOptions?: {
    readonly collectorOptions?: {
      readonly image?: string;
      readonly env?: readonly EnvVarJson[];
      readonly resources?: ResourceRequirementsJson;
    } & JsonFields;
  } & JsonFields;
  readonly networkPolicy?: NetworkPolicyOptionsJson;
  readonly tlsOptions?: { readonly enabled?: boolean } & JsonFields;
}

/** A RayJob's spec (its own fields; the cluster's are under rayClusterSpec). */
export interface RayJobSpecJson extends JsonFields {
  readonly rayClusterSpec?: RayClusterSpecJson;
  readonly clusterSelector?: Record<string, string>;
  readonly submitterPodTemplate?: PodTemplateJson;
  readonly submissionMode?: string;
  readonly suspend?: boolean;
  readonly managedBy?: string;
  readonly shutdownAfterJobFinishes?: boolean;
}

/** A RayService's spec (its own fields; the cluster's are under rayClusterConfig). */
export interface RayServiceSpecJson extends JsonFields {
  readonly rayClusterConfig?: RayClusterSpecJson;
  readonly managedBy?: string;
}

/**
 * The spec of a Ray object of one of the three kinds: its kind says which of these fields it has (a
 * RayCluster's are at the top, a RayJob's and a RayService's cluster one level down).
 */
export type RaySpecJson = RayClusterSpecJson & RayJobSpecJson & RayServiceSpecJson;
