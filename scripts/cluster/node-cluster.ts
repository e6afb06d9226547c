/**
 * A one-node Kubernetes cluster on this machine, without Docker: etcd, kube-apiserver,
 * kube-controller-manager, kube-scheduler, a kubelet on Debian's containerd + runc, kube-proxy (iptables)
 * and CoreDNS, with local OCI registries standing in for registry.k8s.io, quay.io, docker.io and ghcr.io.
 * Everything runs in the cluster's own network namespace, cgroup root and state dir, and `down` (or the
 * next `up` after a killed run) removes all of it: processes, mounts, namespaces, cgroups and files.
 *
 * Binaries come from scripts/testcluster/build.sh, the images from scripts/cluster/images.sh.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as path from 'path';
import { defaultCacheDir } from '../../src/install/release-source';
import { coreDnsObjects, cniConfig, containerdConfig, kubeletConfig, kubeProxyConfig, REGISTRIES, registryConfig } from './configs';
import { chooseNetwork, createNetwork, deleteNetwork, NodeNetwork } from './network';
import { kubeconfigText, makeNodePki, NodePki } from './pki';
import { alive, assertRunning, logPath, processesOf, recorded, startIn } from './processes';

export const K8S_VERSION = process.env.K8S_VERSION ?? 'v1.34.1';
const ETCD_VERSION = process.env.ETCD_VERSION ?? 'v3.6.4';
const DISTRIBUTION_VERSION = 'v3.1.2';
/** kube-router, the opt-in NetworkPolicy enforcer (scripts/testcluster/build.sh pins it: KUBE_ROUTER_VERSION). */
export const KUBE_ROUTER_VERSION = process.env.KUBE_ROUTER_VERSION ?? 'v2.1.0';
/** kube-router's health port (its default), on every address of the node's namespace. */
const KUBE_ROUTER_HEALTH_PORT = 20244;
export const NODE_NAME = 'cdk8s-kueue-ray-node';

/** The project's cache dir (CDK8S_KUEUE_RAY_CACHE or ~/.cache/cdk8s-kueue-ray), the one the installs and the test build use. */
export const cacheDir = defaultCacheDir;
function bin(name: string): string {
  return path.join(cacheDir(), 'bin', name);
}
export function stateDir(name: string): string {
  return path.join(cacheDir(), 'nodes', name);
}

/** An image to load: its reference as manifests write it, and an OCI archive (`oci-archive:` path[:tag]). */
export interface NodeImage {
  readonly reference: string;
  readonly archive: string;
}

export interface NodeUpOptions {
  readonly images: NodeImage[];
  /** The pid whose death makes the node reapable (none: kept until `down`). */
  readonly owner?: number;
  readonly log?: (line: string) => void;
  /**
   * Enforce NetworkPolicies: start kube-router's network-policy controller in the node's namespace, and
   * return once it is healthy. Test-only (the network-policy suite): see startNetworkPolicy.
   * @default false (the CNI bridge enforces none, as every other suite runs)
   */
  readonly networkPolicy?: boolean;
}

export interface NodeState {
  readonly name: string;
  readonly dir: string;
  readonly network: NodeNetwork;
  readonly kubeconfig: string;
  readonly server: string;
  readonly cgroupRoot: string;
  /** Seconds per bring-up phase. */
  readonly timings: Record<string, number>;
}

async function waitFor(what: string, fn: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 250): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await fn()) return;
    } catch (e) {
      if ((e as Error).message.includes('exited during start-up')) throw e;
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

function get(url: string, pki: NodePki): Promise<number> {
  return new Promise((resolve) => {
    const tls = { ca: fs.readFileSync(pki.caCrt), cert: fs.readFileSync(pki.clients.admin.crt), key: fs.readFileSync(pki.clients.admin.key) };
    const req = https.get(url, tls, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => { req.destroy(); resolve(0); });
  });
}

/** The cgroup v1 hierarchies (and the unified one, if mounted beside them). */
function cgroupHierarchies(): string[] {
  const base = '/sys/fs/cgroup';
  return fs.readdirSync(base, { withFileTypes: true }).filter((d) => d.isDirectory() || d.isSymbolicLink())
    .map((d) => path.join(base, d.name)).filter((d) => fs.existsSync(path.join(d, 'cgroup.procs')))
    .filter((d, i, all) => all.findIndex((x) => fs.realpathSync(x) === fs.realpathSync(d)) === i);
}

function makeCgroupRoot(root: string): void {
  for (const h of cgroupHierarchies()) {
    const d = path.join(h, root);
    fs.mkdirSync(d, { recursive: true });
    for (const f of ['cpuset.cpus', 'cpuset.mems']) {
      if (fs.existsSync(path.join(d, f)) && !fs.readFileSync(path.join(d, f), 'utf8').trim()) fs.writeFileSync(path.join(d, f),
        fs.readFileSync(path.join(h, f)));
    }
  }
}

export class NodeCluster {
  /** Brings the node up in `<cache>/nodes/<name>`; `owner` is the pid whose death makes it reapable (none: kept until `down`). */
  static async up(name: string, opts: NodeUpOptions): Promise<NodeState> {
    if (process.getuid?.() !== 0) throw new Error('the node cluster needs root (network namespaces, mounts, cgroups)');
    NodeCluster.reapOrphans();
    const dir = stateDir(name);
    if (fs.existsSync(path.join(dir, 'state.json'))) throw new Error(`a node cluster named ${name} is already up (${dir}); run \`npm run `
      + 'cluster -- down` first');
    NodeCluster.down(name);
    const log = opts.log ?? ((l: string) => process.stdout.write(`${l}\n`));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'owner'), opts.owner ? String(opts.owner) : 'none');
    const t0 = Date.now();
    const timings: Record<string, number> = {};
    const phase = async <T>(what: string, fn: () => Promise<T> | T): Promise<T> => {
      const t = Date.now();
      const r = await fn();
      timings[what] = (Date.now() - t) / 1000;
      return r;
    };
    const network = chooseNetwork(name);
    const cgroupRoot = `/ckr-${name}`;
    fs.writeFileSync(path.join(dir, 'network.json'), JSON.stringify({ network, cgroupRoot }));
    try {
      return await NodeCluster.boot(name, dir, network, cgroupRoot, opts.images, phase, timings, t0, log, opts.networkPolicy ?? false);
    } catch (e) {
      throw new Error(`${(e as Error).message}\n(the node's logs are in ${path.join(dir, 'logs')}; \`npm run cluster -- down\` removes it)`);
    }
  }

  private static async boot(name: string, dir: string, network: NodeNetwork, cgroupRoot: string, images: NodeImage[],
    phase: <T>(what: string, fn: () => Promise<T> | T) => Promise<T>, timings: Record<string, number>, t0: number,
    log: (l: string) => void, networkPolicy: boolean): Promise<NodeState> {
    const ns = network.netns;
    const server = `https://${network.nodeIp}:6443`;
    await phase('network', () => createNetwork(network));
    makeCgroupRoot(cgroupRoot);
    const pki = await phase('pki',
      () => makeNodePki(path.join(dir, 'pki'), { nodeName: NODE_NAME, nodeIp: network.nodeIp, apiServiceIp: network.apiServiceIp }));
    const kubeconfigs: Record<string, string> = {};
    for (const [who, c] of Object.entries(pki.clients)) {
      kubeconfigs[who] = path.join(dir, `${who}.kubeconfig`);
      fs.writeFileSync(kubeconfigs[who], kubeconfigText(server, pki.caCrt, c.crt, c.key, who));
    }

    // Registries and containerd first: they start in parallel with the control plane's boot.
    for (const r of REGISTRIES) startIn(dir, ns, `registry-${r.host}`, bin(`registry-${DISTRIBUTION_VERSION}`),
      ['serve', registryConfig(dir, r.host, r.port)]);
    const cniBin = '/usr/lib/cni';
    startIn(dir, ns, 'containerd', '/usr/bin/containerd', ['--config', containerdConfig(dir, path.join(dir, 'cni', 'net.d'), cniBin)]);
    cniConfig(dir, network);

    await phase('etcd', async () => {
      startIn(dir, ns, 'etcd', bin(`etcd-${ETCD_VERSION}`), [
        '--name=node', `--data-dir=${path.join(dir, 'etcd')}`, '--listen-client-urls=http://127.0.0.1:2379', '--advertise-client-urls=http://127.0.0.1:2379',
        '--listen-peer-urls=http://127.0.0.1:2380', '--initial-advertise-peer-urls=http://127.0.0.1:2380', '--initial-cluster=node=http://127.0.0.1:2380',
        '--unsafe-no-fsync=true', '--logger=zap', '--log-level=warn', '--listen-metrics-urls=http://127.0.0.1:2381',
      ]);
      // The API server's /readyz below waits for etcd too.
      await new Promise((r) => setTimeout(r, 300));
      assertRunning(dir, 'etcd');
    });
    await phase('kube-apiserver', async () => {
      startIn(dir, ns, 'kube-apiserver', bin(`kube-apiserver-${K8S_VERSION}`), [
        '--etcd-servers=http://127.0.0.1:2379', '--bind-address=0.0.0.0', `--advertise-address=${network.nodeIp}`, '--secure-port=6443',
        `--cert-dir=${path.join(dir, 'apiserver-certs')}`, `--tls-cert-file=${pki.apiserverCrt}`, `--tls-private-key-file=${pki.apiserverKey}`,
        `--client-ca-file=${pki.caCrt}`, '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local', `--service-account-key-file=${pki.saPub}`,
        `--service-account-signing-key-file=${pki.saKey}`, `--service-cluster-ip-range=${network.serviceCidr}`, '--allow-privileged=true',
        `--kubelet-client-certificate=${pki.clients.apiserverKubeletClient.crt}`, `--kubelet-client-key=${pki.clients.apiserverKubeletClient.key}`,
        '--kubelet-preferred-address-types=InternalIP', '--profiling=false', '--v=0',
      ]);
      await waitFor('kube-apiserver /readyz',
        async () => { assertRunning(dir, 'kube-apiserver'); return (await get(`${server}/readyz`, pki)) === 200; }, 120000, 250);
    });
    fs.copyFileSync(kubeconfigs.admin, path.join(dir, 'admin.kubeconfig'));
    startIn(dir, ns, 'kube-controller-manager', bin(`kube-controller-manager-${K8S_VERSION}`), [
      `--kubeconfig=${kubeconfigs.controllerManager}`, `--authentication-kubeconfig=${kubeconfigs.controllerManager}`,
      `--authorization-kubeconfig=${kubeconfigs.controllerManager}`, `--service-account-private-key-file=${pki.saKey}`, `--root-ca-file=${pki.caCrt}`,
      `--cluster-signing-cert-file=${pki.caCrt}`, `--cluster-signing-key-file=${pki.caKey}`, '--use-service-account-credentials=true',
      '--leader-elect=false', '--bind-address=127.0.0.1', '--secure-port=10257', '--allocate-node-cidrs=false', '--v=0',
    ]);
    startIn(dir, ns, 'kube-scheduler', bin(`kube-scheduler-${K8S_VERSION}`), [
      `--kubeconfig=${kubeconfigs.scheduler}`, `--authentication-kubeconfig=${kubeconfigs.scheduler}`,
        `--authorization-kubeconfig=${kubeconfigs.scheduler}`,
        '--leader-elect=false', '--bind-address=127.0.0.1', '--secure-port=10259', '--v=0',
    ]);

    await phase('images', () => NodeCluster.loadImages(name, images, log));
    await phase('kubelet', async () => {
      await waitFor('containerd', () => { assertRunning(dir, 'containerd'); return fs.existsSync(path.join(dir, 'containerd', 'containerd.sock')); },
        30000, 100);
      startIn(dir, ns, 'kubelet', bin(`kubelet-${K8S_VERSION}`), [
        `--config=${kubeletConfig(dir, network, pki.caCrt, cgroupRoot)}`, `--kubeconfig=${kubeconfigs.kubelet}`,
        `--container-runtime-endpoint=unix://${path.join(dir, 'containerd', 'containerd.sock')}`, `--root-dir=${path.join(dir, 'kubelet', 'root')}`,
        `--cert-dir=${path.join(dir, 'kubelet', 'pki')}`, `--hostname-override=${NODE_NAME}`, `--node-ip=${network.nodeIp}`, '--v=0',
      ]);
      startIn(dir, ns, 'kube-proxy', bin(`kube-proxy-${K8S_VERSION}`), [`--config=${kubeProxyConfig(dir, network, kubeconfigs.proxy, NODE_NAME)}`]);
      await waitFor(`node ${NODE_NAME} Ready`, () => {
        assertRunning(dir, 'kubelet');
        assertRunning(dir, 'kube-proxy');
        const node = kubectlJson(dir, ['get', 'node', NODE_NAME, '--ignore-not-found']);
        return !!node?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
      }, 120000, 500);
    });
    await phase('coredns', async () => {
      kubectl(dir, ['apply', '--server-side', '-f', '-'], coreDnsObjects(network).map((o) => JSON.stringify(o)).join('\n'));
      await waitFor('CoreDNS Available', () => {
        const d = kubectlJson(dir, ['-n', 'kube-system', 'get', 'deployment', 'coredns']);
        return d?.status?.availableReplicas >= 1;
      }, 120000, 500);
    });
    if (networkPolicy) await phase('kube-router', () => startNetworkPolicy(dir, network, kubeconfigs.admin));
    timings.total = (Date.now() - t0) / 1000;
    const state: NodeState = { name, dir, network, kubeconfig: path.join(dir, 'admin.kubeconfig'), server, cgroupRoot, timings };
    fs.writeFileSync(path.join(dir, 'state.json'), JSON.stringify(state, null, 2));
    return state;
  }

  /** Pushes each image into the local registry that serves its reference's host. */
  static loadImages(name: string, images: NodeImage[], log: (l: string) => void = () => undefined): void {
    const net: { network: NodeNetwork } = JSON.parse(fs.readFileSync(path.join(stateDir(name), 'network.json'), 'utf8'));
    for (const img of images) {
      const m = /^([^/]+)\/(.+):([^:/]+)$/.exec(img.reference);
      const reg = m && REGISTRIES.find((r) => r.host === m[1]);
      if (!m || !reg) throw new Error(`image ${img.reference}: the node serves only ${REGISTRIES.map((r) => r.host).join(', ')} (write the full `
        + 'reference, host/repository:tag)');
      const t = Date.now();
      const dest = `docker://${net.network.nodeIp}:${reg.port}/${m[2]}:${m[3]}`;
      let lastErr: unknown;
      for (let attempt = 0; attempt < 40; attempt++) { // the registry may still be starting
        try {
          execFileSync('skopeo', ['copy', '--quiet', '--dest-tls-verify=false', '--retry-times=2', `oci-archive:${img.archive}`, dest],
            { stdio: 'pipe' });
          lastErr = undefined;
          break;
        } catch (e) {
          lastErr = e;
          execFileSync('sleep', ['0.25']);
        }
      }
      if (lastErr) throw new Error(`loading ${img.reference} from ${img.archive} into the registry `
        + `failed: ${((lastErr as any).stderr ?? lastErr).toString().trim()}; see ${logPath(stateDir(name), `registry-${reg.host}`)}`);
      log(`[node] loaded ${img.reference} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
  }

  /** The running cluster's state, or undefined. */
  static state(name: string): NodeState | undefined {
    const f = path.join(stateDir(name), 'state.json');
    return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : undefined;
  }

  /** Removes everything of the named cluster; safe to call when it is not (or half) up. */
  static down(name: string): void {
    const dir = stateDir(name);
    let net: { network?: NodeNetwork; cgroupRoot?: string } = {};
    try { net = JSON.parse(fs.readFileSync(path.join(dir, 'network.json'), 'utf8')); } catch { /* never got that far */ }
    const cgroupRoot = net.cgroupRoot ?? `/ckr-${name}`;
    const cgroupDirs = cgroupHierarchies().map((h) => path.join(h, cgroupRoot));
    // Processes: the recorded ones, containerd's shims (they name the state dir) and every container.
    for (let round = 0; round < 50; round++) {
      const pids = new Set([...recorded(dir).map((r) => r.pid), ...processesOf(dir, cgroupDirs)]);
      if (pids.size === 0) break;
      for (const pid of pids) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      execFileSync('sleep', ['0.1']);
    }
    // Mounts under the state dir (overlay snapshots, the kubelet's volumes, the pods' netns files), deepest first.
    const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4])
      .filter((m) => m && (m === dir || m.startsWith(`${dir}/`)));
    for (const m of mounts.sort((a, b) => b.length - a.length)) {
      try { execFileSync('umount', ['-l', m], { stdio: 'pipe' }); } catch { /* already gone */ }
    }
    for (const d of cgroupDirs) {
      if (!fs.existsSync(d)) continue;
      const dirs: string[] = [];
      const walk = (x: string) => {
        dirs.push(x);
        for (const c of fs.readdirSync(x, { withFileTypes: true })) if (c.isDirectory()) walk(path.join(x, c.name));
      };
      walk(d);
      for (const x of dirs.reverse()) {
        try { fs.rmdirSync(x); } catch { /* busy: reported by the check below */ }
      }
    }
    removeShimSockets(dir);
    deleteNetwork(net.network?.netns ?? `ckr-${name}`, net.network?.hostLink);
    fs.rmSync(dir, { recursive: true, force: true });
    const left = cgroupDirs.filter((d) => fs.existsSync(d));
    if (left.length) throw new Error(`node ${name}: cgroups still busy after cleanup: ${left.join(', ')}`);
  }

  /** Removes node clusters whose owner process died (a killed test run); `none`-owned ones stay. */
  static reapOrphans(): void {
    const base = path.join(cacheDir(), 'nodes');
    if (!fs.existsSync(base)) return;
    for (const name of fs.readdirSync(base)) {
      const owner = fs.existsSync(path.join(base, name, 'owner')) ? fs.readFileSync(path.join(base, name, 'owner'), 'utf8').trim() : '';
      if (owner !== 'none' && !(Number(owner) && alive(Number(owner)))) NodeCluster.down(name);
    }
  }
}

/**
 * The NetworkPolicy enforcer: kube-router's network-policy controller alone (no routing, no service proxy,
 * no CNI, no BGP, metrics off), inside the node's network namespace, so its iptables chains and ipsets
 * live and die with it. TEST-ONLY, never shipped: kube-router v2.1.0 has reported security flaws; it runs
 * only here, for the network-policy suite, and only when NodeCluster.up is asked (networkPolicy).
 *
 * It uses the same iptables backend as the node's kube-proxy: both run the `iptables` of PATH (Debian's
 * alternatives, iptables-nft here), so their rules sit in the same tables; the check below refuses to go on
 * if kube-proxy's chains are not where kube-router will write. It reaches the API server with the admin
 * client certificate: acceptable for a test-only component in a throw-away cluster (it needs to read pods,
 * namespaces, NetworkPolicies and nodes, and nothing else of the cluster is at stake).
 */
async function startNetworkPolicy(dir: string, network: NodeNetwork, kubeconfig: string): Promise<void> {
  const inNs = (cmd: string, ...args: string[]) => execFileSync('nsenter', [`--net=/var/run/netns/${network.netns}`, '--', cmd, ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const backend = /\((nf_tables|legacy)\)/.exec(inNs('iptables', '--version'))?.[1];
  await waitFor('kube-proxy\'s chains (KUBE-SERVICES)', () => inNs('iptables-save', '-t', 'nat').includes(':KUBE-SERVICES'), 60000, 500);
  fs.writeFileSync(path.join(dir, 'kube-router-backend'), `${backend}\n`);
  startIn(dir, network.netns, 'kube-router', bin(`kube-router-${KUBE_ROUTER_VERSION}`), [
    `--kubeconfig=${kubeconfig}`, `--hostname-override=${NODE_NAME}`,
    '--run-firewall=true', '--run-router=false', '--run-service-proxy=false', '--run-loadbalancer=false',
    '--enable-cni=false', '--enable-ibgp=false', '--enable-overlay=false', '--enable-pprof=false',
    '--metrics-port=0', `--health-port=${KUBE_ROUTER_HEALTH_PORT}`, `--service-cluster-ip-range=${network.serviceCidr}`,
    '--iptables-sync-period=5m', '--v=1',
  ]);
  await waitFor('kube-router healthy (its network-policy controller synced)', async () => {
    assertRunning(dir, 'kube-router');
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get(`http://${network.nodeIp}:${KUBE_ROUTER_HEALTH_PORT}/healthz`, (res) => { res.resume(); resolve(res.statusCode === 200); });
      req.on('error', () => resolve(false));
      req.setTimeout(2000, () => { req.destroy(); resolve(false); });
    });
    // Healthy once its first full sync wrote the top-level chain into the filter table.
    return ok && inNs('iptables-save', '-t', 'filter').includes(':KUBE-ROUTER-FORWARD');
  }, 120000, 500);
}

/**
 * containerd 1.6 puts each shim's socket in /run/containerd/s/<sha256(address/namespace/id)>, outside
 * its state dir, and a killed shim leaves it: remove those of this cluster's sandboxes and containers.
 */
function removeShimSockets(dir: string): void {
  const address = path.join(dir, 'containerd', 'containerd.sock');
  const runcRoot = path.join(dir, 'containerd', 'runc');
  if (!fs.existsSync(runcRoot)) return;
  for (const ns of fs.readdirSync(runcRoot)) {
    for (const id of fs.readdirSync(path.join(runcRoot, ns))) {
      const sock = path.join('/run/containerd/s', createHash('sha256').update(path.join(address, ns, id)).digest('hex'));
      fs.rmSync(sock, { force: true });
    }
  }
}

export function kubectl(dir: string, args: string[], input?: string): string {
  return execFileSync(bin(`kubectl-${K8S_VERSION}`), [`--kubeconfig=${path.join(dir, 'admin.kubeconfig')}`, ...args],
    { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

function kubectlJson(dir: string, args: string[]): any {
  const out = kubectl(dir, [...args, '-o', 'json']).trim();
  return out ? JSON.parse(out) : undefined;
}
