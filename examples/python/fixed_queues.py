"""A queue of its own for the fixed-size RayCluster and RayService (ClusterQueue fixed-cq, 4 CPU / 8Gi;
LocalQueue fixed-lq): both gangs fit side by side, and neither takes quota from the guide's toy jobs."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import (
    ClusterQueue,
    FlavorQuotas,
    IResourceFlavor,
    LocalQueue,
    NamespaceSelector,
    Quantity,
    ResourceGroup,
    ResourceName,
    ResourceQuota,
)


class FixedQueues(Chart):
    def __init__(self, scope: Construct, id: str, flavor: IResourceFlavor) -> None:
        super().__init__(scope, id)
        self.cluster_queue = ClusterQueue(
            self, "fixed-cq",
            namespace_selector=NamespaceSelector.all(),
            resource_groups=[ResourceGroup(flavors=[FlavorQuotas(
                flavor=flavor,
                quotas=[
                    ResourceQuota(resource=ResourceName.CPU, nominal_quota=Quantity.cpu(4)),
                    ResourceQuota(resource=ResourceName.MEMORY, nominal_quota=Quantity.gibibytes(8)),
                ],
            )])],
        )
        self.local_queue = LocalQueue(self, "fixed-lq", namespace="default", cluster_queue=self.cluster_queue)
