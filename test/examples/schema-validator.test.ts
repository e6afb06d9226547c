// The schema check must be able to fail: feed it broken objects and expect the exact problems.
import { examples, synthAll } from '../support/synth';
import { validatorFor } from '../support/versions';

const objects = synthAll(examples({ kueue: 'v0.19.2', kubeRay: 'v1.6.2' }));
const find = (kind: string) => JSON.parse(JSON.stringify(objects.find((o) => o.kind === kind)));

test('an unknown field (which the API server would prune) is reported', async () => {
  const job = find('RayJob');
  job.spec.deletionPolicy = 'DeleteCluster'; // a KubeRay 1.4 field, pruned on 1.6
  const res = (await validatorFor(job, 'v0.19.2', 'v1.6.2')!).check(job);
  expect(res.errors.join('\n')).toMatch(/must NOT have additional properties: deletionPolicy/);
});

test('a wrong type and a missing required field are reported with their paths', async () => {
  const job = find('RayJob');
  job.spec.rayClusterSpec.workerGroupSpecs[0].replicas = '1';
  delete job.spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers[0].name;
  const res = (await validatorFor(job, 'v0.19.2', 'v1.6.2')!).check(job);
  expect(res.errors).toEqual(expect.arrayContaining([
    expect.stringContaining('/spec/rayClusterSpec/workerGroupSpecs/0/replicas must be integer'),
    expect.stringContaining("/spec/rayClusterSpec/workerGroupSpecs/0/template/spec/containers/0 must have required property 'name'"),
  ]));
});

test('a CEL rule of the CRD is evaluated and can fail', async () => {
  const cq = find('ClusterQueue');
  cq.spec.resourceGroups[0].coveredResources.push('nvidia.com/gpu'); // flavors no longer list every covered resource
  const res = (await validatorFor(cq, 'v0.19.2', 'v1.6.2')!).check(cq);
  expect(res.errors.join('\n')).toMatch(/CEL rule failed: self.flavors.all\(x, size\(x.resources\) == size\(self.coveredResources\)\)/);
});

test('an enum violation is reported', async () => {
  const cq = find('ClusterQueue');
  cq.spec.preemption.withinClusterQueue = 'Sometimes';
  const res = (await validatorFor(cq, 'v0.19.2', 'v1.6.2')!).check(cq);
  expect(res.errors.join('\n')).toMatch(/withinClusterQueue must be equal to one of the allowed values/);
});

test('a v1beta2 ClusterQueue does not validate against v0.14.8 (which serves only v1beta1)', async () => {
  const cq = find('ClusterQueue');
  await expect(validatorFor(cq, 'v0.14.8', 'v1.6.2')!).rejects.toThrow(/not served/);
});
