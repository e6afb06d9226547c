/** The plan as text a user reads first: one line per ClusterQueue and per workload, numbers and why. Pure. */
import { PlanResult, PlanShortfall, PlanWorkload } from './schema';

export interface PlanTextOptions {
  /** Print the decision trace (every cycle and candidate). @default false */
  readonly trace?: boolean;
}

function shortfallText(s: PlanShortfall): string {
  const limit = s.borrowingLimitReached ? `; borrowing limit reached${s.cohort ? ` in cohort ${s.cohort}` : ''}`
    : s.cohort ? ` (cohort ${s.cohort})` : '';
  return `needs ${s.resource} ${s.needs}, ${s.free} free of ${s.nominal} in flavor ${s.flavor} (at most ${s.maximum})${limit}`;
}

function workloadLine(w: PlanWorkload): string[] {
  const prio = w.priorityClass ? `${w.priorityClass}=${w.priority}` : `priority ${w.priority}`;
  const head = `[${w.arrival}] ${w.workload} → ${w.clusterQueue ?? '-'} (${prio}; `
    + `${Object.entries(w.requests).map(([k, v]) => `${k} ${v}`).join(', ')})`;
  const out = [head];
  const flavors = () => (w.admission ?? []).map((p) => `${p.podSet}×${p.count}: ${[...new Set(Object.values(p.flavors))].join('+') || '-'}`)
    .join(', ');
  switch (w.outcome) {
    case 'admitted':
      out.push(`    ADMITTED  ${flavors()}`);
      break;
    case 'admitted-by-preempting':
      out.push(`    ADMITTED BY PREEMPTING  ${flavors()}`);
      for (const v of w.preempted ?? []) out.push(`      preempts ${v.workload} (${v.clusterQueue}, priority ${v.priority}, ${v.reason}): ${v.why}`);
      break;
    case 'pending':
    case 'never-admissible': {
      const p = w.pending!;
      out.push(`    ${w.outcome === 'never-admissible' ? 'NEVER ADMISSIBLE' : 'PENDING'} (${p.category})`
        + `${p.shortfalls.length ? ': ' + p.shortfalls.map(shortfallText).join('; ') : ''}`);
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
    const quota = cq.quotas.map((x) => `${x.flavor}/${x.resource} ${x.usage} of ${x.nominal}`
      + `${x.borrowingLimit ? ` (+${x.borrowingLimit} borrowable)` : ''}${x.lendingLimit ? ` (lends ≤${x.lendingLimit})` : ''}`).join(', ');
    lines.push(`  ${cq.name}${cq.cohort ? ` [cohort ${cq.cohort}]` : ''} ${cq.queueingStrategy}${cq.active ? '' : ' INACTIVE'}: `
      + `${quota || 'no quota'}; ${cq.admitted.length} admitted, ${cq.pending.length} pending`);
  }
  for (const c of plan.cohorts) {
    lines.push(`  cohort ${c.name}${c.parent ? ` (parent ${c.parent})` : ''}: `
      + `${c.quotas.map((x) => `${x.flavor}/${x.resource} ${x.usage} borrowed of ${x.nominal} pooled`).join(', ') || 'nothing pooled'}`);
  }
  lines.push('', 'Workloads, in arrival order:');
  for (const w of plan.workloads) lines.push(...workloadLine(w).map((l) => `  ${l}`));
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
