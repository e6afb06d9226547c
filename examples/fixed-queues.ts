// A queue of its own for the fixed-size RayCluster and RayService (ClusterQueue fixed-cq, 4 CPU / 8Gi;
// LocalQueue fixed-lq): both gangs fit side by side, and neither takes quota from the guide's toy jobs.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { ClusterQueue, IResourceFlavor, LocalQueue, NamespaceSelector, Quantity, ResourceName } from '../src';
import { NodeScale } from './node-scale';

export class FixedQueues extends Chart {
  public readonly clusterQueue: ClusterQueue;
  public readonly localQueue: LocalQueue;
  constructor(scope: Construct, id: string, flavor: IResourceFlavor, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.clusterQueue = new ClusterQueue(this, 'fixed-cq', {
      namespaceSelector: NamespaceSelector.all(),
      resourceGroups: [{
        flavors: [{
          flavor,
          quotas: [
            { resource: ResourceName.CPU, nominalQuota: scale.cpu(4) },
            { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(8) },
          ],
        }],
      }],
    });
    this.localQueue = new LocalQueue(this, 'fixed-lq', { namespace: 'default', clusterQueue: this.clusterQueue });
  }
}
