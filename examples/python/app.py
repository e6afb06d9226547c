"""The examples app: every scenario of domain.md §2 plus the shared-cohort tenants, for one version pair.
A port of examples/app.ts; the consumer test checks that both write the same objects."""
from typing import Iterable, List, Optional, Set

from cdk8s import Chart, Duration
from cdk8s_kueue_ray import (
    AdmissionController,
    GracefulPreemption,
    KubeRayInstall,
    KubeRayVersion,
    KueueInstall,
    KueueRayApp,
    KueueRayVersions,
    KueueVersion,
    FlavorToleration,
    TaintEffect,
    TolerationOperator,
)

from elastic_queues import ElasticQueues
from elastic_raycluster import ElasticRayClusterScenario
from elastic_rayservice import ElasticRayServiceScenario
from failing_job import FailingJob
from fixed_queues import FixedQueues
from gang_scheduling import GangScheduling
from guide_queues import GuideQueues
from priority import PriorityScenario
from raycluster import RayClusterScenario
from rayservice import RayServiceScenario
from tenants import SharedCohortTenants

SCENARIOS = ("queues", "gang-scheduling", "priority", "failing-job", "elastic-raycluster", "elastic-rayservice", "tenants",
             "raycluster", "rayservice")


def build_examples(
    outdir: str,
    kueue: Optional[str] = None,
    kube_ray: Optional[str] = None,
    scenarios: Iterable[str] = SCENARIOS,
    kueue_manifest: Optional[str] = None,
    kube_ray_crd_dir: Optional[str] = None,
    controller: bool = False,
    controller_image: Optional[str] = None,
) -> KueueRayApp:
    """The examples app. Its generateName jobs (gang scheduling, priority, the failing job) are charts of
    their own, which KueueRayApp writes to <outdir>/create/ for `kubectl create -f`.
    kueue_manifest / kube_ray_crd_dir: install Kueue and KubeRay from these local copies (the release
    manifests.yaml and the KubeRay CRD folder); the install charts come first in <outdir>/.
    controller: deploy the project's controller (AdmissionController, image controller_image or its
    default); it validates and defaults Ray objects in the tenant namespaces and explains pending workloads."""
    app = KueueRayApp(outdir=outdir)
    KueueRayVersions.use(
        app,
        kueue=KueueVersion.of(kueue) if kueue else None,
        kube_ray=KubeRayVersion.of(kube_ray) if kube_ray else None,
    )
    want: Set[str] = set(scenarios)
    queues = GuideQueues(app, "queues")
    if "gang-scheduling" in want:
        GangScheduling(app, "gang-scheduling", queues)
    if "priority" in want:
        PriorityScenario(app, "priority", queues)
    if "failing-job" in want:
        FailingJob(app, "failing-job", queues)
    if "elastic-raycluster" in want or "elastic-rayservice" in want:
        elastic = ElasticQueues(app, "elastic-queues", queues.default_flavor)
        if "elastic-raycluster" in want:
            ElasticRayClusterScenario(app, "elastic-raycluster", elastic)
        if "elastic-rayservice" in want:
            ElasticRayServiceScenario(app, "elastic-rayservice", elastic)
    if "tenants" in want:
        SharedCohortTenants(app, "tenants", queues.default_flavor, queues.dev_priority, queues.prod_priority)
    if "raycluster" in want or "rayservice" in want:
        fixed = FixedQueues(app, "fixed-queues", queues.default_flavor)
        if "raycluster" in want:
            RayClusterScenario(app, "raycluster", fixed)
        if "rayservice" in want:
            RayServiceScenario(app, "rayservice", fixed)
    if controller:
        # Graceful preemption on: Ray pods preempted by Kueue get 60 s and a 20 s preStop drain (kuberay#5004).
        AdmissionController(
            app, "controller",
            image=controller_image,
            graceful_preemption=GracefulPreemption(
                termination_grace_period=Duration.seconds(60), pre_stop_sleep=Duration.seconds(20),
            ),
        )
    # Installs first: every other chart depends on them, so <outdir>/ names them 0000-/0001-.
    installs: List[Chart] = []
    # The queue system on Linux nodes, allowed onto tainted control-plane nodes.
    node_selector = {"kubernetes.io/os": "linux"}
    tolerations = [FlavorToleration(key="node-role.kubernetes.io/control-plane", operator=TolerationOperator.EXISTS,
                                    effect=TaintEffect.NO_SCHEDULE)]
    if kube_ray_crd_dir:
        installs.append(KubeRayInstall(app, "kuberay-install", crd_dir=kube_ray_crd_dir, node_selector=node_selector,
                                       tolerations=tolerations))
    if kueue_manifest:
        installs.append(KueueInstall(app, "kueue-install", manifest_file=kueue_manifest, node_selector=node_selector,
                                     tolerations=tolerations))
    for child in app.node.children:
        if Chart.is_chart(child) and child not in installs:
            for install in installs:
                child.add_dependency(install)
    return app
