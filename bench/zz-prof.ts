import { simulatePlan } from '../src/policy/plan';
import { DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { scenario } from './plan';
const input = scenario(10000);
const t0 = process.hrtime.bigint();
const plan = simulatePlan({ ...input, kueueVersion: DEFAULT_KUEUE_VERSION, trace: false });
process.stdout.write(`seconds=${Number(process.hrtime.bigint() - t0) / 1e9} workloads=${plan.workloads.length}\n`);
