// plan reads Kueue's manager Configuration from the files' install (issue 44): a note says what is on and what of it the
// plan models, with the file it came from; fair sharing on changes the plan as Kueue would decide; a Configuration Kueue
// refuses at start-up is an error naming the field; with fair sharing off nothing changes.
import * as fs from 'fs';
import * as path from 'path';
import { planCommand } from '../../src/cli/plan';
import { tmpdir } from '../support/synth';
import { fairSharingTimelineScenarios } from '../policy/plan/fair-sharing-scenarios';

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
    + 'and picks preemption victims by fair sharing\'s dominant resource shares, as Kueue does.';
  expect(a.notes).toContain(note);
  expect(b.notes.filter((n: string) => /configuration read from/.test(n))).toEqual([]);
  expect(a.workloads).toEqual(b.workloads);
  expect(a.workloads.map((w: any) => [w.workload, w.outcome])).toEqual([['RayCluster team/rc', 'admitted']]);
});

test('fair sharing on in the files: the plan orders the heads by their share (b2, whose queue borrows less, goes before the older a2)', () => {
  const [s] = fairSharingTimelineScenarios('v0.19.2');
  const startsAt = (install: string) => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, '0-kueue.yaml'), install);
    fs.writeFileSync(path.join(dir, '1-queues.yaml'), [...s.objects, ...s.arrivals].map((d) => JSON.stringify(d)).join('\n---\n'));
    const ws = plan(dir).workloads;
    return ['a2', 'b2'].map((n) => ws.find((w: any) => w.name === n).admittedAt);
  };
  expect(startsAt(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration'))).toEqual([600, 900]);
  expect(startsAt(manager('apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n'
    + '  preemptionStrategies: [LessThanInitialShare]'))).toEqual([900, 600]);
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
