/**
 * A small seeded PRNG (mulberry32) for tests and benches: the same seed gives the same draws on every
 * machine, so a fuzz case, a random scenario or a bench input is reproducible from its printed seed.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
