"""The guide's elastic queues: ClusterQueue ray-cq (cohort ray-example, 8 CPU / 16Gi) and LocalQueue ray-lq."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import (
    ClusterQueue,
    Cohort,
    FlavorQuotas,
    IResourceFlavor,
    LocalQueue,
    NamespaceSelector,
    Quantity,
    ResourceGroup,
    ResourceName,
    ResourceQuota,
)


class ElasticQueues(Chart):
    def __init__(self, scope: Construct, id: str, flavor: IResourceFlavor) -> None:
        super().__init__(scope, id)
        self.cluster_queue = ClusterQueue(
            self, "ray-cq",
            cohort=Cohort.from_cohort_name(self, "ray-example-cohort", "ray-example"),
            namespace_selector=NamespaceSelector.all(),
            resource_groups=[ResourceGroup(flavors=[FlavorQuotas(
                flavor=flavor,
                quotas=[
                    ResourceQuota(resource=ResourceName.CPU, nominal_quota=Quantity.cpu(8)),
                    ResourceQuota(resource=ResourceName.MEMORY, nominal_quota=Quantity.gibibytes(16)),
                ],
            )])],
        )
        self.local_queue = LocalQueue(self, "ray-lq", namespace="default", cluster_queue=self.cluster_queue)
