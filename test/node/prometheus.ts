/**
 * Prometheus on the real node as a kube-prometheus user runs it: prometheus-operator (its CRDs, RBAC and
 * Deployment read from the pinned module's own example/, the binaries built from the same version by
 * scripts/testcluster/build.sh) and a `Prometheus` that selects QueueObservability's ServiceMonitors and
 * PrometheusRule as they were synthesized. The operator writes the scrape config, reads the Kueue token
 * Secret the ServiceMonitor names, and loads the rules: nothing here translates them.
 */
import * as http from 'http';
import { parseAllDocuments } from 'yaml';
import { prometheusOperatorVersion } from '../../scripts/cluster/images';
import { PROMETHEUS_OPERATOR_CRDS, readPrometheusOperatorCrd, readPrometheusOperatorFile } from '../support/upstream';

/** The operator's example manifests this suite applies (its own ServiceMonitor is left out: nothing scrapes the operator). */
const OPERATOR_FILES = ['service-account', 'cluster-role', 'cluster-role-binding', 'deployment', 'service']
  .map((f) => `example/rbac/prometheus-operator/prometheus-operator-${f}.yaml`);

const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJSON()).filter(Boolean);

/** Every monitoring.coreos.com CRD of the pinned version (applied server-side: several are past the annotation limit). */
export async function operatorCrds(): Promise<Record<string, any>[]> {
  return (await Promise.all(PROMETHEUS_OPERATOR_CRDS.map(readPrometheusOperatorCrd))).flatMap(docs);
}

/**
 * The operator's example RBAC, Deployment and Service, moved from `default` to `namespace`. One change to the
 * Deployment, for the one small node: its CPU request is 10m (upstream asks 100m, which the guide's Ray pods
 * need). Its config-reloader image must be the one the node serves: checked, not rewritten.
 */
export async function operatorObjects(namespace: string): Promise<Record<string, any>[]> {
  const objects = (await Promise.all(OPERATOR_FILES.map(readPrometheusOperatorFile))).flatMap(docs);
  for (const o of objects) {
    if (o.metadata.namespace) o.metadata.namespace = namespace;
    for (const s of o.subjects ?? []) if (s.namespace) s.namespace = namespace;
    if (o.kind !== 'Deployment') continue;
    const c = o.spec.template.spec.containers[0];
    const reloader = `quay.io/prometheus-operator/prometheus-config-reloader:${prometheusOperatorVersion()}`;
    if (!c.args.includes(`--prometheus-config-reloader=${reloader}`)) {
      throw new Error(`prometheus-operator's example Deployment no longer runs the config-reloader ${reloader}: update test/node/prometheus.ts`);
    }
    c.resources.requests.cpu = '10m';
  }
  return objects;
}

export interface PrometheusSpec {
  readonly namespace: string;
  /** The `Prometheus` object's name (its pod is prometheus-<name>-0). */
  readonly name: string;
  readonly image: string;
  /** Prometheus' version (the image's tag), so the operator writes the config for it. */
  readonly version: string;
  /** Scrape and rule evaluation interval. */
  readonly interval: string;
  /** Selects the ServiceMonitors and PrometheusRules (in `namespace`) by their labels. */
  readonly matchLabels: Record<string, string>;
}

/** The label the operator gives the Prometheus pods, which the Service below selects. */
const INSTANCE_LABEL = 'operator.prometheus.io/name';

/**
 * A `Prometheus` with its identity (the ClusterRole is the operator's example for Prometheus) and a
 * ClusterIP Service, so the suite reaches its HTTP API through the cluster IP.
 */
export function prometheusObjects(p: PrometheusSpec): Record<string, any>[] {
  const md = { name: 'prometheus', namespace: p.namespace, labels: { 'app.kubernetes.io/name': 'prometheus' } };
  const clusterRole = `${p.namespace}-prometheus`;
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: md },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: clusterRole },
      rules: [{ apiGroups: [''], resources: ['services', 'endpoints', 'pods'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
        { nonResourceURLs: ['/metrics'], verbs: ['get'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: clusterRole },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
      subjects: [{ kind: 'ServiceAccount', name: md.name, namespace: p.namespace }] },
    { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', metadata: { name: p.name, namespace: p.namespace }, spec: {
      replicas: 1, image: p.image, version: p.version, serviceAccountName: md.name,
      scrapeInterval: p.interval, evaluationInterval: p.interval,
      serviceMonitorSelector: { matchLabels: p.matchLabels }, ruleSelector: { matchLabels: p.matchLabels },
      resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
      // The node's images run as nonroot (65532); the operator's default is 1000.
      securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 },
    } },
    { apiVersion: 'v1', kind: 'Service', metadata: md,
      spec: { selector: { [INSTANCE_LABEL]: p.name }, ports: [{ name: 'web', port: 9090, targetPort: 'web' }] } },
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
