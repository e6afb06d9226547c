/**
 * Upstream CRDs for the pinned versions, for tests. Read from ../shared/vendor (KUEUE_RAY_VENDOR_DIR),
 * else from Go module zips downloaded from the module proxy into ~/.cache/cdk8s-kueue-ray/modules and
 * verified against the sha256 pinned below. Never copied into the repo.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import AdmZip from 'adm-zip';
import { prometheusOperatorVersion } from '../../scripts/cluster/images';
import { findVendorDir } from '../../scripts/vendor-dir';
import { defaultCacheDir } from '../../src/install/release-source';
import { compareVersions } from '../../src/policy/versions';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Module zips from the Go module proxy (`go env GOPROXY`): module path, version → sha256 of the zip. */
export const PINNED_MODULE_ZIPS: Record<string, { module: string; version: string; sha256: string }> = {
  'kueue@v0.14.8': { module: 'sigs.k8s.io/kueue', version: 'v0.14.8', sha256: '229a8a73a25aadb47b3ce8df02e7f24b8f3137e462171fe2de12c99a3b204b06' },
  'kueue@v0.17.0': { module: 'sigs.k8s.io/kueue', version: 'v0.17.0', sha256: '3c2a32fe2714a4ed581dd2de3b95a32fb9b770f5a5a692e2316c4526d8d7e1b8' },
  'kueue@v0.19.2': { module: 'sigs.k8s.io/kueue', version: 'v0.19.2', sha256: '97d35b6f259a146ba0cfe1661fe138419e00e0fa1659b14604b63cb162e6ea08' },
  'kuberay@v1.4.2': { module: 'github.com/ray-project/kuberay/ray-operator', version: 'v1.4.2',
    sha256: 'f433e9f4b8eddbf28053c555b730178b67176a0188f64f7686b2453c799e7f00' },
  'kuberay@v1.5.2': { module: 'github.com/ray-project/kuberay/ray-operator', version: 'v1.5.2',
    sha256: 'f9386697cbc7f74f4c95f76383ce771a28670aab4c1fd6903c5056fa470a95c8' },
  'kuberay@v1.6.2': { module: 'github.com/ray-project/kuberay/ray-operator', version: 'v1.6.2',
    sha256: 'f74badb51c7fff75e63915b442ad59ac0f9645a37d34b8d7a512d4f32c3da133' },
  // Only its CRDs are read: the AdmissionController's cert-manager objects are checked against them.
  'cert-manager@v1.21.2': { module: 'github.com/cert-manager/cert-manager', version: 'v1.21.2',
    sha256: 'cfaf1fb53965a5fd60490861387b7dbf34cd40987c878a4f1e247f836eef4782' },
  // Its CRDs (QueueObservability's ServiceMonitors and PrometheusRule are checked against them) and, on the
  // real node, its example RBAC and Deployment; the binaries are built from the same module version
  // (scripts/testcluster/build.sh, PROMETHEUS_OPERATOR_VERSION).
  'prometheus-operator@v0.85.0': { module: 'github.com/prometheus-operator/prometheus-operator', version: 'v0.85.0',
    sha256: '0bdb88ed823d0f2e86cf909638439b6ad1da744a228172c7411d9987527dc5d1' },
};

/** The vendor folder ($KUEUE_RAY_VENDOR_DIR, else ../shared/vendor beside the repo), or undefined. */
export const vendorDir = findVendorDir;

/** The same cache the installs use for downloads. */
export const cacheDir = defaultCacheDir;

function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** Downloads (once) and verifies a pinned module zip; returns its path. */
export async function ensureModuleZip(key: string): Promise<string> {
  const pin = PINNED_MODULE_ZIPS[key];
  if (!pin) throw new Error(`no pinned module zip for ${key}`);
  const dir = path.join(cacheDir(), 'modules');
  const file = path.join(dir, `${pin.module.replace(/\//g, '_')}@${pin.version}.zip`);
  if (fs.existsSync(file) && sha256(fs.readFileSync(file)) === pin.sha256) return file;
  // The proxy the machine's Go is configured with (GOPROXY, else go env), never a host written here.
  const goproxy = process.env.GOPROXY ?? execFileSync('go', ['env', 'GOPROXY']).toString().trim();
  const proxy = goproxy.split(/[,|]/)[0].replace(/\/$/, '');
  if (!/^https?:\/\//.test(proxy)) throw new Error(`GOPROXY "${goproxy}" names no module proxy to download ${key} from; set GOPROXY or KUEUE_RAY_VENDOR_DIR`);
  const url = `${proxy}/${pin.module}/@v/${pin.version}.zip`;
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`cannot download ${url} (${(e as Error).message}) and ${file} is not cached: check network access to the Go module proxy, or set `
      + 'KUEUE_RAY_VENDOR_DIR to the shared/vendor folder');
  }
  if (!res.ok) throw new Error(`download of ${url} failed: HTTP ${res.status}`);
  const buf = Buffer.from(await res.arrayBuffer());
  const got = sha256(buf);
  if (got !== pin.sha256) throw new Error(`checksum mismatch for ${url}: got ${got}, pinned ${pin.sha256}; refusing to use it`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, buf);
  return file;
}

const zipCache = new Map<string, AdmZip>();

async function readFromModule(key: string, relPath: string): Promise<string> {
  const pin = PINNED_MODULE_ZIPS[key];
  const file = await ensureModuleZip(key);
  let zip = zipCache.get(file);
  if (!zip) {
    zip = new AdmZip(file);
    zipCache.set(file, zip);
  }
  const entry = zip.getEntry(`${pin.module}@${pin.version}/${relPath}`);
  if (!entry) throw new Error(`${relPath} not found in ${file}`);
  return entry.getData().toString('utf8');
}

/** A Kueue CRD (by plural, e.g. "clusterqueues") at a tag. */
export async function readKueueCrd(tag: string, plural: string): Promise<string> {
  const rel = `config/components/crd/bases/kueue.x-k8s.io_${plural}.yaml`;
  const v = vendorDir();
  if (v && fs.existsSync(path.join(v, 'kueue', tag, rel))) return fs.readFileSync(path.join(v, 'kueue', tag, rel), 'utf8');
  const key = `kueue@${tag}`;
  if (!PINNED_MODULE_ZIPS[key]) throw new Error(`Kueue ${tag} CRDs: not in the vendor folder (${v ?? 'not found'}) and no pinned module zip; set `
    + 'KUEUE_RAY_VENDOR_DIR to shared/vendor');
  return readFromModule(key, rel);
}

/** A cert-manager CRD (by plural, e.g. "certificates") at the pinned version. */
export function readCertManagerCrd(plural: string): Promise<string> {
  return readFromModule('cert-manager@v1.21.2', `deploy/crds/cert-manager.io_${plural}.yaml`);
}

/** A file of the prometheus-operator module at the version the test cluster builds (e.g. "example/rbac/..."). */
export function readPrometheusOperatorFile(relPath: string): Promise<string> {
  return readFromModule(`prometheus-operator@${prometheusOperatorVersion()}`, relPath);
}

/** The CRD plurals of monitoring.coreos.com that prometheus-operator serves (every one must exist before it starts). */
export const PROMETHEUS_OPERATOR_CRDS = ['alertmanagerconfigs', 'alertmanagers', 'podmonitors', 'probes', 'prometheusagents', 'prometheuses',
  'prometheusrules', 'scrapeconfigs', 'servicemonitors', 'thanosrulers'];

/** A prometheus-operator CRD (by plural, e.g. "servicemonitors") at the pinned version. */
export function readPrometheusOperatorCrd(plural: string): Promise<string> {
  return readPrometheusOperatorFile(`example/prometheus-operator-crd/monitoring.coreos.com_${plural}.yaml`);
}

/** A KubeRay CRD (by plural, e.g. "rayjobs") at a tag. */
export async function readKubeRayCrd(tag: string, plural: string): Promise<string> {
  const v = vendorDir();
  const vendored = v && path.join(v, 'kuberay', tag, 'ray-operator', 'config', 'crd', 'bases', `ray.io_${plural}.yaml`);
  if (vendored && fs.existsSync(vendored)) return fs.readFileSync(vendored, 'utf8');
  return readFromModule(`kuberay@${tag}`, `config/crd/bases/ray.io_${plural}.yaml`);
}

/** File names of every Kueue CRD base at a tag (e.g. "kueue.x-k8s.io_workloads.yaml"). */
export async function listKueueCrds(tag: string): Promise<string[]> {
  const rel = 'config/components/crd/bases';
  const v = vendorDir();
  if (v && fs.existsSync(path.join(v, 'kueue', tag, rel))) return fs.readdirSync(path.join(v, 'kueue', tag, rel)).filter((f) => f.endsWith('.yaml'))
    .sort();
  const key = `kueue@${tag}`;
  const pin = PINNED_MODULE_ZIPS[key];
  if (!pin) throw new Error(`Kueue ${tag}: not in the vendor folder and no pinned module zip; set KUEUE_RAY_VENDOR_DIR to shared/vendor`);
  const file = await ensureModuleZip(key);
  const prefix = `${pin.module}@${pin.version}/${rel}/`;
  return new AdmZip(file).getEntries().map((e) => e.entryName).filter((n) => n.startsWith(prefix) && n.endsWith('.yaml'))
    .map((n) => n.slice(prefix.length)).sort();
}

/** A file of Kueue's config/ tree at a tag, e.g. "config/components/webhook/manifests.yaml". */
export async function readKueueFile(tag: string, rel: string): Promise<string> {
  const v = vendorDir();
  if (v && fs.existsSync(path.join(v, 'kueue', tag, rel))) return fs.readFileSync(path.join(v, 'kueue', tag, rel), 'utf8');
  const key = `kueue@${tag}`;
  if (!PINNED_MODULE_ZIPS[key]) throw new Error(`Kueue ${tag} ${rel}: not in the vendor folder and no pinned module zip`);
  return readFromModule(key, rel);
}

/** KubeRay CRD plurals at a tag (RayCronJob arrived in v1.6). */
export function kubeRayCrdPlurals(tag: string): string[] {
  return ['rayclusters', 'rayjobs', 'rayservices', ...(compareVersions(tag, 'v1.6.0') >= 0 ? ['raycronjobs'] : [])];
}
