/** How the controller is reached: its Service (webhook and metrics ports) and the NetworkPolicy that limits who reaches it. */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ControllerSettings, controllerMeta, controllerSelector, METRICS_PORT, NAME, PORT } from './settings';

// Raw ApiObjects: cdk8s-plus-28's Service and NetworkPolicy add fields (type, policy rule shapes) the chart does not set.

/** Creates the Service and, unless turned off, the NetworkPolicy. */
export function controllerNetwork(scope: Construct, s: ControllerSettings): void {
  new ApiObject(scope, 'service', {
    apiVersion: 'v1', kind: 'Service', metadata: controllerMeta(s, NAME),
    spec: {
      selector: controllerSelector(),
      ports: [
        { name: 'webhook', port: 443, targetPort: 'webhook', protocol: 'TCP' },
        { name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' },
      ],
    },
  });
  const np = s.networkPolicy;
  if (!np) return;
  // Ingress only; egress stays open (the API server's address is cluster-specific). Kubelet probes
  // come from the pod's own node, which NetworkPolicies do not block.
  const scrapers = np.metricsScraperNamespaces;
  new ApiObject(scope, 'network-policy', {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: controllerMeta(s, NAME),
    spec: {
      podSelector: { matchLabels: controllerSelector() },
      policyTypes: ['Ingress'],
      ingress: [
        {
          ports: [{ port: PORT, protocol: 'TCP' }],
          ...(np.webhookSourceCidrs ? { from: np.webhookSourceCidrs.map((cidr) => ({ ipBlock: { cidr } })) } : {}),
        },
        ...(scrapers.length ? [{
          ports: [{ port: METRICS_PORT, protocol: 'TCP' }],
          from: [{ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...scrapers] }] } }],
        }] : []),
      ],
    },
  });
}
