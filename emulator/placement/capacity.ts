/**
 * Capacity: the one account of what is free, behind every placement and every availability level.
 *
 * GPU capacity is a list of machines per (data center, GPU type, cloud): each has a CUDA version,
 * a GPU count, free GPUs and the host RAM/vCPUs it gives per GPU. A GPU pod is placed on ONE
 * machine that has `count` free GPUs and satisfies every filter; nothing searches other GPU types
 * (contract: creation places exactly one GPU type). A cluster's nodes are GPU pods placed
 * together in one data center, each node on one machine. CPU capacity is free vCPUs per (data
 * center, flavor). What a pod holds is a `Hold`; taking and giving it back happens only here.
 *
 * The control plane may also schedule a GPU pool's setting for later on the emulator clock
 * (`PendingChange`): it is applied, in due order, by whatever reads or uses capacity first once
 * the clock has reached it (and by the sweep), through the same code as an immediate setting.
 */
import { cudaVersionSatisfies, type Cloud, type CudaConstraint } from "../../contract";
import type { Catalog } from "../catalog/store";
import type { Clock } from "../clock";
import type { Fixture, MachineFixture } from "../fixture";
import { badRequest } from "../http";
import { hash32 } from "../ids";
import type { ResourceModule } from "../module";
import { iso } from "../time";

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

/** A (data center, GPU type, cloud) pool's setting, as `PUT /_emulator/capacity` gives it. */
export type GpuCapacityChange = {
  dataCenterId: string;
  gpuTypeId: string;
  cloud: Cloud;
  available?: number;
  machines?: MachineFixture[];
  cudaVersion?: string | null;
  ramPerGpu?: number;
  vcpuPerGpu?: number;
};

/** A GPU pool setting waiting for the emulator clock: applied once the clock reaches `dueAt` (epoch ms). */
interface PendingChange {
  /** The emulator clock at the PUT. */
  setAt: number;
  dueAt: number;
  change: GpuCapacityChange;
}

/** A pending change as the control plane shows it: the setting, with its instants in RFC 3339. */
export type PendingCapacity = GpuCapacityChange & { setAt: string; dueAt: string };

/** The state file's slice. `pending` is absent from state files written before it existed. */
export interface CapacitySlice {
  machines: Machine[];
  cpuPools: CpuPool[];
  pending?: PendingChange[];
}

/** `GET /_emulator/capacity`: what is free now, and the GPU settings still to come (in due order). */
export interface CapacityReport {
  machines: Machine[];
  cpuPools: CpuPool[];
  pending: PendingCapacity[];
}

const pendingView = (p: PendingChange): PendingCapacity => ({ ...structuredClone(p.change), setAt: iso(p.setAt), dueAt: iso(p.dueAt) });

export class Capacity implements ResourceModule {
  private machines: Machine[] = [];
  private cpuPools: CpuPool[] = [];
  /** Scheduled GPU settings, in the order they apply: by `dueAt`, then by the order they were set. */
  private pending: PendingChange[] = [];

  /** `clock`: what due scheduled settings are reckoned against when capacity is read or used. */
  constructor(
    private readonly catalog: Catalog,
    private readonly clock: Clock,
  ) {}

  reset(fixture: Fixture): void {
    this.machines = [];
    for (const pool of fixture.gpuCapacity) {
      pool.machines.forEach((m) => this.machines.push(this.machineFrom(pool, m)));
    }
    this.cpuPools = fixture.cpuCapacity.map((c) => ({ ...c }));
    this.pending = [];
  }

  snapshot(): CapacitySlice {
    return { machines: this.machines, cpuPools: this.cpuPools, pending: this.pending };
  }

  restore(slice: unknown): void {
    const s = slice as CapacitySlice;
    this.machines = s.machines;
    this.cpuPools = s.cpuPools;
    this.pending = s.pending ?? [];
  }

  /** Applies the scheduled settings the clock has reached (the background sweep, and every clock change). */
  sweep(now: number): boolean {
    return this.applyDue(now);
  }

  /**
   * Applies, in order, every scheduled setting due at `now`, through the same code as an
   * immediate one. Called first by everything that reads or uses GPU capacity, so nothing sees
   * a pool as it was before a change the clock has reached. True when one was applied.
   */
  private applyDue(now: number = this.clock.now()): boolean {
    let applied = 0;
    while (applied < this.pending.length && this.pending[applied].dueAt <= now) applied++;
    if (applied === 0) return false;
    const due = this.pending.splice(0, applied);
    // Its data center and GPU type were checked when it was set, and a reset drops it.
    for (const { change } of due) this.applyGpuCapacity(change);
    return true;
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
    this.applyDue();
    return this.machines.filter(filter);
  }

  cpuPoolsWhere(filter: (p: CpuPool) => boolean): CpuPool[] {
    return this.cpuPools.filter(filter);
  }

  // ---- placement -------------------------------------------------------------------------------

  /** First machine, in data-center preference order, that fits every filter. */
  placeGpu(request: GpuPlacementRequest): Machine | undefined {
    this.applyDue();
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
    this.applyDue();
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
      this.applyDue();
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
      this.applyDue();
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
   * Sets the free GPUs of a (data center, GPU type, cloud) pool now (after the scheduled settings
   * already due). Free GPUs fill the pool's machines in order; `machines` replaces the pool's
   * machines outright. A pool that does not exist yet is created with one machine of
   * `cudaVersion`/`ramPerGpu`/`vcpuPerGpu`.
   */
  setGpuCapacity(input: GpuCapacityChange, now: number = this.clock.now()): Machine[] {
    this.checkGpuPool(input);
    this.applyDue(now);
    return this.applyGpuCapacity(input);
  }

  /**
   * Schedules the same setting for when the emulator clock reaches `now + afterSeconds` (applied
   * then, not before; at once when that is not later than `now`). Settings already pending stay:
   * they apply in due order, two due at the same instant in the order they were set.
   */
  scheduleGpuCapacity(input: GpuCapacityChange, afterSeconds: number, now: number): PendingCapacity {
    this.checkGpuPool(input);
    const entry: PendingChange = { setAt: now, dueAt: now + Math.round(afterSeconds * 1000), change: structuredClone(input) };
    const at = this.pending.findIndex((p) => p.dueAt > entry.dueAt);
    this.pending.splice(at === -1 ? this.pending.length : at, 0, entry);
    const view = pendingView(entry);
    this.applyDue(now);
    return view;
  }

  /** The pool's machines, in order (after the scheduled settings due at `now`). */
  gpuPool(pool: { dataCenterId: string; gpuTypeId: string; cloud: Cloud }, now: number): Machine[] {
    this.applyDue(now);
    return this.machines.filter((m) => m.dataCenterId === pool.dataCenterId && m.gpuTypeId === pool.gpuTypeId && m.cloud === pool.cloud);
  }

  /** A setting names a data center and a GPU type of the catalog (400 otherwise). */
  private checkGpuPool(input: GpuCapacityChange): void {
    if (!this.catalog.dataCenters.get(input.dataCenterId)) throw badRequest(`Unknown data center "${input.dataCenterId}"`);
    if (!this.catalog.gpuTypes.get(input.gpuTypeId)) throw badRequest(`Unknown GPU type "${input.gpuTypeId}"`);
  }

  /**
   * The one code path of a GPU pool setting, immediate or scheduled. `available` sets the free
   * GPUs of the pool's machines and nothing else: pods running there keep what they hold (and
   * give it back when they stop, up to each machine's GPU count).
   */
  private applyGpuCapacity(input: GpuCapacityChange): Machine[] {
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

  /** `GET /_emulator/capacity` at `now`: the scheduled settings due by then applied first. */
  state(now: number): CapacityReport {
    this.applyDue(now);
    return structuredClone({ machines: this.machines, cpuPools: this.cpuPools, pending: this.pending.map(pendingView) });
  }
}
