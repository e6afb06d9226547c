/**
 * The controller's certificates: the serving certificate, either self-managed (an empty Secret the
 * controller fills and renews) or issued by cert-manager (Issuer and Certificate objects), and the CA of
 * the API server's client certificate. Returns what the Deployment mounts and the flags that name it.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { formatGoDuration } from '../../policy/go-duration';
import { CLIENT_CA_DIR, ControllerSettings, controllerMeta, NAME, ResolvedCertManager, TLS_DIR, TLS_SECRET } from './settings';

const CERT_MANAGER_API = 'cert-manager.io/v1';
const CLIENT_CA_CONFIG_MAP = `${NAME}-client-ca`;

/** What the rest of the chart needs of the certificates. */
export interface ControllerCertificates {
  /** The cert-manager Certificate of the serving certificate. */
  readonly certificate?: ApiObject;
  /** Annotations of the webhook configurations: cert-manager's CA injector writes their caBundle. */
  readonly injectCa?: Record<string, string>;
  /** The controller's flags naming the mounted files. */
  readonly args: string[];
  readonly volumes: Record<string, unknown>[];
  readonly volumeMounts: Record<string, unknown>[];
}

/** The serving Certificate, and with no issuer named, the self-signed CA that signs it. */
function certManagerCertificate(scope: Construct, s: ControllerSettings, cm: ResolvedCertManager): ApiObject {
  let issuerRef = { name: cm.issuer?.name ?? '', kind: cm.issuer?.kind ?? 'Issuer', group: 'cert-manager.io' };
  if (!cm.issuer) {
    // The usual cert-manager bootstrap: a selfSigned Issuer signs a CA, whose Issuer signs the serving certificate.
    new ApiObject(scope, 'selfsigned-issuer', {
      apiVersion: CERT_MANAGER_API, kind: 'Issuer', metadata: controllerMeta(s, `${NAME}-selfsigned`), spec: { selfSigned: {} },
    });
    new ApiObject(scope, 'ca-certificate', {
      apiVersion: CERT_MANAGER_API, kind: 'Certificate', metadata: controllerMeta(s, `${NAME}-ca`),
      spec: {
        isCA: true, commonName: `${NAME}-ca`, secretName: `${NAME}-ca`, duration: '87600h', renewBefore: '720h',
        privateKey: { algorithm: 'ECDSA', size: 256 }, issuerRef: { name: `${NAME}-selfsigned`, kind: 'Issuer', group: 'cert-manager.io' },
      },
    });
    new ApiObject(scope, 'ca-issuer', {
      apiVersion: CERT_MANAGER_API, kind: 'Issuer', metadata: controllerMeta(s, `${NAME}-ca`), spec: { ca: { secretName: `${NAME}-ca` } },
    });
    issuerRef = { name: `${NAME}-ca`, kind: 'Issuer', group: 'cert-manager.io' };
  }
  const dns = [NAME, `${NAME}.${s.namespace}`, `${NAME}.${s.namespace}.svc`, `${NAME}.${s.namespace}.svc.cluster.local`];
  return new ApiObject(scope, 'serving-certificate', {
    apiVersion: CERT_MANAGER_API, kind: 'Certificate', metadata: controllerMeta(s, `${NAME}-serving`),
    spec: {
      secretName: TLS_SECRET, commonName: dns[2], dnsNames: dns,
      duration: formatGoDuration(cm.durationSeconds), renewBefore: formatGoDuration(cm.renewBeforeSeconds),
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
      usages: ['server auth', 'digital signature'], issuerRef,
    },
  });
}

/** Creates the certificate objects (raw ApiObjects: cdk8s-plus-28 would add immutable and stringData to the Secret and ConfigMap). */
export function controllerCertificates(scope: Construct, s: ControllerSettings): ControllerCertificates {
  const args: string[] = [];
  const volumes: Record<string, unknown>[] = [];
  const volumeMounts: Record<string, unknown>[] = [];
  let certificate: ApiObject | undefined;
  if (s.certManager) {
    certificate = certManagerCertificate(scope, s, s.certManager);
    args.push(`--tls-cert-file=${TLS_DIR}/tls.crt`, `--tls-key-file=${TLS_DIR}/tls.key`);
    // fsGroup (deployment.ts) lets the controller's group, and only it, read the 0440 files.
    volumes.push({ name: 'tls', secret: { secretName: TLS_SECRET, defaultMode: 0o440 } });
    volumeMounts.push({ name: 'tls', mountPath: TLS_DIR, readOnly: true });
  } else {
    new ApiObject(scope, 'tls-secret', { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: controllerMeta(s, TLS_SECRET) });
  }
  if (s.webhookClientCa) {
    args.push(`--client-ca-file=${CLIENT_CA_DIR}/ca.crt`);
    new ApiObject(scope, 'client-ca', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: controllerMeta(s, CLIENT_CA_CONFIG_MAP), data: { 'ca.crt': s.webhookClientCa },
    });
    volumes.push({ name: 'client-ca', configMap: { name: CLIENT_CA_CONFIG_MAP } });
    volumeMounts.push({ name: 'client-ca', mountPath: CLIENT_CA_DIR, readOnly: true });
  }
  const injectCa = s.certManager ? { 'cert-manager.io/inject-ca-from': `${s.namespace}/${NAME}-serving` } : undefined;
  return { certificate, injectCa, args, volumes, volumeMounts };
}
