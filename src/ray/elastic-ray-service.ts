import { Construct } from 'constructs';
import { RAY_SERVICE } from '../policy/kinds';
import { AutoscalingOptions, buildClusterSpec } from './ray-cluster-spec';
import { RayWorkload, RayWorkloadProps } from './ray-workload';
import { checkServeConfig, RayServeProps, serveConfigV2 } from './serve-config';

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
        head: p.headGroup, workers: this._workers, elastic: true, autoscaling: p.autoscaling, servePort: true,
        // Before 0.17 Kueue suspends the child RayCluster itself, and a suspended config would be copied
        // onto every new cluster.
        suspend: RAY_SERVICE.suspendFieldAtCreate(true, this._versions.kueue) ? true : undefined,
      }),
    };
  }
}
