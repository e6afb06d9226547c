// `npm run cluster` as a person uses it (up, status, kubeconfig, down), and cleanup after a killed run:
// the next start reaps the dead owner's node, and nothing of it is left (processes, mounts, network
// namespace, cgroups, state dir, containerd's shim sockets).
import { execFile, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { K8S_VERSION, NodeCluster, stateDir } from '../../scripts/cluster/node-cluster';
import { REPO_ROOT } from '../support/upstream';
import { KubeClient, waitFor } from '../e2e/support/kube';
import { describeOnNode } from './support';

const run = promisify(execFile);
const describeNode = describeOnNode('node lifecycle', [`kubelet-${K8S_VERSION}`]);

/** What a node leaves on the machine, by name: its netns, cgroup dirs, mounts, processes and state dir. */
function traces(name: string): string[] {
  const dir = stateDir(name);
  const out: string[] = [];
  if (fs.existsSync(`/var/run/netns/ckr-${name}`)) out.push(`netns ckr-${name}`);
  for (const h of fs.readdirSync('/sys/fs/cgroup')) if (fs.existsSync(path.join('/sys/fs/cgroup', h,
    `ckr-${name}`))) out.push(`cgroup ${h}/ckr-${name}`);
  for (const l of fs.readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')) if (l.split(' ')[4]?.startsWith(dir)) out.push(`mount ${l.split(' ')[4]}`);
  for (const p of fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir)) out.push(`process ${p}`);
    } catch { /* gone */ }
  }
  if (fs.existsSync(dir)) out.push(`dir ${dir}`);
  return out;
}

const cli = (args: string[], env: NodeJS.ProcessEnv) => run('npx', ['ts-node', '--transpile-only', 'scripts/cluster/main.ts', ...args],
  { cwd: REPO_ROOT, env: { ...process.env, ...env } });

describeNode('the node cluster\'s lifecycle', () => {
  test('npm run cluster: usage, up, status, kubeconfig, down; nothing left behind', async () => {
    const help = await cli(['--help'], {});
    expect(help.stdout).toMatch(/usage: npm run cluster -- <command>/);
    await expect(cli(['sideways'], {})).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown command sideways/) });
    const name = `cli-${process.pid}`;
    const env = { CLUSTER_NAME: name };
    try {
      const up = await cli(['up'], env);
      expect(up.stdout).toMatch(/node cluster up in [\d.]+ s/);
      expect((await cli(['status'], env)).stdout).toMatch(/^up: https:\/\/10\.245\.\d+\.2:6443/);
      const kubeconfig = path.join(stateDir(name), 'printed.kubeconfig');
      fs.writeFileSync(kubeconfig, (await cli(['kubeconfig'], env)).stdout);
      const client = KubeClient.fromKubeconfig(kubeconfig);
      const node = (await client.get('/api/v1/nodes')).items[0];
      expect(node.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
      // The cluster outlives the command that started it (its owner is none): it is there until down.
      expect((await client.list('apps/v1', 'Deployment', 'kube-system')).map((d) => d.status.availableReplicas)).toEqual([1]);
      client.close();
    } finally {
      await cli(['down'], env);
    }
    expect(traces(name)).toEqual([]);
    await expect(cli(['status'], env)).rejects.toMatchObject({ code: 1 });
  }, 300000);

  test('a SIGKILLed owner leaves a node that the next start reaps completely', async () => {
    const name = `killed-${process.pid}`;
    // A child process brings a node up as its owner, says so, and is killed outright.
    const script = `const { NodeCluster } = require('./scripts/cluster/node-cluster'); const { nodeImages } = require('./scripts/cluster/images');
      NodeCluster.up('${name}', { images: nodeImages(['v0.19.2'], ['v1.6.2']), owner: process.pid, log: () => {} }).then(() => { console.log('UP'); `
        + 'setInterval(() => {}, 1000); });';
    const child = spawn('npx', ['ts-node', '--transpile-only', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    await waitFor('the child\'s node to be up', async () => out.includes('UP'), 240000, 500);
    expect(traces(name).some((t) => t.startsWith('netns'))).toBe(true);
    expect(traces(name).some((t) => t.startsWith('mount'))).toBe(true);
    const owner = Number(fs.readFileSync(path.join(stateDir(name), 'owner'), 'utf8'));
    process.kill(owner, 'SIGKILL');
    child.kill('SIGKILL');
    await waitFor('the owner to be gone', async () => { try { process.kill(owner, 0); return false; } catch { return true; } }, 10000);
    // Its components run on: the owner could not clean up.
    expect(traces(name).some((t) => t.startsWith('process'))).toBe(true);
    NodeCluster.reapOrphans();
    expect(traces(name)).toEqual([]);
  }, 300000);
});
