/**
 * One reader of a live cluster for the CLIs (`check --kubeconfig`, `plan --kubeconfig`): the controller's
 * kube client, reads retried while the server is busy, a resource the cluster does not serve taken as none
 * (with a note), and one error for anything else that names what was read, the kubeconfig and the fix.
 * Loaded only when used: it pulls in @kubernetes/client-node.
 */
import { apiClient, k8s, readRetryingWhileBusy, type AppsV1Api, type CoreV1Api, type CustomObjectsApi } from '../kube/client';

/** An object as the API server lists or returns it: a JSON object, which its kind's schema holds. */
export type ClusterObject = Record<string, unknown>;

/** The HTTP status of a client error, where it carries one. */
export function statusOf(e: unknown): number | undefined {
  const err = e as { code?: number; statusCode?: number; response?: { statusCode?: number } } | undefined;
  return err?.code ?? err?.statusCode ?? err?.response?.statusCode;
}

function detail(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}

export class ClusterReader {
  /** What the reads found worth saying (resources the cluster does not serve, objects it would not show). */
  public readonly notes: string[] = [];
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;

  /**
   * @param fix how else to give what could not be read, appended to the error's fix (e.g. `--queues=FILE`)
   */
  constructor(private readonly kubeconfig: string, private readonly fix = '') {
    this.custom = apiClient(kubeconfig, k8s.CustomObjectsApi);
    this.core = apiClient(kubeconfig, k8s.CoreV1Api);
    this.apps = apiClient(kubeconfig, k8s.AppsV1Api);
  }

  /** The error for a read that failed other than by 404 (or by 401/403 where the caller allows it). */
  unreachable(what: string, e: unknown): Error {
    return new Error(`cannot read ${what} with the kubeconfig ${this.kubeconfig}: ${detail(e)}. Fix: check the kubeconfig and its permissions `
      + `(get/list on ${what})${this.fix ? `, ${this.fix}` : ''}`);
  }

  /** The items of a list, each given `apiVersion` and `kind` when named; none (and a note) where the cluster does not serve it. */
  async list(what: string, fn: () => Promise<{ readonly items?: unknown } | undefined>, typeMeta?: { apiVersion: string; kind: string })
    : Promise<ClusterObject[]> {
    try {
      // Retried while the server is busy (429, 503) or closed a kept-alive connection: a CLI run right after a cluster starts meets both.
      const r = await readRetryingWhileBusy(fn);
      const listed = r?.items;
      const items = (Array.isArray(listed) ? listed : []) as ClusterObject[];
      return typeMeta ? items.map((o) => ({ apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...o })) : items;
    } catch (e) {
      if (statusOf(e) === 404) {
        this.notes.push(`the cluster serves no ${what}: taken as none`);
        return [];
      }
      throw this.unreachable(what, e);
    }
  }

  /** Every object of a cluster-wide listed custom resource (`apiVersion` group/version), typed. */
  listCustom(apiVersion: string, plural: string, kind: string): Promise<ClusterObject[]> {
    const [group, version] = apiVersion.split('/');
    return this.list(`${plural}.${group}/${version}`, () => this.custom.listClusterCustomObject({ group, version, plural }), { apiVersion, kind });
  }

  listNodes(): Promise<ClusterObject[]> {
    return this.list('nodes', () => this.core.listNode(), { apiVersion: 'v1', kind: 'Node' });
  }

  /** The pods bound to a node and not finished (what Kueue's TAS counts as the nodes' non-TAS usage, with the TAS ones). */
  listBoundPods(): Promise<ClusterObject[]> {
    const fieldSelector = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';
    return this.list('pods', () => this.core.listPodForAllNamespaces({ fieldSelector }),
      { apiVersion: 'v1', kind: 'Pod' });
  }

  listNamespaces(typed = false): Promise<ClusterObject[]> {
    return this.list('namespaces', () => this.core.listNamespace(), typed ? { apiVersion: 'v1', kind: 'Namespace' } : undefined);
  }

  /**
   * One object, or undefined where it is absent; where it may not be read (401, 403) also undefined, with a
   * note saying `consequence`.
   */
  async getOptional(what: string, fn: (c: { core: CoreV1Api; apps: AppsV1Api }) => Promise<object>, kind: string, consequence: string)
    : Promise<ClusterObject | undefined> {
    try {
      return { ...(await readRetryingWhileBusy(() => fn({ core: this.core, apps: this.apps }))), kind };
    } catch (e) {
      const s = statusOf(e);
      if (s === 404) return undefined;
      if (s === 403 || s === 401) {
        this.notes.push(`cannot read ${what} (${s}): ${consequence}`);
        return undefined;
      }
      throw this.unreachable(what, e);
    }
  }
}
