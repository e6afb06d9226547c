/** Every rule, and running them all on a Ray object (pure). */
import { PolicyContext } from './context';
import { Finding } from './findings';
import { RayObject, rayKindOf } from './kinds';
import { sharingPodTemplates } from './ray-object';
import { COMPATIBILITY_RULES } from './rules/compatibility';
import { CROSS_OBJECT_RULES } from './rules/cross-object';
import { KUBERAY_CLUSTER_RULES } from './rules/kuberay-cluster';
import { KUBERAY_FEATURE_RULES } from './rules/kuberay-features';
import { KUBERAY_DELETION_RULES } from './rules/kuberay-deletion';
import { KUBERAY_OPERATOR_RULES } from './rules/kuberay-operator';
import { KUEUE_TOPOLOGY_RULES } from './rules/kueue-topology';
import { KUEUE_WEBHOOK_RULES } from './rules/kueue-webhook';
import { MULTIKUEUE_RULES } from './rules/multikueue';
import { PLAN_ANNOTATION_RULES } from './rules/plan-annotations';
import { objectShape, OBJECT_SHAPE_RULES } from './rules/object-shape';
import { Rule, RuleRecord } from './rules/rule';

/** Every rule run on a Ray object, in order: the field types first, rules on a single object next, cross-object rules last. */
export const RULE_RECORDS: readonly RuleRecord[] = [
  ...OBJECT_SHAPE_RULES,
  ...KUEUE_WEBHOOK_RULES,
  ...KUEUE_TOPOLOGY_RULES,
  ...KUBERAY_OPERATOR_RULES,
  ...KUBERAY_CLUSTER_RULES,
  ...KUBERAY_FEATURE_RULES,
  ...KUBERAY_DELETION_RULES,
  ...COMPATIBILITY_RULES,
  ...CROSS_OBJECT_RULES,
  ...MULTIKUEUE_RULES,
  ...PLAN_ANNOTATION_RULES,
];

/** Every rule's check by its name, in RULE_RECORDS' order. */
export const RULES: Readonly<Record<string, Rule>> = Object.fromEntries(RULE_RECORDS.map((r) => [r.name, r.check]));

/**
 * Runs every rule on a Ray object. Unknown kinds get no findings. An object with fields of the wrong
 * type gets only those findings: the other rules would read such fields as absent and add noise.
 */
export function evaluateRayObject(obj: RayObject, ctx: PolicyContext): Finding[] {
  if (!rayKindOf(obj)) return [];
  return sharingPodTemplates(obj, () => {
    const shape = objectShape.check(obj, ctx);
    if (shape.length) return shape;
    const out: Finding[] = [];
    // No spread: push(...list) throws RangeError past about 100,000 arguments. Index loops: every review runs this.
    for (let i = 0; i < RULES_AFTER_SHAPE.length; i++) {
      const found = RULES_AFTER_SHAPE[i](obj, ctx);
      for (let j = 0; j < found.length; j++) out.push(found[j]);
    }
    return out;
  });
}

/** RULES without objectShape, in order, listed once rather than per object. */
const RULES_AFTER_SHAPE: readonly Rule[] = RULE_RECORDS.filter((rule) => rule !== objectShape).map((rule) => rule.check);
