/**
 * Go durations (time.ParseDuration's syntax: "90s", "1h30m", "1.5h", "200ms"), the form Kueue's
 * Configuration, cert-manager, KubeRay annotations and Prometheus read. One writer, one reader. Pure.
 */

const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
const TERM = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Whole seconds as a Go duration, hours then minutes then seconds with the zero ones left out
 * (5400 -> "1h30m", 7776000 -> "2160h", 90 -> "1m30s"; 0 -> "0s"). Go and Prometheus read it alike.
 */
export function formatGoDuration(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds < 0) throw new Error(`formatGoDuration: ${seconds} is not a whole number of seconds >= 0`);
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}

/** Seconds of a Go duration, signed as written ("-1s" is -1), or undefined where time.ParseDuration fails. */
export function parseGoDuration(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = /^[-+]/.test(text) ? text.slice(1) : text;
  if (body === '0') return 0;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    TERM.lastIndex = at;
    const m = TERM.exec(body);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_SECONDS[m[2]];
    at = TERM.lastIndex;
  }
  if (at === 0) return undefined;
  return total === 0 ? 0 : sign * total;
}
