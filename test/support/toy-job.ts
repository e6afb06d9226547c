/**
 * The guide's toy RayJob cluster as YAML text, for tests that write RayJob files by hand: the
 * `rayClusterSpec:` key at two spaces, a 1 CPU / 2Gi head and the `small-group` worker (1 replica, 1-5),
 * requests equal to limits. One copy, so the CLIs' tests agree on what "the toy job" is.
 */
export function toyRayClusterSpecYaml(workerCpu = '1'): string {
  return `  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources:
              requests: {cpu: "1", memory: 2Gi}
              limits: {cpu: "1", memory: 2Gi}
    workerGroupSpecs:
    - groupName: small-group
      replicas: 1
      minReplicas: 1
      maxReplicas: 5
      template:
        spec:
          containers:
          - name: ray-worker
            image: rayproject/ray:2.46.0
            resources:
              requests: {cpu: "${workerCpu}", memory: 2Gi}
              limits: {cpu: "${workerCpu}", memory: 2Gi}
`;
}

/**
 * A RayJob with only a 1 CPU / 2Gi head (requests equal to limits), as YAML text in flow style: the smallest
 * RayJob plan and check accept. `queue` labels it for a LocalQueue; `shutdown` false is what Kueue's webhook
 * refuses for a queued job.
 */
export function headOnlyRayJobYaml(name: string, opts: { readonly queue?: string; readonly shutdown?: boolean } = {}): string {
  const metadata = opts.queue
    ? `metadata:\n  name: ${name}\n  namespace: default\n  labels: {kueue.x-k8s.io/queue-name: ${opts.queue}}\n`
    : `metadata: {name: ${name}, namespace: default}\n`;
  return `apiVersion: ray.io/v1
kind: RayJob
${metadata}spec:
  entrypoint: python -c "print(1)"
  shutdownAfterJobFinishes: ${opts.shutdown ?? true}
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources: {requests: {cpu: "1", memory: 2Gi}, limits: {cpu: "1", memory: 2Gi}}
`;
}
