// A RayJob whose entrypoint exits 1, retried once (backoffLimit): each attempt is a new RayCluster, and
// once the last one fails the RayJob is FAILED and Kueue gives its quota to the next pending job.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { QueuedRayJob } from '../src';
import { GuideQueues } from './guide-queues';
import { ToyJobOptions, toyJobProps } from './toy-job';

export const FAILING_ENTRYPOINT = 'python -c "import ray, sys; ray.init(); print(\'failing on purpose\'); sys.exit(1)"';

export class FailingJob extends Chart {
  public readonly job: QueuedRayJob;
  constructor(scope: Construct, id: string, queues: GuideQueues, toy: ToyJobOptions = {}) {
    super(scope, id);
    this.job = new QueuedRayJob(this, 'failing-job', {
      ...toyJobProps(queues.userQueue, queues.devPriority, toy),
      generateName: 'rayjob-failing-',
      entrypoint: FAILING_ENTRYPOINT,
      backoffLimit: 1,
    });
  }
}
