/**
 * The flavor assigner's topology-aware side (Kueue's pkg/scheduler/flavorassigner/tas_flavorassigner.go and
 * jobframework/tas.go): a PodSet's topology request read from its template's annotations, whether a flavor suits it
 * (checkPodSetAndFlavorMatchForTAS), and the placement of a whole workload on its TAS flavors
 * (FindTopologyAssignmentsForWorkload). Pure.
 */
import { isRecord } from '../json';
import type { PodTemplateJson } from '../kinds';
import { requiredAffinityOf, tolerationsOf } from '../scheduling';
import { TAS_ANNOTATION } from '../rules/kueue-topology';
import type { ClusterQueue, PodSet, Snapshot, TasPlacement, Workload } from './snapshot';
import { findTopologyAssignment, hasLevel, LeaderPlacement, TasPodSetRequest, TopologyRequest } from './tas-assigner';
import { HOSTNAME_LABEL, kueueRequests, LeafCount } from './topology';
import { podSetTemplate } from './workload';

/** A PodSet's TAS request as read once: `explicit` is IsExplicitlyRequestingTAS. */
export interface PodSetTas {
  readonly explicit: boolean;
  readonly request?: TopologyRequest;
  /** podset-group-name with a required or preferred request: leader/worker placement, which the plan does not model. */
  readonly groupName?: string;
  readonly base: Omit<TasPodSetRequest, 'request' | 'implied' | 'count' | 'podSet'>;
}

/** The PodSet's TAS request (NewPodSetTopologyRequest), read once and kept on the PodSet. */
export function podSetTasOf(w: Workload, ps: PodSet, multiLayer: boolean): PodSetTas {
  if (ps.tas) return ps.tas as PodSetTas;
  const template = podSetTemplate(w.obj, ps.name);
  const ann = template?.metadata?.annotations;
  const out = isRecord(ann) ? tasOfAnnotations(ps, template!.spec, ann, multiLayer) : new PodSetTasRequest(ps, template?.spec, undefined, undefined);
  ps.tas = out;
  return out;
}

function tasOfAnnotations(ps: PodSet, spec: PodTemplateJson['spec'], ann: Record<string, unknown>, multiLayer: boolean): PodSetTas {
  const str = (k: string) => (typeof ann[k] === 'string' ? ann[k] : undefined);
  const required = str(TAS_ANNOTATION.required), preferred = str(TAS_ANNOTATION.preferred), unconstrainedText = str(TAS_ANNOTATION.unconstrained);
  const sliceTopology = str(TAS_ANNOTATION.sliceRequired), sliceSizeText = str(TAS_ANNOTATION.sliceSize);
  const constraintsText = multiLayer ? str(TAS_ANNOTATION.constraints) : undefined;
  const slices: Array<{ topology: string; size: number }> = [];
  if (constraintsText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(constraintsText);
      for (const c of Array.isArray(parsed) ? parsed : []) {
        if (isRecord(c) && typeof c.topology === 'string' && typeof c.size === 'number') slices.push({ topology: c.topology, size: c.size });
      }
    } catch {
      // Kueue refuses to build the PodSets; the webhook rule (podSetTopology) reports it.
    }
  } else if (sliceTopology !== undefined && sliceSizeText !== undefined && /^[+-]?\d+$/.test(sliceSizeText)) {
    slices.push({ topology: sliceTopology, size: Number(sliceSizeText) });
  }
  const unconstrained = unconstrainedText === undefined ? undefined : /^(1|t|T|TRUE|true|True)$/.test(unconstrainedText);
  let request: TopologyRequest | undefined;
  if (required !== undefined) request = { required, slices };
  else if (preferred !== undefined) request = { preferred, slices };
  else if (unconstrained !== undefined) request = { unconstrained, slices };
  else if (slices.length) request = { slices };
  const groupName = str(TAS_ANNOTATION.groupName);
  return new PodSetTasRequest(ps, spec, request, request && (required !== undefined || preferred !== undefined) ? groupName : undefined);
}

/** A PodSet's TAS request; the placement's inputs are read only when a placement is computed (most PodSets never ask for one). */
class PodSetTasRequest implements PodSetTas {
  readonly explicit: boolean;
  private inputs?: PodSetTas['base'];
  constructor(private readonly ps: PodSet, private readonly spec: PodTemplateJson['spec'], readonly request: TopologyRequest | undefined,
    readonly groupName: string | undefined) {
    this.explicit = request !== undefined;
  }

  get base(): PodSetTas['base'] {
    return this.inputs ??= placementInputsOf(this.ps, this.spec, this.request);
  }
}

/** What the TAS assigner reads of a PodSet besides its request: per-pod requests (with one pod slot), node selector, tolerations, affinity. */
function placementInputsOf(ps: PodSet, spec: PodTemplateJson['spec'], request: TopologyRequest | undefined): PodSetTas['base'] {
  const selector: Record<string, string> = {};
  for (const [k, v] of Object.entries(isRecord(spec?.nodeSelector) ? spec.nodeSelector as Record<string, unknown> : {})) {
    if (typeof v === 'string') selector[k] = v;
  }
  const perPod = kueueRequests(ps.perPod);
  perPod.set('pods', (perPod.get('pods') ?? 0) + 1);
  const tolerations = tolerationsOf(spec?.tolerations);
  return { perPod, nodeSelector: selector, tolerations, affinity: requiredAffinityOf(spec),
    shapeKey: JSON.stringify([[...perPod], selector, tolerations, request ?? null]) };
}

/** checkPodSetAndFlavorMatchForTAS: why `flavor` does not suit the PodSet's TAS request ('' when it does). */
export function tasMismatch(s: Snapshot, cq: ClusterQueue, flavor: string, ps: PodSet, tas: PodSetTas, covered: readonly string[]): string {
  const spec = s.flavors.get(flavor)?.spec;
  const isTasFlavor = typeof (spec as { topologyName?: unknown } | undefined)?.topologyName === 'string';
  if (tas.explicit || cq.tasOnly) {
    if (!tas.explicit) return '';
    if (!isTasFlavor) {
      // A flavor that covers none of the pod's resources may still give quota-only resources.
      return [...ps.perPod.keys()].some((r) => covered.includes(r)) ? `Flavor "${flavor}" does not support TopologyAwareScheduling` : '';
    }
    const f = s.tasFlavors.get(flavor);
    if (!f) return `Flavor "${flavor}" information missing in TAS cache`;
    return hasLevel(f, tas.request) ? '' : `Flavor "${flavor}" does not contain the requested level`;
  }
  return isTasFlavor ? `Flavor "${flavor}" supports only TopologyAwareScheduling` : '';
}

/** Whether any PodSet of the workload asks for TAS in its ClusterQueue (explicitly, or implied by a TAS-only queue). */
export function requestsTas(w: Workload, cq: ClusterQueue, multiLayer: boolean): boolean {
  return cq.tasOnly || w.podSets.some((ps) => podSetTasOf(w, ps, multiLayer).explicit);
}

export interface TasPodSetFlavor {
  /** Index of the PodSet in the workload. */
  readonly index: number;
  /** Its TAS flavor (onlyTASFlavor), or why there is none. */
  readonly flavor?: string;
  readonly error?: string;
}

export interface TasWorkloadOptions {
  readonly simulateEmpty: boolean;
  readonly leastFreeForUnconstrained: boolean;
  readonly multiLayer: boolean;
  readonly sharedHostUsage: boolean;
  /** How the release places a PodSet group's leader with its workers. */
  readonly leaderPlacement: LeaderPlacement;
}

export type TasWorkloadResult = { readonly placements: TasPlacement[]; readonly failure?: undefined }
  | { readonly placements?: undefined; readonly failure: { readonly podSet: string; readonly reason: string } };

/**
 * FindTopologyAssignmentsForWorkload: each TAS PodSet placed on its flavor, flavors in name order, the PodSets of a
 * flavor in order, each seeing what the earlier ones took (assumedUsage; shared across hostname-level flavors where
 * Kueue aggregates their usage). Two PodSets of a flavor with one podset-group-name are placed in one call, the one of
 * fewer pods (the second on a tie) as the leader of the other (findLeaderAndWorkers), under the workers' request. The
 * first failure ends it; a group's failure is given to its workers (Kueue gives it to either, in map order).
 */
export function placeWorkload(s: Snapshot, w: Workload, cq: ClusterQueue, podSets: readonly TasPodSetFlavor[], opts: TasWorkloadOptions)
  : TasWorkloadResult {
  const byFlavor = new Map<string, TasPodSetFlavor[]>();
  for (const p of podSets) {
    if (p.error) return { failure: { podSet: w.podSets[p.index].name, reason: p.error } };
    let list = byFlavor.get(p.flavor!);
    if (!list) byFlavor.set(p.flavor!, list = []);
    list.push(p);
  }
  const placements: TasPlacement[] = [];
  const shared = new Map<string, Map<string, number>>();
  for (const name of [...byFlavor.keys()].sort()) {
    const flavor = s.tasFlavors.get(name)!;
    const assumed = opts.sharedHostUsage && flavor.levelKeys[flavor.levelKeys.length - 1] === HOSTNAME_LABEL ? shared
      : new Map<string, Map<string, number>>();
    for (const group of groupsOf(w, byFlavor.get(name)!, opts.multiLayer)) {
      const [workers, leader] = group;
      const ps = w.podSets[workers.index];
      const tas = podSetTasOf(w, ps, opts.multiLayer);
      const leaderPs = leader && w.podSets[leader.index];
      const leaderPerPod = leaderPs && podSetTasOf(w, leaderPs, opts.multiLayer).base.perPod;
      const result = findTopologyAssignment(flavor, {
        podSet: ps.name, count: ps.count, ...tas.base, request: tas.request, implied: !tas.explicit && cq.tasOnly,
        ...(leaderPs ? { leader: { podSet: leaderPs.name, perPod: leaderPerPod! } } : {}),
      }, { simulateEmpty: opts.simulateEmpty, leastFreeForUnconstrained: opts.leastFreeForUnconstrained, assumed,
        leaderPlacement: opts.leaderPlacement });
      if (result.reason !== undefined) return { failure: { podSet: ps.name, reason: result.reason } };
      const placed: Array<{ index: number; perPod: ReadonlyMap<string, number>; placement: LeafCount[] }> = [
        { index: workers.index, perPod: tas.base.perPod, placement: result.placement }];
      if (leaderPs) placed.push({ index: leader.index, perPod: leaderPerPod!, placement: result.leader ?? [] });
      for (const p of placed.sort((a, b) => a.index - b.index)) {
        placements.push({ podSet: w.podSets[p.index].name, flavor, perPod: p.perPod, placement: p.placement });
        for (const l of p.placement) {
          const id = flavor.leaves[l.leafIdx].id;
          let used = assumed.get(id);
          if (!used) assumed.set(id, used = new Map<string, number>());
          for (const [r, v] of p.perPod) used.set(r, (used.get(r) ?? 0) + v * l.count);
        }
      }
    }
  }
  return { placements };
}

/**
 * The key Kueue groups a workload's PodSets by, in the flavor assigner and in TAS alike: the podset-group-name of a
 * required or preferred request, else the PodSet's own index.
 */
export function groupKeyOf(w: Workload, index: number, multiLayer: boolean): string {
  const name = podSetTasOf(w, w.podSets[index], multiLayer).groupName;
  return name === undefined ? `#${index}` : `group ${name}`;
}

/**
 * The PodSets of one flavor as Kueue groups them (by podset-group-name, else alone), in order of first appearance: each
 * group as [workers] or [workers, leader]. A group of other than two PodSets, which Kueue's webhook refuses, is placed
 * PodSet by PodSet.
 */
function groupsOf(w: Workload, list: readonly TasPodSetFlavor[], multiLayer: boolean): Array<[TasPodSetFlavor, TasPodSetFlavor?]> {
  const byKey = new Map<string, TasPodSetFlavor[]>();
  list.forEach((p) => {
    const key = groupKeyOf(w, p.index, multiLayer);
    let members = byKey.get(key);
    if (!members) byKey.set(key, members = []);
    members.push(p);
  });
  const out: Array<[TasPodSetFlavor, TasPodSetFlavor?]> = [];
  for (const members of byKey.values()) {
    if (members.length !== 2) {
      for (const m of members) out.push([m]);
      continue;
    }
    // findLeaderAndWorkers: the second is the leader unless it has more pods than the first.
    const [a, b] = members;
    out.push(w.podSets[b.index].count > w.podSets[a.index].count ? [b, a] : [a, b]);
  }
  return out;
}

/** TASFlavorSnapshot.Fits: every pod of the placements still fits on its leaf (an earlier admission of the cycle may have taken it). */
export function placementsFit(placements: readonly TasPlacement[]): boolean {
  for (const p of placements) {
    for (const l of p.placement) if (!p.flavor.holds(l.leafIdx, p.perPod, l.count)) return false;
  }
  return true;
}
