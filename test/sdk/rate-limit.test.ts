import { RateLimiter, parseRateLimitHeaders } from "../../sdk/rate-limit";
import { sleep } from "../helpers/fixtures";
import { problem, sendJson, useLoopback } from "../helpers/loopback";

const serve = useLoopback();

describe("RateLimit / RateLimit-Policy parsing", () => {
  it("reads every window's r, t, q and w from structured-field lists", () => {
    expect(
      parseRateLimitHeaders('"minute";r=57;t=42, "hour";r=998;t=3000, "day";r=9990;t=80000', '"minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400'),
    ).toEqual([
      { name: "minute", remaining: 57, resetSeconds: 42, quota: 60, windowSeconds: 60 },
      { name: "hour", remaining: 998, resetSeconds: 3000, quota: 1000, windowSeconds: 3600 },
      { name: "day", remaining: 9990, resetSeconds: 80000, quota: 10000, windowSeconds: 86400 },
    ]);
  });

  it("accepts token member names and ignores malformed headers instead of throwing", () => {
    expect(parseRateLimitHeaders("minute;r=1;t=2")).toEqual([{ name: "minute", remaining: 1, resetSeconds: 2 }]);
    expect(parseRateLimitHeaders('"minute";r=1;t=2, ((')).toEqual([]);
  });
});

/**
 * A limiter on a clock the test moves (`clock.now`, from 0), and `answered`: one request let
 * through it whose answer carried these RateLimit and RateLimit-Policy headers.
 */
function limiterOnTestClock() {
  const clock = { now: 0 };
  const limiter = new RateLimiter({ now: () => clock.now });
  const answered = async (rateLimit: string, policy: string) => (await limiter.acquire())({ rateLimit, policy });
  return { clock, limiter, answered };
}

describe("pacing", () => {
  it("holds requests when a window is exhausted until it resets", async () => {
    const { clock, limiter, answered } = limiterOnTestClock();
    await answered('"minute";r=0;t=1', '"minute";q=5;w=1');
    let granted = false;
    const waiting = limiter.acquire().then((release) => {
      granted = true;
      release();
    });
    await sleep(50);
    expect(granted).toBe(false);
    clock.now = 2100; // the window has reset (plus the margin for the one-second resolution of t)
    await waiting;
    expect(granted).toBe(true);
  });

  it("keeps a burst of concurrent requests under a small quota with zero 429s", async () => {
    // A fixed-window server: 6 requests per 3-second window, as the service counts them.
    // (Windows of a few seconds at least: `t` has one-second resolution, like the service's.)
    const quota = 6;
    const windowMs = 3000;
    let windowStart = Date.now();
    let used = 0;
    let rejected = 0;
    const { server, client } = await serve((_req, res) => {
      const now = Date.now();
      if (now - windowStart >= windowMs) {
        windowStart = now;
        used = 0;
      }
      const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      const policy = `"window";q=${quota};w=${windowMs / 1000}`;
      if (used >= quota) {
        rejected += 1;
        return problem(res, 429, "Rate limit exceeded for the window", {}, { "retry-after": String(resetSeconds) });
      }
      used += 1;
      sendJson(res, 200, { pods: [] }, { ratelimit: `"window";r=${quota - used};t=${resetSeconds}`, "ratelimit-policy": policy });
    });
    await Promise.all(Array.from({ length: 12 }, () => client.pods.list()));
    expect(server.requests).toHaveLength(12);
    expect(rejected).toBe(0);
  });

  it("asks background polls to spread out once less than half of a window is left", async () => {
    const { clock, limiter, answered } = limiterOnTestClock();
    await answered('"minute";r=40;t=50', '"minute";q=60;w=60');
    expect(limiter.pollSpacingMs()).toBe(0); // plenty left: poll as often as needed
    await answered('"minute";r=10;t=50', '"minute";q=60;w=60');
    // 10 left for the 51 s until the window may be taken as reset: one poll per 5.1 s at most.
    expect(limiter.pollSpacingMs()).toBe(5100);
    clock.now = 26_000;
    expect(limiter.pollSpacingMs()).toBe(2500);
  });
});
