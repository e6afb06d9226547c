"""KubeRay's ray-job.kueue-toy-sample.yaml as QueuedRayJob props (domain.md §2): 2.5 CPU / 4296Mi per gang."""
from typing import Any, Dict

from cdk8s import Duration
from cdk8s_kueue_ray import (
    ContainerResources,
    HeadGroupOptions,
    ILocalQueue,
    IWorkloadPriorityClass,
    Quantity,
    WorkerGroupOptions,
)

TOY_ENTRYPOINT = '''python -c "
import ray
import time
ray.init()
for i in range(600):
    print(f'iter: {i}, ray.cluster_resources(): {ray.cluster_resources()}')
    time.sleep(1)
"'''


def toy_job_props(queue: ILocalQueue, priority_class: IWorkloadPriorityClass) -> Dict[str, Any]:
    """Keyword arguments for QueuedRayJob; each job gets its own copy, as the TS function returns a new object."""
    one_cpu_two_gi = ContainerResources(cpu=Quantity.cpu(1), memory=Quantity.gibibytes(2))
    return dict(
        generate_name="rayjob-sample-",
        queue=queue,
        priority_class=priority_class,
        entrypoint=TOY_ENTRYPOINT,
        ttl_after_finished=Duration.seconds(10),
        # The loop's one-second steps: plan's timeline starts the next toy job when this one finishes.
        expected_duration=Duration.seconds(600),
        ray_version="2.46.0",
        head_group=HeadGroupOptions(resources=one_cpu_two_gi),
        worker_groups=[
            WorkerGroupOptions(
                group_name="small-group", replicas=1, min_replicas=1, max_replicas=5, resources=one_cpu_two_gi,
            ),
        ],
    )
