/**
 * The queues of a live cluster for `check --kubeconfig`: LocalQueues, ClusterQueues, Cohorts,
 * WorkloadPriorityClasses and Namespaces, listed once through the controller's kube client (the same
 * objects the webhook's informers watch). Loaded only when used: it pulls in @kubernetes/client-node.
 */
import { ClusterObjects } from '../policy';

export interface ClusterQueueObjects {
  readonly objects: ClusterObjects;
  /** Lists that could not be read and were taken as empty, with the reason. */
  readonly notes: string[];
}

function statusOf(e: unknown): number | undefined {
  const any = e as { code?: number; statusCode?: number; response?: { statusCode?: number } };
  return any?.code ?? any?.statusCode ?? any?.response?.statusCode;
}

/**
 * Lists the objects with the Kueue API version `apiVersion` (e.g. kueue.x-k8s.io/v1beta2). A kind the
 * cluster does not serve (404, e.g. Cohorts on an older Kueue) is empty with a note; any other error
 * (unreachable, forbidden) throws, naming the kubeconfig and the list.
 */
export async function clusterQueueObjects(kubeconfig: string, apiVersion: string): Promise<ClusterQueueObjects> {
  const { apiClient, k8s } = await import('../controller/kube-client');
  const custom = apiClient(kubeconfig, k8s.CustomObjectsApi);
  const core = apiClient(kubeconfig, k8s.CoreV1Api);
  const [group, version] = apiVersion.split('/');
  const notes: string[] = [];
  const list = async (what: string, fn: () => Promise<any>): Promise<any[]> => {
    try {
      const r = await fn();
      return Array.isArray(r?.items) ? r.items : [];
    } catch (e) {
      if (statusOf(e) === 404) {
        notes.push(`the cluster serves no ${what}: taken as none`);
        return [];
      }
      const detail = e instanceof Error ? e.message.split('\n')[0] : String(e);
      throw new Error(`cannot list ${what} with the kubeconfig ${kubeconfig}: ${detail}. Fix: check the kubeconfig and its permissions (list on ${what}), or give the queues with --queues=FILE`);
    }
  };
  const kueue = (plural: string) => () => custom.listClusterCustomObject({ group, version, plural });
  const [localQueues, clusterQueues, cohorts, priorityClasses, namespaces] = await Promise.all([
    list(`localqueues.${group}/${version}`, kueue('localqueues')),
    list(`clusterqueues.${group}/${version}`, kueue('clusterqueues')),
    list(`cohorts.${group}/${version}`, kueue('cohorts')),
    list(`workloadpriorityclasses.${group}/${version}`, kueue('workloadpriorityclasses')),
    list('namespaces', () => core.listNamespace()),
  ]);
  return { objects: { localQueues, clusterQueues, cohorts, priorityClasses, namespaces }, notes };
}
