/** The /_emulator/ control plane: auth, reset, fixtures, state, clock, timings, faults, request log. */
import { EmulatorControl } from "../../emulator";
import { createdPod, gpuPod, KEYS, sleep, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, async (emulator) => {
  await emulator.control.clearFaults();
  await emulator.control.reset();
  await emulator.control.clearRequests();
});

const podCount = async () => (await h.get("/v2/pods")).body.pods.length;

test("requires the admin token", async () => {
  expect((await fetch(`${h.url}/_emulator/state`)).status).toBe(401);
  expect((await fetch(`${h.url}/_emulator/state`, { headers: { Authorization: `Bearer ${h.apiKey}` } })).status).toBe(401);
  await expect(new EmulatorControl(h.url, "wrong").state()).rejects.toMatchObject({ status: 401 });
  expect((await fetch(`${h.url}/_emulator/nothing`, { headers: { Authorization: `Bearer ${h.adminToken}` } })).status).toBe(404);
});

test("reset returns to the fixture; state shows everything", async () => {
  const pod = await createdPod(h);
  const state = await h.control.state();
  expect((state.pods as Array<{ id: string; accountId: string }>).find((p) => p.id === pod.id)).toMatchObject({ accountId: "acct_dev", status: "PROVISIONING" });
  expect(state).toMatchObject({ fixture: "default", clock: { frozen: true }, timings: { podProvisioningMs: 100 } });
  expect(state.accounts).toEqual(expect.arrayContaining([expect.objectContaining({ id: "team_ml", kind: "team" })]));
  await h.control.reset();
  expect(await podCount()).toBe(0);
});

test("another fixture can be loaded, and a broken one is refused with every problem", async () => {
  const fixture = {
    name: "tiny",
    defaultApiKey: "cs_tiny_key_0001",
    dataCenters: [{ id: "LAB-1", name: "Lab", region: "EUROPE" }],
    gpuTypes: [{ id: "GPU X", name: "X", manufacturer: "NVIDIA", memory: 16, price: { secure: 1, community: 0 }, maxCount: { secure: 1, community: 0 } }],
    gpuCapacity: [{ dataCenterId: "LAB-1", gpuTypeId: "GPU X", cloud: "SECURE", machines: [{ cudaVersion: "12.4", gpus: 1, ramPerGpu: 16, vcpuPerGpu: 4 }] }],
    users: [{ id: "u", name: "U", email: "u@x", accountId: "a" }],
    accounts: [{ id: "a", kind: "user", name: "A", ownerUserId: "u" }],
    apiKeys: [{ key: "cs_tiny_key_0001", userId: "u", accountId: "a" }],
  };
  expect(await h.control.loadFixture(fixture)).toMatchObject({ fixture: "tiny", apiKey: "cs_tiny_key_0001" });
  expect((await h.get("/v2/pods")).status).toBe(401);
  const tiny = { key: "cs_tiny_key_0001" };
  expect((await h.get("/v2/catalog/datacenters", tiny)).body.dataCenters.map((d: { id: string }) => d.id)).toEqual(["LAB-1"]);
  expect((await h.post("/v2/pods", gpuPod({ gpu: { id: "GPU X" } }), tiny)).status).toBe(201);
  expect((await h.post("/v2/pods", gpuPod({ gpu: { id: "GPU X" } }), tiny)).status).toBe(400);
  await h.control.reset();
  expect((await h.get("/v2/pods", tiny)).body.pods).toEqual([]);

  const broken = h.control.loadFixture({ ...fixture, apiKeys: [{ key: "cs_tiny_key_0001", userId: "ghost", accountId: "a" }], gpuTypes: [] });
  await expect(broken).rejects.toMatchObject({ status: 400 });
  const error = await broken.catch((e) => e);
  expect(error.body.errors).toEqual(expect.arrayContaining([expect.stringContaining('"ghost"'), expect.stringContaining('"GPU X"')]));
  expect((await h.get("/v2/pods", tiny)).status).toBe(200); // the broken fixture changed nothing
  await h.control.loadFixture(JSON.parse(JSON.stringify(require("../../emulator/fixtures/default.json"))));
});

test("the clock can be read, frozen, advanced, set and unfrozen", async () => {
  const set = await h.control.freezeClock("2031-01-01T00:00:00Z");
  expect(set).toEqual({ now: "2031-01-01T00:00:00.000Z", frozen: true });
  await sleep(50);
  expect((await h.control.clock()).now).toBe("2031-01-01T00:00:00.000Z");
  expect((await h.control.advance(1500)).now).toBe("2031-01-01T00:00:01.500Z");
  const running = await h.control.unfreezeClock();
  expect(running.frozen).toBe(false);
  await sleep(60);
  expect(Date.parse((await h.control.clock()).now)).toBeGreaterThan(Date.parse("2031-01-01T00:00:01.540Z"));
  await h.control.freezeClock();
});

test("timings apply to pods created afterwards", async () => {
  expect(await h.control.setTimings({ podProvisioningMs: 5000 })).toMatchObject({ podProvisioningMs: 5000, podStartingMs: 100 });
  const pod = await createdPod(h);
  await h.control.advance(4000);
  expect((await h.get(`/v2/pods/${pod.id}`)).body.status).toBe("PROVISIONING");
  await h.control.advance(1000);
  expect((await h.get(`/v2/pods/${pod.id}`)).body.status).toBe("STARTING");
  await h.control.setTimings({ podProvisioningMs: 100 });
});

test("capacity can be read and set per (data center, GPU type, cloud) and per CPU flavor", async () => {
  await h.control.setCapacity({ dataCenterId: "AP-JP-1", gpuTypeId: "NVIDIA L40S", cloud: "SECURE", available: 2, cudaVersion: "12.6" });
  const capacity = (await h.control.capacity()) as { machines: Array<Record<string, unknown>> };
  expect(capacity.machines.filter((m) => m.dataCenterId === "AP-JP-1" && m.gpuTypeId === "NVIDIA L40S")).toEqual([
    expect.objectContaining({ free: 2, gpus: 2, cudaVersion: "12.6" }),
  ]);
  const pod = await h.post("/v2/pods", gpuPod({ gpu: { id: "NVIDIA L40S", count: 2 }, dataCenterIds: ["AP-JP-1"] }));
  expect(pod.body.cudaVersion).toBe("12.6");
  await h.control.setCapacity({ dataCenterId: "US-TX-3", cpuFlavorId: "cpu3c", available: 0 });
  await h.control.setCapacity({ dataCenterId: "US-CA-2", cpuFlavorId: "cpu3c", available: 0 });
  await h.control.setCapacity({ dataCenterId: "AP-JP-1", cpuFlavorId: "cpu3c", available: 0 });
  expect((await h.post("/v2/pods", { name: "c", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } })).status).toBe(400);
  await expect(h.control.setCapacity({ dataCenterId: "NOWHERE", gpuTypeId: "NVIDIA L40S", available: 1 })).rejects.toMatchObject({ status: 400 });
});

describe("faults", () => {
  test("a status fault answers instead of the API (the request is not executed), for N matches", async () => {
    await h.control.addFault({ method: "POST", path: "/v2/pods", status: 503, retryAfter: 2, times: 2 });
    for (let i = 0; i < 2; i++) {
      const failed = await h.post("/v2/pods", gpuPod());
      expect(failed.status).toBe(503);
      expect(failed.headers.get("retry-after")).toBe("2");
      expect(failed.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(await podCount()).toBe(0);
    expect((await h.post("/v2/pods", gpuPod())).status).toBe(201);
    expect(await podCount()).toBe(1);
  });

  test("globs match paths, a custom body replaces the problem, methods filter", async () => {
    await h.control.addFault({ path: "/v2/pods/*", method: "GET", status: 500, body: { oops: true } });
    const pod = await createdPod(h);
    const read = await h.get(`/v2/pods/${pod.id}`);
    expect(read).toMatchObject({ status: 500, body: { oops: true } });
    expect((await h.get("/v2/pods")).status).toBe(200);
    expect((await h.patch(`/v2/pods/${pod.id}`, { name: "x" })).status).toBe(200);
    await h.control.clearFaults();
    expect((await h.get(`/v2/pods/${pod.id}`)).status).toBe(200);
  });

  test("a dropped connection fails the client; the request is not executed", async () => {
    await h.control.addFault({ method: "POST", path: "/v2/pods", drop: true, times: 1 });
    await expect(h.post("/v2/pods", gpuPod())).rejects.toThrow();
    expect(await podCount()).toBe(0);
  });

  test("after: true executes the request, then the client sees the failure (duplicate-safety tests)", async () => {
    await h.control.addFault({ method: "POST", path: "/v2/pods", status: 502, after: true, times: 1 });
    expect((await h.post("/v2/pods", gpuPod({ name: "ghost-1" }))).status).toBe(502);
    await h.control.addFault({ method: "POST", path: "/v2/pods", drop: true, after: true, times: 1 });
    await expect(h.post("/v2/pods", gpuPod({ name: "ghost-2" }))).rejects.toThrow();
    const names = (await h.get("/v2/pods")).body.pods.map((p: { name: string }) => p.name).sort();
    expect(names).toEqual(["ghost-1", "ghost-2"]);
  });

  test("latency delays the answer; probability 0 never fires", async () => {
    await h.control.addFault({ path: "/v2/catalog/*", latencyMs: 300, times: 1 });
    const started = Date.now();
    expect((await h.get("/v2/catalog/gpus")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    await h.control.addFault({ path: "/v2/hub/repos", status: 500, probability: 0 });
    for (let i = 0; i < 5; i++) expect((await h.get("/v2/hub/repos")).status).toBe(200);
  });
});

test("the request log records API calls (method, path, query, status, account, time) and can be cleared", async () => {
  await h.get("/v2/pods?includeClusterPods=true");
  await h.post("/v2/pods", gpuPod(), { key: KEYS.team });
  await h.get("/v2/pods", { key: null });
  await h.control.addFault({ path: "/v2/hub/repos", status: 503, times: 1 });
  await h.get("/v2/hub/repos");
  const requests = await h.control.requests();
  expect(requests).toEqual([
    { method: "GET", path: "/v2/pods", query: "includeClusterPods=true", status: 200, account: "acct_dev", time: expect.any(String) },
    { method: "POST", path: "/v2/pods", query: "", status: 201, account: "team_ml", time: expect.any(String) },
    { method: "GET", path: "/v2/pods", query: "", status: 401, account: null, time: expect.any(String) },
    { method: "GET", path: "/v2/hub/repos", query: "", status: 503, account: "acct_dev", time: expect.any(String) },
  ]);
  expect(requests[0].time).toBe((await h.control.clock()).now);
  await h.control.clearRequests();
  expect(await h.control.requests()).toEqual([]);
});

test("container events for unknown ids are 404, and for the wrong state 409", async () => {
  await expect(h.control.podExit("nope")).rejects.toMatchObject({ status: 404 });
  const pod = await createdPod(h);
  await expect(h.control.podExit(pod.id)).rejects.toMatchObject({ status: 409 });
  await expect(h.control.sandboxExit("nope")).rejects.toMatchObject({ status: 404 });
});

test("account settings are read and changed; unknown accounts are 404", async () => {
  expect(await h.control.updateAccount("acct_dev", { balance: 3.5 })).toMatchObject({ id: "acct_dev", balance: 3.5 });
  expect((await h.control.account("acct_dev")).balance).toBe(3.5);
  await expect(h.control.updateAccount("acct_nope", { balance: 1 })).rejects.toMatchObject({ status: 404 });
  await expect(h.control.updateAccount("acct_dev", { balance: "lots" } as never)).rejects.toMatchObject({ status: 400 });
});
