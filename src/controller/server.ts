/**
 * The admission webhook's HTTPS server: TLS 1.2+, AdmissionReview v1 on /mutate and /validate,
 * /healthz and /readyz (Prometheus /metrics is served on its own port: metrics-server.ts), bounded
 * bodies (each, per peer, and per webhook), counted as they arrive, a body deadline, handshake and idle
 * timeouts, connection caps (in all and per peer), optional client-certificate authentication of the
 * API server, and a graceful stop that fails readiness, keeps serving for a grace period, then drains.
 * Decisions come from admission.ts.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import * as https from 'https';
import type { AddressInfo } from 'net';
import { AdmissionConfig, ClusterView } from './admission';
import { AdmissionPool } from './admission-pool';
import { reviewAdmission, ReviewOutcome, Webhook } from './admission-review';
import {
  ADMISSION_BUCKETS as BUCKETS, ADMISSION_DECISIONS, ADMISSION_DURATION, ADMISSION_ERRORS, CONNECTIONS_CLOSED, WEBHOOK_THREAD_STALL_SECONDS,
  WEBHOOK_THREAD_STALLS,
} from '../policy/metric-names';

export interface WebhookServerOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
  readonly config: AdmissionConfig;
  /** Current view of the cluster (swapped by the reconciler's informers). */
  readonly view: () => ClusterView;
  /** Largest accepted body; the API server sends at most ~3 MiB objects. @default 4 MiB */
  readonly maxBodyBytes?: number;
  /** A request must arrive completely within this time. @default 10 s */
  readonly requestTimeoutMs?: number;
  /**
   * A request's body must arrive completely within this time of its headers. The API server sends a
   * review (at most about 3 MiB) at once, so only a slow client, or one starving the webhook, is cut.
   * @default 2 s
   */
  readonly bodyTimeoutMs?: number;
  /**
   * Bytes of request bodies held at once per webhook path (/mutate and /validate each have this
   * budget), counted as they arrive, until answered. Beyond it a request gets 429, so a burst of large
   * reviews cannot grow the process past its memory limit, and a flood of one path leaves the other
   * alone. Keep it at least maxBodyBytes. @default 8 MiB (16 MiB for both, as the pod's memory limit is sized)
   */
  readonly maxInFlightBytes?: number;
  /**
   * Bytes of bodies one peer address may hold at once (over both paths): a client that is not the API
   * server cannot take the budget from it (real reviews are 5-20 KB: this is hundreds of them). Keep it
   * at least maxBodyBytes. @default 4 MiB
   */
  readonly maxInFlightBytesPerPeer?: number;
  /**
   * Open connections one peer address may hold; more are closed at once. The API server is a peer too: it
   * opens a connection per review in flight, up to its own limit of mutating requests in flight (200 by
   * default), so the cap sits above that. At 128, a loaded CI run saw the API server's 129th connection
   * closed and 4 of 1,000 creates fail.
   * @default 256
   */
  readonly maxConnectionsPerPeer?: number;
  /**
   * PEM of the CA that signs the API server's client certificate for webhooks (the kube-apiserver's
   * AdmissionConfiguration kubeConfigFile). When set, /mutate and /validate answer 401 to a peer without
   * a certificate it signs; the probes stay open to the kubelet.
   * @default - no client authentication (restrict the source with the NetworkPolicy's webhookSourceCidrs)
   */
  readonly clientCa?: string | Buffer;
  /** A connection must complete its TLS handshake within this time. @default 5 s */
  readonly handshakeTimeoutMs?: number;
  /**
   * A connection that sends nothing for this long while no request of it is being decided is closed
   * (before its first request; between keep-alive requests keepAliveTimeoutMs applies). @default 10 s
   */
  readonly idleTimeoutMs?: number;
  /** Keep-alive connections idle this long are closed. The API server reuses connections. @default 60 s */
  readonly keepAliveTimeoutMs?: number;
  /** Open connections at most; more are closed at once. @default 512 */
  readonly maxConnections?: number;
  /** Readiness gate (e.g. informers synced). @default always ready */
  readonly ready?: () => boolean;
  /**
   * Worker threads that parse and decide reviews while this thread does TLS and HTTP. Parsing a
   * 5-20 KB review costs more than the TLS and HTTP work around it, so one worker uses a second core
   * and keeps this thread (probes, TLS handshakes) responsive. 0 decides on the server thread.
   * @default 0
   */
  readonly workers?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
}


/** One more in a counter's series. */
function count(series: Map<string, number>, labels: string): void {
  series.set(labels, (series.get(labels) ?? 0) + 1);
}

class Metrics {
  private readonly hist = new Map<string, { counts: number[]; sum: number; count: number }>();
  // By webhook, then by verdict ("denied") or finding ("error rayJobShutdownAfterFinish", as the outcome
  // lists it): counted as they come, labels built only when scraped. Every review is counted here.
  private readonly decisions = new Map<string, Map<string, number>>();
  private readonly errors = new Map<string, number>();
  private readonly closed = new Map<string, number>();
  private stalls = 0;
  private stallSeconds = 0;

  observe(path: string, seconds: number): void {
    let h = this.hist.get(path);
    if (!h) this.hist.set(path, (h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]) h.counts[i]++;
    h.sum += seconds;
    h.count++;
  }

  decision(webhook: string, o: ReviewOutcome): void {
    if (!o.verdict) return;
    let byKey = this.decisions.get(webhook);
    if (!byKey) this.decisions.set(webhook, (byKey = new Map<string, number>()));
    count(byKey, o.verdict);
    for (const r of o.rules) count(byKey, r);
  }

  /** A review that got no decision: an HTTP error status, or 500 where the policy threw. */
  error(path: string, code: number): void {
    count(this.errors, `path="${path}",code="${code}"`);
  }

  /** A connection closed before any HTTP: past the per-peer or the server-wide cap, or a failed handshake. */
  closedConnection(reason: 'peer-limit' | 'server-limit' | 'tls'): void {
    count(this.closed, reason);
  }

  /** A stall of the server thread while reviews waited (AdmissionPool's onStall). */
  threadStall(ms: number): void {
    this.stalls++;
    this.stallSeconds += ms / 1000;
  }

  render(): string {
    const D = ADMISSION_DURATION;
    const out = [`# HELP ${D} Admission request latency.`, `# TYPE ${D} histogram`];
    for (const [path, h] of this.hist) {
      BUCKETS.forEach((b, i) => out.push(`${D}_bucket{path="${path}",le="${b}"} ${h.counts[i]}`));
      out.push(`${D}_bucket{path="${path}",le="+Inf"} ${h.count}`);
      out.push(`${D}_sum{path="${path}"} ${h.sum}`);
      out.push(`${D}_count{path="${path}"} ${h.count}`);
    }
    out.push(`# HELP ${ADMISSION_DECISIONS} Admission decisions and policy findings by rule.`, `# TYPE ${ADMISSION_DECISIONS} counter`);
    for (const [webhook, byKey] of this.decisions) {
      for (const [key, v] of byKey) {
        // A finding is "severity rule"; a verdict has no space.
        const space = key.indexOf(' ');
        const [decision, rule] = space < 0 ? [key, ''] : [key.slice(0, space), key.slice(space + 1)];
        out.push(`${ADMISSION_DECISIONS}{webhook="${webhook}",decision="${decision}",rule="${rule}"} ${v}`);
      }
    }
    out.push(`# HELP ${ADMISSION_ERRORS} Admission reviews answered without a decision (HTTP error) or denied because the policy failed (code 500).`,
      `# TYPE ${ADMISSION_ERRORS} counter`);
    for (const [labels, v] of this.errors) out.push(`${ADMISSION_ERRORS}{${labels}} ${v}`);
    out.push(`# HELP ${CONNECTIONS_CLOSED} Connections closed before any HTTP: past a connection cap, or a failed TLS handshake.`,
      `# TYPE ${CONNECTIONS_CLOSED} counter`);
    for (const [reason, v] of this.closed) out.push(`${CONNECTIONS_CLOSED}{reason="${reason}"} ${v}`);
    out.push(`# HELP ${WEBHOOK_THREAD_STALLS} Stalls of the webhook's server thread while reviews waited (they extend the workers' deadlines).`,
      `# TYPE ${WEBHOOK_THREAD_STALLS} counter`, `${WEBHOOK_THREAD_STALLS} ${this.stalls}`,
      `# HELP ${WEBHOOK_THREAD_STALL_SECONDS} Seconds the webhook's server thread stalled while reviews waited.`,
      `# TYPE ${WEBHOOK_THREAD_STALL_SECONDS} counter`, `${WEBHOOK_THREAD_STALL_SECONDS} ${this.stallSeconds}`);
    return `${out.join('\n')}\n`;
  }
}

/**
 * The peer presented a certificate the configured CA signs. `authorized` alone is not enough: on a
 * resumed TLS session of a client that presented none, Node reports it authorized (nothing failed to
 * verify), so the certificate itself must be there; a resumed session keeps the one it was made with.
 */
function presentsCertificate(socket: import('tls').TLSSocket): boolean {
  if (!socket.authorized) return false;
  const cert = socket.getPeerCertificate();
  return !!cert && Object.keys(cert).length > 0;
}

/** A review request while its body arrives and until it is answered. */
interface PendingReview {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly webhook: Webhook;
  readonly peer: string;
  readonly started: bigint;
  readonly chunks: Buffer[];
  size: number;
  done: boolean;
  // Bytes this request holds against its path's and its peer's budgets: what has arrived, never what
  // a Content-Length claims (a client declaring 4 MiB and sending a byte a second holds one byte).
  reserved: number;
}

export class WebhookServer {
  public readonly metrics = new Metrics();
  private readonly server: https.Server;
  private readonly pool?: AdmissionPool;
  private readonly maxBody: number;
  private readonly tooLarge: string;
  private inFlight = 0;
  private readonly inFlightBytes: Record<Webhook, number> = { mutate: 0, validate: 0 };
  private readonly maxInFlightBytes: number;
  private readonly peerBytes = new Map<string, number>();
  private readonly maxPeerBytes: number;
  private readonly peerConnections = new Map<string, number>();
  private readonly maxPeerConnections: number;
  private readonly bodyTimeoutMs: number;
  private stopping = false;

  constructor(private readonly opts: WebhookServerOptions) {
    // connectionsCheckingInterval: Node checks requestTimeout only this often (30 s by default).
    this.server = https.createServer({
      cert: opts.cert, key: opts.key, minVersion: 'TLSv1.2', connectionsCheckingInterval: 500,
      handshakeTimeout: opts.handshakeTimeoutMs ?? 5000, // Node's default is 120 s
      // A certificate is asked for, not required at the handshake: the kubelet's probes present none.
      ...(opts.clientCa ? { ca: opts.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
    } as https.ServerOptions, (req, res) => this.handle(req, res));
    this.maxPeerConnections = opts.maxConnectionsPerPeer ?? 256;
    this.server.on('secureConnection', (socket) => this.countPeer(socket));
    this.server.requestTimeout = opts.requestTimeoutMs ?? 10000;
    this.server.headersTimeout = Math.min(opts.requestTimeoutMs ?? 10000, 10000);
    this.server.keepAliveTimeout = opts.keepAliveTimeoutMs ?? 60000; // the API server reuses connections
    // Inactivity of a connection (no request yet, or a request whose bytes stopped coming). Node closes
    // the socket when it fires and no request on it is waiting for its answer.
    this.server.timeout = opts.idleTimeoutMs ?? 10000;
    this.server.maxConnections = opts.maxConnections ?? 512;
    this.server.on('drop', () => this.metrics.closedConnection('server-limit'));
    this.server.on('tlsClientError', () => this.metrics.closedConnection('tls'));
    this.maxBody = opts.maxBodyBytes ?? 4 * 1024 * 1024;
    this.maxInFlightBytes = opts.maxInFlightBytes ?? 8 * 1024 * 1024;
    this.maxPeerBytes = opts.maxInFlightBytesPerPeer ?? 4 * 1024 * 1024;
    this.bodyTimeoutMs = opts.bodyTimeoutMs ?? 2000;
    this.tooLarge = JSON.stringify({ message: `request body larger than ${this.maxBody} bytes` });
    if (opts.workers) {
      this.pool = new AdmissionPool({ size: opts.workers, config: opts.config, view: opts.view, log: opts.log,
        onStall: (ms) => this.metrics.threadStall(ms) });
    }
  }

  /** Counts a connection against its peer address; past the cap it is closed at once. */
  private countPeer(socket: import('net').Socket): void {
    const peer = socket.remoteAddress ?? '';
    const n = (this.peerConnections.get(peer) ?? 0) + 1;
    if (n > this.maxPeerConnections) {
      socket.destroy();
      this.metrics.closedConnection('peer-limit');
      return;
    }
    this.peerConnections.set(peer, n);
    socket.once('close', () => {
      const left = (this.peerConnections.get(peer) ?? 1) - 1;
      if (left > 0) this.peerConnections.set(peer, left);
      else this.peerConnections.delete(peer);
    });
  }

  /** Serves a renewed certificate on new connections. */
  reloadCertificate(cert: string | Buffer, key: string | Buffer): void {
    this.server.setSecureContext({ cert, key, minVersion: 'TLSv1.2' });
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => resolve((this.server.address() as AddressInfo).port));
    });
  }

  /** /readyz: not stopping, the caller's gate (informers synced) open, and every admission worker loaded. */
  public isReady(): boolean {
    return !this.stopping && (this.opts.ready?.() ?? true) && (this.pool?.online() ?? true);
  }

  /** True from the start of stop(): /readyz answers 503 and every response closes its connection. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /**
   * Stops the way controller-runtime's webhook server does, with readiness first: /readyz fails at
   * once, the server keeps serving (new connections too) for `graceMs` while endpoints and the API
   * server's connection pool catch up, and every response in that time says `Connection: close`, so
   * keep-alive connections end after their current request instead of being cut. Then it stops
   * accepting, closes idle connections, and resolves once in-flight requests are answered (or after
   * `timeoutMs`).
   */
  async stop(timeoutMs = 10000, graceMs = 0): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (graceMs > 0) await new Promise((r) => setTimeout(r, graceMs));
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
      const deadline = Date.now() + timeoutMs;
      const tick = () => {
        if (this.inFlight === 0 || Date.now() > deadline) {
          this.server.closeAllConnections();
          resolve();
        } else setTimeout(tick, 20);
      };
      tick();
    });
    await this.pool?.close();
  }

  /** Routes a request: the probes, then the two webhooks (behind the client certificate when one is required). */
  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/healthz') return this.text(res, 200, 'ok');
    // Not ready until the admission workers have loaded: the API server would otherwise send reviews that wait on them.
    if (req.method === 'GET' && url === '/readyz') return this.isReady() ? this.text(res, 200, 'ok') : this.text(res, 503, 'not ready');
    const route = url.split('?')[0];
    const webhook: Webhook | undefined = route === '/mutate' ? 'mutate' : route === '/validate' ? 'validate' : undefined;
    if (req.method !== 'POST' || !webhook) return this.text(res, 404, 'not found');
    if (this.opts.clientCa && !presentsCertificate(req.socket as import('tls').TLSSocket)) {
      // Only the API server holds a certificate the configured CA signs.
      res.shouldKeepAlive = false;
      req.resume();
      return this.text(res, 401, JSON.stringify({ message: 'cdk8s-kueue-ray webhook: a client certificate signed by the configured CA is required' }),
        'application/json');
    }
    this.receiveReview(req, res, webhook);
  }

  /** Reads a review's body within its budgets and deadline, then has it decided and answered once. */
  private receiveReview(req: IncomingMessage, res: ServerResponse, webhook: Webhook): void {
    const r: PendingReview = { req, res, webhook, peer: req.socket.remoteAddress ?? '', started: process.hrtime.bigint(), chunks: [], size: 0,
      done: false, reserved: 0 };
    this.inFlight++;
    const deadline = this.armBodyDeadline(r);
    // A decision in progress is no idle connection (the worker deadline bounds it).
    res.on('timeout', () => undefined);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.maxBody) {
      this.refuse(r, 413, this.tooLarge);
      req.resume();
      return;
    }
    req.on('data', (c: Buffer) => this.takeChunk(r, c));
    req.on('error', () => this.finish(r, 400, JSON.stringify({ message: 'request aborted' })));
    // The response's close (not the request's, which follows 'end') tells a client that went away.
    res.on('close', () => {
      clearTimeout(deadline);
      if (!r.done) { r.done = true; this.inFlight--; this.releaseBytes(r); }
    });
    req.on('end', () => {
      if (r.done) return;
      clearTimeout(deadline); // the decision is bounded by the worker's own deadline
      this.decide(r);
    });
  }

  /**
   * The body deadline: a body still arriving after it (answered or not: a refused body is drained, not
   * buffered) is cut, and its connection closed once the answer is out.
   */
  private armBodyDeadline(r: PendingReview): NodeJS.Timeout {
    return setTimeout(() => {
      if (!r.done) {
        r.res.shouldKeepAlive = false;
        this.finish(r, 408, JSON.stringify({ message: `cdk8s-kueue-ray webhook: the request body did not arrive within ${this.bodyTimeoutMs} ms` }));
      }
      if (r.req.complete) return;
      if (r.res.writableFinished) r.req.destroy();
      else r.res.once('finish', () => r.req.destroy());
    }, this.bodyTimeoutMs);
  }

  /** Counts an arriving chunk against the body limit and the budgets, and keeps it while they allow. */
  private takeChunk(r: PendingReview, c: Buffer): void {
    if (r.done) return;
    r.size += c.length;
    if (r.size > this.maxBody) {
      this.refuse(r, 413, this.tooLarge);
      return;
    }
    if (r.size > r.reserved && !this.reserveBytes(r, r.size - r.reserved)) return;
    r.chunks.push(c);
  }

  /** Holds `n` more bytes against the path's and the peer's budgets; past either, refuses with 429. */
  private reserveBytes(r: PendingReview, n: number): boolean {
    const peerHeld = this.peerBytes.get(r.peer) ?? 0;
    if (this.inFlightBytes[r.webhook] + n > this.maxInFlightBytes || peerHeld + n > this.maxPeerBytes) {
      const which = peerHeld + n > this.maxPeerBytes ? `${this.maxPeerBytes} bytes from one client`
        : `${this.maxInFlightBytes} bytes of /${r.webhook} reviews`;
      this.refuse(r, 429, JSON.stringify({ message: `cdk8s-kueue-ray webhook: more than ${which} in flight; try again` }));
      return false;
    }
    this.inFlightBytes[r.webhook] += n;
    this.peerBytes.set(r.peer, peerHeld + n);
    r.reserved += n;
    return true;
  }

  private releaseBytes(r: PendingReview): void {
    this.inFlightBytes[r.webhook] -= r.reserved;
    const left = (this.peerBytes.get(r.peer) ?? 0) - r.reserved;
    if (left > 0) this.peerBytes.set(r.peer, left);
    else this.peerBytes.delete(r.peer);
    r.reserved = 0;
  }

  /** Refuses the request while its body may still be arriving: the rest is read and dropped, the connection then closed. */
  private refuse(r: PendingReview, status: number, body: string): void {
    r.res.shouldKeepAlive = false;
    this.finish(r, status, body);
    r.chunks.length = 0;
  }

  /** Answers once: releases the request's bytes and records its latency. */
  private finish(r: PendingReview, status: number, body: string): void {
    if (r.done) return;
    r.done = true;
    this.inFlight--;
    this.releaseBytes(r);
    this.metrics.observe(`/${r.webhook}`, Number(process.hrtime.bigint() - r.started) / 1e9);
    if (status >= 400) this.metrics.error(`/${r.webhook}`, status);
    if (!r.res.headersSent) this.text(r.res, status, body, 'application/json');
  }

  /** Decides the complete body, on a worker when there is a pool, and answers. */
  private decide(r: PendingReview): void {
    // A review usually arrives in one chunk: that one is used as it is (the pool copies it for the worker).
    const body = r.chunks.length === 1 ? r.chunks[0] : Buffer.concat(r.chunks, r.size);
    const answer = (o: ReviewOutcome) => {
      if (o.internalError) this.opts.log?.({ level: 'error', msg: 'admission failed', error: o.internalError, uid: o.uid });
      this.metrics.decision(r.webhook, o);
      if (o.internalError) this.metrics.error(`/${r.webhook}`, 500);
      this.finish(r, o.status, o.body);
    };
    if (this.pool) void this.pool.review(r.webhook, body).then(answer);
    else answer(reviewAdmission(r.webhook, body.toString('utf8'), this.opts.config, this.opts.view()));
  }

  private text(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
    // While stopping, every answer ends its connection: the client reconnects, to another replica.
    if (this.stopping) res.shouldKeepAlive = false;
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}
