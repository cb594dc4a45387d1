/**
 * Sandboxes as stored, their state and their lifecycle: short-lived containers with an idle
 * timeout and a maximum lifetime.
 *
 * Like pods, state is derived from the clock: CREATING until `createdAt + creatingMs`, then
 * RUNNING until the idle deadline (`lastActivityAt + idleTimeoutSeconds`) or the lifetime
 * deadline (`startedAt + maxLifetimeSeconds`) passes, whichever is first. An open log stream
 * keeps `lastActivityAt` at "now". Explicit events (DELETE, container exit) are stored as the
 * sandbox's `final` state. A periodic sweep writes derived expiries down too, but reads never
 * depend on it: every read evaluates the deadlines against the emulator clock.
 */
import { SANDBOX_ENDED_STATES, type SandboxState, type TerminationReason } from "../../contract";
import { conflict, unprocessable } from "../http";
import { randomId } from "../ids";
import type { LogSubject } from "../logs/stream";
import { lastVisibleUs } from "../logs/timeline";
import { TableModule } from "../records";
import { sandboxRunLog } from "./logs";
import type { Derived, Final, SandboxRecord } from "./record";

export class Sandboxes extends TableModule<SandboxRecord> {
  /** Open log streams per sandbox (not persisted: a restart closes every connection). */
  private readonly streams = new Map<string, number>();

  constructor() {
    super("sandbox");
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

  /** Writes every derived expiry down; true when something changed. */
  sweep(now: number): boolean {
    return this.records.changeEach((sb) => !sb.final && this.settle(sb, now).final !== undefined);
  }

  // ---- lookups ---------------------------------------------------------------------------------

  find(accountId: string, id: string): SandboxRecord {
    return this.records.owned(accountId, id);
  }

  /** For the control plane, which acts across accounts. */
  any(id: string): SandboxRecord | undefined {
    return this.records.get(id);
  }

  /** The account's sandboxes; terminated ones only when asked for by state. Filters combine with AND, exact matches. */
  list(accountId: string, now: number, state: SandboxState | undefined, labels: Array<[string, string]>): SandboxRecord[] {
    return this.records.all().filter((sb) => {
      if (sb.accountId !== accountId) return false;
      const derived = this.derive(sb, now).state;
      if (state ? derived !== state : derived === "TERMINATED") return false;
      return labels.every(([k, v]) => sb.labels[k] === v);
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  create(fields: Omit<SandboxRecord, "id">): SandboxRecord {
    const sb: SandboxRecord = { id: randomId(12, "sb-"), ...fields };
    return this.records.add(sb);
  }

  /** Only a RUNNING sandbox takes a new idle timeout (422); idleExpiresAt follows from lastActivityAt, not from now. */
  setIdleTimeout(sb: SandboxRecord, seconds: number, now: number): void {
    const d = this.settle(sb, now);
    if (d.state !== "RUNNING") {
      throw unprocessable(`Sandbox ${sb.id} is ${d.state}; only a RUNNING sandbox accepts a new idle timeout`);
    }
    sb.idleTimeoutSeconds = seconds;
    sb.updatedAt = now;
  }

  /** Only a CREATING or RUNNING sandbox can be extended (422); `check` rules on the new lifetime. */
  extend(sb: SandboxRecord, maxLifetimeSeconds: number, now: number, check: (current: number) => void): void {
    const d = this.settle(sb, now);
    if (SANDBOX_ENDED_STATES.has(d.state)) {
      throw unprocessable(`Sandbox ${sb.id} is ${d.state}; only a CREATING or RUNNING sandbox can be extended`);
    }
    check(sb.maxLifetimeSeconds);
    sb.maxLifetimeSeconds = maxLifetimeSeconds;
    sb.updatedAt = now;
  }

  /** DELETE: idempotent on TERMINATED; a FAILED sandbox becomes TERMINATED and keeps its reason. */
  remove(sb: SandboxRecord, now: number): void {
    const d = this.settle(sb, now);
    if (SANDBOX_ENDED_STATES.has(d.state)) {
      if (sb.final?.state === "FAILED") {
        sb.final.state = "TERMINATED";
        sb.updatedAt = now;
      }
      return;
    }
    this.finish(sb, "TERMINATED", "USER_REQUESTED", now, d);
  }

  /** Ends the sandbox now; its end instant follows every log line already visible. */
  private finish(sb: SandboxRecord, state: Final["state"], reason: TerminationReason, now: number, d: Derived): void {
    const visible = lastVisibleUs([sandboxRunLog(sb, d)], now * 1000 + 999);
    sb.final = { state, reason, at: now, endUs: Math.max(now * 1000, visible + 1) };
    sb.updatedAt = now;
  }

  // ---- control-plane events (409 when the sandbox is not in the state the event needs) ---------

  /** The main process exits: RUNNING → FAILED (CONTAINER_EXITED). */
  exit(sb: SandboxRecord, now: number): void {
    const d = this.settle(sb, now);
    if (d.state !== "RUNNING") throw conflict(`Sandbox ${sb.id} is ${d.state}, not RUNNING`);
    this.finish(sb, "FAILED", "CONTAINER_EXITED", now, d);
  }

  /** The container fails to start: CREATING → FAILED (START_FAILED) when creation would finish. */
  failStart(sb: SandboxRecord, now: number): void {
    const d = this.settle(sb, now);
    if (d.state !== "CREATING") throw conflict(`Sandbox ${sb.id} is ${d.state}, not CREATING`);
    sb.failStart = true;
  }

  // ---- log streams -----------------------------------------------------------------------------

  /**
   * What the sandbox's log stream follows; it streams while RUNNING (409 codes otherwise).
   * `clock` reads the time of an open/close; `persist` saves the activity a closing stream records.
   */
  logSubject(sb: SandboxRecord, clock: () => number, persist: () => void): LogSubject {
    return {
      runs: (now) => [sandboxRunLog(sb, this.derive(sb, now))],
      unavailable: (now) => {
        const state = this.derive(sb, now).state;
        if (state === "RUNNING") return null;
        if (state === "CREATING") return { code: "sandbox_starting", detail: `Sandbox ${sb.id} is starting; its container does not exist yet. Retry shortly.` };
        if (state === "FAILED") return { code: "container_exited", detail: `Sandbox ${sb.id} has FAILED; its container is not running` };
        return { code: "sandbox_terminated", detail: `Sandbox ${sb.id} is terminated` };
      },
      opened: () => this.streamOpened(sb, clock()),
      closed: () => {
        this.streamClosed(sb, clock());
        persist();
      },
    };
  }

  /** An open stream is activity (v2: Events): it holds lastActivityAt at "now" while open. */
  private streamOpened(sb: SandboxRecord, now: number): void {
    sb.lastActivityAt = Math.max(sb.lastActivityAt, now);
    this.streams.set(sb.id, (this.streams.get(sb.id) ?? 0) + 1);
  }

  private streamClosed(sb: SandboxRecord, now: number): void {
    if (this.derive(sb, now).state === "RUNNING") sb.lastActivityAt = Math.max(sb.lastActivityAt, now);
    const left = (this.streams.get(sb.id) ?? 1) - 1;
    if (left > 0) this.streams.set(sb.id, left);
    else this.streams.delete(sb.id);
  }
}
