/**
 * prometheus-operator ServiceMonitors for the three components, each scraped the way it serves /metrics:
 * Kueue on its `https` port behind authentication and authorization (a bearer token allowed `get` on
 * /metrics, with a certificate it signs itself), the KubeRay operator and the controller in plain HTTP
 * on their own ports.
 */
import type { ApiObjectProps } from 'cdk8s';
import { ScrapedComponent } from './model';

/** The Service Kueue's release serves its metrics from (same name in every supported release). */
export const KUEUE_METRICS_SERVICE = 'kueue-controller-manager-metrics-service';
/** The ClusterRole Kueue's release grants `get` on /metrics with. */
export const KUEUE_METRICS_READER_ROLE = 'kueue-metrics-reader';
export const MONITORING_API = 'monitoring.coreos.com/v1';

/** Where each component's Service is found: its selector labels and metrics port name. */
const TARGETS: Record<ScrapedComponent['component'], { selector: Record<string, string>; port: string }> = {
  // Both labels are on the metrics Service of every release (v0.13's has component "controller", later ones "metrics-service").
  'kueue': { selector: { 'app.kubernetes.io/name': 'kueue', 'control-plane': 'controller-manager' }, port: 'https' },
  'kuberay-operator': { selector: { 'app.kubernetes.io/name': 'kuberay-operator' }, port: 'http' },
  'controller': { selector: { 'app.kubernetes.io/name': 'cdk8s-kueue-ray-controller' }, port: 'metrics' },
};

export interface ServiceMonitorOptions {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Record<string, string>;
  /** The Secret (in `namespace`) holding the token Kueue accepts, under key "token". */
  readonly kueueTokenSecret: string;
}

/** The ServiceMonitor of one component. */
export function serviceMonitor(c: ScrapedComponent, o: ServiceMonitorOptions): ApiObjectProps {
  const target = TARGETS[c.component];
  const endpoint: Record<string, unknown> = { port: target.port, path: '/metrics' };
  if (c.component === 'kueue') {
    Object.assign(endpoint, {
      scheme: 'https',
      authorization: { type: 'Bearer', credentials: { name: o.kueueTokenSecret, key: 'token' } },
      // Kueue's metrics certificate is self-signed unless its cert-manager patch is applied: encrypted, not authenticated.
      tlsConfig: { insecureSkipVerify: true },
    });
  } else {
    endpoint.scheme = 'http';
  }
  // KubeRay's series carry the RayJob's own `namespace`, which must win over the target's (as KubeRay's chart sets it).
  if (c.component === 'kuberay-operator') endpoint.honorLabels = true;
  // Other Services of the release carry the same labels (the webhook's): keep only the metrics Service.
  endpoint.relabelings = [{ sourceLabels: ['__meta_kubernetes_service_name'], regex: c.service, action: 'keep' }];
  return {
    apiVersion: MONITORING_API, kind: 'ServiceMonitor',
    metadata: { name: o.name, namespace: o.namespace, labels: { ...o.labels } },
    spec: {
      selector: { matchLabels: { ...target.selector } },
      namespaceSelector: { matchNames: [c.namespace] },
      endpoints: [endpoint],
    },
  };
}

/**
 * A ServiceAccount whose token Kueue accepts for /metrics: bound to the release's metrics-reader
 * ClusterRole, with a long-lived token Secret the ServiceMonitor references (prometheus-operator reads
 * Secrets from the ServiceMonitor's namespace only).
 */
export function kueueScraperIdentity(name: string, namespace: string, labels: Record<string, string>): ApiObjectProps[] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels: { ...labels } } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name, labels: { ...labels } },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: KUEUE_METRICS_READER_ROLE },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
    {
      apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token',
      metadata: { name, namespace, labels: { ...labels }, annotations: { 'kubernetes.io/service-account.name': name } },
    },
  ];
}
