/** Internal: synth-time errors that print as one line. */

/** Set to "1" or "true" to keep the stack traces of synth-time errors (they are one line otherwise). */
export const DEBUG_ENV = 'CDK8S_KUEUE_RAY_DEBUG';

/**
 * A synth-time error that prints as its one-line message: node prints an uncaught error's stack, and
 * `cdk8s synth` prints the app's output again, so a stack trace would bury the fix twice.
 */
export function synthError(message: string): Error {
  const e = new Error(message);
  if (!['1', 'true'].includes((process.env[DEBUG_ENV] ?? '').toLowerCase())) e.stack = `Error: ${message}`;
  return e;
}
