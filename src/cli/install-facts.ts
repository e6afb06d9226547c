/**
 * What the installs in the checked files say about the cluster they describe: the Kueue and KubeRay
 * versions (from the version annotations the install constructs write, else the operator images) and the state of Kueue's ElasticJobsViaWorkloadSlices gate (from
 * the manager's `--feature-gates` arg or the Configuration's `featureGates` map). `check` uses them when
 * no flag says otherwise, so a whole install (e.g. the examples' dist/) is checked as it would run.
 */
import { parse as parseYaml } from 'yaml';
import { modelledVersion } from '../policy/modelled-version';
import { featureGatesInArgs, KUEUE_MANAGER_IMAGE, KueueConfigSource, kueueManagerOf } from '../policy/plan';
import { KUBERAY_VERSION_ANNOTATION, KUEUE_VERSION_ANNOTATION } from '../policy/versions';
import { UsageError } from './yaml-source';
import { fieldAt, shownAt } from './json-fields';

const GATE = 'ElasticJobsViaWorkloadSlices';
const KUBERAY_IMAGE = /\/kuberay\/operator:(v\d+\.\d+\.\d+)$/;

export interface InstallFacts {
  /** Tag of the kueue-controller-manager image, e.g. v0.19.2. */
  readonly kueueVersion?: string;
  /** Tag of the kuberay-operator image. */
  readonly kubeRayVersion?: string;
  /**
   * The gate as the files set it; 'default' when the files hold Kueue's manager but set no value
   * (the version's default applies); undefined when they hold no Kueue manager.
   */
  readonly elasticGate?: 'on' | 'off' | 'default';
  /** Where kueueVersion was read, e.g. "dist/0001-kueue.k8s.yaml (annotation cdk8s-kueue-ray.io/kueue-version)". */
  readonly kueueVersionFrom?: string;
  /** Where kubeRayVersion was read. */
  readonly kubeRayVersionFrom?: string;
  /** Files whose version annotations disagree, one message per project; the caller decides (a flag settles it). */
  readonly conflicts?: { readonly kueue?: string; readonly kubeRay?: string };
  /**
   * Kueue's manager as the files install it: its Configuration (the ConfigMap's controller_manager_config.yaml text) and
   * its container's args, with where they were read; undefined when the files hold neither.
   */
  readonly kueueManager?: KueueConfigSource;
}

interface Found { readonly version: string; readonly from: string }

/**
 * The versions the files' annotations record: the first of each, and a message when another file
 * records a different one.
 */
function annotatedVersions(objects: readonly unknown[], files: readonly (string | undefined)[]): Record<'kueue' | 'kubeRay', Found[]> {
  const out: Record<'kueue' | 'kubeRay', Found[]> = { kueue: [], kubeRay: [] };
  objects.forEach((o, i) => {
    const a = fieldAt(o, 'metadata', 'annotations');
    if (!a || typeof a !== 'object') return;
    // A kind or name that is no string prints as JSON, not as "[object Object]"; an absent one as before.
    const shown = (...keys: string[]) => shownAt(o, ...keys) ?? String(fieldAt(o, ...keys));
    const where = `${files[i] ?? 'the input'} (${shown('kind')} ${shown('metadata', 'name')}, annotation `;
    for (const [key, project] of [[KUEUE_VERSION_ANNOTATION, 'kueue'], [KUBERAY_VERSION_ANNOTATION, 'kubeRay']] as const) {
      const v = fieldAt(a, key);
      if (typeof v === 'string' && !out[project].some((f) => f.version === v)) out[project].push({ version: v, from: `${where}${key})` });
    }
  });
  return out;
}

function conflictOf(found: readonly Found[], what: string): string | undefined {
  if (found.length < 2) return undefined;
  return `the files record two ${what} versions: ${found[0].version} in ${found[0].from} and ${found[1].version} in ${found[1].from}`;
}

function containersOf(o: unknown): unknown[] {
  const c = fieldAt(o, 'spec', 'template', 'spec', 'containers');
  return Array.isArray(c) ? c : [];
}

/** The gate in `--feature-gates=A=true,B=false` args, if any (any value but "true" reads as off, as before). */
function gateInArgs(args: unknown): boolean | undefined {
  const v = featureGatesInArgs(args)?.get(GATE);
  return v === undefined ? undefined : v === 'true';
}

/** The facts of `objects`; `files[i]` names the file of `objects[i]` (for messages). */
export function installFacts(objects: readonly unknown[], files: readonly (string | undefined)[] = []): InstallFacts {
  let kueueVersion: string | undefined;
  let kubeRayVersion: string | undefined;
  let manager = false;
  let gate: boolean | undefined;
  // "file (ConfigMap kueue-system/kueue-manager-config)", for the plan's note and for errors.
  const at = (i: number) => {
    const ns = shownAt(objects[i], 'metadata', 'namespace');
    return `${files[i] ?? 'the input'} (${shownAt(objects[i], 'kind')} ${ns ? `${ns}/` : ''}${shownAt(objects[i], 'metadata', 'name') ?? ''})`;
  };
  for (const o of objects) {
    if (fieldAt(o, 'kind') === 'Deployment') {
      for (const c of containersOf(o)) {
        const image = fieldAt(c, 'image');
        const kq = KUEUE_MANAGER_IMAGE.exec(typeof image === 'string' ? image : '');
        if (kq) {
          kueueVersion ??= kq[1];
          manager = true;
          gate = gateInArgs(fieldAt(c, 'args')) ?? gate;
        }
        const kr = KUBERAY_IMAGE.exec(typeof image === 'string' ? image : '');
        if (kr) kubeRayVersion ??= kr[1];
      }
    }
    // Kueue's Configuration, mounted from this ConfigMap into the manager.
    const config = fieldAt(o, 'kind') === 'ConfigMap' ? fieldAt(o, 'data', 'controller_manager_config.yaml') : undefined;
    if (typeof config === 'string') {
      try {
        const v = fieldAt(parseYaml(config), 'featureGates', GATE);
        if (typeof v === 'boolean') gate = v;
      } catch {
        // Kueue refuses an unparsable Configuration at start-up; the gate stays as far as the args say.
      }
    }
  }
  const elasticGate = gate === true ? 'on' : gate === false ? 'off' : manager ? 'default' : undefined;
  // Kueue's Configuration and args, found as the plan finds them in an app (Plan.of).
  const kueueManager = kueueManagerOf(objects, at);
  // The annotations record what the app was synthesized for; an image tag may be a mirror's or a patched build's.
  const annotated = annotatedVersions(objects, files);
  const [kueue, kubeRay] = [annotated.kueue[0], annotated.kubeRay[0]];
  const conflicts = { kueue: conflictOf(annotated.kueue, 'Kueue'), kubeRay: conflictOf(annotated.kubeRay, 'KubeRay') };
  return {
    kueueVersion: kueue?.version ?? kueueVersion, kubeRayVersion: kubeRay?.version ?? kubeRayVersion, elasticGate,
    ...(kueue ? { kueueVersionFrom: kueue.from } : {}), ...(kubeRay ? { kubeRayVersionFrom: kubeRay.from } : {}),
    ...(conflicts.kueue || conflicts.kubeRay ? { conflicts } : {}),
    ...(kueueManager ? { kueueManager } : {}),
  };
}

/**
 * Files that record two versions of a project are an error naming both, unless a flag says which the
 * cluster runs; then a note. Returns the notes.
 */
export function settleVersionConflicts(facts: InstallFacts, flags: { readonly kueue?: string; readonly kubeRay?: string }): string[] {
  const notes: string[] = [];
  for (const [key, flag, name] of [['kueue', flags.kueue, 'kueue-version'], ['kubeRay', flags.kubeRay, 'kuberay-version']] as const) {
    const c = facts.conflicts?.[key];
    if (c && !flag) throw new Error(`${c}. Fix: synthesize the app with one version choice (KueueRayVersions.use), or pass --${name}.`);
    if (c) notes.push(`${c}; ran for ${flag} (the flag)`);
  }
  return notes;
}

/** "Kueue v0.17.8 as recorded in <file> (...)" for each version read from an annotation. */
export function versionSourceNotes(facts: InstallFacts, used: { readonly kueue: string; readonly kubeRay: string }): string[] {
  return [['Kueue', facts.kueueVersionFrom, facts.kueueVersion, used.kueue],
    ['KubeRay', facts.kubeRayVersionFrom, facts.kubeRayVersion, used.kubeRay]]
    .filter(([, from, found, v]) => from && found === v).map(([what, from, , v]) => `${what} ${v} as recorded in ${from}`);
}

/**
 * The modelled version `check` and `plan` run for when `--kueue-version`/`--kuberay-version` gives
 * `given`: that version, else the closest modelled patch of its minor, with a note (modelledVersion);
 * a version of no modelled minor is a UsageError naming the flag. Installs are read the same way
 * (modelledInstallVersion), so that the same files are checked and planned for the same version.
 */
export function modelledFlagVersion(project: 'Kueue' | 'KubeRay', given: string, notes: string[]): string {
  try {
    const m = modelledVersion(project, given);
    if (m.note) notes.push(m.note);
    return m.version;
  } catch (e) {
    throw new UsageError(`--${project.toLowerCase()}-version: ${(e as Error).message}`);
  }
}

/**
 * The same for an install's recorded version, undefined when no patch of its minor is modelled (the
 * command then runs for its default, and says so).
 */
export function modelledInstallVersion(project: 'Kueue' | 'KubeRay', found: string, notes: string[]): string | undefined {
  try {
    const m = modelledVersion(project, found);
    if (m.note) notes.push(m.note);
    return m.version;
  } catch {
    return undefined;
  }
}

/** Where the version a command runs for came from. */
export type VersionSource = 'flag' | 'files' | 'cluster' | 'default';

/**
 * check's and plan's one version picker: the flag, else the modelled patch of the first install that
 * records a version (`sources` in order), else undefined (the command's default). An install whose
 * version no modelled patch stands for is passed over with the command's own note.
 */
export function pickVersion(flag: string | undefined, sources: ReadonlyArray<readonly [string | undefined, 'files' | 'cluster']>,
  project: 'Kueue' | 'KubeRay', notes: string[], unmodelled: (found: string, from: 'files' | 'cluster') => string,
): [string | undefined, VersionSource] {
  if (flag) return [flag, 'flag'];
  for (const [found, from] of sources) {
    if (!found) continue;
    const modelled = modelledInstallVersion(project, found, notes);
    if (modelled) return [modelled, from];
    notes.push(unmodelled(found, from));
  }
  return [undefined, 'default'];
}
