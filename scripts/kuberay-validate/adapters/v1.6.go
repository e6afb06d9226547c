// The checks of KubeRay v1.6, in the order its reconcilers run them (build.sh copies this file beside
// main.go for v1.6.x). All from controllers/ray/utils/validation.go:
//   - RayCluster: rayClusterReconcile (controllers/ray/raycluster_controller.go) runs
//     ValidateRayClusterMetadata, ValidateRayClusterSpec(spec, annotations), ValidateRayClusterUpgradeOptions
//     (new in v1.6: upgradeStrategy.type is Recreate or None, and is refused on a RayCluster a RayJob or
//     RayService created), ValidateRayClusterStatus.
//   - RayJob: validateRayJob (controllers/ray/rayjob_controller.go) runs ValidateRayJobMetadata,
//     ValidateRayJobSpec (which runs ValidateRayClusterSpec on rayClusterSpec with the RayJob's
//     annotations), ValidateRayJobStatus.
//   - RayService: Reconcile (controllers/ray/rayservice_controller.go) skips a RayService with an external
//     spec.managedBy and handles deletion before it calls validateRayService: ValidateRayServiceMetadata,
//     ValidateRayServiceSpec (which runs ValidateRayClusterSpec on rayClusterConfig).
//
// Feature gates read by these checks (pkg/features), operator defaults: RayJobDeletionPolicy on (Beta in
// v1.6), RayServiceIncrementalUpgrade off (ValidateClusterUpgradeOptions is not reached).
package main

import (
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
)

func rayClusterChecks(rc *rayv1.RayCluster) []check {
	return []check{
		{"utils.ValidateRayClusterMetadata", func() error { return utils.ValidateRayClusterMetadata(rc.ObjectMeta) }},
		{"utils.ValidateRayClusterSpec", func() error { return utils.ValidateRayClusterSpec(&rc.Spec, rc.Annotations) }},
		{"utils.ValidateRayClusterUpgradeOptions", func() error { return utils.ValidateRayClusterUpgradeOptions(rc) }},
		{"utils.ValidateRayClusterStatus", func() error { return utils.ValidateRayClusterStatus(rc) }},
	}
}

func rayJobChecks(job *rayv1.RayJob) []check {
	return []check{
		{"utils.ValidateRayJobMetadata", func() error { return utils.ValidateRayJobMetadata(job.ObjectMeta) }},
		{"utils.ValidateRayJobSpec", func() error { return utils.ValidateRayJobSpec(job) }},
		{"utils.ValidateRayJobStatus", func() error { return utils.ValidateRayJobStatus(job) }},
	}
}

func rayServiceSkip(svc *rayv1.RayService) string {
	if m := utils.ManagedByExternalController(svc.Spec.ManagedBy); m != nil {
		return "spec.managedBy is " + *m + ": the RayService reconciler skips it"
	}
	if !svc.DeletionTimestamp.IsZero() {
		return "metadata.deletionTimestamp is set: the RayService reconciler only cleans up"
	}
	return ""
}

func rayServiceChecks(svc *rayv1.RayService) []check {
	return []check{
		{"utils.ValidateRayServiceMetadata", func() error { return utils.ValidateRayServiceMetadata(svc.ObjectMeta) }},
		{"utils.ValidateRayServiceSpec", func() error { return utils.ValidateRayServiceSpec(svc) }},
	}
}
