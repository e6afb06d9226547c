/**
 * The webhook's view of the cluster, kept current by client-node informers on the Kueue queue
 * objects and namespaces. Snapshots are rebuilt lazily, once per change, so admission stays cheap.
 */
import { Inventory, inventoryFromObjects } from '../policy';
import { ClusterView } from './admission';
import {
  apiClient, k8s, restartOnError, sharedKubeConfig, type Informer, type KubernetesListObject, type KubernetesObject, type ObjectCache,
} from '../kube/client';


export interface InventoryCacheOptions {
  readonly kubeconfigFile?: string;
  /** Kueue API version to watch, e.g. "v1beta2". */
  readonly kueueApiVersion: string;
  readonly log?: (entry: Record<string, unknown>) => void;
}

type Kind = 'localQueues' | 'clusterQueues' | 'cohorts' | 'priorityClasses' | 'namespaces';

export class InventoryCache {
  private readonly informers = new Map<Kind, Informer<KubernetesObject> & ObjectCache<KubernetesObject>>();
  private readonly synced = new Set<Kind>();
  private snapshot?: Inventory;
  private stopped = false;

  constructor(private readonly opts: InventoryCacheOptions) {}

  async start(): Promise<void> {
    const kc = sharedKubeConfig(this.opts.kubeconfigFile);
    const custom = apiClient(this.opts.kubeconfigFile, k8s.CustomObjectsApi);
    const core = apiClient(this.opts.kubeconfigFile, k8s.CoreV1Api);
    const v = this.opts.kueueApiVersion;
    const kueue = (plural: string) => () => custom.listClusterCustomObject({ group: 'kueue.x-k8s.io', version: v, plural });
    const specs: Array<[Kind, string, () => Promise<KubernetesListObject<KubernetesObject>>]> = [
      ['localQueues', `/apis/kueue.x-k8s.io/${v}/localqueues`, kueue('localqueues')],
      ['clusterQueues', `/apis/kueue.x-k8s.io/${v}/clusterqueues`, kueue('clusterqueues')],
      ['cohorts', `/apis/kueue.x-k8s.io/${v}/cohorts`, kueue('cohorts')],
      ['priorityClasses', `/apis/kueue.x-k8s.io/${v}/workloadpriorityclasses`, kueue('workloadpriorityclasses')],
      ['namespaces', '/api/v1/namespaces', () => core.listNamespace()],
    ];
    await Promise.all(specs.map(async ([kind, path, list]) => {
      const inf = k8s.makeInformer(kc, path, list);
      const changed = () => { this.snapshot = undefined; };
      for (const ev of ['add', 'update', 'delete'] as const) inf.on(ev, changed);
      inf.on('connect', () => { this.synced.add(kind); changed(); });
      restartOnError(inf, kind, () => this.stopped, this.opts.log);
      this.informers.set(kind, inf);
      try {
        await inf.start(); // resolves after the initial list
        this.synced.add(kind);
      } catch (e) {
        this.opts.log?.({ level: 'warn', msg: `${kind} informer start failed`, detail: e instanceof Error ? e.message : String(e) });
      }
    }));
  }

  /** True once every informer has listed. */
  ready(): boolean {
    return this.synced.size === 5;
  }

  view(): ClusterView {
    if (!this.snapshot) {
      const list = (k: Kind) => this.informers.get(k)?.list() ?? [];
      this.snapshot = inventoryFromObjects({
        localQueues: list('localQueues'), clusterQueues: list('clusterQueues'), cohorts: list('cohorts'),
        priorityClasses: list('priorityClasses'), namespaces: list('namespaces'),
      });
    }
    return { inventory: this.snapshot };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
