/**
 * Sandboxes: short-lived containers with an idle timeout and a maximum lifetime.
 *
 * Like pods, state is derived from the clock: CREATING until `createdAt + creatingMs`, then
 * RUNNING until the idle deadline (`lastActivityAt + idleTimeoutSeconds`) or the lifetime
 * deadline (`startedAt + maxLifetimeSeconds`) passes, whichever is first. An open log stream
 * keeps `lastActivityAt` at "now". Explicit events (DELETE, container exit) are stored as the
 * sandbox's `final` state. A periodic sweep writes derived expiries down too, but reads never
 * depend on it: every read evaluates the deadlines against the emulator clock.
 */
import {
  CreateSandboxRequest,
  ExtendSandboxRequest,
  MIN_IDLE_TIMEOUT_SECONDS,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  DEFAULT_MAX_LIFETIME_SECONDS,
  UpdateSandboxRequest,
  createSandboxViolations,
  templateUseViolation,
  type SandboxState,
  type TerminationReason,
} from "../../contract";
import type { Fixture } from "../fixture";
import { ApiError, badRequest, json, noContent, notFound, unprocessable, type Reply } from "../http";
import { hash32, randomId } from "../ids";
import { containerId, imagePullLines, outputLine, processOutput } from "../logs/lines";
import type { LogSubject } from "../logs/stream";
import { lastVisibleUs, periodic, Schedule, type LogEvent, type RunLog } from "../logs/timeline";
import type { ResourceModule, World } from "../module";
import { QueryReader } from "../query";
import { route, type Operation, type Route } from "../router";
import { iso, isoOrNull } from "../time";

interface Final {
  state: "TERMINATED" | "FAILED";
  reason: TerminationReason;
  at: number;
  endUs: number;
}

export interface SandboxRecord {
  id: string;
  accountId: string;
  name: string;
  templateId: string | null;
  image: string;
  env: Record<string, string>;
  dataCenterId: string;
  compute: { vcpuCount: number; memoryInGb: number; containerDiskInGb: number; costPerHr: number };
  ports: string[];
  egressPolicy: { mode: string; allow: string[] };
  idleTimeoutSeconds: number;
  maxLifetimeSeconds: number;
  labels: Record<string, string>;
  createdAt: number;
  creatingMs: number;
  logIntervalMs: number;
  /** The container will fail to start (control plane). */
  failStart: boolean;
  /** Last recorded activity (container start, log stream open/close). */
  lastActivityAt: number;
  updatedAt: number;
  final?: Final;
}

interface Derived {
  state: SandboxState;
  startedAt: number | null;
  lastActivityAt: number;
  idleExpiresAt: number;
  expiresAt: number;
  final?: Final;
}

const EXPIRY_LINES: Partial<Record<TerminationReason, (sb: SandboxRecord) => string>> = {
  USER_REQUESTED: () => "Terminating sandbox at the user's request; compute released",
  IDLE_TIMEOUT: (sb) => `No activity for ${sb.idleTimeoutSeconds}s; terminating sandbox (IDLE_TIMEOUT)`,
  MAX_LIFETIME: (sb) => `Maximum lifetime of ${sb.maxLifetimeSeconds}s reached; terminating sandbox (MAX_LIFETIME)`,
};

export class Sandboxes implements ResourceModule {
  readonly name = "sandboxes";
  private sandboxes = new Map<string, SandboxRecord>();
  /** Open log streams per sandbox (not persisted: a restart closes every connection). */
  private readonly streams = new Map<string, number>();

  constructor(private readonly world: World) {}

  reset(_fixture: Fixture): void {
    this.sandboxes = new Map();
  }

  snapshot(): SandboxRecord[] {
    return [...this.sandboxes.values()];
  }

  restore(slice: unknown): void {
    this.sandboxes = new Map((slice as SandboxRecord[]).map((s) => [s.id, s]));
  }

  // ---- derived state ---------------------------------------------------------------------------

  derive(sb: SandboxRecord, now: number): Derived {
    const startAt = sb.createdAt + sb.creatingMs;
    const deadlines = (startedAt: number | null, lastActivityAt: number) => ({
      startedAt,
      lastActivityAt,
      idleExpiresAt: lastActivityAt + sb.idleTimeoutSeconds * 1000,
      expiresAt: (startedAt ?? sb.createdAt) + sb.maxLifetimeSeconds * 1000,
    });
    if (sb.final) {
      const startedAt = sb.final.reason === "START_FAILED" || sb.final.at < startAt ? null : startAt;
      return { ...deadlines(startedAt, Math.max(sb.lastActivityAt, startedAt ?? sb.createdAt)), state: sb.final.state, final: sb.final };
    }
    if (sb.failStart && now >= startAt) {
      const final: Final = { state: "FAILED", reason: "START_FAILED", at: startAt, endUs: startAt * 1000 + 3 };
      return { ...deadlines(null, sb.lastActivityAt), state: "FAILED", final };
    }
    const startedAt = now >= startAt ? startAt : null;
    const streaming = (this.streams.get(sb.id) ?? 0) > 0;
    const d = deadlines(startedAt, Math.max(sb.lastActivityAt, startedAt ?? sb.createdAt, streaming ? now : 0));
    const expire = (reason: TerminationReason, at: number): Derived => ({
      ...d,
      state: "TERMINATED",
      final: { state: "TERMINATED", reason, at, endUs: at * 1000 },
    });
    if (startedAt === null) return now >= d.expiresAt ? expire("MAX_LIFETIME", d.expiresAt) : { ...d, state: "CREATING" };
    if (now >= Math.min(d.idleExpiresAt, d.expiresAt)) {
      return d.expiresAt <= d.idleExpiresAt ? expire("MAX_LIFETIME", d.expiresAt) : expire("IDLE_TIMEOUT", d.idleExpiresAt);
    }
    return { ...d, state: "RUNNING" };
  }

  /** Writes a derived expiry or start failure down, so later changes start from it. */
  private settle(sb: SandboxRecord, now: number): Derived {
    const d = this.derive(sb, now);
    if (d.final && !sb.final) {
      sb.final = d.final;
      sb.updatedAt = d.final.at;
    }
    return d;
  }

  view(sb: SandboxRecord, now: number): Record<string, unknown> {
    const d = this.derive(sb, now);
    return {
      id: sb.id,
      name: sb.name,
      state: d.state,
      templateId: sb.templateId,
      image: sb.image,
      dataCenterId: sb.dataCenterId,
      compute: sb.compute,
      ports: sb.ports,
      egressPolicy: sb.egressPolicy,
      idleTimeoutSeconds: sb.idleTimeoutSeconds,
      maxLifetimeSeconds: sb.maxLifetimeSeconds,
      lastActivityAt: iso(d.lastActivityAt),
      idleExpiresAt: iso(d.idleExpiresAt),
      expiresAt: iso(d.expiresAt),
      labels: sb.labels,
      startedAt: isoOrNull(d.startedAt),
      terminationReason: d.final?.reason ?? null,
      terminatedAt: isoOrNull(d.final?.at),
      createdAt: iso(sb.createdAt),
      updatedAt: iso(Math.max(sb.updatedAt, d.startedAt ?? 0, d.final?.at ?? 0)),
    };
  }

  views(now: number): Array<Record<string, unknown>> {
    return [...this.sandboxes.values()].map((sb) => ({ accountId: sb.accountId, ...this.view(sb, now) }));
  }

  /** Writes every derived expiry down; true when something changed. */
  sweep(now: number): boolean {
    let changed = false;
    for (const sb of this.sandboxes.values()) {
      if (!sb.final && this.settle(sb, now).final) changed = true;
    }
    return changed;
  }

  private find(accountId: string, id: string): SandboxRecord {
    const sb = this.sandboxes.get(id);
    if (!sb || sb.accountId !== accountId) throw notFound("sandbox", id);
    return sb;
  }

  private clampIdle(seconds: number, accountMax: number): number {
    return Math.min(Math.max(seconds, MIN_IDLE_TIMEOUT_SECONDS), accountMax);
  }

  // ---- operations ------------------------------------------------------------------------------

  private create(op: Operation<CreateSandboxRequest>): Reply {
    const { body, account, now } = op;
    const template = body.templateId ? this.world.templates.resolve(account.id, body.templateId) : undefined;
    const wrongTemplate = template && templateUseViolation(template, "sandbox");
    if (wrongTemplate) throw unprocessable("The request does not match the contract", [wrongTemplate]);
    const catalog = this.world.catalog;
    const requested = body.dataCenterIds ?? [];
    const candidates = requested.length > 0 ? requested.filter((id) => catalog.dataCenter(id)) : catalog.allDataCenters().map((d) => d.id);
    if (candidates.length === 0) throw badRequest(`None of the requested data centers exist: ${requested.join(", ")}`);
    const dataCenterId = candidates.find((id) => catalog.hasCpuRoom(id, body.compute.vcpuCount));
    if (!dataCenterId) {
      throw badRequest(`There is no capacity for a ${body.compute.vcpuCount}-vCPU sandbox in ${candidates.join(", ")} right now. Try another data center.`);
    }
    const c = body.compute;
    const costPerHr = Math.round((c.vcpuCount * 0.03 + c.memoryInGb * 0.004 + c.containerDiskInGb * 0.0002) * 10000) / 10000;
    if (account.balance < costPerHr) {
      throw new ApiError(402, `Insufficient balance: this sandbox costs $${costPerHr.toFixed(2)}/hr and the account balance is $${account.balance.toFixed(2)}`);
    }
    const sb: SandboxRecord = {
      id: randomId(12, "sb-"),
      accountId: account.id,
      name: body.name,
      templateId: template?.id ?? null,
      image: body.image ?? template!.image,
      env: { ...(template?.env ?? {}), ...(body.env ?? {}) },
      dataCenterId,
      compute: { ...c, costPerHr },
      ports: body.ports ?? template?.ports ?? [],
      egressPolicy: { mode: body.egressPolicy?.mode ?? "ALLOW_ALL", allow: body.egressPolicy?.allow ?? [] },
      idleTimeoutSeconds: this.clampIdle(body.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS, account.maxIdleTimeoutSeconds),
      maxLifetimeSeconds: body.maxLifetimeSeconds ?? Math.min(DEFAULT_MAX_LIFETIME_SECONDS, account.maxLifetimeSeconds),
      labels: body.labels ?? {},
      createdAt: now,
      creatingMs: this.world.timings.sandboxCreatingMs,
      logIntervalMs: this.world.timings.logIntervalMs,
      failStart: this.world.takeFailNext("sandbox"),
      lastActivityAt: now,
      updatedAt: now,
    };
    this.sandboxes.set(sb.id, sb);
    return json(201, this.view(sb, now));
  }

  private list(op: Operation<unknown>): Reply {
    const q = new QueryReader(op.query);
    const state = q.enumValue("state", ["CREATING", "RUNNING", "TERMINATED", "FAILED"] as const);
    const labels: Array<[string, string]> = [];
    for (const pair of q.repeated("labels")) {
      const at = pair.indexOf("=");
      if (at <= 0) q.fail("labels", `"${pair}" must be key=value`);
      else labels.push([pair.slice(0, at), pair.slice(at + 1)]);
    }
    q.done();
    const out: Array<Record<string, unknown>> = [];
    for (const sb of this.sandboxes.values()) {
      if (sb.accountId !== op.account.id) continue;
      const derived = this.derive(sb, op.now).state;
      // Terminated ones are listed only when asked for; filters combine with AND, exact matches.
      if (state ? derived !== state : derived === "TERMINATED") continue;
      if (!labels.every(([k, v]) => sb.labels[k] === v)) continue;
      out.push(this.view(sb, op.now));
    }
    return json(200, { sandboxes: out });
  }

  private updateIdle(op: Operation<{ idleTimeoutSeconds: number }>): Reply {
    const sb = this.find(op.account.id, op.params.id);
    const d = this.settle(sb, op.now);
    if (d.state !== "RUNNING") {
      throw unprocessable(`Sandbox ${sb.id} is ${d.state}; only a RUNNING sandbox accepts a new idle timeout`);
    }
    // Clamped into [MIN_IDLE_TIMEOUT_SECONDS, account maximum]; idleExpiresAt follows from lastActivityAt, not from now.
    sb.idleTimeoutSeconds = this.clampIdle(op.body.idleTimeoutSeconds, op.account.maxIdleTimeoutSeconds);
    sb.updatedAt = op.now;
    return json(200, this.view(sb, op.now));
  }

  private extend(op: Operation<{ maxLifetimeSeconds: number }>): Reply {
    const sb = this.find(op.account.id, op.params.id);
    const d = this.settle(sb, op.now);
    if (d.state !== "CREATING" && d.state !== "RUNNING") {
      throw unprocessable(`Sandbox ${sb.id} is ${d.state}; only a CREATING or RUNNING sandbox can be extended`);
    }
    const wanted = op.body.maxLifetimeSeconds;
    const violations: string[] = [];
    if (wanted <= sb.maxLifetimeSeconds) violations.push(`maxLifetimeSeconds: must be larger than the current ${sb.maxLifetimeSeconds}`);
    if (wanted > op.account.maxLifetimeSeconds) violations.push(`maxLifetimeSeconds: must be <= ${op.account.maxLifetimeSeconds} (the account maximum)`);
    if (violations.length > 0) throw unprocessable("The new lifetime cannot be applied", violations);
    sb.maxLifetimeSeconds = wanted;
    sb.updatedAt = op.now;
    return json(200, this.view(sb, op.now));
  }

  private remove(op: Operation<unknown>): Reply {
    const sb = this.find(op.account.id, op.params.id);
    const d = this.settle(sb, op.now);
    if (sb.final) {
      // Idempotent on TERMINATED; a FAILED sandbox becomes TERMINATED and keeps its reason.
      if (sb.final.state === "FAILED") {
        sb.final.state = "TERMINATED";
        sb.updatedAt = op.now;
      }
      return noContent();
    }
    const visible = lastVisibleUs([this.runLog(sb, op.now, d)], op.now * 1000 + 999);
    sb.final = { state: "TERMINATED", reason: "USER_REQUESTED", at: op.now, endUs: Math.max(op.now * 1000, visible + 1) };
    sb.updatedAt = op.now;
    return noContent();
  }

  // ---- control plane ---------------------------------------------------------------------------

  /** The main process exits: RUNNING → FAILED (CONTAINER_EXITED). */
  exit(id: string, now: number): SandboxRecord | string {
    const sb = this.sandboxes.get(id);
    if (!sb) return `No sandbox "${id}"`;
    const d = this.settle(sb, now);
    if (d.state !== "RUNNING") return `Sandbox ${id} is ${d.state}, not RUNNING`;
    const visible = lastVisibleUs([this.runLog(sb, now, d)], now * 1000 + 999);
    sb.final = { state: "FAILED", reason: "CONTAINER_EXITED", at: now, endUs: Math.max(now * 1000, visible + 1) };
    sb.updatedAt = now;
    return sb;
  }

  /** The container fails to start: CREATING → FAILED (START_FAILED) when creation would finish. */
  failStartOf(id: string, now: number): SandboxRecord | string {
    const sb = this.sandboxes.get(id);
    if (!sb) return `No sandbox "${id}"`;
    const d = this.settle(sb, now);
    if (d.state !== "CREATING") return `Sandbox ${id} is ${d.state}, not CREATING`;
    sb.failStart = true;
    return sb;
  }

  // ---- logs ------------------------------------------------------------------------------------

  private runLog(sb: SandboxRecord, now: number, d = this.derive(sb, now)): RunLog {
    const seed = hash32(sb.id);
    const cid = containerId(seed);
    const startUs = sb.createdAt * 1000;
    const schedule = new Schedule(startUs - 1);
    schedule.spread(startUs, sb.creatingMs * 1000, [
      `Sandbox ${sb.id} scheduled in ${sb.dataCenterId}`,
      ...imagePullLines(sb.image),
      `Creating container ${cid}`,
      `Starting container ${cid}`,
    ]);
    const readyAt = (sb.createdAt + sb.creatingMs) * 1000;
    const final = d.final;
    let container: RunLog["container"];
    const closing: LogEvent[] = [];
    if (sb.failStart) {
      schedule.at(readyAt, `Error response from daemon: pull access denied for ${sb.image}, repository does not exist or may require 'docker login'`);
      schedule.at(readyAt, `Container ${cid} failed to start; sandbox FAILED (START_FAILED)`);
    } else {
      const readyUs = schedule.at(readyAt, `Container ${cid} started; sandbox is RUNNING`);
      const profile = processOutput(sb.image, []);
      const intervalUs = Math.max(1, sb.logIntervalMs) * 1000;
      container = periodic(readyUs + 1000, profile.startup.length, intervalUs, final?.endUs ?? Infinity, seed, outputLine(profile, seed));
      if (final) {
        const lines: Array<Pick<LogEvent, "source" | "line">> =
          final.reason === "CONTAINER_EXITED"
            ? [
                { source: "container", line: "Traceback (most recent call last):" },
                { source: "container", line: "SystemExit: 1" },
                { source: "system", line: `Container ${cid} exited with code 1; sandbox FAILED (CONTAINER_EXITED)` },
              ]
            : [{ source: "system", line: (EXPIRY_LINES[final.reason] ?? (() => "Sandbox terminated"))(sb) }];
        lines.forEach((e, i) => closing.push({ ...e, us: final.endUs + i }));
      }
    }
    return { scheduled: schedule.events.filter((e) => !final || e.us < final.endUs || sb.failStart), container, closing };
  }

  logSubject(accountId: string, id: string): LogSubject {
    const sb = this.find(accountId, id);
    return {
      runs: (now) => [this.runLog(sb, now)],
      unavailable: (now) => {
        const state = this.derive(sb, now).state;
        if (state === "RUNNING") return null;
        if (state === "CREATING") return { code: "sandbox_starting", detail: `Sandbox ${sb.id} is starting; its container does not exist yet. Retry shortly.` };
        if (state === "FAILED") return { code: "container_exited", detail: `Sandbox ${sb.id} has FAILED; its container is not running` };
        return { code: "sandbox_terminated", detail: `Sandbox ${sb.id} is terminated` };
      },
      // An open stream is activity (v2: Events): it holds lastActivityAt at "now" while open.
      opened: () => {
        sb.lastActivityAt = Math.max(sb.lastActivityAt, this.world.clock.now());
        this.streams.set(sb.id, (this.streams.get(sb.id) ?? 0) + 1);
      },
      closed: () => {
        const now = this.world.clock.now();
        if (this.derive(sb, now).state === "RUNNING") sb.lastActivityAt = Math.max(sb.lastActivityAt, now);
        const left = (this.streams.get(sb.id) ?? 1) - 1;
        if (left > 0) this.streams.set(sb.id, left);
        else this.streams.delete(sb.id);
        this.world.persist();
      },
    };
  }

  // ---- routes ----------------------------------------------------------------------------------

  routes(): Array<Route<unknown>> {
    return [
      route({ method: "GET", path: "/v2/sandboxes", family: "sandboxes", handle: (op) => this.list(op) }),
      route({
        method: "POST",
        path: "/v2/sandboxes",
        family: "sandboxes",
        body: CreateSandboxRequest,
        // Rules that need the account (maximum lifetime) are 422 too, reported with the schema's.
        violations: (raw, op) =>
          typeof raw === "object" && raw !== null && !Array.isArray(raw)
            ? createSandboxViolations(raw as CreateSandboxRequest, op.account.maxLifetimeSeconds)
            : [],
        handle: (op) => this.create(op),
      }),
      route({
        method: "GET",
        path: "/v2/sandboxes/:id",
        family: "sandboxes",
        handle: (op) => json(200, this.view(this.find(op.account.id, op.params.id), op.now)),
      }),
      route({
        method: "PATCH",
        path: "/v2/sandboxes/:id",
        family: "sandboxes",
        body: UpdateSandboxRequest,
        // decisions: anything but {idleTimeoutSeconds: integer} is a malformed request (400).
        invalidStatus: 400,
        handle: (op) => this.updateIdle(op),
      }),
      route({
        method: "POST",
        path: "/v2/sandboxes/:id/extend",
        family: "sandboxes",
        body: ExtendSandboxRequest,
        handle: (op) => this.extend(op),
      }),
      route({ method: "DELETE", path: "/v2/sandboxes/:id", family: "sandboxes", handle: (op) => this.remove(op) }),
    ];
  }
}
