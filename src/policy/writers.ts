/**
 * Who may write what (pure): admission decides by the request's user (`request.userInfo`), never by
 * what the object claims about itself. KubeRay's operator, Kueue's controller and Kubernetes' own
 * controllers (garbage collector, namespace controller) are trusted writers: their requests skip the
 * tenant rules, so the controller never blocks them. Everyone else, a tenant above all, meets the rules,
 * and may not create or reshape a RayCluster that a RayJob or RayService controls: Kueue counts such a
 * child under its parent's Workload (jobframework IsOwnerManagedByKueueForObject), so its pod sets
 * would run outside any quota. The Ray autoscaler of an autoscaling child may change worker replicas
 * within the groups' bounds, as it does for any RayCluster.
 */
import { Finding, objectRef } from './findings';
import { isDns1123Label, isDns1123Subdomain } from './k8s-names';
import { clusterSpecOf, RAY_CLUSTER, RayObject, rayKindOf, RaySpecJson } from './kinds';
import { isRecord, listOf, stringOf } from './ray-object';
import { jsonEqual, withoutScale } from './admission';
import { RuleRecord } from './rules/rule';

/** The Kubernetes user of a ServiceAccount. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** Parses "namespace/name" (a ServiceAccount) or a full username; throws a message naming the form. */
export function parseServiceAccount(value: string, flag: string): string {
  if (value.startsWith('system:')) return value;
  const [namespace, name, ...rest] = value.split('/');
  if (rest.length || !isDns1123Label(namespace) || !isDns1123Subdomain(name)) {
    throw new Error(`${flag} takes NAMESPACE/NAME of a ServiceAccount (or a full user name such as `
      + `system:serviceaccount:ns:name), got '${value}'`);
  }
  return serviceAccountUser(namespace, name);
}

export interface TrustedWriters {
  /** Users of KubeRay's operator. */
  readonly kubeRay: readonly string[];
  /** Users of Kueue's controller manager. */
  readonly kueue: readonly string[];
  /**
   * Kubernetes' controllers that update owner references and finalizers of any object, and those that
   * make pods (and ReplicaSets, Jobs) from a template someone else wrote, which was judged then.
   */
  readonly system: readonly string[];
  /** The controller's own ServiceAccount (its reconciler annotates Ray objects). */
  readonly controller: readonly string[];
}

/** KubeRayInstall's operator ServiceAccount (the namespace is a prop of the install). */
export const KUBERAY_OPERATOR_SERVICE_ACCOUNT = { namespace: 'kuberay-system', name: 'kuberay-operator' } as const;
/** Kueue's release manifests' ServiceAccount. */
export const KUEUE_CONTROLLER_SERVICE_ACCOUNT = { namespace: 'kueue-system', name: 'kueue-controller-manager' } as const;
/** AdmissionController's ServiceAccount (the namespace is a prop of the chart). */
export const CONTROLLER_SERVICE_ACCOUNT = { namespace: 'cdk8s-kueue-ray-system', name: 'cdk8s-kueue-ray-controller' } as const;

/** The installs' ServiceAccounts (KubeRayInstall, KueueInstall, AdmissionController) and kube-controller-manager's users. */
export const DEFAULT_TRUSTED_WRITERS: TrustedWriters = {
  kubeRay: [serviceAccountUser(KUBERAY_OPERATOR_SERVICE_ACCOUNT.namespace, KUBERAY_OPERATOR_SERVICE_ACCOUNT.name)],
  kueue: [serviceAccountUser(KUEUE_CONTROLLER_SERVICE_ACCOUNT.namespace, KUEUE_CONTROLLER_SERVICE_ACCOUNT.name)],
  // With --use-service-account-credentials (kubeadm, most distributions) each controller has its own
  // ServiceAccount; without it they all act as system:kube-controller-manager.
  system: [
    'system:kube-controller-manager',
    ...['generic-garbage-collector', 'namespace-controller', 'deployment-controller', 'replicaset-controller', 'statefulset-controller',
      'daemon-set-controller', 'job-controller', 'cronjob-controller', 'replication-controller'].map((sa) => serviceAccountUser('kube-system', sa)),
  ],
  controller: [serviceAccountUser(CONTROLLER_SERVICE_ACCOUNT.namespace, CONTROLLER_SERVICE_ACCOUNT.name)],
};

/**
 * The CEL condition under which the API server calls the controller's webhooks at all: the request
 * is not from a trusted writer. Their requests then never wait on (or fail with) the controller.
 */
export function untrustedRequestCel(writers: TrustedWriters): string {
  return `!(request.userInfo.username in [${trustedUsers(writers).map((u) => `'${u}'`).join(', ')}])`;
}

export type WriterRole = 'kuberay' | 'kueue' | 'system' | 'controller';

/** The role of a trusted writer, or undefined for anyone else. */
export function trustedWriterRole(username: string | undefined, writers: TrustedWriters): WriterRole | undefined {
  if (!username) return undefined;
  if (writers.kubeRay.includes(username)) return 'kuberay';
  if (writers.kueue.includes(username)) return 'kueue';
  if (writers.system.includes(username)) return 'system';
  if (writers.controller.includes(username)) return 'controller';
  return undefined;
}

/** Every trusted user, for the webhook configurations' matchConditions. */
export function trustedUsers(writers: TrustedWriters): string[] {
  return [...new Set([...writers.kubeRay, ...writers.kueue, ...writers.system, ...writers.controller])];
}

export interface RayParent {
  readonly kind: 'RayJob' | 'RayService';
  readonly name: string;
}

/**
 * The RayJob or RayService that controls the object: an ownerReference with `controller: true`, as
 * Kueue and KubeRay read it (metav1.GetControllerOf). A reference without it makes no child.
 */
export function rayParentOf(obj: unknown): RayParent | undefined {
  const refs = listOf(isRecord(obj) && isRecord(obj.metadata) ? obj.metadata.ownerReferences : undefined);
  const c = refs.find((o): o is Record<string, unknown> => isRecord(o) && o.controller === true);
  const kind = rayKindOf(c);
  if (!c || !kind?.ownsRayCluster || !(stringOf(c.apiVersion) ?? '').startsWith(`${kind.group}/`)) return undefined;
  return { kind: kind.kind as RayParent['kind'], name: stringOf(c.name) ?? '' };
}

/** The user the Ray autoscaler of a cluster acts as: the head pod's ServiceAccount, or the one KubeRay names after the cluster. */
export function autoscalerUser(obj: RayObject): string | undefined {
  const ns = stringOf(obj.metadata?.namespace);
  const cs = clusterSpecOf(obj);
  if (!ns || !cs) return undefined;
  const sa = stringOf(cs.spec.headGroupSpec?.template?.spec?.serviceAccountName) || stringOf(obj.metadata?.name);
  return sa ? serviceAccountUser(ns, sa) : undefined;
}

/** The spec without the worker replicas (and scaleStrategy) the autoscaler writes. */
function withoutReplicas(spec: unknown): unknown {
  if (!isRecord(spec)) return spec;
  return {
    ...spec,
    workerGroupSpecs: Array.isArray(spec.workerGroupSpecs) ? withoutScale(spec.workerGroupSpecs) : spec.workerGroupSpecs,
  };
}

/** The first worker group whose replicas leave [minReplicas, maxReplicas], as a field path. */
function replicasOutOfBounds(spec: RaySpecJson | undefined): string | undefined {
  const groups = listOf(spec?.workerGroupSpecs);
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    const r = g?.replicas ?? 0;
    const min = g?.minReplicas ?? 0;
    const max = g?.maxReplicas ?? 2147483647;
    if (typeof r !== 'number' || r < min || r > max) return `spec.workerGroupSpecs[${i}].replicas`;
  }
  return undefined;
}

/** The first top-level spec field that differs, as a field path (for the denial). */
function firstChange(oldSpec: RaySpecJson | undefined, newSpec: RaySpecJson | undefined): string {
  const keys = new Set([...Object.keys(isRecord(oldSpec) ? oldSpec : {}), ...Object.keys(isRecord(newSpec) ? newSpec : {})]);
  for (const k of keys) if (!jsonEqual(oldSpec?.[k], newSpec?.[k])) return `spec.${k}`;
  return 'spec';
}

export interface WriteRequest {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly object: RayObject;
  readonly oldObject?: RayObject;
  readonly username?: string;
}

/** The rule record of childWriteFindings (its findings are built here, not through a Reporter). */
export const RAY_CHILD_WRITER_RULE: RuleRecord<typeof childWriteFindings> = {
  name: 'rayChildWriter', source: 'app', kinds: ['RayCluster'],
  description: 'Only KubeRay\'s operator creates or reshapes a RayCluster that a RayJob or RayService controls (the Ray autoscaler may '
    + 'scale its workers).',
  check: childWriteFindings,
};

/**
 * What a requester that is not a trusted writer may not do to a child of a RayJob or RayService:
 * create one, make an object one, or change its spec (beyond the autoscaler's replicas).
 */
export function childWriteFindings(req: WriteRequest, writers: TrustedWriters): Finding[] {
  if (trustedWriterRole(req.username, writers)) return [];
  const parent = rayParentOf(req.object);
  const oldParent = req.oldObject ? rayParentOf(req.oldObject) : undefined;
  if (!parent && !oldParent) return [];
  const who = req.username ? `user "${req.username}"` : 'a request without a user';
  const owner = (parent ?? oldParent)!;
  const kubeRayUsers = writers.kubeRay.join(', ');
  const finding = (field: string, message: string, fix: string): Finding[] => [{
    rule: RAY_CHILD_WRITER_RULE.name, severity: 'error', object: objectRef(req.object), field, source: RAY_CHILD_WRITER_RULE.source, message, fix,
  }];
  if (req.operation === 'CREATE' || !oldParent) {
    return finding('metadata.ownerReferences',
      `${who} may not ${req.operation === 'CREATE' ? 'create' : 'turn into'} a ${String(req.object.kind)} controlled by ${owner.kind} `
        + `"${owner.name}": Kueue counts such an object under its parent's Workload, so its pods would run outside the queue's quota. Only KubeRay's `
        + `operator (${kubeRayUsers}) creates it`,
      `remove the ownerReference with controller: true and submit the object through the tenant's queue; if ${who} is KubeRay's operator, name its `
        + 'ServiceAccount in AdmissionController kubeRayServiceAccount (--kuberay-service-account)');
  }
  const oldSpec = req.oldObject!.spec;
  const newSpec = req.object.spec;
  if (jsonEqual(oldSpec, newSpec)) return [];
  const autoscales = (o: RayObject) => clusterSpecOf(o)?.spec?.enableInTreeAutoscaling === true;
  const autoscaling = autoscales(req.object) && autoscales(req.oldObject!);
  const replicasOnly = RAY_CLUSTER.is(req.object) && jsonEqual(withoutReplicas(oldSpec), withoutReplicas(newSpec));
  if (autoscaling && replicasOnly && req.username === autoscalerUser(req.oldObject!)) {
    const out = replicasOutOfBounds(newSpec);
    if (!out) return [];
    return finding(out,
      `the Ray autoscaler set ${out} outside the worker group's [minReplicas, maxReplicas] on a RayCluster controlled `
        + `by ${owner.kind} "${owner.name}"`,
      `scale within the bounds the ${owner.kind} set`);
  }
  return finding(replicasOnly ? 'spec.workerGroupSpecs' : firstChange(oldSpec, newSpec),
    `${who} may not change the spec of a RayCluster controlled by ${owner.kind} "${owner.name}": Kueue admitted the ${owner.kind}'s pod sets, not `
      + 'these, so the change would run outside the queue\'s quota. Only KubeRay\'s operator and Kueue write '
      + `it${autoscaling ? ', and the Ray autoscaler its worker replicas' : ''}`,
    `change the ${owner.kind} "${owner.name}" instead (its spec is what Kueue admits)`);
}
