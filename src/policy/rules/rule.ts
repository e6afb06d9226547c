import { PolicyContext } from '../context';
import { Finding, FindingSource, objectRef, Severity } from '../findings';
import { RayKindName, RayObject } from '../kinds';

/** A policy rule's check: a pure function from an object and its context to findings. */
export type Rule = (obj: RayObject, ctx: PolicyContext) => Finding[];

/**
 * A policy rule, defined once next to its check: the id its findings carry (the key of RULES, the
 * `[name]` tag of a finding, the SARIF rule id), the line `check --output sarif` describes it with,
 * who enforces it upstream (the source its findings have unless one says otherwise; `app` for the
 * library's own cross-object rules) and the Ray kinds the check evaluates. Rules run on every Ray
 * object take `Rule`; the few run elsewhere (on an UPDATE, on a tenant's objects, on a write to a
 * child, on the files) take their own check.
 */
export interface RuleRecord<Check = Rule> {
  readonly name: string;
  readonly description: string;
  readonly source: FindingSource;
  /** The Ray kinds the check can report on (none: it reads files, not objects). Declarative: the check tests the kind itself. */
  readonly kinds: readonly RayKindName[];
  readonly check: Check;
}

/**
 * A rule on a Ray object from its metadata and a check that reports through a Reporter made for it:
 * the rule's name and source are written once, in the record.
 */
export function defineRule(
  info: Omit<RuleRecord, 'check'>,
  check: (r: Reporter, obj: RayObject, ctx: PolicyContext) => Finding[],
): RuleRecord {
  return { ...info, check: (obj, ctx) => check(new Reporter(info, obj), obj, ctx) };
}

/**
 * Findings one rule lists per object and severity. An object the API server accepts (3 MiB) can hold
 * 100,000 worker groups or containers, each wrong the same way: listing them all cost seconds and
 * hundreds of MiB, for a denial the API server truncates anyway. The rest are counted in one more
 * finding, so none is dropped silently and the decision does not change.
 */
export const MAX_FINDINGS_PER_RULE = 20;

/** Findings past MAX_FINDINGS_PER_RULE: counted per severity, with the field of the first one. */
interface Overflow {
  errors: number;
  warnings: number;
  errorsField: string;
  warningsField: string;
}

/** A rule's findings when it has none: shared, and frozen so that no caller can add to it. */
const NO_FINDINGS: Finding[] = Object.freeze([]) as unknown as Finding[];

/**
 * Builds findings for one rule and one object. Every rule makes one for every object it sees, once per
 * admission review, and most report nothing: the list and the overflow counts are made only when a
 * finding needs them.
 */
export class Reporter {
  private listed: Finding[] | undefined = undefined;
  private errors = 0;
  private warnings = 0;
  private overflow: Overflow | undefined = undefined;
  /** `rule`: the record of the rule reporting (its name tags each finding, its source is the default). */
  constructor(private readonly rule: Pick<RuleRecord<unknown>, 'name' | 'source'>, private readonly obj: RayObject) {}

  /** The findings, with one that counts those past MAX_FINDINGS_PER_RULE per severity (a frozen empty list when none). */
  get findings(): Finding[] {
    const listed = this.listed ?? NO_FINDINGS;
    const more = this.overflow;
    if (!more) return listed;
    const out = [...listed];
    for (const severity of ['error', 'warning'] as const) {
      const count = severity === 'error' ? more.errors : more.warnings;
      if (!count) continue;
      const what = severity === 'error' ? 'errors' : 'warnings';
      out.push({
        rule: this.rule.name, severity, object: objectRef(this.obj), field: severity === 'error' ? more.errorsField : more.warningsField,
        message: `${count} more ${what} of this rule, from here on, are not listed (the first ${MAX_FINDINGS_PER_RULE} are)`,
        fix: `fix the ${what} listed and the same ones further on`, source: this.rule.source,
      });
    }
    return out;
  }

  /** True once the rule has listed as many findings of this severity as it may (later ones are only counted). */
  full(severity: Severity): boolean {
    return (severity === 'error' ? this.errors : this.warnings) >= MAX_FINDINGS_PER_RULE;
  }

  report(severity: Severity, field: string, message: string, fix: string, source?: FindingSource): this {
    if (this.full(severity)) {
      const more = (this.overflow ??= { errors: 0, warnings: 0, errorsField: '', warningsField: '' });
      if (severity === 'error') {
        if (!more.errors++) more.errorsField = field;
      } else if (!more.warnings++) more.warningsField = field;
      return this;
    }
    if (severity === 'error') this.errors++;
    else this.warnings++;
    // The object reference is built only when there is something to report: most rules find nothing,
    // and every admission request runs all of them.
    (this.listed ??= []).push({ rule: this.rule.name, severity, object: objectRef(this.obj), field, message, fix,
      source: source ?? this.rule.source });
    return this;
  }
  error(field: string, message: string, fix: string, source?: FindingSource): this {
    return this.report('error', field, message, fix, source);
  }
  warn(field: string, message: string, fix: string, source?: FindingSource): this {
    return this.report('warning', field, message, fix, source);
  }
}
