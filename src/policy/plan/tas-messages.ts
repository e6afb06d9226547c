/**
 * Kueue's messages when a PodSet does not fit the topology (tas_flavor_snapshot.go notFitMessage and
 * multiLayerNotFitMessage), with the nodes excluded and why (tasExclusionStats). Pure.
 */
import type { TasFlavor, TopologyDomain } from './topology';

/** Why nodes were left out of a placement, by cause (tasExclusionStats). */
export interface Stats {
  totalNodes: number;
  nodeSelector: number;
  affinity: number;
  taints: Map<string, number>;
  resources: Map<string, number>;
}

/** The per-domain counts a message reads (the assigner's state). */
interface Counts {
  readonly podCount: Int32Array;
  readonly sliceCount: Int32Array;
}

/** A slice layer of the request: its level and size. */
interface SliceLayer {
  readonly topology: string;
  readonly size: number;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function formatReasons(s: Stats): string {
  const reasons: string[] = [];
  if (s.nodeSelector > 0) reasons.push(`nodeSelector: ${s.nodeSelector}`);
  if (s.affinity > 0) reasons.push(`affinity: ${s.affinity}`);
  for (const [k, v] of s.taints) reasons.push(`taint ${JSON.stringify(k)}: ${v}`);
  for (const [k, v] of s.resources) reasons.push(`resource ${JSON.stringify(k)}: ${v}`);
  // Go's slices.Sort: byte order.
  return reasons.sort(cmp).join(', ');
}

function exclusions(s: Stats): string {
  const any = s.nodeSelector > 0 || s.affinity > 0 || s.taints.size > 0 || s.resources.size > 0;
  return any ? `. Total nodes: ${s.totalNodes}; excluded: ${formatReasons(s)}` : '';
}

/** notFitMessage: Kueue's pending message when the PodSet does not fit. */
export function notFitMessage(flavor: TasFlavor, fitCount: number, total: number, sliceSize: number, stats: Stats): string {
  const unit = sliceSize === 1 ? 'pod' : 'slice';
  const head = fitCount === 0 ? `topology "${flavor.topologyName}" doesn't allow to fit any of ${total} ${unit}(s)`
    : `topology "${flavor.topologyName}" allows to fit only ${fitCount} out of ${total} ${unit}(s)`;
  return head + exclusions(stats);
}

export function multiLayerNotFitMessage(flavor: TasFlavor, levelIdx: number, count: number, layers: readonly SliceLayer[], st: Counts,
  stats: Stats): string {
  let out = `topology "${flavor.topologyName}" doesn't allow to fit`;
  let best: TopologyDomain | undefined;
  for (const d of flavor.domainsPerLevel[levelIdx].values()) {
    if (!best || st.sliceCount[d.idx] > st.sliceCount[best.idx] || (st.sliceCount[d.idx] === st.sliceCount[best.idx] && d.id < best.id)) best = d;
  }
  if (!best) return out;
  for (const c of layers) {
    const target = flavor.levelIndex(c.topology);
    if (target < 0) continue;
    out += `; ${slicesIn(best, levelIdx, target, c.size, st)}/${Math.floor(count / c.size)} slice(s) fit on level ${c.topology}`;
  }
  return out + exclusions(stats);
}

function slicesIn(d: TopologyDomain, level: number, target: number, size: number, st: Counts): number {
  if (level === target) return Math.floor(st.podCount[d.idx] / size);
  let total = 0;
  for (const c of d.children) total += slicesIn(c, level + 1, target, size, st);
  return total;
}
