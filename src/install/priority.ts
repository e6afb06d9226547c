import { isDns1123Subdomain } from '../policy/k8s-names';

/**
 * The PriorityClass the installs' Deployments run at unless told otherwise: the queue system (Kueue,
 * the KubeRay operator, the controller's fail-closed webhook) must outrank the workloads it queues, or
 * a node full of Ray pods leaves a restarted manager Pending (its rollout, and every tenant create,
 * then waits on Ray pods). Kubernetes defines it in every cluster and allows it in any namespace.
 */
export const SYSTEM_PRIORITY_CLASS = 'system-cluster-critical';

/** The pod spec field for `priorityClassName` ('' = none: the cluster's default priority), validated. */
export function priorityClassField(value: string | undefined, where: string): Record<string, string> {
  const v = value ?? SYSTEM_PRIORITY_CLASS;
  if (v === '') return {};
  if (!isDns1123Subdomain(v)) {
    throw new Error(`${where}: priorityClassName '${v}' is not a PriorityClass name (a DNS-1123 subdomain). Fix: name an existing `
      + 'PriorityClass, or \'\' for none.');
  }
  return { priorityClassName: v };
}
