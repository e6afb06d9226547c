"""Gang scheduling: two dev toy jobs on the 3 CPU queue. Each gang needs 2.5 CPU, so the second one
stays pending (no pods at all) although a single pod would fit."""
from cdk8s import Chart
from constructs import Construct
from cdk8s_kueue_ray import QueuedRayJob

from guide_queues import GuideQueues
from toy_job import toy_job_props


class GangScheduling(Chart):
    def __init__(self, scope: Construct, id: str, queues: GuideQueues) -> None:
        super().__init__(scope, id)
        self.jobs = [
            QueuedRayJob(self, f"dev-job-{n}", **toy_job_props(queues.user_queue, queues.dev_priority))
            for n in (1, 2)
        ]
