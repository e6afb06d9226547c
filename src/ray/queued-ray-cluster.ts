import { Construct } from 'constructs';
import type { RayClusterSpecJson } from '../policy/kinds/ray-json';
import { RayWorkload, RayWorkloadProps } from './ray-workload';

/** Settings of a queued RayCluster: the queue, the head and worker groups and their resources (RayWorkloadProps). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the construct's own props type, as jsii documents each construct's
export interface QueuedRayClusterProps extends RayWorkloadProps {}

/**
 * A fixed-size RayCluster admitted by Kueue as one gang (head + every worker group's replicas x
 * numOfHosts), the guide's "RayCluster with Kueue". No autoscaler: the workers are what the props say,
 * and nothing scales the gang after admission. A RayCluster is never "finished": it holds its quota
 * until deleted. For workers that scale under Kueue use ElasticRayCluster.
 */
export class QueuedRayCluster extends RayWorkload {
  public constructor(scope: Construct, id: string, props: QueuedRayClusterProps) {
    super(scope, id, 'RayCluster', props, false);
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): RayClusterSpecJson {
    // Kueue's webhook would set it too; being explicit keeps pods from starting if webhooks run out of order.
    return this._clusterSpec({ suspend: true });
  }
}
