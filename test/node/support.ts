/**
 * The gate every real-node suite shares: it needs root and the node's binaries. In CI a missing one is an
 * error, never a silent skip; elsewhere the suite is skipped with the reason printed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { cacheDir } from '../support/upstream';

export function describeOnNode(suite: string, binaries: readonly string[]): jest.Describe {
  const missing = binaries.filter((b) => !fs.existsSync(path.join(cacheDir(), 'bin', b)));
  const root = process.getuid?.() === 0;
  const why = !root ? 'needs root' : missing.length ? `${missing.join(', ')} not built (run scripts/testcluster/build.sh)` : undefined;
  if (why && process.env.CI) throw new Error(`the ${suite} suite cannot run in CI: ${why}`);
  if (why) process.stdout.write(`[${suite}] skipped: ${why}\n`);
  return why ? describe.skip : describe;
}
