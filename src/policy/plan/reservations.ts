/**
 * Usage a scheduling cycle holds for itself alone, with its pods' places on TAS nodes: a preemptor's while its victims
 * go, and a pending workload's that lower ones may not take (Kueue's quotaResourcesToReserve, and netUsage on the
 * nodes). All of it goes back at the cycle's end, last held first. One whose cohort tree did not change since it was
 * held (the cycle admitted nothing there) leaves the tree as it was, its versions too (quota-tree.ts), so what is kept
 * per tree version (the preemption bound's failures, the search memo) stays valid. Pure.
 */
import { addUsageMap, FlavorResource, rootOf, VersionStash } from './quota-tree';
import { addTasUsage, ClusterQueue, TasPlacement } from './snapshot';

interface Held {
  readonly clusterQueue: ClusterQueue;
  readonly usage: ReadonlyMap<FlavorResource, number>;
  readonly tas?: TasPlacement[];
  /** The stash's mark before its versions were kept, and its tree's version once it was added. */
  readonly mark: number;
  readonly treeVersion: number;
}

export class CycleReservations {
  private readonly held: Held[] = [];
  private readonly versions = new VersionStash();

  /** Adds `usage` (and the pods of `tas`) to `cq` for the rest of the cycle. */
  hold(cq: ClusterQueue, usage: ReadonlyMap<FlavorResource, number>, tas?: TasPlacement[]): void {
    const mark = this.versions.mark;
    this.versions.keep(cq);
    addUsageMap(cq, usage, 1);
    addTasUsage(tas, 1);
    this.held.push({ clusterQueue: cq, usage, tas, mark, treeVersion: rootOf(cq).treeVersion });
  }

  /** The cycle ended: everything held goes back. */
  releaseAll(): void {
    for (let i = this.held.length - 1; i >= 0; i--) {
      const h = this.held[i];
      const untouched = rootOf(h.clusterQueue).treeVersion === h.treeVersion;
      addUsageMap(h.clusterQueue, h.usage, -1);
      addTasUsage(h.tas, -1);
      if (untouched) this.versions.restoreTo(h.mark);
      else this.versions.discardTo(h.mark);
    }
    this.held.length = 0;
  }
}
