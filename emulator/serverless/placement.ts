/**
 * Where an endpoint's workers run, as their answer names it: the first GPU type of its pools it
 * does not exclude (a CPU endpoint's workers have none), in its first preferred data center,
 * else the first that has machines of that type (or CPU pools of its first flavor), else the
 * catalog's first. Read from the world at each answer; nothing is held (workers take no jobs).
 */
import type { Catalog } from "../catalog/store";
import type { Capacity } from "../placement/capacity";

/** What placing an endpoint's workers reads: the GPU types of its pools, the machines and CPU pools there are. */
export interface WorkerPlacementWorld {
  readonly catalog: Catalog;
  readonly capacity: Capacity;
}

export interface WorkerPlacement {
  gpuTypeId: string | null;
  dataCenterId: string | null;
}

/** What placing reads of an endpoint's settings (store.ts's `EndpointSettings` has them). */
export interface PlacedEndpoint {
  gpu: { pools: string[]; excludedTypes: string[] } | null;
  cpu: Array<{ id: string }> | null;
  dataCenterIds: string[];
}

export function workerPlacement(world: WorkerPlacementWorld, endpoint: PlacedEndpoint): WorkerPlacement {
  const gpu = endpoint.gpu;
  const gpuTypeId = gpu ? (gpu.pools.flatMap((pool) => world.catalog.gpuTypesOfPool(pool)).find((t) => !gpu.excludedTypes.includes(t)) ?? null) : null;
  const flavorId = endpoint.cpu?.[0]?.id;
  const where =
    endpoint.dataCenterIds[0] ??
    (gpuTypeId !== null
      ? world.capacity.machinesWhere((m) => m.gpuTypeId === gpuTypeId)[0]?.dataCenterId
      : world.capacity.cpuPoolsWhere((p) => p.cpuFlavorId === flavorId)[0]?.dataCenterId);
  return { gpuTypeId, dataCenterId: where ?? world.catalog.dataCenters.all()[0]?.id ?? null };
}
