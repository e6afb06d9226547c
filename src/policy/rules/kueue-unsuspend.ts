/**
 * Only Kueue unsuspends (issue 40): in a tenant namespace, an UPDATE that turns a queued Ray object's
 * suspend field off is refused unless Kueue's controller sends it. Kueue clears the field when it
 * admits the object's Workload, and only then is the quota charged; anyone else clearing it makes
 * KubeRay start the RayCluster and its pods before Kueue suspends the object again, outside the queue.
 * Pure; an UPDATE-only rule (check judges new objects, where there is no suspend to turn off).
 */
import { Finding, objectRef } from '../findings';
import { isRecord } from '../json';
import { RAY_KINDS, rayKindOf, RayObject } from '../kinds';
import { queueNameOf } from '../ray-object';
import { tenantOf } from '../tenant';
import { KubeRayCapabilities, KueueCapabilities } from '../versions';
import { trustedWriterRole, TrustedWriters } from '../writers';
import { Inventory } from '../context';
import { RuleRecord } from './rule';

export interface UnsuspendRequest {
  readonly oldObject: RayObject;
  readonly object: RayObject;
  readonly username?: string;
}

export interface UnsuspendContext {
  readonly kueue: Pick<KueueCapabilities, 'version' | 'queueNameAnnotation' | 'rayServiceQueueing' | 'elasticRayJob'>;
  readonly kubeRay: Pick<KubeRayCapabilities, 'rayServiceSuspend'>;
  readonly inventory: Inventory;
  readonly writers: TrustedWriters;
}

/** The rule record of onlyKueueUnsuspends (its findings are built here, not through a Reporter). */
export const ONLY_KUEUE_UNSUSPENDS_RULE: RuleRecord<typeof onlyKueueUnsuspends> = {
  name: 'onlyKueueUnsuspends', source: 'app', kinds: RAY_KINDS,
  description: 'In a tenant namespace, only Kueue turns a queued Ray object\'s suspend off (it does so when it admits the Workload).',
  check: onlyKueueUnsuspends,
};

/**
 * The fields whose turning off starts a queued object's pods at the pinned versions: where Kueue
 * suspends the kind (the kind table, with or without autoscaling), and a RayService's top-level
 * spec.suspend where KubeRay has it (1.7: false recreates the clusters the RayService owns).
 */
export function unsuspendFields(kind: string | undefined, ctx: Pick<UnsuspendContext, 'kueue' | 'kubeRay'>): string[] {
  const k = rayKindOf({ kind });
  if (!k) return [];
  const fields = new Set<string>();
  for (const autoscaling of [false, true]) {
    const f = k.suspendFieldAtCreate(autoscaling, ctx.kueue);
    if (f) fields.add(f);
  }
  if (k.kind === 'RayService' && ctx.kubeRay.rayServiceSuspend) fields.add('spec.suspend');
  return [...fields];
}

/** The value at a dotted path of plain JSON objects, or undefined where a step is not one. */
function at(obj: unknown, field: string): unknown {
  let v: unknown = obj;
  for (const key of field.split('.')) v = isRecord(v) && Object.prototype.hasOwnProperty.call(v, key) ? v[key] : undefined;
  return v;
}

/**
 * An error per suspend field that the update turns off (true before, anything else after: false,
 * removed, or its parent gone) on a Ray object that was or is queued, in a tenant namespace, by a
 * requester other than Kueue's controller. Turning suspend on, and every other update, pass.
 */
export function onlyKueueUnsuspends(req: UnsuspendRequest, ctx: UnsuspendContext): Finding[] {
  const { oldObject: old, object: obj } = req;
  // Both are JSON objects (checked on the request, so that `old` and `obj` stay Ray objects to the reader).
  if (!isRecord(req.oldObject) || !isRecord(req.object)) return [];
  // Kueue's controller unsuspends on admission. KubeRay and the other trusted writers never reach the
  // webhook (matchConditions, fromTrustedWriter); only Kueue is named here, since only Kueue may do this.
  if (trustedWriterRole(req.username, ctx.writers) === 'kueue') return [];
  const ns = typeof obj.metadata?.namespace === 'string' ? obj.metadata.namespace : undefined;
  if (!tenantOf(ctx.inventory, ns)) return [];
  // Queued before or after: dropping the queue label in the same update is no way out (tenantQueueLabel refuses that too).
  const queue = queueNameOf(old, ctx.kueue) ?? queueNameOf(obj, ctx.kueue);
  if (!queue) return [];
  const who = req.username ? `user "${req.username}"` : 'a request without a user';
  const kueueUsers = ctx.writers.kueue.join(', ');
  const out: Finding[] = [];
  for (const field of unsuspendFields(obj.kind, ctx)) {
    if (at(old, field) !== true || at(obj, field) === true) continue;
    out.push({
      rule: ONLY_KUEUE_UNSUSPENDS_RULE.name, severity: 'error', object: objectRef(obj), field, source: ONLY_KUEUE_UNSUSPENDS_RULE.source,
      message: `${who} may not turn ${field} off: the object is queued in LocalQueue "${queue}", and Kueue unsuspends it when it admits `
        + 'its Workload (the quota is charged then). Turned off by anyone else, KubeRay would start its RayCluster and pods outside the '
        + `queue's quota. Only Kueue's controller (${kueueUsers}) turns it off`,
      // A server-side re-apply of a file without the field removes it: the webhook set it under the applier's field manager.
      fix: `leave ${field}: true and let Kueue admit the object (kubectl -n ${ns} get workloads says why it waits); to re-apply, keep `
        + `${field}: true in the file (server-side apply removes it otherwise) or use cdk8s-kueue-ray apply, which keeps the live value`,
    });
  }
  return out;
}
