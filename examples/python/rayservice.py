"""The guide's RayService with Kueue, fixed size: the fruit and math Serve apps on head + one worker,
admitted as one 2 CPU / 3Gi gang that holds its quota while the service exists."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import (
    ContainerResources,
    HeadGroupOptions,
    Quantity,
    QueuedRayService,
    WorkerGroupOptions,
)

from elastic_rayservice import SERVE_CONFIG
from fixed_queues import FixedQueues


class RayServiceScenario(Chart):
    def __init__(self, scope: Construct, id: str, queues: FixedQueues) -> None:
        super().__init__(scope, id)
        self.service = QueuedRayService(
            self, "rayservice-kueue",
            queue=queues.local_queue,
            ray_version="2.46.0",
            serve_config=SERVE_CONFIG,
            head_group=HeadGroupOptions(
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(2)),
            ),
            worker_groups=[WorkerGroupOptions(
                group_name="small-group", replicas=1,
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(1)),
            )],
        )
