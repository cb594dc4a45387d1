/**
 * The control plane under `/_emulator/`, for tests and demos (documented in docs/emulator.md).
 * Served by the same gateway, router, problem answers and send path as the API (server.ts):
 * guarded by the admin token, JSON in and out, never rate limited, faulted or logged; accepted
 * changes are saved before the reply leaves. Handlers throw `ApiError`s with explicit statuses.
 */
import { z } from "zod";
import type { Accounts } from "../accounts/store";
import type { Clock } from "../clock";
import type { Services } from "../family";
import type { Faults } from "../faults";
import { FixtureError, parseFixture, type Fixture } from "../fixture";
import { ApiError, badRequest, json } from "../http";
import { TIMING_KEYS } from "../options";
import type { Capacity } from "../placement/capacity";
import type { PodRecord } from "../pods/record";
import type { Pods } from "../pods/store";
import { gpuUtilizationAt } from "../pods/view";
import type { RateLimiter } from "../rate-limit";
import type { RequestLog } from "../request-log";
import { controlRoute, type ControlOperation, type ControlRoute } from "../router";
import type { Sandboxes } from "../sandboxes/store";
import type { Serverless } from "../serverless/store";
import type { ServiceHost } from "../services/host";
import type { Shape } from "../shape";
import { iso, parseMillis } from "../time";
import {
  AccountPatch,
  ApiKeyIssue,
  CapacityRequest,
  ClockRequest,
  FailNextRequest,
  FaultInput,
  GpuUtilizationRequest,
  NextServicesRequest,
  PodErrorRequest,
  ServiceRequest,
  ShapeRequest,
  TimingsRequest,
  WorkersRequest,
  type CapacityAnswer,
  type ClockState,
  type FailNextCounts,
  type GpuUtilizationReport,
  type WorkersAnswer,
} from "./schemas";

/** What the control plane acts on: the emulator's settings and cross-cutting state, and the families it drives. */
export interface ControlWorld extends Pick<Services, "clock" | "timings" | "logStreams"> {
  /** The answer shape; the control plane switches it. */
  shape: Shape;
  readonly fixture: Fixture;
  readonly accounts: Accounts;
  readonly capacity: Capacity;
  readonly pods: Pods;
  readonly sandboxes: Sandboxes;
  readonly serverless: Serverless;
  /** The listeners of running pods' services (services/host.ts). */
  readonly serviceHost: ServiceHost;
  readonly faults: Faults;
  readonly requestLog: RequestLog;
  readonly rateLimiter: RateLimiter;
  /** Back to the fixture (the current one, or a new one). */
  reset(fixture?: Fixture): void;
  /** Writes down what a clock change brought about. */
  sweep(): void;
  setFailNext(kind: "pod" | "sandbox", count: number): void;
  failNextCounts(): FailNextCounts;
  /** GET /_emulator/state (emulator.ts: every family's members, and the emulator's own). */
  state(now: number): object;
}

/** The clock as the control plane reports it. */
export const clockState = (clock: Clock): ClockState => ({ now: iso(clock.now()), frozen: clock.frozen });

/** Control-plane lookups act across accounts, so their 404 names no account. */
function found<T>(value: T | undefined, what: string, id: string): T {
  if (value === undefined) throw new ApiError(404, `No ${what} "${id}"`);
  return value;
}

/** A pod's GPU utilisation setting as the control plane answers it. */
function gpuUtilization(pod: PodRecord, now: number): GpuUtilizationReport {
  const settings = pod.gpuUtilization;
  if (!settings) return { podId: pod.id, setting: null, since: null, util: null };
  return { podId: pod.id, setting: settings.spec, since: iso(settings.since), util: gpuUtilizationAt(settings, now) };
}

/** Any JSON body, checked by the handler (a fixture has its own loader and wording). */
const AnyJson = z.unknown();

export function controlRoutes(e: ControlWorld): Array<ControlRoute<unknown>> {
  const podOf = (id: string, now: number) => found(e.pods.any(id, now), "pod", id);
  const sandboxOf = (id: string) => found(e.sandboxes.any(id), "sandbox", id);
  const endpointOf = (id: string) => found(e.serverless.any(id), "serverless endpoint", id);
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

  /** A list the control plane reads and empties at `/_emulator/<path>`, answered under the path's last segment (`more`: its other methods, between the two). */
  const clearable = (path: string, store: { list(): unknown[]; clear(): void }, ...more: Array<ControlRoute<unknown>>) => {
    const name = path.split("/").pop()!;
    return [
      controlRoute({ method: "GET", path: `/_emulator/${path}`, handle: () => json(200, { [name]: store.list() }) }),
      ...more,
      controlRoute({
        method: "DELETE",
        path: `/_emulator/${path}`,
        handle: () => {
          store.clear();
          return json(200, { [name]: [] });
        },
      }),
    ];
  };

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
    controlRoute({ method: "GET", path: "/_emulator/state", handle: (op) => json(200, e.state(op.now)) }),

    controlRoute({ method: "GET", path: "/_emulator/clock", handle: () => json(200, clockState(e.clock)) }),
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
        return json(200, clockState(e.clock));
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

    controlRoute({ method: "GET", path: "/_emulator/capacity", handle: ({ now }) => json(200, e.capacity.state(now)) }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/capacity",
      body: CapacityRequest,
      handle: ({ body, now }) => {
        if (body.cpu) return json(200, { cpuPool: e.capacity.setCpuCapacity(body.cpu) } satisfies CapacityAnswer);
        // With `afterSeconds` the same setting waits for the emulator clock (placement/capacity.ts).
        const { afterSeconds, ...change } = body.gpu;
        if (afterSeconds === undefined) return json(200, { machines: e.capacity.setGpuCapacity(change, now) } satisfies CapacityAnswer);
        const scheduled = e.capacity.scheduleGpuCapacity(change, afterSeconds, now);
        return json(200, { machines: e.capacity.gpuPool(change, now), scheduled } satisfies CapacityAnswer);
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

    // Key rotation as the console does it: issue the new key, revoke the old one (401 from then on).
    controlRoute({
      method: "PUT",
      path: "/_emulator/api-keys/:key",
      body: ApiKeyIssue,
      handle: ({ params, body }) => {
        found(e.accounts.records.get(body.accountId), "account", body.accountId);
        e.accounts.issueKey({ key: params.key, ...body });
        return json(200, { key: params.key, ...body });
      },
    }),
    controlRoute({
      method: "DELETE",
      path: "/_emulator/api-keys/:key",
      handle: ({ params }) => {
        found(e.accounts.revokeKey(params.key) ? true : undefined, "API key", params.key);
        return json(200, { revoked: true });
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

    // The services on running pods' ports (services/host.ts): settings in memory only.
    controlRoute({
      method: "GET",
      path: "/_emulator/pods/:id/service",
      handle: ({ params, now }) => json(200, e.serviceHost.report(podOf(params.id, now), now)),
    }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/pods/:id/service",
      body: ServiceRequest,
      handle: ({ params, body, now }) => {
        const pod = podOf(params.id, now);
        e.pods.setServiceSettings(pod, { mode: body.mode, delayMs: body.delayMs ?? null, since: now });
        // What the services print changes with their settings: open log streams catch up.
        setImmediate(() => e.logStreams.tickAll());
        return json(200, e.serviceHost.report(pod, now));
      },
    }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/services/next",
      body: NextServicesRequest,
      handle: ({ body }) => json(200, e.serviceHost.setNext(body)),
    }),
    ...clearable("services/events", e.serviceHost.events),

    // A GPU pod's utilisation (pods/view.ts): settings in memory only, as the services'.
    controlRoute({
      method: "GET",
      path: "/_emulator/pods/:id/gpu-utilization",
      handle: ({ params, now }) => json(200, gpuUtilization(podOf(params.id, now), now)),
    }),
    controlRoute({
      method: "PUT",
      path: "/_emulator/pods/:id/gpu-utilization",
      body: GpuUtilizationRequest,
      handle: ({ params, body, now }) => {
        const pod = podOf(params.id, now);
        e.pods.setGpuUtilization(pod, { spec: body, since: now });
        return json(200, gpuUtilization(pod, now));
      },
    }),
    controlRoute({
      method: "DELETE",
      path: "/_emulator/pods/:id/gpu-utilization",
      handle: ({ params, now }) => {
        const pod = podOf(params.id, now);
        e.pods.setGpuUtilization(pod, undefined);
        return json(200, gpuUtilization(pod, now));
      },
    }),

    // An endpoint's workers (serverless/workers.ts): settings in memory only.
    controlRoute({
      method: "PUT",
      path: "/_emulator/serverless/:id/workers",
      body: WorkersRequest,
      handle: ({ params, body, now }) => {
        const endpoint = endpointOf(params.id);
        e.serverless.setWorkerSettings(endpoint, { mode: body.mode, delayMs: body.delayMs ?? null, since: now });
        const answer: WorkersAnswer = { endpointId: endpoint.id, mode: body.mode, delayMs: body.delayMs ?? null };
        return json(200, answer);
      },
    }),
  ];
}
