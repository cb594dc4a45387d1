/** Catalog reads used to decide where a pod can go. */
import type { HttpCore } from "../http";
import { ListCpuTypesResponse, ListDataCentersResponse, ListGpuTypesResponse, ListTemplatesResponse } from "../../contract";

export class Catalog {
  constructor(private readonly http: HttpCore) {}

  /** `GET /v2/catalog/datacenters`; `includeGpuAvailability` adds per-GPU stock per data center. */
  dataCenters(options: { regions?: string; includeGpuAvailability?: boolean; signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/catalog/datacenters", ListDataCentersResponse, "dataCenters", {
      query: { regions: options.regions, include: options.includeGpuAvailability ? "GPU_AVAILABILITY" : undefined },
      signal: options.signal,
    });
  }

  /** `GET /v2/catalog/gpus`; `includeAvailability` adds pod stock and per-GPU CUDA versions. */
  gpuTypes(options: { includeAvailability?: boolean; signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/catalog/gpus", ListGpuTypesResponse, "gpus", {
      query: options.includeAvailability ? { include: "AVAILABILITY", product: "POD" } : {},
      signal: options.signal,
    });
  }

  cpuFlavors(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/catalog/cpus", ListCpuTypesResponse, "cpus", options);
  }

  templates(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/catalog/templates", ListTemplatesResponse, "templates", options);
  }
}
