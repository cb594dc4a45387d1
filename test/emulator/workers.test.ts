/**
 * `GET /v2/serverless/{id}/workers` (emulator/serverless/workers.ts): `workers.min` workers,
 * INITIALIZING for `workerReadyMs` (200 ms in the fast profile) then IDLE; the configuration
 * version a PATCH of the container or compute moves on (every worker restarts with a new id);
 * the control plane's `never`, `unhealthy` and `delayMs`. The clock is frozen, so every instant
 * is exact.
 */
import { freshFixture, GPU, KEYS, useEmulator } from "./harness";

const START = "2030-05-01T08:00:00Z";
const h = useEmulator({ freezeClock: START }, freshFixture(START));

const QUEUE = { type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 2 } };
const gpuEndpoint = (overrides: Record<string, unknown> = {}) => ({ name: "ep", ...QUEUE, image: "me/worker:1", gpu: { pools: ["ADA_24"] }, workers: { min: 2, max: 3 }, ...overrides });

async function created(body: Record<string, unknown> = gpuEndpoint()): Promise<any> {
  const response = await h.post("/v2/serverless", body);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function workersOf(id: string): Promise<any> {
  const response = await h.get(`/v2/serverless/${id}/workers`);
  expect(response.status).toBe(200);
  return response.body;
}

const statuses = async (id: string) => ((await workersOf(id)).workers as Array<{ status: string }>).map((w) => w.status);
const ids = async (id: string) => ((await workersOf(id)).workers as Array<{ id: string }>).map((w) => w.id);
const summary = (counts: Partial<Record<"running" | "idle" | "initializing" | "throttled" | "unhealthy", number>>) => {
  const all = { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0, ...counts };
  return { ...all, total: Object.values(all).reduce((a, b) => a + b, 0) };
};

describe("an endpoint's workers", () => {
  test("workers.min of them, INITIALIZING, then IDLE once workerReadyMs has passed", async () => {
    const endpoint = await created();
    const first = await workersOf(endpoint.id);
    expect(first).toEqual({ workers: expect.any(Array), summary: summary({ initializing: 2 }), endpointVersion: 1 });
    expect(first.workers).toEqual([0, 1].map(() => ({
      id: expect.stringMatching(/^[0-9a-z]{8}$/),
      status: "INITIALIZING",
      isStale: false,
      version: 1,
      gpuCount: 1,
      image: "me/worker:1",
      uptimeSeconds: null,
      gpuTypeId: GPU.rtx4090,
      dataCenterId: "US-TX-3",
      startedAt: "2030-05-01T08:00:00.000Z",
    })));
    expect(first.workers[0].id).not.toBe(first.workers[1].id);
    await h.control.advance(199);
    expect(await statuses(endpoint.id)).toEqual(["INITIALIZING", "INITIALIZING"]);
    await h.control.advance(1);
    const ready = await workersOf(endpoint.id);
    expect(ready.summary).toEqual(summary({ idle: 2 }));
    expect(ready.workers.map((w: any) => [w.id, w.status, w.uptimeSeconds])).toEqual(first.workers.map((w: any) => [w.id, "IDLE", 0]));
    await h.control.advance(5000);
    expect((await workersOf(endpoint.id)).workers[0].uptimeSeconds).toBe(5);
  });

  test("none when workers.min is 0 (the default)", async () => {
    const endpoint = await created(gpuEndpoint({ workers: undefined }));
    expect(await workersOf(endpoint.id)).toEqual({ workers: [], summary: summary({}), endpointVersion: 1 });
  });

  test("a CPU endpoint's workers have no GPU: gpuCount 0, gpuTypeId null, placed where its flavor has vCPUs", async () => {
    const endpoint = await created(gpuEndpoint({ gpu: undefined, cpu: [{ id: "cpu3m", vcpuCount: 4 }], workers: { min: 1, max: 1 } }));
    expect((await workersOf(endpoint.id)).workers[0]).toMatchObject({ gpuCount: 0, gpuTypeId: null, dataCenterId: "US-CA-2" });
  });

  test("placement: the first preferred data center, and the first type of the pools not excluded", async () => {
    const endpoint = await created(gpuEndpoint({ gpu: { pools: ["ADA_24"], excludedTypes: [GPU.rtx4090], count: 2 }, dataCenterIds: ["US-CA-2"] }));
    expect((await workersOf(endpoint.id)).workers[0]).toMatchObject({ gpuCount: 2, gpuTypeId: GPU.l4, dataCenterId: "US-CA-2" });
  });

  test("another account's endpoint, or an unknown one, is 404; a credential is required", async () => {
    const endpoint = await created();
    expect((await h.get(`/v2/serverless/${endpoint.id}/workers`, { key: KEYS.other })).status).toBe(404);
    expect((await h.get("/v2/serverless/nope/workers")).status).toBe(404);
    expect((await h.get(`/v2/serverless/${endpoint.id}/workers`, { key: null })).status).toBe(401);
  });
});

describe("a PATCH and the workers", () => {
  test("a change of what the workers run is a new version: every worker restarts, with a new id", async () => {
    const endpoint = await created();
    await h.control.advance(1000);
    const before = await ids(endpoint.id);
    expect((await h.patch(`/v2/serverless/${endpoint.id}`, { image: "me/worker:2" })).status).toBe(200);
    const after = await workersOf(endpoint.id);
    expect(after.endpointVersion).toBe(2);
    expect(after.workers.map((w: any) => [w.status, w.version, w.image, w.startedAt])).toEqual([0, 1].map(() => ["INITIALIZING", 2, "me/worker:2", "2030-05-01T08:00:01.000Z"]));
    expect(after.workers.map((w: any) => w.id).some((id: string) => before.includes(id))).toBe(false);
    await h.patch(`/v2/serverless/${endpoint.id}`, { env: { A: "1" } });
    await h.patch(`/v2/serverless/${endpoint.id}`, { gpu: { count: 2 } });
    expect((await workersOf(endpoint.id)).endpointVersion).toBe(4);
  });

  test("a change of name, scaling or timeout, or the same image again, restarts nothing", async () => {
    const endpoint = await created();
    await h.control.advance(200);
    const before = await workersOf(endpoint.id);
    await h.patch(`/v2/serverless/${endpoint.id}`, { name: "renamed", timeout: 60000, scaling: { type: "QUEUE_DELAY", queueDelay: 5 }, image: "me/worker:1" });
    expect(await workersOf(endpoint.id)).toEqual(before);
  });

  test("workers.min alone adds workers (starting now) or removes the newest, leaving the others be", async () => {
    const endpoint = await created();
    await h.control.advance(200);
    const [a, b] = await ids(endpoint.id);
    await h.patch(`/v2/serverless/${endpoint.id}`, { workers: { min: 3 } });
    const grown = await workersOf(endpoint.id);
    expect(grown.endpointVersion).toBe(1);
    expect(grown.workers.map((w: any) => w.status)).toEqual(["IDLE", "IDLE", "INITIALIZING"]);
    expect(grown.workers.slice(0, 2).map((w: any) => w.id)).toEqual([a, b]);
    await h.patch(`/v2/serverless/${endpoint.id}`, { workers: { min: 1 } });
    expect(await ids(endpoint.id)).toEqual([a]);
  });
});

describe("the control plane's worker settings", () => {
  test("never: INITIALIZING for good; normal makes them ready from that moment", async () => {
    const endpoint = await created();
    expect(await h.control.setWorkers(endpoint.id, { mode: "never" })).toEqual({ endpointId: endpoint.id, mode: "never", delayMs: null });
    await h.control.advance(600_000);
    expect(await statuses(endpoint.id)).toEqual(["INITIALIZING", "INITIALIZING"]);
    await h.control.setWorkers(endpoint.id, { mode: "normal" });
    const ready = await workersOf(endpoint.id);
    expect(ready.workers.map((w: any) => [w.status, w.uptimeSeconds])).toEqual([["IDLE", 0], ["IDLE", 0]]);
  });

  test("unhealthy: UNHEALTHY where they would be IDLE, not before", async () => {
    const endpoint = await created();
    await h.control.setWorkers(endpoint.id, { mode: "unhealthy" });
    expect((await workersOf(endpoint.id)).summary).toEqual(summary({ initializing: 2 }));
    await h.control.advance(200);
    expect((await workersOf(endpoint.id)).summary).toEqual(summary({ unhealthy: 2 }));
  });

  test("delayMs replaces workerReadyMs, counted from each worker's start; a PATCH's new workers take it too", async () => {
    const endpoint = await created();
    await h.control.setWorkers(endpoint.id, { mode: "normal", delayMs: 3000 });
    await h.control.advance(2999);
    expect(await statuses(endpoint.id)).toEqual(["INITIALIZING", "INITIALIZING"]);
    await h.control.advance(1);
    expect(await statuses(endpoint.id)).toEqual(["IDLE", "IDLE"]);
    await h.patch(`/v2/serverless/${endpoint.id}`, { image: "me/worker:2" });
    await h.control.advance(2999);
    expect(await statuses(endpoint.id)).toEqual(["INITIALIZING", "INITIALIZING"]);
  });

  test("an unknown endpoint is 404, a bad body 400", async () => {
    await expect(h.control.setWorkers("nope", { mode: "never" })).rejects.toMatchObject({ status: 404 });
    const endpoint = await created();
    await expect(h.control.setWorkers(endpoint.id, { mode: "sleepy" as never })).rejects.toMatchObject({ status: 400 });
  });

  test("the workerReadyMs timing applies to workers started afterwards", async () => {
    await h.control.setTimings({ workerReadyMs: 1000 });
    try {
      const endpoint = await created();
      await h.control.advance(999);
      expect(await statuses(endpoint.id)).toEqual(["INITIALIZING", "INITIALIZING"]);
      await h.control.advance(1);
      expect(await statuses(endpoint.id)).toEqual(["IDLE", "IDLE"]);
    } finally {
      await h.control.setTimings({ workerReadyMs: 200 });
    }
  });
});
