/**
 * Reading Kubernetes YAML for `check` with positions: every document of every file (or of every
 * .yaml/.yml file under a directory), and a way back from a finding's field
 * (`spec.rayClusterSpec.workerGroupSpecs[1].replicas`, `metadata.labels[kueue.x-k8s.io/queue-name]`)
 * to the line and column of that field in the file, through the `yaml` package's node ranges.
 */
import * as fs from 'fs';
import * as path from 'path';
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Node, parseAllDocuments, parseDocument, Document, Scalar, YAMLMap } from 'yaml';
import { fieldSegments } from '../policy/admission';
import { fieldAt } from './json-fields';

/** A span in a file; lines and columns count from 1, the end is exclusive (SARIF's convention). */
export interface SourceRegion {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

export interface FieldLocation extends SourceRegion {
  /** False when the field is not written in the file and the region is its nearest written parent. */
  readonly exact: boolean;
  /** The part of the field that is written in the file (equal to the field when exact). */
  readonly resolved: string;
}

/** One Kubernetes object of a file (a document, or one item of a `kind: List` document). */
export interface SourceObject {
  /** The path as given on the command line (or found under a given directory); "-" for standard input. */
  readonly file: string;
  /** The YAML document's number in the file, counted from 1 like lines. */
  readonly document: number;
  /** The object as plain JSON (whatever the document holds: not always a JSON object). */
  readonly object: unknown;
  /** Where the object starts. */
  readonly region: SourceRegion;
  /** Where `field` (a finding's JSON path into the object) is written, or its nearest written parent. */
  locate(field: string): FieldLocation;
}

/** A document the YAML parser refused, with the parser's position. */
export interface SourceError {
  readonly file: string;
  /** Counted from 1. */
  readonly document: number;
  readonly message: string;
  readonly region: SourceRegion;
}

export interface ReadResult {
  readonly objects: SourceObject[];
  readonly errors: SourceError[];
  /** Every file read, in order. */
  readonly files: string[];
}

/** Files to read for the given paths: files as given, directories walked for .yaml/.yml (sorted, recursively). */
export function expandPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/i.test(e.name)) out.push(p);
    }
  };
  for (const p of paths) {
    if (p === '-') {
      out.push(p);
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      throw new MissingFileError(`${p}: no such file or directory`);
    }
    if (st.isDirectory()) walk(p);
    else out.push(p);
  }
  return out;
}

/** A mistake in how the command was called (exit code 2), as opposed to a finding in the files. */
export class UsageError extends Error {}

/** A path given that does not exist: the command fails (exit code 1, as kubectl's `-f` does), in check and plan alike. */
export class MissingFileError extends Error {}

/** Reads every object of the given files and directories ("-": standard input). */
export function readSources(paths: readonly string[], stdin: () => string = () => fs.readFileSync(0, 'utf8')): ReadResult {
  const files = expandPaths(paths);
  const objects: SourceObject[] = [];
  const errors: SourceError[] = [];
  for (const file of files) {
    const text = file === '-' ? stdin() : fs.readFileSync(file, 'utf8');
    const r = parseSource(file, text);
    for (const o of r.objects) objects.push(o);
    for (const e of r.errors) errors.push(e);
  }
  return { objects, errors, files };
}

/** The objects of one file's text. */
export function parseSource(file: string, text: string): { objects: SourceObject[]; errors: SourceError[] } {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false });
  const objects: SourceObject[] = [];
  const errors: SourceError[] = [];
  // parseAllDocuments returns an EmptyStream (no documents) for an empty file.
  const list: Document.Parsed[] = Array.isArray(docs) ? docs : [];
  list.forEach((doc, i) => {
    const index = i + 1; // counted from 1, like lines
    if (doc.errors.length) {
      for (const e of doc.errors) errors.push({ file, document: index, message: e.message.split('\n')[0], region: regionOf(lc, e.pos[0], e.pos[1]) });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      // e.g. an alias bomb: refused like a syntax error, at the document's start.
      const at = (doc.contents as Node | null)?.range?.[0] ?? 0;
      errors.push({ file, document: index, message: (e as Error).message.split('\n')[0], region: regionOf(lc, at, at) });
      return;
    }
    if (value === null || value === undefined) return; // an empty document (e.g. a trailing ---)
    const root = doc.contents as Node | null;
    const start = root?.range ? regionOf(lc, root.range[0], root.range[0]) : { line: 1, column: 1, endLine: 1, endColumn: 1 };
    // kubectl's `kind: List` holds objects under items: each is checked on its own.
    const items = fieldAt(value, 'items');
    if (fieldAt(value, 'kind') === 'List' && Array.isArray(items)) {
      items.forEach((item: unknown, i: number) => {
        const prefix = `items[${i}]`;
        const loc = (field: string) => locateField(doc, lc, field ? `${prefix}.${field}` : prefix, text);
        const at = loc('');
        objects.push({ file, document: index, object: item, region: at, locate: loc });
      });
      return;
    }
    objects.push({ file, document: index, object: value, region: start, locate: (field) => locateField(doc, lc, field, text) });
  });
  return { objects, errors };
}

function regionOf(lc: LineCounter, start: number, end: number): SourceRegion {
  const a = lc.linePos(start);
  const b = lc.linePos(Math.max(end, start));
  return { line: a.line, column: a.col, endLine: b.line, endColumn: b.col };
}

/** The value of a map entry whose key is `key`, and the entry's key node. */
function entryOf(map: YAMLMap<unknown, unknown>, key: string): { key: Node; value: unknown } | undefined {
  for (const item of map.items) {
    if (!isPair(item)) continue;
    const k = item.key;
    const name = isScalar(k) ? String(k.value) : undefined;
    if (name === key) return { key: k as Node, value: item.value };
  }
  return undefined;
}

/**
 * Where a field is written in a document. Segments are followed through maps (by key) and sequences
 * (by index). A map key holding dots (`nvidia.com/gpu` in `resources.requests.nvidia.com/gpu`) is found
 * by joining the following segments. A field that is not written resolves to its nearest written
 * parent (exact: false): for a missing `spec.shutdownAfterJobFinishes`, the `spec:` key.
 */
export function locateField(doc: Document, lc: LineCounter, field: string, text?: string): FieldLocation {
  const segs = field ? fieldSegments(field) : [];
  let node: unknown = doc.contents;
  const root = doc.contents;
  // The node that stands for the current position in the file: a key, a sequence item, or the document.
  let anchor: { region: SourceRegion } = { region: root?.range ? firstLine(lc, root) : { line: 1, column: 1, endLine: 1, endColumn: 1 } };
  const resolved: string[] = [];
  let i = 0;
  const deref = (n: unknown) => (isAlias(n) ? n.resolve(doc) : n);
  node = deref(node);
  while (i < segs.length) {
    const seg = segs[i];
    if (isMap(node)) {
      let found: { key: Node; value: unknown } | undefined;
      let used = 1;
      // The key as one segment, else joined with the next ones (a key with dots split by the path syntax).
      for (let j = i; j < segs.length && !found; j++) {
        if (typeof segs[j] !== 'string' && j > i) break;
        const key = segs.slice(i, j + 1).join('.');
        found = entryOf(node, key);
        if (found) used = j - i + 1;
      }
      if (!found) break;
      const value = deref(found.value);
      anchor = { region: pairRegion(lc, found.key, value) };
      const key = segs.slice(i, i + used).join('.');
      resolved.push(resolved.length === 0 ? key : /^[A-Za-z0-9_-]+$/.test(key) ? `.${key}` : `[${key}]`);
      node = value;
      i += used;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = deref(node.items[seg]);
      if (item === undefined) break;
      anchor = { region: itemRegion(lc, item) };
      resolved.push(`[${seg}]`);
      node = item;
      i += 1;
    } else {
      // YAML held as text in a literal block (a ConfigMap's controller_manager_config.yaml): the rest of the path
      // is followed inside it, and placed on the file's line.
      const inner = text !== undefined && isScalar(node) ? insideLiteralBlock(node, lc, text, segs.slice(i)) : undefined;
      if (inner) {
        return { ...inner.region, exact: inner.exact, resolved: `${resolved.join('').replace(/^\./, '')}${inner.resolved ? `.${inner.resolved}` : ''}` };
      }
      break;
    }
  }
  return { ...anchor.region, exact: i === segs.length, resolved: resolved.join('').replace(/^\./, '') };
}

/** Where the rest of a path is written inside a literal block scalar that holds YAML, in the file's lines and columns. */
function insideLiteralBlock(node: Scalar, lc: LineCounter, text: string, rest: readonly (string | number)[]):
  { region: SourceRegion; exact: boolean; resolved: string } | undefined {
  if (node.type !== 'BLOCK_LITERAL' || typeof node.value !== 'string' || !node.range) return undefined;
  // The content starts on the line after the `|` header, indented; the block's value is those lines unindented.
  const header = lc.linePos(node.range[0]).line;
  const contentStart = lc.lineStarts[header];
  if (contentStart === undefined) return undefined;
  const indent = /^ */.exec(text.slice(contentStart))![0].length;
  const innerLc = new LineCounter();
  const inner = parseDocument(node.value, { lineCounter: innerLc, prettyErrors: false });
  if (inner.errors.length) return undefined;
  const field = rest.map((seg, k) => (typeof seg === 'number' ? `[${seg}]` : k === 0 ? seg : `.${seg}`)).join('');
  const at = locateField(inner, innerLc, field);
  if (!at.resolved) return undefined;
  return {
    region: { line: header + at.line, column: indent + at.column, endLine: header + at.endLine, endColumn: indent + at.endColumn },
    exact: at.exact, resolved: at.resolved,
  };
}

/** A key with a scalar value spans the key and the value; with a collection value, the key only. */
function pairRegion(lc: LineCounter, key: Node, value: unknown): SourceRegion {
  const k = key.range!;
  if (isScalar(value) && value.range) return regionOf(lc, k[0], value.range[1]);
  return regionOf(lc, k[0], k[1]);
}

/** A scalar item spans itself; a map item its first key (and scalar value); anything else its first line. */
function itemRegion(lc: LineCounter, item: unknown): SourceRegion {
  if (isScalar(item) && item.range) return regionOf(lc, item.range[0], item.range[1]);
  if (isMap(item) && isPair(item.items[0]) && isScalar(item.items[0].key)) {
    const p = item.items[0];
    return pairRegion(lc, p.key as Node, isAlias(p.value) ? undefined : p.value);
  }
  return firstLine(lc, item as Node);
}

function firstLine(lc: LineCounter, node: Node): SourceRegion {
  if (isMap(node) && isPair(node.items[0]) && isScalar(node.items[0].key)) {
    const p = node.items[0];
    return pairRegion(lc, p.key as Node, p.value);
  }
  const r = node.range ?? [0, 0, 0];
  return regionOf(lc, r[0], r[0] + 1);
}
