// The ServiceMonitor -> scrape config translation the real-node guide's Prometheus runs with: the
// job and namespace labels come out as prometheus-operator's, the Kueue endpoint keeps its token and TLS
// settings, and what it cannot translate is refused with the ServiceMonitor's name.
import { Duration } from 'cdk8s';
import { QueueObservability } from '../../src';
import { obsApp } from '../observability/app';
import { examples } from '../support/synth';
import { prometheusObjects, scrapeConfigs } from './prometheus';

const SECRETS = { 'kueue-ray-kueue-metrics': '/var/run/secrets/kueue-metrics' };

describe('scrapeConfigs', () => {
  const { obs } = obsApp();
  const monitors = obs.serviceMonitors.map((m) => m.toJson());
  const configs = scrapeConfigs(monitors, SECRETS);
  const byName = (n: string) => configs.find((c) => c.job_name === `serviceMonitor/monitoring/${n}/0`)!;

  test('one scrape config per ServiceMonitor endpoint, each limited to the monitored namespace', () => {
    expect(configs.map((c) => c.job_name)).toEqual(['serviceMonitor/monitoring/kueue-ray-kueue/0',
      'serviceMonitor/monitoring/kueue-ray-kuberay-operator/0', 'serviceMonitor/monitoring/kueue-ray-controller/0']);
    expect(configs.map((c) => c.kubernetes_sd_configs[0].namespaces.names))
      .toEqual([['kueue-system'], ['kuberay-system'], ['cdk8s-kueue-ray-system']]);
  });

  test('job is the Service name and namespace the target\'s, as prometheus-operator sets them', () => {
    for (const c of configs) {
      const rel = c.relabel_configs;
      expect(rel[rel.length - 1]).toEqual({ source_labels: ['__meta_kubernetes_service_name'], target_label: 'job' });
      expect(rel).toContainEqual({ source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' });
    }
    // The ServiceMonitor's own relabeling keeps only the metrics Service (snake-cased fields).
    expect(byName('kueue-ray-kueue').relabel_configs).toContainEqual(
      { source_labels: ['__meta_kubernetes_service_name'], regex: 'kueue-controller-manager-metrics-service', action: 'keep' });
    expect(byName('kueue-ray-kueue').relabel_configs).toContainEqual(
      { source_labels: ['__meta_kubernetes_service_label_control_plane'], regex: 'controller-manager', action: 'keep' });
    expect(byName('kueue-ray-controller').relabel_configs).toContainEqual(
      { source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: 'metrics', action: 'keep' });
  });

  test('Kueue over HTTPS with the mounted token; KubeRay keeps its own namespace label', () => {
    expect(byName('kueue-ray-kueue')).toMatchObject({ scheme: 'https', tls_config: { insecure_skip_verify: true },
      authorization: { type: 'Bearer', credentials_file: '/var/run/secrets/kueue-metrics/token' } });
    expect(byName('kueue-ray-kuberay-operator')).toMatchObject({ scheme: 'http', honor_labels: true, metrics_path: '/metrics' });
    expect(byName('kueue-ray-controller').honor_labels).toBe(false);
  });

  test('refuses what it does not translate, naming the ServiceMonitor and the field', () => {
    expect(() => scrapeConfigs(monitors, {})).toThrow(/ServiceMonitor monitoring\/kueue-ray-kueue: spec.endpoints\[0\].authorization reads Secret kueue-ray-kueue-metrics, which is not mounted/);
    const withBasicAuth = { ...monitors[1], spec: { ...monitors[1].spec, endpoints: [{ ...monitors[1].spec.endpoints[0], basicAuth: {} }] } };
    expect(() => scrapeConfigs([withBasicAuth], SECRETS)).toThrow(/kueue-ray-kuberay-operator: spec.endpoints\[0\].basicAuth is not translated/);
    const anyNamespace = { ...monitors[1], spec: { ...monitors[1].spec, namespaceSelector: { any: true } } };
    expect(() => scrapeConfigs([anyNamespace], SECRETS)).toThrow(/matchNames is empty/);
  });

  test('the Prometheus objects mount each Secret where the scrape config reads it, and load the rule file', () => {
    const objs = prometheusObjects({ namespace: 'monitoring', image: 'quay.io/prometheus/prometheus:v3.16.0', scrapeConfigs: configs,
      ruleGroups: obs.prometheusRule.toJson().spec.groups, secrets: SECRETS, interval: '5s' });
    const deploy = objs.find((o) => o.kind === 'Deployment')!;
    const pod = deploy.spec.template.spec;
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'secret-0', mountPath: '/var/run/secrets/kueue-metrics', readOnly: true });
    expect(pod.volumes).toContainEqual({ name: 'secret-0', secret: { secretName: 'kueue-ray-kueue-metrics' } });
    const cm = objs.find((o) => o.kind === 'ConfigMap')!;
    expect(JSON.parse(cm.data['prometheus.yml']).global).toEqual({ scrape_interval: '5s', evaluation_interval: '5s' });
    expect(JSON.parse(cm.data['rules.yml']).groups.map((g: any) => g.name)).toEqual(['kueue-ray.queues', 'kueue-ray.components']);
  });
});

describe('the examples app with observability (EXAMPLES_OBSERVABILITY)', () => {
  test('adds the chart, last, with the pending alert after the given seconds; without it there is no such chart', () => {
    const withObs = examples({ scenarios: ['queues'], observability: { pendingFor: Duration.seconds(15) } });
    // Not instanceof: Chart answers it for every chart.
    const isObs = (c: unknown): c is QueueObservability => QueueObservability.prototype.isPrototypeOf(c as object);
    const charts = withObs.node.children.filter(isObs);
    expect(charts).toHaveLength(1);
    expect(withObs.node.children[withObs.node.children.length - 1]).toBe(charts[0]);
    const pending = charts[0].prometheusRule.toJson().spec.groups[0].rules.find((r: any) => r.alert === 'KueueRayWorkloadsPending');
    expect(pending).toMatchObject({ for: '15s', expr: expect.stringContaining('cluster_queue="cluster-queue"') });
    expect(examples({ scenarios: ['queues'] }).node.children.some(isObs)).toBe(false);
  });
});
