/**
 * The CRD schemas `check` judges Ray objects against, as the API server would: the
 * CustomResourceDefinitions among the checked files (an app's dist/ holds KubeRay's, in its install
 * chart), else those of --crd-dir (KubeRay's ray-operator/config/crd/bases, or any folder of CRD YAML),
 * else KubeRay's CRDs of the version in force as the package carries them (bundled-releases.ts).
 * CEL rules run with @bufbuild/cel, loaded on first use.
 */
import type { CelInput } from '@bufbuild/cel';
import { CelEvaluator, crdSchemaOf } from '../policy/schema/structural';
import { isRecord } from '../policy/json';
import { parseAllDocuments } from 'yaml';
import { bundledReleaseKeys, readBundledRelease } from '../install/bundled-releases';
import { readSources } from './yaml-source';

export interface CrdSchemas {
  /** Where the CRDs came from ('files', '--crd-dir', the package's copies of the KubeRay version), or undefined: none found. */
  readonly from?: 'files' | 'crd-dir' | 'package';
  /** The openAPIV3Schema for the object's apiVersion and kind, or undefined. */
  schemaFor(obj: { readonly apiVersion?: unknown; readonly kind?: unknown }): CrdSchema;
  /** Ray kinds with no CRD among those read. */
  readonly missing: (kinds: readonly string[]) => string[];
}

/** An openAPIV3Schema as the policy reads it (crdSchemaOf's result). */
export type CrdSchema = ReturnType<typeof crdSchemaOf>;

const isCrd = (o: unknown): o is Record<string, unknown> =>
  isRecord(o) && o.apiVersion === 'apiextensions.k8s.io/v1' && o.kind === 'CustomResourceDefinition';

/** KubeRay's CRDs of `version` as the package carries them; none when it carries none (a repo without a build). */
function packageCrds(version: string): Record<string, unknown>[] {
  return bundledReleaseKeys(`kuberay/${version}/`).flatMap((key) => {
    const text = readBundledRelease(key, `check: the package's KubeRay ${version} ${key.split('/').pop()}`);
    return text === undefined ? [] : parseAllDocuments(text).map((d) => d.toJS() as unknown).filter(isCrd);
  });
}

export function crdSchemas(fileObjects: readonly unknown[], crdDirs: readonly string[] | undefined, kubeRayVersion?: string): CrdSchemas {
  let crds = fileObjects.filter(isCrd);
  let from: CrdSchemas['from'] = crds.length ? 'files' : undefined;
  if (!crds.length && crdDirs?.length) {
    const read = readSources(crdDirs);
    crds = read.objects.map((o) => o.object).filter(isCrd);
    from = crds.length ? 'crd-dir' : undefined;
  }
  // With neither, the copies the package carries: the schema facts (types, enums, minimums, CEL) need no flag.
  if (!crds.length && !crdDirs?.length && kubeRayVersion) {
    crds = packageCrds(kubeRayVersion);
    from = crds.length ? 'package' : undefined;
  }
  const cache = new Map<string, CrdSchema>();
  const schemaFor = (obj: { readonly apiVersion?: unknown; readonly kind?: unknown }) => {
    const [group, version] = (typeof obj?.apiVersion === 'string' ? obj.apiVersion : '').split('/');
    const key = `${group}/${version}/${String(obj?.kind)}`;
    if (!cache.has(key)) cache.set(key, crds.map((c) => crdSchemaOf(c, group, version, String(obj?.kind))).find((s) => s !== undefined));
    return cache.get(key);
  };
  const missing = (kinds: readonly string[]) => kinds.filter((k) => !crds.some((c) => {
    const spec = c.spec;
    return isRecord(spec) && spec.group === 'ray.io' && isRecord(spec.names) && spec.names.kind === k;
  }));
  return { from, schemaFor, missing };
}

/** CEL integers are int64: whole numbers pass as bigint, so size() and comparisons type-check. */
function toCel(v: unknown): unknown {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return v;
}

/** The CEL evaluator, from @bufbuild/cel (bundled into the CLI; loaded only when a CRD is checked). */
export async function loadCelEvaluator(): Promise<CelEvaluator> {
  const { run, isCelError } = await import('@bufbuild/cel');
  return (rule, self) => {
    let result: unknown;
    try {
      // JSON made CEL's: whole numbers as bigint, the rest as JSON has it.
      result = run(rule, { self: toCel(self) as CelInput });
    } catch (e) {
      result = e;
    }
    if (result === true || result === false) return result;
    return { unsupported: isCelError(result) ? result.message : String(result) };
  };
}
