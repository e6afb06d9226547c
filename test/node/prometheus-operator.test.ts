// The objects the real-node guide runs Prometheus with: prometheus-operator's own example manifests
// (read from the pinned module, moved to the monitoring namespace, the images the node serves), and a
// Prometheus that selects exactly what QueueObservability labels.
import { Duration } from 'cdk8s';
import { QueueObservability } from '../../src';
import { prometheusImage, prometheusOperatorVersion } from '../../scripts/cluster/images';
import { examples } from '../support/synth';
import { prometheusManifest } from './guide-observability';
import { operatorCrds, operatorObjects } from './prometheus';

describe('prometheus-operator on the node', () => {
  test('its example RBAC and Deployment, moved to the monitoring namespace, run the images the node serves', async () => {
    const objs = await operatorObjects('monitoring');
    expect(objs.map((o) => o.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Service', 'ServiceAccount']);
    for (const o of objs.filter((x) => x.kind !== 'ClusterRole' && x.kind !== 'ClusterRoleBinding')) expect(o.metadata.namespace).toBe('monitoring');
    expect(objs.find((o) => o.kind === 'ClusterRoleBinding')!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'prometheus-operator',
      namespace: 'monitoring' }]);
    const c = objs.find((o) => o.kind === 'Deployment')!.spec.template.spec.containers[0];
    const v = prometheusOperatorVersion();
    expect(c.image).toBe(`quay.io/prometheus-operator/prometheus-operator:${v}`);
    expect(c.args).toContain(`--prometheus-config-reloader=quay.io/prometheus-operator/prometheus-config-reloader:${v}`);
    expect(c.resources.requests.cpu).toBe('10m');
  });

  test('every monitoring.coreos.com CRD it watches, one document each', async () => {
    const crds = await operatorCrds();
    expect(crds.map((c) => c.spec.names.kind).sort()).toEqual(['Alertmanager', 'AlertmanagerConfig', 'PodMonitor', 'Probe', 'Prometheus',
      'PrometheusAgent', 'PrometheusRule', 'ScrapeConfig', 'ServiceMonitor', 'ThanosRuler']);
  });
});

describe('the examples app with observability (EXAMPLES_OBSERVABILITY)', () => {
  const withObs = examples({ scenarios: ['queues'], observability: { pendingFor: Duration.seconds(15) } });
  // Not instanceof: Chart answers it for every chart.
  const isObs = (c: unknown): c is QueueObservability => QueueObservability.prototype.isPrototypeOf(c as object);

  test('adds the chart, last, with the pending alert after the given seconds; without it there is no such chart', () => {
    const charts = withObs.node.children.filter(isObs);
    expect(charts).toHaveLength(1);
    expect(withObs.node.children[withObs.node.children.length - 1]).toBe(charts[0]);
    const pending = charts[0].prometheusRule.toJson().spec.groups[0].rules.find((r: any) => r.alert === 'KueueRayWorkloadsPending');
    expect(pending).toMatchObject({ for: '15s', expr: expect.stringContaining('cluster_queue="cluster-queue"') });
    expect(examples({ scenarios: ['queues'] }).node.children.some(isObs)).toBe(false);
  });

  test('the node\'s Prometheus selects its ServiceMonitors and PrometheusRule by the chart\'s labels, at the image\'s version', () => {
    const chart = withObs.node.children.filter(isObs)[0].toJson();
    const m = prometheusManifest(chart, prometheusImage());
    expect(m.matchLabels).toEqual({ release: 'kube-prometheus-stack' });
    const p = m.prometheus.find((o) => o.kind === 'Prometheus')!;
    expect(p.spec).toMatchObject({ version: 'v3.16.0', image: 'quay.io/prometheus/prometheus:v3.16.0',
      serviceMonitorSelector: { matchLabels: m.matchLabels }, ruleSelector: { matchLabels: m.matchLabels } });
    const svc = m.prometheus.find((o) => o.kind === 'Service')!;
    expect(svc.spec.selector).toEqual({ 'operator.prometheus.io/name': p.metadata.name });
    // A ServiceMonitor labelled otherwise than the rule would not be selected: refused, naming it.
    const relabelled = chart.map((o: any) => (o.kind === 'ServiceMonitor' ? { ...o, metadata: { ...o.metadata, labels: {} } } : o));
    expect(() => prometheusManifest(relabelled, prometheusImage())).toThrow(/ServiceMonitor kueue-ray-kueue is labelled \{\}/);
  });
});
