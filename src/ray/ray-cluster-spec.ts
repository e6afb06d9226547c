import { Duration } from 'cdk8s';
import { wholeSeconds } from '../platform/duration';
import { RAY_PORTS } from '../policy/tenant-namespace';
import { ContainerResources, renderResources } from '../platform/container-resources';
import { isRecord } from '../policy/json';
import type {
  AutoscalerOptionsJson, ContainerJson, EnvVarJson, HeadGroupSpecJson, PodTemplateJson, RayClusterSpecJson, WorkerGroupSpecJson,
} from '../policy/kinds/ray-json';
import { mergeTemplate } from './pod-template';

/** Options shared by the head group and worker groups. */
export interface RayGroupOptions {
  /** Resources of the Ray container (containers[0]). */
  readonly resources: ContainerResources;
  /**
   * Ray container image.
   * @default - the workload's image (rayproject/ray:<rayVersion>)
   */
  readonly image?: string;
  /**
   * Name of the Ray container.
   * @default "ray-head" for the head, "ray-worker" for workers
   */
  readonly containerName?: string;
  /**
   * `ray start` parameters.
   * @default {}
   */
  readonly rayStartParams?: Record<string, string>;
  /**
   * Environment variables of the Ray container.
   * @default - none
   */
  readonly env?: Record<string, string>;
  /**
   * Escape hatch: any other PodTemplateSpec fields, in Kubernetes JSON (e.g. `{ spec: { nodeSelector, volumes,
   * tolerations, serviceAccountName }, metadata: { labels } }`). Deep-merged over the generated template;
   * containers, volumes, env and ports merge by name. Everything given is emitted, then checked by the policy.
   * @default - none
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any: a public jsii prop (the user's Kubernetes JSON); the type of the published API stays.
  readonly podTemplate?: Record<string, any>;
}

/** The head group. */
export interface HeadGroupOptions extends RayGroupOptions {
  /**
   * Type of the head service.
   * @default - KubeRay's default (ClusterIP)
   */
  readonly serviceType?: HeadServiceType;
}

/** Service types KubeRay accepts for the head service (spec.headGroupSpec.serviceType). */
export enum HeadServiceType {
  /** Reachable inside the cluster only (KubeRay's default). */
  CLUSTER_IP = 'ClusterIP',
  /** Also on a port of every node. */
  NODE_PORT = 'NodePort',
  /** Also through the cloud's load balancer, outside the cluster. */
  LOAD_BALANCER = 'LoadBalancer',
}

/** A worker group. */
export interface WorkerGroupOptions extends RayGroupOptions {
  /** groupName (its lower-cased form is the Kueue PodSet name). */
  readonly groupName: string;
  /**
   * Desired replicas. Kueue counts replicas × numOfHosts.
   * @default - minReplicas when given, else 1 (0 for elastic workloads)
   */
  readonly replicas?: number;
  /**
   * Fewest workers of the group; the autoscaler never scales below it.
   * @default - equal to replicas (0 for elastic workloads)
   */
  readonly minReplicas?: number;
  /**
   * Most workers of the group; the autoscaler, or Kueue's elastic scale-up, never goes above it.
   * @default - equal to replicas for fixed gangs; required for elastic workloads
   */
  readonly maxReplicas?: number;
  /**
   * Pods per replica (multi-host, e.g. TPU slices).
   * @default 1
   */
  readonly numOfHosts?: number;
}

/** Autoscaler upscaling modes. */
export enum UpscalingMode {
  /** Upscaling is not rate-limited. */
  DEFAULT = 'Default',
  /** The same as DEFAULT: upscaling is not rate-limited. */
  AGGRESSIVE = 'Aggressive',
  /** Upscaling is rate-limited: pending workers are at most as many as the workers already running. */
  CONSERVATIVE = 'Conservative',
}

/** Ray autoscaler versions. */
export enum AutoscalerVersion {
  /** The original Ray autoscaler. */
  V1 = 'v1',
  /** Ray's v2 autoscaler, which scales down idle workers by instance; it needs a Ray image that ships it. */
  V2 = 'v2',
}

/** In-tree Ray autoscaler settings for elastic workloads. */
export interface AutoscalingOptions {
  /**
   * How long a worker stays idle before the autoscaler removes it (whole seconds).
   * @default Duration.seconds(60)
   */
  readonly idleTimeout?: Duration;
  /**
   * How fast the autoscaler adds workers when tasks wait.
   * @default - Ray's default (UpscalingMode.DEFAULT)
   */
  readonly upscalingMode?: UpscalingMode;
  /**
   * Which Ray autoscaler runs in the head pod.
   * @default - Ray's default for the Ray version
   */
  readonly version?: AutoscalerVersion;
  /**
   * Resources of the autoscaler sidecar (Kueue >= 0.19 counts them in the head PodSet).
   * @default - KubeRay's default, 500m CPU / 512Mi
   */
  readonly resources?: ContainerResources;
  /**
   * Image of the autoscaler sidecar; set it to pin an autoscaler build apart from Ray's.
   * @default - the head image
   */
  readonly image?: string;
}

export interface ClusterSpecInput {
  readonly where: string;
  readonly rayVersion: string;
  readonly image: string;
  readonly head: HeadGroupOptions;
  readonly workers: readonly WorkerGroupOptions[];
  readonly elastic: boolean;
  readonly autoscaling?: AutoscalingOptions;
  readonly suspend?: boolean;
  /** A RayService's head: KubeRay routes Serve traffic only through a head port named `serve`. */
  readonly servePort?: boolean;
  /** Ray's token authentication (authOptions.mode: token; KubeRay generates the token Secret). */
  readonly tokenAuthentication?: boolean;
}

const HEAD_PORTS = [
  { containerPort: RAY_PORTS.gcs, name: 'gcs-server' },
  { containerPort: RAY_PORTS.dashboard, name: 'dashboard' },
  { containerPort: RAY_PORTS.client, name: 'client' },
];
// KubeRay v1.6.2 refuses to create a RayService's serve Service without it ("Please specify a port named
// 'serve'"): the RayService would stay Initializing with its apps RUNNING (seen on the real node).
const SERVE_PORT = { containerPort: RAY_PORTS.serve, name: 'serve' };

function envList(env: Record<string, string> | undefined): EnvVarJson[] | undefined {
  if (!env || !Object.keys(env).length) return undefined;
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}

/** The name of `template.spec.containers[0]`, read from what the merge gave (the user's fragment may be anything). */
function firstContainerName(template: unknown): unknown {
  const containers = isRecord(template) && isRecord(template.spec) ? template.spec.containers : undefined;
  const first: unknown = Array.isArray(containers) ? containers[0] : isRecord(containers) ? containers['0'] : undefined;
  return isRecord(first) ? first.name : undefined;
}

function groupTemplate(g: RayGroupOptions, image: string, defaultName: string, where: string, head: boolean, servePort = false): PodTemplateJson {
  const name = g.containerName ?? defaultName;
  const env = envList(g.env);
  const resources = renderResources(g.resources, where);
  const container: ContainerJson = {
    name,
    image: g.image ?? image,
    ...(head ? { ports: [...HEAD_PORTS, ...(servePort ? [SERVE_PORT] : [])].map((p) => ({ ...p })) } : {}),
    ...(env ? { env } : {}),
    ...(resources ? { resources } : {}),
  };
  const template: PodTemplateJson = { spec: { containers: [container] } };
  const merged = mergeTemplate(template, g.podTemplate);
  if (!isRecord(merged) || firstContainerName(merged) !== name) {
    throw new Error(`${where}: podTemplate puts another container first; KubeRay treats containers[0] as the Ray container. Fix: add sidecars after `
      + `it (merge by name keeps "${name}" first).`);
  }
  return merged;
}

function nonNegInt(v: number | undefined, field: string, where: string): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new Error(`${where}: ${field} ${v} must be a whole number >= 0.`);
}

/** Resolves worker replica defaults (documented on WorkerGroupOptions). */
export function workerReplicas(w: WorkerGroupOptions, elastic: boolean, where: string): { replicas: number; min: number; max: number } {
  nonNegInt(w.replicas, 'replicas', where);
  nonNegInt(w.minReplicas, 'minReplicas', where);
  nonNegInt(w.maxReplicas, 'maxReplicas', where);
  if (elastic) {
    if (w.maxReplicas === undefined) throw new Error(`${where}: maxReplicas is required for an elastic workload (it bounds scale-up and the quota it `
      + 'can reach). Fix: set maxReplicas.');
    const min = w.minReplicas ?? 0;
    return { replicas: w.replicas ?? min, min, max: w.maxReplicas };
  }
  const replicas = w.replicas ?? w.minReplicas ?? 1;
  return { replicas, min: w.minReplicas ?? replicas, max: w.maxReplicas ?? replicas };
}

/** The in-tree autoscaler's options of an elastic workload. */
function autoscalerOptions(input: ClusterSpecInput): AutoscalerOptionsJson {
  const a = input.autoscaling ?? {};
  const idleTimeoutSeconds = wholeSeconds(a.idleTimeout, 60, 'autoscaling.idleTimeout', input.where);
  const resources = renderResources(a.resources, `${input.where} autoscaling`);
  return {
    idleTimeoutSeconds,
    ...(a.upscalingMode ? { upscalingMode: a.upscalingMode } : {}),
    ...(a.version ? { version: a.version } : {}),
    ...(a.image ? { image: a.image } : {}),
    ...(resources ? { resources } : {}),
  };
}

/** Builds a RayClusterSpec in Kubernetes JSON. */
export function buildClusterSpec(input: ClusterSpecInput): RayClusterSpecJson {
  const autoscaling = input.elastic ? { enableInTreeAutoscaling: true, autoscalerOptions: autoscalerOptions(input) } : {};
  const head: HeadGroupSpecJson = {
    rayStartParams: { ...(input.head.rayStartParams ?? {}) },
    template: groupTemplate(input.head, input.image, 'ray-head', `${input.where} headGroup`, true, input.servePort),
    ...(input.head.serviceType ? { serviceType: input.head.serviceType } : {}),
  };
  const workerGroupSpecs = input.workers.map((w, i): WorkerGroupSpecJson => {
    const where = `${input.where} workerGroups[${i}] ("${w.groupName}")`;
    const r = workerReplicas(w, input.elastic, where);
    return {
      groupName: w.groupName,
      replicas: r.replicas,
      minReplicas: r.min,
      maxReplicas: r.max,
      rayStartParams: { ...(w.rayStartParams ?? {}) },
      template: groupTemplate(w, input.image, 'ray-worker', where, false),
      ...(w.numOfHosts !== undefined ? { numOfHosts: w.numOfHosts } : {}),
    };
  });
  return {
    rayVersion: input.rayVersion,
    ...autoscaling,
    ...(input.suspend !== undefined ? { suspend: input.suspend } : {}),
    ...(input.tokenAuthentication ? { authOptions: { mode: 'token' } } : {}),
    headGroupSpec: head,
    workerGroupSpecs,
  };
}
