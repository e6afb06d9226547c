/**
 * The site table: every upstream refusal site (enumerate.ts) of every pinned version, with what covers
 * it (kuberay-sites.ts). `siteTable()` renders docs/upstream-sites.md; the test keeps that file current.
 */
import { kubeRayCapabilities, SUPPORTED_KUBERAY_VERSIONS, SUPPORTED_KUEUE_VERSIONS } from '../../../src/policy/versions';
import { KUBERAY_SOURCE, KUEUE_SOURCE, kubeRaySitesFromGit, Site, sitesAt, UpstreamSource } from './enumerate';

/** What both mappings share: the site's matcher and what covers it. */
export interface Covered {
  readonly match: RegExp;
  readonly rule?: string;
  readonly schema?: string;
  readonly na?: string;
  readonly todo?: string;
  /**
   * The refusal's text, where the call's format string does not tell it apart (an error built elsewhere, a
   * wording two sites share): what attributes an upstream refusal to this site.
   */
  readonly message?: RegExp;
}

/** The regex of the message a site produces: its format string(s), with each verb as a wildcard. */
export function messagePattern(site: Site): RegExp {
  const literalsOf = (text: string) => [...text.matchAll(/"((?:[^"\\]|\\.)*)"|`([^`]*)`/g)]
    .map((m) => (m[1] !== undefined ? JSON.parse(`"${m[1]}"`) : m[2]));
  // fmt.Errorf / errors.New: the (concatenated) format is the first argument; field.X(path, value, msg): the last literal.
  const args = site.call.slice(site.call.indexOf('(') + 1);
  const first = /^\s*(?:"(?:[^"\\]|\\.)*"|`[^`]*`|\s*\+\s*)+/.exec(args)?.[0] ?? '';
  const literals = literalsOf(site.call);
  const format = /^field\./.test(site.call) ? literals[literals.length - 1] ?? '' : literalsOf(first).join('');
  const escaped = format.split(/%[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]/).map((p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(escaped.join('.*'), 's');
}

/** What attributes a refusal to the site: the mapping's message, else the call's format string. */
export function sitePattern(site: Site, mapping: Covered | undefined): RegExp {
  return mapping?.message ?? messagePattern(site);
}

/** A pattern that can tell one refusal from another: some literal run of 8 characters or more. */
export function isSpecific(pattern: RegExp): boolean {
  return pattern.source.split(/\.\*|\(\?:\)/).some((part) => part.replace(/\\(.)/g, '$1').length >= 8);
}

export interface VersionSites {
  readonly version: string;
  readonly sites?: readonly Site[];
  /** Why the sources of this version cannot be read here. */
  readonly why?: string;
}

export function mappingsOf<M extends Covered>(site: Site, table: readonly M[]): M[] {
  return table.filter((m) => m.match.test(`${site.func}: ${site.call}`));
}

/** A modelled-only KubeRay version (not served by the module proxy) is read from $KUBERAY_GIT_DIR instead. */
export function kubeRaySites(): VersionSites[] {
  return SUPPORTED_KUBERAY_VERSIONS.map((version) => ({ version,
    ...(kubeRayCapabilities(version).notRunBecause ? kubeRaySitesFromGit(version) : sitesAt(KUBERAY_SOURCE, version)) }));
}

export function kueueSites(): VersionSites[] {
  return SUPPORTED_KUEUE_VERSIONS.map((version) => ({ version, ...sitesAt(KUEUE_SOURCE, version) }));
}

function coverage(m: Covered | undefined): string {
  if (!m) return '**not mapped**';
  if (m.rule) return `rule \`${m.rule}\``;
  if (m.schema) return `CRD schema: ${m.schema}`;
  if (m.todo) return `**not covered yet**: ${m.todo}`;
  return `not applicable: ${m.na}`;
}

/** The Markdown table of one project's sites over its versions. */
export function siteTable(title: string, source: UpstreamSource, versions: readonly VersionSites[], table: readonly Covered[]): string {
  const rows = new Map<string, { site: Site; in: Set<string> }>();
  for (const v of versions) for (const s of v.sites ?? []) {
    const row = rows.get(s.key) ?? { site: s, in: new Set<string>() };
    row.in.add(v.version);
    rows.set(s.key, row);
  }
  const read = versions.filter((v) => v.sites);
  const out = [`## ${title}`, '', `Module \`${source.module}\`, files: ${source.files.map((f) => `\`${f}\``).join(', ')}.`, ''];
  // The reason without the proxy's address: the module proxy refuses the version.
  for (const v of versions.filter((x) => !x.sites)) {
    out.push(`- ${v.version}: sources not readable here (${/403|not available/.test(v.why ?? '') ? 'the Go module proxy does not serve it' : v.why}).`);
  }
  if (versions.some((x) => !x.sites)) out.push('');
  const counts = { rule: 0, schema: 0, na: 0, todo: 0, none: 0 };
  out.push(`| site | ${read.map((v) => v.version).join(' | ')} | covered by |`, `|---|${read.map(() => '---|').join('')}---|`);
  for (const { site, in: present } of rows.values()) {
    const m = mappingsOf(site, table)[0];
    counts[m?.rule ? 'rule' : m?.schema ? 'schema' : m?.na ? 'na' : m?.todo ? 'todo' : 'none']++;
    const cells = read.map((v) => (present.has(v.version) ? '✓' : ''));
    out.push(`| \`${site.file.split('/').pop()}\` ${site.func}: \`\` ${callCell(site.call)} \`\` | ${cells
      .join(' | ')} | ${coverage(m).replace(/\|/g, '\\|')} |`);
  }
  out.push('', `${rows.size} sites: ${counts.rule} by a policy rule, ${counts.schema} by the CRD schema, ${counts.na} not applicable, `
    + `${counts.todo} not covered yet, ${counts.none} not mapped.`, '');
  return out.join('\n');
}

/** The table cell of a site's call (the form siteTable writes). */
const callCell = (call: string) => (call.length > 160 ? `${call.slice(0, 157)}...` : call).replace(/\|/g, '\\|');

/**
 * The sites of one version's column of a committed table (a version whose sources cannot be read here): each row with ✓ in
 * that column, its call as the cell shows it (long calls are cut at 160 characters, enough for every mapping's match).
 */
export function committedSites(markdown: string, title: string, version: string): Site[] {
  const section = markdown.split(/^## /m).find((x) => x.startsWith(`${title}\n`)) ?? '';
  const lines = section.split('\n').filter((l) => l.startsWith('| '));
  const col = (lines[0] ?? '').split(' | ').findIndex((c) => c.trim() === version);
  if (col < 0) return [];
  const out: Site[] = [];
  for (const line of lines.slice(1)) {
    const m = /^\| `([^`]+)` (\w+|\(top level\)): `` (.*) `` \| (.*) \|$/.exec(line);
    if (!m) continue;
    const cells = m[4].split(' | ');
    if (cells[col - 1] !== '✓') continue;
    const call = m[3].replace(/\\\|/g, '|');
    const file = KUBERAY_SOURCE.files.find((f) => f.endsWith(`/${m[1]}`)) ?? m[1];
    out.push({ key: `${file}#${m[2]}: ${call}`, file, func: m[2], call, line: 0 });
  }
  return out;
}

/** A rendered table without some versions' columns (and rows only they had, the figures line, the unreadable notes): the rest compared alone. */
export function withoutColumns(markdown: string, drop: readonly string[]): string {
  let dropIdx: number[] = [];
  return markdown.split('\n').flatMap((line) => {
    if (/^\d+ sites: /.test(line) || drop.some((v) => line.startsWith(`- ${v}: `))) return [];
    if (line.startsWith('| site | ')) dropIdx = line.split(' | ').map((c, i) => (drop.includes(c.trim()) ? i : -1)).filter((i) => i >= 0);
    else if (!line.startsWith('|')) dropIdx = [];
    if (!line.startsWith('|') || !dropIdx.length) return [line];
    if (line.startsWith('|---')) return [line.slice(0, line.length - 4 * dropIdx.length)];
    const cells = line.split(' | ');
    const kept = cells.filter((_, i) => !dropIdx.includes(i));
    // A site row present only in the dropped columns has no ✓ left.
    if (line.startsWith('| `') && !kept.slice(1, -1).includes('✓')) return [];
    return [kept.join(' | ')];
  }).join('\n').replace(/\n{3,}/g, '\n\n');
}
