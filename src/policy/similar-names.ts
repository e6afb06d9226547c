/** "Did you mean": the closest of some names to a mistyped one (pure). */

/** Levenshtein distance, with an early stop once it exceeds `limit`. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]);
    }
    if (best > limit) return limit + 1;
    prev = cur;
  }
  return prev[b.length];
}

/**
 * The name among `names` within 2 edits of `name` (and under a third of its length), nearest first,
 * or undefined: close enough to be a typo, not a different name.
 */
export function similarName(name: string, names: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.floor(name.length / 3));
  let best: { n: string; d: number } | undefined;
  for (const n of names) {
    if (n === name) return undefined;
    const d = distance(name, n, limit);
    if (d <= limit && (!best || d < best.d)) best = { n, d };
  }
  return best?.n;
}
