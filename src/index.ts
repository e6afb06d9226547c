// Constructs
export { KueueVersion, KubeRayVersion, KueueRayVersionsProps, KueueRayVersions, VersionChoice } from './platform/versions';
export { ImageRegistry, ImageRegistryProps } from './platform/image-registry';
export { KueueRayApp, KueueRayAppProps } from './platform/kueue-ray-app';
export * from './platform/quantity';
export { ServiceAccountReference } from './platform/service-account';
export * from './kueue/resource-flavor';
export { TaintEffect, TolerationOperator, FlavorTaint, FlavorToleration } from './platform/toleration';
export { ResourceQuota, FlavorQuotas, ResourceGroup } from './kueue/resource-group';
export * from './kueue/cluster-queue';
export * from './kueue/local-queue';
export * from './kueue/workload-priority-class';
export * from './kueue/cohort';
export * from './kueue/tenant-queue';
export * from './kueue/admission-check';
export * from './kueue/multikueue-cluster';
export * from './kueue/multikueue-config';
export * from './kueue/multikueue-worker';
export * from './kueue/multikueue-manager';
export { ContainerResources, ExtendedResourceRequest } from './platform/container-resources';
export {
  RayGroupOptions, HeadGroupOptions, HeadServiceType, WorkerGroupOptions, UpscalingMode, AutoscalerVersion, AutoscalingOptions,
} from './ray/ray-cluster-spec';
export * from './ray/ray-workload';
export * from './ray/queued-ray-job';
export * from './ray/elastic-ray-cluster';
export * from './ray/elastic-ray-service';
export * from './ray/queued-ray-cluster';
export * from './ray/queued-ray-service';
export { RayServeProps } from './ray/serve-config';
// The pure policy (rules, gang accounting, version table) is a separate entry point, 'cdk8s-kueue-ray/policy',
// because its API (bigint quantities, free functions) is for the controller and CLI, not for jsii bindings.
export { ContainerImage } from './install/image';
export * from './install/kueue-install';
export { FairSharingOptions, FairSharingPreemptionStrategy, WaitForPodsReadyOptions } from './install/kueue-configuration';
export * from './install/kuberay-install';
export * from './install/admission-controller/admission-controller';
export * from './plan/plan';
export * from './observability/queue-observability';
