/**
 * Prometheus /metrics on its own port, apart from the webhook port: the webhook port must be open to
 * the API server (whose address a NetworkPolicy cannot select portably), the metrics port only to
 * the scrapers the chart's NetworkPolicy names. Plain HTTP, GET /metrics only, short timeouts and a
 * connection cap, so a scraper (or anyone who reaches it) cannot hold the process.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

export interface MetricsServerOptions {
  readonly render: () => string;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** @default 0 (a free port) */
  readonly port?: number;
}

export class MetricsServer {
  private readonly server: http.Server;

  constructor(private readonly opts: MetricsServerOptions) {
    this.server = http.createServer((req, res) => {
      const ok = req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics';
      const body = ok ? opts.render() : 'not found';
      res.writeHead(ok ? 200 : 404, { 'Content-Type': ok ? 'text/plain; version=0.0.4' : 'text/plain', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
    this.server.requestTimeout = 5000;
    this.server.headersTimeout = 5000;
    this.server.keepAliveTimeout = 5000;
    this.server.maxConnections = 64;
    this.server.on('connection', (s) => s.setTimeout(10000, () => s.destroy()));
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1', () => resolve((this.server.address() as AddressInfo).port));
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
