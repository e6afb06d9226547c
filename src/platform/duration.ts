import { Duration } from 'cdk8s';

/**
 * A Duration as the whole seconds a Kubernetes field takes (ttlSecondsAfterFinished,
 * terminationGracePeriodSeconds, ...), or the default when unset; a fraction of a second is refused,
 * naming the field and a fix, rather than rounded.
 */
export function wholeSeconds(d: Duration | undefined, dflt: number, field: string, where: string): number {
  if (d === undefined) return dflt;
  const ms = d.toMilliseconds();
  if (ms % 1000 !== 0 || ms < 0) {
    throw new Error(`${where}: ${field} is ${ms} ms; the field takes whole seconds >= 0. Fix: e.g. `
      + `Duration.seconds(${Math.max(0, Math.round(ms / 1000))}).`);
  }
  return ms / 1000;
}
