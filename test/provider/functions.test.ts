/**
 * The TypeScript data-source functions (provider/functions.ts), run as a program runs them:
 * with the stack's configuration, in the program's process. A failure reaches the user as one
 * line; as a `RunError`, so the Node.js SDK prints that line without the program's stack.
 */
import * as pulumi from "@pulumi/pulumi";
import { startEmulator, type RunningEmulator } from "../../emulator";
import * as pkg from "../../provider";
import { FUNCTIONS, getCpuFlavors, getGpuTypes } from "../../provider/functions";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, profile: "fast", quiet: true });
});
afterAll(() => emulator.close());

it("read the catalog with the stack's configuration", async () => {
  pulumi.runtime.setAllConfig({ "compute:baseUrl": emulator.url, "compute:apiKey": emulator.apiKey });
  // What the service's catalog lists, read over HTTP by the test itself.
  const answer = await fetch(`${emulator.url}/v2/catalog/cpus`, { headers: { Authorization: `Bearer ${emulator.apiKey}` } });
  expect(answer.status).toBe(200);
  const { cpus } = (await answer.json()) as { cpus: Array<{ id: string }> };
  expect(cpus.length).toBeGreaterThan(0);
  expect((await getCpuFlavors()).map((flavor) => flavor.id)).toEqual(cpus.map((flavor) => flavor.id));
});

it("fail in one line, as a RunError, naming the function, the request, the status and the request id", async () => {
  pulumi.runtime.setAllConfig({ "compute:baseUrl": emulator.url, "compute:apiKey": "cs_dev_not_a_key_0002" });
  const error = await getGpuTypes().then(
    () => undefined,
    (e: Error) => e,
  );
  expect(pulumi.RunError.isInstance(error)).toBe(true);
  expect(error?.message).toMatch(/^getGpuTypes failed: GET \/v2\/catalog\/gpus answered 401 Unauthorized: .+ \[request req_[0-9a-f-]+\]$/);
  expect(error?.message).not.toContain("cs_dev_not_a_key_0002");
});

it("are every one exported by the package, by their table's names", () => {
  // The package's entry lists its exports by hand: a function added to FUNCTIONS alone would
  // reach YAML, Python and Go (through the schema) but not a TypeScript program.
  const exported = pkg as unknown as Record<string, unknown>;
  const missing = Object.keys(FUNCTIONS).filter((name) => typeof exported[name] !== "function");
  expect(missing).toEqual([]);
});

describe("billing functions", () => {
  it("answer the route's records and totals for the window and id asked, as the service answers them", async () => {
    pulumi.runtime.setAllConfig({ "compute:baseUrl": emulator.url, "compute:apiKey": emulator.apiKey });
    // A whole past hour: both reads see the same records, whenever the test runs.
    const endTime = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString();
    const startTime = new Date(Date.parse(endTime) - 3_600_000).toISOString();
    const answer = await fetch(`${emulator.url}/v2/billing/clusters?bucketSize=hour&startTime=${startTime}&endTime=${endTime}`, { headers: { Authorization: `Bearer ${emulator.apiKey}` } });
    expect(answer.status).toBe(200);
    const truth = (await answer.json()) as { records: Array<{ clusterId: string; totalAmount: number }>; metadata: { query: { startTime: string; endTime: string } } };
    expect(truth.records.length).toBeGreaterThan(0); // the fixture's cluster has run for hours

    const all = await pkg.getClusterBilling({ bucketSize: "hour", startTime, endTime });
    expect(all.window).toEqual({ startTime: truth.metadata.query.startTime, endTime: truth.metadata.query.endTime, bucketSize: "hour" });
    expect(all.records.map((r) => r.clusterId)).toEqual(truth.records.map((r) => r.clusterId));
    const clusterId = truth.records[0]!.clusterId;
    const one = await pkg.getClusterBilling({ bucketSize: "hour", startTime, endTime, clusterId });
    expect(new Set(one.records.map((r) => r.clusterId))).toEqual(new Set([clusterId]));
    expect(one.totals.totalAmount).toBeCloseTo(one.records.reduce((sum, r) => sum + r.totalAmount, 0), 6);
  });

  it("refuse a window the rule does not allow before asking the service, naming each field", async () => {
    pulumi.runtime.setAllConfig({ "compute:baseUrl": "http://127.0.0.1:9", "compute:apiKey": emulator.apiKey });
    const error = await pkg.getClusterBilling({ lastN: 0, startTime: "2030-05-01T00:00:00Z", bucketSize: "fortnight" as never }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(pulumi.RunError.isInstance(error)).toBe(true);
    expect(error?.message).toMatch(/^getClusterBilling failed: .*bucketSize: .*lastN: /);
  });
});
