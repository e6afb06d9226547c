// The controller's certificates: issued for the Service, verifiable, renewed before expiry with the CA kept.
import { X509Certificate } from 'crypto';
import { caBundlePatch, issueCertificates, needsRotation } from '../../src/controller/certificates';

const now = new Date('2026-11-30T00:00:00Z');
const days = (n: number) => new Date(now.getTime() + n * 86400_000);

test('the serving certificate is signed by the CA and names the Service', () => {
  const c = issueCertificates('ctrl', 'sys', now, 365, 3650, ['127.0.0.1']);
  const cert = new X509Certificate(c.cert);
  expect(cert.verify(new X509Certificate(c.caCert).publicKey)).toBe(true);
  expect(cert.subjectAltName).toBe('DNS:ctrl, DNS:ctrl.sys, DNS:ctrl.sys.svc, DNS:ctrl.sys.svc.cluster.local, IP Address:127.0.0.1');
  expect(cert.checkPrivateKey(require('crypto').createPrivateKey(c.key))).toBe(true);
  expect(new X509Certificate(c.caCert).ca).toBe(true);
  expect(needsRotation(c, 'ctrl', 'sys', now)).toBeUndefined();
});

test('rotation is due before expiry, for another Service, or with a foreign CA', () => {
  const c = issueCertificates('ctrl', 'sys', now);
  expect(needsRotation(c, 'ctrl', 'sys', days(330))).toBeUndefined();
  expect(needsRotation(c, 'ctrl', 'sys', days(340))).toMatch(/stored certificate expires/);
  expect(needsRotation(c, 'other', 'sys', now)).toMatch(/not for other.sys.svc/);
  const d = issueCertificates('ctrl', 'sys', now);
  expect(needsRotation({ ...c, caCert: d.caCert }, 'ctrl', 'sys', now)).toMatch(/not signed by the stored CA/);
  expect(needsRotation(undefined, 'ctrl', 'sys', now)).toBe('no certificate stored');
  expect(needsRotation({ caCert: 'x', cert: 'y', key: 'z' }, 'ctrl', 'sys', now)).toMatch(/unreadable/);
});

test('renewal keeps a valid CA, so the trusted caBundle does not change', () => {
  const first = issueCertificates('ctrl', 'sys', now);
  const renewed = issueCertificates('ctrl', 'sys', days(340), 365, 3650, [], { caCert: first.caCert, caKey: first.caKey });
  expect(renewed.caCert).toBe(first.caCert);
  expect(renewed.cert).not.toBe(first.cert);
  expect(new X509Certificate(renewed.cert).verify(new X509Certificate(first.caCert).publicKey)).toBe(true);
});

test('the caBundle patch writes only clientConfig.caBundle, each guarded by a test of the webhook name', () => {
  const cfg = { webhooks: [{ name: 'a.x', clientConfig: { caBundle: 'OLD' } }, { name: 'b.x', clientConfig: { caBundle: 'NEW' } },
    { name: 'c.x', clientConfig: {} }] };
  expect(caBundlePatch(cfg, 'NEW')).toEqual([
    { op: 'test', path: '/webhooks/0/name', value: 'a.x' },
    { op: 'add', path: '/webhooks/0/clientConfig/caBundle', value: 'NEW' },
    { op: 'test', path: '/webhooks/2/name', value: 'c.x' },
    { op: 'add', path: '/webhooks/2/clientConfig/caBundle', value: 'NEW' },
  ]);
  expect(caBundlePatch({ webhooks: [{ name: 'a.x', clientConfig: { caBundle: 'NEW' } }] }, 'NEW')).toEqual([]);
});
