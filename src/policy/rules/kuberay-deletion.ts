/**
 * A RayJob's deletionPolicy (KubeRay 1.4) or deletionStrategy (1.5+), as ValidateRayJobSpec and its
 * validateDeletion* helpers check them (ray-operator/controllers/ray/utils/validation.go).
 */
import { RAY_JOB } from '../kinds';
import { isRecord, listOf, ownField, shown } from '../ray-object';
import { FIRST_KUBERAY_VERSION } from '../versions';
import { defineRule, Reporter, RuleRecord } from './rule';

// KubeRay deletes in this order, so each policy's TTL is at least the one before it (validateTTLConsistency).
const DELETION_ORDER = ['DeleteWorkers', 'DeleteCluster', 'DeleteSelf'];

/** Rules for one condition: no policy twice, TTLs in deletion order (checked on rules whose condition is well formed). */
function deletionRuleSets(r: Reporter, rules: readonly unknown[]): void {
  const byCondition = new Map<string, Map<string, { ttl: number; index: number }>>();
  rules.forEach((rule, i) => {
    const c = conditionOf(rule);
    const policy = ownField(rule, 'policy');
    if ((c.jobStatus === undefined) === (c.jobDeploymentStatus === undefined) || typeof policy !== 'string') return;
    const condition = c.jobStatus !== undefined ? `jobStatus ${shown(c.jobStatus)}` : `jobDeploymentStatus ${shown(c.jobDeploymentStatus)}`;
    const policies = byCondition.get(condition) ?? new Map<string, { ttl: number; index: number }>();
    byCondition.set(condition, policies);
    if (policies.has(policy)) {
      r.error(`spec.deletionStrategy.deletionRules[${i}]`, `a second ${policy} rule for ${condition} (KubeRay refuses duplicates)`,
        `merge it with deletionRules[${policies.get(policy)!.index}]`);
      return;
    }
    policies.set(policy, { ttl: typeof c.ttlSeconds === 'number' ? c.ttlSeconds : 0, index: i });
  });
  for (const [condition, policies] of byCondition) {
    let prev: { policy: string; ttl: number } | undefined;
    for (const policy of DELETION_ORDER) {
      const p = policies.get(policy);
      if (!p) continue;
      if (prev && p.ttl < prev.ttl) {
        r.error(`spec.deletionStrategy.deletionRules[${p.index}].condition.ttlSeconds`,
          `for ${condition}, ${policy} after ${p.ttl} s comes before ${prev.policy} after ${prev.ttl} s; KubeRay needs the TTLs in deletion `
            + `order (${DELETION_ORDER.join(' <= ')})`, `give ${policy} a ttlSeconds of at least ${prev.ttl}`);
      }
      prev = { policy, ttl: p.ttl };
    }
  }
}

const DELETION_POLICIES_ON_CLUSTER = ['DeleteCluster', 'DeleteWorkers'];

/** A deletion rule's condition, {} unless it is a JSON object (only a JSON object has fields). */
function conditionOf(rule: unknown): Record<string, unknown> {
  const c = ownField(rule, 'condition');
  return isRecord(c) ? c : {};
}

/**
 * deletionPolicy (1.4) and deletionStrategy (1.5+) are pruned on the other line. KubeRay refuses either
 * while its RayJobDeletionPolicy gate is off (the default before 1.6; the policy assumes the default),
 * and with the gate on checks the strategy the way ValidateRayJobSpec does.
 */
export const rayJobDeletion = defineRule({
  name: 'rayJobDeletion', source: 'kuberay-operator', kinds: ['RayJob'],
  description: 'deletionPolicy or deletionStrategy matches the KubeRay line and its RayJobDeletionPolicy gate, and passes KubeRay\'s checks.',
}, (r, obj, ctx) => {
  if (!RAY_JOB.is(obj)) return r.findings;
  const s = isRecord(obj.spec) ? obj.spec : {};
  if (s.deletionPolicy !== undefined && ctx.kubeRay.deletionField !== 'deletionPolicy') {
    r.error('spec.deletionPolicy', `KubeRay ${ctx.kubeRay.version} has no deletionPolicy: the API server silently prunes it`,
      `use spec.deletionStrategy (KubeRay >= ${FIRST_KUBERAY_VERSION.deletionStrategy})`, 'kubernetes');
  }
  if (s.deletionStrategy !== undefined && ctx.kubeRay.deletionField !== 'deletionStrategy') {
    r.error('spec.deletionStrategy', `KubeRay ${ctx.kubeRay.version} has no deletionStrategy: the API server silently prunes it`,
      `use spec.deletionPolicy on ${ctx.kubeRay.version}, or choose KubeRay >= ${FIRST_KUBERAY_VERSION.deletionStrategy}`, 'kubernetes');
  }
  const field = ctx.kubeRay.deletionField;
  const value = s[field];
  if (value === undefined || value === null) return r.findings;
  if (!ctx.kubeRay.deletionGateDefaultOn) {
    r.error(`spec.${field}`,
      `KubeRay ${ctx.kubeRay.version} refuses ${field} unless its RayJobDeletionPolicy feature gate is on, which it is not by default`,
      `remove ${field} and rely on shutdownAfterJobFinishes, or start the operator with --feature-gates=RayJobDeletionPolicy=true`);
    return r.findings;
  }
  const selector = isRecord(s.clusterSelector) && Object.keys(s.clusterSelector).length > 0;
  const autoscaling = s.rayClusterSpec?.enableInTreeAutoscaling === true;
  const policyChecks = (policy: unknown, at: string) => {
    if (selector && DELETION_POLICIES_ON_CLUSTER.includes(policy as string)) r.error(at,
      `${shown(policy)} cannot be used with clusterSelector: the job does not own the cluster (KubeRay)`, 'use DeleteSelf or DeleteNone');
    if (autoscaling && policy === 'DeleteWorkers') r.error(at, 'DeleteWorkers cannot be combined with autoscaling (KubeRay)',
      'use DeleteCluster, or turn autoscaling off');
  };
  if (field === 'deletionPolicy') {
    if (value === 'DeleteNone' && s.shutdownAfterJobFinishes === true) r.error('spec.deletionPolicy',
      'DeleteNone contradicts shutdownAfterJobFinishes: true (KubeRay)', 'remove deletionPolicy (Kueue needs shutdownAfterJobFinishes)');
    policyChecks(value, 'spec.deletionPolicy');
    return r.findings;
  }
  const ds = isRecord(value) ? value : {};
  const legacy = ds.onSuccess !== undefined || ds.onFailure !== undefined;
  if (ds.deletionRules !== undefined) {
    if (s.shutdownAfterJobFinishes === true) {
      r.error('spec.deletionStrategy.deletionRules', 'deletionRules cannot be combined with shutdownAfterJobFinishes, which Kueue requires',
        'use the onSuccess/onFailure form of deletionStrategy');
    }
    if (legacy) r.error('spec.deletionStrategy', 'deletionRules cannot be combined with onSuccess/onFailure (KubeRay)', 'use one form');
    listOf(ds.deletionRules).forEach((rule, i) => {
      const at = `spec.deletionStrategy.deletionRules[${i}]`;
      const c = conditionOf(rule);
      if ((c.jobStatus === undefined) === (c.jobDeploymentStatus === undefined)) r.error(`${at}.condition`,
        'a deletion rule sets exactly one of jobStatus and jobDeploymentStatus (KubeRay)', 'set one of them');
      if (typeof c.ttlSeconds === 'number' && c.ttlSeconds < 0) r.error(`${at}.condition.ttlSeconds`, 'ttlSeconds must be >= 0 (KubeRay)',
        'use 0 or more');
      policyChecks(ownField(rule, 'policy'), `${at}.policy`);
    });
    deletionRuleSets(r, listOf(ds.deletionRules));
  } else if (!legacy) {
    r.error('spec.deletionStrategy', 'deletionStrategy needs deletionRules or onSuccess and onFailure (KubeRay)',
      'set onSuccess and onFailure, or remove deletionStrategy');
  } else {
    for (const k of ['onSuccess', 'onFailure'] as const) {
      const policy = ownField(ds[k], 'policy');
      if (policy === undefined) r.error(`spec.deletionStrategy.${k}.policy`,
        'deletionStrategy needs both onSuccess and onFailure with a policy (KubeRay)', `set ${k}.policy`);
      if (policy === 'DeleteNone' && s.shutdownAfterJobFinishes === true) {
        r.error(`spec.deletionStrategy.${k}.policy`,
          "DeleteNone contradicts shutdownAfterJobFinishes: true (KubeRay: \"shutdownAfterJobFinishes is set to 'true' while deletion "
            + "policy is 'DeleteNone'\")",
          'use DeleteCluster (Kueue needs shutdownAfterJobFinishes), or remove deletionStrategy');
      }
      policyChecks(policy, `spec.deletionStrategy.${k}.policy`);
    }
  }
  return r.findings;
});

export const KUBERAY_DELETION_RULES: readonly RuleRecord[] = [rayJobDeletion];
