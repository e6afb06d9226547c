/**
 * The plan's timeline inputs on a Ray object (issue 43): how long it runs once admitted, and when it
 * arrives in a plan. Both are annotations in Go duration syntax, written by the constructs'
 * `expectedDuration` (and, for a plan's what-if, by hand) and read by `plan`; neither means anything
 * to Kueue or KubeRay. A malformed value is an error here, so `check`, synth and admission name the
 * field rather than `plan` treating the duration as unknown.
 */
import { RAY_JOB, RAY_KINDS, RayObject } from '../kinds';
import { parseGoDuration } from '../go-duration';
import { isRecord, shown } from '../ray-object';
import { defineRule, RuleRecord } from './rule';

/** How long the workload runs once admitted (an elastic cluster or service: how long it holds its quota). */
export const EXPECTED_DURATION_ANNOTATION = 'cdk8s-kueue-ray.io/expected-duration';
/** When the object arrives in a plan, after the plan's start; without it, at 0 in the order given. */
export const PLAN_ARRIVAL_ANNOTATION = 'cdk8s-kueue-ray.io/plan-arrival';

function annotation(obj: RayObject, key: string): unknown {
  const a = isRecord(obj.metadata) && isRecord(obj.metadata.annotations) ? obj.metadata.annotations : undefined;
  return a && Object.prototype.hasOwnProperty.call(a, key) ? a[key] : undefined;
}

/** Seconds of a well-formed value (> 0 for a duration, >= 0 for an arrival), else undefined. */
function seconds(v: unknown, allowZero: boolean): number | undefined {
  if (typeof v !== 'string') return undefined;
  const s = parseGoDuration(v.trim() === v ? v : '');
  return s !== undefined && (allowZero ? s >= 0 : s > 0) && Number.isFinite(s) ? s : undefined;
}

/** The expected duration in seconds, where the annotation is well formed. */
export function expectedDurationOf(obj: RayObject): number | undefined {
  return seconds(annotation(obj, EXPECTED_DURATION_ANNOTATION), false);
}

/** The arrival time in seconds after the plan's start, where the annotation is well formed. */
export function planArrivalOf(obj: RayObject): number | undefined {
  return seconds(annotation(obj, PLAN_ARRIVAL_ANNOTATION), true);
}

/**
 * An upper bound on a RayJob's run time where no expected duration is given: activeDeadlineSeconds,
 * after which KubeRay fails the job.
 */
export function durationBoundOf(obj: RayObject): number | undefined {
  if (!RAY_JOB.is(obj)) return undefined;
  const d = isRecord(obj.spec) ? obj.spec.activeDeadlineSeconds : undefined;
  return typeof d === 'number' && Number.isInteger(d) && d > 0 ? d : undefined;
}

export const planAnnotations: RuleRecord = defineRule({
  name: 'planAnnotations', source: 'app', kinds: RAY_KINDS,
  description: 'The plan\'s annotations (expected-duration, plan-arrival) are Go durations: a duration above 0, an arrival of 0 or more.',
}, (r, obj) => {
  for (const [key, allowZero, what] of [
    [EXPECTED_DURATION_ANNOTATION, false, 'how long the workload runs once admitted'],
    [PLAN_ARRIVAL_ANNOTATION, true, 'when the object arrives in a plan, after its start'],
  ] as const) {
    const v = annotation(obj, key);
    if (v === undefined || seconds(v, allowZero) !== undefined) continue;
    const written = typeof v === 'string' ? JSON.stringify(v) : shown(v);
    r.error(`metadata.annotations[${key}]`, `${written} is not a Go duration ${allowZero ? 'of 0 or more' : 'above 0'} (${what}), so plan `
      + 'could not read it', 'write it as Kubernetes and Go write durations, e.g. "10m", "1h30m" or "200s"'
      + `${allowZero ? ' ("0s" for the start)' : ''}, or remove it (plan then takes ${allowZero ? 'the arrival as 0' : 'the duration as unknown'})`);
  }
  return r.findings;
});

export const PLAN_ANNOTATION_RULES: readonly RuleRecord[] = [planAnnotations];
