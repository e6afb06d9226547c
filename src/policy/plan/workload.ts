/**
 * A workload as the simulator holds it (Kueue's workload.Info): one per Ray object, or per scale-up
 * slice, with its PodSets, queue, priority, admission and pending state. Pure.
 */
import { RayObject, rayKindOf } from '../kinds';
import type { ResourceMap } from '../quantity';
import type { FlavorResource } from './quota-tree';
import type { PendingCategory, PlanPending, PlanVictim } from './schema';
import type { ClusterQueue } from './snapshot';

export interface PodSet {
  readonly name: string;
  readonly count: number;
  readonly total: ResourceMap;
  /** flavorMismatch by flavor name ('' when the flavor matches): the template and the flavors never change. */
  mismatches?: Map<string, string>;
  /** The flavor assigner's requestsOf, for the ClusterQueue it was computed for (typed there: workloads are the snapshot's). */
  requests?: unknown;
}

/** A pending state built when read (render.ts), from the flavor assigner's brief (typed there as LazyPending). */
export interface PendingBrief {
  readonly brief: unknown;
  readonly category?: PendingCategory;
  readonly message?: string;
  /** Appended to the assignment's message. */
  readonly suffix?: string;
}

/** `finished`: admitted, then ran its expected duration (the timeline); its quota is back. */
export type WorkloadState = 'queued' | 'admitted' | 'not-queued' | 'held' | 'replaced' | 'finished';

/** One step of a workload on the plan's timeline, at seconds after the plan's start. */
export interface TimelineEvent {
  readonly at: number;
  readonly event: 'arrived' | 'admitted' | 'preempted' | 'finished' | 'scaled';
}

export interface Workload {
  readonly id: number;
  readonly ref: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly arrival: number;
  /** Queue order timestamp (the arrival step: one second apart in the agreement suite). */
  readonly created: number;
  readonly localQueue?: string;
  readonly clusterQueue?: ClusterQueue;
  readonly clusterQueueName?: string;
  readonly priority: number;
  readonly priorityClass?: string;
  podSets: PodSet[];
  readonly obj: RayObject;
  state: WorkloadState;
  /** Per PodSet: resource → flavor, once admitted. */
  flavors?: Array<Map<string, string>>;
  usage: Map<FlavorResource, number>;
  /** The flavor/resources of `usage` as bits, while admitted (when there are at most 31). */
  usageMask: number;
  admittedAt: number;
  evicted: boolean;
  victims?: PlanVictim[];
  preemptedBy: string[];
  /** Built when read (render.ts): most evaluations are replaced by a later one before the result. */
  pending?: PlanPending | PendingBrief;
  notQueued?: string;
  sliceOf?: Workload;
  evaluated: boolean;
  /** Kueue's scheduling equivalence hash (priority and PodSet shapes), interned. */
  hash: number;
  /** Seconds after the plan's start at which it arrives (plan-arrival, else 0). */
  readonly arrivalTime: number;
  /** Seconds it runs once admitted (expected-duration), where known. */
  readonly duration?: number;
  /** A RayJob's activeDeadlineSeconds where no duration is known: it runs at most this long. */
  readonly durationBound?: number;
  /** When its current admission started (-1 while not admitted): a preempted workload starts over. */
  startedAt: number;
  /** When it finished (-1: not within the plan). */
  finishedAt: number;
  readonly events: TimelineEvent[];
  /** The workloads whose finish or preemption freed the quota it was admitted on. */
  waitsFor: Workload[];
}

export type WorkloadInit = Pick<Workload, 'id' | 'ref' | 'kind' | 'namespace' | 'name' | 'arrival' | 'created' | 'obj' | 'podSets' | 'state'>
  & Partial<Pick<Workload, 'localQueue' | 'clusterQueue' | 'clusterQueueName' | 'priority' | 'priorityClass' | 'notQueued' | 'sliceOf' | 'pending'
    | 'arrivalTime' | 'duration' | 'durationBound'>>;

/** Every workload with all its fields, in one order: one object shape for the hot loops that read them. */
export function newWorkload(i: WorkloadInit): Workload {
  return {
    id: i.id, ref: i.ref, kind: i.kind, namespace: i.namespace, name: i.name, arrival: i.arrival, created: i.created,
    localQueue: i.localQueue, clusterQueue: i.clusterQueue, clusterQueueName: i.clusterQueueName, priority: i.priority ?? 0,
    priorityClass: i.priorityClass, podSets: i.podSets, obj: i.obj,
    state: i.state, flavors: undefined, usage: new Map(), usageMask: 0, admittedAt: -1, evicted: false, victims: undefined, preemptedBy: [],
    pending: i.pending, notQueued: i.notQueued, sliceOf: i.sliceOf, evaluated: false, hash: 0,
    arrivalTime: i.arrivalTime ?? 0, duration: i.duration, durationBound: i.durationBound, startedAt: -1, finishedAt: -1, events: [], waitsFor: [],
  };
}

/** The pod template of a PodSet (head, submitter or a worker group) in the Ray object. */
export function podSetTemplate(obj: RayObject, podSet: string): any {
  const kind = rayKindOf(obj);
  const spec: any = kind ? kind.clusterSpecValue(obj) : obj.spec;
  if (podSet === 'head') return spec?.headGroupSpec?.template;
  if (podSet === 'submitter') return obj.spec?.submitterPodTemplate;
  return (spec?.workerGroupSpecs ?? []).find((g: any) => typeof g?.groupName === 'string' && g.groupName.toLowerCase() === podSet)?.template;
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
