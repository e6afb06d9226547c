// The guide's RayService with Kueue, fixed size: the fruit and math Serve apps on head + one worker,
// admitted as one 2 CPU / 3Gi gang that holds its quota while the service exists.
import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { Quantity, QueuedRayService } from '../src';
import { serveApps, ServeAppsSource } from './elastic-rayservice';
import { FixedQueues } from './fixed-queues';
import { NodeScale } from './node-scale';

export class RayServiceScenario extends Chart {
  public readonly service: QueuedRayService;
  constructor(scope: Construct, id: string, queues: FixedQueues, scale: NodeScale = NodeScale.GUIDE, source: ServeAppsSource = 'github') {
    super(scope, id);
    const apps = serveApps(this, source, 'serve-apps-fixed');
    const headMount = apps.mount('ray-head');
    this.service = new QueuedRayService(this, 'rayservice-kueue', {
      queue: queues.localQueue,
      rayVersion: '2.46.0',
      serveConfig: apps.serveConfig,
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }), ...headMount, env: scale.headEnv(headMount.env) },
      workerGroups: [{
        groupName: 'small-group', replicas: 1, resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1) }), ...apps.mount('ray-worker'),
      }],
    });
  }
}
