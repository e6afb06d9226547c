"""Elastic RayService: the guide's fruit and math Serve apps, workers 1..5 within ray-cq's quota."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import (
    ContainerResources,
    ElasticRayService,
    HeadGroupOptions,
    Quantity,
    WorkerGroupOptions,
)

from elastic_queues import ElasticQueues

FRUIT_ZIP = "https://github.com/ray-project/test_dag/archive/78b4a5da38796123d9f9ffff59bab2792a043e95.zip"

# Ray Serve's own config format, passed through as is: its keys stay snake_case in every language.
SERVE_CONFIG = {
    "applications": [
        {
            "name": "fruit_app",
            "import_path": "fruit.deployment_graph",
            "route_prefix": "/fruit",
            "runtime_env": {"working_dir": FRUIT_ZIP},
            "deployments": [
                {"name": "MangoStand", "num_replicas": 2, "max_replicas_per_node": 1, "user_config": {"price": 3},
                 "ray_actor_options": {"num_cpus": 0.1}},
                {"name": "OrangeStand", "num_replicas": 1, "user_config": {"price": 2},
                 "ray_actor_options": {"num_cpus": 0.1}},
                {"name": "PearStand", "num_replicas": 1, "user_config": {"price": 1},
                 "ray_actor_options": {"num_cpus": 0.1}},
                {"name": "FruitMarket", "num_replicas": 1, "ray_actor_options": {"num_cpus": 0.1}},
            ],
        },
        {
            "name": "math_app",
            "import_path": "conditional_dag.serve_dag",
            "route_prefix": "/calc",
            "runtime_env": {"working_dir": FRUIT_ZIP},
            "deployments": [
                {"name": "Adder", "num_replicas": 1, "user_config": {"increment": 3},
                 "ray_actor_options": {"num_cpus": 0.1}},
                {"name": "Multiplier", "num_replicas": 1, "user_config": {"factor": 5},
                 "ray_actor_options": {"num_cpus": 0.1}},
                {"name": "Router", "num_replicas": 1},
            ],
        },
    ],
}


class ElasticRayServiceScenario(Chart):
    def __init__(self, scope: Construct, id: str, queues: ElasticQueues) -> None:
        super().__init__(scope, id)
        self.service = ElasticRayService(
            self, "rayservice-kueue-autoscaler",
            queue=queues.local_queue,
            ray_version="2.46.0",
            serve_config=SERVE_CONFIG,
            head_group=HeadGroupOptions(
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(2)),
            ),
            worker_groups=[WorkerGroupOptions(
                group_name="small-group", replicas=1, min_replicas=1, max_replicas=5,
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(1)),
            )],
        )
