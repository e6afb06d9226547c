// The complete example of docs/constructs.md, verbatim in behaviour: its gang and its refusal message.
import { App, Chart, Testing } from 'cdk8s';
import {
  ClusterQueue, KubeRayVersion, KueueRayVersions, KueueVersion, LocalQueue, Quantity, QueuedRayJob,
  ResourceFlavor, ResourceName, WithinClusterQueuePolicy, WorkloadPriorityClass,
} from '../../src';

function readmeApp(workers: number): { app: App; job: QueuedRayJob } {
  const app = Testing.app();
  KueueRayVersions.use(app, { kueue: KueueVersion.V0_19_2, kubeRay: KubeRayVersion.V1_6_2 });
  const queues = new Chart(app, 'queues');
  const flavor = new ResourceFlavor(queues, 'default-flavor');
  const cq = new ClusterQueue(queues, 'cluster-queue', {
    preemption: { withinClusterQueue: WithinClusterQueuePolicy.LOWER_PRIORITY },
    resourceGroups: [{ flavors: [{ flavor, quotas: [
      { resource: ResourceName.CPU, nominalQuota: Quantity.cpu(3) },
      { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse('6G') },
    ] }] }],
  });
  const userQueue = new LocalQueue(queues, 'user-queue', { namespace: 'default', clusterQueue: cq });
  const dev = new WorkloadPriorityClass(queues, 'dev-priority', { value: 100 });
  const jobs = new Chart(app, 'jobs');
  const job = new QueuedRayJob(jobs, 'train', {
    queue: userQueue,
    priorityClass: dev,
    entrypoint: 'python train.py',
    runtimeEnv: { pip: ['torch'] },
    headGroup: { resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) } },
    workerGroups: [{ groupName: 'workers', replicas: workers, resources: { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) } }],
  });
  return { app, job };
}

test('the README example synthesizes and its gang is 2.5 CPU / 4296Mi', () => {
  const { app, job } = readmeApp(1);
  expect(job.gang.totalRequests).toEqual({ cpu: '2.5', memory: '4296Mi' });
  expect(() => app.synth()).not.toThrow();
});

test('with two workers it fails with the message the README shows', () => {
  const { app } = readmeApp(2);
  expect(() => app.synth())
    .toThrow('RayJob default/train: metadata.labels[kueue.x-k8s.io/queue-name]: the gang needs cpu 3.5, memory 6344Mi (head 1×(cpu 1, memory 2Gi) + '
      + 'workers 2×(cpu 1, memory 2Gi) + submitter 1×(cpu 0.5, memory 200Mi)), but ClusterQueue "cluster-queue" can provide at most cpu 3, '
      + 'memory 5722.05Mi (nominal cpu 3, memory 5722.05Mi, no cohort to borrow from): the Workload stays pending forever. '
      + 'Fix: raise the quota of ClusterQueue "cluster-queue" for cpu, memory, put it in a cohort it can borrow from, or shrink the gang '
      + '[gangCanEverFit]');
});
