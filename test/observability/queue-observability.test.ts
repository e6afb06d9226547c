// QueueObservability: the objects it emits (checked against prometheus-operator's CRDs), the rules and
// dashboard it writes for the app's own tenants and ClusterQueues, the metrics it turns on, and its refusals.
import * as fs from 'fs';
import * as path from 'path';
import { App, Duration, Testing } from 'cdk8s';
import * as ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import {
  AdmissionController, KubeRayInstall, KueueInstall, KueueRayVersions, KueueVersion, QueueObservability, QueueObservabilityProps, TenantQueue,
} from '../../src';
import { SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { docBlocks } from '../support/readme';
import { synthAll } from '../support/synth';
import { caseInsensitivePatterns, CrdValidator, crdVersions } from '../support/schema';
import { readPrometheusOperatorCrd } from '../support/upstream';
import { kubeRayCrds, kueueManifest, obsApp, queuesChart, VENDOR } from './app';

const maybe = VENDOR ? describe : describe.skip;
if (!VENDOR) {
  if (process.env.CI) throw new Error('the QueueObservability tests need ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
  process.stdout.write('[observability] skipped: no vendor folder for the installs (set KUEUE_RAY_VENDOR_DIR)\n');
}

const rulesOf = (obs: QueueObservability) => (obs.prometheusRule.toJson().spec.groups as any[]).flatMap((g) => g.rules);
const dashboardOf = (obs: QueueObservability) => JSON.parse(Object.values(obs.dashboard.toJson().data)[0] as string);
const synthErrors = (f: () => void) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

/** The queues without installs: no release to read, so fast. */
function queuesApp(): App {
  const app = Testing.app();
  queuesChart(app);
  return app;
}

function queuesOnly(props: QueueObservabilityProps = {}) {
  const app = queuesApp();
  return { app, obs: new QueueObservability(app, 'observability', props) };
}

maybe('QueueObservability', () => {
  // The whole app (installs, queues, the chart), synthesized once for the tests that only read it.
  let full: ReturnType<typeof obsApp>;
  beforeAll(() => {
    full = obsApp({ labels: { release: 'kps' } });
    full.app.synth();
  });

  test('emits three ServiceMonitors, the Kueue scraper identity, a PrometheusRule and a dashboard ConfigMap, valid against the CRDs', async () => {
    const { obs } = full;
    const objs = obs.toJson();
    expect(objs.map((o: any) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'ServiceAccount/monitoring/kueue-ray-kueue-metrics', 'ClusterRoleBinding//kueue-ray-kueue-metrics', 'Secret/monitoring/kueue-ray-kueue-metrics',
      'ServiceMonitor/monitoring/kueue-ray-kueue', 'ServiceMonitor/monitoring/kueue-ray-kuberay-operator',
      'ServiceMonitor/monitoring/kueue-ray-controller',
      'PrometheusRule/monitoring/kueue-ray-alerts', 'ConfigMap/monitoring/kueue-ray-dashboard',
    ]);
    const validators = new Map<string, CrdValidator>();
    for (const [kind, plural] of [['ServiceMonitor', 'servicemonitors'], ['PrometheusRule', 'prometheusrules']]) {
      const v = crdVersions(await readPrometheusOperatorCrd(plural)).find((x) => x.version === 'v1')!;
      validators.set(kind, new CrdValidator({ ...v, schema: caseInsensitivePatterns(v.schema) }));
    }
    const monitored = objs.filter((o: any) => validators.has(o.kind));
    expect(monitored).toHaveLength(4);
    for (const o of monitored) {
      expect({ name: o.metadata.name, errors: validators.get(o.kind)!.check(o).errors }).toEqual({ name: o.metadata.name, errors: [] });
    }
    for (const o of monitored) expect(o.metadata.labels).toEqual({ release: 'kps' });
    // Each component as it serves /metrics: Kueue over HTTPS with a token of the release's metrics-reader role.
    const [kueue, kuberay, controller] = obs.serviceMonitors.map((m) => m.toJson().spec);
    expect(kueue.endpoints[0]).toMatchObject({ port: 'https', scheme: 'https',
      authorization: { credentials: { name: 'kueue-ray-kueue-metrics', key: 'token' } } });
    expect(kueue.namespaceSelector.matchNames).toEqual(['kueue-system']);
    expect(objs.find((o: any) => o.kind === 'ClusterRoleBinding').roleRef.name).toBe('kueue-metrics-reader');
    expect(kuberay.endpoints[0]).toMatchObject({ port: 'http', scheme: 'http', honorLabels: true });
    expect(kuberay.namespaceSelector.matchNames).toEqual(['kuberay-system']);
    expect(controller.endpoints[0]).toMatchObject({ port: 'metrics', scheme: 'http' });
    expect(controller.namespaceSelector.matchNames).toEqual(['cdk8s-kueue-ray-system']);
  });

  test('each ServiceMonitor selects its component\'s metrics Service and port as the installs synthesize them', () => {
    const { app, obs } = full;
    const services = synthAll(app).filter((o: any) => o.kind === 'Service');
    for (const m of obs.serviceMonitors.map((x) => x.toJson())) {
      const ns = m.spec.namespaceSelector.matchNames[0];
      const name = m.spec.endpoints[0].relabelings[0].regex;
      const svc = services.find((s: any) => s.metadata.namespace === ns && s.metadata.name === name);
      expect(svc).toBeDefined();
      expect(svc.metadata.labels).toMatchObject(m.spec.selector.matchLabels);
      expect(svc.spec.ports.map((p: any) => p.name)).toContain(m.spec.endpoints[0].port);
    }
  });

  test('every vendored Kueue release has the metrics Service the ServiceMonitor selects and the ClusterRole the token is bound to', () => {
    const tags = fs.readdirSync(path.join(VENDOR!, 'kueue')).filter((t) => (SUPPORTED_KUEUE_VERSIONS as readonly string[]).includes(t));
    expect(tags.length).toBeGreaterThanOrEqual(4);
    for (const tag of tags) {
      const app = Testing.app();
      KueueRayVersions.use(app, { kueue: KueueVersion.of(tag) });
      new KueueInstall(app, 'kueue', { manifestFile: kueueManifest(tag) });
      const obs = new QueueObservability(app, 'observability');
      app.synth();
      const objs = synthAll(app);
      const m = obs.serviceMonitors[0].toJson();
      const svc = objs.find((o: any) => o.kind === 'Service' && o.metadata.namespace === m.spec.namespaceSelector.matchNames[0]
        && o.metadata.name === m.spec.endpoints[0].relabelings[0].regex);
      expect({ tag, labels: svc?.metadata.labels, ports: svc?.spec.ports.map((p: any) => p.name) })
        .toMatchObject({ tag, labels: m.spec.selector.matchLabels, ports: expect.arrayContaining([m.spec.endpoints[0].port]) });
      const role = objs.find((o: any) => o.kind === 'ClusterRole' && o.metadata.name === 'kueue-metrics-reader');
      expect({ tag, rules: role?.rules }).toEqual({ tag, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] });
    }
  });

  test('one rule per ClusterQueue and question, labelled with its tenants; borrowing only in a cohort; one RayJob rule per tenant', () => {
    const { obs } = full;
    const rules = rulesOf(obs);
    const of = (alert: string) => rules.filter((r) => r.alert === alert);
    expect(of('KueueRayWorkloadsPending').map((r) => r.labels.tenants)).toEqual(['alpha', 'beta', 'delta,gamma', 'solo']);
    expect(of('KueueRayWorkloadsPending')[2].expr).toContain('cluster_queue="shared"');
    expect(of('KueueRayClusterQueueBorrowingAtLimit').map((r) => r.labels.tenants)).toEqual(['alpha', 'beta']);
    expect(of('KueueRayClusterQueueAtNominalQuota').map((r) => `${r.labels.tenants}:${r.labels.severity}`))
      .toEqual(['alpha:info', 'beta:info', 'delta,gamma:warning', 'solo:warning']);
    expect(of('KueueRayRayJobFailingRepeatedly').map((r) => r.labels.tenant)).toEqual(['alpha', 'beta', 'delta', 'gamma', 'solo']);
    expect(of('KueueRayComponentDown').map((r) => r.labels.component)).toEqual(['kueue', 'kuberay-operator', 'controller']);
    expect(of('KueueRayWebhookErrors').map((r) => r.labels.component)).toEqual(['kueue', 'controller']);
    for (const r of rules) {
      expect(Object.keys(r.annotations).sort()).toEqual(['description', 'runbook', 'summary']);
      expect(r.annotations.runbook.length).toBeGreaterThan(60);
    }
  });

  test('thresholds are props: durations, rates and counts appear in the rules', () => {
    const { app, obs } = queuesOnly({ pendingFor: Duration.minutes(45), quotaFullFor: Duration.hours(2), preemptionsPerHour: 12, rayJobFailures: 5,
      webhookErrorRatio: 0.2, webhookLatencySeconds: 0.25, downFor: Duration.minutes(3) });
    app.synth();
    const rule = (alert: string) => rulesOf(obs).find((r) => r.alert === alert);
    expect(rule('KueueRayWorkloadsPending')).toMatchObject({ for: '45m' });
    expect(rule('KueueRayWorkloadsPending').expr).toContain('[45m]');
    expect(rule('KueueRayClusterQueueAtNominalQuota').for).toBe('2h');
    expect(rule('KueueRayPreemptionStorm').expr).toMatch(/\* 3600 > 12$/);
    expect(rule('KueueRayRayJobFailingRepeatedly').expr).toMatch(/>= 5$/);
    expect(rule('KueueRayWebhookErrors').expr).toMatch(/> 0.2$/);
    expect(rule('KueueRayWebhookLatencyHigh').expr).toMatch(/> 0.25$/);
    expect(rule('KueueRayComponentDown').for).toBe('3m');
  });

  test('bad thresholds are refused with the prop and the fix', () => {
    const app = Testing.app();
    expect(() => new QueueObservability(app, 'a', { webhookLatencySeconds: 1 })).toThrow(/webhookLatencySeconds 1 must be above 0 and below 1/);
    expect(() => new QueueObservability(app, 'b', { pendingFor: Duration.seconds(5) })).toThrow(/pendingFor must be .* at least 10/);
    expect(() => new QueueObservability(app, 'c', { rayJobFailures: 2.5 })).toThrow(/rayJobFailures 2.5 must be a whole number/);
    expect(() => new QueueObservability(app, 'd', { webhookErrorRatio: 1.5 })).toThrow(/webhookErrorRatio 1.5 must be above 0 and below 1/);
  });

  test('tenants defined after the construct are in its rules and dashboard (read at synth)', () => {
    const { app, obs } = queuesOnly();
    const chart = app.node.findChild('queues') as any;
    new TenantQueue(chart, 'late', { namespace: 'late', clusterQueue: (chart.node.findChild('shared') as any) });
    app.synth();
    expect(rulesOf(obs).find((r) => r.alert === 'KueueRayWorkloadsPending' && r.expr.includes('"shared"')).labels.tenants).toBe('delta,gamma,late');
    expect(dashboardOf(obs).panels.filter((p: any) => p.type === 'row').map((p: any) => p.title)).toContain(
      'Tenant late: LocalQueue default, ClusterQueue shared (shared with delta, gamma)');
  });

  test('the dashboard: a ConfigMap for the Grafana sidecar, one row per tenant and one for the components', () => {
    expect(full.obs.dashboard.toJson().metadata.labels).toEqual({ grafana_dashboard: '1' });
    const { app, obs } = queuesOnly({ dashboardLabels: { grafana_dashboard: 'queues' } });
    app.synth();
    expect(obs.dashboard.toJson().metadata.labels).toEqual({ grafana_dashboard: 'queues' });
    const d = dashboardOf(obs);
    expect(d.uid).toBe('kueue-ray-queues');
    expect(d.templating.list[0]).toMatchObject({ name: 'datasource', type: 'datasource', query: 'prometheus' });
    const rows = d.panels.filter((p: any) => p.type === 'row');
    expect(rows.map((r: any) => r.title.split(':')[0])).toEqual(['Tenant alpha', 'Tenant beta', 'Tenant delta', 'Tenant gamma', 'Tenant solo',
      'Controller and operators']);
    const alpha = d.panels.filter((p: any) => p.type !== 'row' && p.gridPos.y === rows[0].gridPos.y + 1);
    expect(alpha.map((p: any) => p.title)).toEqual(['Workloads', 'Quota use', 'Wait for admission', 'Preemptions per hour']);
    for (const p of alpha) for (const t of p.targets) expect(t.expr).toMatch(/cluster_queue="alpha"/);
    expect(d.panels.filter((p: any) => p.type !== 'row').every((p: any) => p.datasource.uid === '${datasource}')).toBe(true);
    // Panels never overlap.
    const cells = new Set<string>();
    for (const p of d.panels) {
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++) {
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  test('turns on Kueue\'s ClusterQueue resource metrics, also in a KueueInstall constructed after it', () => {
    const before = full.app;
    const after = Testing.app();
    new QueueObservability(after, 'observability');
    new KueueInstall(after, 'kueue', { manifestFile: kueueManifest() });
    after.synth();
    for (const app of [before, after]) {
      const cm = synthAll(app).find((o: any) => o.kind === 'ConfigMap' && o.metadata.name === 'kueue-manager-config');
      expect(parseYaml(cm.data['controller_manager_config.yaml']).metrics.enableClusterQueueResources).toBe(true);
    }
    // Without the construct the release's setting stays (the examples' dist/ does not change).
    const bare = Testing.app();
    new KueueInstall(bare, 'kueue', { manifestFile: kueueManifest() });
    bare.synth();
    const cm = synthAll(bare).find((o: any) => o.kind === 'ConfigMap' && o.metadata.name === 'kueue-manager-config');
    expect(parseYaml(cm.data['controller_manager_config.yaml']).metrics.enableClusterQueueResources).toBeUndefined();
  });

  test('refuses a KueueInstall with clusterQueueResourceMetrics false, and a KubeRayInstall without metrics', () => {
    const kueueOff = obsApp({}, { kueueProps: { clusterQueueResourceMetrics: false } });
    expect(synthErrors(() => kueueOff.app.synth())).toMatch(
      /KueueInstall 'kueue': clusterQueueResourceMetrics is false, but QueueObservability 'observability' .*Fix: remove clusterQueueResourceMetrics: false/);
    const app = Testing.app();
    const kuberay = new KubeRayInstall(app, 'kuberay', { crdDir: kubeRayCrds(), enableMetrics: false });
    new QueueObservability(app, 'observability');
    expect(synthErrors(() => app.synth())).toMatch(/KubeRayInstall 'kuberay' has enableMetrics false.*Fix: remove enableMetrics: false/);
    expect(kuberay.metricsEnabled).toBe(false);
  });

  test('refuses a controller whose NetworkPolicy keeps Prometheus out, and installs it could not see', () => {
    const app = Testing.app();
    new AdmissionController(app, 'controller', { metricsScraperNamespaces: ['observability'] });
    new QueueObservability(app, 'obs');
    expect(synthErrors(() => app.synth())).toMatch(/lets only observability reach its metrics port, not Prometheus in monitoring.*Fix: add "monitoring"/);
    const ok = Testing.app();
    new AdmissionController(ok, 'controller', { metricsScraperNamespaces: ['observability'] });
    new QueueObservability(ok, 'obs', { prometheusNamespace: 'observability' });
    expect(synthErrors(() => ok.synth())).toBe('');
    const late = Testing.app();
    new QueueObservability(late, 'obs');
    new AdmissionController(late, 'controller');
    expect(synthErrors(() => late.synth())).toMatch(/the app's AdmissionController was constructed after it.*Fix: pass it as 'admissionController'/);
  });

  test('without installs in the app: Kueue and the operator at their default places, no controller scraped', () => {
    const { app, obs } = queuesOnly({ namespace: 'prom', name: 'queues' });
    app.synth();
    expect(obs.serviceMonitors.map((m) => `${m.toJson().metadata.namespace}/${m.toJson().metadata.name}`))
      .toEqual(['prom/queues-kueue', 'prom/queues-kuberay-operator']);
    expect(rulesOf(obs).filter((r) => r.alert === 'KueueRayComponentDown').map((r) => r.labels.component)).toEqual(['kueue', 'kuberay-operator']);
  });
});

test('the example of docs/monitoring.md states the defaults', () => {
  const [block] = docBlocks('docs/monitoring.md', '## Monitoring: `QueueObservability`', 'ts');
  const readme = queuesApp();
  new Function('app', 'Duration', 'QueueObservability', ts.transpile(block))(readme, Duration, QueueObservability);
  const { app: bare } = queuesOnly({ labels: { release: 'kube-prometheus-stack' } });
  const out = (app: App) => { app.synth(); return synthAll(app).filter((o: any) => o.kind === 'PrometheusRule'); };
  const rules = out(readme);
  expect(rules).toHaveLength(1);
  expect(rules).toEqual(out(bare));
});
