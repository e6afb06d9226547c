/**
 * `plan --output html`: one self-contained page (no network, no external script or style) with a
 * chart of each ClusterQueue's and cohort's quota use over the scheduling cycles, the workloads and
 * who preempted whom, and, when the plan has time in it, each ClusterQueue's timeline (gantt.ts).
 * Pure: the plan in, the page out. The usage series is rebuilt from the plan's own trace (admissions
 * add the gang's requests, releases and replaced elastic slices take them back), so it ends exactly at
 * each queue's reported usage; `planUsageSeries` is exported so tests can check that.
 */
import { parseQuantity } from '../../policy/quantity';
import { PlanQuota, PlanResult, PlanWorkload } from '../../policy/plan/schema';
import { pendingReason, placementText } from '../../plan/text';
import { chartOf, firstCycleAfterArrivals, PlanUsageSeries } from './chart';
import { GANTT_CSS, GANTT_RENDER, GANTT_SECTION, ganttOf } from './gantt';

const num = (q: string | undefined): number => {
  if (q === undefined) return 0;
  try { return Number(parseQuantity(q)) / 1000; } catch { return 0; }
};

/** What a workload uses while admitted: its gang's requests (a victim that ends pending has no admission left). */
function admittedUsage(w: PlanWorkload | undefined): Map<string, number> {
  return new Map(Object.entries(w?.requests ?? {}).map(([res, q]) => [res, num(q)]));
}

/** The borrowing ceiling and lending floor of a resource, summed over its flavors when each sets the limit. */
function limits(quotas: readonly PlanQuota[], resource: string, nominal: number): { borrowingCeiling?: number; lendingFloor?: number } {
  const qs = quotas.filter((q) => q.resource === resource);
  const sum = (k: 'borrowingLimit' | 'lendingLimit') => (qs.length && qs.every((q) => q[k] !== undefined)
    ? qs.reduce((a, q) => a + num(q[k]), 0) : undefined);
  const b = sum('borrowingLimit'), l = sum('lendingLimit');
  return { ...(b !== undefined ? { borrowingCeiling: nominal + b } : {}), ...(l !== undefined ? { lendingFloor: Math.max(0, nominal - l) } : {}) };
}

/** A cohort's ClusterQueues, its child cohorts' included. */
function cohortMembers(plan: PlanResult, name: string, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const co = plan.cohorts.find((x) => x.name === name);
  return [...(co?.clusterQueues ?? []), ...plan.cohorts.filter((x) => x.parent === name).flatMap((x) => cohortMembers(plan, x.name, seen))];
}

/** The usage of every ClusterQueue and cohort per resource, replayed from the trace. */
export function planUsageSeries(plan: PlanResult): PlanUsageSeries[] {
  const byName = new Map(plan.workloads.map((w) => [w.workload, w]));
  const cqOf = new Map(plan.workloads.map((w) => [w.workload, w.clusterQueue]));
  const cqs = plan.clusterQueues.map((c) => c.name);
  const resources = new Map<string, Set<string>>();
  for (const c of plan.clusterQueues) resources.set(c.name, new Set(c.quotas.map((q) => q.resource)));
  const usage = new Map<string, Map<string, number>>(cqs.map((c) => [c, new Map()]));
  const active = new Set<string>();
  const series = new Map<string, number[]>();
  const snapshot = () => {
    for (const c of cqs) for (const r of resources.get(c) ?? []) {
      const k = `${c}\u0000${r}`;
      if (!series.has(k)) series.set(k, []);
      series.get(k)!.push(usage.get(c)!.get(r) ?? 0);
    }
  };
  const apply = (workload: string, sign: 1 | -1) => {
    const cq = cqOf.get(workload);
    if (!cq || !usage.has(cq)) return;
    if (sign === 1 ? active.has(workload) : !active.has(workload)) return;
    if (sign === 1) active.add(workload); else active.delete(workload);
    const u = usage.get(cq)!;
    for (const [r, v] of admittedUsage(byName.get(workload))) u.set(r, (u.get(r) ?? 0) + sign * v);
  };
  snapshot();
  for (const cycle of plan.trace) {
    for (const c of cycle.candidates) {
      if (c.result !== 'admitted') continue;
      const replaced = byName.get(c.workload)?.scaleUpOf;
      if (replaced) apply(replaced, -1); // an admitted scale-up slice replaces the old one
      apply(c.workload, 1);
    }
    for (const r of cycle.released) apply(r, -1);
    snapshot();
  }
  const out: PlanUsageSeries[] = [];
  for (const c of plan.clusterQueues) {
    for (const r of resources.get(c.name) ?? []) {
      const nominal = c.quotas.filter((q) => q.resource === r).reduce((a, q) => a + num(q.nominal), 0);
      out.push({
        kind: 'ClusterQueue', name: c.name, resource: r, nominal, points: series.get(`${c.name}\u0000${r}`) ?? [], ...limits(c.quotas, r, nominal),
      });
    }
  }
  // A cohort's use is the sum of its ClusterQueues', its child cohorts' included.
  for (const co of plan.cohorts) {
    const cqNames = cohortMembers(plan, co.name);
    const res = new Set(cqNames.flatMap((c) => [...(resources.get(c) ?? [])]));
    for (const r of res) {
      const parts = out.filter((s) => s.kind === 'ClusterQueue' && s.resource === r && cqNames.includes(s.name));
      const points = (parts[0]?.points ?? []).map((_, i) => parts.reduce((a, s) => a + (s.points[i] ?? 0), 0));
      // The cohort's quotas are what it pools: its members' lendable quota plus its own.
      const pooled = co.quotas.filter((q) => q.resource === r).reduce((a, q) => a + num(q.nominal), 0);
      out.push({ kind: 'Cohort', name: co.name, resource: r, nominal: pooled, points });
    }
  }
  return out;
}

/** Text for HTML (also inside attribute values). */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));

/** JSON that is safe inside a <script> element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

// The page's script draws the charts from the embedded data (SVG, no library) and fills the tables. Split after its
// helpers so the timeline's part goes in between only when there is one (a page without it stays as it was).
const RENDER_HELPERS = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('plan-data').textContent);
  var svgNs = 'http://www.w3.org/2000/svg';
  function el(name, attrs, parent, ns) {
    var e = ns ? document.createElementNS(svgNs, name) : document.createElement(name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function titled(e, text) { el('title', {}, e, true).textContent = text; return e; }
  function none(parent, tag) { el(tag, { 'class': 'none' }, parent).textContent = 'none'; }
`;
const RENDER_REST = String.raw`  var charts = document.getElementById('charts');
  if (!data.series.length) none(charts, 'p');
  data.series.forEach(function (s) {
    var c = s.chart;
    var box = el('figure', { 'class': 'chart', 'data-kind': s.kind, 'data-name': s.name, 'data-resource': s.resource }, charts);
    el('figcaption', {}, box).textContent = c.caption;
    var w = 400, h = 170, left = 64, right = 12, top = 22, bottom = 30;
    var svg = el('svg', { width: w, height: h, viewBox: '0 0 ' + w + ' ' + h, role: 'img' }, box, true);
    var n = s.points.length;
    var x = function (i) { return left + (w - left - right) * (n > 1 ? i / (n - 1) : 0); };
    var y = function (v) { return h - bottom - (h - top - bottom) * v / c.max; };
    var axis = el('g', { 'class': 'y-axis' }, svg, true);
    el('line', { x1: left, x2: left, y1: top, y2: h - bottom, 'class': 'axis-line' }, axis, true);
    c.ticks.forEach(function (t) {
      el('line', { x1: left - 4, x2: w - right, y1: y(t.value), y2: y(t.value), 'class': 'grid' }, axis, true);
      el('text', { x: left - 6, y: y(t.value) + 3, 'text-anchor': 'end', 'class': 'tick', 'data-value': t.value }, axis, true).textContent = t.label;
    });
    [['nominal', c.nominal], ['borrowing-limit', c.borrowing], ['lending-limit', c.lending]].forEach(function (l) {
      if (!l[1]) return;
      var ly = y(l[1].value);
      titled(el('line', { x1: left, x2: w - right, y1: ly, y2: ly, 'class': l[0], 'data-value': l[1].value }, svg, true), l[1].label);
      el('text', { x: w - right, y: y(l[1].value) - 3, 'text-anchor': 'end', 'class': 'line-label ' + l[0] }, svg, true).textContent = l[1].label;
    });
    var d = s.points.map(function (v, i) { return (i ? 'H' + x(i) + 'V' : 'M' + x(i) + ',') + y(v); }).join('');
    el('path', { d: d, 'class': 'usage', 'data-points': n, 'data-last': s.points[n - 1] }, svg, true);
    c.steps.forEach(function (st) {
      var x0 = st.from === 0 ? x(0) : (x(st.from - 1) + x(st.from)) / 2, x1 = st.to === n - 1 ? x(n - 1) : (x(st.to) + x(st.to + 1)) / 2;
      titled(el('rect', { x: x0, y: top, width: Math.max(1, x1 - x0), height: h - top - bottom, 'class': 'step',
        'data-from': st.from, 'data-to': st.to }, svg, true), st.title);
    });
    c.arrivals.forEach(function (a) {
      var ax = x(a.point);
      titled(el('path', { d: 'M' + ax + ',' + (h - bottom + 1) + 'l-4,7h8z', 'class': 'arrival', 'data-point': a.point }, svg, true), a.title);
    });
    el('text', { x: left, y: 10, 'class': 'last' }, svg, true).textContent = c.usedLabel;
    el('text', { x: left, y: h - 4, 'class': 'axis' }, svg, true).textContent = 'cycle 0';
    el('text', { x: w - right, y: h - 4, 'text-anchor': 'end', 'class': 'axis' }, svg, true).textContent = 'cycle ' + (n - 1);
  });
  var rows = document.getElementById('workloads');
  if (!data.workloads.length) el('td', { colspan: data.placed ? 7 : 6, 'class': 'none' }, el('tr', {}, rows)).textContent = 'none';
  data.workloads.forEach(function (w) {
    var tr = el('tr', { 'class': w.outcome, 'data-workload': w.workload }, rows);
    [w.arrival, w.workload, w.clusterQueue || '', w.priority, w.outcome].forEach(function (v) { el('td', {}, tr).textContent = String(v); });
    var why = el('td', { 'class': 'why' }, tr);
    why.textContent = w.why;
    if (w.kueue) why.setAttribute('title', 'Kueue: ' + w.kueue);
    if (data.placed) {
      var where = el('td', { 'class': 'placement' }, tr);
      (w.placement || []).forEach(function (p) { el('div', {}, where).textContent = p; });
    }
  });
  var pre = document.getElementById('preemptions');
  if (!data.preemptions.length) none(pre, 'li');
  data.preemptions.forEach(function (p) {
    var li = el('li', { 'data-preemptor': p.preemptor, 'data-victim': p.victim }, pre);
    li.textContent = p.preemptor + ' \u2192 ' + p.victim + ' (' + p.reason + '): ' + p.why;
  });
  [['ambiguities', data.ambiguities], ['notes', data.notes]].forEach(function (l) {
    var ul = document.getElementById(l[0]);
    if (!l[1].length) none(ul, 'li');
    l[1].forEach(function (t) { el('li', {}, ul).textContent = t; });
  });
  document.body.setAttribute('data-rendered', 'true');
})();
`;

/** The row's reason: for a pending workload the text's summary ("quota: needs cpu 2.5, 0.5 free of 3 …"), Kueue's message in its tooltip. */
function why(w: PlanWorkload): string {
  if (w.outcome === 'pending') return w.pending ? pendingReason(w.pending) : '';
  if (w.outcome === 'never-admissible') return w.neverAdmissible ?? '';
  if (w.outcome === 'not-queued') return w.notQueued ?? '';
  if (w.outcome === 'admitted-by-preempting') return `preempted ${(w.preempted ?? []).map((v) => v.workload).join(', ')}`;
  return (w.admission ?? []).map((a) => `${a.podSet}\u2192${[...new Set(Object.values(a.flavors))].join('/')}`).join(', ');
}

/** The self-contained HTML page of a plan. */
export function planToHtml(plan: PlanResult, title = 'cdk8s-kueue-ray plan'): string {
  const firstCycle = firstCycleAfterArrivals(plan);
  const gantt = ganttOf(plan);
  // Topology-aware scheduling placed pods: a column says where, per PodSet (a page without TAS stays as it was).
  const placed = plan.workloads.some((w) => w.admission?.some((a) => a.topology));
  const data = {
    series: planUsageSeries(plan).map((s) => ({
      ...s, chart: chartOf(s, plan, new Set(s.kind === 'Cohort' ? cohortMembers(plan, s.name) : [s.name]), firstCycle),
    })),
    workloads: plan.workloads.map((w) => ({
      arrival: w.arrival, workload: w.workload, clusterQueue: w.clusterQueue, priority: w.priority, outcome: w.outcome, why: why(w),
      ...(w.pending && (w.outcome === 'pending' || w.outcome === 'never-admissible') ? { kueue: w.pending.message } : {}),
      ...(placed ? { placement: (w.admission ?? []).filter((a) => a.topology).map(placementText) } : {}),
    })),
    ...(placed ? { placed } : {}),
    ambiguities: plan.ambiguities, notes: plan.notes,
    preemptions: plan.workloads.flatMap((w) => (w.preempted ?? []).map((v) => ({
      preemptor: w.workload, victim: v.workload, reason: v.reason, why: v.why,
    }))),
    ...(gantt ? { timeline: gantt } : {}),
  };
  const counts = ['admitted', 'admitted-by-preempting', 'pending', 'never-admissible', 'not-queued']
    .map((o) => `${plan.workloads.filter((w) => w.outcome === o).length} ${o}`).join(', ');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}
#charts{display:flex;flex-wrap:wrap;gap:12px}.chart{margin:0;border:1px solid #ddd;border-radius:6px;padding:8px}
figcaption{font-size:12px;margin-bottom:4px}.usage{fill:none;stroke:#2563eb;stroke-width:2}.nominal{stroke:#dc2626;stroke-dasharray:4 3}
.borrowing-limit{stroke:#9333ea;stroke-dasharray:2 3}.lending-limit{stroke:#0d9488;stroke-dasharray:6 3}.grid{stroke:#eee}.axis-line{stroke:#999}
.line-label{font-size:9px;stroke:none}text.nominal{fill:#dc2626}text.borrowing-limit{fill:#9333ea}text.lending-limit{fill:#0d9488}
.step{fill:transparent}.step:hover{fill:rgba(37,99,235,.08)}.arrival{fill:#f59e0b}.none{color:#777;font-style:italic}
.axis,.last,.tick{font-size:10px;fill:#555}table{border-collapse:collapse}`
  + `td,th{border-bottom:1px solid #eee;padding:4px 8px;text-align:left;vertical-align:top}
tr.admitted td:nth-child(5){color:#15803d}tr.admitted-by-preempting td:nth-child(5){color:#b45309}tr.pending td:nth-child(5){color:#b91c1c}
tr.never-admissible td:nth-child(5){color:#7f1d1d;font-weight:bold}
${gantt ? GANTT_CSS : ''}</style></head>
<body data-rendered="false">
<h1>${escapeHtml(title)}</h1>
<p>Kueue ${escapeHtml(plan.kueueVersion)}: ${escapeHtml(String(plan.workloads.length))} workloads in arrival order `
  + `(${escapeHtml(counts)}), ${plan.trace.length} scheduling cycles.
Blue: quota used after each cycle; red dashes: nominal quota (for a cohort, what it pools: its members' lendable quota plus its own);
purple: nominal plus borrowingLimit; teal: what the queue keeps for itself under its lendingLimit; orange marks: arrivals into the
queue. Hover a step or a mark for what happened there, a pending workload's reason for Kueue's own message.</p>
<h2>Quota use over the cycles</h2><div id="charts"></div>
${gantt ? GANTT_SECTION : ''}<h2>Who preempted whom</h2><ul id="preemptions"></ul>
<h2>Workloads</h2><table><thead><tr><th>arrival</th><th>workload</th><th>ClusterQueue</th><th>priority</th><th>outcome</th><th>why</th>`
  + `${placed ? '<th>placement (TAS)</th>' : ''}</tr></thead>`
  + `<tbody id="workloads"></tbody></table>
<h2>Ties Kueue breaks by timing or UID</h2><ul id="ambiguities"></ul>
<h2>Notes</h2><ul id="notes"></ul>
<script type="application/json" id="plan-data">${scriptJson(data)}</script>
<script>${RENDER_HELPERS}${gantt ? GANTT_RENDER : ''}${RENDER_REST}</script>
</body></html>
`;
}
