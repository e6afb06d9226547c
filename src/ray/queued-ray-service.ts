import { Construct } from 'constructs';
import type { RayServiceSpecJson } from '../policy/kinds/ray-json';
import { RayWorkload, RayWorkloadProps } from './ray-workload';
import { checkServeConfig, RayServeProps } from './serve-config';

/** Settings of a queued RayService: the Serve applications and the cluster that runs them. */
export interface QueuedRayServiceProps extends RayWorkloadProps, RayServeProps {}

/**
 * A fixed-size RayService whose cluster Kueue admits as one gang, the guide's "RayService with Kueue".
 * Kueue >= 0.17 queues the RayService itself (through spec.rayClusterConfig.suspend); older versions
 * queue the RayCluster KubeRay creates, which inherits the queue label. A RayService holds its quota
 * while it exists. For workers that scale with Serve's load use ElasticRayService.
 */
export class QueuedRayService extends RayWorkload {
  private readonly serve: RayServeProps;

  public constructor(scope: Construct, id: string, props: QueuedRayServiceProps) {
    super(scope, id, 'RayService', props, false);
    checkServeConfig(props, this._where);
    this.serve = props;
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): RayServiceSpecJson {
    return this._rayServiceSpec(this.serve);
  }
}
