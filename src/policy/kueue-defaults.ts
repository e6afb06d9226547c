/**
 * Kueue's own defaulting of a new Ray object (jobframework/defaults.go), as its mutating webhook applies
 * it after ours (configurations run in name order): in a namespace that holds a LocalQueue named
 * `default`, an object without a queue name gets `kueue.x-k8s.io/queue-name: default`
 * (LocalQueueDefaulting: beta and on by default from 0.12, GA from 0.17). Only kinds Kueue has a webhook
 * for at the version are defaulted (RayService from 0.17), and never an object whose owner Kueue manages
 * (a RayJob's RayCluster). Not modelled: manageJobsWithoutQueueName and managedJobsNamespaceSelector
 * (Configuration settings, off and unset by default), and WorkloadPriorityClassDefaulting (alpha, off).
 * Pure.
 */
import { Inventory } from './context';
import { isRecord } from './json';
import { RAY_SERVICE, RayObject, rayKindOf } from './kinds';
import { namespaceOf, QUEUE_NAME_LABEL, queueNameOf } from './ray-object';
import { KueueCapabilities } from './versions';

/** Kueue's default LocalQueue name. */
export const DEFAULT_LOCAL_QUEUE = 'default';

/** Whether the namespace holds a LocalQueue named `default`. */
export function hasDefaultLocalQueue(inventory: Inventory | undefined, namespace: string): boolean {
  return !!inventory?.localQueues.some((q) => q.namespace === namespace && q.name === DEFAULT_LOCAL_QUEUE);
}

/** A Ray owner with `controller: true`: KubeRay made the object for it, and Kueue manages the owner, not the child. */
function ownedByRayObject(obj: RayObject): boolean {
  const refs = Array.isArray(obj.metadata?.ownerReferences) ? obj.metadata.ownerReferences : [];
  return refs.some((r: unknown) => isRecord(r) && r.controller === true && /^ray\.io\//.test(String(r.apiVersion)) && !!rayKindOf({ kind: r.kind }));
}

/** The label Kueue's webhook adds to a new object, or undefined. */
export function kueueDefaultQueue(obj: RayObject, kueue: KueueCapabilities, inventory: Inventory | undefined): string | undefined {
  if (!isRecord(obj) || !rayKindOf(obj)) return undefined;
  if (RAY_SERVICE.is(obj) && kueue.rayServiceQueueing !== 'native') return undefined; // no RayService webhook before 0.17
  if (queueNameOf(obj, kueue) !== undefined || ownedByRayObject(obj)) return undefined;
  if (obj.metadata !== undefined && !isRecord(obj.metadata)) return undefined;
  return hasDefaultLocalQueue(inventory, namespaceOf(obj)) ? DEFAULT_LOCAL_QUEUE : undefined;
}

/** The object with Kueue's default queue label applied (a copy), and whether it was. */
export function withKueueDefaults(obj: RayObject, kueue: KueueCapabilities, inventory: Inventory | undefined): { obj: RayObject; queue?: string } {
  const queue = kueueDefaultQueue(obj, kueue, inventory);
  if (!queue) return { obj };
  const md = isRecord(obj.metadata) ? obj.metadata : {};
  return { obj: { ...obj, metadata: { ...md, labels: { ...(isRecord(md.labels) ? md.labels : {}), [QUEUE_NAME_LABEL]: queue } } }, queue };
}

