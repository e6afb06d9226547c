/**
 * plan's arrival order. Objects arrive in the order they were read (the paths as given, each file's
 * documents in order, a folder's files in name order), moved, stably, by the annotation
 * `cdk8s-kueue-ray.io/plan-arrival`: a Go/Kubernetes duration after the plan's start (`90s`, `10m`,
 * `1h30m`). Without it an object arrives at 0. Issue 43 gives the annotation its timeline; until then
 * plan has no clock, so the annotation orders arrivals and nothing else.
 */

export const PLAN_ARRIVAL_ANNOTATION = 'cdk8s-kueue-ray.io/plan-arrival';

const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds of a Go duration (`time.ParseDuration`'s syntax, no sign), or undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * UNITS[m[2]];
    at = re.lastIndex;
  }
  return at > 0 ? total : undefined;
}

const describe = (o: any) => `${o?.kind ?? 'object'} ${o?.metadata?.namespace ?? 'default'}/${o?.metadata?.name ?? o?.metadata?.generateName ?? '?'}`;

/** The arrival time of `o` in seconds (0 without the annotation); a malformed value is an error naming the object, the field and the fix. */
export function arrivalSeconds(o: any): number {
  const v = o?.metadata?.annotations?.[PLAN_ARRIVAL_ANNOTATION];
  if (v === undefined) return 0;
  const s = typeof v === 'string' ? parseGoDuration(v.trim()) : undefined;
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
