/** The account's own templates: create, read, PATCH, delete (the public ones are in the catalog). */
import { createNamedOnce, type HttpCore } from "../http";
import { ListTemplatesResponse, Template, type CreateTemplateRequest, type SetAside, type UpdateTemplateRequest } from "../../contract";

export class Templates {
  constructor(private readonly http: HttpCore) {}

  create(request: CreateTemplateRequest, options: { signal?: AbortSignal; uniqueName?: boolean } = {}) {
    return createNamedOnce(this.http, this, { path: "/v2/templates", body: request, schema: Template, signal: options.signal, uniqueName: options.uniqueName ?? false });
  }

  /** An own or a public template. */
  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/templates/${encodeURIComponent(id)}`, schema: Template, signal: options.signal });
  }

  list(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/templates", ListTemplatesResponse, "templates", options);
  }

  async page(options: { signal?: AbortSignal } = {}): Promise<{ items: Template[]; setAside: SetAside[] }> {
    const response = await this.http.request({ method: "GET", path: "/v2/templates", schema: ListTemplatesResponse, signal: options.signal });
    return { items: response.templates, setAside: response.setAside };
  }

  /** Only the members sent change; `allowedCudaVersions: []` clears the constraint. Pods made from it keep what they had. */
  update(id: string, request: UpdateTemplateRequest, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "PATCH", path: `/v2/templates/${encodeURIComponent(id)}`, body: request, schema: Template, signal: options.signal });
  }

  async delete(id: string, options: { signal?: AbortSignal } = {}) {
    await this.http.request({ method: "DELETE", path: `/v2/templates/${encodeURIComponent(id)}`, signal: options.signal });
  }
}
