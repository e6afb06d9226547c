/**
 * How Kubernetes matches a pod to a node, as Kueue's flavor assigner and its TAS feasibility check read it: taints
 * and tolerations (k8s.io/component-helpers/scheduling/corev1 FindMatchingUntoleratedTaint, core/v1 ToleratesTaint),
 * and required node affinity (component-helpers nodeaffinity.NodeSelector). One place for these facts: the flavor
 * assigner matches flavors with them, the TAS assigner nodes. Pure.
 */
import { isRecord, listOf } from './json';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

/** core/v1 Toleration.ToleratesTaint. */
export function toleratesTaint(tol: Toleration, taint: Taint): boolean {
  if (tol.effect && tol.effect !== taint.effect) return false;
  if (tol.key && tol.key !== taint.key) return false;
  if (tol.operator === 'Exists') return true;
  if (!tol.operator || tol.operator === 'Equal') return (tol.value ?? '') === (taint.value ?? '');
  return false;
}

/** Kueue's IsSchedulingTaint: the effects that keep a pod off a node. */
export const isSchedulingTaint = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';

/** FindMatchingUntoleratedTaint with IsSchedulingTaint: the first scheduling taint none of `tolerations` tolerates. */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  for (const t of taints) {
    if (!isSchedulingTaint(t)) continue;
    if (!tolerations.some((tol) => toleratesTaint(tol, t))) return t;
  }
  return undefined;
}

/** core/v1 Taint.ToString: `key=value:effect`, or `key:effect` without a value (Kueue's exclusion messages use it). */
export function taintString(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
}

/** Taints and tolerations of JSON, with the fields of the wrong type left out. */
export function taintsOf(list: unknown): Taint[] {
  return listOf(list).filter(isRecord).filter((t) => typeof t.key === 'string' && typeof t.effect === 'string')
    .map((t) => ({ key: t.key as string, value: typeof t.value === 'string' ? t.value : undefined, effect: t.effect as string }));
}

export function tolerationsOf(list: unknown): Toleration[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return listOf(list).filter(isRecord).map((t) => ({ key: str(t.key), operator: str(t.operator), value: str(t.value), effect: str(t.effect) }));
}

/** A node as the matching reads it. */
export interface NodeFacts {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * A pod's required node affinity (nodeSelectorTerms, ORed; each term's expressions ANDed), compiled: undefined when the
 * pod has none. A term without expressions or fields matches no node, as in Kubernetes.
 */
export function requiredAffinityOf(podSpec: unknown): ((n: NodeFacts) => boolean) | undefined {
  const affinity = isRecord(podSpec) && isRecord(podSpec.affinity) && isRecord(podSpec.affinity.nodeAffinity)
    ? podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  if (!isRecord(affinity)) return undefined;
  const terms = listOf(affinity.nodeSelectorTerms).filter(isRecord);
  return (n) => terms.some((term) => {
    const exprs = listOf(term.matchExpressions).filter(isRecord);
    const fields = listOf(term.matchFields).filter(isRecord);
    if (!exprs.length && !fields.length) return false;
    return exprs.every((e) => requirementMatches(e, n.labels)) && fields.every((f) => requirementMatches(f, { 'metadata.name': n.name }));
  });
}

function requirementMatches(r: Record<string, unknown>, labels: Readonly<Record<string, string>>): boolean {
  const key = typeof r.key === 'string' ? r.key : '';
  const values = listOf(r.values).filter((v): v is string => typeof v === 'string');
  const has = Object.prototype.hasOwnProperty.call(labels, key);
  switch (r.operator) {
    case 'In': return has && values.includes(labels[key]);
    case 'NotIn': return !has || !values.includes(labels[key]);
    case 'Exists': return has;
    case 'DoesNotExist': return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1) return false;
      const a = Number.parseInt(labels[key], 10), b = Number.parseInt(values[0], 10);
      if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default: return false;
  }
}
