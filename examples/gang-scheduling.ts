// Gang scheduling: two dev toy jobs on the 3 CPU queue. Each gang needs 2.5 CPU, so the second one
// stays pending (no pods at all) although a single pod would fit.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { QueuedRayJob } from '../src';
import { GuideQueues } from './guide-queues';
import { ToyJobOptions, toyJobProps } from './toy-job';

export class GangScheduling extends Chart {
  public readonly jobs: QueuedRayJob[];
  constructor(scope: Construct, id: string, queues: GuideQueues, toy: ToyJobOptions = {}) {
    super(scope, id);
    this.jobs = [1, 2].map((n) => new QueuedRayJob(this, `dev-job-${n}`, toyJobProps(queues.userQueue, queues.devPriority, toy)));
  }
}
