/**
 * The policy: pure functions shared by the constructs (synth), the webhook (admission) and the
 * preview CLI. No cdk8s, no I/O.
 */
import { PolicyContext } from './context';
import { Finding } from './findings';
import { RayObject } from './gang';
import { COMPATIBILITY_RULES } from './rules/compatibility';
import { CROSS_OBJECT_RULES } from './rules/cross-object';
import { KUBERAY_OPERATOR_RULES } from './rules/kuberay-operator';
import { KUEUE_WEBHOOK_RULES } from './rules/kueue-webhook';
import { Rule } from './rules/rule';

export * from './admission';
export * from './context';
export * from './findings';
export * from './gang';
export * from './quantity';
export * from './ray-object';
export * from './versions';
export * from './tenant';
export { Rule } from './rules/rule';
export * from './rules/compatibility';
export * from './rules/cross-object';
export * from './rules/kuberay-operator';
export * from './rules/kueue-webhook';

/** Every rule by name. Rules on a single object first, cross-object rules last. */
export const RULES: Readonly<Record<string, Rule>> = {
  ...KUEUE_WEBHOOK_RULES,
  ...KUBERAY_OPERATOR_RULES,
  ...COMPATIBILITY_RULES,
  ...CROSS_OBJECT_RULES,
};

/** Runs every rule on a Ray object. Unknown kinds get no findings. */
export function evaluateRayObject(obj: RayObject, ctx: PolicyContext): Finding[] {
  if (obj.kind !== 'RayJob' && obj.kind !== 'RayCluster' && obj.kind !== 'RayService') return [];
  const out: Finding[] = [];
  for (const rule of Object.values(RULES)) out.push(...rule(obj, ctx));
  return out;
}
