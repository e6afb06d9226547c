"""Elastic RayCluster (Kueue >= v0.14): the in-tree autoscaler scales workers 0..4 within ray-cq's quota."""
from cdk8s import Chart, Duration
from constructs import Construct
from cdk8s_kueue_ray import (
    AutoscalingOptions,
    ContainerResources,
    ElasticRayCluster,
    HeadGroupOptions,
    Quantity,
    WorkerGroupOptions,
)

from elastic_queues import ElasticQueues


class ElasticRayClusterScenario(Chart):
    def __init__(self, scope: Construct, id: str, queues: ElasticQueues) -> None:
        super().__init__(scope, id)
        self.cluster = ElasticRayCluster(
            self, "raycluster-kueue-autoscaler",
            queue=queues.local_queue,
            ray_version="2.46.0",
            autoscaling=AutoscalingOptions(idle_timeout=Duration.seconds(60)),
            head_group=HeadGroupOptions(resources=ContainerResources(
                cpu=Quantity.cpu(1), memory=Quantity.gibibytes(2),
                cpu_limit=Quantity.cpu(2), memory_limit=Quantity.gibibytes(5),
            )),
            worker_groups=[WorkerGroupOptions(
                group_name="workers", replicas=0, min_replicas=0, max_replicas=4,
                resources=ContainerResources(
                    cpu=Quantity.cpu(1), memory=Quantity.gibibytes(1),
                    cpu_limit=Quantity.cpu(2), memory_limit=Quantity.gibibytes(5),
                ),
            )],
        )
