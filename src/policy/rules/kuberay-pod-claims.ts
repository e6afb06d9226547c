/**
 * Only KubeRay makes Ray pods (issue 40): in a tenant namespace, a pod, or a workload's pod template,
 * that carries KubeRay's labels (`ray.io/cluster`, `ray.io/node-type`) is refused unless KubeRay's
 * operator, or a Kubernetes controller making pods from a template that passed here, writes it.
 *
 * Why: a pod so labelled passes for one of a RayCluster's own. KubeRay counts a group's workers and the
 * head Service selects the head by these labels, and with an owner reference to the RayCluster Kueue's
 * pod integration leaves the pod to the Ray integration: it runs ungated, with no Workload, and
 * `ray start --address=<head>:6379` joins it to the admitted cluster outside the tenant's quota. The
 * owner reference, the labels and the pod's ServiceAccount are all the tenant's to write, so the rule
 * decides by who sends the request (writers.ts), as the Ray webhooks do. Pure.
 */
import { Finding } from '../findings';
import { Inventory } from '../context';
import { isRecord } from '../json';
import { tenantOf } from '../tenant';
import { RAY_CLUSTER_LABEL, RAY_NODE_TYPE_LABEL } from '../tenant-namespace';
import { trustedWriterRole, TrustedWriters } from '../writers';
import { RuleRecord } from './rule';

/** KubeRay's labels on the pods it makes for a RayCluster (KubeRay utils/constant.go). */
export const KUBERAY_POD_LABELS = [RAY_CLUSTER_LABEL, RAY_NODE_TYPE_LABEL] as const;

/** A kind whose objects are pods or carry a pod template, with where the pod's labels sit. */
export interface PodTemplateKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  /** The path of the pod's metadata in the object (empty for a Pod). */
  readonly podMetadata: readonly string[];
}

/**
 * Pods and every built-in workload that makes pods from a template. Kinds of other operators (a
 * JobSet, a LeaderWorkerSet) make their pods through these, or through a Job, whose create is judged.
 */
export const POD_TEMPLATE_KINDS: readonly PodTemplateKind[] = [
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', podMetadata: [] },
  { group: '', version: 'v1', kind: 'ReplicationController', plural: 'replicationcontrollers', podMetadata: ['spec', 'template', 'metadata'] },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', podMetadata: ['spec', 'template', 'metadata'] },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', plural: 'replicasets', podMetadata: ['spec', 'template', 'metadata'] },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', plural: 'statefulsets', podMetadata: ['spec', 'template', 'metadata'] },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', plural: 'daemonsets', podMetadata: ['spec', 'template', 'metadata'] },
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', podMetadata: ['spec', 'template', 'metadata'] },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', podMetadata: ['spec', 'jobTemplate', 'spec', 'template', 'metadata'] },
];

/** The pod-template kind of a request's group and kind, or undefined. */
export function podTemplateKindOf(group: string | undefined, kind: string | undefined): PodTemplateKind | undefined {
  return POD_TEMPLATE_KINDS.find((k) => k.kind === kind && k.group === (group ?? ''));
}

export interface PodClaimRequest {
  readonly kind: PodTemplateKind;
  readonly object: unknown;
  /** The object before an UPDATE. */
  readonly oldObject?: unknown;
  readonly username?: string;
  /** The request's namespace, for an object that names none. */
  readonly namespace?: string;
}

export interface PodClaimContext {
  readonly inventory: Inventory;
  readonly writers: TrustedWriters;
}

/** The rule record of onlyKubeRayMakesRayPods (its findings are built here, not through a Reporter). */
export const ONLY_KUBERAY_MAKES_RAY_PODS_RULE: RuleRecord<typeof onlyKubeRayMakesRayPods> = {
  name: 'onlyKubeRayMakesRayPods', source: 'app', kinds: [],
  description: 'In a tenant namespace, only KubeRay\'s operator makes pods (or pod templates) with KubeRay\'s labels ray.io/cluster and '
    + 'ray.io/node-type.',
  check: onlyKubeRayMakesRayPods,
};

/** The labels of the pod (a Pod's own, or its template's); {} where a step is not an object. */
function podLabels(obj: unknown, k: PodTemplateKind): Record<string, unknown> {
  const meta = k.podMetadata.length ? k.podMetadata.reduce((x: unknown, key) => (isRecord(x) ? x[key] : undefined), obj)
    : isRecord(obj) ? obj.metadata : undefined;
  const labels = isRecord(meta) ? meta.labels : undefined;
  return isRecord(labels) ? labels : {};
}

/**
 * An error per KubeRay label the request writes on a pod (or pod template) in a tenant namespace, unless a
 * trusted writer sends it. On UPDATE only a label added or changed counts: a tenant may still annotate or
 * delete the pods KubeRay made, and removing a label passes.
 */
export function onlyKubeRayMakesRayPods(req: PodClaimRequest, ctx: PodClaimContext): Finding[] {
  if (trustedWriterRole(req.username, ctx.writers) !== undefined) return [];
  const meta = isRecord(req.object) && isRecord(req.object.metadata) ? req.object.metadata : {};
  const ns = typeof meta.namespace === 'string' && meta.namespace ? meta.namespace : req.namespace;
  const tenant = tenantOf(ctx.inventory, ns);
  if (!tenant) return [];
  const labels = podLabels(req.object, req.kind);
  const before = req.oldObject === undefined ? {} : podLabels(req.oldObject, req.kind);
  const prefix = req.kind.podMetadata.length ? `${req.kind.podMetadata.join('.')}.` : 'metadata.';
  const name = typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? `${meta.generateName}*` : '<unnamed>';
  const who = req.username ? `user "${req.username}"` : 'a request without a user';
  const what = req.kind.kind === 'Pod' ? 'a pod' : `a ${req.kind.kind}'s pods`;
  const out: Finding[] = [];
  for (const key of KUBERAY_POD_LABELS) {
    if (!Object.prototype.hasOwnProperty.call(labels, key)) continue;
    if (Object.prototype.hasOwnProperty.call(before, key) && before[key] === labels[key]) continue;
    out.push({
      rule: ONLY_KUBERAY_MAKES_RAY_PODS_RULE.name, severity: 'error', object: `${req.kind.kind} ${ns}/${name}`,
      field: `${prefix}labels[${key}]`, source: ONLY_KUBERAY_MAKES_RAY_PODS_RULE.source,
      message: `${who} may not give ${what} KubeRay's label ${key}: namespace "${ns}" is a tenant namespace, where only KubeRay's operator makes `
        + 'Ray pods. '
        + 'A pod with KubeRay\'s labels passes for one of a RayCluster\'s own (KubeRay counts workers and the head Service selects the head by '
        + 'them) and, joined to that cluster with ray start, runs outside the tenant\'s quota',
      fix: `remove the label ${key}; for more Ray workers raise the RayCluster's worker group replicas (Kueue admits them against the quota), `
        + 'or create a queued RayCluster or RayJob',
    });
  }
  return out;
}
