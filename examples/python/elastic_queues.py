"""The guide's elastic queues: ClusterQueue ray-cq (cohort ray-example, 8 CPU / 16Gi) and LocalQueue ray-lq."""
from typing import Optional

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


class ScenarioQueues(Chart):
    """A scenario's own queue: a ClusterQueue open to every namespace with one CPU and memory quota, and its LocalQueue in default."""

    def __init__(self, scope: Construct, id: str, flavor: IResourceFlavor, cluster_queue: str, local_queue: str,
                 cpu: float, memory_gi: float, cohort: Optional[str] = None) -> None:
        super().__init__(scope, id)
        self.cluster_queue = ClusterQueue(
            self, cluster_queue,
            cohort=Cohort.from_cohort_name(self, f"{cohort}-cohort", cohort) if cohort else None,
            namespace_selector=NamespaceSelector.all(),
            resource_groups=[ResourceGroup(flavors=[FlavorQuotas(
                flavor=flavor,
                quotas=[
                    ResourceQuota(resource=ResourceName.CPU, nominal_quota=Quantity.cpu(cpu)),
                    ResourceQuota(resource=ResourceName.MEMORY, nominal_quota=Quantity.gibibytes(memory_gi)),
                ],
            )])],
        )
        self.local_queue = LocalQueue(self, local_queue, namespace="default", cluster_queue=self.cluster_queue)


class ElasticQueues(ScenarioQueues):
    def __init__(self, scope: Construct, id: str, flavor: IResourceFlavor) -> None:
        super().__init__(scope, id, flavor, "ray-cq", "ray-lq", 8, 16, cohort="ray-example")
