import { PolicyContext } from '../context';
import { Finding, FindingSource, objectRef, Severity } from '../findings';
import { RayObject } from '../gang';

/** A policy rule: a named pure function from an object and its context to findings. */
export type Rule = (obj: RayObject, ctx: PolicyContext) => Finding[];

/** Builds findings for one rule and one object. */
export class Reporter {
  readonly findings: Finding[] = [];
  constructor(private readonly rule: string, private readonly obj: RayObject, private readonly source: FindingSource) {}
  report(severity: Severity, field: string, message: string, fix: string, source?: FindingSource): this {
    // The object reference is built only when there is something to report: most rules find nothing,
    // and every admission request runs all of them.
    this.findings.push({ rule: this.rule, severity, object: objectRef(this.obj), field, message, fix, source: source ?? this.source });
    return this;
  }
  error(field: string, message: string, fix: string, source?: FindingSource): this {
    return this.report('error', field, message, fix, source);
  }
  warn(field: string, message: string, fix: string, source?: FindingSource): this {
    return this.report('warning', field, message, fix, source);
  }
}
