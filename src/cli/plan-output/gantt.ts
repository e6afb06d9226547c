/**
 * The plan page's timeline: per ClusterQueue, one row per workload with its waits (arrival or preemption to
 * admission) and its runs (admission to finish, or open to the plan's end), read from the JSON's `events`.
 * Computed here in seconds so the page's script only places it. Only for a plan with time in it (the text's
 * `when:` lines): a plan without durations or arrival times gets no section, and its page is unchanged. Pure.
 */
import { formatGoDuration } from '../../policy/go-duration';
import type { PlanResult, PlanWorkload } from '../../policy/plan/schema';
import { pendingReason, usesTimeline, whenText } from '../../plan/text';

/** Rows drawn per ClusterQueue; the JSON has the rest (a 10,000-workload plan stays a page a browser opens). */
export const MAX_GANTT_ROWS = 300;

export interface GanttSegment {
  readonly kind: 'wait' | 'run';
  /** Seconds from the plan's start. */
  readonly from: number;
  readonly to: number;
  /** Still going at the plan's end: pending then, or running with no known finish. */
  readonly open: boolean;
}

export interface GanttRow {
  readonly workload: string;
  readonly label: string;
  readonly outcome: string;
  readonly title: string;
  readonly segments: readonly GanttSegment[];
  readonly preemptions: ReadonlyArray<{ readonly at: number; readonly title: string }>;
}

export interface GanttQueue {
  readonly clusterQueue: string;
  readonly rows: readonly GanttRow[];
  /** Workloads of the queue beyond MAX_GANTT_ROWS, not drawn. */
  readonly more: number;
}

export interface GanttData {
  /** The plan's end (the horizon when cut there), or its last event; open segments end here in the data. */
  readonly end: number;
  readonly endTitle: string;
  /** The axis' end: a little past the plan's end when something is still going, so open bars are drawn on past it. */
  readonly axisEnd: number;
  readonly ticks: ReadonlyArray<{ readonly at: number; readonly label: string }>;
  readonly queues: readonly GanttQueue[];
}

const at = (s: number) => formatGoDuration(Math.round(s));

/** Round tick steps in seconds, about five per axis. */
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];

function ticksOf(end: number): GanttData['ticks'] {
  const step = STEPS.find((s) => end / s <= 6) ?? Math.ceil(end / 6);
  const out: Array<{ at: number; label: string }> = [];
  for (let t = 0; t <= end; t += step) out.push({ at: t, label: at(t) });
  return out;
}

/** The waits and runs of a workload from its events; what is still going at `end` stays open to it. */
export function segmentsOf(w: PlanWorkload, end: number): GanttSegment[] {
  const out: GanttSegment[] = [];
  let waitFrom: number | undefined, runFrom: number | undefined;
  const close = (kind: 'wait' | 'run', from: number | undefined, to: number, open: boolean) => {
    if (from !== undefined && (to > from || open)) out.push({ kind, from, to, open });
  };
  for (const e of w.events) {
    if (e.event === 'arrived') waitFrom = e.at;
    else if (e.event === 'admitted') {
      close('wait', waitFrom, e.at, false);
      waitFrom = undefined;
      runFrom = e.at;
    } else if (e.event === 'preempted' || e.event === 'finished') {
      close('run', runFrom, e.at, false);
      runFrom = undefined;
      if (e.event === 'preempted') waitFrom = e.at;
    }
  }
  close('run', runFrom, end, true);
  close('wait', waitFrom, end, true);
  return out;
}

/** The row's tooltip: the workload, its times, the text's `when:` wording, and why it waits or waited. */
function titleOf(w: PlanWorkload, plan: PlanResult, byRef: ReadonlyMap<string, PlanWorkload>): string {
  const lines = [`${w.workload} in ${w.clusterQueue}: ${w.outcome}`,
    `arrives at ${at(w.arrivesAt)}; ${w.admittedAt !== null ? `admitted at ${at(w.admittedAt)}` : 'not admitted within the plan'}`
    + (w.finishedAt !== null ? `; finishes at ${at(w.finishedAt)}` : w.admittedAt !== null ? '; finish unknown' : '')];
  const when = whenText(w, plan, byRef);
  if (when) lines.push(`when: ${when}`);
  if (w.pending && (w.outcome === 'pending' || w.outcome === 'never-admissible')) lines.push(`${w.reason}: ${pendingReason(w.pending)}`);
  if (w.neverAdmissible) lines.push(w.neverAdmissible);
  if (w.waitsFor.length) lines.push(`${w.admittedAt !== null ? 'waited for' : 'waits for'} ${w.waitsFor.join(', ')}`);
  return lines.join('\n');
}

/** The timeline of a plan with time in it; undefined otherwise. */
export function ganttOf(plan: PlanResult): GanttData | undefined {
  if (!usesTimeline(plan)) return undefined;
  let end = plan.timeline.at;
  for (const w of plan.workloads) for (const e of w.events) end = Math.max(end, e.at);
  end = Math.max(end, 1);
  const byRef = new Map(plan.workloads.map((x) => [x.workload, x]));
  const byQueue = new Map<string, PlanWorkload[]>(plan.clusterQueues.map((c) => [c.name, []]));
  for (const w of plan.workloads) {
    if (!w.clusterQueue || w.outcome === 'not-queued') continue;
    if (!byQueue.has(w.clusterQueue)) byQueue.set(w.clusterQueue, []);
    byQueue.get(w.clusterQueue)!.push(w);
  }
  const queues: GanttQueue[] = [...byQueue].filter(([, ws]) => ws.length).map(([clusterQueue, ws]) => ({
    clusterQueue, more: Math.max(0, ws.length - MAX_GANTT_ROWS),
    rows: ws.slice(0, MAX_GANTT_ROWS).map((w) => ({
      workload: w.workload, label: w.workload.replace(/^\S+ /, ''), outcome: w.outcome, title: titleOf(w, plan, byRef),
      segments: segmentsOf(w, end),
      preemptions: w.events.filter((e) => e.event === 'preempted').map((e) => ({
        at: e.at, title: `${w.workload} preempted at ${at(e.at)}${w.preemptedBy?.length ? ` (by ${w.preemptedBy.join(', ')})` : ''}`,
      })),
    })),
  }));
  const open = queues.some((q) => q.rows.some((r) => r.segments.some((x) => x.open)));
  const axisEnd = open ? end * 1.08 : end;
  const endTitle = plan.timeline.ended === 'horizon' ? `cut at the horizon, ${at(plan.timeline.horizon)}, with work left`
    : `settled at ${at(end)}: nothing left to happen`;
  return { end, endTitle, axisEnd, ticks: ticksOf(axisEnd), queues };
}

/** The section's heading, legend and place, when the plan has a timeline. */
export const GANTT_SECTION = `<h2>When each workload runs</h2>
<p>Per ClusterQueue, each workload in arrival order on the plan's clock. Pale amber: waiting (from its arrival, or from a
preemption, to its admission); blue: running, from admission to finish; faded with a dashed edge, drawn on past the
plan's end (the dotted line): still waiting or running then (no known finish, or cut at the horizon); red marks:
preemptions. Hover a row for its times and why it waits.</p>
<div id="timeline"></div>
`;

export const GANTT_CSS = `.gantt{margin:0 0 12px;border:1px solid #ddd;border-radius:6px;padding:8px}.gantt .run{fill:#2563eb}
.gantt .wait{fill:#fde68a;stroke:#d97706;stroke-width:.5}.gantt .open{fill-opacity:.45;stroke-dasharray:3 2;stroke:#1e3a8a}
.gantt .wait.open{stroke:#b45309}.gantt .preemption{fill:#dc2626;stroke:#dc2626}.gantt .row:hover .lane{fill:rgba(37,99,235,.08)}
.gantt .lane{fill:transparent}.gantt .label{font-size:11px;fill:#333}.gantt .plan-end{stroke:#555;stroke-dasharray:2 2}
`;

// Placed inside the page's script (html.ts), after its helpers: el, titled, none and data.
export const GANTT_RENDER = String.raw`  var timeline = document.getElementById('timeline');
  var g = data.timeline;
  if (g && !g.queues.length) none(timeline, 'p');
  if (g) g.queues.forEach(function (q) {
    var box = el('figure', { 'class': 'gantt', 'data-cluster-queue': q.clusterQueue }, timeline);
    el('figcaption', {}, box).textContent = 'ClusterQueue ' + q.clusterQueue
      + (q.more ? ' (the first ' + q.rows.length + ' workloads; ' + q.more + ' more in the JSON)' : '');
    var w = 900, left = 220, right = 16, top = 20, rowH = 18, barH = 10, bottom = 8;
    var h = top + q.rows.length * rowH + bottom;
    var svg = el('svg', { width: w, height: h, viewBox: '0 0 ' + w + ' ' + h, role: 'img' }, box, true);
    var x = function (t) { return left + (w - left - right) * t / g.axisEnd; };
    var axis = el('g', { 'class': 'time-axis' }, svg, true);
    g.ticks.forEach(function (t) {
      el('line', { x1: x(t.at), x2: x(t.at), y1: top - 4, y2: h - bottom, 'class': 'grid' }, axis, true);
      el('text', { x: x(t.at), y: top - 7, 'text-anchor': 'middle', 'class': 'tick', 'data-at': t.at }, axis, true).textContent = t.label;
    });
    titled(el('line', { x1: x(g.end), x2: x(g.end), y1: top - 4, y2: h - bottom, 'class': 'plan-end', 'data-at': g.end }, svg, true),
      g.endTitle);
    q.rows.forEach(function (r, i) {
      var y = top + i * rowH, by = y + (rowH - barH) / 2;
      var row = el('g', { 'class': 'row ' + r.outcome, 'data-workload': r.workload }, svg, true);
      titled(row, r.title);
      el('rect', { x: 0, y: y, width: w, height: rowH, 'class': 'lane' }, row, true);
      el('text', { x: left - 6, y: y + rowH / 2 + 4, 'text-anchor': 'end', 'class': 'label' }, row, true).textContent =
        r.label.length > 34 ? r.label.slice(0, 33) + '\u2026' : r.label;
      r.segments.forEach(function (s) {
        el('rect', { x: x(s.from), y: by, width: Math.max(1, x(s.open ? g.axisEnd : s.to) - x(s.from)), height: barH,
          'class': s.kind + (s.open ? ' open' : ''), 'data-from': s.from, 'data-to': s.to }, row, true);
      });
      r.preemptions.forEach(function (p) {
        var px = x(p.at);
        titled(el('path', { d: 'M' + px + ',' + (by - 1) + 'l-4,-5h8zM' + px + ',' + (by - 1) + 'v' + (barH + 2),
          'class': 'preemption', 'data-at': p.at }, row, true), p.title);
      });
    });
  });
`;
