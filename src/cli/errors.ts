/**
 * How the CLI prints an error it cannot recover from: once, as `cdk8s-kueue-ray COMMAND: message`, with no
 * stack trace, since the message (from the constructs, the policy or the readers) names the object, the
 * field and the fix. `--verbose` or CDK8S_KUEUE_RAY_DEBUG (any value but empty, 0 or false) adds the stack
 * trace, for a bug report.
 */

/** True when `--verbose` is among the arguments or CDK8S_KUEUE_RAY_DEBUG is set to a value other than '', '0' or 'false'. */
export function debugRequested(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const v = (env.CDK8S_KUEUE_RAY_DEBUG ?? '').trim().toLowerCase();
  return argv.includes('--verbose') || (v !== '' && v !== '0' && v !== 'false');
}

/** One error as printed: `cdk8s-kueue-ray COMMAND: message`, then the stack trace (without its first line) only when `debug`. */
export function errorText(command: string | undefined, e: unknown, debug: boolean): string {
  const message = e instanceof Error ? e.message : String(e);
  const head = `cdk8s-kueue-ray${command ? ` ${command}` : ''}: ${message}\n`;
  if (!debug || !(e instanceof Error) || !e.stack) return head;
  const frames = e.stack.split('\n').filter((l) => /^\s+at /.test(l));
  return frames.length ? `${head}${frames.join('\n')}\n` : head;
}
