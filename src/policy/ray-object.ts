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

export function queueNameOf(obj: RayObject): string | undefined {
  // Kueue also honours the deprecated annotation of the same key.
  return obj.metadata?.labels?.[QUEUE_NAME_LABEL] ?? obj.metadata?.annotations?.[QUEUE_NAME_LABEL];
}

export function priorityClassOf(obj: RayObject): string | undefined {
  return obj.metadata?.labels?.[PRIORITY_CLASS_LABEL];
}

export function isElastic(obj: RayObject): boolean {
  return obj.metadata?.annotations?.[ELASTIC_JOB_ANNOTATION] === 'true';
}

export function usesAutoscaling(obj: RayObject): boolean {
  return clusterSpecOf(obj)?.spec?.enableInTreeAutoscaling === true;
}

export function namespaceOf(obj: RayObject): string {
  return obj.metadata?.namespace ?? 'default';
}

/** Kueue manages the object (its rules apply) when it carries a queue name. */
export function isQueued(obj: RayObject): boolean {
  return !!queueNameOf(obj);
}

export function workerGroupsOf(obj: RayObject): any[] {
  const g = clusterSpecOf(obj)?.spec?.workerGroupSpecs;
  return Array.isArray(g) ? g : [];
}

/** Every pod template of the object with its path (head, workers, submitter). */
export function podTemplatesOf(obj: RayObject): Array<{ path: string; template: any; role: 'head' | 'worker' | 'submitter' }> {
  const out: Array<{ path: string; template: any; role: 'head' | 'worker' | 'submitter' }> = [];
  const cs = clusterSpecOf(obj);
  if (cs) {
    out.push({ path: `${cs.path}.headGroupSpec.template`, template: cs.spec.headGroupSpec?.template, role: 'head' });
    workerGroupsOf(obj).forEach((g, i) => out.push({ path: `${cs.path}.workerGroupSpecs[${i}].template`, template: g?.template, role: 'worker' }));
  }
  if (obj.kind === 'RayJob' && obj.spec?.submitterPodTemplate) {
    out.push({ path: 'spec.submitterPodTemplate', template: obj.spec.submitterPodTemplate, role: 'submitter' });
  }
  return out;
}
