// The container resources every construct writes (Ray pods, the installs' Deployments): below the constructs
// and the installs, which both use them.
import type { ResourceRequirementsJson } from '../policy/kinds/ray-json';
import { Quantity, ResourceName } from './quantity';

/** An extended resource request, e.g. 2 × example.com/fpga. */
export interface ExtendedResourceRequest {
  /** The extended resource, e.g. `ResourceName.of("example.com/fpga")`. */
  readonly resource: ResourceName;
  /** How much of it each pod requests (the limit is set equal). */
  readonly quantity: Quantity;
}

/**
 * Resources of a Ray container. Kueue counts requests (or limits where a request is missing).
 * Limits default to the requests, as Ray recommends for Ray containers.
 */
export interface ContainerResources {
  /**
   * CPU request.
   * @default - none (Kueue then counts no CPU for the container; the library warns)
   */
  readonly cpu?: Quantity;
  /**
   * Memory request.
   * @default - none (Kueue then counts no memory for the container; the library warns)
   */
  readonly memory?: Quantity;
  /**
   * CPU cap of each container, above the request; set it higher than `cpu` to let bursts use idle cores.
   * @default - equal to `cpu`
   */
  readonly cpuLimit?: Quantity;
  /**
   * Memory cap of each container; the container is OOM-killed above it. Above `memory` it may use spare memory.
   * @default - equal to `memory`
   */
  readonly memoryLimit?: Quantity;
  /**
   * NVIDIA GPUs (nvidia.com/gpu, requests = limits).
   * @default 0
   */
  readonly gpus?: number;
  /**
   * Other extended resources (requests = limits).
   * @default - none
   */
  readonly extendedResources?: ExtendedResourceRequest[];
}

/** Renders Kubernetes `resources` from ContainerResources. */
export function renderResources(r: ContainerResources | undefined, where: string): ResourceRequirementsJson | undefined {
  if (!r) return undefined;
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (r.cpu) requests.cpu = r.cpu.value;
  if (r.memory) requests.memory = r.memory.value;
  const cpuLimit = r.cpuLimit ?? r.cpu;
  const memLimit = r.memoryLimit ?? r.memory;
  if (cpuLimit) limits.cpu = cpuLimit.value;
  if (memLimit) limits.memory = memLimit.value;
  if (r.gpus !== undefined && r.gpus !== 0) {
    if (!Number.isInteger(r.gpus) || r.gpus < 0) throw new Error(`${where}: resources.gpus ${r.gpus} must be a whole number >= 0. `
      + 'Fix: use e.g. gpus: 1.');
    requests['nvidia.com/gpu'] = limits['nvidia.com/gpu'] = String(r.gpus);
  }
  for (const e of r.extendedResources ?? []) {
    if (e.resource.name === 'cpu' || e.resource.name === 'memory' || (e.resource.name === 'nvidia.com/gpu' && r.gpus)) {
      throw new Error(`${where}: resources.extendedResources repeats "${e.resource.name}". Fix: set it once (cpu/memory/gpus `
        + 'have their own fields).');
    }
    requests[e.resource.name] = limits[e.resource.name] = e.quantity.value;
  }
  return {
    ...(Object.keys(requests).length ? { requests } : {}),
    ...(Object.keys(limits).length ? { limits } : {}),
  };
}
