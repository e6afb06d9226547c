import { Construct } from 'constructs';
import { AutoscalingOptions } from './ray-cluster-spec';
import type { RayClusterSpecJson } from '../policy/kinds/ray-json';
import { RayWorkload, RayWorkloadProps } from './ray-workload';

/** Settings of an elastic RayCluster: a queued cluster whose worker groups Kueue admits and scales between minReplicas and maxReplicas. */
export interface ElasticRayClusterProps extends RayWorkloadProps {
  /**
   * In-tree autoscaler settings.
   * @default - idleTimeoutSeconds 60, KubeRay's other defaults
   */
  readonly autoscaling?: AutoscalingOptions;
}

/**
 * A RayCluster admitted by Kueue as an elastic workload (Kueue >= 0.14): the in-tree autoscaler
 * scales workers between min and max, each scale-up is a new Workload slice that must fit quota.
 * A RayCluster is never "finished": it holds its quota until deleted.
 */
export class ElasticRayCluster extends RayWorkload {
  private readonly autoscaling?: AutoscalingOptions;

  public constructor(scope: Construct, id: string, props: ElasticRayClusterProps) {
    super(scope, id, 'RayCluster', props, true);
    this.autoscaling = props.autoscaling;
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): RayClusterSpecJson {
    // Kueue's webhook would set it too; being explicit keeps pods from starting if webhooks run out of order.
    return this._clusterSpec({ autoscaling: this.autoscaling, suspend: true });
  }
}
