/**
 * The SDK's one request path: build → pace → send with timeout → map status to error →
 * decide retry → (recover) → retry → parse and validate. Resource modules never touch the
 * transport; they describe a request and call `HttpCore.request`.
 */
import type { Agent, Dispatcher } from "undici";
import { undici } from "./lazy-undici";
import type { z } from "zod";
import { resolveConfig, type ClientOptions, type ResolvedConfig } from "./config";
import {
  ComputeError,
  ConnectionError,
  CreatedButUnreadableError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  errorFromResponse,
  isTransient,
  type RequestInfo,
} from "./errors";
import { sharedRateLimiter, type RateLimiter } from "./rate-limit";
import { parseRetryAfter, rateLimitedToTheEnd, retryDelay, sleep, type AttemptCounts } from "./retry";
import { jsonValue, parseWire, type SetAside } from "../contract";

export type QueryValue = string | number | boolean | string[] | undefined;

export interface RequestSpec<T> {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Schema of a 2xx body; omitted for 204-style operations. */
  schema?: z.ZodType<T>;
  /**
   * Whether a 5xx or lost connection may be retried by sending the request again. Reads,
   * PATCH, PUT and DELETE are safe. A create is not: it passes `recover` instead.
   */
  idempotent?: boolean;
  /**
   * For a create: called before a resend after a 5xx or lost connection, with the server-clock
   * time at which the failed attempt began. Returns what that attempt created, if anything, so
   * the create is not sent twice.
   */
  recover?: (attemptStartedAtServerMs: number) => Promise<T | undefined>;
  /**
   * For a create: reads the resource by id. Used once when the service answered 2xx but its
   * body could not be read (not JSON, or not the schema) and still carried an `id`: the
   * resource exists, so it is read rather than created again.
   */
  readBack?: (id: string) => Promise<T>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * What a create attempt that began at `attemptStartedAtServerMs` may have made: an item of the
 * same name created since then. `Date` headers have one-second resolution, so the server-clock
 * estimate is allowed that much (and a little) of slack.
 */
export function createdByAttempt<T extends { name: string; createdAt: string }>(items: T[], name: string, attemptStartedAtServerMs: number): T | undefined {
  return items.find((item) => item.name === name && Date.parse(item.createdAt) >= attemptStartedAtServerMs - 1500);
}

/**
 * `createdByAttempt` over a list read tolerantly. When no readable item matches but one the
 * list set aside could be it (same name, or no readable name), the create is not sent again:
 * a second pod is worse than an error, so the unreadable item is reported instead.
 */
export function createdByAttemptIn<T extends { name: string; createdAt: string }>(
  page: { items: T[]; setAside: SetAside[] },
  name: string,
  attemptStartedAtServerMs: number,
  listed: RequestInfo,
): T | undefined {
  const found = createdByAttempt(page.items, name, attemptStartedAtServerMs);
  if (found !== undefined) return found;
  const suspects = page.setAside.filter((item) => item.name === undefined || item.name === name);
  if (suspects.length > 0) throw new ResponseValidationError(listed, suspects.flatMap((item) => item.violations));
  return undefined;
}

/** Where a duplicate-safe create reads what it made: one by id, and the list with what it set aside. */
export interface ReadBack<T> {
  get(id: string, options: { signal?: AbortSignal }): Promise<T>;
  page(options: { signal?: AbortSignal }): Promise<{ items: T[]; setAside: SetAside[] }>;
}

/** A duplicate-safe create: the list is searched by the body's `name` after a failed attempt. */
export interface CreateOnce<T> {
  path: string;
  body: { name: string };
  schema: z.ZodType<T>;
  signal?: AbortSignal;
}

/**
 * A create, never sent twice: a 2xx whose body cannot be read is read back by the id it
 * carries (`from.get`), and after a 5xx or a lost connection the list (`from.page`) is searched
 * for what the attempt made (`createdByAttemptIn`) before the create is sent again.
 */
export function createOnce<T extends { name: string; createdAt: string }>(http: HttpCore, from: ReadBack<T>, create: CreateOnce<T>): Promise<T> {
  const listed = { method: "GET", path: create.path } as const;
  return postOnce(http, from, create, async (attemptStartedAt) => createdByAttemptIn(await from.page({ signal: create.signal }), create.body.name, attemptStartedAt, listed));
}

/** The one POST of a create: read back by id when its answer is unreadable, `recover` after a lost one. */
function postOnce<T>(http: HttpCore, from: ReadBack<T>, create: CreateOnce<T>, recover: RequestSpec<T>["recover"]): Promise<T> {
  const { signal } = create;
  return http.request({ method: "POST", path: create.path, body: create.body, schema: create.schema, signal, readBack: (id) => from.get(id, { signal }), recover });
}

/**
 * A create of a resource whose name is unique to its stack resource (the name carries the
 * owner mark, sdk/ownership.ts `nameWithMark`): after a lost answer the list is searched for
 * that exact name, so the create is never sent twice; without such a name it is never resent.
 */
export function createNamedOnce<T extends { name: string }>(http: HttpCore, from: ReadBack<T>, create: CreateOnce<T> & { uniqueName: boolean }): Promise<T> {
  if (!create.uniqueName) return postOnce(http, from, create, undefined);
  return postOnce(http, from, create, async () => {
    const page = await from.page({ signal: create.signal });
    const found = page.items.filter((item) => item.name === create.body.name);
    if (found.length === 1) return found[0];
    // A name meant to be this create's alone, twice: never a third.
    if (found.length > 1) throw new ComputeError(`${create.path}: ${found.length} items are named ${JSON.stringify(create.body.name)}, which only this create should have made; nothing more is created`);
    if (page.setAside.some((item) => item.name === undefined || item.name === create.body.name)) {
      throw new ResponseValidationError({ method: "GET", path: create.path }, page.setAside.flatMap((item) => item.violations));
    }
    return undefined;
  });
}

type Unreadable = { ok: false; error: ResponseValidationError; body: unknown };
type Attempt<T> = { ok: true; value: T } | Unreadable;

/** The `id` of a body that could not be read as a whole, when it has a usable one. */
function idIn(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

export interface StreamSpec {
  path: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface OpenStream {
  body: Dispatcher.ResponseData["body"];
  request: RequestInfo;
}

export class HttpCore {
  readonly config: ResolvedConfig;
  /** Made on the first request (./lazy-undici.ts says why). */
  private agent: Agent | undefined;
  private closed = false;
  private readonly limiter: RateLimiter;
  /** Server clock minus local clock, learned from `Date` headers (1 s resolution). */
  private serverClockOffsetMs = 0;

  constructor(options: ClientOptions = {}) {
    this.config = resolveConfig(options);
    this.limiter = sharedRateLimiter(this.config.baseUrl, this.config.apiKey, this.config.teamId);
  }

  /** The service's clock as best known: lets "created after this attempt began" survive skew. */
  serverNow(): number {
    return Date.now() + this.serverClockOffsetMs;
  }

  /** See RateLimiter.pollSpacingMs. */
  pollSpacingMs(): number {
    return this.limiter.pollSpacingMs();
  }

  private get dispatcher(): Agent {
    // A closed client refuses, as its pool would: a request after close() must not open a new
    // pool that keeps the process alive.
    if (!this.agent && this.closed) throw new (undici().errors.ClientClosedError)();
    this.agent ??= new (undici().Agent)({ keepAliveTimeout: 10_000, connections: 64 });
    return this.agent;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.agent?.close();
  }

  /** A GET whose answer wraps one list (`{ gpus: [...] }`): that list, under `key`. */
  async getList<W, K extends keyof W>(
    path: string,
    schema: z.ZodType<W>,
    key: K,
    options: { query?: Record<string, QueryValue>; signal?: AbortSignal } = {},
  ): Promise<W[K]> {
    return (await this.request({ method: "GET", path, query: options.query, schema, signal: options.signal }))[key];
  }

  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const info: RequestInfo = { method: spec.method, path: spec.path };
    const idempotent = spec.idempotent ?? spec.method !== "POST";
    const counts: AttemptCounts = { transient: 0, rateLimited: 0 };
    // Recovery looks for what any attempt may have created, so it counts from the first one:
    // a slow service can create the resource for attempt 1 after attempt 2 has begun.
    const firstStartedAt = this.serverNow();
    for (;;) {
      let outcome: Attempt<T>;
      try {
        outcome = await this.attempt(spec, info);
      } catch (error) {
        const delay = retryDelay(error, counts, this.config);
        const resendable = idempotent || spec.recover !== undefined || !isTransient(error);
        if (delay === undefined || !resendable) {
          // Out of retries: a create whose last answer was lost (now, or in any earlier
          // attempt, even if later ones were refused with a 429) may still have landed.
          if (spec.recover && (isTransient(error) || counts.transient > 0)) {
            const created = await spec.recover(firstStartedAt).catch(() => undefined);
            if (created !== undefined) return created;
          }
          throw error instanceof RateLimitError && counts.rateLimited > 0 ? rateLimitedToTheEnd(error, counts, this.config) : error;
        }
        if (isTransient(error)) counts.transient += 1;
        else {
          counts.rateLimited += 1;
          counts.firstRateLimitedAt ??= performance.now();
        }
        await sleep(delay, spec.signal);
        // Once an attempt's answer was lost, look before every resend: the service may have
        // created the resource since, whatever the last answer (a 429) said.
        if (counts.transient > 0 && spec.recover) {
          const created = await spec.recover(firstStartedAt);
          if (created !== undefined) return created;
        }
        continue;
      }
      if (outcome.ok) return outcome.value;
      return this.settleUnreadable(spec, info, outcome, firstStartedAt);
    }
  }

  /**
   * A 2xx whose body cannot be read. For a read, that is the error. For a create (or an action)
   * the service acted, so nothing is ever sent again: the resource is read back by the id the
   * body carries (`readBack`), else looked for by name (`recover`), else reported — as
   * `CreatedButUnreadableError` with the id whenever an id was readable.
   */
  private async settleUnreadable<T>(spec: RequestSpec<T>, info: RequestInfo, outcome: Unreadable, firstStartedAt: number): Promise<T> {
    const id = idIn(outcome.body);
    if (id !== undefined && spec.readBack) {
      try {
        return await spec.readBack(id);
      } catch (cause) {
        const more =
          cause instanceof ResponseValidationError ? cause.violations : [`(read back): ${cause instanceof Error ? cause.message : String(cause)}`];
        throw new CreatedButUnreadableError(info, id, [...outcome.error.violations, ...more], { cause });
      }
    }
    if (spec.recover) {
      const created = await spec.recover(firstStartedAt).catch(() => undefined);
      if (created !== undefined) return created;
    }
    throw outcome.error;
  }

  /** Opens a streaming GET (Server-Sent Events); errors are mapped exactly as for `request`. */
  async openStream(spec: StreamSpec): Promise<OpenStream> {
    const info: RequestInfo = { method: "GET", path: spec.path };
    const response = await this.send(
      { method: "GET", path: spec.path, query: spec.query, signal: spec.signal, headers: { accept: "text/event-stream", ...spec.headers } },
      info,
      /* streaming */ true,
    );
    return { body: response.body, request: info };
  }

  /** One exchange: throws what failed on the way, returns a readable or an unreadable 2xx body. */
  private async attempt<T>(spec: RequestSpec<T>, info: RequestInfo): Promise<Attempt<T>> {
    const response = await this.send(spec, info, false);
    if (response.statusCode === 204 || spec.schema === undefined) {
      await response.body.dump();
      return { ok: true, value: undefined as T };
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (cause) {
      throw this.transportError(cause, info, spec.signal);
    }
    const json = jsonValue(text);
    if (json === undefined) return { ok: false, body: undefined, error: new ResponseValidationError(info, ["(body): is not JSON"]) };
    const parsed = parseWire(spec.schema, json);
    if (!parsed.ok) return { ok: false, body: json, error: new ResponseValidationError(info, parsed.violations) };
    return { ok: true, value: parsed.value };
  }

  /** Sends one attempt; resolves with a 2xx response, otherwise throws the mapped error. */
  private async send(
    spec: Pick<RequestSpec<unknown>, "method" | "path" | "query" | "body" | "headers" | "signal">,
    info: RequestInfo,
    streaming: boolean,
  ): Promise<Dispatcher.ResponseData> {
    // Serialized before a rate-limit slot is taken: a body that cannot be sent must not hold one.
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const release = await this.limiter.acquire(spec.signal);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.apiKey}`,
      "user-agent": this.config.userAgent,
      accept: "application/json",
      ...spec.headers,
    };
    if (this.config.teamId) headers["x-team-id"] = this.config.teamId;
    if (body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(this.config.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    let response: Dispatcher.ResponseData;
    try {
      response = await undici().request(this.url(spec.path, spec.query), {
        method: spec.method,
        headers,
        body,
        dispatcher: this.dispatcher,
        // A log stream stays open as long as the container runs: only the connect is bounded.
        signal: streaming ? spec.signal : signal,
        headersTimeout: this.config.timeoutMs,
        bodyTimeout: streaming ? 0 : this.config.timeoutMs,
      });
    } catch (cause) {
      release();
      throw this.transportError(cause, info, spec.signal);
    }
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    };
    release({ rateLimit: header("ratelimit"), policy: header("ratelimit-policy") });
    this.learnServerClock(header("date"));
    if (response.statusCode >= 200 && response.statusCode < 300) return response;

    let problem: Record<string, unknown> | undefined;
    try {
      const text = await response.body.text();
      problem = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    } catch {
      problem = undefined;
    }
    throw errorFromResponse(
      response.statusCode,
      this.redact(problem),
      info,
      parseRetryAfter(response.headers["retry-after"], this.serverNow()),
      header("x-request-id"),
    );
  }

  private transportError(cause: unknown, info: RequestInfo, callerSignal?: AbortSignal): ComputeError {
    if (callerSignal?.aborted) return new ConnectionError(info, "aborted by the caller", { cause });
    const error = cause as { name?: string; code?: string; message?: string };
    const timedOut =
      error?.name === "TimeoutError" ||
      cause instanceof undici().errors.HeadersTimeoutError ||
      cause instanceof undici().errors.BodyTimeoutError ||
      cause instanceof undici().errors.ConnectTimeoutError;
    if (timedOut) return new TimeoutError(info, `no response within ${this.config.timeoutMs} ms`, { cause });
    const reason = this.redactText(error?.code ? `${error.code}: ${error.message ?? ""}` : String(error?.message ?? cause));
    return new ConnectionError(info, `connection to ${this.config.baseUrl} failed (${reason})`, { cause });
  }

  private learnServerClock(date: string | undefined): void {
    if (!date) return;
    const serverMs = Date.parse(date);
    if (!Number.isNaN(serverMs)) this.serverClockOffsetMs = serverMs - Date.now();
  }

  private url(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(this.config.baseUrl + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
      else url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  /** Belt and braces: the key must not reach an error message even if a server echoes it. */
  private redactText(text: string): string {
    return text.split(this.config.apiKey).join("[redacted]");
  }

  private redact(problem: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (!problem) return problem;
    return JSON.parse(this.redactText(JSON.stringify(problem))) as Record<string, unknown>;
  }
}
