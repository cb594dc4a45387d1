/**
 * GPU capacity on the emulator's clock (`PUT /_emulator/capacity` with `afterSeconds`): a pool
 * sold out now and back later, placement and the catalog's stock levels following it; several
 * pending settings in due order; the same code as an immediate setting (running pods keep their
 * GPUs); bad bodies refused; a reset drops what is pending, a restart keeps it. The clock is
 * frozen, so every instant is exact.
 */
import { EmulatorControlError } from "../../emulator";
import { Catalog } from "../../emulator/catalog/store";
import { Clock } from "../../emulator/clock";
import { loadFixture } from "../../emulator/fixture";
import { Capacity } from "../../emulator/placement/capacity";
import { useScratch } from "../helpers/scratch";
import { createdPod, freshFixture, GPU, gpuPod, runningPod, useEmulator, withEmulator, type Harness } from "./harness";

const T0 = "2030-05-01T08:00:00Z";
const h = useEmulator({ freezeClock: T0 }, freshFixture(T0));
const { tempDir } = useScratch("compute-emulator-capacity-schedule-");

/** The pool of these tests: US-CA-2's SECURE L4s (one machine of 8, all free in the fixture). */
const POOL = { dataCenterId: "US-CA-2", gpuTypeId: GPU.l4, cloud: "SECURE" } as const;
const inPool = (m: { dataCenterId: string; gpuTypeId: string; cloud: string }) =>
  m.dataCenterId === POOL.dataCenterId && m.gpuTypeId === POOL.gpuTypeId && m.cloud === POOL.cloud;

/** Free GPUs of the pool, as the control plane reads them. */
async function freeInPool(e: Harness = h): Promise<number> {
  return (await e.control.capacity()).machines.filter(inPool).reduce((n, m) => n + m.free, 0);
}

/** A one-GPU L4 pod in US-CA-2. */
const createL4 = () => h.post("/v2/pods", gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: [POOL.dataCenterId] }));

/** The stock level of L4 in US-CA-2: the data-center catalog's, and the GPU catalog's for that data center. */
async function stockLevels(): Promise<{ dataCenter: string; gpuCatalog: string }> {
  const dc = await h.get(`/v2/catalog/datacenters/${POOL.dataCenterId}?include=GPU_AVAILABILITY`);
  expect(dc.status).toBe(200);
  const gpu = await h.get(`/v2/catalog/gpus/${encodeURIComponent(GPU.l4)}?include=AVAILABILITY&product=POD&cloud=SECURE`);
  expect(gpu.status).toBe(200);
  return {
    dataCenter: dc.body.gpuAvailability.find((g: { id: string }) => g.id === GPU.l4).availability,
    gpuCatalog: gpu.body.dataCenters.find((d: { id: string }) => d.id === POOL.dataCenterId).availability,
  };
}

const advanceSeconds = (s: number) => h.control.advance(s * 1000);

test("sold out now, back after 20 minutes: placement and the catalog's stock levels follow the clock", async () => {
  await h.control.setCapacity({ ...POOL, available: 0 });
  const answer = await h.control.setCapacity({ ...POOL, available: 8, afterSeconds: 1200 });
  expect(answer.scheduled).toEqual({ ...POOL, available: 8, setAt: "2030-05-01T08:00:00.000Z", dueAt: "2030-05-01T08:20:00.000Z" });
  expect(answer.machines.reduce((n, m) => n + m.free, 0)).toBe(0); // nothing changes before it is due
  expect((await h.control.capacity()).pending).toEqual([answer.scheduled]);

  const refused = await createL4();
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toMatch(/no SECURE machines with 1 free NVIDIA L4 GPU/);
  expect(await stockLevels()).toEqual({ dataCenter: "NONE", gpuCatalog: "NONE" });

  await advanceSeconds(1199);
  expect((await createL4()).status).toBe(400);
  expect(await stockLevels()).toEqual({ dataCenter: "NONE", gpuCatalog: "NONE" });
  expect((await h.control.capacity()).pending).toHaveLength(1);

  await advanceSeconds(1);
  expect(await stockLevels()).toEqual({ dataCenter: "HIGH", gpuCatalog: "HIGH" });
  expect((await h.control.capacity()).pending).toEqual([]);
  const created = await createL4();
  expect(created.status).toBe(201);
  expect(created.body.dataCenterId).toBe(POOL.dataCenterId);
  expect(await freeInPool()).toBe(7);
});

test("several pending settings apply in due order, those due at one instant in the order they were set", async () => {
  await h.control.setCapacity({ ...POOL, available: 2, afterSeconds: 600 });
  await h.control.setCapacity({ ...POOL, available: 5, afterSeconds: 300 });
  await h.control.setCapacity({ ...POOL, available: 1, afterSeconds: 900 });
  await h.control.setCapacity({ ...POOL, available: 3, afterSeconds: 900 });
  const pending = (await h.control.capacity()).pending;
  expect(pending.map((p) => [p.available, p.dueAt])).toEqual([
    [5, "2030-05-01T08:05:00.000Z"],
    [2, "2030-05-01T08:10:00.000Z"],
    [1, "2030-05-01T08:15:00.000Z"],
    [3, "2030-05-01T08:15:00.000Z"],
  ]);
  expect(await freeInPool()).toBe(8);
  await advanceSeconds(300);
  expect(await freeInPool()).toBe(5);
  await advanceSeconds(300);
  expect(await freeInPool()).toBe(2);
  await advanceSeconds(300);
  expect(await freeInPool()).toBe(3);
  expect((await h.control.capacity()).pending).toEqual([]);
});

test("one clock jump past several due settings applies them all, in order", async () => {
  await h.control.setCapacity({ ...POOL, available: 0, afterSeconds: 10 });
  await h.control.setCapacity({ ...POOL, available: 6, afterSeconds: 20 });
  await advanceSeconds(3600);
  expect(await freeInPool()).toBe(6);
});

test("afterSeconds 0 applies at once; an immediate setting leaves the pending ones in place", async () => {
  const now = await h.control.setCapacity({ ...POOL, available: 4, afterSeconds: 0 });
  expect(now.scheduled?.dueAt).toBe("2030-05-01T08:00:00.000Z");
  expect(now.machines.reduce((n, m) => n + m.free, 0)).toBe(4);
  await h.control.setCapacity({ ...POOL, available: 7, afterSeconds: 60 });
  await h.control.setCapacity({ ...POOL, available: 1 });
  expect(await freeInPool()).toBe(1);
  expect((await h.control.capacity()).pending).toHaveLength(1);
  await advanceSeconds(60);
  expect(await freeInPool()).toBe(7);
});

test("a due `available` evicts no running pod, as an immediate one: the pod keeps its GPU and gives it back when it stops", async () => {
  const pod = await runningPod(h, gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: [POOL.dataCenterId] }));
  await h.control.setCapacity({ ...POOL, available: 0, afterSeconds: 60 });
  await advanceSeconds(60);
  expect(await freeInPool()).toBe(0);
  expect((await h.get(`/v2/pods/${pod.id}`)).body.status).toBe("RUNNING");
  expect((await h.del(`/v2/pods/${pod.id}`)).status).toBe(204);
  expect(await freeInPool()).toBe(1);
});

test("the `machines` form can be scheduled too", async () => {
  await h.control.setCapacity({ ...POOL, machines: [{ cudaVersion: "12.8", gpus: 2, free: 2, ramPerGpu: 40, vcpuPerGpu: 6 }], afterSeconds: 30 });
  expect(await freeInPool()).toBe(8);
  await advanceSeconds(30);
  const pool = (await h.control.capacity()).machines.filter(inPool);
  expect(pool.map((m) => [m.cudaVersion, m.gpus, m.free])).toEqual([["12.8", 2, 2]]);
});

describe("refused", () => {
  test.each<[string, unknown, string]>([
    ["negative", -1, "afterSeconds: must be >= 0"],
    ["a string", "1200", "afterSeconds: must be a number"],
  ])("afterSeconds %s: 400 naming the field, nothing scheduled", async (_name, afterSeconds, violation) => {
    const response = await h.call("PUT", "/_emulator/capacity", { key: h.adminToken, body: { ...POOL, available: 8, afterSeconds } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([violation]);
    expect((await h.control.capacity()).pending).toEqual([]);
  });

  test("an unknown data center or GPU type is refused when it is set, not when it is due", async () => {
    const error = await h.control.setCapacity({ ...POOL, dataCenterId: "NOWHERE", available: 1, afterSeconds: 60 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmulatorControlError);
    expect(error).toMatchObject({ status: 400, body: { detail: 'Unknown data center "NOWHERE"' } });
    expect((await h.control.capacity()).pending).toEqual([]);
  });
});

test("a reset drops pending settings", async () => {
  await h.control.setCapacity({ ...POOL, available: 0, afterSeconds: 60 });
  await h.control.reset();
  expect((await h.control.capacity()).pending).toEqual([]);
  await advanceSeconds(60);
  expect(await freeInPool()).toBe(8);
});

test("pending settings are kept in the state file: after a restart they apply when due", async () => {
  const dataDir = tempDir();
  const pending = await withEmulator({ dataDir, freezeClock: T0 }, async (e) => {
    await e.control.setCapacity({ ...POOL, available: 0 });
    await e.control.setCapacity({ ...POOL, available: 8, afterSeconds: 1200 });
    return (await e.control.capacity()).pending;
  });
  expect(pending).toHaveLength(1);
  await withEmulator({ dataDir }, async (e) => {
    expect((await e.control.capacity()).pending).toEqual(pending);
    expect(await freeInPool(e)).toBe(0);
    await e.control.advance(1_200_000);
    expect(await freeInPool(e)).toBe(8);
  });
});

test("due settings apply when capacity is read or used, from the emulator clock, without waiting for a sweep", () => {
  const fixture = loadFixture(undefined);
  const catalog = new Catalog();
  catalog.reset(fixture);
  const clock = new Clock();
  clock.freeze();
  clock.set(Date.parse(T0));
  const capacity = new Capacity(catalog, clock);
  capacity.reset(fixture);
  capacity.setGpuCapacity({ ...POOL, available: 0 });
  capacity.scheduleGpuCapacity({ ...POOL, available: 8 }, 1200, clock.now());
  const place = () => capacity.placeGpu({ gpuTypeId: GPU.l4, count: 1, cloud: "SECURE", dataCenterIds: [POOL.dataCenterId], cuda: {} });
  clock.advance(1_199_999);
  expect(place()).toBeUndefined();
  clock.advance(1);
  // No sweep ran: the placement itself applied the due setting.
  expect(place()).toMatchObject({ dataCenterId: POOL.dataCenterId, free: 8 });
});
