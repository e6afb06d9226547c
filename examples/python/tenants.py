"""Beyond the guide: two tenants with their own quota in one cohort. team-a's training job needs more
than team-a owns and is admitted by borrowing team-b's idle quota (synth prints a warning saying so)."""
from typing import List, Optional

from cdk8s import Chart, Duration
from constructs import Construct
from cdk8s_kueue_ray import (
    Cohort,
    ContainerResources,
    FlavorQuotas,
    HeadGroupOptions,
    IResourceFlavor,
    IWorkloadPriorityClass,
    Quantity,
    QueuedRayJob,
    ResourceGroup,
    ResourceName,
    ResourceQuota,
    TenantQueue,
    WorkerGroupOptions,
)


class SharedCohortTenants(Chart):
    def __init__(
        self, scope: Construct, id: str, flavor: IResourceFlavor,
        dev: IWorkloadPriorityClass, prod: IWorkloadPriorityClass,
    ) -> None:
        super().__init__(scope, id)
        cohort = Cohort(self, "research")

        def quota(cpu: float, mem_gi: float, lend_cpu: Optional[float] = None) -> List[ResourceGroup]:
            return [ResourceGroup(flavors=[FlavorQuotas(
                flavor=flavor,
                quotas=[
                    ResourceQuota(
                        resource=ResourceName.CPU, nominal_quota=Quantity.cpu(cpu), borrowing_limit=Quantity.cpu(cpu),
                        lending_limit=Quantity.cpu(lend_cpu) if lend_cpu is not None else None,
                    ),
                    ResourceQuota(
                        resource=ResourceName.MEMORY, nominal_quota=Quantity.gibibytes(mem_gi),
                        borrowing_limit=Quantity.gibibytes(mem_gi),
                    ),
                ],
            )])]

        # manage_all_workloads=False: this app also queues the guide's jobs in `default`, and Kueue filters every
        # job by managedJobsNamespaceSelector, so managing the tenant namespaces whole would stop those
        # (KueueInstall refuses that combination at synth).
        self.team_a = TenantQueue(
            self, "team-a",
            namespace="team-a", cohort=cohort, resource_groups=quota(4, 8), manage_all_workloads=False,
            default_priority_class=dev, allowed_priority_classes=[dev, prod],
        )
        self.team_b = TenantQueue(
            self, "team-b",
            namespace="team-b", cohort=cohort, resource_groups=quota(4, 8, 3), manage_all_workloads=False,
            default_priority_class=dev, allowed_priority_classes=[dev],
        )
        # 1 + 4×1 + 0.5 submitter = 5.5 CPU > team-a's 4: fits only by borrowing from team-b (which lends up to 3).
        self.training_job = QueuedRayJob(
            self, "team-a-train",
            queue=self.team_a,
            entrypoint='python -c "import ray; ray.init(); print(ray.cluster_resources())"',
            ttl_after_finished=Duration.seconds(60),
            head_group=HeadGroupOptions(
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(2)),
            ),
            worker_groups=[WorkerGroupOptions(
                group_name="workers", replicas=4,
                resources=ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(1)),
            )],
        )
