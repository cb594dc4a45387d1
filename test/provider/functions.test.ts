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
