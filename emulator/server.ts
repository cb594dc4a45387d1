/**
 * The HTTP front of the emulator. Every API request goes through ONE ordered chain, written down
 * here so the order of checks can be read at a glance (contract: Authentication and Errors):
 *
 *   fault injection and request log (around everything)
 *   1. body size      413  before authentication, so an oversized body never costs a key lookup
 *      path            400  a path that is not valid percent-encoding (`/v2/pods/%ZZ`), also
 *                           before authentication: it names no resource, whoever asks
 *   2. authentication 401  missing, malformed, unknown or expired credentials
 *   3. scope          403  the key lacks the route's family (or its write half)
 *   4. rate limit     429  per user; RateLimit headers on every later response
 *   5. route          404/405 for paths and methods the API does not have
 *   6. JSON body      400  unparsable JSON
 *   7. validation     422  the route's schema plus its extra rules, every violation at once
 *   8. cross-field    400  rules between fields of a valid body
 *   9. operation           the resource handler; accepted mutations are saved before replying
 *
 * `/_emulator/...` is the control plane (control/routes.ts): the same router, body reading,
 * validation, problem answers, persistence and send path, through a shorter chain of its own
 * (body size 413, admin token 401, route 404, JSON 400, validation 400, operation), outside
 * faults, rate limits and the request log.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_BODY_BYTES, parseWire } from "../contract";
import type { AccountRecord } from "./accounts/store";
import { authenticate, authorize, identify, type Principal } from "./auth";
import type { Emulator } from "./emulator";
import type { FaultRule } from "./faults";
import { ApiError, problem, replyOf, send, type Headers, type JsonReply, type Reply } from "./http";
import type { LoggedRequest } from "./request-log";
import type { BaseRoute, ControlRoute, Match, Operation, Route } from "./router";
import { profileOf } from "./shape";
import { iso } from "./time";

/** Bodies beyond this are not even drained: the connection is closed instead. */
const DRAIN_LIMIT = 16 * 1024 * 1024;
/** Control-plane bodies (whole fixtures) may be large; beyond this they are refused (413). */
const CONTROL_BODY_LIMIT = 32 * 1024 * 1024;

/** One request as it moves down its chain. */
interface Exchange<R = Route<unknown>> {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  now: number;
  match: Match<R>;
  raw?: Buffer;
  bodyBytes: number;
  /** The body did not fit the drain limit: the connection must close after the reply. */
  closeAfter: boolean;
  principal?: Principal;
  account?: AccountRecord;
  json?: unknown;
  value?: unknown;
  /** Headers every later reply carries (rate-limit state). */
  headers: Headers;
}

type Check<R> = (x: Exchange<R>) => Reply | undefined | Promise<Reply | undefined>;
type Chain<R> = ReadonlyArray<readonly [string, Check<R>]>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Gateway {
  /** The order of checks; see the file comment. */
  private readonly chain: Chain<Route<unknown>> = [
    ["body size (413, before authentication)", (x) => this.limitBodySize(x, MAX_BODY_BYTES)],
    ["path encoding (400, before authentication)", (x) => this.checkPathEncoding(x)],
    ["authentication (401)", (x) => this.authenticate(x)],
    ["scope (403)", (x) => this.checkScope(x)],
    ["rate limit (429)", (x) => this.rateLimit(x)],
    ["route (404, 405)", (x) => this.requireRoute(x)],
    ["JSON body (400)", (x) => this.parseJson(x)],
    ["validation (422)", (x) => this.validate(x, undefined, (json) => this.routeViolations(x, json))],
    ["cross-field rules (400)", (x) => this.checkCrossField(x)],
    ["operation", (x) => this.operate(x)],
  ];

  /** The control plane's chain; an absent body reads as `{}` (every member is optional). */
  private readonly controlChain: Chain<ControlRoute<unknown>> = [
    ["body size (413)", (x) => this.limitBodySize(x, CONTROL_BODY_LIMIT)],
    ["admin token (401)", (x) => this.checkAdminToken(x)],
    ["route (404)", (x) => this.requireControlRoute(x)],
    ["JSON body (400)", (x) => this.parseJson(x)],
    ["validation (400)", (x) => this.validate(x, {}, () => [])],
    ["operation", (x) => this.operateControl(x)],
  ];

  constructor(
    private readonly emulator: Emulator,
    private readonly adminToken: string,
  ) {}

  /** The `http.Server` request listener. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    res.sendDate = false; // the Date header comes from the emulator clock instead
    this.handle(req, res).catch((error) => {
      console.error("compute-emulator: unhandled error", error);
      if (!res.headersSent) send(res, problem(500, "Internal emulator error"), {}, this.emulator.clock.now());
      else res.destroy();
    });
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? "/";
    const q = target.indexOf("?");
    const path = q === -1 ? target : target.slice(0, q);
    const search = q === -1 ? "" : target.slice(q + 1);
    const method = (req.method ?? "GET").toUpperCase();
    const now = this.emulator.clock.now();
    const exchange = <R>(match: Match<R>): Exchange<R> => ({
      req,
      method,
      path,
      query: new URLSearchParams(search),
      now,
      match,
      bodyBytes: 0,
      closeAfter: false,
      headers: {},
    });
    if (path === "/_emulator" || path.startsWith("/_emulator/")) {
      const x = exchange(this.emulator.controlRouter.match(method, path));
      const reply = await this.run(x, this.controlChain);
      if (x.closeAfter) x.headers.Connection = "close";
      this.reply(res, reply, x.headers);
      return;
    }

    const x = exchange(this.emulator.router.match(method, path));
    const entry: LoggedRequest = { method, path, query: search, status: null, account: null, time: iso(now) };

    const fault = this.emulator.faults.match(method, path);
    if (fault && !fault.after) {
      if (fault.latencyMs) await sleep(fault.latencyMs);
      if (fault.drop || fault.status !== undefined) {
        await this.readBody(x, MAX_BODY_BYTES);
        entry.account = identify(this.emulator.accounts, req.headers, now);
        if (fault.drop) req.socket.destroy();
        else this.reply(res, this.faultReply(fault), {});
        entry.status = fault.drop ? null : fault.status!;
        this.emulator.requestLog.record(entry);
        return;
      }
    }

    let reply = await this.run(x, this.chain);
    entry.account = x.principal?.accountId ?? null;
    if (fault?.after) {
      // The request was executed (and saved); the client sees a failure anyway.
      if (fault.latencyMs) await sleep(fault.latencyMs);
      if (fault.drop) {
        req.socket.destroy();
        this.emulator.requestLog.record(entry);
        return;
      }
      if (fault.status !== undefined) reply = this.faultReply(fault);
    }
    entry.status = reply.status;
    this.emulator.requestLog.record(entry);
    if (x.closeAfter) x.headers.Connection = "close";
    this.reply(res, reply, x.headers);
  }

  private async run<R>(x: Exchange<R>, chain: Chain<R>): Promise<Reply> {
    try {
      for (const [, check] of chain) {
        const reply = await check(x);
        if (reply) return reply;
      }
      return problem(500, "The chain ended without a reply");
    } catch (error) {
      if (error instanceof ApiError) return replyOf(error);
      console.error(`compute-emulator: ${x.method} ${x.path} failed`, error);
      return problem(500, `Internal emulator error: ${(error as Error).message}`);
    }
  }

  private faultReply(fault: FaultRule): JsonReply {
    const headers: Headers = fault.retryAfter !== undefined ? { "Retry-After": String(fault.retryAfter) } : {};
    const reply = problem(fault.status ?? 503, `Injected fault ${fault.id}`, { headers });
    if (fault.body !== undefined) reply.body = fault.body;
    return reply;
  }

  // ---- the checks, in chain order --------------------------------------------------------------

  private async limitBodySize<R>(x: Exchange<R>, limit: number): Promise<Reply | undefined> {
    await this.readBody(x, limit);
    if (x.bodyBytes > limit) {
      return problem(413, `The request body is ${x.bodyBytes} bytes; the limit is ${limit} bytes`);
    }
    return undefined;
  }

  private checkPathEncoding(x: Exchange): Reply | undefined {
    return x.match.kind === "malformed" ? problem(400, x.match.detail) : undefined;
  }

  private authenticate(x: Exchange): undefined {
    x.principal = authenticate(this.emulator.accounts, x.req.headers, x.now);
    x.account = this.emulator.accounts.records.get(x.principal.accountId);
    if (!x.account) throw new ApiError(401, "The credential's account no longer exists");
    return undefined;
  }

  private checkScope(x: Exchange): undefined {
    if (x.match.kind === "found") authorize(x.principal!, x.match.route.family, x.method === "GET" ? "read" : "write");
    return undefined;
  }

  private rateLimit(x: Exchange): Reply | undefined {
    const account = x.account!;
    const decision = this.emulator.rateLimiter.check(x.principal!.userId, account.rateLimits, account.exempt, x.now);
    x.headers = decision.headers;
    if (decision.allowed) return undefined;
    return problem(429, `Rate limit exceeded for the ${decision.window} window (${decision.quota} requests)`, {
      headers: { "Retry-After": String(decision.retryAfter) },
    });
  }

  private requireRoute(x: Exchange): Reply | undefined {
    if (x.match.kind === "not-found") return problem(404, `There is no operation at ${x.method} ${x.path}`);
    if (x.match.kind === "method-not-allowed") {
      return problem(405, `${x.method} is not allowed on ${x.path}`, { headers: { Allow: x.match.allowed.join(", ") } });
    }
    return undefined;
  }

  private parseJson<R extends BaseRoute<unknown>>(x: Exchange<R>): Reply | undefined {
    if (x.match.kind !== "found" || !x.match.route.body) return undefined;
    const text = x.raw?.toString("utf8") ?? "";
    if (text.trim() === "") return undefined;
    try {
      x.json = JSON.parse(text);
    } catch (error) {
      return problem(400, `The request body is not valid JSON: ${(error as Error).message}`);
    }
    return undefined;
  }

  /** The route's schema, plus `more` rules on the raw body; every violation at once. `empty` stands for an absent body. */
  private validate<R extends BaseRoute<unknown>>(x: Exchange<R>, empty: unknown, more: (json: unknown) => string[]): Reply | undefined {
    if (x.match.kind !== "found") return undefined;
    const route = x.match.route;
    if (!route.body) return undefined;
    const json = x.json ?? empty;
    const parsed = parseWire(route.body, json);
    const violations = parsed.ok ? [] : [...parsed.violations];
    violations.push(...more(json));
    if (violations.length > 0) {
      const status = route.invalidStatus ?? 422;
      const detail = route.invalidDetail ?? (status === 422 ? "The request body does not match the contract" : "Malformed request body");
      return problem(status, detail, { errors: violations });
    }
    x.value = parsed.ok ? parsed.value : undefined;
    return undefined;
  }

  /** API rules that need the account or the catalog (422, reported with the schema's). */
  private routeViolations(x: Exchange, json: unknown): string[] {
    if (x.match.kind !== "found") return [];
    return x.match.route.violations?.(json, this.operation(x, json)) ?? [];
  }

  private checkCrossField(x: Exchange): Reply | undefined {
    if (x.match.kind !== "found" || !x.match.route.crossField) return undefined;
    const broken = x.match.route.crossField(x.value, this.operation(x, x.value));
    return broken.length > 0 ? problem(400, broken.join("; "), { errors: broken }) : undefined;
  }

  private async operate(x: Exchange): Promise<Reply> {
    if (x.match.kind !== "found") return problem(404, `There is no operation at ${x.method} ${x.path}`);
    const op = this.operation(x, x.value);
    const route = x.match.route;
    const reply = this.saved(x, await route.handle(op));
    // The answer shape rewrites successful bodies only; problems are the same in every shape.
    if (reply.kind === "json" && reply.status < 300 && reply.body !== undefined) {
      reply.body = profileOf(this.emulator.shape).view(`${route.method} ${route.path}`, reply.body);
    }
    return reply;
  }

  /** Saved before the reply leaves: a kill after this point loses nothing the client was told. */
  private saved<R>(x: Exchange<R>, reply: Reply): Reply {
    if (x.method !== "GET" && reply.status < 400) this.emulator.persist();
    return reply;
  }

  // ---- the control plane's checks --------------------------------------------------------------

  private checkAdminToken(x: Exchange<ControlRoute<unknown>>): undefined {
    if (x.req.headers.authorization !== `Bearer ${this.adminToken}`) {
      throw new ApiError(401, "The control plane needs Authorization: Bearer <admin token>");
    }
    return undefined;
  }

  /** An unknown path and a known path with another method are both "no such operation". */
  private requireControlRoute(x: Exchange<ControlRoute<unknown>>): Reply | undefined {
    return x.match.kind === "found" ? undefined : problem(404, `There is no control-plane operation at ${x.method} ${x.path}`);
  }

  private operateControl(x: Exchange<ControlRoute<unknown>>): Reply {
    if (x.match.kind !== "found") return problem(404, `There is no control-plane operation at ${x.method} ${x.path}`);
    return this.saved(x, x.match.route.handle({ params: x.match.params, body: x.value, now: this.emulator.clock.now() }));
  }

  private operation(x: Exchange, body: unknown): Operation<unknown> {
    return {
      principal: x.principal!,
      account: x.account!,
      params: x.match.kind === "found" ? x.match.params : {},
      query: x.query,
      headers: x.req.headers,
      body,
      now: this.emulator.clock.now(),
    };
  }

  // ---- plumbing --------------------------------------------------------------------------------

  /** Reads the body, keeping at most the limit + 1 byte; the rest is drained and counted. */
  private readBody<R>(x: Exchange<R>, limit: number): Promise<void> {
    const req = x.req;
    if (x.raw !== undefined || req.readableEnded) return Promise.resolve();
    if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
      x.raw = Buffer.alloc(0);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      req.on("data", (chunk: Buffer) => {
        x.bodyBytes += chunk.length;
        if (kept <= limit) {
          chunks.push(chunk);
          kept += chunk.length;
        }
        if (x.bodyBytes > Math.max(DRAIN_LIMIT, limit)) {
          x.closeAfter = true;
          req.pause();
          x.raw = Buffer.alloc(0);
          resolve();
        }
      });
      req.on("end", () => {
        x.raw = Buffer.concat(chunks);
        resolve();
      });
      req.on("error", reject);
    });
  }

  private reply(res: ServerResponse, reply: Reply, headers: Headers): void {
    send(res, reply, headers, this.emulator.clock.now());
  }
}
