/**
 * The guide suite's Prometheus: prometheus-operator, configured by the examples app's QueueObservability
 * chart as synthesized (its ServiceMonitors and PrometheusRule selected by a Prometheus), and the
 * checks on what it scraped: the series the rules and the dashboard query, the dashboard's queries
 * over the scenarios, and the dashboard rendered as a page for headless chromium.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { queueDashboard } from '../../src/observability/dashboard';
import { ObservedApp } from '../../src/observability/model';
import { KUEUE_METRICS_SERVICE } from '../../src/observability/scrape';
import { prometheusImage } from '../../scripts/cluster/images';
import { KubeClient, waitFor } from '../e2e/support/kube';
import { dashboardPage, legendOf, RenderedRow } from './dashboard-page';
import { operatorCrds, operatorObjects, prometheusObjects, promApi, promQuery } from './prometheus';

/** The namespace Prometheus runs in: the AdmissionController's default metricsScraperNamespaces. */
export const MONITORING = 'monitoring';
/** Scrape and rule evaluation interval: short, so the 15 s pending alert can fire while the gang's second job waits. */
export const INTERVAL = '5s';

/** The Prometheus object's name: its pod is prometheus-kueue-ray-0. */
const PROMETHEUS = 'kueue-ray';

/**
 * A Prometheus that selects the chart's ServiceMonitors and PrometheusRule (applied as synthesized) by the labels
 * the chart gives them; the chart's dashboard and rule groups, for the checks.
 */
export function prometheusManifest(observabilityChart: any[], image: string): { prometheus: any[]; dashboard: any; rules: any[];
  matchLabels: Record<string, string> } {
  const rule = observabilityChart.find((o) => o.kind === 'PrometheusRule');
  const matchLabels: Record<string, string> = rule.metadata.labels ?? {};
  for (const m of observabilityChart.filter((o) => o.kind === 'ServiceMonitor')) {
    if (JSON.stringify(m.metadata.labels ?? {}) !== JSON.stringify(matchLabels)) {
      throw new Error(`ServiceMonitor ${m.metadata.name} is labelled ${JSON.stringify(m.metadata.labels)}, the PrometheusRule `
        + `${JSON.stringify(matchLabels)}`);
    }
  }
  const dashboardCm = observabilityChart.find((o) => o.kind === 'ConfigMap');
  const version = /:(v[\d.]+)$/.exec(image)![1];
  const prometheus = prometheusObjects({ namespace: MONITORING, name: PROMETHEUS, image, version, interval: INTERVAL, matchLabels });
  const dashboard = JSON.parse(Object.values(dashboardCm.data)[0] as string);
  return { prometheus, dashboard, rules: rule.spec.groups, matchLabels };
}

function writeManifest(file: string, objects: any[]): string {
  fs.writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  return file;
}

/**
 * Installs prometheus-operator (its CRDs, established first; then its RBAC and Deployment), applies the chart
 * as it was synthesized and a Prometheus selecting it, and waits until the operator's Prometheus scrapes every
 * target; its API's base URL, through the Service's cluster IP (the host routes the Service range into the node).
 */
export async function deployPrometheus(chart: any[], client: KubeClient, kubectl: (...args: string[]) => Promise<string>, dir: string):
Promise<{ prom: string; manifest: ReturnType<typeof prometheusManifest> }> {
  const manifest = prometheusManifest(chart, prometheusImage());
  const crds = await operatorCrds();
  await kubectl('apply', '--server-side', '-f', writeManifest(path.join(dir, 'prometheus-operator-crds.yaml'), crds));
  await kubectl('wait', '--for=condition=Established', '--timeout=60s', ...crds.map((c) => `crd/${c.metadata.name}`));
  const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MONITORING } };
  await kubectl('apply', '-f', writeManifest(path.join(dir, 'prometheus-operator.yaml'), [namespace, ...await operatorObjects(MONITORING)]));
  await kubectl('apply', '-f', writeManifest(path.join(dir, 'observability-chart.yaml'), chart));
  await kubectl('apply', '-f', writeManifest(path.join(dir, 'prometheus.yaml'), manifest.prometheus));
  const svc = await client.get(`/api/v1/namespaces/${MONITORING}/services/prometheus`);
  const prom = `http://${svc.spec.clusterIP}:9090`;
  let last = '';
  await waitFor('the operator\'s Prometheus scraping every target', async () => {
    const targets = (await promApi(prom, '/api/v1/targets').catch(() => undefined))?.activeTargets ?? [];
    last = targets.map((t: any) => `${t.labels.job}: ${t.health} ${t.lastError}`).join('; ');
    return targets.length >= 3 && targets.every((t: any) => t.health === 'up');
  }, 300000, 2000).catch(async (e) => {
    const status = await client.get(`/apis/monitoring.coreos.com/v1/namespaces/${MONITORING}/prometheuses/${PROMETHEUS}`).catch(() => undefined);
    throw new Error(`${e.message}; targets: ${last || 'none'}; Prometheus conditions: ${JSON.stringify(status?.status?.conditions ?? [])}`);
  });
  return { prom, manifest };
}

/**
 * The guide app's dashboard with a tenant row for its one LocalQueue: the guide defines no TenantQueue, so
 * the emitted dashboard has the components' row only; this is the same function, given the guide's queue as a tenant.
 */
export function guideDashboard(): Record<string, any> {
  const app: ObservedApp = {
    tenants: [{ namespace: 'default', localQueue: 'user-queue', clusterQueue: 'cluster-queue' }],
    clusterQueues: [{ name: 'cluster-queue', tenants: ['default'] }],
    components: [
      { component: 'kueue', namespace: 'kueue-system', service: KUEUE_METRICS_SERVICE },
      { component: 'kuberay-operator', namespace: 'kuberay-system', service: 'kuberay-operator' },
      { component: 'controller', namespace: 'cdk8s-kueue-ray-system', service: 'cdk8s-kueue-ray-controller' },
    ],
  };
  return queueDashboard(app, 'kueue-ray-queues', 'Kueue and Ray queues (the guide on the real node)');
}

/** Every target's panel title, legend and expression, in the dashboard's order. */
export function dashboardTargets(dashboard: Record<string, any>): Array<{ row: string; panel: string; legend: string; expr: string }> {
  const out: Array<{ row: string; panel: string; legend: string; expr: string }> = [];
  let row = '';
  for (const p of dashboard.panels) {
    if (p.type === 'row') { row = p.title; continue; }
    for (const t of p.targets) out.push({ row, panel: p.title, legend: t.legendFormat, expr: t.expr });
  }
  return out;
}

export interface RangeResult { readonly metric: Record<string, string>; readonly values: Array<[number, string]> }

export async function rangeQuery(base: string, expr: string, start: number, end: number, step = 15): Promise<RangeResult[]> {
  const data = await promApi(base, `/api/v1/query_range?query=${encodeURIComponent(expr)}&start=${start}&end=${end}&step=${step}`);
  return data.result;
}

/** A series with at least one number (histogram_quantile of no observations is NaN: no data). */
export const hasData = (r: RangeResult[]) => r.some((s) => s.values.some(([, v]) => Number.isFinite(Number(v))));

/** The series of a metric seen in the last `window`, by the given labels: `{label: value}` per series. */
export async function seen(base: string, selector: string, by: string[], window: string): Promise<Array<Record<string, string>>> {
  return (await promQuery(base, `count by (${by.join(', ')}) (last_over_time(${selector}[${window}]))`)).map((r) => r.metric);
}

/** The dashboard page, its rows from range queries, and the alerts given; written next to its PNG. */
export async function renderDashboard(base: string, dashboard: Record<string, any>, start: number, end: number,
  alerts: ReadonlyArray<Record<string, string>>, outDir: string, chromium: string): Promise<{ html: string; png: string }> {
  const rows: Array<{ title: string; panels: Array<{ title: string; series: Array<{ legend: string; points: Array<[number, number]> }> }> }> = [];
  for (const p of dashboard.panels) {
    if (p.type === 'row') { rows.push({ title: p.title, panels: [] }); continue; }
    const series = [];
    for (const t of p.targets) {
      for (const s of await rangeQuery(base, t.expr, start, end)) {
        series.push({ legend: legendOf(t.legendFormat, s.metric), points: s.values.map(([ts, v]): [number, number] => [ts, Number(v)]) });
      }
    }
    rows[rows.length - 1].panels.push({ title: p.title, series });
  }
  fs.mkdirSync(outDir, { recursive: true });
  const html = path.join(outDir, 'dashboard.html');
  const png = path.join(outDir, 'dashboard.png');
  fs.writeFileSync(html, dashboardPage(dashboard.title, rows as RenderedRow[], alerts));
  // Tall enough for every row's longest legend (about two entries a line) and the alerts table: nothing cut off.
  const legendLines = rows.reduce((n, r) => n + Math.max(0, ...r.panels.map((p) => Math.ceil(p.series.length / 2))), 0);
  const height = 160 + rows.length * 260 + legendLines * 15 + alerts.length * 24;
  execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars',
    `--user-data-dir=${path.join(outDir, 'profile')}`,
    '--virtual-time-budget=3000', `--window-size=1280,${height}`, `--screenshot=${png}`, `file://${html}`], { timeout: 60000, stdio: 'ignore' });
  fs.rmSync(path.join(outDir, 'profile'), { recursive: true, force: true });
  return { html, png };
}

/** Debian's chromium (CI installs it), else none: the render is then skipped with the reason printed. */
export function findChromium(): string | undefined {
  for (const c of [process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome']) {
    if (!c) continue;
    try {
      execFileSync(c, ['--version'], { stdio: 'ignore' });
      return c;
    } catch { /* next */ }
  }
  return undefined;
}
