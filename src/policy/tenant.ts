/**
 * How TenantQueue records tenant rules on cluster objects, so the controller can enforce them for
 * workloads that did not come from cdk8s.
 */
export const TENANT_LABEL = 'cdk8s-kueue-ray.io/tenant';
export const ALLOWED_PRIORITY_CLASSES_ANNOTATION = 'cdk8s-kueue-ray.io/allowed-priority-classes';
export const DEFAULT_PRIORITY_CLASS_ANNOTATION = 'cdk8s-kueue-ray.io/default-priority-class';

export interface TenantRulesRecord {
  readonly allowedPriorityClasses?: readonly string[];
  readonly defaultPriorityClass?: string;
}

/** Annotations that record tenant rules on a LocalQueue (and a created Namespace). */
export function tenantAnnotations(rules: TenantRulesRecord): Record<string, string> {
  const out: Record<string, string> = {};
  if (rules.allowedPriorityClasses?.length) out[ALLOWED_PRIORITY_CLASSES_ANNOTATION] = rules.allowedPriorityClasses.join(',');
  if (rules.defaultPriorityClass) out[DEFAULT_PRIORITY_CLASS_ANNOTATION] = rules.defaultPriorityClass;
  return out;
}

/** Reads the rules back from annotations (controller side). */
export function tenantRulesFromAnnotations(annotations: Record<string, string> | undefined): TenantRulesRecord | undefined {
  if (!annotations) return undefined;
  const allowed = annotations[ALLOWED_PRIORITY_CLASSES_ANNOTATION];
  const def = annotations[DEFAULT_PRIORITY_CLASS_ANNOTATION];
  if (allowed === undefined && def === undefined) return undefined;
  return {
    allowedPriorityClasses: allowed ? allowed.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    defaultPriorityClass: def || undefined,
  };
}
