/**
 * A live cluster for `check --kubeconfig`: Kueue's manager Deployment and Configuration (which Kueue
 * version runs, and its ElasticJobsViaWorkloadSlices gate), and the LocalQueues, ClusterQueues,
 * Cohorts, WorkloadPriorityClasses and Namespaces (the objects the webhook's informers watch), read
 * once through the controller's kube client. Loaded only when used: it pulls in @kubernetes/client-node.
 */
import { ClusterObjects } from '../policy';

/** What `check` reads from a cluster; tests may give their own. */
export interface ClusterSource {
  /** Kueue's install objects (kueue-system/kueue-controller-manager and its ConfigMap), those that exist. */
  install(): Promise<{ objects: any[]; notes: string[] }>;
  /** The queue objects at the Kueue API version (e.g. kueue.x-k8s.io/v1beta2). */
  queues(apiVersion: string): Promise<{ objects: ClusterObjects; notes: string[] }>;
}

const KUEUE_NAMESPACE = 'kueue-system';

function statusOf(e: unknown): number | undefined {
  const any = e as { code?: number; statusCode?: number; response?: { statusCode?: number } };
  return any?.code ?? any?.statusCode ?? any?.response?.statusCode;
}

function detail(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}

/** Reads from the cluster of `kubeconfig`. */
export function kubeconfigSource(kubeconfig: string): ClusterSource {
  const client = async () => {
    const { apiClient, k8s, readRetryingWhileBusy } = await import('../controller/kube-client');
    const of = (api: unknown) => apiClient(kubeconfig, api);
    return { custom: of(k8s.CustomObjectsApi), core: of(k8s.CoreV1Api), apps: of(k8s.AppsV1Api), retry: readRetryingWhileBusy };
  };
  const unreachable = (what: string, e: unknown) => new Error(`cannot read ${what} with the kubeconfig ${kubeconfig}: ${detail(e)}. `
    + `Fix: check the kubeconfig and its permissions (get/list on ${what}), or give the queues with --queues=FILE and the versions with flags`);
  return {
    async install() {
      const { core, apps, retry } = await client();
      const objects: any[] = [];
      const notes: string[] = [];
      // Absent (another install layout) or forbidden: the versions and the gate then come from flags or defaults.
      const read = async (what: string, fn: () => Promise<any>, kind: string) => {
        try {
          objects.push({ ...(await retry(fn)), kind });
        } catch (e) {
          const s = statusOf(e);
          if (s === 404) return;
          if (s === 403 || s === 401) notes.push(`cannot read ${what} (${s}): the Kueue version and gate come from the flags or the defaults`);
          else throw unreachable(what, e);
        }
      };
      await read(`deployments/${KUEUE_NAMESPACE}/kueue-controller-manager`,
        () => apps.readNamespacedDeployment({ name: 'kueue-controller-manager', namespace: KUEUE_NAMESPACE }), 'Deployment');
      await read(`configmaps/${KUEUE_NAMESPACE}/kueue-manager-config`,
        () => core.readNamespacedConfigMap({ name: 'kueue-manager-config', namespace: KUEUE_NAMESPACE }), 'ConfigMap');
      return { objects, notes };
    },
    async queues(apiVersion: string) {
      const { custom, core, retry } = await client();
      const [group, version] = apiVersion.split('/');
      const notes: string[] = [];
      const list = async (what: string, fn: () => Promise<any>): Promise<any[]> => {
        try {
          // Retried while the server is busy (429, 503): a check right after a cluster starts meets both.
          const r = await retry(fn);
          return Array.isArray(r?.items) ? r.items : [];
        } catch (e) {
          if (statusOf(e) === 404) {
            notes.push(`the cluster serves no ${what}: taken as none`);
            return [];
          }
          throw unreachable(what, e);
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
    },
  };
}
