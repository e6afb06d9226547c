// The YAML parsers `plan` could read its input with, side by side (issue 43): the speed of each on the first
// replay's workloads (bench/kueue-replay.ts), and whether it reads Kubernetes YAML as kubectl does. The reference is
// scripts/yaml-oracle (sigs.k8s.io/yaml and apimachinery's document reader, built with Go from the module proxy),
// run on bench/yaml-cases.yaml (YAML 1.1 booleans, octal, timestamps, anchors and merge keys, duplicate keys) and on
// the replay itself. A parser is correct when every document gives the oracle's JSON, and an error where it errs.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as jsYaml from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import { kubernetesYamlDocuments } from '../src/cli/kubernetes-yaml';

/** A document as JSON, or the error it gives. Null documents (a leading `---`) are left out, as `plan` leaves them. */
type Answer = { json: string } | { error: string };

/** A parser: every document of a stream (null for an empty one); throws where the YAML is invalid. */
interface Candidate { readonly name: string; readonly documents: (text: string) => unknown[] }

export const CANDIDATES: readonly Candidate[] = [
  { name: 'yaml 2, YAML 1.2 core schema (plan until now)', documents: (t) => parseAllDocuments(t).map((d) => {
    if (d.errors.length) throw d.errors[0];
    return d.toJS();
  }) },
  { name: 'yaml 2, YAML 1.1 schema', documents: (t) => parseAllDocuments(t, { version: '1.1' }).map((d) => {
    if (d.errors.length) throw d.errors[0];
    return d.toJS();
  }) },
  { name: 'js-yaml 4, default schema', documents: (t) => jsYaml.loadAll(t) },
  { name: 'js-yaml 4, Kubernetes schema (plan)', documents: kubernetesYamlDocuments },
];

/** Documents split at `---` lines, as apimachinery's YAML reader splits them. */
function splitDocuments(text: string): string[] {
  return text.split(/^---[ \t]*(?:#.*)?$/m);
}

/** A candidate's answer per document (so one document's error does not hide the others'); empty documents left out. */
export function answersOf(c: Candidate, text: string): Answer[] {
  return splitDocuments(text).flatMap((doc): Answer[] => {
    try {
      return c.documents(doc).filter((v) => v !== null && v !== undefined).map((v) => ({ json: JSON.stringify(v) }));
    } catch (e) {
      return [{ error: (e as Error).message }];
    }
  });
}

/** Builds the oracle (Go's build cache makes a rebuild cheap) and returns its path. */
export function buildOracle(binDir: string): string {
  const out = path.join(binDir, 'yaml-oracle');
  fs.mkdirSync(binDir, { recursive: true });
  execFileSync('go', ['build', '-trimpath', '-o', out, '.'], { cwd: path.join(__dirname, '..', 'scripts', 'yaml-oracle'), stdio: 'inherit' });
  return out;
}

export function oracle(bin: string, text: string): Answer[] {
  const out = execFileSync(bin, [], { input: text, encoding: 'utf8', maxBuffer: 1 << 30 });
  return out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { doc?: unknown; error?: string })
    .filter((r) => r.error !== undefined || (r.doc !== null && r.doc !== undefined))
    .map((r) => (r.error !== undefined ? { error: r.error } : { json: JSON.stringify(r.doc) }));
}

/** Where a candidate's answers differ from the oracle's: document index, what kubectl reads, what the parser reads. */
export function differences(want: Answer[], got: Answer[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const a = want[i];
    const b = got[i];
    const show = (x: Answer | undefined) => (!x ? 'nothing' : 'error' in x ? `an error (${x.error.split('\n')[0].slice(0, 80)})` : x.json);
    if (!a || !b || ('error' in a) !== ('error' in b) || ('json' in a && 'json' in b && !sameJson(a.json, b.json))) {
      out.push(`document ${i + 1}: kubectl reads ${show(a)}; the parser ${show(b)}`);
    }
  }
  return out;
}

/** Equal as data: maps compare without regard to key order (Go's encoder sorts keys). */
function sameJson(a: string, b: string): boolean {
  const sorted = (v: unknown): unknown => (Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object'
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v);
  return JSON.stringify(sorted(JSON.parse(a))) === JSON.stringify(sorted(JSON.parse(b)));
}

/** Each candidate's time on the text, the best of `rounds` (one round for a parser slower than 5 s): seconds and MB/s. */
export function timeCandidates(text: string, rounds = 3): Array<{ name: string; seconds: number; mbPerSecond: number }> {
  return CANDIDATES.map((c) => {
    let best = Infinity;
    for (let r = 0; r < rounds && best > 5; r++) {
      const t0 = process.hrtime.bigint();
      c.documents(text);
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
    }
    return { name: c.name, seconds: best, mbPerSecond: Buffer.byteLength(text) / 1e6 / best };
  });
}

/**
 * How much of the replay each parser is timed on (BENCH_YAML_MB, default 4): the comparison is of MB/s, which holds
 * from a few MB up (the yaml package: 1.8 MB/s on these 4 MB, as on all 36 MB of the large-scale replay, 19.7 s a
 * schema), so it costs seconds of every CI run instead of most of a minute.
 */
const TIMED_MB = Number(process.env.BENCH_YAML_MB ?? 4);

/** The whole documents of `text` that fit in `bytes` (at least one). */
function leadingDocuments(text: string, bytes: number): string {
  const docs = splitDocuments(text);
  let n = 0;
  let size = 0;
  while (n < docs.length && (n === 0 || size + Buffer.byteLength(docs[n]) + 4 <= bytes)) size += Buffer.byteLength(docs[n++]) + 4;
  return docs.slice(0, n).join('---\n');
}

/**
 * Prints the comparison: per candidate, its speed on `text` (a replay's workloads) against the first in the same run,
 * and its differences from kubectl's reading on bench/yaml-cases.yaml and on the first 1,000 documents of `text`.
 */
export function reportParsers(text: string, label: string, cacheDir: string): void {
  const bin = buildOracle(path.join(cacheDir, 'bin'));
  const cases = fs.readFileSync(path.join(__dirname, 'yaml-cases.yaml'), 'utf8');
  const sample = splitDocuments(text).slice(0, 1000).join('---\n');
  const want = { cases: oracle(bin, cases), sample: oracle(bin, sample) };
  const timed = leadingDocuments(text, TIMED_MB * 1e6);
  const times = timeCandidates(timed);
  const base = times[0];
  process.stdout.write(`YAML parsers on ${label} (the first ${(Buffer.byteLength(timed) / 1e6).toFixed(1)} of `
    + `${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB), and against kubectl's reading `
    + '(scripts/yaml-oracle) of bench/yaml-cases.yaml and 1,000 of those documents:\n');
  CANDIDATES.forEach((c, i) => {
    const d = [...differences(want.cases, answersOf(c, cases)), ...differences(want.sample, answersOf(c, sample)).map((x) => `replay ${x}`)];
    const brief = (x: string) => (x.length > 160 ? `${x.slice(0, 160)}...` : x);
    process.stdout.write(`  ${c.name}: ${times[i].seconds.toFixed(2)} s, ${times[i].mbPerSecond.toFixed(1)} MB/s, `
      + `x${(base.seconds / times[i].seconds).toFixed(1)} the speed of the first; ${d.length ? `${d.length} document(s) read unlike kubectl, `
      + `e.g. ${d.slice(0, 2).map(brief).join('; ')}` : 'reads every document as kubectl does'}\n`);
  });
}
