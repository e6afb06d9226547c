/** Starts test/support/serve-releases.js in a child process (see there why) and stops it. */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export interface ReleaseServer {
  /** e.g. "http://127.0.0.1:41234" */
  readonly url: string;
  /** Request lines so far ("GET /kueue/v0.19.2/manifests.yaml"). */
  requests(): string[];
  stop(): Promise<void>;
}

export function startReleaseServer(root: string, logFile: string): Promise<ReleaseServer> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'serve-releases.js'), root, logFile],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`release server exited (${code}) before listening: ${out}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (!m) return;
      child.stdout!.removeAllListeners('data');
      resolve({
        url: `http://127.0.0.1:${m[1]}`,
        requests: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : []),
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
