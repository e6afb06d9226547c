/**
 * The policy: pure functions shared by the constructs (synth), the webhook (admission) and the
 * preview CLI. No cdk8s, no I/O.
 */
import { PolicyContext } from './context';
import { Finding } from './findings';
import { RayObject, rayKindOf } from './kinds';
import { COMPATIBILITY_RULES } from './rules/compatibility';
import { CROSS_OBJECT_RULES } from './rules/cross-object';
import { KUBERAY_OPERATOR_RULES } from './rules/kuberay-operator';
import { KUEUE_WEBHOOK_RULES } from './rules/kueue-webhook';
import { MULTIKUEUE_RULES } from './rules/multikueue';
import { objectShape, OBJECT_SHAPE_RULES } from './rules/object-shape';
import { Rule } from './rules/rule';

export * from './admission';
export * from './context';
export * from './findings';
export * from './gang';
export * from './inventory-objects';
export * from './kinds';
export * from './quantity';
export * from './ray-object';
export * from './versions';
export * from './tenant';
export * from './writers';
export { MAX_FINDINGS_PER_RULE, Rule } from './rules/rule';
export * from './rules/compatibility';
export * from './rules/cross-object';
export * from './rules/kuberay-operator';
export * from './rules/kueue-webhook';
export * from './rules/multikueue';
export * from './rules/object-shape';

/** Every rule by name. The field types first, rules on a single object next, cross-object rules last. */
export const RULES: Readonly<Record<string, Rule>> = {
  ...OBJECT_SHAPE_RULES,
  ...KUEUE_WEBHOOK_RULES,
  ...KUBERAY_OPERATOR_RULES,
  ...COMPATIBILITY_RULES,
  ...CROSS_OBJECT_RULES,
  ...MULTIKUEUE_RULES,
};

/**
 * Runs every rule on a Ray object. Unknown kinds get no findings. An object with fields of the wrong
 * type gets only those findings: the other rules would read such fields as absent and add noise.
 */
export function evaluateRayObject(obj: RayObject, ctx: PolicyContext): Finding[] {
  if (!rayKindOf(obj)) return [];
  const shape = objectShape(obj, ctx);
  if (shape.length) return shape;
  const out: Finding[] = [];
  // No spread: push(...list) throws RangeError past about 100,000 arguments.
  for (const rule of Object.values(RULES)) if (rule !== objectShape) for (const f of rule(obj, ctx)) out.push(f);
  return out;
}
