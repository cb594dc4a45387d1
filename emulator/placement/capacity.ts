/**
 * Capacity: the one account of what is free, behind every placement and every availability level.
 *
 * GPU capacity is a list of machines per (data center, GPU type, cloud): each has a CUDA version,
 * a GPU count, free GPUs and the host RAM/vCPUs it gives per GPU. A GPU pod is placed on ONE
 * machine that has `count` free GPUs and satisfies every filter; nothing searches other GPU types
 * (contract: creation places exactly one GPU type). A cluster's nodes are GPU pods placed
 * together in one data center, each node on one machine. CPU capacity is free vCPUs per (data
 * center, flavor). What a pod holds is a `Hold`; taking and giving it back happens only here.
 */
import { cudaVersionSatisfies, type Cloud, type CudaConstraint } from "../../contract";
import type { Catalog } from "../catalog/store";
import type { Fixture, MachineFixture } from "../fixture";
import { badRequest } from "../http";
import { hash32 } from "../ids";
import type { ResourceModule } from "../module";

/** A type alias, not an interface: the control plane's answers are plain JSON records. */
export type Machine = {
  id: string;
  dataCenterId: string;
  gpuTypeId: string;
  cloud: Cloud;
  cudaVersion: string | null;
  gpus: number;
  free: number;
  ramPerGpu: number;
  vcpuPerGpu: number;
};

export type CpuPool = {
  dataCenterId: string;
  cpuFlavorId: string;
  availableVcpus: number;
};

export interface GpuPlacementRequest {
  gpuTypeId: string;
  count: number;
  cloud: Cloud;
  dataCenterIds: string[];
  cuda: CudaConstraint;
  minRamPerGpu?: number;
  minVcpuPerGpu?: number;
}

/** Nodes of a cluster: `nodes` nodes of `gpusPerNode` GPUs each, in one data center. */
export interface NodesRequest {
  gpuTypeId: string;
  gpusPerNode: number;
  cloud: Cloud;
  dataCenterId: string;
  nodes: number;
}

/** What a running pod holds: GPUs on its machine, or vCPUs of a (data center, flavor) pool. */
export type Hold =
  | { kind: "gpu"; machineId: string; gpus: number }
  | { kind: "cpu"; dataCenterId: string; flavorId: string; vcpus: number };

export interface CapacitySlice {
  machines: Machine[];
  cpuPools: CpuPool[];
}

export class Capacity implements ResourceModule {
  private machines: Machine[] = [];
  private cpuPools: CpuPool[] = [];

  constructor(private readonly catalog: Catalog) {}

  reset(fixture: Fixture): void {
    this.machines = [];
    for (const pool of fixture.gpuCapacity) {
      pool.machines.forEach((m) => this.machines.push(this.machineFrom(pool, m)));
    }
    this.cpuPools = fixture.cpuCapacity.map((c) => ({ ...c }));
  }

  snapshot(): CapacitySlice {
    return { machines: this.machines, cpuPools: this.cpuPools };
  }

  restore(slice: unknown): void {
    const s = slice as CapacitySlice;
    this.machines = s.machines;
    this.cpuPools = s.cpuPools;
  }

  private machineFrom(pool: { dataCenterId: string; gpuTypeId: string; cloud: Cloud }, m: MachineFixture): Machine {
    const index = this.machines.filter((x) => x.dataCenterId === pool.dataCenterId).length + 1;
    const id = m.id ?? `${pool.dataCenterId.toLowerCase()}-${(hash32(pool.gpuTypeId, pool.cloud) % 0xfff).toString(16)}-${index}`;
    return {
      id,
      dataCenterId: pool.dataCenterId,
      gpuTypeId: pool.gpuTypeId,
      cloud: pool.cloud,
      cudaVersion: m.cudaVersion,
      gpus: m.gpus,
      free: Math.min(m.free ?? m.gpus, m.gpus),
      ramPerGpu: m.ramPerGpu,
      vcpuPerGpu: m.vcpuPerGpu,
    };
  }

  // ---- reading (catalog availability) ----------------------------------------------------------

  /** Machines matching the filter, in fixture order. */
  machinesWhere(filter: (m: Machine) => boolean): Machine[] {
    return this.machines.filter(filter);
  }

  cpuPoolsWhere(filter: (p: CpuPool) => boolean): CpuPool[] {
    return this.cpuPools.filter(filter);
  }

  // ---- placement -------------------------------------------------------------------------------

  /** First machine, in data-center preference order, that fits every filter. */
  placeGpu(request: GpuPlacementRequest): Machine | undefined {
    for (const dataCenterId of request.dataCenterIds) {
      const fit = this.machines.find(
        (m) =>
          m.dataCenterId === dataCenterId &&
          m.gpuTypeId === request.gpuTypeId &&
          m.cloud === request.cloud &&
          m.free >= request.count &&
          cudaVersionSatisfies(m.cudaVersion, request.cuda) &&
          (request.minRamPerGpu === undefined || m.ramPerGpu >= request.minRamPerGpu) &&
          (request.minVcpuPerGpu === undefined || m.vcpuPerGpu >= request.minVcpuPerGpu),
      );
      if (fit) return fit;
    }
    return undefined;
  }

  /**
   * The machines the nodes would go to in the data center, one entry per node (a machine with
   * room for several nodes appears once per node), in fixture order: as many nodes as fit, at
   * most `nodes`. Takes nothing (the pods placed there reserve their GPUs), so a caller that
   * gets fewer than it asked for leaves capacity as it was.
   */
  fitNodes(request: NodesRequest): Machine[] {
    const out: Machine[] = [];
    for (const m of this.machines) {
      if (out.length >= request.nodes) break;
      if (m.dataCenterId !== request.dataCenterId || m.gpuTypeId !== request.gpuTypeId || m.cloud !== request.cloud) continue;
      const room = Math.min(Math.floor(m.free / request.gpusPerNode), request.nodes - out.length);
      for (let i = 0; i < room; i++) out.push(m);
    }
    return out;
  }

  /** First pool of the flavor, in data-center preference order, with `vcpus` free. */
  placeCpu(flavorId: string, vcpus: number, dataCenterIds: string[]): CpuPool | undefined {
    for (const dataCenterId of dataCenterIds) {
      const pool = this.cpuPool(dataCenterId, flavorId);
      if (pool && pool.availableVcpus >= vcpus) return pool;
    }
    return undefined;
  }

  /** Does any CPU pool of the data center have room for a sandbox of this size? (Sandboxes reserve nothing.) */
  hasCpuRoom(dataCenterId: string, vcpus: number): boolean {
    return this.cpuPools.some((p) => p.dataCenterId === dataCenterId && p.availableVcpus >= vcpus);
  }

  /** Takes what the hold names; false when it is no longer free (a start after a stop). */
  reserve(hold: Hold): boolean {
    if (hold.kind === "gpu") {
      const m = this.machine(hold.machineId);
      if (!m || m.free < hold.gpus) return false;
      m.free -= hold.gpus;
      return true;
    }
    const pool = this.cpuPool(hold.dataCenterId, hold.flavorId);
    if (!pool || pool.availableVcpus < hold.vcpus) return false;
    pool.availableVcpus -= hold.vcpus;
    return true;
  }

  release(hold: Hold): void {
    if (hold.kind === "gpu") {
      const m = this.machine(hold.machineId);
      if (m) m.free = Math.min(m.gpus, m.free + hold.gpus);
      return;
    }
    const pool = this.cpuPool(hold.dataCenterId, hold.flavorId);
    if (pool) pool.availableVcpus += hold.vcpus;
  }

  private machine(id: string): Machine | undefined {
    return this.machines.find((m) => m.id === id);
  }

  private cpuPool(dataCenterId: string, flavorId: string): CpuPool | undefined {
    return this.cpuPools.find((p) => p.dataCenterId === dataCenterId && p.cpuFlavorId === flavorId);
  }

  // ---- control plane ---------------------------------------------------------------------------

  /**
   * Sets the free GPUs of a (data center, GPU type, cloud) pool. Free GPUs fill the pool's
   * machines in order; `machines` replaces the pool's machines outright. A pool that does not
   * exist yet is created with one machine of `cudaVersion`/`ramPerGpu`/`vcpuPerGpu`.
   */
  setGpuCapacity(input: {
    dataCenterId: string;
    gpuTypeId: string;
    cloud: Cloud;
    available?: number;
    machines?: MachineFixture[];
    cudaVersion?: string | null;
    ramPerGpu?: number;
    vcpuPerGpu?: number;
  }): Machine[] {
    if (!this.catalog.dataCenters.get(input.dataCenterId)) throw badRequest(`Unknown data center "${input.dataCenterId}"`);
    if (!this.catalog.gpuTypes.get(input.gpuTypeId)) throw badRequest(`Unknown GPU type "${input.gpuTypeId}"`);
    const inPool = (m: Machine) =>
      m.dataCenterId === input.dataCenterId && m.gpuTypeId === input.gpuTypeId && m.cloud === input.cloud;
    if (input.machines) {
      this.machines = this.machines.filter((m) => !inPool(m));
      for (const m of input.machines) this.machines.push(this.machineFrom(input, m));
    }
    let pool = this.machines.filter(inPool);
    if (input.available !== undefined) {
      let left = input.available;
      const total = pool.reduce((sum, m) => sum + m.gpus, 0);
      if (left > total) {
        const template = pool[0];
        this.machines.push(
          this.machineFrom(input, {
            cudaVersion: input.cudaVersion !== undefined ? input.cudaVersion : (template?.cudaVersion ?? "12.4"),
            gpus: left - total,
            ramPerGpu: input.ramPerGpu ?? template?.ramPerGpu ?? 62,
            vcpuPerGpu: input.vcpuPerGpu ?? template?.vcpuPerGpu ?? 8,
          }),
        );
        pool = this.machines.filter(inPool);
      }
      for (const m of pool) {
        m.free = Math.min(m.gpus, left);
        left -= m.free;
      }
    }
    return pool;
  }

  setCpuCapacity(input: { dataCenterId: string; cpuFlavorId: string; available: number }): CpuPool {
    if (!this.catalog.dataCenters.get(input.dataCenterId)) throw badRequest(`Unknown data center "${input.dataCenterId}"`);
    if (!this.catalog.cpuFlavors.get(input.cpuFlavorId)) throw badRequest(`Unknown CPU flavor "${input.cpuFlavorId}"`);
    let pool = this.cpuPool(input.dataCenterId, input.cpuFlavorId);
    if (!pool) {
      pool = { dataCenterId: input.dataCenterId, cpuFlavorId: input.cpuFlavorId, availableVcpus: 0 };
      this.cpuPools.push(pool);
    }
    pool.availableVcpus = input.available;
    return pool;
  }

  state(): CapacitySlice {
    return structuredClone(this.snapshot());
  }
}
