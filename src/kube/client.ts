/**
 * The one way this package reaches a cluster, for the controller (informers, reconciler, certificates) and
 * the CLIs' --kubeconfig readers alike: @kubernetes/client-node (ESM-only; Node 20.19+ loads it with
 * require()), the kubeconfig (a file, or the pod's service account), one keep-alive connection pool for
 * every API request, reads retried while the API server is busy, and informers that restart after a watch
 * error. Below the controller and the CLIs; it imports neither, nor cdk8s.
 */
import * as https from 'https';
import type { Configuration, Informer, KubeConfig, KubernetesObject, RequestContext } from '@kubernetes/client-node';

/**
 * Deprecations client-node's own dependencies set off, which its users cannot act on: node-fetch 2 calls `url.parse`
 * (DEP0169) and its tr46 requires the builtin `punycode` (DEP0040). Node 22 and later print both once per process on
 * stderr for code outside node_modules, which the bundle (lib/controller, the image's /app) is: the CLIs' output
 * (`check --kubeconfig` is parsed as JSON) and the controller's log carried them. Only these two codes are dropped.
 */
const THIRD_PARTY_DEPRECATIONS: ReadonlySet<string> = new Set(['DEP0040', 'DEP0169']);

function dropThirdPartyDeprecations(): void {
  const emit = process.emitWarning.bind(process) as (warning: string | Error, ...rest: unknown[]) => void;
  if ((process.emitWarning as { ckrFiltered?: boolean }).ckrFiltered) return;
  const filtered = (warning: string | Error, ...rest: unknown[]): void => {
    const opt = rest[0];
    const code = warning instanceof Error ? (warning as { code?: unknown }).code
      : opt !== null && typeof opt === 'object' ? (opt as { code?: unknown }).code : rest[1];
    if (typeof code === 'string' && THIRD_PARTY_DEPRECATIONS.has(code)) return;
    emit(warning, ...rest);
  };
  (filtered as { ckrFiltered?: boolean }).ckrFiltered = true;
  process.emitWarning = filtered;
}
dropThirdPartyDeprecations();

// eslint-disable-next-line @typescript-eslint/no-require-imports -- ESM-only: a CommonJS build loads it with require(), typed as the module
export const k8s = require('@kubernetes/client-node') as typeof import('@kubernetes/client-node');

/** client-node's types its callers name (types only: nothing more is loaded). */
export type {
  AdmissionregistrationV1Api, AppsV1Api, CoordinationV1Api, CoreV1Api, CoreV1Event, CustomObjectsApi, Informer, KubeConfig,
  KubernetesListObject, KubernetesObject, ObjectCache, V1Lease, V1Secret,
} from '@kubernetes/client-node';

/** The `code` of an API error (client-node's ApiException carries the HTTP status there), else undefined. */
export function errorCode(e: unknown): unknown {
  return (e as { code?: unknown } | null | undefined)?.code;
}

/** What SharedAgentAuth sets on a request: client-node's RequestContext, or a stand-in with the same two setters. */
export type AuthContext = Pick<RequestContext, 'setHeaderParam' | 'setAgent'>;

/** An API class of client-node (`k8s.CoreV1Api`, `k8s.CustomObjectsApi`, ...). */
export type ApiType<T> = new (config: Configuration) => T;

/** The kubeconfig at `file`, or the in-cluster configuration when omitted. */
export function loadKubeConfig(file?: string): KubeConfig {
  const kc = new k8s.KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromCluster();
  return kc;
}

/** How often the credentials (CA, client certificate and key, token) are read again. */
const CREDENTIALS_TTL_MS = 10_000;

/**
 * Authenticates API requests like the KubeConfig itself, but over one keep-alive https.Agent.
 * client-node 1.4 builds a new Agent per request (a TLS handshake each time) and reads the CA,
 * certificate and key files each time: under load that was most of the controller's CPU. This is
 * client-node's documented extension point (`authMethods.default` of `createConfiguration`).
 * Credentials are read again at most every 10 s; the agent is replaced only when they changed
 * (a rotated service-account CA or client certificate), so the kubelet's file swaps are followed.
 */
export class SharedAgentAuth {
  private agent?: https.Agent;
  private material = '';
  private headers: Record<string, string> = {};
  private readAt = 0;
  private reading?: Promise<void>;

  constructor(private readonly kc: KubeConfig, private readonly ttlMs = CREDENTIALS_TTL_MS) {}

  /** Requests through a proxy or plain HTTP keep client-node's own per-request agent. */
  private get plainHttps(): boolean {
    const cluster = this.kc.getCurrentCluster();
    return !!cluster && !cluster.proxyUrl && !String(cluster.server).startsWith('http:');
  }

  async applySecurityAuthentication(context: AuthContext): Promise<void> {
    // Proxied or plain HTTP: only client-node's requests get here, each with its own RequestContext.
    if (!this.plainHttps) return this.kc.applySecurityAuthentication(context as RequestContext);
    if (!this.agent || Date.now() - this.readAt > this.ttlMs) {
      this.reading ??= this.refresh().finally(() => { this.reading = undefined; });
      await this.reading;
    }
    for (const [k, v] of Object.entries(this.headers)) context.setHeaderParam(k, v);
    context.setAgent(this.agent!); // set by refresh()
  }

  getName(): string {
    return 'SharedAgentAuth';
  }

  private async refresh(): Promise<void> {
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts); // reads the files; its per-call agent is not used
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k] = String(v);
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const tls: Record<string, unknown> = {
      ca: opts.ca, cert: opts.cert, key: opts.key, pfx: opts.pfx, passphrase: opts.passphrase,
      servername: opts.servername, rejectUnauthorized: opts.rejectUnauthorized,
    };
    const material = Object.values(tls).map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : String(v))).join('|');
    if (!this.agent || material !== this.material) {
      const old = this.agent;
      // Bounded: a burst queues on a few connections instead of opening (and handshaking) hundreds.
      const defined = Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
      this.agent = new https.Agent({ ...defined, keepAlive: true, maxSockets: 8, maxFreeSockets: 8 });
      this.material = material;
      // In-flight requests finish on the old sockets; idle ones close now.
      old?.destroy();
    }
    this.headers = headers;
    this.readAt = Date.now();
  }
}

const shared = new Map<string, { kc: KubeConfig; auth: SharedAgentAuth; clients: Map<unknown, unknown> }>();

/**
 * An API client (e.g. `k8s.CoreV1Api`) for the kubeconfig at `file` (in-cluster when omitted). Every
 * client of the same kubeconfig in this process shares one SharedAgentAuth, hence one connection pool.
 */
export function apiClient<T>(file: string | undefined, type: ApiType<T>): T {
  const id = file ?? '<in-cluster>';
  let entry = shared.get(id);
  if (!entry) {
    const kc = loadKubeConfig(file);
    entry = { kc, auth: new SharedAgentAuth(kc), clients: new Map() };
    shared.set(id, entry);
  }
  // Keyed by the class: what is stored under `type` is an instance of it.
  let client = entry.clients.get(type) as T | undefined;
  if (!client) {
    const config = k8s.createConfiguration({
      baseServer: new k8s.ServerConfiguration(entry.kc.getCurrentCluster()!.server, {}),
      authMethods: { default: entry.auth },
    });
    client = new type(config);
    entry.clients.set(type, client);
  }
  return client;
}

/** The KubeConfig behind `apiClient(file, ...)` (informers' watches take it). */
export function sharedKubeConfig(file?: string): KubeConfig {
  apiClient(file, k8s.CoreV1Api);
  return shared.get(file ?? '<in-cluster>')!.kc;
}

/**
 * Restarts `informer` 2 s after a watch error, logging it, until `stopped()` says the owner is
 * stopping (stopping aborts the watch, which is not an error).
 */
export function restartOnError<T extends KubernetesObject>(informer: Informer<T>, what: string, stopped: () => boolean,
  log?: (entry: Record<string, unknown>) => void): void {
  informer.on('error', (e: unknown) => {
    if (stopped()) return;
    log?.({ level: 'warn', msg: `${what} informer error, restarting`, detail: e instanceof Error ? e.message : String(e) });
    setTimeout(() => void informer.start().catch(() => undefined), 2000);
  });
}

/**
 * One read, retried while the API server is only busy: 429 (API Priority and Fairness, or a server
 * still starting) and 503, honouring Retry-After up to 5 s, and a kept-alive connection the server
 * closed meanwhile. Five attempts, about 8 s at most; any other error is the caller's.
 */
export async function readRetryingWhileBusy<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const err = e as { code?: number; statusCode?: number; message?: string; headers?: Record<string, string> } | undefined;
      const status = err?.code ?? err?.statusCode;
      const busy = status === 429 || status === 503 || /Premature close|ECONNRESET|socket hang up/.test(String(err?.message));
      if (!busy || attempt >= 5) throw e;
      const after = Number(err?.headers?.['retry-after']);
      const ms = Number.isFinite(after) && after > 0 ? Math.min(after, 5) * 1000 : 250 * 2 ** (attempt - 1);
      await new Promise((r) => setTimeout(r, ms));
    }
  }
}
