/**
 * Starts an in-process emulator on a free port and talks to it over HTTP, as every client does.
 * Shared by the emulator suites; not a test file itself.
 */
import { EmulatorControl, startEmulator, type EmulatorOptions } from "../../emulator";
import { GPU, sleep } from "../helpers/fixtures";
import { useStarted } from "../helpers/suite";

// Shared with every folder's suites (test/helpers/fixtures.ts); re-exported so these suites import from one place.
export { GPU, KEYS, sleep } from "../helpers/fixtures";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Harness {
  url: string;
  apiKey: string;
  adminToken: string;
  control: EmulatorControl;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse<T>>;
  del<T = any>(path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/** Starts an emulator; the seed shape unless asked (these suites assert our reading, whatever the environment says). */
export async function boot(options: EmulatorOptions = {}): Promise<Harness> {
  const emulator = await startEmulator({ profile: "fast", quiet: true, shape: "seed", ...options });
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const call = async (method: string, path: string, options: CallOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? emulator.apiKey : options.key;
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] = "application/json";
    }
    const response = await fetch(`${emulator.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as any };
  };
  return {
    url: emulator.url,
    apiKey: emulator.apiKey,
    adminToken: emulator.adminToken,
    control,
    call,
    get: (path, options) => call("GET", path, options),
    post: (path, body, options) => call("POST", path, { ...options, body }),
    patch: (path, body, options) => call("PATCH", path, { ...options, body }),
    del: (path, options) => call("DELETE", path, options),
    close: () => emulator.close(),
  };
}

/** Runs `use` against an emulator of its own, closed afterwards whatever `use` did. */
export async function withEmulator<T>(options: EmulatorOptions, use: (h: Harness) => Promise<T>): Promise<T> {
  const h = await boot(options);
  try {
    return await use(h);
  } finally {
    await h.close();
  }
}

/**
 * One emulator for the tests of a file (or describe block), closed after the last; `beforeEachTest`
 * runs before every test (`freshFixture()` for most suites).
 */
export function useEmulator(options: EmulatorOptions = {}, beforeEachTest?: (h: Harness) => Promise<unknown>): Harness {
  return useStarted(() => boot(options), beforeEachTest);
}

/** Before each test: back to the fixture, and with `clockAt` the clock frozen at that instant. */
export const freshFixture = (clockAt?: string) => async (h: Harness) => {
  await h.control.reset();
  if (clockAt !== undefined) await h.control.freezeClock(clockAt);
};

/** Expects a 422 whose errors include each of `violations`: a string as it is, a pattern matched anywhere in one. */
export function expectViolationsIncluding(response: ApiResponse, violations: Array<string | RegExp>): void {
  expect(response.status).toBe(422);
  expect(response.body.errors).toEqual(expect.arrayContaining(violations.map((v) => (typeof v === "string" ? v : expect.stringMatching(v)))));
}

/** A valid GPU pod body; override what a test is about. */
export function gpuPod(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "test-pod", image: "python:3.12-slim", gpu: { id: GPU.rtx4090 }, ...overrides };
}

export function cpuPod(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "cpu-pod", image: "python:3.12-slim", cpu: { id: "cpu3c", vcpuCount: 2 }, ...overrides };
}

export function sandboxBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "sb", image: "python:3.12-slim", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 }, ...overrides };
}

/** The body of a create's answer, which must be a 201 (else the test fails, showing the answer). */
function createdBody(response: ApiResponse): any {
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Creates a pod and returns it as answered (PROVISIONING). */
export async function createdPod(h: Harness, body: Record<string, unknown> = gpuPod(), key?: string): Promise<any> {
  return createdBody(await h.post("/v2/pods", body, { key }));
}

/** Creates a sandbox and returns it as answered (CREATING). */
export async function createdSandbox(h: Harness, body: Record<string, unknown> = sandboxBody()): Promise<any> {
  return createdBody(await h.post("/v2/sandboxes", body));
}

/** Creates a pod and moves the (frozen) clock until it is RUNNING. */
export async function runningPod(h: Harness, body: Record<string, unknown> = gpuPod(), key?: string): Promise<any> {
  const created = await createdPod(h, body, key);
  await h.control.advance(250);
  const pod = await h.get(`/v2/pods/${created.id}`, { key });
  if (pod.body.status !== "RUNNING") throw new Error(`pod is ${pod.body.status}`);
  return pod.body;
}

/** The id of a pod serving HTTP (its log lines are the server's) that has been RUNNING for `seconds` of emulator time. */
export async function podRunningFor(h: Harness, seconds: number): Promise<string> {
  const pod = await runningPod(h, gpuPod({ image: "python:3.12-slim", args: "python -m http.server 8000" }));
  await h.control.advance(seconds * 1000);
  return pod.id;
}

export async function runningSandbox(h: Harness, body: Record<string, unknown> = sandboxBody()): Promise<any> {
  const created = await createdSandbox(h, body);
  await h.control.advance(150);
  const sandbox = await h.get(`/v2/sandboxes/${created.id}`);
  if (sandbox.body.state !== "RUNNING") throw new Error(`sandbox is ${sandbox.body.state}`);
  return sandbox.body;
}

export const seconds = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;

export interface SseEvent {
  id: string;
  data: { source: "container" | "system"; line: string; ts: string };
}

export interface LogStream {
  status: number;
  /** Problem body when the stream was refused. */
  problem?: any;
  headers: Headers;
  events: SseEvent[];
  /** Bytes of body received so far (the server writes its backfill, or a comment, at once). */
  received: number;
  ended: boolean;
  /** Resolves once `predicate(events)` holds, or rejects after `timeoutMs`. */
  until(predicate: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves when the server ends the response. */
  end(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens an SSE log stream with fetch and parses `id:`/`data:` frames as they arrive. */
export async function openLogStream(h: Harness, path: string, headers: Record<string, string> = {}, key = h.apiKey): Promise<LogStream> {
  const abort = new AbortController();
  const response = await fetch(`${h.url}${path}`, {
    headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  // A refused stream has no events to wait for: waiting on one is a test's mistake, or the
  // endpoint's, and fails loudly (it once answered [], and a test of a broken endpoint passed).
  const refused = async (): Promise<never> => {
    throw new Error(`the log stream ${path} was refused with ${response.status}: ${JSON.stringify(stream.problem)}`);
  };
  const stream: LogStream = {
    status: response.status,
    headers: response.headers,
    events: [],
    received: 0,
    ended: false,
    until: refused,
    end: refused,
    close: () => abort.abort(),
  };
  if (response.status !== 200) {
    stream.problem = await response.json();
    stream.ended = true;
    return stream;
  }
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  (async () => {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        stream.received += value.byteLength;
        buffer += decoder.decode(value, { stream: true });
        let split: number;
        while ((split = buffer.indexOf("\n\n")) !== -1) {
          const frame = buffer.slice(0, split);
          buffer = buffer.slice(split + 2);
          let id: string | undefined;
          let data: string | undefined;
          for (const line of frame.split("\n")) {
            if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("data: ")) data = line.slice(6);
          }
          if (id !== undefined && data !== undefined) stream.events.push({ id, data: JSON.parse(data) });
        }
        notify();
      }
    } catch {
      // aborted by the test
    }
    stream.ended = true;
    notify();
  })();
  const wait = (check: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (check()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`timed out waiting for ${what} (have ${stream.events.length} events, ended=${stream.ended})`));
      }, timeoutMs);
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve();
      };
      waiters.add(waiter);
    });
  stream.until = async (predicate, timeoutMs = 3000) => {
    await wait(() => predicate(stream.events), timeoutMs, "events");
    return stream.events;
  };
  stream.end = (timeoutMs = 3000) => wait(() => stream.ended, timeoutMs, "the end of the stream");
  return stream;
}

/** The history of a log stream that must open (200), read as `readBackfill` does. */
export async function backfillOf(h: Harness, path: string, headers: Record<string, string> = {}): Promise<SseEvent[]> {
  const stream = await openLogStream(h, path, headers);
  expect(stream.status).toBe(200);
  return readBackfill(stream);
}

/**
 * The history a stream sends before live lines: waits for the first bytes, then until nothing
 * new arrives for 100 ms (with a frozen clock nothing live follows), then closes the stream.
 */
export async function readBackfill(stream: LogStream): Promise<SseEvent[]> {
  const deadline = Date.now() + 5000;
  while (stream.received === 0 && Date.now() < deadline) await sleep(10);
  for (;;) {
    const seen = stream.events.length;
    await sleep(100);
    if (stream.events.length === seen || Date.now() > deadline) break;
  }
  stream.close();
  return stream.events;
}
