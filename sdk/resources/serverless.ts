/** Serverless endpoints (create and read; the Hub's deploy target). */
import { createdByAttemptIn, type HttpCore } from "../http";
import { CreateEndpointRequest, Endpoint, ListEndpointsResponse, createEndpointViolations, parseWire } from "../../contract";
import { assertValid } from "../validate";

export class Serverless {
  constructor(private readonly http: HttpCore) {}

  async create(request: CreateEndpointRequest, options: { signal?: AbortSignal } = {}) {
    const parsed = parseWire(CreateEndpointRequest, request);
    assertValid("serverless endpoint create request", request, [...(parsed.ok ? [] : parsed.violations), ...createEndpointViolations(request)]);
    return this.http.request({
      method: "POST",
      path: "/v2/serverless",
      body: request,
      schema: Endpoint,
      signal: options.signal,
      readBack: (id) => this.get(id, options),
      recover: async (attemptStartedAt) => {
        const response = await this.http.request({ method: "GET", path: "/v2/serverless", schema: ListEndpointsResponse, signal: options.signal });
        const page = { items: response.endpoints, setAside: response.setAside };
        return createdByAttemptIn(page, request.name, attemptStartedAt, { method: "GET", path: "/v2/serverless" });
      },
    });
  }

  /** Every endpoint the SDK can read; one it cannot read does not hide the others. */
  async list(options: { signal?: AbortSignal } = {}) {
    const response = await this.http.request({ method: "GET", path: "/v2/serverless", schema: ListEndpointsResponse, signal: options.signal });
    return response.endpoints;
  }

  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/serverless/${encodeURIComponent(id)}`, schema: Endpoint, signal: options.signal });
  }
}
