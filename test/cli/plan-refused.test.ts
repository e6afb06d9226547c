// Issue 41: plan and check agree. An object the policy refuses at admission (the controller's
// validating webhook; Kueue's own for its rules) is never created, so plan shows it as REFUSED with the
// rule and the fix, never as admitted, for the same objects check reports errors on.
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { runCheck } from '../../src/cli/check';
import { planCommand } from '../../src/cli/plan';
import { kueueCapabilities, SUPPORTED_KUEUE_VERSIONS } from '../../src/policy/versions';
import { queuesYaml } from '../support/queues-yaml';
import { examples, supportedScenarios, synthAll, tmpFiles } from '../support/synth';
import { headOnlyRayJobYaml } from '../support/toy-job';

const GUIDE_YAML = path.join(__dirname, '..', 'examples', 'guide-yaml');

const QUEUES = queuesYaml({ apiVersion: 'kueue.x-k8s.io/v1beta1', clusterQueue: 'ray-cq', localQueue: 'ray-lq' });

/** The guide's elastic RayCluster. */
const ELASTIC = `apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: raycluster-kueue-autoscaler
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: ray-lq}
  annotations: {kueue.x-k8s.io/elastic-job: "true"}
spec:
  suspend: true
  enableInTreeAutoscaling: true
  autoscalerOptions: {idleTimeoutSeconds: 60}
  headGroupSpec:
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.46.0
          resources: {requests: {cpu: "1", memory: 2Gi}, limits: {cpu: "2", memory: 5Gi}}
  workerGroupSpecs:
  - groupName: workers
    replicas: 0
    minReplicas: 0
    maxReplicas: 4
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray:2.46.0
          resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: "2", memory: 5Gi}}
`;

/** A queued RayJob; `shutdown` false is what Kueue's webhook refuses. */
const job = (name: string, shutdown: boolean) => headOnlyRayJobYaml(name, { queue: 'ray-lq', shutdown });

test('on Kueue v0.13.4 the guide\'s elastic RayCluster is REFUSED with the rule and the fix, not admitted', () => {
  const d = tmpFiles({ 'queues.yaml': QUEUES, 'elastic.yaml': ELASTIC });
  const plan = JSON.parse(planCommand([d, '--kueue-version', 'v0.13.4', '-o', 'json']));
  expect(plan.workloads).toEqual([]);
  expect(plan.refused).toEqual([expect.objectContaining({
    workload: 'RayCluster default/raycluster-kueue-autoscaler', rule: 'elasticNeedsKueueVersion',
    field: 'metadata.annotations[kueue.x-k8s.io/elastic-job]', fix: expect.stringMatching(/^choose Kueue >= v0\.14\.0/),
  })]);
  expect(plan.notes).toContainEqual(expect.stringMatching(/^RayCluster default\/raycluster-kueue-autoscaler is refused at admission \(elasticNeedsKueueVersion\)/));
  const text = planCommand([d, '--kueue-version', 'v0.13.4']);
  expect(text).toMatch(/\nREFUSED at admission .*\n {2}RayCluster default\/raycluster-kueue-autoscaler: .*needs Kueue >= v0\.14\.0.*\[elasticNeedsKueueVersion\]\n {4}fix: choose Kueue/);
  expect(text).not.toMatch(/ADMITTED/);
  // On a Kueue that runs it, it is planned and admitted, and nothing is refused.
  const ok = JSON.parse(planCommand([d, '--kueue-version', 'v0.14.8', '-o', 'json']));
  expect([ok.workloads.map((w: any) => w.outcome), ok.refused]).toEqual([['admitted'], []]);
});

test.each(['v0.13.4', 'v0.14.8', 'v0.17.8', 'v0.19.2'])('Kueue %s: plan refuses exactly the objects check reports errors on', async (kueue) => {
  const d = tmpFiles({ 'queues.yaml': QUEUES, 'elastic.yaml': ELASTIC, 'jobs.yaml': `${job('good', true)}---\n${job('no-shutdown', false)}` });
  const plan = JSON.parse(planCommand([d, '--kueue-version', kueue, '-o', 'json']));
  const refused = [...new Set(plan.refused.map((r: any) => r.workload))].sort();
  const check = await runCheck({ files: [d], kueueVersion: kueue, output: 'json' });
  const errors = [...new Set(check.findings.filter((f) => f.severity === 'error').map((f) => f.object))].sort();
  expect(refused).toEqual(errors);
  expect(refused).toContain('RayJob default/no-shutdown');
  // Every Ray object is either planned or refused.
  expect([...plan.workloads.map((w: any) => w.workload), ...refused].sort())
    .toEqual(['RayCluster default/raycluster-kueue-autoscaler', 'RayJob default/good', 'RayJob default/no-shutdown']);
});

// Issue 41, item 7: the same agreement on the examples app (synthesized for each modelled Kueue version with the KubeRay
// it tests, every scenario that version runs) and on the guide's raw YAML, judged for that version.
describe.each(SUPPORTED_KUEUE_VERSIONS.map((v) => [v]))('Kueue %s: the examples and the guide\'s YAML', (kueue) => {
  test('plan refuses exactly the Ray objects check reports errors on, and plans every other one', async () => {
    const kubeRay = kueueCapabilities(kueue).testedKubeRay;
    const objects = synthAll(examples({ kueue, kubeRay, scenarios: supportedScenarios(kueue, kubeRay) }));
    const guide = fs.readdirSync(GUIDE_YAML).map((f) => fs.readFileSync(path.join(GUIDE_YAML, f), 'utf8'));
    const yaml = (os: any[]) => os.map((o) => stringify(o)).join('---\n');
    // The guide's objects share names with the app's elastic ones: judged beside the app's queues, on their own.
    const inputs = [tmpFiles({ 'app.yaml': yaml(objects) }),
      tmpFiles({ 'queues.yaml': yaml(objects.filter((o) => o.apiVersion.startsWith('kueue.x-k8s.io'))), 'guide.yaml': guide.join('---\n') })];
    let plannedTotal = 0;
    for (const d of inputs) {
      const plan = JSON.parse(planCommand([d, '--kueue-version', kueue, '--kuberay-version', kubeRay, '-o', 'json']));
      const check = await runCheck({ files: [d], kueueVersion: kueue, kubeRayVersion: kubeRay, output: 'json' });
      const isRay = (ref: string) => /^Ray(Job|Cluster|Service) /.test(ref);
      const errors = [...new Set(check.findings.filter((f) => f.severity === 'error' && isRay(f.object)).map((f) => f.object))].sort();
      const refused = [...new Set<string>(plan.refused.map((r: any) => r.workload))].sort();
      expect(refused).toEqual(errors);
      const planned = plan.workloads.map((w: any) => w.workload);
      expect(planned.filter((w: string) => refused.includes(w))).toEqual([]);
      expect(planned.length + refused.length).toBe(check.objects.filter((o) => o.status === 'checked').length);
      plannedTotal += planned.length;
    }
    expect(plannedTotal).toBeGreaterThan(5);
  }, 60000);
});
