/** Serverless endpoints (create and read; the Hub's deploy target). */
import { createdByAttempt, type HttpCore } from "../http";
import { CreateEndpointRequest, Endpoint, ListEndpointsResponse, createEndpointViolations, parseWire } from "../schemas";
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
      recover: async (attemptStartedAt) => {
        const endpoints = await this.list(options);
        return createdByAttempt(endpoints, request.name, attemptStartedAt);
      },
    });
  }

  async list(options: { signal?: AbortSignal } = {}) {
    const response = await this.http.request({ method: "GET", path: "/v2/serverless", schema: ListEndpointsResponse, signal: options.signal });
    return response.endpoints;
  }

  get(id: string, options: { signal?: AbortSignal } = {}) {
    return this.http.request({ method: "GET", path: `/v2/serverless/${encodeURIComponent(id)}`, schema: Endpoint, signal: options.signal });
  }
}
