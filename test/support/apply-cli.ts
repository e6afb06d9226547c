/**
 * `cdk8s-kueue-ray apply` as the suites and benchmarks run it against a cluster: the bundled bin, as a user
 * runs `npx cdk8s-kueue-ray apply` (test/support/bundle.ts builds it when a source is newer).
 */
import { bundledBin } from './bundle';

let bin: string | undefined;

/** The arguments to give `node` for `cdk8s-kueue-ray apply ARGS…`. */
export function applyArgv(args: readonly string[]): string[] {
  bin ??= bundledBin();
  return [bin, 'apply', ...args];
}
