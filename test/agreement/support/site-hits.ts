/**
 * Which upstream refusal sites an agreement run reached (issue 23): the sites of a pair (enumerated from the pinned
 * sources, mapped in test/agreement/sites), the mutants the generator mixes in to reach them, and the bookkeeping that
 * attributes every upstream refusal of the run to its site by its message, so the agreement figure says what it covers.
 */
import { kubeRayCapabilities, kueueCapabilities } from '../../../src/policy';
import type { Generated, SiteMutant } from '../generator';
import { KUBERAY_SOURCE, KUEUE_SOURCE, Site, sitesAt } from '../sites/enumerate';
import { KUBERAY_SITES, SiteMapping } from '../sites/kuberay-sites';
import { KUEUE_SITES, KueueSiteMapping } from '../sites/kueue-sites';
import { Covered, isSpecific, mappingsOf, sitePattern } from '../sites/sites';

export type Project = 'KubeRay' | 'Kueue';
/** How our policy answered an upstream refusal: the same verdict, a reviewed difference, or a disagreement. */
export type Outcome = 'agreed' | 'allow-listed' | 'disagreed';

export interface SiteEntry {
  readonly project: Project;
  readonly site: Site;
  readonly mapping?: Covered;
  readonly pattern: RegExp;
  /** Why the differential does not reach it at this pair (a non-default gate, the CRD refuses first, ...): not counted. */
  readonly exempt?: string;
  readonly mutant?: SiteMutant;
}

/** The namespace of the agreement run: the KubeRay mutants are built in `default`, KubeRay does not read it. */
const NAMESPACE = 'agreement';

/** The operator gates a KubeRay mapping needs that differ from the version's defaults (the policy assumes the defaults). */
export function nonDefaultGates(m: SiteMapping, kubeRay: string): string[] {
  const caps = kubeRayCapabilities(kubeRay);
  const defaults: Record<string, boolean> = { RayJobDeletionPolicy: caps.deletionGateDefaultOn,
    RayServiceIncrementalUpgrade: caps.incrementalUpgradeGateDefaultOn };
  return Object.entries(m.gates ?? {}).filter(([gate, on]) => defaults[gate] !== on).map(([gate, on]) => `${gate}=${on}`);
}

const label = (s: Site) => `${s.func}: ${s.call.length > 90 ? `${s.call.slice(0, 87)}...` : s.call}`;

function kubeRayEntry(site: Site, kueue: string, kubeRay: string): SiteEntry {
  const m = mappingsOf(site, KUBERAY_SITES)[0];
  const base = { project: 'KubeRay' as const, site, mapping: m, pattern: sitePattern(site, m) };
  if (!m?.mutant || m.na) return base;
  const gates = nonDefaultGates(m, kubeRay);
  const object = m.mutant(kubeRay);
  // Kueue's short-term elastic RayJob (0.14.7-0.16): its mutating webhook refuses any autoscaling RayJob before KubeRay sees it.
  const shadowed = object.kind === 'RayJob' && object.spec?.rayClusterSpec?.enableInTreeAutoscaling === true
    && kueueCapabilities(kueue).elasticRayJob === 'short-term';
  const exempt = m.schema ? `the CRD schema refuses it first (${m.schema})`
    : site.file.includes('webhooks/') ? 'KubeRay\'s optional webhook (off by default); the reconcilers\' check of the same field is counted'
      : gates.length ? `reached only with the operator gate ${gates.join(', ')}, not the default`
        : shadowed ? `Kueue ${kueue}'s mutating webhook refuses an autoscaling RayJob first` : undefined;
  const mutant: SiteMutant = { id: `site ${label(site)}`, build: () => {
    const object = m.mutant!(kubeRay);
    return { object: { ...object, metadata: { ...object.metadata, namespace: NAMESPACE } } };
  } };
  return { ...base, exempt, mutant: exempt ? undefined : mutant };
}

function kueueEntry(site: Site, kueue: string, handles: (kind: string) => boolean): SiteEntry {
  const m: KueueSiteMapping | undefined = mappingsOf(site, KUEUE_SITES)[0];
  const base = { project: 'Kueue' as const, site, mapping: m, pattern: sitePattern(site, m) };
  if (m?.todo) return { ...base, exempt: `not covered by a rule yet: ${m.todo}` };
  if (!m?.mutant || m.na) return base;
  const kind = m.mutant(kueue).object.kind;
  const exempt = m.unreachable?.(kueue) ?? (handles(kind) ? undefined : `Kueue ${kueue} has no webhook for ${kind}`);
  return { ...base, exempt, mutant: exempt ? undefined : { id: `site ${label(site)}`, build: () => m.mutant!(kueue) } };
}

/** The sites of a pair, one entry per site, KubeRay's then Kueue's. */
export function pairSites(kueue: string, kubeRay: string, kueueHandles: (kind: string) => boolean): SiteEntry[] {
  const read = (what: string, r: { sites?: Site[]; why?: string }) => {
    if (!r.sites) throw new Error(`the ${what} sources are not readable here (${r.why}): run go mod download, see docs/upstream-sites.md`);
    return r.sites;
  };
  return [...read(`KubeRay ${kubeRay}`, sitesAt(KUBERAY_SOURCE, kubeRay)).map((s) => kubeRayEntry(s, kueue, kubeRay)),
    ...read(`Kueue ${kueue}`, sitesAt(KUEUE_SOURCE, kueue)).map((s) => kueueEntry(s, kueue, kueueHandles))];
}

/** The site mutants the generator mixes in: one per reachable site. */
export const siteMutants = (entries: readonly SiteEntry[]): SiteMutant[] => entries.flatMap((e) => (e.mutant ? [e.mutant] : []));

/** A Go runtime error, not a refusal the code writes: the table lists error calls, so it is reported apart. */
const CRASH = /\bpanic\b|index out of range|nil pointer dereference/;

/** Per-site hit counts of one pair's run, from the upstream refusals it saw. */
export class SiteHits {
  private readonly hits = new Map<string, Record<Outcome, number>>();
  private readonly unattributed: string[] = [];
  private readonly crashes: string[] = [];

  constructor(readonly entries: readonly SiteEntry[]) {}

  /**
   * Attributes one upstream refusal (`what`: the oracle and object, for the report) to the sites whose pattern it matches. A wrapper
   * (a site mapped as not applicable because it wraps others) counts only when no wrapped site matches. Returns the sites hit.
   */
  record(project: Project, message: string, outcome: Outcome, what: string): SiteEntry[] {
    if (CRASH.test(message)) {
      this.crashes.push(`${what}: ${message.slice(0, 200)}`);
      return [];
    }
    const candidates = this.entries.filter((e) => e.project === project && isSpecific(e.pattern) && e.pattern.test(message));
    const direct = candidates.filter((e) => !e.mapping?.na);
    const hit = direct.length ? direct : candidates;
    if (!hit.length) this.unattributed.push(`${what}: ${message.slice(0, 300)}`);
    for (const e of hit) {
      const n = this.hits.get(e.site.key) ?? { agreed: 0, 'allow-listed': 0, disagreed: 0 };
      n[outcome]++;
      this.hits.set(e.site.key, n);
    }
    return hit;
  }

  private total = (e: SiteEntry) => Object.values(this.hits.get(e.site.key) ?? {}).reduce((a, b) => a + b, 0);
  private reachable = () => this.entries.filter((e) => e.mutant);

  /** The per-site table and the figure line: N of M mapped sites reached (K objects). */
  report(pair: string, objects: readonly Generated[]): string {
    const rows = this.entries.filter((e) => e.mutant || e.exempt || this.hits.has(e.site.key)).map((e) => {
      const n = this.hits.get(e.site.key);
      const answers = n ? ` (agreed ${n.agreed}${n['allow-listed'] ? `, allow-listed ${n['allow-listed']}` : ''}`
        + `${n.disagreed ? `, DISAGREED ${n.disagreed}` : ''})` : '';
      const twins = this.entries.filter((x) => x !== e && x.project === e.project && String(x.pattern) === String(e.pattern)).length;
      const note = e.exempt ? `  [exempt: ${e.exempt}]` : e.mapping?.na ? '  [not applicable: a wrapper]'
        : twins ? `  [same message as ${twins} other site${twins > 1 ? 's' : ''}: a hit counts for each]` : '';
      return `  ${e.project.padEnd(7)} ${String(this.total(e)).padStart(4)}${answers.padEnd(28)} ${label(e.site)}${note}`;
    });
    const reached = this.reachable().filter((e) => this.total(e) > 0).length;
    return [`[sites] ${pair}: hits per upstream refusal site (project, hits (how our policy answered them), site):`, ...rows,
      ...(this.crashes.length
        ? [`  ${this.crashes.length} refusals were crashes of upstream's code, no site: ${this.crashes.slice(0, 3).join(' | ')}`] : []),
      `[agreement] ${pair}: ${reached} of ${this.reachable().length} mapped sites reached (${objects.length} objects, `
        + `${objects.filter((g) => g.base.startsWith('site ')).length} of them site mutants); `
        + `${this.entries.filter((e) => e.exempt).length} exempt at this pair, ${this.unattributed.length} refusals matched no site`].join('\n');
  }

  /** The reachable sites no refusal hit. */
  missed(): string[] {
    return this.reachable().filter((e) => this.total(e) === 0).map((e) => `${e.project} ${label(e.site)}`);
  }

  unmatched(): readonly string[] { return this.unattributed; }
}
