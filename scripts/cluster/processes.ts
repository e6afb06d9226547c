/**
 * The node's processes: each runs inside the node's network namespace (nsenter --net, so all share the
 * host's mount namespace: the kubelet's volume mounts must be visible to containerd and runc), detached,
 * with its log in <state>/logs and its pid in <state>/pids, so that `down` or the next run can reap it.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export function logPath(dir: string, name: string): string {
  return path.join(dir, 'logs', `${name}.log`);
}

export function startIn(dir: string, netns: string, name: string, bin: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  if (!fs.existsSync(bin)) throw new Error(`${name}: ${bin} is missing (scripts/testcluster/build.sh builds the node's binaries; apt-get `
    + 'installs containerd)');
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  const fd = fs.openSync(logPath(dir, name), 'a');
  const proc = spawn('nsenter', [`--net=/var/run/netns/${netns}`, '--', bin, ...args], {
    detached: true, stdio: ['ignore', fd, fd], env: { ...process.env, ...env },
  });
  fs.closeSync(fd);
  proc.unref();
  if (!proc.pid) throw new Error(`${name}: could not start ${bin}; see ${logPath(dir, name)}`);
  fs.appendFileSync(path.join(dir, 'pids'), `${name} ${proc.pid} ${startTime(proc.pid) ?? 0}\n`);
  return proc.pid;
}

/**
 * When a process started (clock ticks since boot, /proc/<pid>/stat field 22): with the pid it names one
 * process for good. Pids are reused within minutes on a busy machine, so a recorded pid alone could
 * name some other run's process by the time it is reaped.
 */
export function startTime(pid: number): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()!.split(' ')[19]);
  } catch {
    return undefined;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

/** The recorded processes of a state dir that still run (same pid and start time). */
export function recorded(dir: string): Array<{ name: string; pid: number }> {
  const f = path.join(dir, 'pids');
  if (!fs.existsSync(f)) return [];
  return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => {
    const [name, pid, started] = l.split(' ');
    return { name, pid: Number(pid), started: Number(started) };
  }).filter((r) => alive(r.pid) && startTime(r.pid) === r.started).map(({ name, pid }) => ({ name, pid }));
}

/** Throws, naming the component and its log, if a recorded process has exited. */
export function assertRunning(dir: string, name: string): void {
  const started = fs.existsSync(path.join(dir, 'pids'))
    && fs.readFileSync(path.join(dir, 'pids'), 'utf8').split('\n').some((l) => l.startsWith(`${name} `));
  if (started && !recorded(dir).some((r) => r.name === name)) {
    const log = logPath(dir, name);
    const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').slice(-15).join('\n') : '';
    throw new Error(`${name} exited during start-up; its log is ${log}:\n${tail}`);
  }
}

/** Every process whose command line names the state dir (containerd's shims re-parent to init) or that is in one of `cgroups`. */
export function processesOf(dir: string, cgroupDirs: string[]): number[] {
  const pids = new Set<number>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(dir)) pids.add(Number(e));
    } catch { /* gone */ }
  }
  for (const root of cgroupDirs) {
    if (!fs.existsSync(root)) continue;
    const walk = (d: string) => {
      try {
        for (const l of fs.readFileSync(path.join(d, 'cgroup.procs'), 'utf8').split('\n')) if (l) pids.add(Number(l));
        for (const c of fs.readdirSync(d, { withFileTypes: true })) if (c.isDirectory()) walk(path.join(d, c.name));
      } catch { /* removed meanwhile */ }
    };
    walk(root);
  }
  return [...pids];
}
