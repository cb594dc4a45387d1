/** The order of checks: 413 → 401 → 403 → 429 → 422 → 400 → operation, plus the Date header. */
import { expectViolationsIncluding, freshFixture, GPU, gpuPod, KEYS, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: "2030-01-01T00:00:00Z" }, freshFixture());

const oversized = () => JSON.stringify(gpuPod({ env: { BLOB: "x".repeat(102400) } }));

test("an oversized body is 413 before authentication", async () => {
  const noKey = await h.call("POST", "/v2/pods", { key: null, raw: oversized(), headers: { "Content-Type": "application/json" } });
  expect(noKey.status).toBe(413);
  expect(noKey.headers.get("content-type")).toBe("application/problem+json");
  expect(noKey.body).toMatchObject({ title: expect.any(String), status: 413, detail: expect.stringContaining("102400") });

  const badKey = await h.call("POST", "/v2/pods", { key: "cs_nope", raw: oversized() });
  expect(badKey.status).toBe(413);
});

test("a body of exactly 102400 bytes passes the size check", async () => {
  const base = JSON.stringify(gpuPod({ env: { BLOB: "" } }));
  const exact = JSON.stringify(gpuPod({ env: { BLOB: "x".repeat(102400 - Buffer.byteLength(base)) } }));
  expect(Buffer.byteLength(exact)).toBe(102400);
  const response = await h.call("POST", "/v2/pods", { raw: exact });
  expect(response.status).toBe(201);
});

test("authentication (401) comes before scope, route and validation", async () => {
  expect((await h.call("POST", "/v2/pods", { key: null, body: { bogus: true } })).status).toBe(401);
  expect((await h.call("GET", "/v2/no-such-thing", { key: null })).status).toBe(401);
  expect((await h.call("POST", "/v2/pods", { key: KEYS.devExpired, body: {} })).status).toBe(401);
});

test("scope (403) comes before rate limiting and validation", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 1 } });
  expect((await h.get("/v2/pods")).status).toBe(200); // uses the one request
  const forbidden = await h.post("/v2/pods", { bogus: 1 }, { key: KEYS.devReadOnly });
  expect(forbidden.status).toBe(403);
  expect(forbidden.headers.get("ratelimit")).toBeNull();
});

test("rate limiting (429) comes before validation", async () => {
  await h.control.updateAccount("acct_dev", { rateLimits: { minute: 1 } });
  expect((await h.get("/v2/pods")).status).toBe(200);
  const limited = await h.post("/v2/pods", { bogus: 1 });
  expect(limited.status).toBe(429);
});

test("validation (422) lists every violation and comes before cross-field rules (400)", async () => {
  const response = await h.post("/v2/pods", {
    name: "",
    gpu: { id: GPU.rtx4090, count: 0 },
    cpu: { id: "cpu3c", vcpuCount: 3 },
    ports: ["80/udp"],
    bogus: true,
  });
  expectViolationsIncluding(response, [/^name: /, /^gpu\.count: /, /^cpu\.vcpuCount: must be a power of two/, /^ports\[0\]: /, "bogus: unknown property"]);
  expect(response.body.errors).toHaveLength(5);
});

test("a valid body that breaks a cross-field rule is 400 with the rules in errors", async () => {
  const response = await h.post("/v2/pods", {
    ...gpuPod(),
    gpu: { id: GPU.rtx4090, allowedCudaVersions: ["12.4"], minCudaVersion: "12.1" },
    mounts: { persistent: { size: 20, path: "/workspace" }, network: [{ volumeId: "vol_dev_tx", path: "/data" }] },
  });
  expect(response.status).toBe(400);
  expect(response.body.errors).toHaveLength(2);
  expect(response.body.code).toBeUndefined();
});

test("malformed JSON is 400, unknown paths 404 and wrong methods 405, after authentication", async () => {
  const malformed = await h.call("POST", "/v2/pods", { raw: "{not json" });
  expect(malformed.status).toBe(400);
  expect(malformed.body.detail).toMatch(/not valid JSON/);
  expect((await h.get("/v2/nothing-here")).status).toBe(404);
  const wrongMethod = await h.call("PUT", "/v2/pods");
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get("allow")).toContain("GET");
});

test("every response carries a Date header from the emulator clock", async () => {
  const ok = await h.get("/v2/pods");
  expect(ok.headers.get("date")).toBe("Tue, 01 Jan 2030 00:00:00 GMT");
  const unauthorized = await h.get("/v2/pods", { key: null });
  expect(unauthorized.headers.get("date")).toBe("Tue, 01 Jan 2030 00:00:00 GMT");
  await h.control.advance(90_000);
  expect((await h.get("/v2/pods")).headers.get("date")).toBe("Tue, 01 Jan 2030 00:01:30 GMT");
});
