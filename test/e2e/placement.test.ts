import type { ChildProcess } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createE2EStack, type E2EStack } from "./harness";
import { GPU, sleep } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";
import { processTree } from "../../scripts/lib/processes";

jest.setTimeout(10 * 60_000);

/**
 * Placement through the engine (TypeScript and YAML): CHEAPEST takes the cheapest candidate in
 * stock whatever the order; a cap no candidate is under fails the preview naming the cheapest;
 * with every candidate sold out and capacity back 20 emulated minutes later, `up` waits, paced,
 * and succeeds; with a shorter bound it fails naming it, with nothing billing; a kill -9 in the
 * middle of a wait, then `up`: the wait goes on and exactly one pod results.
 */
const CANDIDATES = [
  { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" },
  { gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" },
  { gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" },
];
const WAIT_INTERVAL_SECONDS = 5;

describe("placement through a TypeScript stack", () => {
  let e2e: E2EStack;
  const pods: Record<string, unknown> = {};
  beforeAll(async () => {
    e2e = await createE2EStack("placement");
  });
  afterAll(() => e2e?.dispose());

  const declarePod = (name: string, args: Record<string, unknown>) => {
    pods[name] = { image: "i", gpu: { id: GPU.h100 }, placement: CANDIDATES, ...args };
    return e2e.declare({ pods });
  };
  const outputs = async () => ((await e2e.stack.outputs()).podOutputs?.value ?? {}) as Record<string, { id: string; placementChosen: unknown }>;
  const soldOut = async (afterSeconds?: number, available = 0) => {
    for (const c of CANDIDATES) await e2e.control.setCapacity({ dataCenterId: c.dataCenterId, gpuTypeId: c.gpuTypeId, cloud: "SECURE", available, ...(afterSeconds !== undefined ? { afterSeconds } : {}) });
  };
  /** Until a round of the wait has found every candidate sold out (its creates answered 400). */
  const untilWaiting = () => eventually("a round of the wait", async () => (await e2e.control.requests()).filter((r) => r.method === "POST" && r.path === "/v2/pods" && r.status === 400).length >= 3, { timeoutMs: 120_000, intervalMs: 200 });
  const podCreates = async () => (await e2e.control.requests()).filter((r) => r.method === "POST" && r.path === "/v2/pods").map((r) => r.status);

  it("CHEAPEST places on the cheapest candidate in stock, whatever the order given", async () => {
    await declarePod("cheapest", { placementStrategy: "CHEAPEST" });
    await e2e.stack.up();
    expect((await outputs()).cheapest!.placementChosen).toEqual({ gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" });
  });

  it("with a bound shorter than the sell-out, up fails naming the bound and each candidate's last state, and nothing bills", async () => {
    await soldOut();
    await declarePod("impatient", { waitForCapacity: { timeoutSeconds: 600, intervalSeconds: WAIT_INTERVAL_SECONDS } });
    await e2e.control.clearRequests();
    let output = "";
    const up = e2e.stack.up({ onOutput: (text) => (output += text) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await untilWaiting();
    await e2e.control.advance(900_000);
    const error = (await up) as Error | undefined;
    expect(error).toBeDefined();
    expect(`${error?.message}\n${output}`).toMatch(/no capacity within waitForCapacity \(until [^)]+\); each candidate's last state: .*stock NONE/);
    expect(await podCreates()).not.toContain(201);
    delete pods.impatient;
  });

  it("sold out, capacity back 20 emulated minutes later, and a kill -9 mid-wait: the next up continues the same wait, paced, a line per round, and exactly one pod results", async () => {
    await soldOut();
    await e2e.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: GPU.rtx4090, cloud: "SECURE", available: 8, afterSeconds: 1200 });
    await declarePod("survivor", { waitForCapacity: { timeoutSeconds: 3600, intervalSeconds: WAIT_INTERVAL_SECONDS } });
    await e2e.control.clearRequests();
    const child: ChildProcess = e2e.spawnUp();
    await untilWaiting();
    for (const pid of processTree(child.pid!)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await sleep(500);
    expect((await outputs()).survivor).toBeUndefined();
    // The killed run's wait left its deadline under the Pulumi home the engine ran with.
    const waits = join(String(e2e.env().PULUMI_HOME), "compute", "capacity-waits");
    const [file] = readdirSync(waits);
    const { until } = JSON.parse(readFileSync(join(waits, file!), "utf8")) as { until: number };
    await e2e.cancel().catch(() => undefined);

    // Still sold out: the next up waits on, under the same deadline, until capacity is back.
    await e2e.control.clearRequests();
    let output = "";
    const started = Date.now();
    const up = e2e.stack.up({ onOutput: (text) => (output += text) });
    await untilWaiting();
    await e2e.control.advance(1200_000);
    await up;
    const seconds = (Date.now() - started) / 1000;
    expect(output).toContain(`continuing the wait for capacity an interrupted run began, until ${new Date(until).toISOString()}`);
    const survivor = (await outputs()).survivor!;
    expect(survivor.placementChosen).toEqual({ gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" });
    const rounds = (output.match(/waiting for capacity \(round \d+\)/g) ?? []).length;
    expect(rounds).toBeGreaterThanOrEqual(1);
    // Paced: one stock read per round (and the preview's), no more rounds than the interval allows.
    const reads = (await e2e.control.requests()).filter((r) => r.path === "/v2/catalog/datacenters").length;
    expect(reads).toBeLessThanOrEqual(rounds + 3);
    expect(rounds).toBeLessThanOrEqual(Math.ceil(seconds / WAIT_INTERVAL_SECONDS) + 1);
    expect(await podCreates()).toEqual([400, 400, 400, 201]);
    expect(readdirSync(waits)).toEqual([]);
    // Nothing bills that the stack does not know, nothing it knows is gone.
    expect([...(await e2e.liveIds()).pod].sort()).toEqual([...(await e2e.stateIds()).pod].sort());
  });
});

describe("placement through a YAML stack", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("placement-yaml", { program: "placement-yaml" });
  });
  afterAll(() => e2e?.dispose());

  it("a cap no candidate is under fails the preview naming the cheapest, with no create; CHEAPEST places on the cheapest", async () => {
    await e2e.stack.setConfig("maxCostPerHour", { value: "1" });
    await e2e.control.clearRequests();
    const refused = await e2e.stack.preview().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toContain(`maxCostPerHour: no candidate is at or under 1.00 $/hr; the cheapest is 4 × ${GPU.a5000} on SECURE at 1.44 $/hr`);
    expect((await e2e.control.requests()).filter((r) => r.method !== "GET")).toEqual([]);

    await e2e.stack.setConfig("maxCostPerHour", { value: "100" });
    const up = await e2e.stack.up();
    expect(up.outputs.placementChosen!.value).toEqual({ gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" });
  });

  it("every candidate sold out, capacity back 20 emulated minutes later: the replacement waits, a line per round, and is placed", async () => {
    for (const c of CANDIDATES) await e2e.control.setCapacity({ dataCenterId: c.dataCenterId, gpuTypeId: c.gpuTypeId, cloud: "SECURE", available: 0 });
    await e2e.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: GPU.rtx4090, cloud: "SECURE", available: 8, afterSeconds: 1200 });
    await e2e.stack.setConfig("gpuCount", { value: "2" });
    await e2e.control.clearRequests();
    let output = "";
    const up = e2e.stack.up({ onOutput: (text) => (output += text) });
    await eventually("a round of the wait", async () => (await e2e.control.requests()).filter((r) => r.method === "POST" && r.path === "/v2/pods" && r.status === 400).length >= 3, { timeoutMs: 120_000, intervalMs: 200 });
    await e2e.control.advance(1200_000);
    const done = await up;
    expect(done.outputs.placementChosen!.value).toEqual({ gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" });
    expect(output).toMatch(/waiting for capacity \(round 1\): best candidate .+ stock NONE/);
    // A line per round, and one stock read per round (the preview's and the update's first included).
    const rounds = (output.match(/waiting for capacity \(round \d+\)/g) ?? []).length;
    const reads = (await e2e.control.requests()).filter((r) => r.path === "/v2/catalog/datacenters").length;
    expect(reads).toBeLessThanOrEqual(rounds + 3);
  });
});
