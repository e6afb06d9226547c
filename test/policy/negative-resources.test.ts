// A negative request or limit (issue 40, item 5): one rule, nonNegativeResources, refuses it wherever a pod of a
// Ray object gets it, at admission (the controller's handler) and in `check`, naming the field and the fix.
import * as fs from 'fs';
import * as path from 'path';
import { validateRayObject } from '../../src/controller/admission';
import { check } from '../../src/cli/check';
import { Inventory, RULES } from '../../src/policy';
import { kubeRayCapabilities, kueueCapabilities } from '../../src/policy/versions';
import { tmpdir } from '../support/synth';

const ctx = { kueue: kueueCapabilities('v0.19.2'), kubeRay: kubeRayCapabilities('v1.6.2') };
const container = (name: string, cpu = '1') => ({ name, image: 'rayproject/ray:2.46.0',
  resources: { requests: { cpu, memory: '1Gi' }, limits: { cpu, memory: '1Gi' } } });
const spec = () => ({
  headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } } },
  workerGroupSpecs: [0, 1].map((i) => ({ groupName: `w${i}`, replicas: 1, minReplicas: 1, maxReplicas: 1, rayStartParams: {},
    template: { spec: { containers: [container('ray-worker')] } } })),
});
const job = (): any => ({ apiVersion: 'ray.io/v1', kind: 'RayJob',
  metadata: { name: 'j', namespace: 'team-a', labels: { 'kueue.x-k8s.io/queue-name': 'default' } },
  spec: { entrypoint: 'python x.py', shutdownAfterJobFinishes: true, rayClusterSpec: spec(),
    submitterPodTemplate: { spec: { restartPolicy: 'Never', containers: [container('ray-job-submitter', '500m')] } } } });
const findings = (o: any) => RULES.nonNegativeResources(o, ctx);

test('every resource list a pod of the object gets is checked; each negative value is one error naming its field', () => {
  const o = job();
  const c = o.spec.rayClusterSpec;
  c.headGroupSpec.template.spec.containers[0].resources.limits.memory = '-1Gi';
  c.headGroupSpec.template.spec.initContainers = [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '-100m' } } }];
  c.workerGroupSpecs[1].template.spec.containers[0].resources.requests['nvidia.com/gpu'] = -1;
  c.workerGroupSpecs[1].template.spec.resources = { limits: { cpu: '-2' } };
  c.workerGroupSpecs[0].template.spec.overhead = { memory: '-1Mi' };
  c.enableInTreeAutoscaling = true;
  c.autoscalerOptions = { resources: { requests: { cpu: '-500m' } } };
  o.spec.submitterPodTemplate.spec.containers[0].resources.requests.cpu = '-0.5';
  expect(findings(o).map((f) => [f.field, f.severity, f.source])).toEqual([
    ['spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources.limits.memory', 'error', 'kueue-workload'],
    ['spec.rayClusterSpec.headGroupSpec.template.spec.initContainers[0].resources.requests.cpu', 'error', 'kueue-workload'],
    ['spec.rayClusterSpec.workerGroupSpecs[0].template.spec.overhead.memory', 'error', 'kueue-workload'],
    ['spec.rayClusterSpec.workerGroupSpecs[1].template.spec.containers[0].resources.requests.nvidia.com/gpu', 'error', 'kueue-workload'],
    ['spec.rayClusterSpec.workerGroupSpecs[1].template.spec.resources.limits.cpu', 'error', 'kueue-workload'],
    ['spec.submitterPodTemplate.spec.containers[0].resources.requests.cpu', 'error', 'kueue-workload'],
    ['spec.rayClusterSpec.autoscalerOptions.resources.requests.cpu', 'error', 'kueue-workload'],
  ]);
  expect(findings(o)[0].fix).toBe('write a quantity of 0 or more for memory (e.g. 500m, 2Gi), or remove it');
});

test('zero, "-0", positive and unparsable values are not its to report; an unqueued object is the API server\'s', () => {
  const o = job();
  const r = o.spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].resources;
  r.requests = { cpu: '0', memory: '-0', 'example.com/x': 'lots' };
  expect(findings(o)).toEqual([]);
  delete o.metadata.labels;
  r.requests.cpu = '-1';
  expect(findings(o)).toEqual([expect.objectContaining({ source: 'kubernetes',
    message: 'cpu -1 is negative: the API server refuses the pods KubeRay creates' })]);
  // Lists of the wrong type are objectShape's: no throw here.
  o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec = { containers: 'x', resources: [], overhead: 3 };
  expect(() => findings(o)).not.toThrow();
});

test('RayCluster and RayService: the admission webhook refuses the object (422) naming the field', () => {
  const inventory: Inventory = { localQueues: [], clusterQueues: [], cohorts: [], priorityClasses: [], namespaces: [] };
  const rc = { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name: 'rc', namespace: 'default' }, spec: spec() };
  rc.spec.workerGroupSpecs[1].template.spec.containers[0].resources.requests.cpu = '-1';
  const svc = { apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name: 'svc', namespace: 'default' },
    spec: { serveConfigV2: 'applications: []', rayClusterConfig: spec() } };
  svc.spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].resources.limits.cpu = '-1';
  for (const [o, field] of [[rc, 'spec.workerGroupSpecs[1].template.spec.containers[0].resources.requests.cpu'],
    [svc, 'spec.rayClusterConfig.headGroupSpec.template.spec.containers[0].resources.limits.cpu']] as const) {
    const r = validateRayObject({ uid: 'u', kind: { group: 'ray.io', version: 'v1', kind: o.kind }, namespace: 'default', operation: 'CREATE',
      object: o, userInfo: { username: 'alice' } }, { ...ctx, elasticGate: 'on' }, { inventory });
    expect(r.response).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(r.response.status!.message).toContain(`${field}: cpu -1 is negative: the API server refuses the pods KubeRay creates. Fix: write a `
      + 'quantity of 0 or more for cpu (e.g. 500m, 2Gi), or remove it [nonNegativeResources]');
  }
});

test('check reports it with the field and exits 1', async () => {
  const dir = tmpdir();
  const o = job();
  o.metadata.namespace = 'default';
  delete o.metadata.labels;
  o.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu = '-1';
  fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify(o));
  let out = '';
  const code = await check([path.join(dir, 'job.json')], { stdout: (s) => { out += s; }, stderr: (s) => { out += s; } });
  expect(code).toBe(1);
  expect(out).toContain('error: RayJob default/j: spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].resources.requests.cpu: '
    + 'cpu -1 is negative');
  expect(out).toMatch(/fix: write a quantity of 0 or more for cpu/);
  expect(out).toMatch(/rule: nonNegativeResources \(kubernetes\)/);
});
