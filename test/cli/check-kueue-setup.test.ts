// check on Kueue's own objects and Configuration (issue 44, item 4): on plain YAML as written, each silent
// misconfiguration is a finding at its line, with its rule described in SARIF; a Configuration Kueue refuses is noted.
import { parseCheckArgs, runCheck } from '../../src/cli/check';
import { RULE_DESCRIPTIONS } from '../../src/cli/rule-descriptions';
import { renderSarif } from '../../src/cli/sarif';
import { tmpFiles } from '../support/synth';

const INSTALL = (config: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
${config.split('\n').map((l) => `    ${l}`).join('\n')}
`;
const CONFIG = `apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
fairSharing:
  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]
admissionFairSharing:
  usageHalfLifeTime: 0s
  usageSamplingInterval: 5m`;
const QUEUES = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec: {topologyName: default, nodeLabels: {pool: tas}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: default}
spec:
  levels:
  - nodeLabel: cloud.example.com/rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: borrower}
spec:
  namespaceSelector: {}
  cohortName: research
  fairSharing: {weight: "0"}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: tas
      resources:
      - {name: cpu, nominalQuota: "0"}
      - {name: memory, nominalQuota: 64Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: borrower}
`;
const JOB = `apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: train
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  entrypoint: python train.py
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        metadata:
          annotations: {kueue.x-k8s.io/podset-required-topology: cloud.example.com/block}
        spec:
          containers:
          - {name: ray-head, image: rayproject/ray:2.46.0, resources: {requests: {cpu: "1", memory: 1Gi}}}
`;

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

async function check(files: Record<string, string>) {
  const opts = parseCheckArgs([tmpFiles(files), '--kueue-version', 'v0.19.2', '-o', 'json']);
  if (opts === 'help') throw new Error('help');
  return runCheck(opts);
}

test('each misconfiguration is a finding at its line: the half-life, the weight, the level', async () => {
  const report = await check({ 'install.yaml': INSTALL(CONFIG), 'queues.yaml': QUEUES, 'job.yaml': JOB });
  const ours = report.findings.filter((f) => ['admissionFairSharingHalfLife', 'fairSharingZeroWeight', 'tasFlavorTopology',
    'podSetTopologyLevel'].includes(f.rule));
  expect(ours.map((f) => [f.rule, f.severity, f.location.file.split('/').pop(), f.location.line])).toEqual([
    // Inside the embedded Configuration text: on its own line.
    ['admissionFairSharingHalfLife', 'warning', 'install.yaml', lineOf(INSTALL(CONFIG), 'usageHalfLifeTime')],
    ['podSetTopologyLevel', 'error', 'job.yaml', lineOf(JOB, 'podset-required-topology')],
    ['fairSharingZeroWeight', 'warning', 'queues.yaml', lineOf(QUEUES, 'weight')],
  ]);
  const afs = ours[0].location;
  const line = INSTALL(CONFIG).split('\n')[afs.line - 1];
  expect([afs.exact, afs.resolvedField, afs.column]).toEqual([true,
    'data[controller_manager_config.yaml].admissionFairSharing.usageHalfLifeTime', line.indexOf('usageHalfLifeTime') + 1]);
  // Every rule has its line in SARIF's rule metadata.
  const sarif = JSON.parse(renderSarif(report));
  const described = sarif.runs[0].tool.driver.rules.map((r: any) => r.id);
  for (const f of ours) {
    expect(described).toContain(f.rule);
    expect(RULE_DESCRIPTIONS[f.rule]).toBeDefined();
  }
});

test('a Topology missing from the files is a warning on the flavor; a fixed file set is clean', async () => {
  const noTopology = QUEUES.split('---\n').filter((d) => !d.includes('kind: Topology')).join('---\n');
  const missing = await check({ 'queues.yaml': noTopology, 'job.yaml': JOB });
  expect(missing.findings.filter((f) => f.rule === 'tasFlavorTopology').map((f) => [f.severity, f.location.line]))
    .toEqual([['warning', lineOf(noTopology, 'topologyName')]]);
  const fixed = await check({ 'install.yaml': INSTALL(CONFIG.replace('0s', '168h')),
    'queues.yaml': QUEUES.replace('weight: "0"', 'weight: "0.1"'), 'job.yaml': JOB.replace('cloud.example.com/block', 'cloud.example.com/rack') });
  expect(fixed.findings.filter((f) => f.source === 'kueue-workload' && /HalfLife|ZeroWeight|Topology/.test(f.rule))).toEqual([]);
});

test('a Configuration Kueue refuses at start-up is noted, and the object rules still run', async () => {
  const report = await check({ 'install.yaml': INSTALL(CONFIG.replace('usageHalfLifeTime: 0s', 'usageHalfLifeTime: soon')),
    'queues.yaml': QUEUES, 'job.yaml': JOB });
  expect(report.notes.some((n) => /admissionFairSharing\.usageHalfLifeTime: "soon" is not a duration; Kueue v0\.19\.2 refuses/.test(n)))
    .toBe(true);
  expect(report.findings.map((f) => f.rule)).toContain('podSetTopologyLevel');
  expect(report.findings.map((f) => f.rule)).not.toContain('admissionFairSharingHalfLife');
});

test('files of Kueue objects alone are checked (no Ray object is not a usage error then), and a note says so', async () => {
  const report = await check({ 'install.yaml': INSTALL(CONFIG), 'queues.yaml': QUEUES });
  expect(report.findings.map((f) => f.rule).filter((r) => /HalfLife|ZeroWeight/.test(r))).toEqual(['admissionFairSharingHalfLife',
    'fairSharingZeroWeight']);
  expect(report.notes).toContain('no Ray object in the files: their 4 Kueue objects were checked, and the Kueue Configuration if the files '
    + 'install it');
  expect(report.summary.objects).toBe(0);
});
