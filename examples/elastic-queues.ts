// The guide's elastic queues: ClusterQueue ray-cq (cohort ray-example, 8 CPU / 16Gi) and LocalQueue ray-lq.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { ClusterQueue, Cohort, IResourceFlavor, LocalQueue, NamespaceSelector, Quantity, ResourceName } from '../src';
import { NodeScale } from './node-scale';

export class ElasticQueues extends Chart {
  public readonly clusterQueue: ClusterQueue;
  public readonly localQueue: LocalQueue;
  constructor(scope: Construct, id: string, flavor: IResourceFlavor, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.clusterQueue = new ClusterQueue(this, 'ray-cq', {
      cohort: Cohort.fromCohortName(this, 'ray-example-cohort', 'ray-example'),
      namespaceSelector: NamespaceSelector.all(),
      resourceGroups: [{
        flavors: [{
          flavor,
          quotas: [
            { resource: ResourceName.CPU, nominalQuota: scale.cpu(8) },
            { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(16) },
          ],
        }],
      }],
    });
    this.localQueue = new LocalQueue(this, 'ray-lq', { namespace: 'default', clusterQueue: this.clusterQueue });
  }
}
