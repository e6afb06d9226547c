/**
 * Keeps the webhook's certificates in a Secret of the controller's namespace and its CA in the
 * caBundle of the controller's own two webhook configurations; renews the serving certificate
 * before it expires (keeping the CA while it is valid) and hands the new pair to the server.
 */
import { caBundlePatch, issueCertificates, needsRotation } from './certificates';
import { apiClient, errorCode, k8s, type AdmissionregistrationV1Api, type CoreV1Api, type V1Secret } from '../kube/client';


export interface CertificateStoreOptions {
  readonly kubeconfigFile?: string;
  readonly namespace: string;
  readonly service: string;
  /** @default "<service>-tls" */
  readonly secretName?: string;
  readonly mutatingWebhookConfiguration: string;
  readonly validatingWebhookConfiguration: string;
  /** @default 30 */
  readonly renewBeforeDays?: number;
  /** Extra IP SANs (tests serve on 127.0.0.1). */
  readonly extraIps?: string[];
  readonly log?: (entry: Record<string, unknown>) => void;
}

export interface ServingPair {
  readonly cert: string;
  readonly key: string;
  readonly caCert: string;
  /** Why it was (re)issued; undefined when the stored pair was reused. */
  readonly issued?: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s?: string) => (s ? Buffer.from(s, 'base64').toString('utf8') : undefined);

export class CertificateStore {
  private readonly core: CoreV1Api;
  private readonly admission: AdmissionregistrationV1Api;
  private timer?: NodeJS.Timeout;
  private caTimer?: NodeJS.Timeout;
  private caCert?: string;
  private readonly reportedMissing = new Set<string>();

  constructor(private readonly opts: CertificateStoreOptions) {
    this.core = apiClient(opts.kubeconfigFile, k8s.CoreV1Api);
    this.admission = apiClient(opts.kubeconfigFile, k8s.AdmissionregistrationV1Api);
  }

  private get secretName(): string {
    return this.opts.secretName ?? `${this.opts.service}-tls`;
  }

  /** Reads, (re)issues if needed, stores, and patches the caBundles. */
  async ensure(now = new Date()): Promise<ServingPair> {
    const ns = this.opts.namespace;
    let secret: V1Secret | undefined;
    try {
      secret = await this.core.readNamespacedSecret({ name: this.secretName, namespace: ns });
    } catch (e) {
      if (errorCode(e) !== 404) throw e;
    }
    const stored = secret ? { caCert: unb64(secret.data?.['ca.crt']), caKey: unb64(secret.data?.['ca.key']), cert: unb64(secret.data?.['tls.crt']),
      key: unb64(secret.data?.['tls.key']) } : undefined;
    const reason = needsRotation(stored, this.opts.service, ns, now, this.opts.renewBeforeDays ?? 30);
    let pair: ServingPair;
    if (reason) {
      const caOk = stored?.caCert && stored.caKey && reason !== 'stored CA expires soon' && !reason.startsWith('stored certificate is unreadable')
        && reason !== 'stored certificate is not signed by the stored CA';
      const keepCa = caOk ? { caCert: stored.caCert!, caKey: stored.caKey! } : undefined;
      const issued = issueCertificates(this.opts.service, ns, now, 365, 3650, this.opts.extraIps ?? [], keepCa);
      const data = { 'ca.crt': b64(issued.caCert), 'ca.key': b64(issued.caKey), 'tls.crt': b64(issued.cert), 'tls.key': b64(issued.key) };
      // The chart creates the Secret empty (RBAC lets the controller get and update only that one): keep its labels.
      const m = secret?.metadata;
      const kept = secret ? { resourceVersion: m!.resourceVersion, labels: m!.labels, annotations: m!.annotations } : {};
      const body = { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: this.secretName, namespace: ns, ...kept }, data };
      try {
        if (secret) await this.core.replaceNamespacedSecret({ name: this.secretName, namespace: ns, body });
        else await this.core.createNamespacedSecret({ namespace: ns, body });
      } catch (e) {
        const code = errorCode(e);
        if (code === 409) return this.ensure(now); // another replica stored one first: use it
        if (code === 403 && !secret) throw new Error(`Secret ${ns}/${this.secretName} does not exist and the controller may not create it (its `
          + 'Role allows get and update of that Secret only). Fix: apply the controller chart, which creates it empty, or create it: kubectl '
          + `-n ${ns} create secret generic ${this.secretName}`);
        throw e;
      }
      this.opts.log?.({ level: 'info', msg: 'webhook certificate issued', reason, notAfter: issued.notAfter.toISOString() });
      pair = { cert: issued.cert, key: issued.key, caCert: issued.caCert, issued: reason };
    } else {
      pair = { cert: stored!.cert!, key: stored!.key!, caCert: stored!.caCert! };
    }
    this.caCert = pair.caCert;
    await this.patchCaBundles();
    return pair;
  }

  private async patchCaBundles(): Promise<void> {
    if (!this.caCert) return;
    await this.patchCaBundle('mutating', this.opts.mutatingWebhookConfiguration, this.caCert);
    await this.patchCaBundle('validating', this.opts.validatingWebhookConfiguration, this.caCert);
  }

  private async patchCaBundle(kind: 'mutating' | 'validating', name: string, caCert: string): Promise<void> {
    const read = kind === 'mutating' ? 'readMutatingWebhookConfiguration' : 'readValidatingWebhookConfiguration';
    const patch = kind === 'mutating' ? 'patchMutatingWebhookConfiguration' : 'patchValidatingWebhookConfiguration';
    let cfg: Parameters<typeof caBundlePatch>[0];
    try {
      cfg = await this.admission[read]({ name });
    } catch (e) {
      if (errorCode(e) === 404) {
        // Said once: the periodic check sets it as soon as the configuration is applied.
        if (!this.reportedMissing.has(name)) this.opts.log?.({ level: 'warn',
          msg: `webhook configuration ${name} not found yet; its caBundle is set once it exists` });
        this.reportedMissing.add(name);
        return;
      }
      throw e;
    }
    this.reportedMissing.delete(name);
    const want = b64(caCert);
    const ops = caBundlePatch(cfg, want);
    if (ops.length) await this.admission[patch]({ name, body: ops }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
  }

  /**
   * Checks the certificate every `intervalMs` and calls `onRotate` with a renewed pair; and every
   * `caBundleIntervalMs` puts the CA back into the webhook configurations when they were created
   * after the controller started (the ordered apply registers them once it is ready) or re-applied
   * without it. Without a caBundle the API server cannot call the webhook, and the mutating one fails closed.
   */
  start(onRotate: (pair: ServingPair) => void, intervalMs = 6 * 3600_000, caBundleIntervalMs = 5000): void {
    this.timer = setInterval(() => {
      this.ensure().then((p) => { if (p.issued) onRotate(p); })
        .catch((e) => this.opts.log?.({ level: 'warn', msg: 'certificate check failed', detail: (e as Error).message }));
    }, intervalMs);
    let busy = false;
    this.caTimer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.patchCaBundles().catch((e) => this.opts.log?.({ level: 'warn', msg: 'caBundle check failed', detail: (e as Error).message }))
        .finally(() => { busy = false; });
    }, caBundleIntervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.caTimer) clearInterval(this.caTimer);
  }
}
