/**
 * A live cluster for `check --kubeconfig`: Kueue's manager Deployment and Configuration (which Kueue
 * version runs, and its ElasticJobsViaWorkloadSlices gate), and the LocalQueues, ClusterQueues,
 * Cohorts, WorkloadPriorityClasses and Namespaces (the objects the webhook's informers watch), read
 * once through the CLIs' cluster reader. Loaded only when used: it pulls in @kubernetes/client-node.
 */
import { ClusterObjects } from '../policy';

/** What `check` reads from a cluster; tests may give their own. */
export interface ClusterSource {
  /** Kueue's install objects (kueue-system/kueue-controller-manager and its ConfigMap), those that exist. */
  install(): Promise<{ objects: unknown[]; notes: string[] }>;
  /** The queue objects at the Kueue API version (e.g. kueue.x-k8s.io/v1beta2). */
  queues(apiVersion: string): Promise<{ objects: ClusterObjects; notes: string[] }>;
}

const KUEUE_NAMESPACE = 'kueue-system';

/** Reads from the cluster of `kubeconfig`. */
export function kubeconfigSource(kubeconfig: string): ClusterSource {
  const reader = async () => {
    const { ClusterReader } = await import('./cluster-reader');
    return new ClusterReader(kubeconfig, 'or give the queues with --queues=FILE and the versions with flags');
  };
  return {
    async install() {
      const r = await reader();
      // Absent (another install layout) or forbidden: the versions and the gate then come from flags or defaults.
      const consequence = 'the Kueue version and gate come from the flags or the defaults';
      const objects = [
        await r.getOptional(`deployments/${KUEUE_NAMESPACE}/kueue-controller-manager`,
          ({ apps }) => apps.readNamespacedDeployment({ name: 'kueue-controller-manager', namespace: KUEUE_NAMESPACE }), 'Deployment', consequence),
        await r.getOptional(`configmaps/${KUEUE_NAMESPACE}/kueue-manager-config`,
          ({ core }) => core.readNamespacedConfigMap({ name: 'kueue-manager-config', namespace: KUEUE_NAMESPACE }), 'ConfigMap', consequence),
      ].filter((o) => o !== undefined);
      return { objects, notes: r.notes };
    },
    async queues(apiVersion: string) {
      const r = await reader();
      const [localQueues, clusterQueues, cohorts, priorityClasses, namespaces] = await Promise.all([
        r.listCustom(apiVersion, 'localqueues', 'LocalQueue'),
        r.listCustom(apiVersion, 'clusterqueues', 'ClusterQueue'),
        r.listCustom(apiVersion, 'cohorts', 'Cohort'),
        r.listCustom(apiVersion, 'workloadpriorityclasses', 'WorkloadPriorityClass'),
        r.listNamespaces(),
      ]);
      return { objects: { localQueues, clusterQueues, cohorts, priorityClasses, namespaces }, notes: r.notes };
    },
  };
}
