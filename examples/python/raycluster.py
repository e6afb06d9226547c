"""The guide's RayCluster with Kueue, fixed size: head + one worker, admitted as one 2 CPU / 3Gi gang."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import (
    ContainerResources,
    HeadGroupOptions,
    Quantity,
    QueuedRayCluster,
    WorkerGroupOptions,
)

from fixed_queues import FixedQueues


class RayClusterScenario(Chart):
    def __init__(self, scope: Construct, id: str, queues: FixedQueues) -> None:
        super().__init__(scope, id)
        self.cluster = QueuedRayCluster(
            self, "raycluster-kueue",
            queue=queues.local_queue,
            ray_version="2.46.0",
            head_group=HeadGroupOptions(
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(2)),
            ),
            worker_groups=[WorkerGroupOptions(
                group_name="small-group", replicas=1,
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(1)),
            )],
        )
