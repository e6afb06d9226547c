/**
 * The controller as shipped: the OCI archive `npm run image` writes, unpacked into a root filesystem
 * and started with the image's own entrypoint, user and environment, on a read-only bind mount of that
 * root, in new mount and PID namespaces (`unshare --mount --pid --fork`) with `chroot --userspec`.
 * No container runtime: podman cannot run in this sandbox and there is no Docker engine. The network
 * namespace is shared, so the controller reaches the test API server on 127.0.0.1 and vice versa.
 *
 * Needs root (unshare, chroot, mount); CI runs as root. A missing or stale image fails the suite with
 * the command that builds it.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REPO_ROOT } from '../../support/upstream';
import { freePort, trackChild, trackPid } from './cluster';

/** The parts of the OCI image config that say how to run it. */
export interface ImageConfig {
  readonly Entrypoint: string[];
  readonly Cmd?: string[];
  readonly User: string;
  readonly Env?: string[];
  readonly WorkingDir?: string;
}

export interface UnpackedImage {
  readonly archive: string;
  readonly digest: string;
  readonly rootfs: string;
  readonly config: ImageConfig;
}

/** Where files handed to the controller (kubeconfig, certificates) appear inside the image. */
export const FILES_MOUNT = '/e2e';

/** The source the image is built from: an image older than any of these is stale. */
const SOURCES = ['src/cli', 'src/controller', 'src/policy', 'scripts/bundle.js', 'scripts/image/build.sh', 'package.json', 'package-lock.json'];

function newestSource(): { file: string; mtime: number } {
  let best = { file: '', mtime: 0 };
  const visit = (p: string) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const f of fs.readdirSync(p)) visit(path.join(p, f));
    else if (st.mtimeMs > best.mtime) best = { file: path.relative(REPO_ROOT, p), mtime: st.mtimeMs };
  };
  for (const s of SOURCES) visit(path.join(REPO_ROOT, s));
  return best;
}

let unpacked: UnpackedImage | undefined;

/**
 * Unpacks dist/image/controller-<version>.oci.tar (once per process; by digest under the temp dir) and
 * makes the mount points a container runtime would make (/proc, and FILES_MOUNT for the test's files).
 */
export function unpackImage(): UnpackedImage {
  if (unpacked) return unpacked;
  if (process.getuid?.() !== 0) throw new Error('the e2e runs the controller image with unshare and chroot, which need root (CI runs as root)');
  const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const archive = path.join(REPO_ROOT, 'dist', 'image', `controller-${version}.oci.tar`);
  if (!fs.existsSync(archive)) throw new Error(`${path.relative(REPO_ROOT, archive)} is missing: the e2e runs the controller from its image; build `
    + 'it with `npm run image`');
  const newest = newestSource();
  if (newest.mtime > fs.statSync(archive).mtimeMs) {
    throw new Error(`${path.relative(REPO_ROOT, archive)} is older than ${newest.file}: the e2e would test a stale controller; rebuild it `
      + 'with `npm run image`');
  }
  const layout = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-kueue-ray-oci-'));
  try {
    execFileSync('tar', ['-xf', archive, '-C', layout]);
    const blob = (digest: string) => path.join(layout, 'blobs', ...digest.split(':'));
    const index = JSON.parse(fs.readFileSync(path.join(layout, 'index.json'), 'utf8'));
    if (index.manifests?.length !== 1) throw new Error(`${archive}: expected one manifest in index.json, found ${index.manifests?.length}`);
    const digest: string = index.manifests[0].digest;
    const manifest = JSON.parse(fs.readFileSync(blob(digest), 'utf8'));
    const config: ImageConfig = JSON.parse(fs.readFileSync(blob(manifest.config.digest), 'utf8')).config;
    const rootfs = path.join(os.tmpdir(), `cdk8s-kueue-ray-rootfs-${digest.replace(':', '-')}`);
    if (!fs.existsSync(rootfs)) {
      const partial = `${rootfs}.partial-${process.pid}`;
      fs.mkdirSync(partial);
      for (const layer of manifest.layers) {
        // Our image is one layer written by buildah; a whiteout would need overlay semantics this does not implement.
        const names = execFileSync('tar', ['-tzf', blob(layer.digest)], { maxBuffer: 64 << 20 }).toString();
        if (/(^|\/)\.wh\./m.test(names)) throw new Error(`${archive}: layer ${layer.digest} has whiteouts; unpackImage applies plain layers only`);
        execFileSync('tar', ['-xzpf', blob(layer.digest), '-C', partial, '--numeric-owner']);
      }
      for (const dir of ['proc', FILES_MOUNT.slice(1)]) fs.mkdirSync(path.join(partial, dir), { recursive: true });
      try {
        fs.renameSync(partial, rootfs);
      } catch (e) {
        // Another jest worker unpacked the same digest first: use its copy.
        fs.rmSync(partial, { recursive: true, force: true });
        if (!fs.existsSync(rootfs)) throw e;
      }
    }
    unpacked = { archive, digest, rootfs, config };
    return unpacked;
  } finally {
    fs.rmSync(layout, { recursive: true, force: true });
  }
}

export interface ImageController {
  /** The controller's PID (PID 1 of its namespace). */
  readonly pid: number;
  readonly proc: ChildProcess;
  /** Its stdout and stderr so far (JSON log lines). */
  output(): string;
  /** Resolves once a log line matches. */
  waitForLog(re: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * SIGTERM to the controller; resolves with its exit code once it (and its namespace) is gone, or
   * null if it had to be killed after 25 s. As PID 1 of its namespace (as in a container) it ignores
   * SIGTERM until it has installed its handler, at the end of its start-up.
   */
  stop(): Promise<number | null>;
}

/**
 * Starts the image's entrypoint with `args` in place of its Cmd (as a pod's `args` do). `files` are
 * copied into a directory owned by the image's user and bind-mounted read-only at FILES_MOUNT; pass
 * their in-image paths (`${FILES_MOUNT}/<name>`) in `args`. `env` is added to the image's Env; nothing of
 * the test's environment leaks in.
 */
export async function startImageController(
  opts: { args: string[]; files?: Record<string, string | Buffer>; env?: Record<string, string>; name?: string },
): Promise<ImageController> {
  const image = unpackImage();
  const { config } = image;
  if ((config.WorkingDir ?? '/') !== '/') throw new Error(`image WorkingDir ${config.WorkingDir}: startImageController runs from / only`);
  const [uid, gid] = config.User.split(':').map(Number);
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-kueue-ray-controller-files-'));
  for (const [name, content] of Object.entries(opts.files ?? {})) {
    fs.writeFileSync(path.join(files, name), content, { mode: 0o600 });
    fs.chownSync(path.join(files, name), uid, gid);
  }
  fs.chmodSync(files, 0o755);
  const env = [...(config.Env ?? []), ...Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`)];
  // The host's network is shared (no network namespace): a free metrics port, unless the test picks one,
  // so two replicas, or anything else on 8080, do not collide.
  const args = opts.args.some((a) => a.startsWith('--metrics-port')) ? opts.args : [...opts.args, `--metrics-port=${await freePort()}`];
  const script = [
    'set -e', 'R="$1"; F="$2"; shift 2',
    'mount --bind "$R" "$R"', 'mount -o remount,bind,ro "$R"', // the read-only root filesystem
    'mount -t proc proc "$R/proc"', // this PID namespace's /proc, as a container has
    `mount --bind "$F" "$R${FILES_MOUNT}"`, `mount -o remount,bind,ro "$R${FILES_MOUNT}"`,
    'exec "$@"',
  ].join('\n');
  const chroot = execFileSync('sh', ['-c', 'command -v chroot']).toString().trim();
  const env0 = execFileSync('sh', ['-c', 'command -v env']).toString().trim();
  // Not --kill-child: chroot --userspec changes the uid, which clears the parent-death signal, so the
  // controller (PID 1 of its namespace) is tracked by its own pid below and killed with the harness.
  const proc = spawn('unshare', ['--mount', '--pid', '--fork', 'sh', '-c', script, 'sh', image.rootfs, files,
    env0, '-i', ...env, chroot, `--userspec=${uid}:${gid}`, image.rootfs, ...config.Entrypoint, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  trackChild(proc);
  let out = '';
  const tag = opts.name ? `[controller ${opts.name}] ` : '[controller] ';
  const onData = (d: Buffer) => {
    out += d;
    if (process.env.E2E_VERBOSE) process.stdout.write(d.toString().split('\n').filter(Boolean).map((l) => `${tag}${l}\n`).join(''));
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  // The controller is unshare's child; signals to unshare itself are not passed on.
  let pid = 0;
  for (let i = 0; i < 100 && !pid; i++) {
    const children = `/proc/${proc.pid}/task/${proc.pid}/children`;
    pid = fs.existsSync(children) ? Number(fs.readFileSync(children, 'utf8').trim().split(/\s+/)[0]) || 0 : 0;
    if (!pid) await new Promise((r) => setTimeout(r, 20));
  }
  if (!pid) {
    proc.kill('SIGKILL');
    throw new Error(`the image's controller did not start: ${out}`);
  }
  const tracked = trackPid(pid);
  proc.once('exit', () => tracked.untrack());
  const waitForLog = async (re: RegExp, timeoutMs = 60000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = out.split('\n').find((l) => re.test(l));
      if (line) return line;
      if (proc.exitCode !== null) throw new Error(`the image's controller exited with ${proc.exitCode} before logging ${re}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`the image's controller did not log ${re} within ${timeoutMs} ms:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    pid, proc, output: () => out, waitForLog,
    stop: async () => {
      if (proc.exitCode === null) {
        try { process.kill(pid, 'SIGTERM'); } catch { /* already gone */ }
        const timer = setTimeout(() => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }, 25000);
        const code = await exited;
        clearTimeout(timer);
        fs.rmSync(files, { recursive: true, force: true });
        return code;
      }
      fs.rmSync(files, { recursive: true, force: true });
      return proc.exitCode;
    },
  };
}
