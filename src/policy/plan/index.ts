/** The plan: a pure simulation of Kueue's scheduler over queues and Ray workloads (see simulate.ts). */
export * from './schema';
export { PlanInput, simulatePlan } from './simulate';
export { DEFAULT_HORIZON_SECONDS, PlanEnd } from './timeline';
export * from './text';
export { planToHtml, planUsageSeries, PlanUsageSeries } from './html';
