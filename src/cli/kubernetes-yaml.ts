/**
 * YAML as Kubernetes reads it, fast: js-yaml with a schema of go-yaml v2's rules, which sigs.k8s.io/yaml (kubectl,
 * client-go) applies. `plan` and `apply` read their files with it; `check` keeps the `yaml` package, whose documents
 * carry the line and column each finding points at. The rules differ from YAML 1.2's core schema, which JavaScript
 * parsers default to:
 * - booleans are YAML 1.1's: yes/no, on/off, y/n in three casings, besides true/false;
 * - integers are what Go's strconv.ParseInt (base 0) reads once underscores are dropped: 0755 is octal, 0x1F hex,
 *   0b101 binary, 1_000 a thousand; beyond int64, uint64;
 * - floats follow go-yaml's pattern, with .inf and .nan;
 * - a timestamp stays a string (go-yaml keeps it one for an untyped value);
 * - `<<` merges, !!binary is decoded to a string, and a repeated key keeps its last value;
 * - .inf and .nan are refused, as the conversion to JSON refuses them.
 * One difference is left: a null map key (`~: x`), which kubectl refuses, reads as the key "null".
 * bench/yaml-parsers.ts holds it to the Go oracle's answers (scripts/yaml-oracle) beside the other parsers.
 */
import * as jsYaml from 'js-yaml';

const BOOLEANS = new Map<string, boolean>();
for (const [words, value] of [[['y', 'yes', 'true', 'on'], true], [['n', 'no', 'false', 'off'], false]] as const) {
  for (const w of words) for (const form of [w, w.toUpperCase(), w[0].toUpperCase() + w.slice(1)]) BOOLEANS.set(form, value);
}
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
// Go's integer literal syntax for strconv.ParseInt(s, 0, 64), on a value with its underscores dropped.
const GO_INT = /^[-+]?(?:0[bB][01]+|0[oO]?[0-7]+|0[xX][0-9a-fA-F]+|[1-9][0-9]*|0)$/;
// go-yaml v2's yamlStyleFloat.
const GO_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
// go-yaml's special floats (resolve.go): each of these, and the infinities with a + or - sign.
const SPECIAL_FLOATS = new Set(['.nan', '.NaN', '.NAN', ...['.inf', '.Inf', '.INF'].flatMap((f) => [f, `+${f}`, `-${f}`])]);

/** Whether a plain scalar can be a number at all: most are names, images and paths, turned away at the first character. */
function numeric(s: string): boolean {
  const c = s.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}

// js-yaml constructs right after it resolves: the last integer read is reused rather than read twice.
let lastIntText = '';
let lastInt: number | undefined;

function goInt(text: string): number | undefined {
  if (text === lastIntText) return lastInt;
  lastIntText = text;
  lastInt = undefined;
  if (!numeric(text)) return undefined;
  const plain = text.includes('_') ? text.replace(/_/g, '') : text;
  if (!GO_INT.test(plain)) return undefined;
  const sign = plain.startsWith('-') ? -1 : 1;
  const body = plain.replace(/^[-+]/, '');
  const radix = /^0[xX]/.test(body) ? 16 : /^0[bB]/.test(body) ? 2 : /^0[oO]?[0-7]/.test(body) && body.length > 1 ? 8 : 10;
  const digits = radix === 10 ? body : body.replace(/^0[xXbBoO]?/, '');
  const n = sign * parseInt(digits || '0', radix);
  // Past uint64 Go fails to read it as an integer; the float pattern may then take it.
  lastInt = Math.abs(n) > 18446744073709551615 ? undefined : n === 0 ? 0 : n; // Go has no -0
  return lastInt;
}

const scalar = (tag: string, resolve: (s: string) => boolean, construct: (s: string) => unknown) =>
  new jsYaml.Type(`tag:yaml.org,2002:${tag}`,
    { kind: 'scalar', resolve: (s: string | null) => resolve(s ?? ''), construct: (s: string | null) => construct(s ?? '') });

const KUBERNETES_SCHEMA = jsYaml.FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar('null', (s) => NULLS.has(s), () => null),
    scalar('bool', (s) => BOOLEANS.has(s), (s) => BOOLEANS.get(s)),
    scalar('int', (s) => goInt(s) !== undefined, (s) => goInt(s)),
    scalar('float', (s) => numeric(s) && (SPECIAL_FLOATS.has(s) || GO_FLOAT.test(s.replace(/_/g, ''))), (s) => {
      // go-yaml reads .inf and .nan, but JSON has no such number: sigs.k8s.io/yaml refuses the document.
      if (SPECIAL_FLOATS.has(s)) throw new Error(`json: unsupported value: ${s} (Kubernetes YAML converts to JSON, which has no ${s})`);
      return Number(s.replace(/_/g, ''));
    }),
    new jsYaml.Type('tag:yaml.org,2002:merge', { kind: 'scalar', resolve: (s: string | null) => s === '<<', construct: () => '<<' }),
  ],
  explicit: [
    new jsYaml.Type('tag:yaml.org,2002:binary', { kind: 'scalar', construct: (s: string | null) => Buffer.from((s ?? '').replace(/\s/g, ''), 'base64')
      .toString('utf8') }),
  ],
});

/** The documents of a YAML (or JSON) stream, as kubectl reads them; an empty document is null. Throws on invalid YAML. */
export function kubernetesYamlDocuments(text: string): unknown[] {
  // json: a repeated key keeps its last value, as go-yaml's non-strict decoding does, instead of failing.
  return jsYaml.loadAll(text, undefined, { schema: KUBERNETES_SCHEMA, json: true });
}

/**
 * The objects of a file's YAML, as kubectl reads them (null documents left out); a document that does not read is an
 * error naming the file and the document, counted as `kubectl` and the `yaml` package count them.
 */
export function readKubernetesYaml(file: string, text: string): unknown[] {
  try {
    return kubernetesYamlDocuments(text).filter((d) => d !== null && d !== undefined);
  } catch (e) {
    // js-yaml stops at the first error: find its document by reading them one at a time.
    const docs = text.split(/^---(?=[ \t]|$)/m);
    let n = 0;
    for (const [i, doc] of docs.entries()) {
      const blank = !doc.split('\n').some((l) => l.trim() && !l.trim().startsWith('#') && !l.startsWith('%'));
      // A leading `---` opens the first document rather than ending an empty one.
      if (!(i === 0 && blank && docs.length > 1)) n++;
      try {
        kubernetesYamlDocuments(doc);
      } catch (inner) {
        throw new Error(`${file}: document ${n} is not valid YAML: ${firstLine(inner)}`);
      }
    }
    throw new Error(`${file}: not valid YAML: ${firstLine(e)}`);
  }
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}
