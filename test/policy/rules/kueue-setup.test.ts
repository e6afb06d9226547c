// The rules on Kueue's own objects and Configuration (issue 44, item 4): each silent misconfiguration is found, named
// on its object and field, and its neighbours that Kueue runs as meant are not.
import { kueueConfigOf, KueueConfig } from '../../../src/policy/plan';
import { KUEUE_SETUP_RULES, kueueSetupFindings } from '../../../src/policy/rules/kueue-setup';
import { kueueCapabilities } from '../../../src/policy/versions';
import { kueueSetupInput } from '../../support/kueue-setup-input';

const KUEUE = kueueCapabilities('v0.19.2');
const API = 'kueue.x-k8s.io/v1beta2';

const configMap = (config: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kueue-manager-config', namespace: 'kueue-system' },
  data: { 'controller_manager_config.yaml': config } });
const configOf = (text: string): KueueConfig => kueueConfigOf({ config: text, where: 'test' }, KUEUE);
const cq = (name: string, spec: Record<string, unknown>) => ({ apiVersion: API, kind: 'ClusterQueue', metadata: { name }, spec });
const quotas = (flavor: string, cpu: string, gpu?: string) => ({
  resourceGroups: [{ coveredResources: ['cpu', ...(gpu !== undefined ? ['nvidia.com/gpu'] : [])], flavors: [{ name: flavor, resources: [
    { name: 'cpu', nominalQuota: cpu }, ...(gpu !== undefined ? [{ name: 'nvidia.com/gpu', nominalQuota: gpu }] : [])] }] }],
});
const flavor = (name: string, topologyName?: string, nodeLabels?: Record<string, string>) => ({ apiVersion: API, kind: 'ResourceFlavor',
  metadata: { name }, spec: { ...(topologyName ? { topologyName } : {}), ...(nodeLabels ? { nodeLabels } : {}) } });
const topology = (name: string, levels: string[]) => ({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'Topology', metadata: { name },
  spec: { levels: levels.map((nodeLabel) => ({ nodeLabel })) } });
const node = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
const FS_ON = `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing:
  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
`;

const rules = (objects: unknown[], config?: KueueConfig) => kueueSetupFindings(kueueSetupInput(objects, config))
  .map((p) => [p.index, p.finding.rule, p.finding.severity, p.finding.field]);

describe('admission fair sharing with usageHalfLifeTime 0s', () => {
  const afs = (halfLife: string) => `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
admissionFairSharing:
  usageHalfLifeTime: ${halfLife}
  usageSamplingInterval: 5m
`;
  const usesAfs = cq('team', { ...quotas('f', '8'), admissionScope: { admissionMode: 'UsageBasedAdmissionFairSharing' } });

  test.each([
    ['0s: a warning on the ConfigMap\'s field', afs('0s'), [[0, 'admissionFairSharingHalfLife', 'warning',
      'data[controller_manager_config.yaml].admissionFairSharing.usageHalfLifeTime']]],
    ['168h: none', afs('168h'), []],
    ['no section: none', 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n', []],
  ])('%s', (_name, text, want) => {
    expect(rules([configMap(text), usesAfs], configOf(text))).toEqual(want);
  });

  test('the message names the ClusterQueues that ask for it, the issue and the fix', () => {
    const [f] = kueueSetupFindings(kueueSetupInput([configMap(afs('0s')), usesAfs], configOf(afs('0s'))));
    expect(f.finding.object).toBe('ConfigMap kueue-system/kueue-manager-config');
    expect(f.finding.message).toMatch(/ClusterQueue "team" \(admissionMode UsageBasedAdmissionFairSharing\).*kueue#11134/);
    expect(f.finding.fix).toMatch(/168h/);
  });

  test('the gate off: the section does nothing, and no finding', () => {
    const text = `${afs('0s')}featureGates:\n  AdmissionFairSharing: false\n`;
    expect(rules([configMap(text)], configOf(text))).toEqual([]);
  });
});

describe('fair-sharing weight 0 on a ClusterQueue that must borrow', () => {
  const weighted = (weight: unknown, cpu: string, gpu?: string, cohortName: string | undefined = 'research') =>
    cq('borrower', { ...quotas('f', cpu, gpu), ...(cohortName ? { cohortName } : {}), fairSharing: { weight } });

  test.each([
    ['weight 0, no nominal GPU: a warning naming the GPU', weighted('0', '8', '0'), FS_ON, [[0, 'fairSharingZeroWeight', 'warning',
      'spec.fairSharing.weight']]],
    ['weight 0 as a number, no nominal CPU', weighted(0, '0'), FS_ON, [[0, 'fairSharingZeroWeight', 'warning', 'spec.fairSharing.weight']]],
    ['weight 0 with nominal quota of everything: none', weighted('0', '8', '2'), FS_ON, []],
    ['weight 0.1: none', weighted('0.1', '0'), FS_ON, []],
    ['weight 0 outside a cohort (nothing to borrow from, nothing to rank against): none', weighted('0', '0', undefined, ''), FS_ON, []],
    ['fair sharing off: the weight is not read, none', weighted('0', '0'), undefined, []],
  ])('%s', (_name, queue, text, want) => {
    expect(rules([queue], text ? configOf(text) : undefined)).toEqual(want);
  });

  test('the message says why and the fix keeps it last without starving it', () => {
    const [f] = kueueSetupFindings(kueueSetupInput([weighted('0', '8', '0')], configOf(FS_ON)));
    expect(f.finding.message).toMatch(/no nominal quota of nvidia\.com\/gpu.*the first preempted/);
    expect(f.finding.fix).toMatch(/0\.1/);
  });
});

describe('a TAS flavor: its Topology, and the Nodes that serve it', () => {
  const LEVELS = ['cloud.example.com/block', 'cloud.example.com/rack', 'kubernetes.io/hostname'];
  const full = { 'cloud.example.com/block': 'b1', 'cloud.example.com/rack': 'r1', 'kubernetes.io/hostname': 'n1', 'pool': 'gpu' };
  const noRack = { 'cloud.example.com/block': 'b1', 'kubernetes.io/hostname': 'n2', 'pool': 'gpu' };

  test.each([
    ['no such Topology in the files: a warning', [flavor('tas', 'default')], [[0, 'tasFlavorTopology', 'warning', 'spec.topologyName']]],
    ['the Topology, no Nodes in the files: none', [flavor('tas', 'default'), topology('default', LEVELS)], []],
    ['a Node carries every level: none', [flavor('tas', 'default'), topology('default', LEVELS), node('n1', full), node('n2', noRack)], []],
    ['no Node carries the rack level: an error', [flavor('tas', 'default'), topology('default', LEVELS), node('n2', noRack)],
      [[0, 'tasFlavorTopology', 'error', 'spec.topologyName']]],
    ['the Nodes with every level lack the flavor\'s nodeLabels: an error',
      [flavor('tas', 'default', { pool: 'tpu' }), topology('default', LEVELS), node('n1', full)], [[0, 'tasFlavorTopology', 'error',
        'spec.topologyName']]],
    ['a flavor without topologyName: none', [flavor('plain')], []],
  ])('%s', (_name, objects, want) => {
    expect(rules(objects)).toEqual(want);
  });

  test('the error names the level no node carries', () => {
    const [f] = kueueSetupFindings(kueueSetupInput([flavor('tas', 'default'), topology('default', LEVELS), node('n2', noRack)]));
    expect(f.finding.message).toMatch(/of the 1 Nodes, 1 carry the flavor's nodeLabels.*\(cloud\.example\.com\/rack on none\)/);
  });
});

describe('a Ray pod template\'s TAS annotation naming a level its flavors\' Topology lacks', () => {
  const LEVELS = ['cloud.example.com/rack', 'kubernetes.io/hostname'];
  const job = (annotations: Record<string, string>, queue = 'lq') => ({
    apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name: 'train', namespace: 'team', labels: { 'kueue.x-k8s.io/queue-name': queue } },
    spec: { entrypoint: 'python train.py', rayClusterSpec: {
      headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ name: 'ray-head', image: 'rayproject/ray:2.46.0' }] } } },
      workerGroupSpecs: [{ groupName: 'gpu', replicas: 2, rayStartParams: {},
        template: { metadata: { annotations }, spec: { containers: [{ name: 'ray-worker', image: 'rayproject/ray:2.46.0' }] } } }],
    } },
  });
  const chain = [
    { apiVersion: API, kind: 'LocalQueue', metadata: { name: 'lq', namespace: 'team' }, spec: { clusterQueue: 'cq' } },
    cq('cq', quotas('tas', '64')), flavor('tas', 'default'), topology('default', LEVELS),
  ];
  const FIELD = 'spec.rayClusterSpec.workerGroupSpecs[0].template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]';

  test.each([
    ['a level of the Topology: none', { 'kueue.x-k8s.io/podset-required-topology': 'cloud.example.com/rack' }, chain, []],
    ['a level the Topology lacks: an error on the annotation', { 'kueue.x-k8s.io/podset-required-topology': 'cloud.example.com/block' }, chain,
      [[4, 'podSetTopologyLevel', 'error', FIELD]]],
    ['the preferred annotation too', { 'kueue.x-k8s.io/podset-preferred-topology': 'zone' }, chain,
      [[4, 'podSetTopologyLevel', 'error', FIELD.replace('required', 'preferred')]]],
    ['the Topology not in the files: not judged here (tasFlavorTopology warns)', { 'kueue.x-k8s.io/podset-required-topology': 'zone' },
      chain.slice(0, 3), [[2, 'tasFlavorTopology', 'warning', 'spec.topologyName']]],
    ['the queue not in the files: not judged', { 'kueue.x-k8s.io/podset-required-topology': 'zone' }, chain.slice(1), []],
  ])('%s', (_name, annotations, objects, want) => {
    expect(rules([...objects, job(annotations)])).toEqual(want);
  });

  test('the message gives Kueue\'s pending message and the levels there are', () => {
    const found = kueueSetupFindings(kueueSetupInput([...chain, job({ 'kueue.x-k8s.io/podset-required-topology': 'zone' })]));
    expect(found[0].finding.message).toMatch(/levels: cloud\.example\.com\/rack, kubernetes\.io\/hostname.*Kueue: Flavor "tas" does not contain the requested level/);
  });
});

test('each rule has a name, a description and the source that acts on it', () => {
  for (const r of KUEUE_SETUP_RULES) {
    expect(r.name).toMatch(/^[a-z][A-Za-z]+$/);
    expect(r.description.length).toBeGreaterThan(40);
    expect(r.source).toBe('kueue-workload');
  }
});
