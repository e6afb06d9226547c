/**
 * The Grafana dashboard: one row per tenant (its ClusterQueue's workloads, quota, wait time and
 * preemptions) and one row for the components. Panels query a `datasource` variable, so the
 * dashboard works in any Grafana that loads it from a ConfigMap (the sidecar of kube-prometheus-stack).
 */
import { ObservedApp, ObservedTenant, ScrapedComponent } from './model';
import * as Q from './queries';

interface Target {
  readonly expr: string;
  readonly legend: string;
}

interface PanelSpec {
  readonly title: string;
  readonly unit: string;
  readonly targets: Target[];
  readonly description?: string;
}

const WIDTH = 24;
const HEIGHT = 8;
const DS = { type: 'prometheus', uid: '${datasource}' };

/** The dashboard JSON model. */
export function queueDashboard(app: ObservedApp, uid: string, title: string): Record<string, unknown> {
  const panels: Record<string, unknown>[] = [];
  let y = 0;
  let id = 1;
  const row = (rowTitle: string, specs: PanelSpec[]) => {
    panels.push({ id: id++, type: 'row', title: rowTitle, collapsed: false, gridPos: { h: 1, w: WIDTH, x: 0, y }, panels: [] });
    y += 1;
    const w = WIDTH / specs.length;
    specs.forEach((s, i) => panels.push(panel(id++, s, { h: HEIGHT, w, x: i * w, y })));
    y += HEIGHT;
  };
  const sharedWith = (t: ObservedTenant) => app.clusterQueues.find((c) => c.name === t.clusterQueue)?.tenants.filter((n) => n !== t.namespace) ?? [];
  for (const t of app.tenants) {
    const shared = sharedWith(t);
    const sharing = shared.length ? ` (shared with ${shared.join(', ')})` : '';
    row(`Tenant ${t.namespace}: LocalQueue ${t.localQueue}, ClusterQueue ${t.clusterQueue}${sharing}`, tenantPanels(t.clusterQueue));
  }
  row('Controller and operators', componentPanels(app));
  return {
    uid, title, tags: ['kueue', 'ray', 'cdk8s-kueue-ray'], editable: false, schemaVersion: 39, version: 1,
    time: { from: 'now-6h', to: 'now' }, refresh: '1m',
    templating: { list: [{ name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0 }] },
    panels,
  };
}

function panel(id: number, s: PanelSpec, gridPos: Record<string, number>): Record<string, unknown> {
  return {
    id, type: 'timeseries', title: s.title, datasource: DS, gridPos,
    ...(s.description ? { description: s.description } : {}),
    fieldConfig: { defaults: { unit: s.unit }, overrides: [] },
    options: { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
    targets: s.targets.map((t, i) => ({ refId: String.fromCharCode(65 + i), datasource: DS, expr: t.expr, legendFormat: t.legend })),
  };
}

function tenantPanels(cq: string): PanelSpec[] {
  return [
    { title: 'Workloads', unit: 'short', targets: [
      { expr: Q.pendingByStatus(cq), legend: 'pending ({{status}})' },
      { expr: Q.admittedActive(cq), legend: 'admitted' },
    ] },
    { title: 'Quota use', unit: 'short', description: 'Use against nominal quota, and nominal plus borrowing limit (absent: no limit).', targets: [
      { expr: Q.quotaUsage(cq), legend: '{{resource}} ({{flavor}}) used' },
      { expr: Q.nominalQuota(cq), legend: '{{resource}} ({{flavor}}) nominal' },
      { expr: `(${Q.borrowingCeiling(cq)}) < +Inf`, legend: '{{resource}} ({{flavor}}) borrowing limit' },
    ] },
    { title: 'Wait for admission', unit: 's', targets: [
      { expr: Q.admissionWait(cq, 0.5, '30m'), legend: 'p50' },
      { expr: Q.admissionWait(cq, 0.9, '30m'), legend: 'p90' },
    ] },
    { title: 'Preemptions per hour', unit: 'short', targets: [
      { expr: Q.preemptionsPerHour(cq, '10m'), legend: 'preempted by this queue' },
      { expr: Q.preemptedPerHour(cq, '10m'), legend: 'this queue\'s workloads preempted' },
    ] },
  ];
}

function componentPanels(app: ObservedApp): PanelSpec[] {
  const find = (name: ScrapedComponent['component']) => app.components.find((c) => c.component === name);
  const kueue = find('kueue');
  const controller = find('controller');
  const specs: PanelSpec[] = [{
    title: 'Targets up', unit: 'short',
    targets: app.components.map((c) => ({ expr: `sum(up{${Q.jobSelector(c)}})`, legend: c.component })),
  }];
  const latency: Target[] = [];
  const errors: Target[] = [];
  if (controller) {
    latency.push({ expr: Q.controllerLatency(controller, 0.99, '5m'), legend: 'controller {{path}} p99' });
    errors.push({ expr: Q.controllerErrorRatio(controller, '5m'), legend: 'controller {{path}} errors' },
      { expr: Q.controllerDecisions(controller, '5m'), legend: 'controller {{webhook}} {{decision}} /s' });
  }
  if (kueue) {
    latency.push({ expr: Q.kueueWebhookLatency(kueue, 0.99, '5m'), legend: 'kueue {{webhook}} p99' });
    errors.push({ expr: Q.kueueWebhookErrorRatio(kueue, '5m'), legend: 'kueue {{webhook}} errors' });
  }
  if (latency.length) specs.push({ title: 'Webhook latency (p99)', unit: 's', targets: latency });
  if (errors.length) specs.push({ title: 'Webhook errors (share) and decisions', unit: 'short', targets: errors });
  const namespaces = [...new Set(app.tenants.map((t) => t.namespace))];
  if (find('kuberay-operator') && namespaces.length) {
    specs.push({ title: 'RayJobs of the tenants', unit: 'short',
      targets: [{ expr: Q.rayJobsByStatus(namespaces), legend: '{{deployment_status}}' }] });
  }
  return specs;
}
