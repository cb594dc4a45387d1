/**
 * Catalog records → wire shapes (contract `GpuType`, `CpuType`, `DataCenter`), with availability
 * levels computed from the same capacity placement uses, so a listing and a create agree (but a
 * listing is not a reservation).
 */
import type { z } from "zod";
import { compareCuda, cudaVersionSatisfies, type AvailabilityLevel, type Cloud, type CpuType, type CudaConstraint, type DataCenter, type GpuType } from "../../contract";
import type { CpuFlavorFixture, DataCenterFixture, GpuTypeFixture } from "../fixture";
import type { Capacity, Machine } from "../placement/capacity";
import type { Catalog } from "./store";

export type GpuTypeView = z.input<typeof GpuType>;
export type CpuTypeView = z.input<typeof CpuType>;
export type DataCenterView = z.input<typeof DataCenter>;

/** An availability read of the GPU catalog (`include=AVAILABILITY` and its filters). */
export interface GpuAvailabilityQuery {
  clouds: Cloud[];
  count: number;
  cuda: CudaConstraint;
  /** ISO 3166-1 alpha-2 codes; empty: every country. */
  countries: string[];
}

/** Placeable pods of `count` GPUs: the availability levels of the catalog. */
function level(units: number): AvailabilityLevel {
  if (units <= 0) return "NONE";
  if (units === 1) return "LOW";
  if (units <= 3) return "MEDIUM";
  return "HIGH";
}

function cpuLevel(vcpus: number, wanted: number): AvailabilityLevel {
  return level(Math.floor(vcpus / Math.max(wanted, 1) / 2));
}

export class CatalogViews {
  constructor(
    private readonly catalog: Catalog,
    private readonly capacity: Capacity,
  ) {}

  /**
   * Machines of a GPU type that an availability read counts: the requested clouds and, with
   * `countryCodes`, only data centers in those countries (reference OpenAPI, CountryCodesFilter).
   */
  private offeredMachines(gpuId: string, availability: GpuAvailabilityQuery): Machine[] {
    const inCountry = (m: Machine) => {
      const country = this.catalog.dataCenters.get(m.dataCenterId)?.countryCode;
      return availability.countries.length === 0 || (country !== undefined && availability.countries.includes(country));
    };
    return this.capacity.machinesWhere((m) => m.gpuTypeId === gpuId && availability.clouds.includes(m.cloud) && inCountry(m));
  }

  /** A list read with `countryCodes` leaves out GPU types with no data center in those countries. */
  listedGpu(gpu: GpuTypeFixture, availability?: GpuAvailabilityQuery): boolean {
    return !availability || availability.countries.length === 0 || this.offeredMachines(gpu.id, availability).length > 0;
  }

  private dataCenterName(id: string): string {
    return this.catalog.dataCenters.get(id)?.name ?? id;
  }

  gpu(gpu: GpuTypeFixture, availability?: GpuAvailabilityQuery): GpuTypeView {
    const { restrictedToAccounts: _restricted, ...publicFields } = gpu;
    const view: GpuTypeView = {
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
      name: this.dataCenterName(id),
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

  cpu(flavor: CpuFlavorFixture, availability?: { vcpus: number }): CpuTypeView {
    const view: CpuTypeView = { ...flavor };
    if (!availability) return view;
    const pools = this.capacity.cpuPoolsWhere((p) => p.cpuFlavorId === flavor.id);
    const total = pools.reduce((n, p) => n + p.availableVcpus, 0);
    view.availability = cpuLevel(total, availability.vcpus);
    if (pools.length > 0) {
      view.dataCenters = pools.map((p) => ({
        id: p.dataCenterId,
        name: this.dataCenterName(p.dataCenterId),
        availability: cpuLevel(p.availableVcpus, availability.vcpus),
      }));
    }
    return view;
  }

  dataCenter(dc: DataCenterFixture, include: readonly string[]): DataCenterView {
    const { countryCode: _country, ...fields } = dc;
    const view: DataCenterView = { ...fields };
    if (include.includes("GPU_AVAILABILITY")) {
      const here = this.capacity.machinesWhere((m) => m.dataCenterId === dc.id);
      const gpuIds = [...new Set(here.map((m) => m.gpuTypeId))];
      if (gpuIds.length > 0) {
        view.gpuAvailability = gpuIds.map((id) => ({
          id,
          name: this.catalog.gpuTypes.get(id)?.name ?? id,
          availability: level(here.filter((m) => m.gpuTypeId === id).reduce((n, m) => n + m.free, 0)),
        }));
      }
    }
    if (include.includes("CPU_AVAILABILITY")) {
      const pools = this.capacity.cpuPoolsWhere((p) => p.dataCenterId === dc.id);
      if (pools.length > 0) {
        view.cpuAvailability = pools.map((p) => ({
          id: p.cpuFlavorId,
          name: this.catalog.cpuFlavors.get(p.cpuFlavorId)?.name ?? p.cpuFlavorId,
          availability: cpuLevel(p.availableVcpus, 2),
        }));
      }
    }
    return view;
  }
}
