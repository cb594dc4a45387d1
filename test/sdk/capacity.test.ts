/**
 * Placement that reads the catalog (sdk/capacity.ts, contract/placement-choice.ts), against the
 * emulator: CHEAPEST takes the cheapest candidate in stock whatever the given order; a cap skips
 * what is over it, with a line each; every candidate sold out, the wait is paced (one catalog read
 * per round, a line per round) and ends when capacity comes back, or at its deadline naming each
 * candidate's last state, with nothing created; ORDERED without cap or wait reads no catalog.
 */
import { ComputeClient, PlacementError, createPodWithPlacement, placeWithPlan, type CapacityPlan, type PlacementCandidate, type Placer } from "../../sdk";
import { estimatePodCost } from "../../contract/estimate";
import { candidateOrder } from "../../contract/placement-choice";
import { GPU } from "../helpers/fixtures";
import { freshFixture, useEmulator } from "../emulator/harness";

const T0 = "2030-05-01T00:00:00Z";
const h = useEmulator({ freezeClock: T0 }, freshFixture(T0));

const client = () => new ComputeClient({ baseUrl: h.url, apiKey: h.apiKey, env: {} });
const request = { name: "placed", image: "i", gpu: { id: GPU.h100 } };
/** Given most expensive first: H100 in Texas, an RTX 4090 in Romania, an RTX A5000 in Texas. */
const CANDIDATES: PlacementCandidate[] = [
  { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" },
  { gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" },
  { gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" },
];

function plan(lines: string[], more: Partial<CapacityPlan> = {}): CapacityPlan {
  return {
    strategy: "CHEAPEST",
    intervalMs: 30_000,
    price: (candidate, gpuTypes) => {
      const outcome = estimatePodCost({ gpu: { id: GPU.h100 }, placement: [candidate] }, { gpuTypes });
      return outcome.ok ? outcome.estimate.dollarsPerHour : undefined;
    },
    gpuTypeOf: () => GPU.h100,
    report: (line) => lines.push(line),
    ...more,
  };
}

const placer = (sdk: ComputeClient, p: CapacityPlan): Placer => (candidates, attempt) => placeWithPlan(sdk, candidates, p, attempt);
const creates = async () => (await h.control.requests()).filter((r) => r.method === "POST" && r.path === "/v2/pods").map((r) => r.status);
const catalogReads = async () => (await h.control.requests()).filter((r) => r.path === "/v2/catalog/datacenters").length;

test("the ranking: in stock first, cheapest first, then the stock level, ties in the given order; over the cap skipped with why", () => {
  const ranked = candidateOrder(
    [
      { candidate: { gpuTypeId: "a" }, dollarsPerHour: 1, stock: "NONE" as const },
      { candidate: { gpuTypeId: "b" }, dollarsPerHour: 2, stock: "LOW" as const },
      { candidate: { gpuTypeId: "c" }, dollarsPerHour: 2, stock: "HIGH" as const },
      { candidate: { gpuTypeId: "d" }, dollarsPerHour: 5, stock: "HIGH" as const },
      { candidate: { gpuTypeId: "e" }, dollarsPerHour: 2, stock: "HIGH" as const },
    ],
    "CHEAPEST",
    4,
  );
  expect(ranked.order.map((e) => e.candidate.gpuTypeId)).toEqual(["c", "e", "b", "a"]);
  expect(ranked.skipped).toEqual([expect.objectContaining({ candidate: { gpuTypeId: "d" }, reason: "5.00 $/hr is over maxCostPerHour 4.00" })]);
  expect(candidateOrder([{ candidate: { gpuTypeId: "x" }, dollarsPerHour: 9 }, { candidate: { gpuTypeId: "y" }, dollarsPerHour: 1 }], "ORDERED").order.map((e) => e.candidate.gpuTypeId)).toEqual(["x", "y"]);
});

test("CHEAPEST places on the cheapest candidate in stock whatever the order; a sold-out one is passed over", async () => {
  const sdk = client();
  try {
    const lines: string[] = [];
    const first = await createPodWithPlacement(sdk, request, CANDIDATES, { place: placer(sdk, plan(lines)) });
    expect(first.chosen).toEqual({ gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" });
    await h.control.setCapacity({ dataCenterId: "US-TX-3", gpuTypeId: GPU.a5000, cloud: "SECURE", available: 0 });
    await h.control.clearRequests();
    const second = await createPodWithPlacement(sdk, request, CANDIDATES, { place: placer(sdk, plan(lines)) });
    expect(second.chosen).toEqual({ gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" });
    // The sold-out one was tried once, last of nothing: the catalog showed it out of stock, so it went after the others in stock.
    expect(await creates()).toEqual([201]);
  } finally {
    await sdk.close();
  }
});

test("a cap skips what is over it, a line each; ORDERED with neither cap nor wait reads no catalog", async () => {
  const sdk = client();
  try {
    const lines: string[] = [];
    const capped = await createPodWithPlacement(sdk, request, CANDIDATES, { place: placer(sdk, plan(lines, { strategy: "ORDERED", maxCostPerHour: 1 })) });
    expect(capped.chosen).toEqual({ gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" });
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^skipped ${GPU.h100} in US-TX-3 \\(\\d+\\.\\d+ \\$/hr, stock \\w+\\): \\d+\\.\\d+ \\$/hr is over maxCostPerHour 1\\.00$`))]);
    const under = await createPodWithPlacement(sdk, request, CANDIDATES, { place: placer(sdk, plan([], { maxCostPerHour: 0.01 })) }).catch((e: unknown) => e);
    expect(under).toBeInstanceOf(PlacementError);
    expect((under as Error).message).toMatch(/^no candidate is at or under maxCostPerHour 0\.01 \$\/hr/);

    await h.control.clearRequests();
    await createPodWithPlacement(sdk, request, CANDIDATES, { place: placer(sdk, plan([], { strategy: "ORDERED" })) });
    expect(await catalogReads()).toBe(0);
  } finally {
    await sdk.close();
  }
});

describe("every candidate sold out", () => {
  const soldOut = async (available: number) => {
    for (const c of CANDIDATES) await h.control.setCapacity({ dataCenterId: c.dataCenterId!, gpuTypeId: c.gpuTypeId!, cloud: "SECURE", available });
  };

  test("the wait is paced, a line per round, and ends when capacity comes back", async () => {
    await soldOut(0);
    const sdk = client();
    try {
      const lines: string[] = [];
      let rounds = 0;
      const waitUntil = Date.parse(T0) + 3600_000;
      await h.control.clearRequests();
      const placed = await createPodWithPlacement(sdk, request, CANDIDATES, {
        place: placer(
          sdk,
          plan(lines, {
            waitUntil,
            // Each pause is a round's interval on the service's clock; capacity is back after the third.
            sleep: async (ms) => {
              expect(ms).toBe(30_000);
              await h.control.advance(ms);
              if (++rounds === 3) await h.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: GPU.rtx4090, cloud: "SECURE", available: 8 });
            },
          }),
        ),
      });
      expect(placed.chosen).toEqual({ gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" });
      expect(lines.filter((l) => l.startsWith("waiting for capacity"))).toHaveLength(3);
      expect(lines[0]).toMatch(new RegExp(`^waiting for capacity \\(round 1\\): best candidate ${GPU.a5000} in US-TX-3 \\(\\d+\\.\\d+ \\$/hr, stock NONE\\); next check in 30 s, until 2030-05-01T01:00:00.000Z$`));
      // One catalog read per round; the first round tried all three, the others none until one was in stock.
      expect(await catalogReads()).toBe(4);
      expect(await creates()).toEqual([400, 400, 400, 201]);
    } finally {
      await sdk.close();
    }
  });

  test("a bound shorter than the interval still gets a round at the deadline", async () => {
    await soldOut(0);
    await h.control.clearRequests();
    const sdk = client();
    try {
      const pauses: number[] = [];
      const error = await createPodWithPlacement(sdk, request, CANDIDATES, {
        place: placer(
          sdk,
          plan([], {
            waitUntil: Date.parse(T0) + 10_000,
            sleep: async (ms) => {
              pauses.push(ms);
              await h.control.advance(ms);
            },
          }),
        ),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlacementError);
      // Pauses up to the deadline (not the 30 s interval), then the round at it, then the failure.
      // (The service's clock is read to the second through its Date answers: the last pause may
      // be split in two where the reading falls just short of the deadline.)
      expect(pauses.length).toBeGreaterThanOrEqual(1);
      expect(pauses.length).toBeLessThanOrEqual(2);
      expect(pauses.every((ms) => ms <= 11_000)).toBe(true);
      const waited = pauses.reduce((a, b) => a + b, 0);
      expect(waited).toBeGreaterThan(8_000);
      expect(waited).toBeLessThanOrEqual(12_000);
      expect(await creates()).toEqual([400, 400, 400]);
    } finally {
      await sdk.close();
    }
  });

  test("at its deadline it fails naming the bound and each candidate's last state, and nothing bills", async () => {
    await soldOut(0);
    const sdk = client();
    try {
      const error = await createPodWithPlacement(sdk, request, CANDIDATES, {
        place: placer(sdk, plan([], { waitUntil: Date.parse(T0) + 60_000, sleep: (ms) => h.control.advance(ms).then(() => undefined) })),
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PlacementError);
      expect((error as Error).message).toMatch(/^no capacity within waitForCapacity \(until 2030-05-01T00:01:00.000Z, \d rounds\); each candidate's last state: .*stock NONE.*stock NONE.*stock NONE/);
      expect((await h.get("/v2/pods")).body.pods.filter((p: { name: string }) => p.name === "placed")).toEqual([]);
    } finally {
      await sdk.close();
    }
  });
});
