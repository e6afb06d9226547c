/**
 * The controller's own webhook certificates: a CA and a serving certificate for its Service, kept
 * in a Secret, the CA patched into its two webhook configurations, renewed before expiry. (Or
 * cert-manager, by not running this and annotating the configurations for CA injection.)
 */
import { generateKeyPairSync, X509Certificate } from 'crypto';
import * as forge from 'node-forge';

export interface IssuedCertificates {
  readonly caCert: string;
  readonly caKey: string;
  readonly cert: string;
  readonly key: string;
  readonly notAfter: Date;
}

export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

function keyPair(): { pub: forge.pki.PublicKey; priv: forge.pki.PrivateKey; pem: string } {
  // Node's native RSA generation (fast), handed to forge for the X.509 encoding.
  const { privateKey } = generateKeyPairSync('rsa',
    { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const priv = forge.pki.privateKeyFromPem(privateKey);
  return { priv, pub: forge.pki.setRsaPublicKey(priv.n, priv.e), pem: privateKey };
}

function serial(): string {
  return `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
}

/** Issues a CA (validity `caDays`) and a serving certificate (validity `days`) for the Service's DNS names. */
export function issueCertificates(
  service: string, namespace: string, now = new Date(), days = 365, caDays = 3650, extraIps: string[] = [],
  existingCa?: { caCert: string; caKey: string },
): IssuedCertificates {
  // A still-valid CA is kept, so the caBundle the API server trusts does not change on leaf renewal.
  const caName = [{ name: 'commonName', value: `cdk8s-kueue-ray webhook CA (${namespace})` }];
  let caCert: forge.pki.Certificate;
  let ca: { priv: forge.pki.PrivateKey; pem: string };
  if (existingCa) {
    caCert = forge.pki.certificateFromPem(existingCa.caCert);
    ca = { priv: forge.pki.privateKeyFromPem(existingCa.caKey), pem: existingCa.caKey };
  } else {
    const kp = keyPair();
    ca = kp;
    caCert = forge.pki.createCertificate();
    caCert.publicKey = kp.pub;
    caCert.serialNumber = serial();
    caCert.validity.notBefore = new Date(now.getTime() - 60_000);
    caCert.validity.notAfter = new Date(now.getTime() + caDays * 86400_000);
    caCert.setSubject(caName);
    caCert.setIssuer(caName);
    caCert.setExtensions([{ name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }]);
    caCert.sign(kp.priv as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  }

  const leaf = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = leaf.pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(now.getTime() - 60_000);
  cert.validity.notAfter = new Date(now.getTime() + days * 86400_000);
  cert.setSubject([{ name: 'commonName', value: `${service}.${namespace}.svc` }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName',
      altNames: [...serviceDnsNames(service, namespace).map((value) => ({ type: 2, value })), ...extraIps.map((ip) => ({ type: 7, ip }))] },
  ]);
  cert.sign(ca.priv as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return {
    caCert: forge.pki.certificateToPem(caCert), caKey: ca.pem,
    cert: forge.pki.certificateToPem(cert), key: leaf.pem, notAfter: cert.validity.notAfter,
  };
}

/**
 * Whether stored certificates must be (re)issued: missing, unparsable, not for this Service, not
 * signed by the stored CA, or expiring within `renewBeforeDays`.
 */
export function needsRotation(
  stored: { caCert?: string; cert?: string; key?: string } | undefined, service: string, namespace: string, now = new Date(), renewBeforeDays = 30,
): string | undefined {
  if (!stored?.caCert || !stored.cert || !stored.key) return 'no certificate stored';
  let cert: X509Certificate;
  let ca: X509Certificate;
  try {
    cert = new X509Certificate(stored.cert);
    ca = new X509Certificate(stored.caCert);
  } catch (e) {
    return `stored certificate is unreadable (${(e as Error).message})`;
  }
  if (!cert.verify(ca.publicKey)) return 'stored certificate is not signed by the stored CA';
  const expected = `${service}.${namespace}.svc`;
  if (!(cert.subjectAltName ?? '').split(', ').includes(`DNS:${expected}`)) return `stored certificate is not for ${expected}`;
  const renewAt = new Date(cert.validTo).getTime() - renewBeforeDays * 86400_000;
  if (now.getTime() >= renewAt) return `stored certificate expires ${new Date(cert.validTo).toISOString()}`;
  if (now.getTime() >= new Date(ca.validTo).getTime() - renewBeforeDays * 86400_000) return 'stored CA expires soon';
  return undefined;
}

/**
 * The JSON Patch that puts `caBundleB64` into a webhook configuration: per webhook whose caBundle
 * differs, a `test` of its name at that index (so a configuration changed in between fails the
 * patch instead of being written at the wrong place) and an `add` of clientConfig.caBundle. Nothing
 * else is ever written; the chart's ValidatingAdmissionPolicy refuses any other change from the
 * controller's ServiceAccount.
 */
export function caBundlePatch(cfg: { webhooks?: Array<{ name?: string; clientConfig?: { caBundle?: string } }> },
  caBundleB64: string): Array<{ op: 'test' | 'add'; path: string; value: string }> {
  return (cfg.webhooks ?? []).flatMap((w, i) => (w.clientConfig?.caBundle === caBundleB64 ? [] : [
    { op: 'test' as const, path: `/webhooks/${i}/name`, value: String(w.name) },
    { op: 'add' as const, path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundleB64 },
  ]));
}
