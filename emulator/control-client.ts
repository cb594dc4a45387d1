/**
 * A typed client of the `/_emulator/` control plane, for tests and demo scripts.
 *
 *   const control = new EmulatorControl(emulator.url, emulator.adminToken);
 *   await control.freezeClock();
 *   await control.advance(90_000);
 */
import type { Timings } from "./options";
import type { LoggedRequest } from "./request-log";
import type { Shape } from "./shape";

export type { LoggedRequest };

export interface ClockState {
  now: string;
  frozen: boolean;
}

export interface FaultSpec {
  method?: string;
  /** Exact path or glob (`*` matches any characters, `/` included), e.g. `/v2/pods` or `/v2/pods/*`. */
  path: string;
  status?: number;
  retryAfter?: number;
  latencyMs?: number;
  drop?: boolean;
  times?: number;
  probability?: number;
  body?: unknown;
  /** Execute the request first, then replace its response (or drop the connection). */
  after?: boolean;
}


export interface GpuCapacity {
  dataCenterId: string;
  gpuTypeId: string;
  cloud?: "SECURE" | "COMMUNITY";
  available?: number;
  machines?: Array<{ id?: string; cudaVersion: string | null; gpus: number; free?: number; ramPerGpu: number; vcpuPerGpu: number }>;
  cudaVersion?: string | null;
  ramPerGpu?: number;
  vcpuPerGpu?: number;
}

export interface CpuCapacity {
  dataCenterId: string;
  cpuFlavorId: string;
  available: number;
}

export interface AccountSettings {
  balance?: number;
  rateLimits?: { minute?: number; hour?: number; day?: number };
  exempt?: boolean;
  maxIdleTimeoutSeconds?: number;
  maxLifetimeSeconds?: number;
  sshKeys?: string[];
}

export class EmulatorControlError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`control plane answered ${status}: ${JSON.stringify(body)}`);
  }
}

export class EmulatorControl {
  private readonly base: string;

  constructor(
    url: string,
    private readonly adminToken: string,
  ) {
    this.base = `${url.replace(/\/+$/, "")}/_emulator`;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.adminToken}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new EmulatorControlError(response.status, parsed);
    return parsed as T;
  }

  reset(): Promise<{ reset: true; fixture: string }> {
    return this.call("POST", "/reset");
  }

  loadFixture(fixture: object): Promise<{ reset: true; fixture: string; apiKey: string }> {
    return this.call("POST", "/fixture", fixture);
  }

  state(): Promise<Record<string, unknown>> {
    return this.call("GET", "/state");
  }

  clock(): Promise<ClockState> {
    return this.call("GET", "/clock");
  }

  setClock(change: { freeze?: boolean; advanceMs?: number; set?: string }): Promise<ClockState> {
    return this.call("POST", "/clock", change);
  }

  freezeClock(at?: string): Promise<ClockState> {
    return this.setClock({ freeze: true, ...(at ? { set: at } : {}) });
  }

  unfreezeClock(): Promise<ClockState> {
    return this.setClock({ freeze: false });
  }

  advance(ms: number): Promise<ClockState> {
    return this.setClock({ advanceMs: ms });
  }

  timings(): Promise<Timings> {
    return this.call("GET", "/timings");
  }

  setTimings(timings: Partial<Timings>): Promise<Timings> {
    return this.call("PUT", "/timings", timings);
  }

  /** The answer shape in force (`seed` or `public`). */
  async shape(): Promise<Shape> {
    return (await this.call<{ shape: Shape }>("GET", "/shape")).shape;
  }

  /** Switches the answer shape for every later answer (open log streams keep theirs). */
  async setShape(shape: Shape): Promise<Shape> {
    return (await this.call<{ shape: Shape }>("PUT", "/shape", { shape })).shape;
  }

  capacity(): Promise<{ machines: unknown[]; cpuPools: unknown[] }> {
    return this.call("GET", "/capacity");
  }

  setCapacity(capacity: GpuCapacity | CpuCapacity): Promise<unknown> {
    return this.call("PUT", "/capacity", capacity);
  }

  addFault(fault: FaultSpec): Promise<{ id: string }> {
    return this.call("POST", "/faults", fault);
  }

  clearFaults(): Promise<unknown> {
    return this.call("DELETE", "/faults");
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await this.call<{ requests: LoggedRequest[] }>("GET", "/requests")).requests;
  }

  clearRequests(): Promise<unknown> {
    return this.call("DELETE", "/requests");
  }

  account(accountId: string): Promise<Record<string, unknown>> {
    return this.call("GET", `/accounts/${encodeURIComponent(accountId)}`);
  }

  updateAccount(accountId: string, settings: AccountSettings): Promise<Record<string, unknown>> {
    return this.call("PUT", `/accounts/${encodeURIComponent(accountId)}`, settings);
  }

  podExit(podId: string): Promise<unknown> {
    return this.call("POST", `/pods/${encodeURIComponent(podId)}/exit`);
  }

  podError(podId: string, message?: string): Promise<unknown> {
    return this.call("POST", `/pods/${encodeURIComponent(podId)}/error`, message ? { message } : undefined);
  }

  podFailStart(podId: string): Promise<unknown> {
    return this.call("POST", `/pods/${encodeURIComponent(podId)}/fail-start`);
  }

  sandboxExit(sandboxId: string): Promise<unknown> {
    return this.call("POST", `/sandboxes/${encodeURIComponent(sandboxId)}/exit`);
  }

  sandboxFailStart(sandboxId: string): Promise<unknown> {
    return this.call("POST", `/sandboxes/${encodeURIComponent(sandboxId)}/fail-start`);
  }

  failNext(kind: "pod" | "sandbox", count = 1): Promise<{ pod: number; sandbox: number }> {
    return this.call("POST", "/fail-next", { kind, count });
  }
}
