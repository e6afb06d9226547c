/**
 * MultiKueue dispatch: what a manager cluster can never hand to a worker. Facts from Kueue's Ray
 * MultiKueue adapters (pkg/controller/jobs/ray*\/*_multikueue_adapter.go at v0.14.8, v0.17.0, v0.19.2):
 * the adapter refuses an object whose managedBy is not kueue.x-k8s.io/multikueue (the AdmissionCheck is
 * Rejected: "Expecting spec.managedBy to be ..."); the worker copy keeps the namespace and queue-name, so
 * the worker needs the same LocalQueue; Ray adapters create the remote copy once (v0.19 syncs elastic
 * RayCluster replicas only).
 */
import { Inventory, MultiKueueCheckEntry, PolicyContext } from '../context';
import { Finding } from '../findings';
import { clusterSpecOf, isRayKindName, RAY_CLUSTER, RAY_KINDS, RAY_SERVICE, rayKindOf, RayObject } from '../kinds';
import { isElastic, isQueued, namespaceOf, QUEUE_NAME_LABEL, queueNameOf, usesAutoscaling } from '../ray-object';
import { FIRST_KUBERAY_VERSION, FIRST_KUEUE_VERSION, KueueCapabilities } from '../versions';
import { asWritten } from '../json';
import { clusterQueueAdmitsNamespace, findClusterQueue, findLocalQueue, gangCanEverFit, queueExists } from './cross-object';
import { defineRule, Reporter, Rule, RuleRecord } from './rule';

/** The controller name of Kueue's MultiKueue AdmissionCheck. */
export const MULTIKUEUE_CONTROLLER_NAME = 'kueue.x-k8s.io/multikueue';

const QUEUE_FIELD = `metadata.labels[${QUEUE_NAME_LABEL}]`;

/** The MultiKueue check the object's queue goes through, if any (needs the manager's inventory). */
export function multiKueueCheckOf(obj: RayObject, inv: Inventory | undefined, kueue: Pick<KueueCapabilities,
  'queueNameAnnotation'>): MultiKueueCheckEntry | undefined {
  const q = queueNameOf(obj, kueue);
  if (!inv || !q || !inv.multiKueueChecks?.length) return undefined;
  const lq = findLocalQueue(inv, namespaceOf(obj), q);
  const cq = lq ? findClusterQueue(inv, lq.clusterQueue) : undefined;
  const names = cq?.admissionChecks ?? [];
  return inv.multiKueueChecks.find((c) => names.includes(c.name));
}

function managedByOf(obj: RayObject): unknown {
  return obj.spec?.managedBy;
}

/** Findings of `rules` on `obj` against a worker's inventory, errors only. */
function workerErrors(obj: RayObject, ctx: PolicyContext, inventory: Inventory, rules: Rule[]): Finding[] {
  const wctx: PolicyContext = { ...ctx, inventory, external: undefined };
  return rules.flatMap((rule) => rule(obj, wctx)).filter((f) => f.severity === 'error');
}

/** An object marked managedBy MultiKueue whose (known) queue has no MultiKueue check is run by nobody. */
function reportManagedByWithoutCheck(r: Reporter, obj: RayObject, ctx: PolicyContext, managedBy: unknown): void {
  const inv = ctx.inventory;
  const q = queueNameOf(obj, ctx.kueue)!;
  const lq = inv ? findLocalQueue(inv, namespaceOf(obj), q) : undefined;
  const cq = lq && inv ? findClusterQueue(inv, lq.clusterQueue) : undefined;
  // Only when the app (or cluster) shows the queue: an unknown queue may well be a MultiKueue one.
  if (managedBy === MULTIKUEUE_CONTROLLER_NAME && cq && inv?.multiKueueChecks !== undefined) {
    r.error('spec.managedBy',
      `managedBy is ${MULTIKUEUE_CONTROLLER_NAME}, but ClusterQueue "${cq.name}" (LocalQueue ${lq!.namespace}/${q}) has no MultiKueue `
        + 'AdmissionCheck: this cluster\'s KubeRay skips the object and no worker ever gets it',
      'submit to a queue whose ClusterQueue has the MultiKueue AdmissionCheck, or remove managedBy', 'kuberay-operator');
  }
}

/** managedBy must be MultiKueue's, and the KubeRay version must keep it (RayService). */
function reportManagedBy(r: Reporter, obj: RayObject, ctx: PolicyContext, where: string, managedBy: unknown): void {
  if (RAY_SERVICE.is(obj) && !ctx.kubeRay.rayServiceManagedBy) {
    r.error('spec.managedBy',
      `${where}, but KubeRay ${ctx.kubeRay.version} has no RayService managedBy (the API server prunes it), so Kueue's adapter rejects the check and `
        + 'this cluster\'s KubeRay would run the service itself',
      `choose KubeRay >= ${FIRST_KUBERAY_VERSION.rayServiceManagedBy} on the manager, or run the RayService on one cluster`, 'version');
  } else if (managedBy !== MULTIKUEUE_CONTROLLER_NAME) {
    r.error('spec.managedBy',
      `${where}, but spec.managedBy is ${managedBy === undefined ? 'unset' : `"${asWritten(managedBy)}"`}: Kueue's MultiKueue adapter `
        + `rejects the check ("Expecting spec.managedBy to be ${MULTIKUEUE_CONTROLLER_NAME}") and the workload is deactivated`,
      `set spec.managedBy: ${MULTIKUEUE_CONTROLLER_NAME}`, 'kueue-workload');
  }
}

/** An elastic workload MultiKueue cannot follow: autoscaling never, replica changes only where Kueue syncs them. */
function reportElasticDispatch(r: Reporter, obj: RayObject, ctx: PolicyContext, where: string, managedBy: unknown): void {
  if (!isElastic(obj)) return;
  const annotation = 'metadata.annotations[kueue.x-k8s.io/elastic-job]';
  const rayCluster = RAY_CLUSTER.is(obj);
  const syncs = rayCluster && ctx.kueue.multiKueueElasticRayCluster;
  if (usesAutoscaling(obj)) {
    // On >= 0.19 Kueue's webhook refuses an autoscaling RayCluster with managedBy: multiKueueElasticAutoscaling says so.
    const webhookSaysIt = rayCluster && ctx.kueue.refusesMultiKueueElasticAutoscaling && managedBy === MULTIKUEUE_CONTROLLER_NAME;
    if (!webhookSaysIt) {
      r.error(`${clusterSpecOf(obj)?.path ?? 'spec'}.enableInTreeAutoscaling`,
        `${where}, but an autoscaling elastic ${obj.kind} cannot be dispatched: the autoscaler runs in the worker's copy and its scale changes never `
          + `reach the manager's Workload (Kueue >= ${FIRST_KUEUE_VERSION.multiKueueElasticAutoscalingRefused} refuses it for RayCluster; no pinned `
          + 'Kueue version supports it)',
        'turn autoscaling off (fixed worker replicas), or run the elastic workload on one cluster (a queue without the MultiKueue check)', 'version');
    }
  } else if (!syncs) {
    r.warn(annotation,
      `${where}: MultiKueue creates the worker's copy of this elastic ${obj.kind} once, so a change of its worker replicas on the manager never `
        + 'reaches the worker'
        + `${rayCluster ? ` before Kueue ${FIRST_KUEUE_VERSION.multiKueueElasticRayCluster}`
          : ' (the Ray adapters sync replicas only for RayCluster)'}`,
      rayCluster ? `choose Kueue >= ${FIRST_KUEUE_VERSION.multiKueueElasticRayCluster}, or keep the replicas fixed`
        : 'keep the replicas fixed, or drop the elastic annotation', 'version');
  }
}

/** The workers whose inventory is known: the same LocalQueue (and a ClusterQueue behind it) on each, and room for the gang on one. */
function reportWorkerClusters(r: Reporter, obj: RayObject, ctx: PolicyContext, check: MultiKueueCheckEntry): void {
  const inv = ctx.inventory;
  const workers = inv?.workerClusters ?? [];
  const known = check.clusters.map((name) => workers.find((w) => w.name === name)).filter((w) => w?.inventory);
  if (!known.length) return;
  const ns = namespaceOf(obj);
  const q = queueNameOf(obj, ctx.kueue)!;
  const managerLq = findLocalQueue(inv!, ns, q)!;
  const fits: string[] = [];
  const noRoom: string[] = [];
  for (const w of known) {
    const winv = w!.inventory!;
    const queueErrors = workerErrors(obj, ctx, winv, [queueExists.check, clusterQueueAdmitsNamespace.check]);
    if (queueErrors.length) {
      for (const f of queueErrors) {
        r.error(QUEUE_FIELD,
          `worker cluster "${w!.name}" (of AdmissionCheck "${check.name}"): ${f.message}; MultiKueue creates the copy there with the same `
            + 'namespace and queue name',
          `give worker "${w!.name}" LocalQueue ${ns}/${q} and its ClusterQueue (the manager's queues, same names), or remove the worker from `
            + 'the MultiKueueConfig');
      }
      continue;
    }
    const wlq = findLocalQueue(winv, ns, q)!;
    if (wlq.clusterQueue !== managerLq.clusterQueue) {
      r.warn(QUEUE_FIELD,
        `worker cluster "${w!.name}": LocalQueue ${ns}/${q} points at ClusterQueue "${wlq.clusterQueue}", the manager's at "${managerLq.clusterQueue}`
          + '"; it dispatches, but quotas are easier to follow with the same names',
        `name the worker's ClusterQueue "${managerLq.clusterQueue}"`);
    }
    const gangErrors = workerErrors(obj, ctx, winv, [gangCanEverFit.check]);
    if (gangErrors.length) noRoom.push(`"${w!.name}": ${gangErrors[0].message}`);
    else fits.push(w!.name);
  }
  if (!fits.length && noRoom.length) {
    r.error(QUEUE_FIELD,
      `the gang fits no worker cluster of AdmissionCheck "${check.name}" (${noRoom.join('; ')}): the manager keeps the Workload pending forever`,
      'raise a worker\'s quota, add a worker with room, or shrink the gang', 'kueue-workload');
  } else if (noRoom.length) {
    r.warn(QUEUE_FIELD, `the gang fits only worker cluster(s) ${fits.map((n) => `"${n}"`).join(', ')}; never ${noRoom.join('; ')}`,
      'raise the other workers\' quotas if they should share this load', 'kueue-workload');
  }
}

/**
 * A Ray object whose queue goes through a MultiKueue AdmissionCheck must be one the manager can dispatch:
 * a kind with an adapter at that Kueue version, managedBy kueue.x-k8s.io/multikueue (which the KubeRay
 * version must know for the kind), not elastic where MultiKueue cannot follow it, the same LocalQueue on
 * every worker, and a gang that fits at least one worker's quota. An object marked managedBy MultiKueue
 * whose queue has no MultiKueue check is run by nobody.
 */
export const multiKueueDispatch = defineRule({
  name: 'multiKueueDispatch', source: 'app', kinds: RAY_KINDS,
  description: 'A workload behind a MultiKueue check can be dispatched: versions, managedBy, the workers\' queues and quota.',
}, (r, obj, ctx) => {
  if (!isQueued(obj, ctx.kueue)) return r.findings;
  const check = multiKueueCheckOf(obj, ctx.inventory, ctx.kueue);
  const managedBy = managedByOf(obj);
  if (!check) {
    reportManagedByWithoutCheck(r, obj, ctx, managedBy);
    return r.findings;
  }
  const where = `ClusterQueue of queue "${queueNameOf(obj, ctx.kueue)}" requires MultiKueue AdmissionCheck "${check.name}"`;
  if (!isRayKindName(obj.kind) || !ctx.kueue.multiKueueRayKinds.includes(obj.kind)) {
    const need = rayKindOf(obj)?.firstMultiKueueVersion ?? FIRST_KUEUE_VERSION.multiKueueRay;
    r.error(QUEUE_FIELD,
      `${where}, but Kueue ${ctx.kueue.version} has no MultiKueue adapter for ${obj.kind} (this library checked them from ${need}): the `
        + 'AdmissionCheck never lets it through',
      `choose Kueue >= ${need}, or submit the ${obj.kind} to a queue without the MultiKueue check`, 'version');
    return r.findings;
  }
  reportManagedBy(r, obj, ctx, where, managedBy);
  reportElasticDispatch(r, obj, ctx, where, managedBy);
  reportWorkerClusters(r, obj, ctx, check);
  return r.findings;
});

export const MULTIKUEUE_RULES: readonly RuleRecord[] = [multiKueueDispatch];
