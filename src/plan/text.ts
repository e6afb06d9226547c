/**
 * The plan as text a user reads first: one line per ClusterQueue and per workload, numbers and why. Pure.
 * It sits with Plan.of(app), whose `text` it is, rather than with the CLI's formatters in src/cli/plan-output:
 * the npm package ships no lib/src/cli (the CLI is bundled). No cdk8s here: the CLI's bundle takes this file.
 */
import { formatGoDuration } from '../policy/go-duration';
import { parseQuantity } from '../policy/quantity';
import { describeQuantities, describeQuantity } from '../policy/quantity-text';
import { PlanCohort, PlanPending, PlanPodSetAssignment, PlanQuota, PlanResult, PlanShortfall, PlanWorkload } from '../policy/plan/schema';

export interface PlanTextOptions {
  /** Print the decision trace (every cycle and candidate). @default false */
  readonly trace?: boolean;
}

/** Figures of one resource compared on a line, in one unit family (the JSON's exact strings, re-read). */
function compared(resource: string, ...figures: string[]): string[] {
  return describeQuantities(figures.map((f) => parseQuantity(f)), resource);
}

/** "needs X, Y free of Z": the same summary the HTML page shows for a pending workload. */
export function shortfallText(s: PlanShortfall): string {
  const limit = s.borrowingLimitReached ? `; borrowing limit reached${s.cohort ? ` in cohort ${s.cohort}` : ''}`
    : s.cohort ? ` (cohort ${s.cohort})` : '';
  const [needs, free, nominal, maximum] = compared(s.resource, s.needs, s.free, s.nominal, s.maximum);
  return `needs ${s.resource} ${needs}, ${free} free of ${nominal} in flavor ${s.flavor} (at most ${maximum})${limit}`;
}

/** Why a workload waits, as the text says it and the HTML page shows it: "quota: needs cpu 2.5, 0.5 free of 3 …". */
export function pendingReason(p: PlanPending): string {
  return `${p.category}${p.shortfalls.length ? ': ' + p.shortfalls.map(shortfallText).join('; ') : ''}`;
}

/** A ClusterQueue's quota: "default-flavor/memory 4296Mi of 5722.05Mi (+8Gi borrowable)". */
export function quotaText(x: PlanQuota): string {
  const [usage, nominal, borrowing, lending] = compared(x.resource, x.usage, x.nominal, x.borrowingLimit ?? '0', x.lendingLimit ?? '0');
  return `${x.flavor}/${x.resource} ${usage} of ${nominal}${x.borrowingLimit ? ` (+${borrowing} borrowable)` : ''}`
    + `${x.lendingLimit ? ` (lends ≤${lending})` : ''}`;
}

/** A cohort's pool: "default-flavor/cpu usage 5.5 of 7 pooled (1.5 borrowed)". */
export function cohortQuotaText(x: PlanQuota): string {
  const [usage, pooled, borrowed] = compared(x.resource, x.usage, x.nominal, x.borrowed ?? '0');
  return `${x.flavor}/${x.resource} usage ${usage} of ${pooled} pooled (${borrowed} borrowed)`;
}

function cohortLine(c: PlanCohort): string {
  return `  cohort ${c.name}${c.parent ? ` (parent ${c.parent})` : ''}: ${c.quotas.map(cohortQuotaText).join(', ') || 'nothing pooled'}`;
}

/** "~10m", "~1h30m", "~45s": a time in whole seconds, rounded. */
function about(seconds: number): string {
  return `~${formatGoDuration(Math.round(seconds))}`;
}

/** Whether the plan has a timeline worth printing: a duration, a bound or an arrival time somewhere. */
export function usesTimeline(plan: PlanResult): boolean {
  return plan.workloads.some((w) => w.expectedDuration !== null || w.atMost !== undefined || w.arrivesAt > 0);
}

/**
 * The wall-clock time of an instant of the plan, "14:32 UTC" ("12-06 09:10 UTC" on another day), when the plan
 * has a start time (plan --kubeconfig); else ''.
 */
function wallClock(plan: PlanResult, at: number): string {
  if (!plan.startTime) return '';
  const t = new Date(Date.parse(plan.startTime) + at * 1000).toISOString();
  const day = t.slice(0, 10) === plan.startTime.slice(0, 10) ? '' : `${t.slice(5, 10)} `;
  return `${day}${t.slice(11, 16)} UTC`;
}

/**
 * When a workload starts (and ends), in words: "starts at once", "starts in ~10m (after default/a finishes)",
 * "start unknown: waits for default/x, which has no expected duration", "never within 168h".
 */
export function whenText(w: PlanWorkload, plan: PlanResult,
  byRef: ReadonlyMap<string, PlanWorkload> = new Map(plan.workloads.map((x) => [x.workload, x]))): string | undefined {
  if (w.outcome === 'not-queued') return undefined;
  const short = (ref: string) => ref.replace(/^\S+ /, '');
  const clock = (at: number) => (plan.startTime ? ` (${wallClock(plan, at)})` : '');
  const ends = (x: PlanWorkload, from: number) => (x.finishedAt !== null ? `, finishes at ${about(x.finishedAt)}${clock(x.finishedAt)}`
    : x.expectedDuration !== null ? `, runs ${about(x.expectedDuration)}` : x.atMost !== undefined ? `, runs at most ${about(x.atMost)}`
      : from >= 0 ? ', duration unknown' : '');
  if (w.admittedAt !== null) {
    const waited = w.admittedAt - w.arrivesAt;
    if (waited <= 0 && !w.waitsFor.length) {
      const at = w.arrivesAt ? [about(w.arrivesAt), wallClock(plan, w.arrivesAt)].filter(Boolean).join(', ') : '';
      return `starts at once${at ? ` (at ${at})` : ''}${ends(w, w.admittedAt)}`;
    }
    const after = w.waitsFor.map((ref) => {
      const x = byRef.get(ref);
      return `${short(ref)} ${x && x.finishedAt !== null && x.finishedAt <= w.admittedAt! ? 'finishes' : 'is preempted'}`;
    });
    const inside = [wallClock(plan, w.admittedAt), after.length ? `after ${after.join(', ')}` : ''].filter(Boolean).join(', ');
    return `starts in ${about(Math.max(0, waited))}${inside ? ` (${inside})` : ''}${ends(w, w.admittedAt)}`;
  }
  if (w.outcome === 'never-admissible') return 'never starts: it can never fit its ClusterQueue';
  if (plan.timeline.ended === 'horizon') return `never within ${formatGoDuration(plan.timeline.horizon)}`;
  const unknown = w.waitsFor.map((ref) => byRef.get(ref)).filter((x): x is PlanWorkload => !!x && x.expectedDuration === null);
  if (unknown.length) {
    return `start unknown: waits for ${unknown.map((x) => short(x.workload)).join(', ')}, which ${unknown.length > 1 ? 'have' : 'has'} no expected `
      + 'duration';
  }
  return `does not start: ${w.reason ?? 'pending'} with nothing left to finish ahead of it`;
}

/**
 * Where a TAS flavor puts a PodSet's pods: its domains (hosts, or the lowest level's values) and the pods on each
 * ("workers on tas: n3 ×3"); the text and the page both write it.
 */
export function placementText(p: PlanPodSetAssignment): string {
  return `${p.podSet} on ${p.topology!.flavor}: `
    + `${p.topology!.domains.map((d) => `${d.values.join('/')} ×${d.count}`).join(', ') || 'no node (an empty assignment: see the notes)'}`;
}

function workloadLine(w: PlanWorkload, plan?: PlanResult, byRef?: ReadonlyMap<string, PlanWorkload>): string[] {
  const prio = w.priorityClass ? `${w.priorityClass}=${w.priority}` : `priority ${w.priority}`;
  const head = `[${w.arrival}] ${w.workload} → ${w.clusterQueue ?? '-'} (${prio}; `
    + `${Object.entries(w.requests).map(([k, v]) => `${k} ${describeQuantity(parseQuantity(v), k)}`).join(', ')})`;
  const out = [head];
  const flavors = () => (w.admission ?? []).map((p) => `${p.podSet}×${p.count}: ${[...new Set(Object.values(p.flavors))].join('+') || '-'}`)
    .join(', ');
  const placements = () => (w.admission ?? []).filter((p) => p.topology).map((p) => `      ${placementText(p)}`);
  switch (w.outcome) {
    case 'admitted':
      out.push(`    ADMITTED  ${flavors()}`, ...placements());
      break;
    case 'admitted-by-preempting':
      out.push(`    ADMITTED BY PREEMPTING  ${flavors()}`, ...placements());
      for (const v of w.preempted ?? []) out.push(`      preempts ${v.workload} (${v.clusterQueue}, priority ${v.priority}, ${v.reason}): ${v.why}`);
      break;
    case 'pending':
    case 'never-admissible': {
      const p = w.pending!;
      const shortfalls = p.shortfalls.map(shortfallText).join('; ');
      out.push(`    ${w.outcome === 'never-admissible' ? 'NEVER ADMISSIBLE' : 'PENDING'} (${p.category})${shortfalls ? `: ${shortfalls}` : ''}`);
      if (w.neverAdmissible) out.push(`      ${w.neverAdmissible}`);
      // Kueue's own wording, shortened: the numbers above say the same.
      if (p.message) out.push(`      Kueue: ${p.message.length > 200 ? `${p.message.slice(0, 200)}…` : p.message}`);
      break;
    }
    case 'not-queued':
      out.push(`    NOT QUEUED: ${w.notQueued}`);
      break;
  }
  if (w.preemptedBy?.length && w.outcome !== 'admitted-by-preempting') out.push(`      was preempted by ${w.preemptedBy.join(', ')}`);
  if (w.scaleUpOf) out.push(`      scale-up slice of ${w.scaleUpOf}`);
  const when = plan ? whenText(w, plan, byRef) : undefined;
  if (when) out.push(`      when: ${when}`);
  return out;
}

/** Renders a plan for a terminal. */
export function planToText(plan: PlanResult, opts: PlanTextOptions = {}): string {
  const count = (o: string) => plan.workloads.filter((w) => w.outcome === o).length;
  const lines = [
    `Plan for Kueue ${plan.kueueVersion}: ${plan.workloads.length} workload(s): ${count('admitted')} admitted, ${count('admitted-by-preempting')} `
      + 'admitted by preempting, '
    + `${count('pending')} pending, ${count('never-admissible')} never admissible${count('not-queued') ? `, ${count('not-queued')} not queued` : ''}`,
    '',
    'ClusterQueues (usage of quota at the end):',
  ];
  for (const cq of plan.clusterQueues) {
    const quota = cq.quotas.map(quotaText).join(', ');
    lines.push(`  ${cq.name}${cq.cohort ? ` [cohort ${cq.cohort}]` : ''} ${cq.queueingStrategy}${cq.active ? '' : ' INACTIVE'}: `
      + `${quota || 'no quota'}; ${cq.admitted.length} admitted, ${cq.pending.length} pending`);
  }
  for (const c of plan.cohorts) lines.push(cohortLine(c));
  if (plan.localQueues?.length) {
    lines.push('', 'LocalQueue usage (admission fair sharing, at the end; the lower goes first in its ClusterQueue):');
    for (const lq of plan.localQueues) {
      const consumed = Object.entries(lq.consumed).map(([r, v]) => `${r} ${shortNumber(v)}`).join(', ');
      lines.push(`  ${lq.name} → ${lq.clusterQueue}: ${shortNumber(lq.usage)}${lq.weight !== 1 ? ` (weight ${lq.weight})` : ''}`
        + `${consumed ? `; consumed ${consumed}` : ''}`);
    }
  }
  lines.push('', 'Workloads, in arrival order:');
  const timeline = usesTimeline(plan);
  // One index for every workload's "when" line: a plan of 10,000 workloads would build it 10,000 times.
  const byRef = timeline ? new Map(plan.workloads.map((x) => [x.workload, x])) : undefined;
  for (const w of plan.workloads) lines.push(...workloadLine(w, timeline ? plan : undefined, byRef).map((l) => `  ${l}`));
  if (timeline) {
    lines.push('', plan.timeline.ended === 'settled' ? `Timeline: settled at ${about(plan.timeline.at)} (nothing left to happen).`
      : `Timeline: cut at the horizon, ${formatGoDuration(plan.timeline.horizon)}, with work left.`);
  }
  if (plan.ambiguities.length) {
    lines.push('', 'Ties Kueue breaks by timing or UID (the real outcome may differ here):');
    for (const a of plan.ambiguities) lines.push(`  ${a}`);
  }
  if (plan.notes.length) {
    lines.push('', 'Notes:');
    for (const n of plan.notes) lines.push(`  ${n}`);
  }
  if (opts.trace) {
    lines.push('', 'Decision trace:');
    for (const c of plan.trace) {
      lines.push(`  cycle ${c.cycle} (after arrival ${c.afterArrival}):`);
      for (const e of c.candidates) {
        lines.push(`    ${e.workload} in ${e.clusterQueue}: ${e.mode}${e.borrows ? ', borrows' : ''} → ${e.result}: ${e.detail}`);
        if (e.preemptionCandidates?.length) lines.push(`      preemption candidates in order: ${e.preemptionCandidates.join(', ')}`);
      }
      if (c.released.length) lines.push(`    released at the end of the cycle: ${c.released.join(', ')}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** A usage for reading: four significant digits, ∞ for a LocalQueue of weight 0. */
function shortNumber(v: number): string {
  return v === Infinity ? '∞' : String(Number(v.toPrecision(4)));
}
