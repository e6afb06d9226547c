/**
 * The Ray kinds: one adapter per kind (rayjob.ts, raycluster.ts, rayservice.ts) behind the RayKind
 * interface. The kind list, the plurals, the webhook rules and the RBAC resources derive from it.
 */
import { isRecord } from '../json';
import { RayKind, RayObject } from './kind';
import type { RayKindName } from './name';
import type { PodTemplateJson, RayClusterSpecJson } from './ray-json';
import type { KueueCapabilities } from '../versions';
import { RAY_CLUSTER } from './raycluster';
import { RAY_JOB } from './rayjob';
import { RAY_SERVICE } from './rayservice';

export * from './kind';
export * from './ray-json';
export type { RayKindName } from './name';
export { RAY_CLUSTER, RAY_JOB, RAY_SERVICE };
export { selectsCluster } from './rayjob';

/** Every Ray kind this library handles, in the order messages list them. */
export const RAY_KIND_TABLE: readonly RayKind[] = [RAY_JOB, RAY_CLUSTER, RAY_SERVICE];

/** The kind names: RayJob, RayCluster, RayService (the one kind list; a rule that reads them all names it). */
export const RAY_KINDS: readonly RayKindName[] = RAY_KIND_TABLE.map((k) => k.kind);

/** Whether `kind` names a Ray kind. */
export function isRayKindName(kind: unknown): kind is RayKindName {
  return (RAY_KINDS as readonly unknown[]).includes(kind);
}

/** The resource names: rayjobs, rayclusters, rayservices. */
export const RAY_PLURALS: readonly string[] = RAY_KIND_TABLE.map((k) => k.plural);

/** The API groups of the kinds (ray.io), for RBAC and webhook rules. */
export const RAY_API_GROUPS: readonly string[] = [...new Set(RAY_KIND_TABLE.map((k) => k.group))];

/** The API versions of the kinds (v1), for webhook rules. */
export const RAY_API_VERSIONS: readonly string[] = [...new Set(RAY_KIND_TABLE.map((k) => k.version))];

/** The adapter of a kind name, or undefined for any other kind. */
export function rayKindNamed(kind: unknown): RayKind | undefined {
  return RAY_KIND_TABLE.find((k) => k.kind === kind);
}

/** The adapter of an object's kind (or an owner reference's), or undefined when it is not a Ray kind. */
export function rayKindOf(obj: unknown): RayKind | undefined {
  return isRecord(obj) ? rayKindNamed(obj.kind) : undefined;
}

/** Kueue leaves this queued object alone (the kind's Skip; false for anything that is not a Ray kind). */
export function skipsKueue(obj: RayObject, kueue: Pick<KueueCapabilities, 'rayJobClusterSelectorRules'>): boolean {
  return rayKindOf(obj)?.skipsKueue(obj, kueue) ?? false;
}

/** A Ray object's cluster spec and its path (spec, spec.rayClusterSpec or spec.rayClusterConfig). */
export interface ClusterSpecAt {
  readonly spec: RayClusterSpecJson;
  readonly path: string;
}

/** The RayClusterSpec inside a Ray object, and its path. Only a JSON object is a cluster spec; any other type is reported by objectShape. */
export function clusterSpecOf(obj: RayObject): ClusterSpecAt | undefined {
  const kind = rayKindOf(obj);
  const spec = kind?.clusterSpecValue(obj);
  // A JSON object at the cluster spec's path is read as the CRD declares it (its fields are checked where read).
  return kind && isRecord(spec) ? { spec, path: kind.clusterSpecPath } : undefined;
}

/** Kueue builds a `submitter` PodSet for the object (a RayJob in K8sJobMode, the CRD default). */
export function hasSubmitterPodSet(obj: RayObject): boolean {
  return rayKindOf(obj)?.hasSubmitterPodSet(obj) ?? false;
}

/** The submitter pod template of the object, when its kind has one and it is a JSON object. */
export function submitterTemplateOf(obj: RayObject): PodTemplateJson | undefined {
  const path = rayKindOf(obj)?.submitterTemplatePath;
  if (path === undefined) return undefined;
  // Split once per path: the rules ask for the submitter template of every object several times.
  let keys = PATH_KEYS.get(path);
  if (!keys) PATH_KEYS.set(path, (keys = path.split('.')));
  let tpl: unknown = obj;
  // Only a JSON object has these keys (no list or scalar of JSON does).
  for (const key of keys) tpl = isRecord(tpl) ? tpl[key] : undefined;
  return isRecord(tpl) ? tpl : undefined;
}

const PATH_KEYS = new Map<string, readonly string[]>();
