import { simulatePlan } from '../src/policy/plan';
import * as FA from '../src/policy/plan/flavor-assigner';
import { schedulingHash } from '../src/policy/plan/workload';
import { DEFAULT_KUEUE_VERSION } from '../src/policy/versions';
import { scenario } from './plan';
const proto = (FA as any).FlavorAssigner.prototype;
const orig = proto.assign;
let calls = 0; const keys = new Map<string, number>(); const modes: Record<string, number> = {};
proto.assign = function (w: any, ...rest: any[]) {
  calls++;
  const k = `${w.clusterQueue.name}|${schedulingHash(w)}|${w.clusterQueue.memo.version}`;
  keys.set(k, (keys.get(k) ?? 0) + 1);
  const a = orig.call(this, w, ...rest);
  modes[a.mode] = (modes[a.mode] ?? 0) + 1;
  return a;
};
const input = scenario(Number(process.argv[2] ?? 10000));
simulatePlan({ ...input, kueueVersion: DEFAULT_KUEUE_VERSION, trace: false });
process.stdout.write(`assign calls=${calls} distinct(cq,hash,version)=${keys.size} modes=${JSON.stringify(modes)}\n`);
