import { Construct } from 'constructs';
import { RAY_SERVICE } from '../policy/kinds';
import { buildClusterSpec } from './ray-cluster-spec';
import { RayWorkload, RayWorkloadProps } from './ray-workload';
import { checkServeConfig, RayServeProps, serveConfigV2 } from './serve-config';

export interface QueuedRayServiceProps extends RayWorkloadProps, RayServeProps {}

/**
 * A fixed-size RayService whose cluster Kueue admits as one gang, the guide's "RayService with Kueue".
 * Kueue >= 0.17 queues the RayService itself (through spec.rayClusterConfig.suspend); older versions
 * queue the RayCluster KubeRay creates, which inherits the queue label. A RayService holds its quota
 * while it exists. For workers that scale with Serve's load use ElasticRayService.
 */
export class QueuedRayService extends RayWorkload {
  private readonly serviceProps: QueuedRayServiceProps;

  public constructor(scope: Construct, id: string, props: QueuedRayServiceProps) {
    super(scope, id, 'RayService', props, false);
    checkServeConfig(props, `RayService '${this.node.path}'`);
    this.serviceProps = props;
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): Record<string, any> {
    const p = this.serviceProps;
    const rayVersion = p.rayVersion ?? '2.46.0';
    return {
      serveConfigV2: serveConfigV2(p),
      rayClusterConfig: buildClusterSpec({
        where: `RayService '${this.node.path}'`, rayVersion, image: p.image ?? `rayproject/ray:${rayVersion}`,
        head: p.headGroup, workers: this._workers, elastic: false, servePort: true,
        // Before 0.17 Kueue suspends the child RayCluster itself, and a suspended config would be copied
        // onto every new cluster.
        suspend: RAY_SERVICE.suspendFieldAtCreate(false, this._versions.kueue) ? true : undefined,
      }),
    };
  }
}
