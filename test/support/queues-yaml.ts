/**
 * One ClusterQueue with a LocalQueue and the default flavor, as YAML text, for tests that write queue files by
 * hand (plan and check read them beside the Ray objects). One copy, so the CLIs' tests agree on its shape.
 */
export interface QueuesYamlOptions {
  /** @default 'kueue.x-k8s.io/v1beta2' */
  readonly apiVersion?: string;
  /** @default 'cq' */
  readonly clusterQueue?: string;
  /** @default 'lq' */
  readonly localQueue?: string;
  /** @default 'default' */
  readonly namespace?: string;
  /** @default '8' */
  readonly cpu?: string;
  /** @default '16Gi' */
  readonly memory?: string;
}

export function queuesYaml(o: QueuesYamlOptions = {}): string {
  const api = o.apiVersion ?? 'kueue.x-k8s.io/v1beta2';
  const cq = o.clusterQueue ?? 'cq';
  return `apiVersion: ${api}
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: ${api}
kind: ClusterQueue
metadata: {name: ${cq}}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: "${o.cpu ?? '8'}"}
      - {name: memory, nominalQuota: ${o.memory ?? '16Gi'}}
---
apiVersion: ${api}
kind: LocalQueue
metadata: {name: ${o.localQueue ?? 'lq'}, namespace: ${o.namespace ?? 'default'}}
spec: {clusterQueue: ${cq}}
`;
}
