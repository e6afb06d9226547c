/** Reading the Kueue-relevant facts out of a Ray object (pure). */
import { clusterSpecOf, RayObject } from './gang';
import { KueueCapabilities } from './versions';

export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';
export const PRIORITY_CLASS_LABEL = 'kueue.x-k8s.io/priority-class';
export const ELASTIC_JOB_ANNOTATION = 'kueue.x-k8s.io/elastic-job';
export const ELASTIC_SCHEDULING_GATE = 'kueue.x-k8s.io/elastic-job';

/** Name length limits KubeRay enforces (it derives child names from them). */
export const MAX_NAME_LENGTH: Record<string, number> = { RayJob: 47, RayService: 47, RayCluster: 53 };
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Where a queued Ray object is suspended when it is created, for a Kueue version, or undefined where
 * it must not be: Kueue >= 0.17 admits a RayService through rayClusterConfig.suspend (before, it
 * suspends the child RayCluster itself), and the 0.14.7-0.16.0 short-term path refuses suspend on an
 * autoscaling RayJob. Shared by the constructs (synth) and the mutating webhook.
 */
export function suspendFieldAtCreate(kind: string, autoscaling: boolean, kueue: KueueCapabilities): 'spec.suspend' | 'spec.rayClusterConfig.suspend' | undefined {
  if (kind === 'RayService') return kueue.rayServiceQueueing === 'native' ? 'spec.rayClusterConfig.suspend' : undefined;
  if (kind === 'RayJob' && autoscaling && kueue.elasticRayJob === 'short-term') return undefined;
  return 'spec.suspend';
}

/*
 * Readers of user-written fields. The mutating webhook sees objects before the API server checks them
 * against the CRD schema, and a rule may be called on anything: a field of the wrong type reads as
 * absent here, and the objectShape rule reports it.
 */

/** A JSON object (not an array, not null). */
export function isRecord(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` when it is a list, else an empty one. */
export function listOf(v: unknown): any[] {
  return Array.isArray(v) ? v : [];
}

/** `v` when it is a string. */
export function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** An own property of a JSON object, never one inherited from Object.prototype ("constructor", "__proto__"). */
export function ownField(o: unknown, key: string): any {
  return isRecord(o) && Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;
}

/** A user value rendered safely for a message: strings as written (shortened), anything else as JSON. */
export function shown(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else {
    try {
      s = JSON.stringify(v) ?? String(v);
    } catch {
      s = Array.isArray(v) ? '[…]' : '{…}'; // nested too deep to print
    }
  }
  return s.length > 80 ? `${s.slice(0, 60)}…${s.slice(-12)}` : s;
}

/** The queue name Kueue reads: the label, and before 0.15 the deprecated annotation of the same key. */
export function queueNameOf(obj: RayObject, kueue: Pick<KueueCapabilities, 'queueNameAnnotation'>): string | undefined {
  const label = stringOf(ownField(obj.metadata?.labels, QUEUE_NAME_LABEL));
  if (label) return label;
  return kueue.queueNameAnnotation ? stringOf(ownField(obj.metadata?.annotations, QUEUE_NAME_LABEL)) || undefined : undefined;
}

/** The queue-name annotation, when set (Kueue >= 0.15 ignores it). */
export function queueNameAnnotationOf(obj: RayObject): string | undefined {
  return stringOf(ownField(obj.metadata?.annotations, QUEUE_NAME_LABEL));
}

export function priorityClassOf(obj: RayObject): string | undefined {
  return stringOf(ownField(obj.metadata?.labels, PRIORITY_CLASS_LABEL));
}

export function isElastic(obj: RayObject): boolean {
  return ownField(obj.metadata?.annotations, ELASTIC_JOB_ANNOTATION) === 'true';
}

export function usesAutoscaling(obj: RayObject): boolean {
  return clusterSpecOf(obj)?.spec?.enableInTreeAutoscaling === true;
}

export function namespaceOf(obj: RayObject): string {
  return stringOf(obj.metadata?.namespace) ?? 'default';
}

/** Kueue manages the object (its rules apply) when it carries a queue name. */
export function isQueued(obj: RayObject, kueue: Pick<KueueCapabilities, 'queueNameAnnotation'>): boolean {
  return !!queueNameOf(obj, kueue);
}

export function workerGroupsOf(obj: RayObject): any[] {
  const g = clusterSpecOf(obj)?.spec?.workerGroupSpecs;
  return Array.isArray(g) ? g : [];
}

/** Every pod template of the object with its path (head, workers unless `workers: false`, submitter). */
export function podTemplatesOf(obj: RayObject, opts: { readonly workers?: boolean } = {}): Array<{ path: string; template: any; role: 'head' | 'worker' | 'submitter' }> {
  const out: Array<{ path: string; template: any; role: 'head' | 'worker' | 'submitter' }> = [];
  const cs = clusterSpecOf(obj);
  if (cs) {
    out.push({ path: `${cs.path}.headGroupSpec.template`, template: ownField(cs.spec.headGroupSpec, 'template'), role: 'head' });
    if (opts.workers !== false) workerGroupsOf(obj).forEach((g, i) => out.push({ path: `${cs.path}.workerGroupSpecs[${i}].template`, template: g?.template, role: 'worker' }));
  }
  if (obj.kind === 'RayJob' && isRecord(obj.spec?.submitterPodTemplate)) {
    out.push({ path: 'spec.submitterPodTemplate', template: obj.spec.submitterPodTemplate, role: 'submitter' });
  }
  return out;
}
