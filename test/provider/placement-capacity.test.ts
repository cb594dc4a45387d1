/**
 * Placement settings through the runtime's handlers, against the emulator: a cap no candidate is
 * under fails the preview naming the cheapest; the preview says where a new pod would go; CHEAPEST
 * places on the cheapest in stock; an endpoint's cap excludes the GPU types over it; a wait's
 * deadline is kept for the next run; a pod found in ERROR is restarted, replaced elsewhere, or
 * left with the `up` failing, as its `recovery` says.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nextGeneration, ownerMark } from "../../sdk";
import { capacityDeadline } from "../../provider/runtime/capacity-wait";
import { GPU } from "../helpers/fixtures";
import { PROVIDER_TEXT, printed, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });
type Kind = "pod" | "endpoint";
const handlers = (kind: Kind) => runtime.resources[kind]!;
const mark = (name: string) => ownerMark({ organization: "o", project: "place", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::place::compute:index:Pod::${name}`, salt: "s" });

async function checked(kind: Kind, args: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await handlers(kind).check(olds, { ...args, __provider: PROVIDER_TEXT });
  if (result.failures.length > 0) throw new Error(`unexpected check failures: ${JSON.stringify(result.failures)}`);
  return result.inputs;
}

/** Given most expensive first. */
const CANDIDATES = [
  { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" },
  { gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" },
  { gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" },
];
const pod = (name: string, more: Record<string, unknown> = {}) => ({ name, image: "i", gpu: { id: GPU.h100 }, placement: CANDIDATES, ownerMark: mark(name), ...more });

test("at preview: a cap no candidate is under names the cheapest; a new pod's first candidate is printed; the wait's bounds are checked", async () => {
  const refused = await handlers("pod").check({}, { ...pod("capped", { maxCostPerHour: 0.1, waitForCapacity: { timeoutSeconds: 0, intervalSeconds: 1 } }), __provider: PROVIDER_TEXT });
  expect(refused.failures.map((f) => f.reason)).toEqual([
    "waitForCapacity.timeoutSeconds: must be a whole number of seconds from 1 to 86400",
    "waitForCapacity.intervalSeconds: must be a whole number of seconds from 5 to 600",
    `maxCostPerHour: no candidate is at or under 0.10 $/hr; the cheapest is 1 × ${GPU.a5000} on SECURE at 0.36 $/hr`,
  ]);
  const { value, lines } = await printed(() => handlers("pod").check({}, { ...pod("cheap", { placementStrategy: "CHEAPEST" }), __provider: PROVIDER_TEXT }));
  expect(value.failures).toEqual([]);
  expect(lines).toContainEqual(`[compute] pod cheap: placement: would try ${GPU.a5000} in US-TX-3 first (0.36 $/hr, stock HIGH); no reservation: capacity is known only at create`);
  // The estimate follows the cap: what is over it never bills.
  const estimated = await printed(() => handlers("pod").check({}, { ...pod("bounded", { maxCostPerHour: 1 }), __provider: PROVIDER_TEXT }));
  expect(estimated.lines.find((l) => l.includes("estimated"))).toMatch(/estimated 0\.69 \$\/hr \(worst of 3 candidates: .*never billed: 1 × NVIDIA H100 80GB HBM3 on SECURE \(over maxCostPerHour 1\.00\)\)/);
  const endpoint = await handlers("endpoint").check({}, { name: "e", type: "QUEUE", image: "i", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, maxCostPerHour: 0.05, __provider: PROVIDER_TEXT });
  expect(endpoint.failures.map((f) => f.reason)).toEqual([expect.stringMatching(/^maxCostPerHour: no candidate is at or under 0\.05 \$\/hr; the cheapest is 1 × .+ at \d+\.\d+ \$\/hr$/)]);
  // A ceiling that could never apply is refused: a CPU pod has one price, a CPU endpoint no GPU type to exclude.
  const cpuPod = await handlers("pod").check({}, { name: "c", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 }, maxCostPerHour: 1, __provider: PROVIDER_TEXT });
  expect(cpuPod.failures.map((f) => f.reason)).toEqual(["maxCostPerHour: applies to a GPU pod's candidates: a CPU pod has one price (its estimate)"]);
  const cpuEndpoint = await handlers("endpoint").check({}, { name: "ce", type: "QUEUE", image: "i", cpu: [{ id: "cpu3c", vcpuCount: 2 }], scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, maxCostPerHour: 1, __provider: PROVIDER_TEXT });
  expect(cpuEndpoint.failures.map((f) => f.reason)).toEqual([expect.stringMatching(/^maxCostPerHour: applies to an endpoint's GPU types/)]);
});

test("CHEAPEST places on the cheapest candidate in stock; an endpoint's cap excludes the GPU types over it", async () => {
  const created = await handlers("pod").create(await checked("pod", pod("cheapest", { placementStrategy: "CHEAPEST" })));
  expect(recorded(created.outs)).toMatchObject({ gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3", placementChosen: { gpuTypeId: GPU.a5000, dataCenterId: "US-TX-3" } });

  const args = { name: "capped", type: "QUEUE", image: "i", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, maxCostPerHour: 1 };
  const { value, lines } = await printed(async () => handlers("endpoint").create(await checked("endpoint", args)));
  const live = (await (await fetch(`${env.url}/v2/serverless/${value.id}`, { headers: { authorization: `Bearer ${env.apiKey}` } })).json()) as { gpu: { excludedTypes?: string[] } };
  const skipped = lines.filter((l) => l.includes("skipped")).map((l) => /skipped 1 × (.+): /.exec(l)![1]);
  expect(skipped.length).toBeGreaterThan(0);
  expect([...(live.gpu.excludedTypes ?? [])].sort()).toEqual([...skipped].sort());
});

test("a wait's deadline is kept for the next run on this machine, until the wait ends", async () => {
  const home = mkdtempSync(join(tmpdir(), "pulumi-home-"));
  const before = process.env.PULUMI_HOME;
  process.env.PULUMI_HOME = home;
  try {
    const first = await capacityDeadline(mark("waiting"), 600, 1_000_000);
    expect(first).toMatchObject({ until: 1_600_000, continued: false });
    // Nothing is kept until a wait begins (the first round found no room).
    expect(await capacityDeadline(mark("waiting"), 600, 1_100_000)).toMatchObject({ until: 1_700_000, continued: false });
    await first.persist();
    // An interrupted run, then the next `up`: the same deadline.
    expect(await capacityDeadline(mark("waiting"), 600, 1_300_000)).toMatchObject({ until: 1_600_000, continued: true });
    // Another stack resource, or another generation of it, has its own.
    expect(await capacityDeadline(nextGeneration(mark("waiting")), 600, 1_300_000)).toMatchObject({ continued: false });
    // Past it, or once the wait ended, a new wait starts.
    expect(await capacityDeadline(mark("waiting"), 600, 1_700_000)).toMatchObject({ until: 2_300_000, continued: false });
    await first.clear();
    expect(await capacityDeadline(mark("waiting"), 600, 1_400_000)).toMatchObject({ until: 2_000_000, continued: false });
    // A Pulumi home that cannot be written loses only this: no create fails for it.
    // (A home whose parent is a file: every write fails at once.)
    writeFileSync(join(home, "a-file"), "");
    process.env.PULUMI_HOME = join(home, "a-file", "home");
    const unwritable = await capacityDeadline(mark("waiting"), 600, 1_000_000);
    await expect(unwritable.persist()).resolves.toBeUndefined();
    await expect(unwritable.clear()).resolves.toBeUndefined();
  } finally {
    if (before === undefined) delete process.env.PULUMI_HOME;
    else process.env.PULUMI_HOME = before;
    rmSync(home, { recursive: true, force: true });
  }
});

describe("a pod found in ERROR", () => {
  /** On a candidate naming only a data center (where the A5000 it asks for fits), then a second one. */
  async function broken(name: string, recovery: string, more: Record<string, unknown> = {}) {
    const inputs = await checked("pod", pod(name, { recovery, gpu: { id: GPU.a5000 }, placement: [{ dataCenterId: "US-TX-3" }, CANDIDATES[1]], ...more }));
    const created = await handlers("pod").create(inputs);
    await env.control.podError(created.id);
    const read = await handlers("pod").read(created.id, recorded(created.outs));
    expect(read.props).toMatchObject({ status: "ERROR" });
    return { inputs, id: created.id, state: recorded(read.props!), refreshed: read.inputs! };
  }

  test("RESTART (the default) starts it again in place", async () => {
    const { inputs, id, state, refreshed } = await broken("restart", "RESTART");
    expect(await handlers("pod").diff(id, state, inputs)).toMatchObject({ changes: true, replaces: [] });
    const updated = await handlers("pod").update(id, { ...state, ...refreshed }, inputs);
    expect(updated.outs).toMatchObject({ podId: id, status: "RUNNING" });
  });

  test("REPLACE makes a new one, which tries where the old one failed last", async () => {
    const { inputs, id, state } = await broken("replace", "REPLACE");
    expect(state.placementChosen).toEqual({ dataCenterId: "US-TX-3" });
    const { value: diff, lines } = await printed(() => handlers("pod").diff(id, state, inputs));
    expect(diff.replaces).toContain("recovery");
    expect(lines.join("\n")).toContain("is in ERROR: replaced (recovery REPLACE)");
    const replacement = await handlers("pod").create({ ...inputs, ownerMark: nextGeneration(String(inputs.ownerMark)) });
    expect(recorded(replacement.outs)).toMatchObject({ gpuTypeId: GPU.rtx4090, dataCenterId: "EU-RO-1" });
    expect(replacement.id).not.toBe(id);
  });

  test("FAIL stops the up and touches nothing, a changed lifetime included", async () => {
    const { inputs, id, state, refreshed } = await broken("fail", "FAIL");
    const news = await checked("pod", { ...pod("fail", { recovery: "FAIL", gpu: { id: GPU.a5000 }, placement: [{ dataCenterId: "US-TX-3" }, CANDIDATES[1]] }), lifetime: { maxDurationSeconds: 3600, action: "TERMINATE" } }, inputs);
    expect(await handlers("pod").diff(id, { ...state, ...refreshed }, news)).toMatchObject({ changes: true, replaces: [] });
    await env.control.clearRequests();
    await expect(handlers("pod").update(id, { ...state, ...refreshed }, news)).rejects.toThrow(`pod ${id} is in ERROR and its recovery is FAIL: nothing was changed`);
    expect((await env.control.requests()).filter((r) => r.method !== "GET")).toEqual([]);
  });
});
