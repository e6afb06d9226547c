// Elastic RayService: the guide's fruit and math Serve apps, workers 1..5 within ray-cq's quota.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { ElasticRayService, Quantity } from '../src';
import { ElasticQueues } from './elastic-queues';
import { KUBERAY_AUTOSCALER, NodeScale } from './node-scale';

const FRUIT_ZIP = 'https://github.com/ray-project/test_dag/archive/78b4a5da38796123d9f9ffff59bab2792a043e95.zip';

export const SERVE_CONFIG = {
  applications: [
    {
      name: 'fruit_app',
      import_path: 'fruit.deployment_graph',
      route_prefix: '/fruit',
      runtime_env: { working_dir: FRUIT_ZIP },
      deployments: [
        { name: 'MangoStand', num_replicas: 2, max_replicas_per_node: 1, user_config: { price: 3 }, ray_actor_options: { num_cpus: 0.1 } },
        { name: 'OrangeStand', num_replicas: 1, user_config: { price: 2 }, ray_actor_options: { num_cpus: 0.1 } },
        { name: 'PearStand', num_replicas: 1, user_config: { price: 1 }, ray_actor_options: { num_cpus: 0.1 } },
        { name: 'FruitMarket', num_replicas: 1, ray_actor_options: { num_cpus: 0.1 } },
      ],
    },
    {
      name: 'math_app',
      import_path: 'conditional_dag.serve_dag',
      route_prefix: '/calc',
      runtime_env: { working_dir: FRUIT_ZIP },
      deployments: [
        { name: 'Adder', num_replicas: 1, user_config: { increment: 3 }, ray_actor_options: { num_cpus: 0.1 } },
        { name: 'Multiplier', num_replicas: 1, user_config: { factor: 5 }, ray_actor_options: { num_cpus: 0.1 } },
        { name: 'Router', num_replicas: 1 },
      ],
    },
  ],
};

export class ElasticRayServiceScenario extends Chart {
  public readonly service: ElasticRayService;
  constructor(scope: Construct, id: string, queues: ElasticQueues, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.service = new ElasticRayService(this, 'rayservice-kueue-autoscaler', {
      queue: queues.localQueue,
      rayVersion: '2.46.0',
      serveConfig: SERVE_CONFIG,
      autoscaling: { resources: scale.kubeRayDefault(KUBERAY_AUTOSCALER) },
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }) },
      workerGroups: [{
        groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5,
        resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1) }),
      }],
    });
  }
}
