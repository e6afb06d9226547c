// KubeRay's ray-job.kueue-toy-sample.yaml as QueuedRayJob props (domain.md §2): 2.5 CPU / 4296Mi per gang.
import { Duration } from 'cdk8s';
import { ILocalQueue, IWorkloadPriorityClass, Quantity, QueuedRayJobProps } from '../src';

export const TOY_ENTRYPOINT = `python -c "
import ray
import time
ray.init()
for i in range(600):
    print(f'iter: {i}, ray.cluster_resources(): {ray.cluster_resources()}')
    time.sleep(1)
"`;

export function toyJobProps(queue: ILocalQueue, priorityClass: IWorkloadPriorityClass): QueuedRayJobProps {
  const oneCpuTwoGi = { cpu: Quantity.cpu(1), memory: Quantity.gibibytes(2) };
  return {
    generateName: 'rayjob-sample-',
    queue,
    priorityClass,
    entrypoint: TOY_ENTRYPOINT,
    ttlAfterFinished: Duration.seconds(10),
    rayVersion: '2.46.0',
    headGroup: { resources: oneCpuTwoGi },
    workerGroups: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5, resources: oneCpuTwoGi }],
  };
}
