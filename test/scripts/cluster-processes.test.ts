// The node cluster's process records (scripts/cluster/processes.ts): a recorded pid names one process for
// good (pid + start time), so reaping never kills a process that reused the pid; a component that died is
// reported with its name and log.
import * as fs from 'fs';
import * as path from 'path';
import { chooseNetwork } from '../../scripts/cluster/network';
import { assertRunning, recorded, startIn, startTime } from '../../scripts/cluster/processes';
import { tmpdir } from '../support/synth';

test('a recorded pid counts only with its start time: a reused pid is never taken for the component', () => {
  const dir = tmpdir();
  const mine = startTime(process.pid)!;
  expect(mine).toBeGreaterThan(0);
  fs.writeFileSync(path.join(dir, 'pids'), `etcd ${process.pid} ${mine}\nkubelet ${process.pid} ${mine + 1}\nkube-proxy 999999999 1\n`);
  expect(recorded(dir)).toEqual([{ name: 'etcd', pid: process.pid }]);
});

test('a component that exited is named with the path of its log and its last lines', () => {
  const dir = tmpdir();
  fs.mkdirSync(path.join(dir, 'logs'));
  fs.writeFileSync(path.join(dir, 'logs', 'kubelet.log'), 'starting\nE1201 failed to run Kubelet: invalid configuration\n');
  fs.writeFileSync(path.join(dir, 'pids'), 'kubelet 999999999 1\n');
  expect(() => assertRunning(dir, 'kubelet'))
    .toThrow(new RegExp(`kubelet exited during start-up; its log is ${path.join(dir, 'logs', 'kubelet.log')}:\\nstarting\\nE1201 `
      + 'failed to run Kubelet'));
  expect(() => assertRunning(dir, 'etcd')).not.toThrow(); // never started: nothing to say yet
});

test('a component whose binary is missing is refused before anything starts, naming it and the build', () => {
  const dir = tmpdir();
  expect(() => startIn(dir, 'ckr-none', 'kube-proxy', path.join(dir, 'bin', 'kube-proxy-v1.34.1'), [])).toThrow(/kube-proxy: .*kube-proxy-v1\.34\.1 is missing \(scripts\/testcluster\/build\.sh builds the node's binaries/);
  expect(fs.existsSync(path.join(dir, 'pids'))).toBe(false);
});

test('the node\'s address slot collides with nothing the host has: addresses, routes, another node\'s routes', () => {
  expect(chooseNetwork('a', ['127.0.0.1/8', '192.0.2.2/24']))
    .toMatchObject({ podCidr: '10.244.0.0/24', serviceCidr: '10.96.0.0/24', nodeIp: '10.245.0.2', dnsServiceIp: '10.96.0.10' });
  // Another node's routes take slot 0; a VPN's 10.96.0.0/12 takes the Service ranges of slots 0-63 (none left).
  expect(chooseNetwork('b', ['10.244.0.0/24', '10.96.0.0/24']))
    .toMatchObject({ podCidr: '10.244.1.0/24', apiServiceIp: '10.96.1.1', hostIp: '10.245.1.1' });
  expect(() => chooseNetwork('c', ['10.96.0.0/12'])).toThrow(/no free address slot for the node/);
  expect(chooseNetwork('d', ['10.244.0.7/32'])).toMatchObject({ podCidr: '10.244.1.0/24' });
  expect(() => chooseNetwork('e', ['10.0.0.0/8'])).toThrow(/collide with the host's routes/);
});
