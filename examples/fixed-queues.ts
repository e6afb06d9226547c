// A queue of its own for the fixed-size RayCluster and RayService (ClusterQueue fixed-cq, 4 CPU / 8Gi;
// LocalQueue fixed-lq): both gangs fit side by side, and neither takes quota from the guide's toy jobs.
import { Construct } from 'constructs';
import { IResourceFlavor } from '../src';
import { ScenarioQueues } from './elastic-queues';
import { NodeScale } from './node-scale';

export class FixedQueues extends ScenarioQueues {
  constructor(scope: Construct, id: string, flavor: IResourceFlavor, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id, flavor, { clusterQueue: 'fixed-cq', localQueue: 'fixed-lq', cpu: 4, memoryGi: 8 }, scale);
  }
}
