/**
 * The plan's formatting for `plan --output text|html`, beside check's (check-report.ts, sarif.ts): the
 * policy gives the result (PlanResult), this formats it. Pure: a plan in, text out. The text itself lives
 * with Plan.of(app) (src/plan/text.ts), which the npm package ships; re-exported so this is one entry.
 */
export * from '../../plan/text';
export { PlanUsageSeries } from './chart';
export { escapeHtml, planToHtml, planUsageSeries } from './html';
