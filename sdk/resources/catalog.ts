/** Catalog reads used to decide where a pod can go. */
import type { HttpCore } from "../http";
import { ListCpuTypesResponse, ListDataCentersResponse, ListGpuTypesResponse, ListTemplatesResponse } from "../../contract";

export class Catalog {
  constructor(private readonly http: HttpCore) {}

  /** `GET /v2/catalog/datacenters`; `includeGpuAvailability` adds per-GPU stock per data center. */
  async dataCenters(options: { regions?: string; includeGpuAvailability?: boolean; signal?: AbortSignal } = {}) {
    const response = await this.http.request({
      method: "GET",
      path: "/v2/catalog/datacenters",
      query: { regions: options.regions, include: options.includeGpuAvailability ? "GPU_AVAILABILITY" : undefined },
      schema: ListDataCentersResponse,
      signal: options.signal,
    });
    return response.dataCenters;
  }

  /** `GET /v2/catalog/gpus`; `includeAvailability` adds pod stock and per-GPU CUDA versions. */
  async gpuTypes(options: { includeAvailability?: boolean; signal?: AbortSignal } = {}) {
    const response = await this.http.request({
      method: "GET",
      path: "/v2/catalog/gpus",
      query: options.includeAvailability ? { include: "AVAILABILITY", product: "POD" } : {},
      schema: ListGpuTypesResponse,
      signal: options.signal,
    });
    return response.gpus;
  }

  async cpuFlavors(options: { signal?: AbortSignal } = {}) {
    const response = await this.http.request({ method: "GET", path: "/v2/catalog/cpus", schema: ListCpuTypesResponse, signal: options.signal });
    return response.cpus;
  }

  async templates(options: { signal?: AbortSignal } = {}) {
    const response = await this.http.request({
      method: "GET",
      path: "/v2/catalog/templates",
      schema: ListTemplatesResponse,
      signal: options.signal,
    });
    return response.templates;
  }
}
