"""A RayJob whose entrypoint exits 1, retried once (backoffLimit): each attempt is a new RayCluster, and
once the last one fails the RayJob is FAILED and Kueue gives its quota to the next pending job."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import QueuedRayJob

from guide_queues import GuideQueues
from toy_job import toy_job_props

FAILING_ENTRYPOINT = "python -c \"import ray, sys; ray.init(); print('failing on purpose'); sys.exit(1)\""


class FailingJob(Chart):
    def __init__(self, scope: Construct, id: str, queues: GuideQueues) -> None:
        super().__init__(scope, id)
        props = toy_job_props(queues.user_queue, queues.dev_priority)
        props.update(generate_name="rayjob-failing-", entrypoint=FAILING_ENTRYPOINT, backoff_limit=1)
        self.job = QueuedRayJob(self, "failing-job", **props)
