// Priority: a dev job runs, then a prod job arrives; the ClusterQueue preempts the dev job.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { QueuedRayJob } from '../src';
import { GuideQueues } from './guide-queues';
import { ToyJobOptions, toyJobProps } from './toy-job';

export class PriorityScenario extends Chart {
  public readonly devJob: QueuedRayJob;
  public readonly prodJob: QueuedRayJob;
  constructor(scope: Construct, id: string, queues: GuideQueues, toy: ToyJobOptions = {}) {
    super(scope, id);
    this.devJob = new QueuedRayJob(this, 'dev-job', toyJobProps(queues.userQueue, queues.devPriority, toy));
    this.prodJob = new QueuedRayJob(this, 'prod-job', toyJobProps(queues.userQueue, queues.prodPriority, toy));
  }
}
