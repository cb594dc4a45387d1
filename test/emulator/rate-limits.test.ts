/** Per-user rate limits with minute/hour/day windows on the emulator clock, and their headers. */
import { freshFixture, KEYS, useEmulator } from "./harness";

// Each test starts at 10:00:15: 45 s left in the minute, 3585 s in the hour, 50385 s in the day.
const h = useEmulator({ freezeClock: true }, freshFixture("2030-06-01T10:00:15Z"));

const RATE_LIMIT = /^"minute";r=(\d+);t=(\d+), "hour";r=(\d+);t=(\d+), "day";r=(\d+);t=(\d+)$/;

test("authenticated responses carry RateLimit and RateLimit-Policy as structured-field lists", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 60, hour: 1000, day: 10000 } });
  const first = await h.get("/v2/pods");
  expect(first.headers.get("ratelimit")).toBe('"minute";r=59;t=45, "hour";r=999;t=3585, "day";r=9999;t=50385');
  expect(first.headers.get("ratelimit-policy")).toBe('"minute";q=60;w=60, "hour";q=1000;w=3600, "day";q=10000;w=86400');
  const notFound = await h.get("/v2/pods/nope");
  expect(notFound.status).toBe(404);
  expect(notFound.headers.get("ratelimit")).toMatch(RATE_LIMIT);
  expect(RATE_LIMIT.exec(notFound.headers.get("ratelimit")!)![1]).toBe("58");
  const unauthenticated = await h.get("/v2/pods", { key: null });
  expect(unauthenticated.headers.get("ratelimit")).toBeNull();
});

test("429 names the exhausted window, with an integer Retry-After until it resets", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 3 } });
  for (let i = 0; i < 3; i++) expect((await h.get("/v2/pods")).status).toBe(200);
  const limited = await h.get("/v2/pods");
  expect(limited.status).toBe(429);
  expect(limited.headers.get("retry-after")).toBe("45");
  expect(limited.body.detail).toBe("Rate limit exceeded for the minute window (3 requests)");
  expect(limited.headers.get("ratelimit")).toMatch(/^"minute";r=0;t=45, /);
  await h.control.advance(44_000);
  expect((await h.get("/v2/pods")).headers.get("retry-after")).toBe("1");
  await h.control.advance(1_000);
  expect((await h.get("/v2/pods")).status).toBe(200); // a new minute window
});

test("the hour and day windows limit too", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 100, hour: 2, day: 100 } });
  await h.get("/v2/pods");
  await h.get("/v2/pods");
  const limited = await h.get("/v2/pods");
  expect(limited.status).toBe(429);
  expect(limited.body.detail).toMatch(/hour window \(2 requests\)/);
  expect(limited.headers.get("retry-after")).toBe("3585");
  await h.control.updateAccount("acct_dev", { rateLimits: { hour: 100, day: 1 } });
  await h.get("/v2/pods");
  const daily = await h.get("/v2/pods");
  expect(daily.body.detail).toMatch(/day window/);
  expect(Number(daily.headers.get("retry-after"))).toBe(50385);
});

test("limits are per user: two keys of one user share a count, another user does not", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 2 } });
  expect((await h.get("/v2/pods", { key: KEYS.dev })).status).toBe(200);
  expect((await h.get("/v2/pods", { key: KEYS.devReadOnly })).status).toBe(200);
  expect((await h.get("/v2/pods", { key: KEYS.dev })).status).toBe(429);
  expect((await h.get("/v2/pods", { key: KEYS.sessionDev })).status).toBe(429);
  expect((await h.get("/v2/pods", { key: KEYS.other })).status).toBe(200);
});

test("refused requests do not count, and exempt accounts get neither limits nor headers", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 1 } });
  await h.get("/v2/pods");
  for (let i = 0; i < 3; i++) expect((await h.get("/v2/pods")).status).toBe(429);
  await h.control.advance(45_000);
  expect((await h.get("/v2/pods")).headers.get("ratelimit")).toMatch(/^"minute";r=0;/);
  await h.control.updateAccount("acct_dev", { exempt: true });
  for (let i = 0; i < 3; i++) {
    const response = await h.get("/v2/pods");
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit")).toBeNull();
    expect(response.headers.get("ratelimit-policy")).toBeNull();
  }
});
