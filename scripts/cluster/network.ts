/**
 * The node's network: one network namespace per cluster, joined to the host by a veth pair. Everything of
 * the cluster (etcd, the API server, containerd, the kubelet, kube-proxy, the registries, the pods' bridge)
 * lives in it, so kube-proxy's iptables chains, the bridge and every pod's veth go away with it. The host
 * gets routes to the pod and Service CIDRs through the veth, and nothing routes out: the namespace has no
 * default route, so nothing leaves the machine and nothing is masqueraded.
 */
import { execFileSync } from 'child_process';

export interface NodeNetwork {
  /** Network namespace name (`ip netns`), also used as the prefix of the host-side link. */
  readonly netns: string;
  readonly hostLink: string;
  /** Host end and node end of the veth pair (a /30). */
  readonly hostIp: string;
  readonly nodeIp: string;
  readonly podCidr: string;
  readonly podGateway: string;
  readonly serviceCidr: string;
  /** The `kubernetes` Service's ClusterIP (the range's first address) and the DNS Service's. */
  readonly apiServiceIp: string;
  readonly dnsServiceIp: string;
}

export function sh(cmd: string, args: string[], input?: string): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], input });
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

function overlaps(a: string, b: string): boolean {
  const [ia, la] = a.split('/');
  const [ib, lb] = b.split('/');
  const len = Math.min(Number(la ?? 32), Number(lb ?? 32));
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return ((ipToInt(ia) & mask) >>> 0) === ((ipToInt(ib) & mask) >>> 0);
}

/** Every IPv4 prefix the host already uses: its addresses and its routes (in every table). */
function hostPrefixes(): string[] {
  const out: string[] = [];
  for (const line of sh('ip', ['-4', '-o', 'addr', 'show']).split('\n')) {
    const m = / inet (\S+)/.exec(line);
    if (m) out.push(m[1]);
  }
  for (const line of sh('ip', ['-4', 'route', 'show', 'table', 'all']).split('\n')) {
    const dst = line.trim().split(/\s+/)[0];
    if (!dst || dst === 'default' || dst === 'broadcast' || dst === 'local') continue;
    if (/^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(dst)) out.push(dst.includes('/') ? dst : `${dst}/32`);
  }
  return out;
}

/**
 * Picks the first slot whose CIDRs collide with nothing on the host: pods 10.244.<i>.0/24, Services
 * 10.96.<i>.0/24, the veth 10.245.<i>.0/30. A slot is one cluster; another cluster's routes make its
 * slot taken. `used` is the host's prefixes (addresses and routes), read from `ip` unless given.
 */
export function chooseNetwork(name: string, used: readonly string[] = hostPrefixes()): NodeNetwork {
  for (let i = 0; i < 64; i++) {
    const cidrs = [`10.244.${i}.0/24`, `10.96.${i}.0/24`, `10.245.${i}.0/30`];
    if (cidrs.some((c) => used.some((u) => overlaps(c, u)))) continue;
    return {
      netns: `ckr-${name}`, hostLink: `ckr${i}h`,
      hostIp: `10.245.${i}.1`, nodeIp: `10.245.${i}.2`,
      podCidr: cidrs[0], podGateway: `10.244.${i}.1`,
      serviceCidr: cidrs[1], apiServiceIp: `10.96.${i}.1`, dnsServiceIp: `10.96.${i}.10`,
    };
  }
  throw new Error('no free address slot for the node: 10.244.0-63.0/24, 10.96.0-63.0/24 and 10.245.0-63.0/30 all collide with the host\'s routes');
}

/** Creates the namespace, the veth pair, the host's routes, and the forwarding sysctls inside. */
export function createNetwork(n: NodeNetwork): void {
  sh('ip', ['netns', 'add', n.netns]);
  const inNs = (...args: string[]) => sh('ip', ['-n', n.netns, ...args]);
  inNs('link', 'set', 'lo', 'up');
  sh('ip', ['link', 'add', n.hostLink, 'type', 'veth', 'peer', 'name', 'node0', 'netns', n.netns]);
  sh('ip', ['addr', 'add', `${n.hostIp}/30`, 'dev', n.hostLink]);
  sh('ip', ['link', 'set', n.hostLink, 'up']);
  inNs('addr', 'add', `${n.nodeIp}/30`, 'dev', 'node0');
  inNs('link', 'set', 'node0', 'up');
  // The node answers the host (the veth) and routes between it and the pods' bridge; no default route.
  inNs('route', 'add', `${n.hostIp}/32`, 'dev', 'node0');
  // The node's own processes (the API server calling webhooks) reach ClusterIPs: without a route the
  // connect fails before kube-proxy's OUTPUT DNAT runs. A ClusterIP with no endpoints is REJECTed by it.
  inNs('route', 'add', n.serviceCidr, 'dev', 'node0');
  sh('ip', ['route', 'add', n.podCidr, 'via', n.nodeIp, 'dev', n.hostLink]);
  sh('ip', ['route', 'add', n.serviceCidr, 'via', n.nodeIp, 'dev', n.hostLink]);
  const sysctl = (k: string, v: string) => sh('ip', ['netns', 'exec', n.netns, 'sysctl', '-qw', `${k}=${v}`]);
  sysctl('net.ipv4.ip_forward', '1');
  // Service traffic between two pods on the bridge must pass iptables for its reply to be un-NATed.
  sysctl('net.bridge.bridge-nf-call-iptables', '1');
  sysctl('net.ipv4.conf.all.route_localnet', '1');
}

/** Removes the namespace (its iptables, bridge and veths go with it) and the host's end. */
export function deleteNetwork(netns: string, hostLink?: string): void {
  try { sh('ip', ['netns', 'del', netns]); } catch { /* gone */ }
  if (hostLink) {
    try { sh('ip', ['link', 'del', hostLink]); } catch { /* gone with the namespace */ }
  }
}

/** Names of this project's node namespaces (`ckr-*`). */
export function listNetworks(): string[] {
  return sh('ip', ['netns', 'list']).split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith('ckr-'));
}
