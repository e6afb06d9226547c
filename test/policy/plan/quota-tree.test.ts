/**
 * The quota tree's versions: every change of usage anywhere in a cohort tree moves the root's tree version, and a
 * change undone exactly gives the versions back (VersionStash), whole or from a mark, so what is kept per version (the
 * preemption bound's failures, the fair-sharing shares) stays valid only while the tree is as it was.
 */
import { addUsage, removeUsage, rootOf, VersionStash } from '../../../src/policy/plan/quota-tree';
import { twoQueueTree } from './fixtures';

function tree() {
  const { snapshot, a, b, id } = twoQueueTree();
  const cpu = (n: number) => snapshot.toUnits('cpu', BigInt(n) * 1000n);
  const versions = () => [a.usageVersion, b.usageVersion, a.parent!.usageVersion, rootOf(a).treeVersion];
  return { a, b, id, cpu, versions };
}

describe('quota tree versions', () => {
  test('a change within a ClusterQueue\'s own quota (nothing passed up) still moves the tree\'s version; removing it moves it again', () => {
    const { a, id, cpu } = tree();
    const root = rootOf(a);
    const before = root.treeVersion;
    addUsage(a, id, cpu(1));
    expect(a.parent!.usage[id]).toBe(0);
    const added = root.treeVersion;
    expect(added).toBeGreaterThan(before);
    removeUsage(a, id, cpu(1));
    expect(root.treeVersion).toBeGreaterThan(added);
  });

  test('restoreTo gives back what was kept since a mark, last held first; discardTo keeps the new versions', () => {
    const { a, b, id, cpu, versions } = tree();
    const stash = new VersionStash();
    const start = versions();
    // Held: 3 CPUs in a (one passed up to the cohort), then 1 in b.
    const first = stash.mark;
    stash.keep(a);
    addUsage(a, id, cpu(3));
    const afterFirst = versions();
    const second = stash.mark;
    stash.keep(b);
    addUsage(b, id, cpu(1));
    expect(versions()).not.toEqual(afterFirst);
    removeUsage(b, id, cpu(1));
    stash.restoreTo(second);
    expect(versions()).toEqual(afterFirst);
    removeUsage(a, id, cpu(3));
    stash.restoreTo(first);
    expect(versions()).toEqual(start);
    expect([a.usage[id], b.usage[id], a.parent!.usage[id]]).toEqual([0, 0, 0]);
    // A change that stays: its versions are new, and nothing is left kept.
    stash.keep(a);
    addUsage(a, id, cpu(1));
    const changed = versions();
    stash.discardTo(first);
    expect(stash.mark).toBe(0);
    expect(versions()).toEqual(changed);
    expect(changed[3]).not.toBe(start[3]);
  });
});
