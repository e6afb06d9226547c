/**
 * Throw-away PKI for the local control plane, made with the openssl CLI: one CA, a serving
 * certificate for 127.0.0.1/localhost (kube-apiserver, Kueue's webhook server), an admin client
 * certificate in system:masters, and the service-account signing key.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export interface Pki {
  readonly dir: string;
  readonly caCrt: string;
  readonly caKey: string;
  readonly servingCrt: string;
  readonly servingKey: string;
  readonly adminCrt: string;
  readonly adminKey: string;
  /**
   * Client certificates of the components, named as their ServiceAccounts are in a real cluster (the
   * controller's webhooks decide by the requesting user): KubeRay's operator, Kueue's controller and
   * kube-controller-manager. All in system:masters, as the test cluster has no RBAC for them.
   */
  readonly components: Record<'kuberay' | 'kueue' | 'kcm', { readonly crt: string; readonly key: string; readonly user: string }>;
  /** The client certificate the API server may present to webhooks (ClusterOptions.webhookClientCertificate). */
  readonly webhookClient: { readonly crt: string; readonly key: string };
  readonly saKey: string;
  readonly saPub: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

function issue(dir: string, name: string, subj: string, ext: string): void {
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj',
    subj], dir);
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2',
    '-sha256', '-extfile', `${name}.ext`], dir);
}

export function makePki(dir: string): Pki {
  fs.mkdirSync(dir, { recursive: true });
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2',
    '-subj', '/CN=cdk8s-kueue-ray-e2e-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign,digitalSignature'], dir);
  issue(dir, 'serving', '/CN=127.0.0.1',
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n'
    + 'extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n');
  const client = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n';
  issue(dir, 'admin', '/O=system:masters/CN=e2e-admin', client);
  const users = {
    kuberay: 'system:serviceaccount:kuberay-system:kuberay-operator',
    kueue: 'system:serviceaccount:kueue-system:kueue-controller-manager',
    kcm: 'system:kube-controller-manager',
  } as const;
  for (const [name, user] of Object.entries(users)) issue(dir, name, `/O=system:masters/CN=${user}`, client);
  issue(dir, 'webhook-client', '/CN=kube-apiserver-webhook-client', client);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], dir);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  const p = (f: string) => path.join(dir, f);
  return {
    dir, caCrt: p('ca.crt'), caKey: p('ca.key'), servingCrt: p('serving.crt'), servingKey: p('serving.key'),
    adminCrt: p('admin.crt'), adminKey: p('admin.key'), saKey: p('sa.key'), saPub: p('sa.pub'),
    components: {
      kuberay: { crt: p('kuberay.crt'), key: p('kuberay.key'), user: users.kuberay },
      kueue: { crt: p('kueue.crt'), key: p('kueue.key'), user: users.kueue },
      kcm: { crt: p('kcm.crt'), key: p('kcm.key'), user: users.kcm },
    },
    webhookClient: { crt: p('webhook-client.crt'), key: p('webhook-client.key') },
  };
}
