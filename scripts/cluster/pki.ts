/**
 * The node cluster's PKI, made with the openssl CLI: a CA, the API server's serving certificate (its
 * ClusterIP, node address and in-cluster names), one client certificate per component as kubeadm names
 * them (so RBAC's bootstrap roles apply), and the ServiceAccount signing key.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const COMPONENT_USERS = {
  admin: { cn: 'kubernetes-admin', o: 'system:masters' },
  controllerManager: { cn: 'system:kube-controller-manager', o: '' },
  scheduler: { cn: 'system:kube-scheduler', o: '' },
  proxy: { cn: 'system:kube-proxy', o: '' },
  apiserverKubeletClient: { cn: 'kube-apiserver-kubelet-client', o: 'system:masters' },
} as const;

export interface NodePki {
  readonly caCrt: string;
  readonly caKey: string;
  readonly apiserverCrt: string;
  readonly apiserverKey: string;
  readonly saKey: string;
  readonly saPub: string;
  readonly clients: Record<keyof typeof COMPONENT_USERS | 'kubelet', { readonly crt: string; readonly key: string }>;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

function issue(dir: string, name: string, subj: string, ext: string): void {
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj',
    subj], dir);
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '30',
    '-sha256', '-extfile', `${name}.ext`], dir);
}

export function makeNodePki(dir: string, opts: { nodeName: string; nodeIp: string; apiServiceIp: string }): NodePki {
  fs.mkdirSync(dir, { recursive: true });
  const p = (f: string) => path.join(dir, f);
  if (!fs.existsSync(p('ca.crt'))) {
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days',
      '30',
      '-subj', '/CN=cdk8s-kueue-ray-node-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext',
      'keyUsage=critical,keyCertSign,cRLSign,digitalSignature'], dir);
    const sans = [`IP:${opts.nodeIp}`, `IP:${opts.apiServiceIp}`, 'IP:127.0.0.1', 'DNS:localhost', 'DNS:kubernetes', 'DNS:kubernetes.default',
      'DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local'];
    issue(dir, 'apiserver', '/CN=kube-apiserver',
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n'
      + `extendedKeyUsage=serverAuth\nsubjectAltName=${sans.join(',')}\n`);
    const client = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n';
    for (const [name, u] of Object.entries(COMPONENT_USERS)) issue(dir, name, `${u.o ? `/O=${u.o}` : ''}/CN=${u.cn}`, client);
    // The Node authorizer and NodeRestriction know the kubelet by this name and group.
    issue(dir, 'kubelet', `/O=system:nodes/CN=system:node:${opts.nodeName}`, client);
    openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], dir);
    openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  }
  const clients = Object.fromEntries([...Object.keys(COMPONENT_USERS), 'kubelet'].map((n) => [n, { crt: p(`${n}.crt`), key: p(`${n}.key`) }]));
  return {
    caCrt: p('ca.crt'), caKey: p('ca.key'), apiserverCrt: p('apiserver.crt'), apiserverKey: p('apiserver.key'),
    saKey: p('sa.key'), saPub: p('sa.pub'), clients: clients as NodePki['clients'],
  };
}

/** A kubeconfig for `server` that authenticates with the given client certificate. */
export function kubeconfigText(server: string, caCrt: string, crt: string, key: string, user: string): string {
  const b64 = (f: string) => fs.readFileSync(f).toString('base64');
  return [
    'apiVersion: v1', 'kind: Config', 'current-context: cdk8s-kueue-ray-node',
    'clusters:', '- name: cdk8s-kueue-ray-node', '  cluster:', `    server: ${server}`, `    certificate-authority-data: ${b64(caCrt)}`,
    'users:', `- name: ${user}`, '  user:', `    client-certificate-data: ${b64(crt)}`, `    client-key-data: ${b64(key)}`,
    'contexts:', '- name: cdk8s-kueue-ray-node', '  context:', '    cluster: cdk8s-kueue-ray-node', `    user: ${user}`, '',
  ].join('\n');
}
