import { Construct } from 'constructs';
import { AutoscalingOptions } from './ray-cluster-spec';
import type { RayServiceSpecJson } from '../policy/kinds/ray-json';
import { RayWorkload, RayWorkloadProps } from './ray-workload';
import { checkServeConfig, RayServeProps } from './serve-config';

/** Settings of an elastic RayService: the Serve application and a cluster that Kueue scales between minReplicas and maxReplicas. */
export interface ElasticRayServiceProps extends RayWorkloadProps, RayServeProps {
  /**
   * In-tree autoscaler settings.
   * @default - idleTimeoutSeconds 60, KubeRay's other defaults
   */
  readonly autoscaling?: AutoscalingOptions;
}

/**
 * A RayService whose cluster Kueue admits as an elastic workload. Kueue >= 0.17 queues the RayService
 * itself (through spec.rayClusterConfig.suspend); older versions queue the RayCluster KubeRay creates,
 * which inherits the queue label and elastic annotation. A RayService holds its quota while it exists.
 */
export class ElasticRayService extends RayWorkload {
  private readonly serviceProps: ElasticRayServiceProps;

  public constructor(scope: Construct, id: string, props: ElasticRayServiceProps) {
    super(scope, id, 'RayService', props, true);
    checkServeConfig(props, this._where);
    this.serviceProps = props;
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): RayServiceSpecJson {
    return this._rayServiceSpec(this.serviceProps, this.serviceProps.autoscaling);
  }
}
