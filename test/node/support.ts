/**
 * The gate every real-node suite shares: it needs root and the node's binaries. In CI a missing one is an
 * error, never a silent skip; elsewhere the suite is skipped with the reason printed.
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { K8S_VERSION } from '../../scripts/cluster/node-cluster';
import { cacheDir } from '../support/upstream';

const run = promisify(execFile);

export function describeOnNode(suite: string, binaries: readonly string[]): jest.Describe {
  const missing = binaries.filter((b) => !fs.existsSync(path.join(cacheDir(), 'bin', b)));
  const root = process.getuid?.() === 0;
  const why = !root ? 'needs root' : missing.length ? `${missing.join(', ')} not built (run scripts/testcluster/build.sh)` : undefined;
  if (why && process.env.CI) throw new Error(`the ${suite} suite cannot run in CI: ${why}`);
  if (why) process.stdout.write(`[${suite}] skipped: ${why}\n`);
  return why ? describe.skip : describe;
}

export interface NodeKubectl {
  /** The pinned kubectl build. */
  readonly bin: string;
  /** The environment the README's commands run with against the node: KUBECONFIG and KUBECTL. */
  env(): NodeJS.ProcessEnv;
  /** kubectl's stdout. */
  kubectl(...args: string[]): Promise<string>;
}

/** kubectl against a node that may not be up yet (`node` is read at each call). */
export function nodeKubectl(node: () => { readonly kubeconfig: string }): NodeKubectl {
  const bin = path.join(cacheDir(), 'bin', `kubectl-${K8S_VERSION}`);
  const env = () => ({ ...process.env, KUBECONFIG: node().kubeconfig, KUBECTL: bin });
  return { bin, env, kubectl: async (...args) => (await run(bin, args, { env: env(), maxBuffer: 64 * 1024 * 1024 })).stdout };
}
