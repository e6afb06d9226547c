// plan reads Kueue's manager Configuration from the files' install (issue 44, stage 1): a note says what is on that the
// plan does not model yet, with the file it came from; a Configuration Kueue refuses at start-up is an error naming the
// field; with fair sharing off nothing changes.
import * as fs from 'fs';
import * as path from 'path';
import { planCommand } from '../../src/cli/plan';
import { tmpdir } from '../support/synth';
import { EXPECTED_DURATION_ANNOTATION, PLAN_ARRIVAL_ANNOTATION } from '../../src/policy';
import { builder, clusterQueue, flavor, localQueue, rayCluster } from '../policy/plan/scenarios';

const QUEUES = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "8"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team}
spec: {clusterQueue: cq}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: rc, namespace: team, labels: {kueue.x-k8s.io/queue-name: lq}}
spec:
  headGroupSpec:
    template: {spec: {containers: [{name: ray-head, image: rayproject/ray:2.46.0, resources: {requests: {cpu: "1"}}}]}}
`;

function manager(config: string, args: string[] = []): string {
  return `apiVersion: v1
kind: ConfigMap
metadata: {name: kueue-manager-config, namespace: kueue-system}
data:
  controller_manager_config.yaml: |
${config.split('\n').map((l) => `    ${l}`).join('\n')}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: kueue-controller-manager, namespace: kueue-system}
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.19.2
        args: ${JSON.stringify(['--config=/controller_manager_config.yaml', ...args])}
`;
}

function files(install: string): { dir: string; file: string } {
  const dir = tmpdir();
  fs.writeFileSync(path.join(dir, '0-kueue.yaml'), install);
  fs.writeFileSync(path.join(dir, '1-queues.yaml'), QUEUES);
  return { dir, file: path.join(dir, '0-kueue.yaml') };
}

const plan = (dir: string) => JSON.parse(planCommand([dir, '--output', 'json']));

test('fair sharing on in the files\' Configuration: a note naming it and the file; the plan itself unchanged', () => {
  const on = files(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n'
    + '  preemptionStrategies: [LessThanInitialShare]'));
  const off = files(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration'));
  const [a, b] = [plan(on.dir), plan(off.dir)];
  const note = `Kueue v0.19.2 configuration read from ${on.file} (ConfigMap kueue-system/kueue-manager-config) and ${on.file} (Deployment `
    + 'kueue-system/kueue-controller-manager): fair sharing on (preemption strategies LessThanInitialShare). The plan orders each cohort\'s heads '
    + 'by fair sharing\'s dominant resource share. Not modelled yet: fair-sharing preemption (the plan preempts by the classical rules); where '
    + 'that decides, Kueue can order and preempt otherwise (docs/plan.md, Simplifications)';
  expect(a.notes).toContain(note);
  expect(b.notes.filter((n: string) => /configuration read from/.test(n))).toEqual([]);
  expect(a.workloads).toEqual(b.workloads);
  expect(a.workloads.map((w: any) => [w.workload, w.outcome])).toEqual([['RayCluster team/rc', 'admitted']]);
});

test('fair sharing on in the files: the plan orders the heads by their share (b2, whose queue borrows less, goes before the older a2)', () => {
  // Cohort co: a and b with 2 CPU, lender l with 6; a runs 6, b 2, l 2 until 10m. a2 and b2 (2 each) wait for l's 2 CPU.
  const b = builder('v0.19.2');
  const job = (name: string, lq: string, cpu: number, t: Record<string, string> = {}) => {
    const o = rayCluster(name, { lq, headCpu: String(cpu) });
    o.metadata.annotations = t;
    return o;
  };
  const docs = [flavor(b, 'f'), clusterQueue(b, 'a', { cohort: 'co', quotas: [{ flavor: 'f', cpu: '2' }] }),
    clusterQueue(b, 'b', { cohort: 'co', quotas: [{ flavor: 'f', cpu: '2' }] }),
    clusterQueue(b, 'l', { cohort: 'co', quotas: [{ flavor: 'f', cpu: '6' }] }),
    localQueue(b, 'qa', 'a'), localQueue(b, 'qb', 'b'), localQueue(b, 'ql', 'l'), job('a1', 'qa', 6), job('b1', 'qb', 2),
    job('l1', 'ql', 2, { [EXPECTED_DURATION_ANNOTATION]: '10m' }), job('a2', 'qa', 2, { [PLAN_ARRIVAL_ANNOTATION]: '1m' }),
    job('b2', 'qb', 2, { [PLAN_ARRIVAL_ANNOTATION]: '2m' })];
  const admitted = (install: string) => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, '0-kueue.yaml'), install);
    fs.writeFileSync(path.join(dir, '1-queues.yaml'), docs.map((d) => JSON.stringify(d)).join('\n---\n'));
    return plan(dir).workloads.filter((w: any) => w.outcome === 'admitted').map((w: any) => w.name).sort();
  };
  expect(admitted(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration'))).toEqual(['a1', 'a2', 'b1', 'l1']);
  expect(admitted(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n'
    + '  preemptionStrategies: [LessThanInitialShare]'))).toEqual(['a1', 'b1', 'b2', 'l1']);
});

test('a Configuration Kueue refuses at start-up is an error naming the file, the field and the fix', () => {
  const both = files(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n  AdmissionFairSharing: true',
    ['--feature-gates=TopologyAwareScheduling=true']));
  expect(() => plan(both.dir)).toThrow(`${both.file} (ConfigMap kueue-system/kueue-manager-config) and ${both.file} (Deployment `
    + 'kueue-system/kueue-controller-manager): featureGates: feature gates for CLI and configuration cannot both specified; Kueue v0.19.2 '
    + 'refuses the Configuration and does not start. Fix: set the gates either in the manager\'s --feature-gates arg or in the '
    + 'Configuration\'s featureGates.');
  const noStrategies = files(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {}'));
  expect(() => plan(noStrategies.dir)).toThrow(/fairSharing\.preemptionStrategies: Required value: must be specified.*Fix: list the strategies/);
});
