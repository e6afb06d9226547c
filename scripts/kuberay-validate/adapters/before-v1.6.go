// The checks of KubeRay v1.4 and v1.5, in the order their reconcilers run them (build.sh copies this file
// beside main.go for those versions). All from controllers/ray/utils/validation.go:
//   - RayCluster: rayClusterReconcile (controllers/ray/raycluster_controller.go) runs
//     ValidateRayClusterMetadata, ValidateRayClusterSpec(spec, annotations), ValidateRayClusterStatus.
//   - RayJob: Reconcile (controllers/ray/rayjob_controller.go; v1.5 through validateRayJob) runs
//     ValidateRayJobMetadata, ValidateRayJobSpec (which runs ValidateRayClusterSpec on rayClusterSpec with
//     the RayJob's annotations), ValidateRayJobStatus.
//   - RayService: Reconcile (controllers/ray/rayservice_controller.go) runs ValidateRayServiceMetadata and
//     ValidateRayServiceSpec (which runs ValidateRayClusterSpec on rayClusterConfig) first thing: RayService
//     has no spec.managedBy yet, and deletion is handled after the checks.
//
// Feature gates read by these checks (pkg/features): RayJobDeletionPolicy (default off in v1.4 and v1.5:
// any deletionPolicy / deletionStrategy and any suspended worker group is refused) and, in v1.5,
// RayServiceIncrementalUpgrade (default off: ValidateClusterUpgradeOptions is not reached).
package main

import (
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
)

func rayClusterChecks(rc *rayv1.RayCluster) []check {
	return []check{
		{"utils.ValidateRayClusterMetadata", func() error { return utils.ValidateRayClusterMetadata(rc.ObjectMeta) }},
		{"utils.ValidateRayClusterSpec", func() error { return utils.ValidateRayClusterSpec(&rc.Spec, rc.Annotations) }},
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

func rayServiceSkip(*rayv1.RayService) string { return "" }

func rayServiceChecks(svc *rayv1.RayService) []check {
	return []check{
		{"utils.ValidateRayServiceMetadata", func() error { return utils.ValidateRayServiceMetadata(svc.ObjectMeta) }},
		{"utils.ValidateRayServiceSpec", func() error { return utils.ValidateRayServiceSpec(svc) }},
	}
}
