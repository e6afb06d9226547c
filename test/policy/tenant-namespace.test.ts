// The pure rules behind a tenant namespace: the ResourceQuota backstop (the most the tenant can ever be
// admitted), the NetworkPolicies around its Ray pods, the integrations that queue its other workloads,
// and when Ray's token authentication can be on.
import * as fs from 'fs';
import * as path from 'path';
import type { ClusterQueueEntry, Inventory } from '../../src/policy/context';
import { parseQuantity } from '../../src/policy/quantity';
import { tokenAuthUnsupported } from '../../src/policy/rules/kuberay-cluster';
import {
  kueueManagedNamespaceSelector, KUEUE_MANAGED_NAMESPACE_LABEL, MANAGED_NAMESPACE_FRAMEWORKS, RAY_PORTS, tenantAdmissionCeiling,
  tenantNetworkPolicies, tenantResourceQuotaHard,
} from '../../src/policy/tenant-namespace';
import { kubeRayCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { vendorDir } from '../support/upstream';

const q = (resource: string, nominal: string, more: { borrowingLimit?: string; lendingLimit?: string } = {}) => ({
  resource, nominal: parseQuantity(nominal),
  ...(more.borrowingLimit !== undefined ? { borrowingLimit: parseQuantity(more.borrowingLimit) } : {}),
  ...(more.lendingLimit !== undefined ? { lendingLimit: parseQuantity(more.lendingLimit) } : {}),
});
const cq = (name: string, cohort: string | undefined, flavors: Array<{ flavor: string; resources: any[] }>): ClusterQueueEntry => ({
  name, cohort, namespaceSelector: {}, resourceGroups: [{ coveredResources: [...new Set(flavors.flatMap((f) => f.resources.map((r) => r.resource)))],
    flavors }],
});
const inventory = (clusterQueues: ClusterQueueEntry[], cohorts: Inventory['cohorts'] = []): Inventory => ({
  localQueues: [], clusterQueues, cohorts, priorityClasses: [], namespaces: [],
} as unknown as Inventory);

describe('tenantAdmissionCeiling / tenantResourceQuotaHard', () => {
  test('outside a cohort the cap is the nominal quota (a borrowing limit means nothing there)', () => {
    const own = cq('a', undefined, [{ flavor: 'f', resources: [q('cpu', '4', { borrowingLimit: '2' }), q('memory', '8Gi')] }]);
    expect(tenantResourceQuotaHard(own, inventory([own]))).toEqual({ 'requests.cpu': '4', 'requests.memory': '8Gi' });
  });

  test('in a cohort: nominal plus the borrowing limit, summed over flavors', () => {
    const own = cq('a', 'org', [
      { flavor: 'on-demand', resources: [q('cpu', '4', { borrowingLimit: '2' }), q('memory', '8Gi', { borrowingLimit: '8Gi' })] },
      { flavor: 'spot', resources: [q('cpu', '1.5', { borrowingLimit: '500m' }), q('memory', '2Gi')] },
    ]);
    // The lender holds less than team a's borrowing limits: the limit still counts (other members may be defined elsewhere).
    const lender = cq('b', 'org', [{ flavor: 'on-demand', resources: [q('cpu', '1'), q('memory', '1Gi')] }]);
    const ceiling = tenantAdmissionCeiling(own, inventory([own, lender]));
    expect(ceiling.get('cpu')).toBe(parseQuantity('8')); // 4 + 2 + 1.5 + 0.5
    // spot memory has no borrowing limit: nominal plus what the cohort lends on spot (nothing).
    expect(tenantResourceQuotaHard(own, inventory([own, lender]))).toEqual({ 'requests.cpu': '8', 'requests.memory': '18Gi' });
  });

  test('in a cohort without a borrowing limit the cohort\'s total is the bound (lenders\' lending limits and the cohort\'s own quota)', () => {
    const own = cq('a', 'org', [{ flavor: 'f', resources: [q('cpu', '4'), q('nvidia.com/gpu', '1'), q('pods', '10')] }]);
    const b = cq('b', 'org', [{ flavor: 'f', resources: [q('cpu', '4', { lendingLimit: '3' }), q('nvidia.com/gpu', '2'), q('pods', '5')] }]);
    const c = cq('c', 'org', [{ flavor: 'f', resources: [q('cpu', '2')] }]);
    const elsewhere = cq('d', 'other', [{ flavor: 'f', resources: [q('cpu', '100')] }]);
    const cohorts = [{ name: 'org', resourceGroups: [{ coveredResources: ['cpu'], flavors: [{ flavor: 'f', resources: [q('cpu', '1')] }] }] }];
    expect(tenantResourceQuotaHard(own, inventory([own, b, c, elsewhere], cohorts as any))).toEqual({
      'requests.cpu': '10', // 4 + 3 (b lends at most 3) + 2 + 1 (the cohort's own)
      'pods': '15',
      'requests.nvidia.com/gpu': '3',
    });
  });
});

describe('tenantNetworkPolicies', () => {
  const input = { namespace: 'team-a', operatorNamespace: 'ray-ops', operatorPodLabels: { 'app.kubernetes.io/name': 'kuberay-operator' },
    metricsScraperNamespaces: ['monitoring'] };

  test('Ray pods: own namespace on any port, the operator on the dashboard, Prometheus on the metrics port; serve pods on 8000 from anywhere', () => {
    const [ray, serve] = tenantNetworkPolicies(input);
    expect(ray.metadata).toEqual({ name: 'tenant-ray-pods', namespace: 'team-a' });
    expect(ray.spec.podSelector).toEqual({ matchExpressions: [{ key: 'ray.io/node-type', operator: 'Exists' }] });
    expect(ray.spec.policyTypes).toEqual(['Ingress']);
    expect(ray.spec.ingress).toEqual([
      { from: [{ podSelector: {} }] },
      { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ray-ops' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'kuberay-operator' } } }], ports: [{ port: 8265, protocol: 'TCP' }] },
      { from: [{ namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['monitoring'] }] } }],
        ports: [{ port: 8080, protocol: 'TCP' }] },
    ]);
    // None of the ports another tenant attacked (GCS, client) is open beyond the namespace.
    const opened = ray.spec.ingress.slice(1).flatMap((r: any) => r.ports.map((p: any) => p.port));
    expect(opened).not.toContain(RAY_PORTS.gcs);
    expect(opened).not.toContain(RAY_PORTS.client);
    expect(serve.spec).toEqual({ podSelector: { matchLabels: { 'ray.io/serve': 'true' } }, policyTypes: ['Ingress'],
      ingress: [{ ports: [{ port: 8000, protocol: 'TCP' }] }] });
  });

  test('no scraper namespaces: no metrics rule', () => {
    const [ray] = tenantNetworkPolicies({ ...input, metricsScraperNamespaces: [] });
    expect(ray.spec.ingress).toHaveLength(2);
    expect(JSON.stringify(ray.spec.ingress)).not.toContain('8080');
  });
});

describe('managed namespaces', () => {
  test('the selector matches the label, and only it', () => {
    expect(kueueManagedNamespaceSelector()).toEqual({ matchLabels: { [KUEUE_MANAGED_NAMESPACE_LABEL]: 'true' } });
  });

  // The vendored releases' own Configuration names each integration (listed, or commented out on 0.13 and 0.14).
  const vendor = vendorDir();
  const supported: readonly string[] = SUPPORTED_KUEUE_VERSIONS;
  const vendored = vendor ? fs.readdirSync(path.join(vendor, 'kueue')).filter((v) => supported.includes(v)) : [];
  test.each(vendored.length ? vendored : ['(no vendor dir)'])('Kueue %s has every integration a managed namespace turns on', (v) => {
    if (!vendor) throw new Error('needs ../shared/vendor (set KUEUE_RAY_VENDOR_DIR)');
    const text = fs.readFileSync(path.join(vendor, 'kueue', v, 'config', 'components', 'manager', 'controller_manager_config.yaml'), 'utf8');
    for (const f of MANAGED_NAMESPACE_FRAMEWORKS) expect(text).toMatch(new RegExp(`^\\s*#?\\s*- "${f.replace('/', '\\/')}"`, 'm'));
  });
});

describe('tokenAuthUnsupported', () => {
  test('needs KubeRay with authOptions and Ray 2.52.0 or later', () => {
    expect(tokenAuthUnsupported(kubeRayCapabilities('v1.4.2'), '2.52.0')).toMatch(/KubeRay v1.4.2 has no authOptions/);
    expect(tokenAuthUnsupported(kubeRayCapabilities('v1.6.2'), '2.46.0')).toMatch(/Ray 2.46.0 has no token authentication \(Ray 2.52.0 or later/);
    expect(tokenAuthUnsupported(kubeRayCapabilities('v1.6.2'), 'nightly')).toMatch(/not a version/);
    expect(tokenAuthUnsupported(kubeRayCapabilities('v1.5.2'), '2.52.0')).toBeUndefined();
    expect(tokenAuthUnsupported(kubeRayCapabilities('v1.6.2'), '2.53.1')).toBeUndefined();
  });
});
