"""Priority: a dev job runs, then a prod job arrives; the ClusterQueue preempts the dev job."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import QueuedRayJob

from guide_queues import GuideQueues
from toy_job import toy_job_props


class PriorityScenario(Chart):
    def __init__(self, scope: Construct, id: str, queues: GuideQueues) -> None:
        super().__init__(scope, id)
        self.dev_job = QueuedRayJob(self, "dev-job", **toy_job_props(queues.user_queue, queues.dev_priority))
        self.prod_job = QueuedRayJob(self, "prod-job", **toy_job_props(queues.user_queue, queues.prod_priority))
