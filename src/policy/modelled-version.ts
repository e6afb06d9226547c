/**
 * The version a CLI runs its model for, from the one a flag or an install asks for: check and plan name both,
 * so a user always sees which modelled version stands in for an unmodelled one.
 */
import { compareVersions, normalizeVersion, SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS } from './versions';

/** A version a CLI flag or an install asked for, mapped to the modelled one it runs as. */
export interface ModelledVersion {
  /** The modelled version whose facts are used. */
  readonly version: string;
  /** The version asked for, normalized (`v` prefix): facts known past the model (e.g. the Kueue APIs served) are read at it. */
  readonly target: string;
  /** Set when `target` is not modelled itself (printed as a note). */
  readonly note?: string;
}

const minorOf = (v: string) => v.split('.').slice(0, 2).join('.');

/**
 * A requested version (with or without the `v`) as one this library models: itself; for another patch of a
 * modelled minor, the highest modelled patch not above it (else the minor's lowest), since patches only add
 * fixes; for a version newer than every modelled one, the newest modelled (the upstream changes after it are
 * not in the rules, and the note says so). An unmodelled minor between or below the modelled ones is refused
 * with the list: a neighbour's facts would be wrong in known ways (0.15 and 0.16 changed the queue label and
 * the APIs, for one).
 */
export function modelledVersion(project: 'Kueue' | 'KubeRay', requested: string): ModelledVersion {
  const supported: readonly string[] = project === 'Kueue' ? SUPPORTED_KUEUE_VERSIONS : SUPPORTED_KUBERAY_VERSIONS;
  const v = normalizeVersion(requested);
  if (!/^v\d+\.\d+\.\d+$/.test(v)) throw new Error(`${project} version '${requested}' is not a version like ${supported[supported.length - 1]}`);
  if (supported.includes(v)) return { version: v, target: v };
  const minor = minorOf(v);
  const same = supported.filter((x) => x.startsWith(`${minor}.`)).sort(compareVersions);
  if (!same.length) {
    const newest = [...supported].sort(compareVersions)[supported.length - 1];
    if (compareVersions(v, newest) > 0) {
      return { version: newest, target: v, note: `${project} ${v} is newer than every modelled version: it runs as ${newest}, the newest `
        + `modelled, so what changed upstream after ${minorOf(newest)} is not checked (only the APIs it serves are known past it)` };
    }
    throw new Error(`${project} ${v} is not modelled: choose a patch of ${[...new Set(supported.map(minorOf))].join(', ')} `
      + `(modelled: ${supported.join(', ')})`);
  }
  // The closest modelled patch below it, else (a patch older than any modelled one) the oldest modelled patch.
  const below = [...same].reverse().find((x) => compareVersions(x, v) <= 0);
  const chosen = below ?? same[0];
  return { version: chosen, target: v, note: `${project} ${v} is not modelled itself: it runs as ${chosen}, the modelled patch of ${minor} `
    + `closest ${below ? 'below' : 'above'} it (modelled: ${same.join(', ')})` };
}
