// The Ray docs guide's queues (domain.md §2): one empty flavor, a 3 CPU / 6G ClusterQueue that
// preempts lower priority, the LocalQueue user-queue in default, and two priority classes.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import {
  ClusterQueue, LocalQueue, NamespaceSelector, Quantity, ResourceFlavor, ResourceName, WithinClusterQueuePolicy,
  WorkloadPriorityClass,
} from '../src';
import { NodeScale } from './node-scale';

export class GuideQueues extends Chart {
  public readonly defaultFlavor: ResourceFlavor;
  public readonly clusterQueue: ClusterQueue;
  public readonly userQueue: LocalQueue;
  public readonly prodPriority: WorkloadPriorityClass;
  public readonly devPriority: WorkloadPriorityClass;

  constructor(scope: Construct, id: string, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.defaultFlavor = new ResourceFlavor(this, 'default-flavor');
    this.clusterQueue = new ClusterQueue(this, 'cluster-queue', {
      namespaceSelector: NamespaceSelector.all(),
      preemption: { withinClusterQueue: WithinClusterQueuePolicy.LOWER_PRIORITY },
      resourceGroups: [{
        flavors: [{
          flavor: this.defaultFlavor,
          quotas: [
            { resource: ResourceName.CPU, nominalQuota: scale.cpu(3) },
            { resource: ResourceName.MEMORY, nominalQuota: Quantity.parse('6G') },
          ],
        }],
      }],
    });
    this.userQueue = new LocalQueue(this, 'user-queue', { namespace: 'default', clusterQueue: this.clusterQueue });
    this.prodPriority = new WorkloadPriorityClass(this, 'prod-priority', { value: 1000, description: 'Priority class for prod jobs' });
    this.devPriority = new WorkloadPriorityClass(this, 'dev-priority', { value: 100, description: 'Priority class for development jobs' });
  }
}
