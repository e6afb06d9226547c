/**
 * plan's arrival order. Objects arrive in the order they were read (the paths as given, each file's
 * documents in order, a folder's files in name order), moved, stably, by the annotation
 * `cdk8s-kueue-ray.io/plan-arrival`: a Go/Kubernetes duration after the plan's start (`90s`, `10m`,
 * `1h30m`). Without it an object arrives at 0. The simulator reads the same annotation as the arrival
 * time on its timeline (policy/rules/plan-annotations.ts).
 */

import type { RayObject } from '../policy';
import { PLAN_ARRIVAL_ANNOTATION, planArrivalOf } from '../policy/rules/plan-annotations';

export { PLAN_ARRIVAL_ANNOTATION };

const describe = (o: RayObject) =>
  `${o?.kind ?? 'object'} ${o?.metadata?.namespace ?? 'default'}/${o?.metadata?.name ?? o?.metadata?.generateName ?? '?'}`;

/** The arrival time of `o` in seconds (0 without the annotation); a malformed value is an error naming the object, the field and the fix. */
export function arrivalSeconds(o: RayObject): number {
  const v = o?.metadata?.annotations?.[PLAN_ARRIVAL_ANNOTATION];
  if (v === undefined) return 0;
  // The policy's reading (planAnnotations reports the same value in check): a Go duration of 0 or more.
  const s = planArrivalOf(o);
  if (s === undefined) {
    throw new Error(`${describe(o)}: metadata.annotations[${PLAN_ARRIVAL_ANNOTATION}] is ${JSON.stringify(v)}, not a duration. Fix: write a `
      + 'duration after the plan\'s start such as "90s", "10m" or "1h30m", or remove the annotation to arrive at 0.');
  }
  return s;
}

/** The objects in arrival order: by plan-arrival, ties in the order given (a stable sort). */
export function arrivalOrder<T extends RayObject>(objects: readonly T[]): T[] {
  const times = objects.map((o) => arrivalSeconds(o));
  return objects.map((o, i) => ({ o, i })).sort((a, b) => times[a.i] - times[b.i] || a.i - b.i).map((x) => x.o);
}
