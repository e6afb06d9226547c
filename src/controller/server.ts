/**
 * The admission webhook's HTTPS server: TLS 1.2+, AdmissionReview v1 on /mutate and /validate,
 * /healthz, /readyz and Prometheus /metrics, bounded bodies and slow-client timeouts, and a graceful
 * stop that drains in-flight requests. Decisions come from admission.ts.
 */
import * as https from 'https';
import { AdmissionConfig, AdmissionRequest, AdmissionResponse, ClusterView, Decision, mutateRayObject, validateRayObject } from './admission';

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
  /** Readiness gate (e.g. informers synced). @default always ready */
  readonly ready?: () => boolean;
  readonly log?: (entry: Record<string, unknown>) => void;
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

class Metrics {
  private readonly hist = new Map<string, { counts: number[]; sum: number; count: number }>();
  private readonly decisions = new Map<string, number>();

  observe(path: string, seconds: number): void {
    let h = this.hist.get(path);
    if (!h) this.hist.set(path, (h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    BUCKETS.forEach((b, i) => { if (seconds <= b) h!.counts[i]++; });
    h.sum += seconds;
    h.count++;
  }

  decision(webhook: string, d: Decision): void {
    const verdict = d.response.allowed ? (d.response.patch ? 'mutated' : 'allowed') : 'denied';
    this.inc(`webhook="${webhook}",decision="${verdict}",rule=""`);
    for (const f of d.findings) this.inc(`webhook="${webhook}",decision="${f.severity}",rule="${f.rule}"`);
  }

  private inc(labels: string): void {
    this.decisions.set(labels, (this.decisions.get(labels) ?? 0) + 1);
  }

  render(): string {
    const out = ['# HELP kueue_ray_admission_duration_seconds Admission request latency.', '# TYPE kueue_ray_admission_duration_seconds histogram'];
    for (const [path, h] of this.hist) {
      BUCKETS.forEach((b, i) => out.push(`kueue_ray_admission_duration_seconds_bucket{path="${path}",le="${b}"} ${h.counts[i]}`));
      out.push(`kueue_ray_admission_duration_seconds_bucket{path="${path}",le="+Inf"} ${h.count}`);
      out.push(`kueue_ray_admission_duration_seconds_sum{path="${path}"} ${h.sum}`);
      out.push(`kueue_ray_admission_duration_seconds_count{path="${path}"} ${h.count}`);
    }
    out.push('# HELP kueue_ray_admission_decisions_total Admission decisions and policy findings by rule.', '# TYPE kueue_ray_admission_decisions_total counter');
    for (const [labels, v] of this.decisions) out.push(`kueue_ray_admission_decisions_total{${labels}} ${v}`);
    return `${out.join('\n')}\n`;
  }
}

export class WebhookServer {
  public readonly metrics = new Metrics();
  private readonly server: https.Server;
  private inFlight = 0;
  private stopping = false;

  constructor(private readonly opts: WebhookServerOptions) {
    // connectionsCheckingInterval: Node checks requestTimeout only this often (30 s by default).
    this.server = https.createServer({ cert: opts.cert, key: opts.key, minVersion: 'TLSv1.2', connectionsCheckingInterval: 500 } as https.ServerOptions, (req, res) => this.handle(req, res));
    this.server.requestTimeout = opts.requestTimeoutMs ?? 10000;
    this.server.headersTimeout = Math.min(opts.requestTimeoutMs ?? 10000, 10000);
    this.server.keepAliveTimeout = 60000; // the API server reuses connections
  }

  /** Serves a renewed certificate on new connections. */
  reloadCertificate(cert: string | Buffer, key: string | Buffer): void {
    this.server.setSecureContext({ cert, key, minVersion: 'TLSv1.2' } as any);
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => resolve((this.server.address() as any).port));
    });
  }

  /** Stops accepting connections and resolves once in-flight requests are answered. */
  async stop(timeoutMs = 10000): Promise<void> {
    this.stopping = true;
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
  }

  private handle(req: import('http').IncomingMessage, res: import('http').ServerResponse): void {
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/healthz') return this.text(res, 200, 'ok');
    if (req.method === 'GET' && url === '/readyz') return this.stopping || !(this.opts.ready?.() ?? true) ? this.text(res, 503, 'not ready') : this.text(res, 200, 'ok');
    if (req.method === 'GET' && url === '/metrics') return this.text(res, 200, this.metrics.render(), 'text/plain; version=0.0.4');
    const webhook = url.split('?')[0] === '/mutate' ? 'mutate' : url.split('?')[0] === '/validate' ? 'validate' : undefined;
    if (req.method !== 'POST' || !webhook) return this.text(res, 404, 'not found');
    const started = process.hrtime.bigint();
    this.inFlight++;
    const max = this.opts.maxBodyBytes ?? 4 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (status: number, body: string, type = 'application/json') => {
      if (done) return;
      done = true;
      this.inFlight--;
      this.metrics.observe(`/${webhook}`, Number(process.hrtime.bigint() - started) / 1e9);
      if (!res.headersSent) {
        res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      }
    };
    if (Number(req.headers['content-length'] ?? 0) > max) {
      finish(413, JSON.stringify({ message: `request body larger than ${max} bytes` }));
      req.resume();
      return;
    }
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        finish(413, JSON.stringify({ message: `request body larger than ${max} bytes` }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => finish(400, JSON.stringify({ message: 'request aborted' })));
    req.on('close', () => { if (!done) { done = true; this.inFlight--; } });
    req.on('end', () => {
      if (done) return;
      let review: any;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch (e) {
        return finish(400, JSON.stringify({ message: `malformed JSON: ${(e as Error).message}` }));
      }
      if (review?.apiVersion !== 'admission.k8s.io/v1' || review?.kind !== 'AdmissionReview' || typeof review.request !== 'object' || review.request === null) {
        return finish(400, JSON.stringify({ message: 'expected an admission.k8s.io/v1 AdmissionReview with a request' }));
      }
      let decision: Decision;
      try {
        const r = review.request as AdmissionRequest;
        decision = webhook === 'mutate' ? mutateRayObject(r, this.opts.config, this.opts.view()) : validateRayObject(r, this.opts.config, this.opts.view());
      } catch (e) {
        // A bug must not become an outage or an accidental allow: deny with the reason.
        const uid = String(review.request.uid ?? '');
        decision = { response: { uid, allowed: false, status: { code: 500, reason: 'InternalError', message: `cdk8s-kueue-ray webhook error: ${(e as Error).message}` } }, findings: [] };
        this.opts.log?.({ level: 'error', msg: 'admission failed', error: (e as Error).message, uid });
      }
      this.metrics.decision(webhook, decision);
      finish(200, JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: decision.response as AdmissionResponse }));
    });
  }

  private text(res: import('http').ServerResponse, status: number, body: string, type = 'text/plain'): void {
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}
