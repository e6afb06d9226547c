/** Minimal valid Ray objects (Ray 2.52.0, one worker group), for the oracle tests and the site mutants. */
export const container = (name: string) => ({ name, image: 'rayproject/ray:2.52.0' });
export const head = (extra: Record<string, unknown> = {}) => ({ rayStartParams: {}, template: { spec: { containers: [container('ray-head')] } },
  ...extra });
export const worker = (groupName: string, extra: Record<string, unknown> = {}) => ({
  groupName, replicas: 1, minReplicas: 1, maxReplicas: 3, rayStartParams: {}, template: { spec: { containers: [container('ray-worker')] } }, ...extra,
});
export const clusterSpec = (extra: Record<string,
  unknown> = {}) => ({ rayVersion: '2.52.0', headGroupSpec: head(), workerGroupSpecs: [worker('small')], ...extra });

export function rayJob(name = 'job', spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayJob', metadata: { name, namespace: 'default', ...metadata },
    spec: { entrypoint: 'python -c "print(1)"', shutdownAfterJobFinishes: true, submissionMode: 'K8sJobMode', rayClusterSpec: clusterSpec(),
      ...spec },
  };
}
export function rayCluster(name = 'cluster', spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): any {
  return { apiVersion: 'ray.io/v1', kind: 'RayCluster', metadata: { name, namespace: 'default', ...metadata }, spec: clusterSpec(spec) };
}
export function rayService(name = 'service', spec: Record<string, unknown> = {}, cluster: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {}): any {
  return {
    apiVersion: 'ray.io/v1', kind: 'RayService', metadata: { name, namespace: 'default', ...metadata },
    spec: { serveConfigV2: 'applications: []\n', rayClusterConfig: clusterSpec(cluster), ...spec },
  };
}
