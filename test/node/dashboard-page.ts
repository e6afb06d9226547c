/**
 * The dashboard's panels as one self-contained HTML page (an SVG line chart per panel, from Prometheus
 * range queries), for headless chromium to screenshot: what Grafana would draw from the same queries,
 * without running Grafana.
 */
import { escapeHtml } from '../../src/cli/plan-output/html';

export interface Series {
  readonly legend: string;
  /** [unix seconds, value] */
  readonly points: ReadonlyArray<readonly [number, number]>;
}

export interface RenderedPanel {
  readonly title: string;
  readonly series: readonly Series[];
}

export interface RenderedRow {
  readonly title: string;
  readonly panels: readonly RenderedPanel[];
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const esc = escapeHtml;

/** A Grafana legend format with a series' labels filled in ("pending ({{status}})"). */
export function legendOf(format: string, labels: Record<string, string>): string {
  return format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k) => labels[k] ?? '');
}

function chart(p: RenderedPanel, width: number): string {
  const h = 170;
  const pts = p.series.flatMap((s) => s.points).filter(([, v]) => Number.isFinite(v));
  if (!pts.length) return `<div class="panel" style="width:${width}px"><h3>${esc(p.title)}</h3><p class="none">no data</p></div>`;
  const t0 = Math.min(...pts.map(([t]) => t));
  const t1 = Math.max(...pts.map(([t]) => t), t0 + 1);
  const vmax = Math.max(...pts.map(([, v]) => v), 0) || 1;
  const vmin = Math.min(...pts.map(([, v]) => v), 0);
  const x = (t: number) => 40 + ((t - t0) / (t1 - t0)) * (width - 50);
  const y = (v: number) => 10 + (1 - (v - vmin) / (vmax - vmin || 1)) * (h - 30);
  const lines = p.series.map((s, i) => {
    const d = s.points.filter(([, v]) => Number.isFinite(v)).map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    return `<polyline fill="none" stroke="${COLOURS[i % COLOURS.length]}" stroke-width="2" points="${d}"/>`;
  }).join('');
  const axis = `<text x="2" y="${y(vmax) + 4}">${+vmax.toPrecision(3)}</text><text x="2" y="${y(vmin) + 4}">${+vmin.toPrecision(3)}</text>`
    + `<line x1="40" x2="${width - 10}" y1="${y(vmin)}" y2="${y(vmin)}" stroke="#999"/>`;
  const legend = p.series.map((s, i) => `<span><i style="background:${COLOURS[i % COLOURS.length]}"></i>${esc(s.legend)}</span>`).join('');
  return `<div class="panel" style="width:${width}px"><h3>${esc(p.title)}</h3><svg width="${width}" height="${h}">${axis}${lines}</svg>`
    + `<div class="legend">${legend}</div></div>`;
}

/** The page: each row's title, its panels side by side, then a table of the alerts (e.g. the firing ones). */
export function dashboardPage(title: string, rows: readonly RenderedRow[], alerts: ReadonlyArray<Record<string, string>>): string {
  const body = rows.map((r) => {
    const w = Math.floor(1240 / Math.max(1, r.panels.length)) - 12;
    return `<h2>${esc(r.title)}</h2><div class="row">${r.panels.map((p) => chart(p, w)).join('')}</div>`;
  }).join('');
  const table = alerts.length
    ? `<table><tr>${Object.keys(alerts[0]).map((k) => `<th>${esc(k)}</th>`).join('')}</tr>${alerts.map((a) => `<tr>${Object.values(a)
      .map((v) => `<td>${esc(v)}</td>`).join('')}</tr>`).join('')}</table>`
    : '<p class="none">none</p>';
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>
body{font:13px sans-serif;margin:12px;background:#fff;color:#222}h1{font-size:18px}h2{font-size:14px;margin:14px 0 4px}
.row{display:flex;gap:12px}.panel{border:1px solid #ccc;padding:4px}h3{font-size:12px;margin:0 0 4px}svg text{font-size:10px;fill:#555}
.legend span{margin-right:10px;font-size:11px}.legend i{display:inline-block;width:10px;height:3px;margin-right:3px;vertical-align:middle}
.none{color:#999}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;font-size:11px;text-align:left}
</style></head><body><h1>${esc(title)}</h1>${body}<h2>Alerts (Prometheus /api/v1/alerts)</h2>${table}</body></html>`;
}
