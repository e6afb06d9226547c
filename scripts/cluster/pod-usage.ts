/**
 * What a pod really uses, read from its cgroups (v1, cgroupfs driver, under the node's own root) as the
 * kubelet reads them: working set = memory usage minus inactive file cache; CPU = cpuacct.usage.
 */
import * as fs from 'fs';
import * as path from 'path';

export interface PodUsage {
  readonly workingSetBytes: number;
  /** CPU time used since the pod started, in seconds. */
  readonly cpuSeconds: number;
}

function podDir(hierarchy: string, cgroupRoot: string, podUid: string): string | undefined {
  const base = path.join('/sys/fs/cgroup', hierarchy, cgroupRoot, 'kubepods');
  return ['', 'burstable', 'besteffort'].map((qos) => path.join(base, qos, `pod${podUid}`)).find((d) => fs.existsSync(d));
}

/** The pod's usage, or undefined once its cgroups are gone. */
export function podUsage(cgroupRoot: string, podUid: string): PodUsage | undefined {
  const mem = podDir('memory', cgroupRoot, podUid);
  const cpu = podDir('cpuacct', cgroupRoot, podUid);
  if (!mem || !cpu) return undefined;
  try {
    const stat = Object.fromEntries(fs.readFileSync(path.join(mem, 'memory.stat'), 'utf8').trim().split('\n').map((l) => l.split(' '))
      .map(([k, v]) => [k, Number(v)]));
    const usage = Number(fs.readFileSync(path.join(mem, 'memory.usage_in_bytes'), 'utf8'));
    const cpuNs = Number(fs.readFileSync(path.join(cpu, 'cpuacct.usage'), 'utf8'));
    return { workingSetBytes: usage - (stat.total_inactive_file ?? 0), cpuSeconds: cpuNs / 1e9 };
  } catch {
    return undefined; // removed between the checks
  }
}
