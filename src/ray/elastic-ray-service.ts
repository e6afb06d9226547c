import { Construct } from 'constructs';
import { stringify } from 'yaml';
import { RAY_SERVICE } from '../policy/kinds';
import { AutoscalingOptions, buildClusterSpec } from './ray-cluster-spec';
import { RayWorkload, RayWorkloadProps } from './ray-workload';

export interface ElasticRayServiceProps extends RayWorkloadProps {
  /**
   * Ray Serve config (serveConfigV2) as an object, e.g. { applications: [...] }. Give this or `serveConfigV2Yaml`.
   * @default - none
   */
  readonly serveConfig?: Record<string, any>;
  /**
   * Ray Serve config as the YAML string KubeRay takes.
   * @default - none
   */
  readonly serveConfigV2Yaml?: string;
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
    if (!!props.serveConfig === !!props.serveConfigV2Yaml) {
      throw new Error(`RayService '${this.node.path}': give exactly one of 'serveConfig' or 'serveConfigV2Yaml' (spec.serveConfigV2).`);
    }
    this.serviceProps = props;
    this._checkSpec();
  }

  /** @internal */
  protected _buildSpec(): Record<string, any> {
    const p = this.serviceProps;
    const rayVersion = p.rayVersion ?? '2.46.0';
    return {
      serveConfigV2: p.serveConfigV2Yaml ?? stringify(p.serveConfig),
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
