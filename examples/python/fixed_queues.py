"""A queue of its own for the fixed-size RayCluster and RayService (ClusterQueue fixed-cq, 4 CPU / 8Gi;
LocalQueue fixed-lq): both gangs fit side by side, and neither takes quota from the guide's toy jobs."""
from constructs import Construct
from cdk8s_kueue_ray import IResourceFlavor

from elastic_queues import ScenarioQueues


class FixedQueues(ScenarioQueues):
    def __init__(self, scope: Construct, id: str, flavor: IResourceFlavor) -> None:
        super().__init__(scope, id, flavor, "fixed-cq", "fixed-lq", 4, 8)
