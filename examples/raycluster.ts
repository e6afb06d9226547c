// The guide's RayCluster with Kueue, fixed size: head + one worker, admitted as one 2 CPU / 3Gi gang.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Quantity, QueuedRayCluster } from '../src';
import { FixedQueues } from './fixed-queues';
import { NodeScale } from './node-scale';

export class RayClusterScenario extends Chart {
  public readonly cluster: QueuedRayCluster;
  constructor(scope: Construct, id: string, queues: FixedQueues, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.cluster = new QueuedRayCluster(this, 'raycluster-kueue', {
      queue: queues.localQueue,
      rayVersion: '2.46.0',
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }), env: scale.headEnv() },
      workerGroups: [{ groupName: 'small-group', replicas: 1, resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1) }) }],
    });
  }
}
