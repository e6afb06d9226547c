/** Reading the Kueue-relevant facts out of a Ray object (pure). */
import { listOf, ownField, stringOf } from './json';
import {
  clusterSpecOf, PodTemplateJson, RAY_KIND_TABLE, RayObject, rayKindNamed, submitterTemplateOf, SuspendField, WorkerGroupSpecJson,
} from './kinds';
import { KueueCapabilities } from './versions';

export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';
export const PRIORITY_CLASS_LABEL = 'kueue.x-k8s.io/priority-class';
export const ELASTIC_JOB_ANNOTATION = 'kueue.x-k8s.io/elastic-job';
export const ELASTIC_SCHEDULING_GATE = 'kueue.x-k8s.io/elastic-job';

/** Name length limits KubeRay enforces (it derives child names from them), from the kind table. */
export const MAX_NAME_LENGTH: Record<string, number> = Object.fromEntries(RAY_KIND_TABLE.map((k) => [k.kind, k.maxNameLength]));

/**
 * Where a queued Ray object is suspended when it is created, for a Kueue version, or undefined where
 * it must not be (the kind table's suspendFieldAtCreate). Shared by the constructs (synth) and the
 * mutating webhook.
 */
export function suspendFieldAtCreate(kind: string, autoscaling: boolean, kueue: KueueCapabilities): SuspendField | undefined {
  const adapter = rayKindNamed(kind);
  return adapter ? adapter.suspendFieldAtCreate(autoscaling, kueue) : 'spec.suspend';
}

export { isRecord, listOf, ownField, shown, stringOf } from './json';

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

export function workerGroupsOf(obj: RayObject): readonly WorkerGroupSpecJson[] {
  return listOf(clusterSpecOf(obj)?.spec?.workerGroupSpecs);
}

/** A pod template with its path: whatever the object holds there, read as the CRD declares it (the callers check it). */
type PodTemplateRef = { path: string; template: PodTemplateJson | undefined; role: 'head' | 'worker' | 'submitter' };

/**
 * The object evaluateRayObject runs the rules on, and its pod templates once listed: five rules walk them,
 * and the object does not change while the rules run. Set only for the duration of that call.
 */
let evaluating: { readonly obj: RayObject; templates?: PodTemplateRef[] } | undefined;

/**
 * Runs `f` with podTemplatesOf(obj) listed at most once (its callers only read the list).
 * @internal
 */
export function sharingPodTemplates<T>(obj: RayObject, f: () => T): T {
  const outer = evaluating;
  evaluating = { obj };
  try {
    return f();
  } finally {
    evaluating = outer;
  }
}

/** Every pod template of the object with its path (head, workers unless `workers: false`, submitter). */
export function podTemplatesOf(obj: RayObject, opts: { readonly workers?: boolean } = {}): PodTemplateRef[] {
  const shared = opts.workers !== false && evaluating?.obj === obj ? evaluating : undefined;
  if (shared?.templates) return shared.templates;
  const out = listPodTemplates(obj, opts);
  if (shared) shared.templates = out;
  return out;
}

function listPodTemplates(obj: RayObject, opts: { readonly workers?: boolean }): PodTemplateRef[] {
  const out: PodTemplateRef[] = [];
  const cs = clusterSpecOf(obj);
  if (cs) {
    out.push({ path: `${cs.path}.headGroupSpec.template`, template: ownField(cs.spec.headGroupSpec, 'template') as PodTemplateJson | undefined,
      role: 'head' });
    if (opts.workers !== false) workerGroupsOf(obj)
      .forEach((g, i) => out.push({ path: `${cs.path}.workerGroupSpecs[${i}].template`, template: g?.template, role: 'worker' }));
  }
  const submitter = submitterTemplateOf(obj);
  if (submitter) out.push({ path: rayKindNamed(obj.kind)!.submitterTemplatePath!, template: submitter, role: 'submitter' });
  return out;
}
