/**
 * Kueue's own webhook server as an oracle: AdmissionReviews posted straight to it (the test control
 * plane runs it on loopback), mutate then validate, as the API server orders them for CREATE, and
 * validate with the stored object for UPDATE.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as https from 'https';
import { applyPatch, Operation } from 'fast-json-patch';

export interface WebhookAnswer {
  readonly allowed: boolean;
  readonly message?: string;
  /** The object after Kueue's JSON patch (mutate only). */
  readonly object?: any;
  /** Kueue has no webhook for this kind at this version (e.g. RayService before 0.17). */
  readonly noWebhook?: boolean;
}

const PLURAL: Record<string, string> = { RayJob: 'rayjobs', RayCluster: 'rayclusters', RayService: 'rayservices' };

export class KueueWebhook {
  private readonly agent: https.Agent;
  constructor(private readonly port: number, caFile: string, private readonly kinds: readonly string[]) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca: fs.readFileSync(caFile) });
  }

  close(): void { this.agent.destroy(); }

  private review(path: string, operation: 'CREATE' | 'UPDATE', object: any, oldObject?: any): Promise<any> {
    const kind = String(object.kind);
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
      request: {
        uid: crypto.randomUUID(), kind: { group: 'ray.io', version: 'v1', kind },
        resource: { group: 'ray.io', version: 'v1', resource: PLURAL[kind] },
        requestKind: { group: 'ray.io', version: 'v1', kind }, requestResource: { group: 'ray.io', version: 'v1', resource: PLURAL[kind] },
        name: object.metadata?.name ?? '', namespace: object.metadata?.namespace, operation,
        userInfo: { username: 'agreement-suite', groups: ['system:masters', 'system:authenticated'] },
        object, oldObject: oldObject ?? null, dryRun: false,
        options: { apiVersion: 'meta.k8s.io/v1', kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions' },
      },
    });
    return new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port: this.port, path, method: 'POST', agent: this.agent, timeout: 30000,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) return reject(new Error(`Kueue webhook ${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          try { resolve(JSON.parse(text).response); } catch (e) {
            reject(new Error(`Kueue webhook ${path}: ${(e as Error).message}: ${text.slice(0, 300)}`));
          }
        });
      });
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error(`Kueue webhook ${path} timed out`)));
      req.end(body);
    });
  }

  handles(kind: string): boolean { return this.kinds.includes(kind); }

  async mutate(object: any): Promise<WebhookAnswer> {
    if (!this.handles(object.kind)) return { allowed: true, object, noWebhook: true };
    const res = await this.review(`/mutate-ray-io-v1-${String(object.kind).toLowerCase()}`, 'CREATE', object);
    if (!res.allowed) return { allowed: false, message: res.status?.message ?? '' };
    let out = object;
    if (res.patch) {
      const ops = JSON.parse(Buffer.from(res.patch, 'base64').toString('utf8')) as Operation[];
      out = applyPatch(JSON.parse(JSON.stringify(object)), ops, false, false).newDocument;
    }
    return { allowed: true, object: out };
  }

  async validate(object: any, oldObject?: any): Promise<WebhookAnswer> {
    if (!this.handles(object.kind)) return { allowed: true, noWebhook: true };
    const res = await this.review(`/validate-ray-io-v1-${String(object.kind).toLowerCase()}`, oldObject ? 'UPDATE' : 'CREATE', object, oldObject);
    return { allowed: !!res.allowed, message: res.allowed ? undefined : res.status?.message ?? '' };
  }
}
