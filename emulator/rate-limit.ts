/**
 * Per-user rate limits in three fixed windows (`minute`, `hour`, `day`) on the emulator clock,
 * with the account's quotas (contract: Limits; decisions on the header form).
 *
 * Headers are RFC 9651 structured-field lists, one member per window:
 *   RateLimit: "minute";r=57;t=42, "hour";r=998;t=3000, "day";r=9990;t=80000
 *   RateLimit-Policy: "minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400
 * A refused request does not count. Exempt accounts get neither limits nor headers.
 */
import type { RateLimits } from "./fixture";
import type { Headers } from "./http";

const WINDOWS = [
  { name: "minute", seconds: 60 },
  { name: "hour", seconds: 3600 },
  { name: "day", seconds: 86400 },
] as const;

type WindowName = (typeof WINDOWS)[number]["name"];

interface Counter {
  windowStart: number;
  count: number;
}

export type RateDecision =
  | { allowed: true; headers: Headers }
  | { allowed: false; headers: Headers; retryAfter: number; window: WindowName; quota: number };

export class RateLimiter {
  private counters = new Map<string, Counter[]>();

  clear(): void {
    this.counters.clear();
  }

  check(userId: string, limits: RateLimits, exempt: boolean, now: number): RateDecision {
    if (exempt) return { allowed: true, headers: {} };
    let counters = this.counters.get(userId);
    if (!counters) {
      counters = WINDOWS.map(() => ({ windowStart: 0, count: 0 }));
      this.counters.set(userId, counters);
    }
    const state = WINDOWS.map((w, i) => {
      const length = w.seconds * 1000;
      const windowStart = Math.floor(now / length) * length;
      const counter = counters[i];
      if (counter.windowStart !== windowStart) {
        counter.windowStart = windowStart;
        counter.count = 0;
      }
      return { ...w, counter, quota: limits[w.name], reset: Math.max(1, Math.ceil((windowStart + length - now) / 1000)) };
    });
    // The exhausted window that frees up last decides Retry-After (and is named in the detail).
    const exhausted = state.filter((s) => s.counter.count >= s.quota).sort((a, b) => b.reset - a.reset)[0];
    if (!exhausted) for (const s of state) s.counter.count++;
    const headers = {
      RateLimit: state.map((s) => `"${s.name}";r=${Math.max(0, s.quota - s.counter.count)};t=${s.reset}`).join(", "),
      "RateLimit-Policy": state.map((s) => `"${s.name}";q=${s.quota};w=${s.seconds}`).join(", "),
    };
    if (!exhausted) return { allowed: true, headers };
    return { allowed: false, headers, retryAfter: exhausted.reset, window: exhausted.name, quota: exhausted.quota };
  }
}
