/**
 * Prometheus on the real node, configured from QueueObservability's ServiceMonitors and PrometheusRule.
 * prometheus-operator is not run (its build, its two extra images and its reconcile loop would cost CI
 * minutes the cold run does not have): scrapeConfigs translates each ServiceMonitor into the scrape
 * config the operator would generate for it, with the same `job` and `namespace` labels.
 */
import * as http from 'http';

/** Where the Prometheus pod has each Secret a ServiceMonitor references mounted: Secret name to folder. */
export type SecretMounts = Record<string, string>;

const SUPPORTED_ENDPOINT_FIELDS = new Set(['port', 'path', 'scheme', 'honorLabels', 'relabelings', 'authorization', 'tlsConfig', 'interval']);

/** The relabeling action names of a ServiceMonitor are Prometheus' own, and so are the fields, in snake case. */
function relabeling(r: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(r)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  return out;
}

/** A Kubernetes label name as a service-discovery meta label suffix. */
const metaName = (label: string) => label.replace(/[^a-zA-Z0-9_]/g, '_');

/**
 * The scrape configs prometheus-operator would write for these ServiceMonitors (role endpoints): keep the
 * selected Services' endpoints on the named port, then the `namespace`, `service`, `pod` and `job` (the
 * Service's name) target labels. Fails on a field it does not translate, naming the ServiceMonitor.
 */
export function scrapeConfigs(serviceMonitors: readonly Record<string, any>[], secrets: SecretMounts, interval = '10s'): Record<string, any>[] {
  return serviceMonitors.flatMap((sm) => {
    const where = `ServiceMonitor ${sm.metadata?.namespace}/${sm.metadata?.name}`;
    if (sm.kind !== 'ServiceMonitor') throw new Error(`${where}: kind ${sm.kind}, not ServiceMonitor`);
    const spec = sm.spec ?? {};
    const namespaces: string[] | undefined = spec.namespaceSelector?.matchNames;
    if (!namespaces?.length) throw new Error(`${where}: spec.namespaceSelector.matchNames is empty; only named namespaces are translated`);
    if (spec.selector?.matchExpressions) throw new Error(`${where}: spec.selector.matchExpressions is not translated; use matchLabels`);
    const selector: Record<string, string> = spec.selector?.matchLabels ?? {};
    return (spec.endpoints as Record<string, any>[]).map((ep, i) => {
      const unknown = Object.keys(ep).filter((k) => !SUPPORTED_ENDPOINT_FIELDS.has(k));
      if (unknown.length) throw new Error(`${where}: spec.endpoints[${i}].${unknown[0]} is not translated`);
      if (typeof ep.port !== 'string') throw new Error(`${where}: spec.endpoints[${i}].port must name the Service's port`);
      const config: Record<string, any> = {
        job_name: `serviceMonitor/${sm.metadata.namespace}/${sm.metadata.name}/${i}`,
        scrape_interval: ep.interval ?? interval,
        metrics_path: ep.path ?? '/metrics',
        scheme: ep.scheme ?? 'http',
        honor_labels: ep.honorLabels ?? false,
        kubernetes_sd_configs: [{ role: 'endpoints', namespaces: { names: [...namespaces] } }],
        relabel_configs: [
          ...Object.entries(selector).map(([k, v]) => ({ source_labels: [`__meta_kubernetes_service_label_${metaName(k)}`], regex: v,
            action: 'keep' })),
          { source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: ep.port, action: 'keep' },
          ...(ep.relabelings ?? []).map(relabeling),
          { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
          { source_labels: ['__meta_kubernetes_service_name'], target_label: 'service' },
          { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
          { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job' },
        ],
      };
      if (ep.tlsConfig) {
        const extra = Object.keys(ep.tlsConfig).filter((k) => k !== 'insecureSkipVerify');
        if (extra.length) throw new Error(`${where}: spec.endpoints[${i}].tlsConfig.${extra[0]} is not translated`);
        config.tls_config = { insecure_skip_verify: !!ep.tlsConfig.insecureSkipVerify };
      }
      if (ep.authorization) {
        const secret = ep.authorization.credentials?.name;
        if (!secret || !secrets[secret]) {
          throw new Error(`${where}: spec.endpoints[${i}].authorization reads Secret ${secret}, which is not mounted in the Prometheus pod`);
        }
        config.authorization = { type: ep.authorization.type ?? 'Bearer',
          credentials_file: `${secrets[secret]}/${ep.authorization.credentials.key}` };
      }
      return config;
    });
  });
}

export interface PrometheusDeployment {
  readonly namespace: string;
  readonly image: string;
  /** prometheus.yml's scrape configs (scrapeConfigs). */
  readonly scrapeConfigs: Record<string, any>[];
  /** The rule groups: a PrometheusRule's spec.groups. */
  readonly ruleGroups: Record<string, any>[];
  readonly secrets: SecretMounts;
  /** Scrape and rule evaluation interval. */
  readonly interval: string;
}

/** Prometheus as a Deployment with its Service, config and the RBAC Kubernetes service discovery needs. */
export function prometheusObjects(p: PrometheusDeployment): Record<string, any>[] {
  const name = 'prometheus';
  const md = { name, namespace: p.namespace, labels: { 'app.kubernetes.io/name': name } };
  const config = { global: { scrape_interval: p.interval, evaluation_interval: p.interval }, rule_files: ['/etc/prometheus/rules.yml'],
    scrape_configs: p.scrapeConfigs };
  const secretVolumes = Object.entries(p.secrets).map(([secret, dir], i) => ({ secret, dir, volume: `secret-${i}` }));
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: md },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `${p.namespace}-${name}` },
      rules: [{ apiGroups: [''], resources: ['services', 'endpoints', 'pods'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${p.namespace}-${name}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${p.namespace}-${name}` },
      subjects: [{ kind: 'ServiceAccount', name, namespace: p.namespace }] },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: md,
      data: { 'prometheus.yml': JSON.stringify(config, null, 1), 'rules.yml': JSON.stringify({ groups: p.ruleGroups }, null, 1) } },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: md, spec: {
      replicas: 1, selector: { matchLabels: md.labels }, template: { metadata: { labels: md.labels }, spec: {
        serviceAccountName: name,
        containers: [{ name, image: p.image,
          args: ['--config.file=/etc/prometheus/prometheus.yml', '--storage.tsdb.path=/prometheus', '--web.listen-address=:9090'],
          ports: [{ name: 'web', containerPort: 9090 }],
          readinessProbe: { httpGet: { path: '/-/ready', port: 9090 }, periodSeconds: 2 },
          resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
          volumeMounts: [{ name: 'config', mountPath: '/etc/prometheus' }, { name: 'data', mountPath: '/prometheus' },
            ...secretVolumes.map((s) => ({ name: s.volume, mountPath: s.dir, readOnly: true }))] }],
        volumes: [{ name: 'config', configMap: { name } }, { name: 'data', emptyDir: {} },
          ...secretVolumes.map((s) => ({ name: s.volume, secret: { secretName: s.secret } }))],
      } } } },
    { apiVersion: 'v1', kind: 'Service', metadata: md, spec: { selector: md.labels, ports: [{ name: 'web', port: 9090, targetPort: 9090 }] } },
  ];
}

/** GET a Prometheus HTTP API path; its `data`, or an error with Prometheus' own message. */
export function promApi(base: string, pathAndQuery: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${pathAndQuery}`, { timeout: 20000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        try {
          const body = JSON.parse(text);
          if (body.status !== 'success') reject(new Error(`Prometheus ${pathAndQuery}: ${body.errorType}: ${body.error}`));
          else resolve(body.data);
        } catch {
          reject(new Error(`Prometheus ${pathAndQuery}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`Prometheus ${pathAndQuery}: no answer in 20 s`)));
    req.on('error', reject);
  });
}

/** An instant query's result vector. */
export async function promQuery(base: string, expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const data = await promApi(base, `/api/v1/query?query=${encodeURIComponent(expr)}`);
  return data.result;
}
