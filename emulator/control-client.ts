/**
 * A typed client of the `/_emulator/` control plane, for tests and demo scripts.
 *
 *   const control = new EmulatorControl(emulator.url, emulator.adminToken);
 *   await control.freezeClock();
 *   await control.advance(90_000);
 */
import type {
  AccountSettings,
  ApiKeySettings,
  CapacityAnswer,
  CapacityState,
  ClockChange,
  ClockState,
  CpuCapacity,
  CpuCapacityAnswer,
  EventAnswer,
  FailNextCounts,
  FaultRule,
  FaultSpec,
  FixtureAnswer,
  FailNextChange,
  GpuCapacity,
  GpuCapacityAnswer,
  GpuUtilizationChange,
  GpuUtilizationReport,
  LoggedRequest,
  NextServices,
  NextServicesChange,
  PendingCapacity,
  PodServiceReport,
  RequestsAnswer,
  ResetAnswer,
  ServiceChange,
  ServiceEvent,
  ServiceEventsAnswer,
  ShapeAnswer,
  TimingsChange,
  WorkersAnswer,
  WorkersChange,
} from "./control/schemas";
import type { AccountRecord } from "./accounts/store";
import type { ControlState } from "./emulator";
import type { Timings } from "./options";
import type { Shape } from "./shape";

// Types only: the client carries none of the server's code. They come from the control plane's
// schemas (control/schemas.ts), so a request the client can build is one the server accepts.
export type {
  AccountSettings,
  CapacityAnswer,
  CapacityState,
  ClockState,
  CpuCapacity,
  CpuCapacityAnswer,
  FaultSpec,
  GpuCapacity,
  GpuCapacityAnswer,
  GpuUtilizationChange,
  GpuUtilizationReport,
  LoggedRequest,
  NextServices,
  NextServicesChange,
  PendingCapacity,
  PodServiceReport,
  ServiceChange,
  ServiceEvent,
  WorkersAnswer,
  WorkersChange,
};

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

  reset(): Promise<ResetAnswer> {
    return this.call("POST", "/reset");
  }

  loadFixture(fixture: object): Promise<FixtureAnswer> {
    return this.call("POST", "/fixture", fixture);
  }

  state(): Promise<ControlState> {
    return this.call("GET", "/state");
  }

  clock(): Promise<ClockState> {
    return this.call("GET", "/clock");
  }

  setClock(change: ClockChange): Promise<ClockState> {
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

  setTimings(timings: TimingsChange): Promise<Timings> {
    return this.call("PUT", "/timings", timings);
  }

  /** The answer shape in force (`seed` or `public`). */
  async shape(): Promise<Shape> {
    return (await this.call<ShapeAnswer>("GET", "/shape")).shape;
  }

  /** Switches the answer shape for every later answer (open log streams keep theirs). */
  async setShape(shape: Shape): Promise<Shape> {
    return (await this.call<ShapeAnswer>("PUT", "/shape", { shape })).shape;
  }

  /** Every machine and CPU pool, and the GPU settings still pending (`pending`, in due order, `dueAt` in RFC 3339). */
  capacity(): Promise<CapacityState> {
    return this.call("GET", "/capacity");
  }

  /**
   * Sets a (data center, GPU type, cloud) pool's free GPUs (`available`) or machines, or a CPU
   * pool's free vCPUs. A GPU setting with `afterSeconds` applies when the emulator clock reaches
   * now + `afterSeconds` (answered with `scheduled`, its `dueAt`); several may be pending.
   */
  setCapacity(capacity: GpuCapacity): Promise<GpuCapacityAnswer>;
  setCapacity(capacity: CpuCapacity): Promise<CpuCapacityAnswer>;
  setCapacity(capacity: GpuCapacity | CpuCapacity): Promise<CapacityAnswer>;
  setCapacity(capacity: GpuCapacity | CpuCapacity): Promise<CapacityAnswer> {
    return this.call("PUT", "/capacity", capacity);
  }

  addFault(fault: FaultSpec): Promise<FaultRule> {
    return this.call("POST", "/faults", fault);
  }

  clearFaults(): Promise<{ faults: [] }> {
    return this.call("DELETE", "/faults");
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await this.call<RequestsAnswer>("GET", "/requests")).requests;
  }

  clearRequests(): Promise<{ requests: [] }> {
    return this.call("DELETE", "/requests");
  }

  account(accountId: string): Promise<AccountRecord> {
    return this.call("GET", `/accounts/${encodeURIComponent(accountId)}`);
  }

  /** Issues an API key (scopes default to every family); `revokeApiKey` makes a key answer 401. */
  issueApiKey(key: string, settings: ApiKeySettings): Promise<unknown> {
    return this.call("PUT", `/api-keys/${encodeURIComponent(key)}`, settings);
  }

  revokeApiKey(key: string): Promise<unknown> {
    return this.call("DELETE", `/api-keys/${encodeURIComponent(key)}`);
  }

  updateAccount(accountId: string, settings: AccountSettings): Promise<AccountRecord> {
    return this.call("PUT", `/accounts/${encodeURIComponent(accountId)}`, settings);
  }

  podExit(podId: string): Promise<EventAnswer> {
    return this.call("POST", `/pods/${encodeURIComponent(podId)}/exit`);
  }

  podError(podId: string, message?: string): Promise<EventAnswer> {
    return this.call("POST", `/pods/${encodeURIComponent(podId)}/error`, message ? { message } : undefined);
  }

  podFailStart(podId: string): Promise<EventAnswer> {
    return this.call("POST", `/pods/${encodeURIComponent(podId)}/fail-start`);
  }

  sandboxExit(sandboxId: string): Promise<EventAnswer> {
    return this.call("POST", `/sandboxes/${encodeURIComponent(sandboxId)}/exit`);
  }

  sandboxFailStart(sandboxId: string): Promise<EventAnswer> {
    return this.call("POST", `/sandboxes/${encodeURIComponent(sandboxId)}/fail-start`);
  }

  failNext(kind: FailNextChange["kind"], count = 1): Promise<FailNextCounts> {
    return this.call("POST", "/fail-next", { kind, count });
  }

  /** The pod's service settings and, per port, its listener and whether it answers now. */
  podService(podId: string): Promise<PodServiceReport> {
    return this.call("GET", `/pods/${encodeURIComponent(podId)}/service`);
  }

  /** How the pod's services behave from now on: `never` (never come up), `unavailable` (HTTP 503), `normal`; `delayMs` from RUNNING replaces `serviceStartMs`. */
  setPodService(podId: string, settings: ServiceChange): Promise<PodServiceReport> {
    return this.call("PUT", `/pods/${encodeURIComponent(podId)}/service`, settings);
  }

  /** The same settings for the next `count` (default 1) pods created, cluster members one each; replaces what was queued. */
  setNextServices(settings: NextServicesChange): Promise<NextServices> {
    return this.call("PUT", "/services/next", settings);
  }

  /** The services that came up: pod, port and the emulator-clock instant (`time`), oldest first. */
  async serviceEvents(): Promise<ServiceEvent[]> {
    return (await this.call<ServiceEventsAnswer>("GET", "/services/events")).events;
  }

  clearServiceEvents(): Promise<{ events: [] }> {
    return this.call("DELETE", "/services/events");
  }

  /** The pod's GPU utilisation setting (null: the default pseudo-random values) and what every GPU reads now under it. */
  gpuUtilization(podId: string): Promise<GpuUtilizationReport> {
    return this.call("GET", `/pods/${encodeURIComponent(podId)}/gpu-utilization`);
  }

  /**
   * What every GPU of the pod reads from now on: `{util}` a constant, `{curve: [{afterSeconds, util}, ...]}`
   * a step curve counted from now on the emulator clock. A CPU pod has no GPUs: 409.
   */
  setGpuUtilization(podId: string, spec: GpuUtilizationChange): Promise<GpuUtilizationReport> {
    return this.call("PUT", `/pods/${encodeURIComponent(podId)}/gpu-utilization`, spec);
  }

  /** Back to the default pseudo-random utilisation. */
  clearGpuUtilization(podId: string): Promise<GpuUtilizationReport> {
    return this.call("DELETE", `/pods/${encodeURIComponent(podId)}/gpu-utilization`);
  }

  /** How the endpoint's workers behave from now on: `never` (INITIALIZING for good), `unhealthy`, `normal`; `delayMs` replaces `workerReadyMs`. */
  setWorkers(endpointId: string, settings: WorkersChange): Promise<WorkersAnswer> {
    return this.call("PUT", `/serverless/${encodeURIComponent(endpointId)}/workers`, settings);
  }
}
