// The guide's elastic queues: ClusterQueue ray-cq (cohort ray-example, 8 CPU / 16Gi) and LocalQueue ray-lq.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { ClusterQueue, Cohort, IResourceFlavor, LocalQueue, NamespaceSelector, Quantity, ResourceName } from '../src';
import { NodeScale } from './node-scale';

/** A scenario's own queue: a ClusterQueue open to every namespace with one CPU and memory quota, and its LocalQueue in default. */
export interface ScenarioQueue {
  readonly clusterQueue: string;
  readonly localQueue: string;
  readonly cpu: number;
  readonly memoryGi: number;
  /** @default - no cohort */
  readonly cohort?: string;
}

export class ScenarioQueues extends Chart {
  public readonly clusterQueue: ClusterQueue;
  public readonly localQueue: LocalQueue;
  constructor(scope: Construct, id: string, flavor: IResourceFlavor, q: ScenarioQueue, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.clusterQueue = new ClusterQueue(this, q.clusterQueue, {
      cohort: q.cohort ? Cohort.fromCohortName(this, `${q.cohort}-cohort`, q.cohort) : undefined,
      namespaceSelector: NamespaceSelector.all(),
      resourceGroups: [{
        flavors: [{
          flavor,
          quotas: [
            { resource: ResourceName.CPU, nominalQuota: scale.cpu(q.cpu) },
            { resource: ResourceName.MEMORY, nominalQuota: Quantity.gibibytes(q.memoryGi) },
          ],
        }],
      }],
    });
    this.localQueue = new LocalQueue(this, q.localQueue, { namespace: 'default', clusterQueue: this.clusterQueue });
  }
}

export class ElasticQueues extends ScenarioQueues {
  constructor(scope: Construct, id: string, flavor: IResourceFlavor, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id, flavor, { clusterQueue: 'ray-cq', localQueue: 'ray-lq', cpu: 8, memoryGi: 16, cohort: 'ray-example' }, scale);
  }
}
