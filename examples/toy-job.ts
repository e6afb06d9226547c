// KubeRay's ray-job.kueue-toy-sample.yaml as QueuedRayJob props (domain.md §2): 2.5 CPU / 4296Mi per gang.
import { Duration } from 'cdk8s';
import { ILocalQueue, IWorkloadPriorityClass, Quantity, QueuedRayJobProps } from '../src';
import { KUBERAY_SUBMITTER, NodeScale } from './node-scale';

/** The guide's loop: `iterations` one-second steps (600 in the guide; the real-node tests run fewer). */
export function toyEntrypoint(iterations = 600): string {
  if (!Number.isInteger(iterations) || iterations < 1) {
    throw new Error(`examples: toyIterations ${iterations} must be a whole number >= 1. Fix: e.g. 600 (the guide) or 20.`);
  }
  return `python -c "
import ray
import time
ray.init()
for i in range(${iterations}):
    print(f'iter: {i}, ray.cluster_resources(): {ray.cluster_resources()}')
    time.sleep(1)
"`;
}

export const TOY_ENTRYPOINT = toyEntrypoint();

export interface ToyJobOptions {
  /** @default NodeScale.GUIDE */
  readonly scale?: NodeScale;
  /** @default 600 */
  readonly iterations?: number;
}

export function toyJobProps(queue: ILocalQueue, priorityClass: IWorkloadPriorityClass, opts: ToyJobOptions = {}): QueuedRayJobProps {
  const scale = opts.scale ?? NodeScale.GUIDE;
  const oneCpuTwoGi = scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) });
  return {
    generateName: 'rayjob-sample-',
    queue,
    priorityClass,
    entrypoint: toyEntrypoint(opts.iterations),
    ttlAfterFinished: Duration.seconds(10),
    // The loop's one-second steps: plan's timeline starts the next toy job when this one finishes.
    expectedDuration: Duration.seconds(opts.iterations ?? 600),
    rayVersion: '2.46.0',
    headGroup: { resources: oneCpuTwoGi, env: scale.headEnv() },
    workerGroups: [{ groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5, resources: oneCpuTwoGi }],
    submitterResources: scale.kubeRayDefault(KUBERAY_SUBMITTER),
  };
}
