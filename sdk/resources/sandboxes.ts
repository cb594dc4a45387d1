/** Sandboxes: create (duplicate-safe), get, list, idle timeout, extend, delete, logs. */
import { createOnce, type HttpCore } from "../http";
import { streamLogs, type LogStreamOptions } from "../logs";
import { ListSandboxesResponse, SANDBOX_ENDED_STATES, Sandbox, type CreateSandboxRequest, type SandboxState, type SetAside } from "../../contract";
import { assertValid, createSandboxRequestViolations } from "../validate";

export interface ListSandboxesOptions {
  state?: SandboxState;
  /** Every label must match exactly (AND). */
  labels?: Record<string, string>;
  signal?: AbortSignal;
}

export class Sandboxes {
  constructor(private readonly http: HttpCore) {}

  async create(request: CreateSandboxRequest, options: { signal?: AbortSignal; validate?: boolean } = {}): Promise<Sandbox> {
    if (options.validate !== false) assertValid("sandbox create request", request, createSandboxRequestViolations(request));
    return createOnce(this.http, this, { path: "/v2/sandboxes", body: request, schema: Sandbox, signal: options.signal });
  }

  get(id: string, options: { signal?: AbortSignal } = {}): Promise<Sandbox> {
    return this.http.request({ method: "GET", path: `/v2/sandboxes/${encodeURIComponent(id)}`, schema: Sandbox, signal: options.signal });
  }

  async list(options: ListSandboxesOptions = {}): Promise<Sandbox[]> {
    return (await this.page(options)).items;
  }

  /** The list with the sandboxes it could not read set aside (id, name and violations of each). */
  async page(options: ListSandboxesOptions = {}): Promise<{ items: Sandbox[]; setAside: SetAside[] }> {
    const labels = Object.entries(options.labels ?? {}).map(([k, v]) => `${k}=${v}`);
    const response = await this.http.request({
      method: "GET",
      path: "/v2/sandboxes",
      query: { state: options.state, labels: labels.length ? labels : undefined },
      schema: ListSandboxesResponse,
      signal: options.signal,
    });
    return { items: response.sandboxes, setAside: response.setAside };
  }

  /** Sets the idle timeout of a RUNNING sandbox; the response carries the applied (clamped) value. */
  setIdleTimeout(id: string, idleTimeoutSeconds: number, options: { signal?: AbortSignal } = {}): Promise<Sandbox> {
    return this.http.request({
      method: "PATCH",
      path: `/v2/sandboxes/${encodeURIComponent(id)}`,
      body: { idleTimeoutSeconds },
      schema: Sandbox,
      signal: options.signal,
    });
  }

  /** Raises the total lifetime (counted from `startedAt`); a lower value is refused with 422. */
  extend(id: string, maxLifetimeSeconds: number, options: { signal?: AbortSignal } = {}): Promise<Sandbox> {
    return this.http.request({
      method: "POST",
      path: `/v2/sandboxes/${encodeURIComponent(id)}/extend`,
      body: { maxLifetimeSeconds },
      schema: Sandbox,
      signal: options.signal,
      // A repeated extend to the same total is refused (422: not larger than the current
      // value), so a lost answer is recovered by reading the sandbox, not by resending.
      recover: async () => {
        const sandbox = await this.get(id, options);
        return sandbox.maxLifetimeSeconds >= maxLifetimeSeconds ? sandbox : undefined;
      },
    });
  }

  /** Terminates a sandbox: 204, also when it is already terminated. */
  async delete(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.http.request({ method: "DELETE", path: `/v2/sandboxes/${encodeURIComponent(id)}`, signal: options.signal });
  }

  /** The sandbox's log stream; in follow mode it ends once the sandbox is TERMINATED, FAILED or gone. */
  logs(id: string, options: LogStreamOptions = {}) {
    const isFinished = async () => SANDBOX_ENDED_STATES.has((await this.get(id, { signal: options.signal })).state);
    return streamLogs(this.http, `/v2/sandboxes/${encodeURIComponent(id)}/logs`, { isFinished, ...options });
  }
}
