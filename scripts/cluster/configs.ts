/** The node's component configurations, as files. Paths are all under the cluster's state dir. */
import * as fs from 'fs';
import * as path from 'path';
import { NodeNetwork } from './network';

/** The upstream registries the node serves locally, each from its own registry process (own storage). */
export const REGISTRIES: ReadonlyArray<{ readonly host: string; readonly port: number }> = [
  { host: 'registry.k8s.io', port: 5001 }, { host: 'quay.io', port: 5002 }, { host: 'docker.io', port: 5003 }, { host: 'ghcr.io', port: 5004 },
];
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10.1';
export const COREDNS_VERSION = 'v1.14.7';

export interface Paths {
  readonly dir: string;
  readonly containerdSock: string;
}

function write(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

/**
 * containerd: its own root, state and socket; CRI with the explicit sandbox image, cgroupfs (cgroup v1),
 * restrict_oom_score_adj (root here lacks CAP_SYS_RESOURCE: runc cannot raise a sandbox's oom_score_adj),
 * pods' network namespaces under its state dir (so cleanup finds them), and every registry through
 * hosts.toml files whose only host is the local registry: a missing image fails to pull, as it would.
 */
export function containerdConfig(dir: string, cniConfDir: string, cniBinDir: string): string {
  const c = path.join(dir, 'containerd');
  for (const r of REGISTRIES) {
    write(path.join(c, 'certs.d', r.host, 'hosts.toml'), [
      `server = "http://127.0.0.1:${r.port}"`, '', `[host."http://127.0.0.1:${r.port}"]`, '  capabilities = ["pull", "resolve"]', '',
    ].join('\n'));
  }
  return write(path.join(c, 'config.toml'), `version = 2
root = "${c}/root"
state = "${c}/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper", `
  + `"io.containerd.snapshotter.v1.zfs", "io.containerd.internal.v1.tracing", "io.containerd.tracing.processor.v1.otlp"]
[grpc]
  address = "${c}/containerd.sock"
[ttrpc]
  address = "${c}/containerd.sock.ttrpc"
[debug]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${c}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_unprivileged_ports = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "${c}/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${cniBinDir}"
    conf_dir = "${cniConfDir}"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "${c}/certs.d"
`);
}

/** bridge + host-local + portmap (containerd adds loopback itself). No masquerade: nothing leaves. */
export function cniConfig(dir: string, n: NodeNetwork): string {
  return write(path.join(dir, 'cni', 'net.d', '10-cdk8s-kueue-ray.conflist'), JSON.stringify({
    cniVersion: '1.0.0', name: 'cdk8s-kueue-ray',
    plugins: [
      {
        type: 'bridge', bridge: 'cni0', isGateway: true, ipMasq: false, hairpinMode: true,
        ipam: { type: 'host-local', dataDir: path.join(dir, 'cni', 'ipam'), ranges: [[{ subnet: n.podCidr, gateway: n.podGateway }]],
          routes: [{ dst: '0.0.0.0/0' }] },
      },
      { type: 'portmap', capabilities: { portMappings: true } },
    ],
  }, null, 2));
}

/**
 * The kubelet on cgroup v1 (failCgroupV1: false, cgroupfs), under its own cgroup root so cleanup finds
 * every pod's cgroup. Evictions are set for a shared machine: the node's disk and memory are the host's.
 */
export function kubeletConfig(dir: string, n: NodeNetwork, caCrt: string, cgroupRoot: string): string {
  const resolv = write(path.join(dir, 'kubelet', 'resolv.conf'), '# the node resolves nothing upstream: CoreDNS forwards nowhere\n');
  return write(path.join(dir, 'kubelet', 'config.yaml'), [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    'failCgroupV1: false', 'cgroupDriver: cgroupfs', `cgroupRoot: ${cgroupRoot}`, 'cgroupsPerQOS: true',
    `address: ${n.nodeIp}`, 'port: 10250', 'readOnlyPort: 0', 'healthzBindAddress: 127.0.0.1', 'healthzPort: 10248',
    'authentication:', '  anonymous:', '    enabled: false', '  webhook:', '    enabled: true', '  x509:', `    clientCAFile: ${caCrt}`,
    'authorization:', '  mode: Webhook',
    'clusterDomain: cluster.local', 'clusterDNS:', `- ${n.dnsServiceIp}`, `resolvConf: ${resolv}`,
    'failSwapOn: false', 'protectKernelDefaults: false', 'makeIPTablesUtilChains: false',
    'evictionHard:', '  memory.available: 100Mi', '  nodefs.available: 2%', '  imagefs.available: 2%', '  nodefs.inodesFree: 2%',
    'imageGCHighThresholdPercent: 100', 'imageGCLowThresholdPercent: 99',
    'serializeImagePulls: false', 'maxPods: 110', 'podPidsLimit: -1',
    'containerLogMaxSize: 10Mi', 'containerLogMaxFiles: 2',
    'shutdownGracePeriod: 0s', 'staticPodPath: ""', '',
  ].join('\n'));
}

/** kube-proxy in iptables mode; the conntrack sysctls are the host's, so it leaves them alone. */
export function kubeProxyConfig(dir: string, n: NodeNetwork, kubeconfig: string, nodeName: string): string {
  return write(path.join(dir, 'kube-proxy', 'config.yaml'), [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha1', 'kind: KubeProxyConfiguration', 'mode: iptables',
    `hostnameOverride: ${nodeName}`, `clusterCIDR: ${n.podCidr}`, 'bindAddress: 0.0.0.0',
    'clientConnection:', `  kubeconfig: ${kubeconfig}`,
    'healthzBindAddress: 127.0.0.1:10256', 'metricsBindAddress: 127.0.0.1:10249',
    'conntrack:', '  maxPerCore: 0', '  min: 0', '  tcpEstablishedTimeout: 0s', '  tcpCloseWaitTimeout: 0s',
    'iptables:', '  masqueradeAll: false', '  syncPeriod: 30s', '  minSyncPeriod: 1s', '',
  ].join('\n'));
}

/** One CNCF distribution registry per upstream host, on the node's loopback and its veth address. */
export function registryConfig(dir: string, host: string, port: number): string {
  return write(path.join(dir, 'registry', host, 'config.yml'), [
    'version: 0.1', 'log:', '  level: warn', '  accesslog:', '    disabled: true',
    'storage:', '  filesystem:', `    rootdirectory: ${path.join(dir, 'registry', host, 'data')}`, '  delete:', '    enabled: true',
    'http:', `  addr: 0.0.0.0:${port}`, '  draintimeout: 1s', '',
  ].join('\n'));
}

/**
 * CoreDNS for cluster.local only (no forward: nothing resolves off the machine), as kube-dns. It listens
 * on 1053 as non-root with no added capability; the Service maps 53 to it.
 */
export function coreDnsObjects(n: NodeNetwork): any[] {
  const labels = { 'k8s-app': 'kube-dns' };
  const corefile = [
    '.:1053 {', '    errors', '    health {', '       lameduck 5s', '    }', '    ready',
    '    kubernetes cluster.local in-addr.arpa ip6.arpa {', '       pods insecure', '       fallthrough in-addr.arpa ip6.arpa', '       ttl 30',
    '    }',
    '    cache 30', '    loop', '    reload', '    loadbalance', '}', '',
  ].join('\n');
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: 'kube-system' } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:coredns' },
      rules: [
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: 'kube-system' }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: 'kube-system' }, data: { Corefile: corefile } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'coredns', namespace: 'kube-system', labels },
      spec: {
        replicas: 1, selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: 'coredns', priorityClassName: 'system-cluster-critical', dnsPolicy: 'Default',
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [{
              name: 'coredns', image: `registry.k8s.io/coredns/coredns:${COREDNS_VERSION}`, imagePullPolicy: 'IfNotPresent',
              args: ['-conf', '/etc/coredns/Corefile'],
              ports: [{ name: 'dns', containerPort: 1053, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 1053, protocol: 'TCP' }],
              resources: { requests: { cpu: '50m', memory: '70Mi' }, limits: { memory: '170Mi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              livenessProbe: { httpGet: { path: '/health', port: 8080 }, initialDelaySeconds: 5, periodSeconds: 10 },
              readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 2 },
              volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
            }],
            volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'kube-dns', namespace: 'kube-system', labels },
      spec: {
        selector: labels, clusterIP: n.dnsServiceIp,
        ports: [{ name: 'dns', port: 53, targetPort: 1053, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, targetPort: 1053, protocol: 'TCP' }],
      },
    },
  ];
}
