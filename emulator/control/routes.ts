/**
 * The control plane under `/_emulator/`, for tests and demos (documented in docs/emulator.md).
 * Served by the same gateway, router, problem answers and send path as the API (server.ts):
 * guarded by the admin token, JSON in and out, never rate limited, faulted or logged; accepted
 * changes are saved before the reply leaves. Handlers throw `ApiError`s with explicit statuses.
 */
import { z } from "zod";
import type { Emulator } from "../emulator";
import { ApiError, badRequest, json } from "../http";
import { FixtureError, parseFixture } from "../fixture";
import { TIMING_KEYS } from "../options";
import { controlRoute, type ControlOperation, type ControlRoute } from "../router";
import { podView } from "../pods/view";
import { sandboxView } from "../sandboxes/view";
import { iso, parseMillis } from "../time";
import {
  AccountPatch,
  CapacityRequest,
  ClockRequest,
  FailNextRequest,
  FaultInput,
  PodErrorRequest,
  ShapeRequest,
  TimingsRequest,
  type CapacityAnswer,
  type ClockState,
} from "./schemas";

/** Control-plane lookups act across accounts, so their 404 names no account. */
function found<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined) throw new ApiError(404, `No ${what} "${id}"`);
  return value;
}

/** Any JSON body, checked by the handler (a fixture has its own loader and wording). */
const AnyJson = z.unknown();

export function controlRoutes(e: Emulator): Array<ControlRoute<unknown>> {
  const clockState = (): ClockState => ({ now: iso(e.clock.now()), frozen: e.clock.frozen });
  const podOf = (id: string, now: number) => found(e.pods.any(id, now), "pod", id);
  const sandboxOf = (id: string) => found(e.sandboxes.any(id), "sandbox", id);
  /** A lifecycle event (404 unknown id, 409 wrong state, from the stores); open log streams are checked once the reply is on its way. */
  const event = <B>(path: string, apply: (op: ControlOperation<B>) => void, body?: z.ZodType<B>) =>
    controlRoute<B>({
      method: "POST",
      path,
      body,
      handle: (op) => {
        apply(op);
        setImmediate(() => e.logStreams.tickAll());
        return json(200, { ok: true });
      },
    });

  /** A list the control plane reads and empties (`more`: its other methods, between the two). */
  const clearable = (name: "faults" | "requests", store: { list(): unknown[]; clear(): void }, ...more: Array<ControlRoute<unknown>>) => [
    controlRoute({ method: "GET", path: `/_emulator/${name}`, handle: () => json(200, { [name]: store.list() }) }),
    ...more,
    controlRoute({
      method: "DELETE",
      path: `/_emulator/${name}`,
      handle: () => {
        store.clear();
        return json(200, { [name]: [] });
      },
    }),
  ];

  return [
    controlRoute({
      method: "POST",
      path: "/_emulator/reset",
      handle: () => {
        e.reset();
        return json(200, { reset: true, fixture: e.fixture.name });
      },
    }),
    controlRoute({
      method: "POST",
      path: "/_emulator/fixture",
      body: AnyJson,
      handle: (op) => {
        let fixture;
        try {
          fixture = parseFixture(op.body);
        } catch (error) {
          if (error instanceof FixtureError) throw badRequest("Invalid fixture", error.violations);
          throw error;
        }
        e.reset(fixture);
        return json(200, { reset: true, fixture: fixture.name, apiKey: fixture.defaultApiKey });
      },
    }),
    controlRoute({ method: "GET", path: "/_emulator/state", handle: (op) => json(200, controlState(e, op.now, clockState())) }),

    controlRoute({ method: "GET", path: "/_emulator/clock", handle: () => json(200, clockState()) }),
    controlRoute({
      method: "POST",
      path: "/_emulator/clock",
      body: ClockRequest,
      handle: ({ body }) => {
        const at = body.set === undefined ? undefined : parseMillis(body.set);
        if (body.set !== undefined && at === undefined) throw badRequest("set: must be an RFC 3339 date-time");
        // Freeze first and resume last, so `set` and `advanceMs` land exactly where asked.
        if (body.freeze === true) e.clock.freeze();
        if (at !== undefined) e.clock.set(at);
        if (body.advanceMs) e.clock.advance(body.advanceMs);
        if (body.freeze === false) e.clock.unfreeze();
        e.sweep();
        return json(200, clockState());
      },
    }),

    controlRoute({ method: "GET", path: "/_emulator/timings", handle: () => json(200, e.timings) }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/timings",
      body: TimingsRequest,
      handle: ({ body }) => {
        for (const key of TIMING_KEYS) if (body[key] !== undefined) e.timings[key] = body[key];
        return json(200, e.timings);
      },
    }),

    controlRoute({ method: "GET", path: "/_emulator/shape", handle: () => json(200, { shape: e.shape }) }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/shape",
      body: ShapeRequest,
      handle: ({ body }) => {
        e.shape = body.shape;
        return json(200, { shape: e.shape });
      },
    }),

    controlRoute({ method: "GET", path: "/_emulator/capacity", handle: () => json(200, e.capacity.state()) }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/capacity",
      body: CapacityRequest,
      handle: ({ body }) => {
        const answer: CapacityAnswer = body.cpu ? { cpuPool: e.capacity.setCpuCapacity(body.cpu) } : { machines: e.capacity.setGpuCapacity(body.gpu) };
        return json(200, answer);
      },
    }),

    ...clearable(
      "faults",
      e.faults,
      controlRoute({
        method: "POST",
        path: "/_emulator/faults",
        body: FaultInput,
        handle: ({ body }) => {
          if (body.status === undefined && !body.drop && body.latencyMs === undefined) {
            throw badRequest("A fault needs at least one of status, drop or latencyMs");
          }
          return json(201, e.faults.add(body));
        },
      }),
    ),

    ...clearable("requests", e.requestLog),

    controlRoute({
      method: "GET",
      path: "/_emulator/accounts/:id",
      handle: ({ params }) => json(200, found(e.accounts.records.get(params.id), "account", params.id)),
    }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/accounts/:id",
      body: AccountPatch,
      handle: ({ params, body }) => {
        const account = found(e.accounts.records.get(params.id), "account", params.id);
        e.accounts.update(account, body);
        // New quotas start from empty windows, so a test's setup calls do not count against them.
        e.rateLimiter.clear();
        return json(200, account);
      },
    }),

    event("/_emulator/pods/:id/exit", ({ params, now }) => e.pods.exit(podOf(params.id, now), now)),
    event("/_emulator/pods/:id/error", ({ params, body, now }) => e.pods.error(podOf(params.id, now), now, body.message), PodErrorRequest),
    event("/_emulator/pods/:id/fail-start", ({ params, now }) => e.pods.failStart(podOf(params.id, now), now)),
    event("/_emulator/sandboxes/:id/exit", ({ params, now }) => e.sandboxes.exit(sandboxOf(params.id), now)),
    event("/_emulator/sandboxes/:id/fail-start", ({ params, now }) => e.sandboxes.failStart(sandboxOf(params.id), now)),
    controlRoute({
      method: "POST",
      path: "/_emulator/fail-next",
      body: FailNextRequest,
      handle: ({ body }) => {
        e.setFailNext(body.kind, body.count);
        return json(200, e.failNextCounts());
      },
    }),
  ];
}

/** GET /_emulator/state: everything, across accounts (pods, sandboxes and endpoints name their account). */
function controlState(e: Emulator, now: number, clock: ClockState) {
  return {
    fixture: e.fixture.name,
    clock,
    timings: e.timings,
    shape: e.shape,
    accounts: e.accounts.records.all(),
    pods: e.pods.live(now).map((p) => ({ accountId: p.accountId, ...podView(p, now) })),
    sandboxes: e.sandboxes.all().map((sb) => ({ accountId: sb.accountId, ...sandboxView(e.sandboxes, sb, now) })),
    templates: e.templates.all(),
    networkVolumes: e.volumes.allNetwork(),
    endpoints: e.serverless.all().map((x) => ({ accountId: x.accountId, ...x.view })),
    capacity: e.capacity.state(),
    faults: e.faults.list(),
    failNext: e.failNextCounts(),
    openLogStreams: e.logStreams.count,
  };
}

export type ControlState = ReturnType<typeof controlState>;
