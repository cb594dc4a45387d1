/**
 * Client-side pacing from the service's `RateLimit` / `RateLimit-Policy` headers.
 *
 * Both headers are RFC 8941 structured-field lists with one member per window (`minute`,
 * `hour`, `day`): `RateLimit` members carry `r` (remaining) and `t` (seconds to reset),
 * `RateLimit-Policy` members `q` (quota) and `w` (window seconds). They are parsed with the
 * `structured-headers` library, not by hand.
 *
 * One limiter per (service, credential) is shared by every client of the process (kept on
 * `globalThis` under a `Symbol.for` key, so two copies of the SDK share it too): a stack of
 * many resources is one provider process, and the quota is per user, not per resource.
 */
import { createHash } from "node:crypto";
import { parseList } from "structured-headers";
import { sleep } from "./retry";

export interface WindowLimit {
  name: string;
  remaining?: number;
  resetSeconds?: number;
  quota?: number;
  windowSeconds?: number;
}

function numberParam(params: Map<string, unknown>, key: string): number | undefined {
  const value = params.get(key);
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function memberName(item: unknown): string | undefined {
  if (typeof item === "string") return item;
  if (item && typeof (item as { toString(): string }).toString === "function") {
    const text = String(item);
    return text && text !== "[object Object]" ? text : undefined;
  }
  return undefined;
}

/** Windows described by the two headers; malformed headers yield no windows (never an exception). */
export function parseRateLimitHeaders(rateLimit?: string, policy?: string): WindowLimit[] {
  const windows = new Map<string, WindowLimit>();
  const read = (header: string | undefined, apply: (w: WindowLimit, params: Map<string, unknown>) => void) => {
    if (!header) return;
    let list: ReturnType<typeof parseList>;
    try {
      list = parseList(header);
    } catch {
      return;
    }
    for (const [item, params] of list) {
      const name = memberName(item);
      if (!name || Array.isArray(item)) continue;
      const window = windows.get(name) ?? { name };
      apply(window, params as Map<string, unknown>);
      windows.set(name, window);
    }
  };
  read(rateLimit, (w, p) => {
    w.remaining = numberParam(p, "r");
    w.resetSeconds = numberParam(p, "t");
  });
  read(policy, (w, p) => {
    w.quota = numberParam(p, "q");
    w.windowSeconds = numberParam(p, "w");
  });
  return [...windows.values()];
}

interface WindowState {
  remaining: number;
  resetAt: number;
  quota?: number;
  windowSeconds?: number;
  /** Requests granted since `remaining` was last reported, not yet answered. */
  inFlight: number;
}

export interface RateLimiterOptions {
  now?: () => number;
  /** Below this share of the quota, requests are spread evenly until the window resets. */
  lowWaterFraction?: number;
}

/** A grant from `acquire`: report the response headers (or none) when the request ends. */
export type Release = (headers?: { rateLimit?: string; policy?: string }) => void;

export class RateLimiter {
  private readonly windows = new Map<string, WindowState>();
  private readonly now: () => number;
  private readonly lowWaterFraction: number;
  /** Until the first response, the quota is unknown: one request probes it, the others wait. */
  private probing = false;
  private known = false;
  private lastGrantAt = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(options: RateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.lowWaterFraction = options.lowWaterFraction ?? 0.1;
  }

  /** Waits until a request may be sent without exceeding any known window. */
  async acquire(signal?: AbortSignal): Promise<Release> {
    for (;;) {
      const wait = this.delayBeforeNext();
      if (wait === 0) break;
      if (wait === Infinity) await new Promise<void>((resolve) => this.waiters.push(resolve));
      else await sleep(wait, signal);
    }
    const granted: WindowState[] = [];
    for (const state of this.windows.values()) {
      state.inFlight += 1;
      granted.push(state);
    }
    if (!this.known) this.probing = true;
    this.lastGrantAt = this.now();
    let released = false;
    return (headers) => {
      if (released) return;
      released = true;
      for (const state of granted) state.inFlight = Math.max(0, state.inFlight - 1);
      if (headers) this.observe(headers.rateLimit, headers.policy);
      this.probing = false;
      this.wakeAll();
    };
  }

  /**
   * How far apart background polls should be so they leave a tight window to real work: once
   * less than half of a window's quota is left, the time to its reset shared out over what is
   * left. 0 while every window has room (or none is known).
   */
  pollSpacingMs(): number {
    const now = this.now();
    let spacing = 0;
    for (const state of this.windows.values()) {
      const available = state.remaining - state.inFlight;
      if (state.quota === undefined || available >= state.quota / 2) continue;
      const untilReset = Math.max(0, state.resetAt + RESET_MARGIN_MS - now);
      spacing = Math.max(spacing, untilReset / Math.max(1, available));
    }
    return Math.ceil(spacing);
  }

  /** Records the server's view of the windows from a response. */
  observe(rateLimit?: string, policy?: string): void {
    const now = this.now();
    const parsed = parseRateLimitHeaders(rateLimit, policy);
    this.known = true;
    if (parsed.length === 0) return; // exempt caller: no headers, no pacing
    for (const window of parsed) {
      if (window.remaining === undefined || window.resetSeconds === undefined) continue;
      const resetAt = now + window.resetSeconds * 1000;
      const state = this.windows.get(window.name);
      // Responses overtake each other: within one window keep the lowest remaining count;
      // a reset later than the one we hold (beyond t's rounding) means a new window began.
      if (!state || now >= state.resetAt + RESET_MARGIN_MS || resetAt > state.resetAt + 1500) {
        this.windows.set(window.name, {
          remaining: window.remaining,
          resetAt,
          quota: window.quota ?? state?.quota,
          windowSeconds: window.windowSeconds ?? state?.windowSeconds,
          inFlight: 0,
        });
      } else {
        // The same window. Requests still in flight stay counted (the server may not have seen
        // them yet), and the later of the two reset estimates wins: waiting a little long is
        // harmless, refilling early is a 429.
        state.remaining = Math.min(state.remaining, window.remaining);
        state.resetAt = Math.max(state.resetAt, resetAt);
        state.quota = window.quota ?? state.quota;
      }
    }
  }

  private delayBeforeNext(): number {
    if (!this.known) return this.probing ? Infinity : 0;
    const now = this.now();
    let delay = 0;
    for (const [name, state] of this.windows) {
      if (now >= state.resetAt + RESET_MARGIN_MS) {
        if (state.quota === undefined || !state.windowSeconds) {
          // A window ended and its size is unknown: probe again rather than assume no limit.
          this.windows.delete(name);
          this.known = false;
          return this.probing ? Infinity : 0;
        }
        // The window rolled over: the quota is whole again until the next observed header.
        while (state.resetAt <= now) state.resetAt += state.windowSeconds * 1000;
        state.remaining = state.quota;
      }
      const available = state.remaining - state.inFlight;
      const untilReset = state.resetAt + RESET_MARGIN_MS - now;
      if (available <= 0) {
        delay = Math.max(delay, untilReset);
        continue;
      }
      const lowWater = Math.max(1, Math.floor((state.quota ?? state.remaining) * this.lowWaterFraction));
      if (available <= lowWater) {
        // Spread what is left over the rest of the window, the last one before it ends.
        const spacing = untilReset / (available + 1);
        delay = Math.max(delay, this.lastGrantAt + spacing - now);
      }
    }
    return Math.max(0, Math.ceil(delay));
  }

  private wakeAll(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

const REGISTRY = Symbol.for("pulumi-compute.rate-limiters");

/**
 * `t` has one-second resolution (and the server may round either way), so a window is taken
 * to have reset only this long after the reset it announced: without it, a refill assumed a
 * moment early lands the first requests of the "new" window in the old one.
 */
export const RESET_MARGIN_MS = 1000;

/** The process-wide limiter for one service and credential. */
export function sharedRateLimiter(baseUrl: string, apiKey: string, teamId?: string): RateLimiter {
  const globalRecord = globalThis as unknown as { [REGISTRY]?: Map<string, RateLimiter> };
  const registry = (globalRecord[REGISTRY] ??= new Map());
  // The map key is a digest: the key itself is not kept in yet another place.
  const id = createHash("sha256").update(`${baseUrl}\n${apiKey}\n${teamId ?? ""}`).digest("hex");
  let limiter = registry.get(id);
  if (!limiter) {
    limiter = new RateLimiter();
    registry.set(id, limiter);
  }
  return limiter;
}
