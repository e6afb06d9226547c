// Elastic RayService: the guide's fruit and math Serve apps, workers 1..5 within ray-cq's quota.
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
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

/**
 * Where the Serve apps' code comes from: the guide's zip on GitHub, or (a cluster that cannot reach
 * GitHub, like the real-node tests) the same-shaped apps in examples/serve-apps/, shipped in a ConfigMap
 * on every Ray container's PYTHONPATH. Serve's deploy config takes only remote `working_dir` URIs, so the
 * ConfigMap variant drops `runtime_env`, gives MangoStand an autoscaling_config (2..4 replicas, at most
 * one per node), so that load adds replicas, replicas add workers and workers add Workload slices, and
 * gives Router 0.1 CPU like the other deployments (see configMapServeConfig).
 */
export type ServeAppsSource = 'github' | 'configmap';

// A directory of its own at the container's root: the ConfigMap mount hides nothing of the image.
const APPS_DIR = '/serve-apps';

/** The guide's Serve config for the ConfigMap-shipped apps (see ServeAppsSource). */
export function configMapServeConfig(): Record<string, any> {
  return {
    applications: SERVE_CONFIG.applications.map(({ runtime_env: _dropped, ...app }) => ({
      ...app,
      deployments: app.deployments.map((d: any) => {
        if (d.name === 'MangoStand') {
          return {
            ...Object.fromEntries(Object.entries(d).filter(([k]) => k !== 'num_replicas')),
            autoscaling_config: { min_replicas: 2, max_replicas: 4, target_ongoing_requests: 1, upscale_delay_s: 2, downscale_delay_s: 10 },
          };
        }
        // The guide's Router asks for Ray's default actor CPU (1): on the guide's head + 1 worker no node has
        // a whole CPU left, so the Ray autoscaler asks for a worker before the RayService is Ready, and Kueue
        // v0.19.2 sizes a RayService's slices from its active cluster only: that worker stays gated, and the
        // service never becomes Ready (seen on the real node). 0.1 like every other deployment.
        return d.ray_actor_options ? d : { ...d, ray_actor_options: { num_cpus: 0.1 } };
      }),
    })),
  };
}

/** The Serve config and, for 'configmap', the ConfigMap of the apps and the mount that puts them on PYTHONPATH. */
export interface ServeApps {
  readonly serveConfig: Record<string, any>;
  /** The group options (env, podTemplate) that mount the apps into `container`; empty for 'github'. */
  mount(container: string): { env?: Record<string, string>; podTemplate?: Record<string, any> };
}

/** The guide's Serve apps for a RayService of `chart`; 'configmap' adds ConfigMap `name` to the chart. */
export function serveApps(chart: Chart, source: ServeAppsSource, name: string): ServeApps {
  if (source !== 'configmap') return { serveConfig: SERVE_CONFIG, mount: () => ({}) };
  const apps = new ApiObject(chart, name, {
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' },
    data: Object.fromEntries(['fruit.py', 'conditional_dag.py'].map((f) => [f, fs.readFileSync(path.join(__dirname, 'serve-apps', f), 'utf8')])),
  });
  return {
    serveConfig: configMapServeConfig(),
    mount: (container) => ({
      env: { PYTHONPATH: APPS_DIR },
      podTemplate: {
        spec: {
          containers: [{ name: container, volumeMounts: [{ name: 'serve-apps', mountPath: APPS_DIR, readOnly: true }] }],
          volumes: [{ name: 'serve-apps', configMap: { name: apps.name } }],
        },
      },
    }),
  };
}

export class ElasticRayServiceScenario extends Chart {
  public readonly service: ElasticRayService;
  constructor(scope: Construct, id: string, queues: ElasticQueues, scale: NodeScale = NodeScale.GUIDE, source: ServeAppsSource = 'github') {
    super(scope, id);
    const apps = serveApps(this, source, 'serve-apps');
    const headMount = apps.mount('ray-head');
    this.service = new ElasticRayService(this, 'rayservice-kueue-autoscaler', {
      queue: queues.localQueue,
      rayVersion: '2.46.0',
      serveConfig: apps.serveConfig,
      autoscaling: { resources: scale.kubeRayDefault(KUBERAY_AUTOSCALER) },
      headGroup: { resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(2) }), ...headMount, env: scale.headEnv(headMount.env) },
      workerGroups: [{
        groupName: 'small-group', replicas: 1, minReplicas: 1, maxReplicas: 5,
        resources: scale.resources({ cpu: 1, memory: Quantity.gibibytes(1) }),
        ...apps.mount('ray-worker'),
      }],
    });
  }
}
