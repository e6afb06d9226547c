// Elastic RayCluster (Kueue >= v0.14): the in-tree autoscaler scales workers 0..4 within ray-cq's quota.
import { Chart, Duration } from 'cdk8s';
import { Construct } from 'constructs';
import { ElasticRayCluster, ILocalQueue, Quantity } from '../src';
import { KUBERAY_AUTOSCALER, NodeScale } from './node-scale';

export class ElasticRayClusterScenario extends Chart {
  public readonly cluster: ElasticRayCluster;
  /** `queues`: the guide's ElasticQueues, or any holder of a LocalQueue (a TenantQueue's, in the real-node tenant test). */
  constructor(scope: Construct, id: string, queues: { readonly localQueue: ILocalQueue }, scale: NodeScale = NodeScale.GUIDE) {
    super(scope, id);
    this.cluster = new ElasticRayCluster(this, 'raycluster-kueue-autoscaler', {
      queue: queues.localQueue,
      rayVersion: '2.46.0',
      autoscaling: { idleTimeout: Duration.seconds(60), resources: scale.kubeRayDefault(KUBERAY_AUTOSCALER) },
      headGroup: {
        resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2), cpuLimit: 2, memoryLimit: Quantity.gibibytes(5) }),
        env: scale.headEnv(),
      },
      workerGroups: [{
        groupName: 'workers', replicas: 0, minReplicas: 0, maxReplicas: 4,
        resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1), cpuLimit: 2, memoryLimit: Quantity.gibibytes(5) }),
      }],
    });
  }
}

/**
 * The guide's busy workload for the elastic cluster: `tasks` tasks of num_cpus=1, each busy for `seconds`;
 * each task returns the node it ran on. Run it with `ray job submit -- python -c <script>` on the head.
 */
export function busyTasksScript(tasks = 20, seconds = 60): string {
  return [
    'import ray, socket, time',
    'ray.init()',
    '@ray.remote(num_cpus=1)',
    'def busy(i):',
    `    time.sleep(${seconds})`,
    '    return socket.gethostname()',
    `hosts = ray.get([busy.remote(i) for i in range(${tasks})])`,
    "print('tasks done on', sorted(set(hosts)), len(hosts))",
  ].join('\n');
}
