/**
 * A small Kubernetes REST client for the e2e tests: create, server-side apply (with dry-run), get,
 * list, patch, delete and polling waits, over mutual TLS from a kubeconfig's certificates.
 * (@kubernetes/client-node is ESM-only and would need a transform layer in jest; this is enough.)
 */
import * as fs from 'fs';
import * as https from 'https';
import { parse as parseYaml } from 'yaml';

interface Resource { group: string; version: string; plural: string; namespaced: boolean }

const KINDS: Record<string, { plural: string; namespaced: boolean }> = {
  Namespace: { plural: 'namespaces', namespaced: false },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  Service: { plural: 'services', namespaced: true },
  ConfigMap: { plural: 'configmaps', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  Pod: { plural: 'pods', namespaced: true },
  Event: { plural: 'events', namespaced: true },
  Node: { plural: 'nodes', namespaced: false },
  Deployment: { plural: 'deployments', namespaced: true },
  StatefulSet: { plural: 'statefulsets', namespaced: true },
  ReplicaSet: { plural: 'replicasets', namespaced: true },
  DaemonSet: { plural: 'daemonsets', namespaced: true },
  Job: { plural: 'jobs', namespaced: true },
  CronJob: { plural: 'cronjobs', namespaced: true },
  CustomResourceDefinition: { plural: 'customresourcedefinitions', namespaced: false },
  MutatingWebhookConfiguration: { plural: 'mutatingwebhookconfigurations', namespaced: false },
  ValidatingWebhookConfiguration: { plural: 'validatingwebhookconfigurations', namespaced: false },
  ValidatingAdmissionPolicy: { plural: 'validatingadmissionpolicies', namespaced: false },
  ValidatingAdmissionPolicyBinding: { plural: 'validatingadmissionpolicybindings', namespaced: false },
  NetworkPolicy: { plural: 'networkpolicies', namespaced: true },
  ResourceQuota: { plural: 'resourcequotas', namespaced: true },
  LimitRange: { plural: 'limitranges', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  Role: { plural: 'roles', namespaced: true },
  RoleBinding: { plural: 'rolebindings', namespaced: true },
  APIService: { plural: 'apiservices', namespaced: false },
  ResourceFlavor: { plural: 'resourceflavors', namespaced: false },
  ClusterQueue: { plural: 'clusterqueues', namespaced: false },
  LocalQueue: { plural: 'localqueues', namespaced: true },
  WorkloadPriorityClass: { plural: 'workloadpriorityclasses', namespaced: false },
  Cohort: { plural: 'cohorts', namespaced: false },
  Topology: { plural: 'topologies', namespaced: false },
  Workload: { plural: 'workloads', namespaced: true },
  AdmissionCheck: { plural: 'admissionchecks', namespaced: false },
  MultiKueueConfig: { plural: 'multikueueconfigs', namespaced: false },
  MultiKueueCluster: { plural: 'multikueueclusters', namespaced: false },
  RayJob: { plural: 'rayjobs', namespaced: true },
  RayCluster: { plural: 'rayclusters', namespaced: true },
  RayService: { plural: 'rayservices', namespaced: true },
  PodDisruptionBudget: { plural: 'poddisruptionbudgets', namespaced: true },
  Lease: { plural: 'leases', namespaced: true },
  Certificate: { plural: 'certificates', namespaced: true },
  Issuer: { plural: 'issuers', namespaced: true },
};

export function resourceOf(apiVersion: string, kind: string): Resource {
  const k = KINDS[kind];
  if (!k) throw new Error(`e2e client: unknown kind ${kind}`);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group, version, ...k };
}

export function collectionPath(apiVersion: string, kind: string, namespace?: string): string {
  const r = resourceOf(apiVersion, kind);
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced ? `/namespaces/${namespace ?? 'default'}` : '';
  return `${base}${ns}/${r.plural}`;
}

export function objectPath(obj: any): string {
  return `${collectionPath(obj.apiVersion, obj.kind, obj.metadata?.namespace)}/${obj.metadata.name}`;
}

export class KubeError extends Error {
  constructor(public readonly status: number, public readonly body: any, what: string) {
    super(`${what}: HTTP ${status}: ${body?.message ?? JSON.stringify(body)}`);
  }
}

export interface KubeconfigCreds { server: string; ca: Buffer; cert: Buffer; key: Buffer }

export function readKubeconfig(file: string): KubeconfigCreds {
  const kc = parseYaml(fs.readFileSync(file, 'utf8'));
  const ctx = kc.contexts.find((c: any) => c.name === kc['current-context']).context;
  const cluster = kc.clusters.find((c: any) => c.name === ctx.cluster).cluster;
  const user = kc.users.find((u: any) => u.name === ctx.user).user;
  const b = (data?: string, file?: string) => (data ? Buffer.from(data, 'base64') : fs.readFileSync(file!));
  return {
    server: cluster.server,
    ca: b(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: b(user['client-certificate-data'], user['client-certificate']),
    key: b(user['client-key-data'], user['client-key']),
  };
}

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly url: URL;

  constructor(
    private readonly creds: KubeconfigCreds,
    private readonly impersonate?: { readonly user: string; readonly groups: readonly string[] },
    agent?: https.Agent,
  ) {
    this.url = new URL(creds.server);
    this.agent = agent ?? new https.Agent({ keepAlive: true, ca: creds.ca, cert: creds.cert, key: creds.key });
  }

  /** The same client acting as another user (Impersonate-User, as `kubectl --as`); the admin may impersonate anyone. */
  as(user: string, groups: readonly string[] = ['system:authenticated']): KubeClient {
    return new KubeClient(this.creds, { user, groups }, this.agent);
  }

  static fromKubeconfig(file: string): KubeClient {
    return new KubeClient(readKubeconfig(file));
  }

  close(): void {
    this.agent.destroy();
  }

  /** Where and as whom a request goes: the server's base path, the client's TLS agent, the impersonated user if any. */
  private requestOptions(method: string, path: string, headers: Record<string, string | number>): https.RequestOptions {
    return {
      method, host: this.url.hostname, port: this.url.port, path: `${this.url.pathname.replace(/\/$/, '')}${path}`, agent: this.agent,
      headers: {
        'Accept': 'application/json', ...headers,
        ...(this.impersonate ? { 'Impersonate-User': this.impersonate.user, 'Impersonate-Group': [...this.impersonate.groups] } : {}),
      },
    };
  }

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: any }> {
    return this.send(method, path, body, contentType, true);
  }

  /**
   * One request. A kept-alive socket the server closed while idle (kube-apiserver closes idle connections) can be
   * handed out just as the server's FIN arrives: the request then fails with ECONNRESET ("socket hang up") before the
   * server read it. Node documents this race (http.ClientRequest reusedSocket) and the remedy, which is to send the
   * request again on a fresh socket: once, and only when the socket was reused (the plan-agreement timelines met it in a CI
   * run at the start of a test, after the previous test of the file had run for 95 s).
   */
  private send(method: string, path: string, body: unknown, contentType: string, retry: boolean): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = https.request({
        ...this.requestOptions(method, path, data !== undefined ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(data) } : {}),
        timeout: 60000,
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: any = text;
          try { parsed = text ? JSON.parse(text) : undefined; } catch { /* plain text */ }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (retry && req.reusedSocket && e.code === 'ECONNRESET') resolve(this.send(method, path, body, contentType, false));
        else reject(e);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      if (data !== undefined) req.write(data);
      req.end();
    });
  }

  private async ok(method: string, path: string, body?: unknown, contentType?: string): Promise<any> {
    const r = await this.request(method, path, body, contentType);
    if (r.status >= 300) throw new KubeError(r.status, r.body, `${method} ${path}`);
    return r.body;
  }

  get(path: string): Promise<any> { return this.ok('GET', path); }

  async getOrUndefined(path: string): Promise<any> {
    const r = await this.request('GET', path);
    if (r.status === 404) return undefined;
    if (r.status >= 300) throw new KubeError(r.status, r.body, `GET ${path}`);
    return r.body;
  }

  async list(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<any[]> {
    const q = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : '';
    return (await this.get(`${collectionPath(apiVersion, kind, namespace)}${q}`)).items ?? [];
  }

  create(obj: any, dryRun = false): Promise<any> {
    return this.ok('POST', `${collectionPath(obj.apiVersion, obj.kind, obj.metadata?.namespace)}${dryRun ? '?dryRun=All' : ''}`, obj);
  }

  /** Server-side apply, as `kubectl apply --server-side` does. */
  apply(obj: any, opts: { dryRun?: boolean; fieldManager?: string; force?: boolean } = {}): Promise<any> {
    const q = new URLSearchParams({ fieldManager: opts.fieldManager ?? 'cdk8s-kueue-ray-e2e' });
    if (opts.force ?? true) q.set('force', 'true');
    if (opts.dryRun) q.set('dryRun', 'All');
    return this.ok('PATCH', `${objectPath(obj)}?${q}`, obj, 'application/apply-patch+yaml');
  }

  mergePatch(path: string, patch: unknown): Promise<any> {
    return this.ok('PATCH', path, patch, 'application/merge-patch+json');
  }

  async delete(path: string, propagation = 'Background'): Promise<void> {
    const r = await this.request('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: propagation });
    if (r.status >= 300 && r.status !== 404) throw new KubeError(r.status, r.body, `DELETE ${path}`);
  }

  /**
   * Watches a collection from `resourceVersion`: each event ({type, object}) goes to `onEvent` as it arrives, and
   * `onEnd` is called once, when the server closes the watch (`timeoutSeconds`, default the server's own), on an
   * error status, or on a failed connection. Returns what stops it.
   */
  watch(path: string, resourceVersion: string, onEvent: (e: { type: string; object: any }) => void,
    onEnd: (error?: Error) => void, timeoutSeconds?: number): () => void {
    const q = new URLSearchParams({ watch: '1', resourceVersion, allowWatchBookmarks: 'true' });
    if (timeoutSeconds !== undefined) q.set('timeoutSeconds', String(timeoutSeconds));
    let ended = false;
    const end = (e?: Error) => {
      if (!ended) {
        ended = true;
        onEnd(e);
      }
    };
    const req = https.request(this.requestOptions('GET', `${path}${path.includes('?') ? '&' : '?'}${q}`, {}), (res) => {
      if ((res.statusCode ?? 0) >= 300) {
        res.resume();
        end(new Error(`watch ${path}: HTTP ${res.statusCode}`));
        return;
      }
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        try {
          for (const l of lines) if (l.trim()) onEvent(JSON.parse(l));
        } catch (e) {
          req.destroy();
          end(new Error(`watch ${path}: ${(e as Error).message}`));
        }
      });
      res.on('end', () => end());
      res.on('error', (e) => end(e));
      // A connection that drops mid-stream (kube-apiserver killed) may close the response without an 'end'.
      res.on('close', () => end(res.complete ? undefined : new Error(`watch ${path}: the connection closed`)));
    });
    req.on('error', (e) => end(e));
    req.end();
    return () => {
      ended = true;
      req.destroy();
    };
  }
}

/**
 * A collection kept current by a list and then a watch from the list's resourceVersion, as client-go's informers
 * keep one: reading it costs no request, where a poll that lists every object costs the API server a full
 * encoding each time. After the server ends a watch (its timeout) it watches on from the last version seen; after
 * a 410 Gone (that version compacted) or a failed connection it lists again.
 */
export class WatchedCollection {
  private readonly items = new Map<string, any>();
  private stopWatch?: () => void;
  private stopped = false;
  private version = '';

  /** How many lists it has made: the first, and one after each 410 or dropped connection. */
  lists = 0;
  /** How many watches it has started. */
  watches = 0;

  private constructor(private readonly client: KubeClient, private readonly path: string, private readonly watchSeconds?: number) {}

  /**
   * Lists the collection and starts watching it; resolves once the list is in. `watchSeconds` ends each watch after
   * that long (then it watches on from where it was); default, the server's own timeout (30 to 60 minutes).
   */
  static async start(client: KubeClient, path: string, watchSeconds?: number): Promise<WatchedCollection> {
    const c = new WatchedCollection(client, path, watchSeconds);
    await c.relist();
    return c;
  }

  /** The objects as last seen. */
  objects(): any[] {
    return [...this.items.values()];
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
  }

  private async relist(): Promise<void> {
    const list = await this.client.get(this.path);
    this.lists++;
    this.items.clear();
    for (const o of list.items ?? []) this.items.set(`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
    this.version = list.metadata.resourceVersion;
    this.watchOn();
  }

  private watchOn(): void {
    if (this.stopped) return;
    let gone = false;
    this.watches++;
    this.stopWatch = this.client.watch(this.path, this.version, (e) => {
      if (e.type === 'ERROR') {
        gone = true;
        return;
      }
      this.version = e.object.metadata.resourceVersion;
      if (e.type === 'BOOKMARK') return;
      const key = `${e.object.metadata.namespace ?? ''}/${e.object.metadata.name}`;
      if (e.type === 'DELETED') this.items.delete(key);
      else this.items.set(key, e.object);
    }, (error) => {
      if (this.stopped) return;
      // A relist that fails (the cluster stopping) is retried; the reader sees the last state meanwhile.
      const again = () => (gone || error ? this.relist() : Promise.resolve(this.watchOn()))
        .catch(() => { if (!this.stopped) setTimeout(again, 500); });
      setTimeout(again, error ? 200 : 0);
    }, this.watchSeconds);
  }
}

/** Thrown by a waitFor predicate when waiting longer cannot help (the process that would answer has exited). */
export class GiveUp extends Error {}

/** What waitFor throws when the time is up (the message names what was awaited and the last state). */
export class WaitTimeout extends Error {}

/**
 * Polls `fn` until it returns a value other than undefined/false; the error names what was awaited and the last state.
 * Any error `fn` throws counts as "not yet", but a GiveUp, which ends the wait at once.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60000, intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
      last = v;
    } catch (e) {
      if (e instanceof GiveUp) throw new Error(`gave up waiting for ${what}: ${e.message}`);
      last = e;
    }
    if (Date.now() > deadline) throw new WaitTimeout(`timed out after ${timeoutMs} ms waiting for ${what}; `
      + `last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** The status condition of a type on any object (Workload, MultiKueueCluster, ...), or undefined. */
export function cond(obj: any, type: string): any {
  return (obj?.status?.conditions ?? []).find((c: any) => c.type === type);
}

/** A Workload holds its quota: Admitted, or QuotaReserved with an admission. */
export function isAdmitted(wl: any): boolean {
  return cond(wl, 'Admitted')?.status === 'True' || (cond(wl, 'QuotaReserved')?.status === 'True' && !!wl.status?.admission);
}
