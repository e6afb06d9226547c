/**
 * plan's arrival order. Objects arrive in the order they were read (the paths as given, each file's
 * documents in order, a folder's files in name order), moved, stably, by the annotation
 * `cdk8s-kueue-ray.io/plan-arrival`: a Go/Kubernetes duration after the plan's start (`90s`, `10m`,
 * `1h30m`). Without it an object arrives at 0. Issue 43 gives the annotation its timeline; until then
 * plan has no clock, so the annotation orders arrivals and nothing else.
 */

import { parseGoDuration } from '../policy/go-duration';

export const PLAN_ARRIVAL_ANNOTATION = 'cdk8s-kueue-ray.io/plan-arrival';

const describe = (o: any) => `${o?.kind ?? 'object'} ${o?.metadata?.namespace ?? 'default'}/${o?.metadata?.name ?? o?.metadata?.generateName ?? '?'}`;

/** The arrival time of `o` in seconds (0 without the annotation); a malformed value is an error naming the object, the field and the fix. */
export function arrivalSeconds(o: any): number {
  const v = o?.metadata?.annotations?.[PLAN_ARRIVAL_ANNOTATION];
  if (v === undefined) return 0;
  // After the start: a Go duration without a minus sign.
  const s = typeof v === 'string' && !v.trim().startsWith('-') ? parseGoDuration(v.trim()) : undefined;
  if (s === undefined) {
    throw new Error(`${describe(o)}: metadata.annotations[${PLAN_ARRIVAL_ANNOTATION}] is ${JSON.stringify(v)}, not a duration. Fix: write a `
      + 'duration after the plan\'s start such as "90s", "10m" or "1h30m", or remove the annotation to arrive at 0.');
  }
  return s;
}

/** The objects in arrival order: by plan-arrival, ties in the order given (a stable sort). */
export function arrivalOrder(objects: readonly any[]): any[] {
  const times = objects.map((o) => arrivalSeconds(o));
  return objects.map((o, i) => ({ o, i })).sort((a, b) => times[a.i] - times[b.i] || a.i - b.i).map((x) => x.o);
}
