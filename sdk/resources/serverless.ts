/** Serverless endpoints (create and read; the Hub's deploy target). */
import { createOnce, type HttpCore } from "../http";
import { CreateEndpointRequest, Endpoint, ListEndpointWorkersResponse, ListEndpointsResponse, UpdateEndpointRequest, createEndpointViolations, endpointCrossFieldViolations, parseWire } from "../../contract";
import { assertValid } from "../validate";

export class Serverless {
  constructor(private readonly http: HttpCore) {}

  async create(request: CreateEndpointRequest, options: { signal?: AbortSignal } = {}) {
    const parsed = parseWire(CreateEndpointRequest, request);
    assertValid("serverless endpoint create request", request, [
      ...(parsed.ok ? [] : parsed.violations),
      ...createEndpointViolations(request),
      ...(parsed.ok ? endpointCrossFieldViolations(request) : []),
    ]);
    return createOnce(this.http, this, { path: "/v2/serverless", body: request, schema: Endpoint, signal: options.signal });
  }

  /** The list with the endpoints it could not read set aside (id, name and violations of each). */
  async page(options: { signal?: AbortSignal } = {}) {
    const response = await this.http.request({ method: "GET", path: "/v2/serverless", schema: ListEndpointsResponse, signal: options.signal });
    return { items: response.endpoints, setAside: response.setAside };
  }

  /** Every endpoint the SDK can read; one it cannot read does not hide the others. */
  list(options: { signal?: AbortSignal } = {}) {
    return this.http.getList("/v2/serverless", ListEndpointsResponse, "endpoints", options);
  }

  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/serverless/${encodeURIComponent(id)}`, schema: Endpoint, signal: options.signal });
  }

  /** Only the members sent change; `type` and the compute family (gpu or cpu) never do. */
  update(id: string, request: UpdateEndpointRequest, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "PATCH", path: `/v2/serverless/${encodeURIComponent(id)}`, body: request, schema: Endpoint, signal: options.signal });
  }

  /** The endpoint's active workers (scaled-down ones are not listed), with counts by status. */
  workers(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/serverless/${encodeURIComponent(id)}/workers`, schema: ListEndpointWorkersResponse, signal: options.signal });
  }

  async delete(id: string, options: { signal?: AbortSignal } = {}) {
    await this.http.request({ method: "DELETE", path: `/v2/serverless/${encodeURIComponent(id)}`, signal: options.signal });
  }
}
