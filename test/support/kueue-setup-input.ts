/**
 * The input of the Kueue setup rules from a list of plain objects, with the queues read from the same objects as check
 * reads a file's (its LocalQueues, ClusterQueues and Cohorts through inventoryFromObjects).
 */
import { inventoryFromObjects } from '../../src/policy';
import type { KueueConfig } from '../../src/policy/plan';
import type { KueueSetupInput } from '../../src/policy/rules/kueue-setup';
import { kueueCapabilities } from '../../src/policy/versions';

export function kueueSetupInput(objects: unknown[], config?: KueueConfig, kueue = 'v0.19.2'): KueueSetupInput {
  const of = (kind: string) => objects.filter((o) => (o as { kind?: unknown }).kind === kind);
  const inventory = inventoryFromObjects({ localQueues: of('LocalQueue'), clusterQueues: of('ClusterQueue'), cohorts: of('Cohort'),
    priorityClasses: [], namespaces: [] });
  return { objects, config, inventory, kueue: kueueCapabilities(kueue) };
}
