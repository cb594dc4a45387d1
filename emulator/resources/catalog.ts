/**
 * The catalog (GPU types, CPU flavors, data centers) and the capacity model behind placement.
 *
 * Capacity is a list of machines per (data center, GPU type, cloud): each has a CUDA version,
 * a GPU count, free GPUs and the host RAM/vCPUs it gives per GPU. A GPU pod is placed on ONE
 * machine that has `count` free GPUs and satisfies every filter; nothing searches other GPU types
 * (contract: creation places exactly one GPU type). CPU capacity is free vCPUs per (data center,
 * flavor). Catalog availability levels are computed from the same numbers, so a listing and a
 * create agree (but a listing is not a reservation).
 */
import { Cloud, MAJOR_MINOR, compareCuda, cudaNumbers, cudaVersionSatisfies, isPowerOfTwo, type CudaConstraint } from "../../contract";
import type { CpuFlavorFixture, DataCenterFixture, Fixture, GpuTypeFixture, MachineFixture } from "../fixture";
import { badRequest, json, notFound } from "../http";
import { hash32 } from "../ids";
import type { ResourceModule } from "../module";
import { QueryReader } from "../query";
import { route, type Route } from "../router";

export interface Machine {
  id: string;
  dataCenterId: string;
  gpuTypeId: string;
  cloud: Cloud;
  cudaVersion: string | null;
  gpus: number;
  free: number;
  ramPerGpu: number;
  vcpuPerGpu: number;
}

export interface CpuPool {
  dataCenterId: string;
  cpuFlavorId: string;
  availableVcpus: number;
}

export interface GpuPlacementRequest {
  gpuTypeId: string;
  count: number;
  cloud: Cloud;
  dataCenterIds: string[];
  cuda: CudaConstraint;
  minRamPerGpu?: number;
  minVcpuPerGpu?: number;
}

type Availability = "NONE" | "LOW" | "MEDIUM" | "HIGH";

/** An availability read of the GPU catalog (`include=AVAILABILITY` and its filters). */
interface GpuAvailabilityQuery {
  clouds: Cloud[];
  count: number;
  cuda: CudaConstraint;
  /** ISO 3166-1 alpha-2 codes; empty: every country. */
  countries: string[];
}

/** Placeable pods of `count` GPUs: the availability levels of the catalog. */
function level(units: number): Availability {
  if (units <= 0) return "NONE";
  if (units === 1) return "LOW";
  if (units <= 3) return "MEDIUM";
  return "HIGH";
}

function cpuLevel(vcpus: number, wanted: number): Availability {
  return level(Math.floor(vcpus / Math.max(wanted, 1) / 2));
}

/** A stable public address per machine, so ssh and port mappings do not change between reads. */
export function machineIp(machineId: string): string {
  const h = hash32("ip", machineId);
  return `${38 + (h % 180)}.${(h >>> 8) & 255}.${(h >>> 16) & 255}.${1 + ((h >>> 24) % 250)}`;
}

interface CatalogSlice {
  machines: Machine[];
  cpuPools: CpuPool[];
}

export class Catalog implements ResourceModule {
  readonly name = "catalog";
  private gpuTypes = new Map<string, GpuTypeFixture>();
  private cpuFlavors = new Map<string, CpuFlavorFixture>();
  private dataCenters = new Map<string, DataCenterFixture>();
  private machines: Machine[] = [];
  private cpuPools: CpuPool[] = [];

  reset(fixture: Fixture): void {
    this.loadStatic(fixture);
    this.machines = [];
    for (const pool of fixture.gpuCapacity) {
      pool.machines.forEach((m) => this.machines.push(this.machineFrom(pool, m)));
    }
    this.cpuPools = fixture.cpuCapacity.map((c) => ({ ...c }));
  }

  snapshot(): CatalogSlice {
    return { machines: this.machines, cpuPools: this.cpuPools };
  }

  restore(slice: unknown, fixture: Fixture): void {
    this.loadStatic(fixture);
    const s = slice as CatalogSlice;
    this.machines = s.machines;
    this.cpuPools = s.cpuPools;
  }

  private loadStatic(fixture: Fixture): void {
    this.gpuTypes = new Map(fixture.gpuTypes.map((g) => [g.id, g]));
    this.cpuFlavors = new Map(fixture.cpuFlavors.map((c) => [c.id, c]));
    this.dataCenters = new Map(fixture.dataCenters.map((d) => [d.id, d]));
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

  gpuType(id: string): GpuTypeFixture | undefined {
    return this.gpuTypes.get(id);
  }

  cpuFlavor(id: string): CpuFlavorFixture | undefined {
    return this.cpuFlavors.get(id);
  }

  dataCenter(id: string): DataCenterFixture | undefined {
    return this.dataCenters.get(id);
  }

  allDataCenters(): DataCenterFixture[] {
    return [...this.dataCenters.values()];
  }

  gpuTypeIds(): string[] {
    return [...this.gpuTypes.keys()];
  }

  gpuPools(): string[] {
    return [...new Set([...this.gpuTypes.values()].map((g) => g.pool).filter((p): p is string => p !== null))];
  }

  machine(id: string): Machine | undefined {
    return this.machines.find((m) => m.id === id);
  }

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

  /** Takes GPUs on a machine; false when they are no longer free (a start after a stop). */
  reserveGpus(machineId: string, count: number): boolean {
    const m = this.machine(machineId);
    if (!m || m.free < count) return false;
    m.free -= count;
    return true;
  }

  releaseGpus(machineId: string, count: number): void {
    const m = this.machine(machineId);
    if (m) m.free = Math.min(m.gpus, m.free + count);
  }

  placeCpu(flavorId: string, vcpus: number, dataCenterIds: string[]): CpuPool | undefined {
    for (const dataCenterId of dataCenterIds) {
      const pool = this.cpuPools.find((p) => p.dataCenterId === dataCenterId && p.cpuFlavorId === flavorId);
      if (pool && pool.availableVcpus >= vcpus) return pool;
    }
    return undefined;
  }

  reserveCpu(dataCenterId: string, flavorId: string, vcpus: number): boolean {
    const pool = this.cpuPools.find((p) => p.dataCenterId === dataCenterId && p.cpuFlavorId === flavorId);
    if (!pool || pool.availableVcpus < vcpus) return false;
    pool.availableVcpus -= vcpus;
    return true;
  }

  releaseCpu(dataCenterId: string, flavorId: string, vcpus: number): void {
    const pool = this.cpuPools.find((p) => p.dataCenterId === dataCenterId && p.cpuFlavorId === flavorId);
    if (pool) pool.availableVcpus += vcpus;
  }

  /** Does any CPU pool of the data center have room for a sandbox of this size? */
  hasCpuRoom(dataCenterId: string, vcpus: number): boolean {
    return this.cpuPools.some((p) => p.dataCenterId === dataCenterId && p.availableVcpus >= vcpus);
  }

  /**
   * Control plane: sets the free GPUs of a (data center, GPU type, cloud) pool. Free GPUs fill the
   * pool's machines in order; `machines` replaces the pool's machines outright. A pool that does
   * not exist yet is created with one machine of `cudaVersion`/`ramPerGpu`/`vcpuPerGpu`.
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
    if (!this.dataCenters.has(input.dataCenterId)) throw badRequest(`Unknown data center "${input.dataCenterId}"`);
    if (!this.gpuTypes.has(input.gpuTypeId)) throw badRequest(`Unknown GPU type "${input.gpuTypeId}"`);
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
    if (!this.dataCenters.has(input.dataCenterId)) throw badRequest(`Unknown data center "${input.dataCenterId}"`);
    if (!this.cpuFlavors.has(input.cpuFlavorId)) throw badRequest(`Unknown CPU flavor "${input.cpuFlavorId}"`);
    let pool = this.cpuPools.find((p) => p.dataCenterId === input.dataCenterId && p.cpuFlavorId === input.cpuFlavorId);
    if (!pool) {
      pool = { dataCenterId: input.dataCenterId, cpuFlavorId: input.cpuFlavorId, availableVcpus: 0 };
      this.cpuPools.push(pool);
    }
    pool.availableVcpus = input.available;
    return pool;
  }

  capacityState(): CatalogSlice {
    return structuredClone(this.snapshot());
  }

  // ---- listings ------------------------------------------------------------------------------

  /**
   * Machines of a GPU type that an availability read counts: the requested clouds and, with
   * `countryCodes`, only data centers in those countries (reference OpenAPI, CountryCodesFilter).
   */
  private offeredMachines(gpuId: string, availability: GpuAvailabilityQuery): Machine[] {
    const inCountry = (m: Machine) => {
      const country = this.dataCenters.get(m.dataCenterId)?.countryCode;
      return availability.countries.length === 0 || (country !== undefined && availability.countries.includes(country));
    };
    return this.machines.filter((m) => m.gpuTypeId === gpuId && availability.clouds.includes(m.cloud) && inCountry(m));
  }

  /** A list read with `countryCodes` leaves out GPU types with no data center in those countries. */
  private listedGpu(gpu: GpuTypeFixture, availability?: GpuAvailabilityQuery): boolean {
    return !availability || availability.countries.length === 0 || this.offeredMachines(gpu.id, availability).length > 0;
  }

  private gpuView(gpu: GpuTypeFixture, availability?: GpuAvailabilityQuery) {
    const { restrictedToAccounts: _restricted, ...publicFields } = gpu;
    const view: Record<string, unknown> = {
      ...publicFields,
      secure: gpu.maxCount.secure > 0,
      community: gpu.maxCount.community > 0,
    };
    if (!availability) return view;
    const offered = this.offeredMachines(gpu.id, availability);
    const fits = (m: Machine) => cudaVersionSatisfies(m.cudaVersion, availability.cuda);
    const units = (list: Machine[]) => list.filter(fits).reduce((n, m) => n + Math.floor(m.free / availability.count), 0);
    view.availability = level(units(offered));
    const dataCenters = [...new Set(offered.map((m) => m.dataCenterId))].map((id) => ({
      id,
      name: this.dataCenters.get(id)?.name ?? id,
      availability: level(units(offered.filter((m) => m.dataCenterId === id))),
    }));
    if (dataCenters.length > 0) view.dataCenters = dataCenters;
    const versions = [...new Set(offered.map((m) => m.cudaVersion).filter((v): v is string => v !== null))]
      .filter((v) => cudaVersionSatisfies(v, availability.cuda))
      .sort((a, b) => compareCuda(b, a));
    view.cudaVersions = versions.map((version) => ({
      version,
      available: offered.some((m) => m.cudaVersion === version && m.free >= availability.count),
    }));
    return view;
  }

  /** `include=AVAILABILITY` needs `product`, and the availability filters need `include` (400 either way). */
  private gpuQuery(query: URLSearchParams): GpuAvailabilityQuery | undefined {
    const q = new QueryReader(query);
    const include = q.enumList("include", ["AVAILABILITY"] as const);
    const product = q.enumList("product", ["POD", "CLUSTER", "SERVERLESS"] as const);
    const count = q.integer("count", 1) ?? 1;
    const cloud = q.enumValue("cloud", Cloud.options);
    const countries = q.list("countryCodes");
    countries.forEach((c) => /^[A-Z]{2}$/.test(c) || q.fail("countryCodes", `"${c}" must be an upper-case ISO 3166-1 alpha-2 code`));
    const cudaVersions = q.list("cudaVersions");
    cudaVersions.forEach((v) => MAJOR_MINOR.test(v) || q.fail("cudaVersions", `"${v}" must be a major.minor version`));
    const minCuda = q.string("minCudaVersion");
    if (minCuda !== undefined && cudaNumbers(minCuda) === null) q.fail("minCudaVersion", "must be major or major.minor");
    q.done();
    const wantsAvailability = include.length > 0;
    if (wantsAvailability && product.length === 0) throw badRequest("include=AVAILABILITY requires product (POD, CLUSTER or SERVERLESS)");
    if (!wantsAvailability) {
      const stray = ["product", "count", "cloud", "countryCodes", "cudaVersions", "minCudaVersion"].filter((p) => query.has(p));
      if (stray.length > 0) throw badRequest(`${stray.join(", ")} ${stray.length > 1 ? "are" : "is"} valid only with include=AVAILABILITY`);
      return undefined;
    }
    if (cudaVersions.length > 0 && minCuda !== undefined) throw badRequest("cudaVersions and minCudaVersion are mutually exclusive");
    return { clouds: [cloud ?? "SECURE"] as Cloud[], count, cuda: { allowed: cudaVersions, min: minCuda }, countries };
  }

  private cpuView(flavor: CpuFlavorFixture, availability?: { vcpus: number }) {
    const view: Record<string, unknown> = { ...flavor };
    if (!availability) return view;
    const pools = this.cpuPools.filter((p) => p.cpuFlavorId === flavor.id);
    const total = pools.reduce((n, p) => n + p.availableVcpus, 0);
    view.availability = cpuLevel(total, availability.vcpus);
    if (pools.length > 0) {
      view.dataCenters = pools.map((p) => ({
        id: p.dataCenterId,
        name: this.dataCenters.get(p.dataCenterId)?.name ?? p.dataCenterId,
        availability: cpuLevel(p.availableVcpus, availability.vcpus),
      }));
    }
    return view;
  }

  private cpuQuery(query: URLSearchParams) {
    const q = new QueryReader(query);
    const include = q.enumList("include", ["AVAILABILITY"] as const);
    const product = q.enumList("product", ["POD", "SERVERLESS"] as const);
    const vcpus = q.integer("vcpuCount", 2) ?? 2;
    if (!isPowerOfTwo(vcpus)) q.fail("vcpuCount", "must be a power of two");
    q.done();
    if (include.length > 0 && product.length === 0) throw badRequest("include=AVAILABILITY requires product (POD or SERVERLESS)");
    if (include.length === 0) {
      const stray = ["product", "vcpuCount"].filter((p) => query.has(p));
      if (stray.length > 0) throw badRequest(`${stray.join(", ")} valid only with include=AVAILABILITY`);
      return undefined;
    }
    return { vcpus };
  }

  private dataCenterView(dc: DataCenterFixture, include: string[]) {
    const { countryCode: _country, ...view } = dc as DataCenterFixture & Record<string, unknown>;
    const out: Record<string, unknown> = { ...view };
    if (include.includes("GPU_AVAILABILITY")) {
      const here = this.machines.filter((m) => m.dataCenterId === dc.id);
      const gpuIds = [...new Set(here.map((m) => m.gpuTypeId))];
      if (gpuIds.length > 0) {
        out.gpuAvailability = gpuIds.map((id) => ({
          id,
          name: this.gpuTypes.get(id)?.name ?? id,
          availability: level(here.filter((m) => m.gpuTypeId === id).reduce((n, m) => n + m.free, 0)),
        }));
      }
    }
    if (include.includes("CPU_AVAILABILITY")) {
      const pools = this.cpuPools.filter((p) => p.dataCenterId === dc.id);
      if (pools.length > 0) {
        out.cpuAvailability = pools.map((p) => ({
          id: p.cpuFlavorId,
          name: this.cpuFlavors.get(p.cpuFlavorId)?.name ?? p.cpuFlavorId,
          availability: cpuLevel(p.availableVcpus, 2),
        }));
      }
    }
    return out;
  }

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/catalog/gpus",
        family: "catalog",
        handle: (op) => {
          const availability = this.gpuQuery(op.query);
          const listed = [...this.gpuTypes.values()].filter((g) => this.listedGpu(g, availability));
          return json(200, { gpus: listed.map((g) => this.gpuView(g, availability)) });
        },
      }),
      route({
        method: "GET",
        path: "/v2/catalog/gpus/:id",
        family: "catalog",
        handle: (op) => {
          const availability = this.gpuQuery(op.query);
          const gpu = this.gpuTypes.get(op.params.id);
          if (!gpu) throw notFound("GPU type", op.params.id);
          return json(200, this.gpuView(gpu, availability));
        },
      }),
      route({
        method: "GET",
        path: "/v2/catalog/cpus",
        family: "catalog",
        handle: (op) => {
          const availability = this.cpuQuery(op.query);
          return json(200, { cpus: [...this.cpuFlavors.values()].map((c) => this.cpuView(c, availability)) });
        },
      }),
      route({
        method: "GET",
        path: "/v2/catalog/cpus/:id",
        family: "catalog",
        handle: (op) => {
          const availability = this.cpuQuery(op.query);
          const flavor = this.cpuFlavors.get(op.params.id);
          if (!flavor) throw notFound("CPU flavor", op.params.id);
          return json(200, this.cpuView(flavor, availability));
        },
      }),
      route({
        method: "GET",
        path: "/v2/catalog/datacenters",
        family: "catalog",
        handle: (op) => {
          const q = new QueryReader(op.query);
          const include = q.enumList("include", ["GPU_AVAILABILITY", "CPU_AVAILABILITY"] as const);
          const regions = q.enumList("regions", [
            "NORTH_AMERICA", "SOUTH_AMERICA", "EUROPE", "ASIA", "MIDDLE_EAST", "AFRICA", "OCEANIA", "ANTARCTICA", "UNKNOWN",
          ] as const);
          const volumeTypes = q.enumList("networkVolumeTypes", ["STANDARD", "HIGH_PERFORMANCE"] as const);
          const compliance = q.list("compliance");
          const globalNetwork = q.boolean("globalNetwork");
          q.done();
          // Values within regions are OR-ed; volume types and compliance are AND-ed; families AND-ed.
          const dataCenters = this.allDataCenters().filter(
            (dc) =>
              (regions.length === 0 || regions.includes(dc.region)) &&
              volumeTypes.every((t) => dc.networkVolumeTypes.includes(t)) &&
              compliance.every((c) => dc.compliance.includes(c)) &&
              (globalNetwork === undefined || dc.globalNetwork === globalNetwork),
          );
          return json(200, { dataCenters: dataCenters.map((dc) => this.dataCenterView(dc, include)) });
        },
      }),
      route({
        method: "GET",
        path: "/v2/catalog/datacenters/:id",
        family: "catalog",
        handle: (op) => {
          const q = new QueryReader(op.query);
          const include = q.enumList("include", ["GPU_AVAILABILITY", "CPU_AVAILABILITY"] as const);
          q.done();
          const dc = this.dataCenters.get(op.params.id);
          if (!dc) throw notFound("data center", op.params.id);
          return json(200, this.dataCenterView(dc, include));
        },
      }),
    ];
  }
}
