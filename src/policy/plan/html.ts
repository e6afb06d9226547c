/**
 * `plan --output html`: one self-contained page (no network, no external script or style) with a
 * chart of each ClusterQueue's and cohort's quota use over the scheduling cycles, the workloads and
 * who preempted whom. Pure: the plan in, the page out. The usage series is rebuilt from the plan's own
 * trace (admissions add the gang's requests, releases and replaced elastic slices take them back), so it ends exactly at each queue's reported usage; `planUsageSeries` is exported so tests
 * can check that.
 */
import { parseQuantity } from '../quantity';
import { PlanResult, PlanWorkload } from './schema';

/** Quota use of one ClusterQueue or cohort for one resource (flavors summed), after each cycle. */
export interface PlanUsageSeries {
  readonly kind: 'ClusterQueue' | 'Cohort';
  readonly name: string;
  readonly resource: string;
  /** Nominal quota (sum over flavors; for a cohort, what it pools: its members' lendable quota plus its own). */
  readonly nominal: number;
  /** Usage before the first cycle, then after each cycle (milli-units / 1000). */
  readonly points: readonly number[];
}

const num = (q: string | undefined): number => {
  if (q === undefined) return 0;
  try { return Number(parseQuantity(q)) / 1000; } catch { return 0; }
};

/** What a workload uses while admitted: its gang's requests (a victim that ends pending has no admission left). */
function admittedUsage(w: PlanWorkload | undefined): Map<string, number> {
  return new Map(Object.entries(w?.requests ?? {}).map(([res, q]) => [res, num(q)]));
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
      out.push({ kind: 'ClusterQueue', name: c.name, resource: r, nominal, points: series.get(`${c.name}\u0000${r}`) ?? [] });
    }
  }
  // A cohort's use is the sum of its ClusterQueues', its child cohorts' included.
  const members = (name: string, seen = new Set<string>()): string[] => {
    if (seen.has(name)) return [];
    seen.add(name);
    const co = plan.cohorts.find((x) => x.name === name);
    return [...(co?.clusterQueues ?? []), ...plan.cohorts.filter((x) => x.parent === name).flatMap((x) => members(x.name, seen))];
  };
  for (const co of plan.cohorts) {
    const cqNames = members(co.name);
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

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));

/** JSON that is safe inside a <script> element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

// The page's script draws the charts from the embedded data (SVG, no library) and fills the tables.
const RENDER = String.raw`
(function () {
  var data = JSON.parse(document.getElementById('plan-data').textContent);
  var svgNs = 'http://www.w3.org/2000/svg';
  function el(name, attrs, parent, ns) {
    var e = ns ? document.createElementNS(svgNs, name) : document.createElement(name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) { return Math.abs(v) >= 1e9 ? (v / 1073741824).toFixed(1) + 'Gi' : (Math.round(v * 100) / 100).toString(); }
  var charts = document.getElementById('charts');
  data.series.forEach(function (s) {
    var box = el('figure', { 'class': 'chart', 'data-kind': s.kind, 'data-name': s.name, 'data-resource': s.resource }, charts);
    el('figcaption', {}, box).textContent = s.kind + ' ' + s.name + ' \u2014 ' + s.resource + ' (nominal ' + fmt(s.nominal) + ')';
    var w = 360, h = 140, pad = 28;
    var max = Math.max(s.nominal, Math.max.apply(null, s.points.concat([0]))) || 1;
    var svg = el('svg', { width: w, height: h, viewBox: '0 0 ' + w + ' ' + h, role: 'img' }, box, true);
    var x = function (i) { return pad + (w - 2 * pad) * (s.points.length > 1 ? i / (s.points.length - 1) : 0); };
    var y = function (v) { return h - pad - (h - 2 * pad) * v / max; };
    el('line', { x1: pad, x2: w - pad, y1: y(s.nominal), y2: y(s.nominal), 'class': 'nominal' }, svg, true);
    var d = s.points.map(function (v, i) { return (i ? 'H' + x(i) + 'V' : 'M' + x(i) + ',') + y(v); }).join('');
    el('path', { d: d, 'class': 'usage', 'data-points': s.points.length, 'data-last': s.points[s.points.length - 1] }, svg, true);
    var t = el('text', { x: w - pad, y: 12, 'text-anchor': 'end', 'class': 'last' }, svg, true);
    t.textContent = 'used ' + fmt(s.points[s.points.length - 1] || 0);
    el('text', { x: pad, y: h - 6, 'class': 'axis' }, svg, true).textContent = 'cycle 0';
    el('text', { x: w - pad, y: h - 6, 'text-anchor': 'end', 'class': 'axis' }, svg, true).textContent = 'cycle ' + (s.points.length - 1);
  });
  var rows = document.getElementById('workloads');
  data.workloads.forEach(function (w) {
    var tr = el('tr', { 'class': w.outcome, 'data-workload': w.workload }, rows);
    [w.arrival, w.workload, w.clusterQueue || '', w.priority, w.outcome, w.why].forEach(function (v) { el('td', {}, tr).textContent = String(v); });
  });
  var pre = document.getElementById('preemptions');
  data.preemptions.forEach(function (p) {
    var li = el('li', { 'data-preemptor': p.preemptor, 'data-victim': p.victim }, pre);
    li.textContent = p.preemptor + ' \u2192 ' + p.victim + ' (' + p.reason + '): ' + p.why;
  });
  document.body.setAttribute('data-rendered', 'true');
})();
`;

function why(w: PlanWorkload): string {
  if (w.outcome === 'pending') return w.pending?.message ?? '';
  if (w.outcome === 'never-admissible') return w.neverAdmissible ?? '';
  if (w.outcome === 'not-queued') return w.notQueued ?? '';
  if (w.outcome === 'admitted-by-preempting') return `preempted ${(w.preempted ?? []).map((v) => v.workload).join(', ')}`;
  return (w.admission ?? []).map((a) => `${a.podSet}\u2192${[...new Set(Object.values(a.flavors))].join('/')}`).join(', ');
}

/** The self-contained HTML page of a plan. */
export function planToHtml(plan: PlanResult, title = 'cdk8s-kueue-ray plan'): string {
  const data = {
    series: planUsageSeries(plan),
    workloads: plan.workloads.map((w) => ({
      arrival: w.arrival, workload: w.workload, clusterQueue: w.clusterQueue, priority: w.priority, outcome: w.outcome, why: why(w),
    })),
    preemptions: plan.workloads.flatMap((w) => (w.preempted ?? []).map((v) => ({
      preemptor: w.workload, victim: v.workload, reason: v.reason, why: v.why,
    }))),
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
.axis,.last{font-size:10px;fill:#555}table{border-collapse:collapse}`
  + `td,th{border-bottom:1px solid #eee;padding:4px 8px;text-align:left;vertical-align:top}
tr.admitted td:nth-child(5){color:#15803d}tr.admitted-by-preempting td:nth-child(5){color:#b45309}tr.pending td:nth-child(5){color:#b91c1c}
tr.never-admissible td:nth-child(5){color:#7f1d1d;font-weight:bold}
</style></head>
<body data-rendered="false">
<h1>${escapeHtml(title)}</h1>
<p>Kueue ${escapeHtml(plan.kueueVersion)}: ${escapeHtml(String(plan.workloads.length))} workloads in arrival order `
  + `(${escapeHtml(counts)}), ${plan.trace.length} scheduling cycles.
Blue: quota used after each cycle; red dashes: nominal quota (for a cohort, what it pools: its members' lendable quota plus its own).</p>
<h2>Quota use over the cycles</h2><div id="charts"></div>
<h2>Who preempted whom</h2><ul id="preemptions"></ul>
<h2>Workloads</h2><table><thead><tr><th>arrival</th><th>workload</th><th>ClusterQueue</th><th>priority</th><th>outcome</th><th>why</th></tr></thead>`
  + `<tbody id="workloads"></tbody></table>
${plan.ambiguities.length ? `<h2>Ambiguities</h2><ul>${plan.ambiguities.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul>` : ''}
<script type="application/json" id="plan-data">${scriptJson(data)}</script>
<script>${RENDER}</script>
</body></html>
`;
}
