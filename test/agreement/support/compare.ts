/**
 * Bookkeeping of an agreement run: each case is our verdict against an oracle's on one object; a
 * disagreement not covered by the allow-list is written to a file (object, both verdicts, both
 * messages) and fails the suite.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Finding, FindingSource } from '../../../src/policy';
import { ALLOWED_DIFFERENCES, AllowedDifference, Oracle } from '../allow-list';

export interface Verdict {
  readonly denied: boolean;
  readonly message: string;
}

export interface Case {
  readonly oracle: Oracle;
  readonly kueue: string;
  readonly kubeRay: string;
  readonly seed: number;
  readonly index: number;
  readonly base: string;
  readonly mutations: readonly string[];
  /** The object both sides judged (for UPDATE: the new object). */
  readonly object: any;
  readonly oldObject?: any;
  /** Our findings of the oracle's source (errors only decide). */
  readonly ours: readonly Finding[];
  readonly theirs: Verdict;
}

export function ourVerdict(findings: readonly Finding[], sources: readonly FindingSource[]): { verdict: Verdict; relevant: Finding[] } {
  const relevant = findings.filter((f) => f.severity === 'error' && sources.includes(f.source));
  return { verdict: { denied: relevant.length > 0, message: relevant.map((f) => `${f.field}: ${f.message} [${f.rule}]`).join('; ') }, relevant };
}

export class AgreementLog {
  private readonly counts = new Map<string, { total: number; agree: number; allowed: Map<string, number>; disagree: number }>();
  readonly disagreements: Array<{ file: string; summary: string }> = [];
  readonly dir: string;

  constructor(readonly seed: number) {
    this.dir = process.env.AGREEMENT_OUT_DIR ?? path.join(os.tmpdir(), `cdk8s-kueue-ray-agreement-${seed}`);
  }

  private key(oracle: Oracle, kueue: string, kubeRay: string): string { return `${oracle} ${kueue}/${kubeRay}`; }

  /** Records one case; returns the allow-list entry that covers a difference, if any. */
  record(c: Case): AllowedDifference | 'agree' | 'disagree' {
    const k = this.key(c.oracle, c.kueue, c.kubeRay);
    const n = this.counts.get(k) ?? { total: 0, agree: 0, allowed: new Map(), disagree: 0 };
    this.counts.set(k, n);
    n.total++;
    const oursDenied = c.ours.some((f) => f.severity === 'error');
    if (oursDenied === c.theirs.denied) {
      n.agree++;
      return 'agree';
    }
    const allowed = ALLOWED_DIFFERENCES.find((a) => a.oracle === c.oracle && a.matches(c));
    if (allowed) {
      n.allowed.set(allowed.id, (n.allowed.get(allowed.id) ?? 0) + 1);
      return allowed;
    }
    n.disagree++;
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, `${c.oracle}-${c.kueue}-${c.kubeRay}-${c.index}${c.oldObject ? '-update' : ''}.json`);
    const ours = c.ours.filter((f) => f.severity === 'error').map((f) => `${f.field}: ${f.message} [${f.rule}, ${f.source}]`);
    fs.writeFileSync(file, `${JSON.stringify({
      oracle: c.oracle, kueue: c.kueue, kubeRay: c.kubeRay, seed: c.seed, index: c.index, base: c.base, mutations: c.mutations,
      ours: { denied: oursDenied, errors: ours }, theirs: c.theirs, object: c.object, oldObject: c.oldObject,
      reproduce: `AGREEMENT_SEED=${c.seed} AGREEMENT_OBJECTS=${c.index + 1} E2E_PAIRS=${c.kueue}/${c.kubeRay} npx jest test/agreement`,
    }, null, 2)}\n`);
    this.disagreements.push({
      file,
      summary: `${c.oracle} ${c.kueue}/${c.kubeRay} #${c.index} (${c.base} + ${c.mutations.join(', ') || 'no mutation'}): `
        + `ours ${oursDenied ? `DENY (${ours.join('; ')})` : 'ALLOW'}; theirs ${c.theirs.denied ? `DENY (${c.theirs.message})` : 'ALLOW'}`,
    });
    return 'disagree';
  }

  /** One line per oracle and pair: the agreement figure the README reports. */
  report(oracle: Oracle, kueue: string, kubeRay: string, what: string): string {
    const n = this.counts.get(this.key(oracle, kueue, kubeRay));
    if (!n) return `[agreement] ${oracle} ${kueue}/${kubeRay}: no cases`;
    const allowed = [...n.allowed].map(([id, c]) => `${id} ${c}`).join(', ');
    const pct = ((100 * (n.agree + [...n.allowed.values()].reduce((a, b) => a + b, 0))) / n.total).toFixed(2);
    return `[agreement] ${oracle} Kueue ${kueue} / KubeRay ${kubeRay}: ${n.agree}/${n.total} agree${allowed ? `, allow-listed: ${allowed}` : ''}, `
      + `${n.disagree} disagree (${pct} % counting the allow-list; seed ${this.seed}; ${what})`;
  }

  disagreementsOf(oracle: Oracle, kueue: string, kubeRay: string): string[] {
    return this.disagreements.filter((d) => d.summary.startsWith(`${oracle} ${kueue}/${kubeRay} `)).map((d) => `${d.summary}\n    -> ${d.file}`);
  }
}

/** Scalar leaves of `sent` that `stored` lacks: what the API server pruned (empty maps and lists are not compared). */
export function prunedPaths(sent: any, stored: any, at = ''): string[] {
  if (sent === null || typeof sent !== 'object') return stored === undefined ? [at] : [];
  if (stored === undefined || stored === null || typeof stored !== 'object') return Object.keys(sent).length ? [at] : [];
  const out: string[] = [];
  for (const k of Object.keys(sent)) {
    if (at === '' && k === 'metadata') continue; // typed metadata: the API server normalizes it, never prunes user fields silently
    const v = sent[k];
    if (v !== null && typeof v === 'object' && Object.keys(v).length === 0) continue;
    out.push(...prunedPaths(v, stored[k], Array.isArray(sent) ? `${at}[${k}]` : at ? `${at}.${k}` : k));
  }
  return out;
}
