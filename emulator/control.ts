/**
 * The control plane under `/_emulator/`, for tests and demos (documented in docs/emulator.md).
 * Guarded by the admin token (`Authorization: Bearer <adminToken>`); JSON in and out; never
 * rate limited, never faulted, never in the request log.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { formatIssues } from "../contract";
import type { Emulator } from "./emulator";
import { FaultInput, type Faults } from "./faults";
import { FixtureError, MachineFixture, parseFixture } from "./fixture";
import { problem, json, type Reply } from "./http";
import { TIMING_KEYS, type Timings } from "./options";
import { AccountPatch } from "./resources/accounts";
import { SHAPES } from "./shape";
import { httpDate, iso, parseMillis } from "./time";

const CONTROL_BODY_LIMIT = 32 * 1024 * 1024;

const ClockRequest = z.strictObject({
  freeze: z.boolean().optional(),
  advanceMs: z.number().min(0).optional(),
  set: z.string().optional(),
});

const TimingsRequest = z.strictObject(
  Object.fromEntries(TIMING_KEYS.map((k) => [k, z.number().min(0).optional()])) as Record<keyof Timings, z.ZodOptional<z.ZodNumber>>,
);

const GpuCapacityRequest = z.strictObject({
  dataCenterId: z.string(),
  gpuTypeId: z.string(),
  cloud: z.enum(["SECURE", "COMMUNITY"]).default("SECURE"),
  available: z.int().min(0).optional(),
  machines: z.array(MachineFixture).optional(),
  cudaVersion: z.string().nullable().optional(),
  ramPerGpu: z.number().min(1).optional(),
  vcpuPerGpu: z.number().min(1).optional(),
});
const CpuCapacityRequest = z.strictObject({ dataCenterId: z.string(), cpuFlavorId: z.string(), available: z.int().min(0) });

const ShapeRequest = z.strictObject({ shape: z.enum(SHAPES) });

const FailNextRequest = z.strictObject({ kind: z.enum(["pod", "sandbox"]), count: z.int().min(0).default(1) });
const PodErrorRequest = z.strictObject({ message: z.string().optional() });

class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: string[],
  ) {
    super(detail);
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw new ControlError(400, "Invalid control-plane request", formatIssues(result.error.issues));
  return result.data;
}

type Handler = (body: unknown, params: string[]) => Reply;

export class ControlPlane {
  private readonly routes: Array<{ method: string; pattern: RegExp; handler: Handler }> = [];

  constructor(
    private readonly emulator: Emulator,
    private readonly adminToken: string,
  ) {
    const e = emulator;
    const on = (method: string, path: string, handler: Handler) =>
      this.routes.push({ method, pattern: new RegExp(`^/_emulator${path.replace(/:[a-z]+/g, "([^/]+)")}/?$`), handler });

    on("POST", "/reset", () => {
      e.reset();
      return json(200, { reset: true, fixture: e.fixture.name });
    });
    on("POST", "/fixture", (body) => {
      let fixture;
      try {
        fixture = parseFixture(body);
      } catch (error) {
        if (error instanceof FixtureError) throw new ControlError(400, "Invalid fixture", error.violations);
        throw error;
      }
      e.reset(fixture);
      return json(200, { reset: true, fixture: fixture.name, apiKey: fixture.defaultApiKey });
    });
    on("GET", "/state", () => json(200, this.state()));

    on("GET", "/clock", () => json(200, this.clock()));
    on("POST", "/clock", (body) => {
      const request = parse(ClockRequest, body);
      const at = request.set === undefined ? undefined : parseMillis(request.set);
      if (request.set !== undefined && at === undefined) throw new ControlError(400, "set: must be an RFC 3339 date-time");
      // Freeze first and resume last, so `set` and `advanceMs` land exactly where asked.
      if (request.freeze === true) e.clock.freeze();
      if (at !== undefined) e.clock.set(at);
      if (request.advanceMs) e.clock.advance(request.advanceMs);
      if (request.freeze === false) e.clock.unfreeze();
      e.sweep();
      e.persist();
      return json(200, this.clock());
    });

    on("GET", "/timings", () => json(200, e.timings));
    on("PUT", "/timings", (body) => {
      const request = parse(TimingsRequest, body);
      for (const key of TIMING_KEYS) if (request[key] !== undefined) e.timings[key] = request[key]!;
      return json(200, e.timings);
    });

    on("GET", "/shape", () => json(200, { shape: e.shape }));
    on("PUT", "/shape", (body) => {
      e.shape = parse(ShapeRequest, body).shape;
      return json(200, { shape: e.shape });
    });

    on("GET", "/capacity", () => json(200, e.catalog.capacityState()));
    on("PUT", "/capacity", (body) => {
      const isCpu = typeof body === "object" && body !== null && "cpuFlavorId" in body;
      const result = isCpu ? e.catalog.setCpuCapacity(parse(CpuCapacityRequest, body)) : e.catalog.setGpuCapacity(parse(GpuCapacityRequest, body));
      e.persist();
      return json(200, isCpu ? { cpuPool: result } : { machines: result });
    });

    on("GET", "/faults", () => json(200, { faults: e.faults.list() }));
    on("POST", "/faults", (body) => json(201, this.addFault(e.faults, body)));
    on("DELETE", "/faults", () => {
      e.faults.clear();
      return json(200, { faults: [] });
    });

    on("GET", "/requests", () => json(200, { requests: e.requestLog.list() }));
    on("DELETE", "/requests", () => {
      e.requestLog.clear();
      return json(200, { requests: [] });
    });

    on("GET", "/accounts/:id", (_body, [id]) => {
      const account = e.accounts.get(id);
      if (!account) throw new ControlError(404, `No account "${id}"`);
      return json(200, account);
    });
    on("PUT", "/accounts/:id", (body, [id]) => {
      const account = e.accounts.update(id, parse(AccountPatch, body));
      if (!account) throw new ControlError(404, `No account "${id}"`);
      // New quotas start from empty windows, so a test's setup calls do not count against them.
      e.rateLimiter.clear();
      e.persist();
      return json(200, account);
    });

    const podEvent = (change: (id: string, now: number, body: unknown) => unknown): Handler => (body, [id]) => {
      const now = e.clock.now();
      const result = change(id, now, body);
      if (typeof result === "string") throw new ControlError(result.startsWith("No ") ? 404 : 409, result);
      e.persist();
      e.logStreams.tickAll();
      return json(200, { ok: true });
    };
    on("POST", "/pods/:id/exit", podEvent((id, now) => e.pods.exit(id, now)));
    on("POST", "/pods/:id/error", podEvent((id, now, body) => e.pods.error(id, now, parse(PodErrorRequest, body).message)));
    on("POST", "/pods/:id/fail-start", podEvent((id, now) => e.pods.failStart(id, now)));
    on("POST", "/sandboxes/:id/exit", podEvent((id, now) => e.sandboxes.exit(id, now)));
    on("POST", "/sandboxes/:id/fail-start", podEvent((id, now) => e.sandboxes.failStartOf(id, now)));
    on("POST", "/fail-next", (body) => {
      const request = parse(FailNextRequest, body);
      e.setFailNext(request.kind, request.count);
      e.persist();
      return json(200, e.failNextCounts());
    });
  }

  private addFault(faults: Faults, body: unknown) {
    const input = parse(FaultInput, body);
    if (input.status === undefined && !input.drop && input.latencyMs === undefined) {
      throw new ControlError(400, "A fault needs at least one of status, drop or latencyMs");
    }
    return faults.add(input);
  }

  private clock() {
    return { now: iso(this.emulator.clock.now()), frozen: this.emulator.clock.frozen };
  }

  private state() {
    const e = this.emulator;
    const now = e.clock.now();
    return {
      fixture: e.fixture.name,
      clock: this.clock(),
      timings: e.timings,
      shape: e.shape,
      accounts: e.accounts.all(),
      pods: e.pods.views(now),
      sandboxes: e.sandboxes.views(now),
      templates: e.templates.all(),
      networkVolumes: e.volumes.allNetwork(),
      endpoints: e.serverless.all().map((x) => ({ accountId: x.accountId, ...x.view })),
      capacity: e.catalog.capacityState(),
      faults: e.faults.list(),
      failNext: e.failNextCounts(),
      openLogStreams: e.logStreams.count,
    };
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    let reply: Reply;
    try {
      const body = await this.readJson(req);
      if (!this.authorized(req)) throw new ControlError(401, "The control plane needs Authorization: Bearer <admin token>");
      const found = this.routes.find((r) => r.method === method && r.pattern.test(path));
      if (!found) throw new ControlError(404, `There is no control-plane operation at ${method} ${path}`);
      const params = (found.pattern.exec(path) ?? []).slice(1).map(decodeURIComponent);
      reply = found.handler(body, params);
    } catch (error) {
      if (error instanceof ControlError) reply = problem(error.status, error.detail, { errors: error.errors });
      else if (error instanceof SyntaxError) reply = problem(400, `The request body is not valid JSON: ${error.message}`);
      else reply = problem(400, (error as Error).message);
    }
    if (reply.kind !== "json") return;
    const text = reply.body === undefined ? "" : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...reply.headers,
      Date: httpDate(this.emulator.clock.now()),
      "Content-Type": reply.contentType ?? "application/json",
      "Content-Length": String(Buffer.byteLength(text)),
    });
    res.end(text);
  }

  private authorized(req: IncomingMessage): boolean {
    return req.headers.authorization === `Bearer ${this.adminToken}`;
  }

  private readJson(req: IncomingMessage): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > CONTROL_BODY_LIMIT) {
          reject(new ControlError(413, `Control-plane bodies are limited to ${CONTROL_BODY_LIMIT} bytes`));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      req.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8").trim();
        try {
          resolve(text === "" ? undefined : JSON.parse(text));
        } catch (error) {
          reject(error);
        }
      });
      req.on("error", reject);
    });
  }
}
