import { type FlavorToleration, tolerationProblem } from '../platform/toleration';

/**
 * The scheduling fields every install's Deployment takes, as the Kueue and KubeRay Helm charts offer
 * them (`nodeSelector`, `tolerations`): rendered into the pod spec, validated where they enter.
 */
export function placementFields(nodeSelector: Record<string, string> | undefined, tolerations: readonly FlavorToleration[] | undefined,
  where: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (nodeSelector && Object.keys(nodeSelector).length) {
    for (const [k, v] of Object.entries(nodeSelector)) {
      if (typeof v !== 'string') throw new Error(`${where}: nodeSelector '${k}' must be a string value. Fix: quote it.`);
    }
    out.nodeSelector = { ...nodeSelector };
  }
  if (tolerations?.length) {
    tolerations.forEach((t, i) => {
      const problem = tolerationProblem(t);
      if (problem) throw new Error(`${where}: tolerations[${i}]: ${problem}`);
    });
    out.tolerations = tolerations.map((t) => ({ key: t.key, operator: t.operator, value: t.value, effect: t.effect }));
  }
  return out;
}
