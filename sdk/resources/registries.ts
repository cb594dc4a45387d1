/** Container registry credentials: create, read, delete (there is no update). */
import { createNamedOnce, type HttpCore } from "../http";
import { ListRegistriesResponse, Registry, type CreateRegistryRequest, type SetAside } from "../../contract";

export class Registries {
  constructor(private readonly http: HttpCore) {}

  /** The username and password are sent once and never answered (write-only). */
  create(request: CreateRegistryRequest, options: { signal?: AbortSignal; uniqueName?: boolean } = {}) {
    return createNamedOnce(this.http, this, { path: "/v2/registries", body: request, schema: Registry, signal: options.signal, uniqueName: options.uniqueName ?? false });
  }

  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/registries/${encodeURIComponent(id)}`, schema: Registry, signal: options.signal });
  }

  list(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/registries", ListRegistriesResponse, "registries", options);
  }

  async page(options: { signal?: AbortSignal } = {}): Promise<{ items: Registry[]; setAside: SetAside[] }> {
    const response = await this.http.request({ method: "GET", path: "/v2/registries", schema: ListRegistriesResponse, signal: options.signal });
    return { items: response.registries, setAside: response.setAside };
  }

  async delete(id: string, options: { signal?: AbortSignal } = {}) {
    await this.http.request({ method: "DELETE", path: `/v2/registries/${encodeURIComponent(id)}`, signal: options.signal });
  }
}
