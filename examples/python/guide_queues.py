"""The Ray docs guide's queues (domain.md §2): one empty flavor, a 3 CPU / 6G ClusterQueue that
preempts lower priority, the LocalQueue user-queue in default, and two priority classes."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import (
    ClusterQueue,
    FlavorQuotas,
    LocalQueue,
    NamespaceSelector,
    PreemptionOptions,
    Quantity,
    ResourceFlavor,
    ResourceGroup,
    ResourceName,
    ResourceQuota,
    WithinClusterQueuePolicy,
    WorkloadPriorityClass,
)


class GuideQueues(Chart):
    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        self.default_flavor = ResourceFlavor(self, "default-flavor")
        self.cluster_queue = ClusterQueue(
            self, "cluster-queue",
            namespace_selector=NamespaceSelector.all(),
            preemption=PreemptionOptions(within_cluster_queue=WithinClusterQueuePolicy.LOWER_PRIORITY),
            resource_groups=[ResourceGroup(flavors=[FlavorQuotas(
                flavor=self.default_flavor,
                quotas=[
                    ResourceQuota(resource=ResourceName.CPU, nominal_quota=Quantity.cpu(3)),
                    ResourceQuota(resource=ResourceName.MEMORY, nominal_quota=Quantity.parse("6G")),
                ],
            )])],
        )
        self.user_queue = LocalQueue(self, "user-queue", namespace="default", cluster_queue=self.cluster_queue)
        self.prod_priority = WorkloadPriorityClass(
            self, "prod-priority", value=1000, description="Priority class for prod jobs")
        self.dev_priority = WorkloadPriorityClass(
            self, "dev-priority", value=100, description="Priority class for development jobs")
