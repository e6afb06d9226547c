/**
 * What the simulator does with a workload (Kueue's pkg/workload): make one, read its PodSet templates and
 * its scheduling-equivalence key. The Workload itself (Kueue's workload.Info) is part of the snapshot's state (snapshot.ts), which never imports this module. Pure.
 */
import { PodTemplateJson, RayClusterSpecJson, RayObject, rayKindOf } from '../kinds';
import type { Workload, WorkloadInit } from './snapshot';

/** Every workload with all its fields, in one order: one object shape for the hot loops that read them. */
export function newWorkload(i: WorkloadInit): Workload {
  return {
    id: i.id, ref: i.ref, kind: i.kind, namespace: i.namespace, name: i.name, arrival: i.arrival, created: i.created,
    localQueue: i.localQueue, lqIndex: i.lqIndex ?? 0, clusterQueue: i.clusterQueue, clusterQueueName: i.clusterQueueName, priority: i.priority ?? 0,
    priorityClass: i.priorityClass, podSets: i.podSets, obj: i.obj,
    state: i.state, flavors: undefined, usage: new Map(), usageMask: 0, admittedAt: -1, evicted: false, victims: undefined, preemptedBy: [],
    pending: i.pending, notQueued: i.notQueued, sliceOf: i.sliceOf, evaluated: false, hash: 0,
    arrivalTime: i.arrivalTime ?? 0, duration: i.duration, durationBound: i.durationBound, startedAt: -1, finishedAt: -1, events: [], waitsFor: [],
  };
}

/** The pod template of a PodSet (head, submitter or a worker group) in the Ray object. */
export function podSetTemplate(obj: RayObject, podSet: string): PodTemplateJson | undefined {
  const kind = rayKindOf(obj);
  // Whatever is at the cluster spec's path, read as the CRD declares it (only read through optional chaining here).
  const spec = kind ? kind.clusterSpecValue(obj) as RayClusterSpecJson | undefined : obj.spec;
  if (podSet === 'head') return spec?.headGroupSpec?.template;
  if (podSet === 'submitter') return obj.spec?.submitterPodTemplate;
  return (spec?.workerGroupSpecs ?? []).find((g) => typeof g?.groupName === 'string' && g.groupName.toLowerCase() === podSet)?.template;
}

/** Kueue's scheduling equivalence key: equal keys are parked and requeued together. */
export function schedulingHash(w: Workload): string {
  return JSON.stringify([w.priority, w.podSets.map((ps) => [ps.name, ps.count, podSetTemplate(w.obj, ps.name)?.spec ?? null])]);
}

/** A fixed pseudo-random 32-bit key per workload id (splitmix-style), for the admitted-set hash. */
export function admittedSetKey(id: number): number {
  let x = (id + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
