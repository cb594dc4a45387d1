/**
 * What a fleet's run costs in calls (issue 25): creates share one left-behind lookup per family
 * for the whole run, and a refresh of many resources is answered by a few lists, each resource
 * missing from a list confirmed by its own read before it is declared gone.
 */
import { ComputeClient, ownerMark } from "../../sdk";
import { startNewRun } from "../../provider/runtime/shared-reads";
import { checked, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });
const SMALL = { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 };

const requests = async () => (await env.control.requests()).map((r) => `${r.method} ${r.path}`);

it("creates of one run list the family once for what an interrupted run left, however many", async () => {
  startNewRun();
  await env.control.clearRequests();
  for (const name of ["a", "b", "c", "d"]) {
    const mark = ownerMark({ organization: "o", project: "ml", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::ml::pulumi-nodejs:dynamic/compute:Sandbox::${name}`, salt: "v1:abc" });
    await runtime.resources.sandbox.create(await checked("sandbox", { name, image: "python:3.12", compute: SMALL, ownerMark: mark, namePrefix: name }));
  }
  const sent = await requests();
  expect(sent.filter((r) => r === "POST /v2/sandboxes")).toHaveLength(4);
  // Sequential creates each wait alone (a GET by id), so every list here is the adoption lookup.
  expect(sent.filter((r) => r === "GET /v2/sandboxes")).toHaveLength(1);
});

it("a refresh of many resources reads them with a few lists, and confirms a missing one by id before dropping it", async () => {
  const client = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
  const sandboxes = await Promise.all(Array.from({ length: 30 }, (_, i) => client.sandboxes.create({ name: `sb-${i}`, image: "python:3.12", compute: SMALL })));
  const gone = sandboxes[7]!.id;
  await client.sandboxes.delete(gone);
  await client.close();
  await env.control.clearRequests();

  const reads = await Promise.all(sandboxes.map((sandbox) => runtime.resources.sandbox.read(sandbox.id, { name: sandbox.name, sandboxId: sandbox.id })));

  expect(reads.map((read) => read.id)).toEqual(sandboxes.map((sandbox) => (sandbox.id === gone ? "" : sandbox.id)));
  const sent = await requests();
  // The first read alone is a GET; the 29 asked meanwhile, one list; the missing one, its own GET.
  expect(sent.filter((r) => r === "GET /v2/sandboxes")).toHaveLength(1);
  expect(sent.filter((r) => r.startsWith("GET /v2/sandboxes/")).sort()).toEqual([`GET /v2/sandboxes/${gone}`, `GET /v2/sandboxes/${sandboxes[0]!.id}`].sort());
  expect(sent.length / sandboxes.length).toBeLessThanOrEqual(0.1);
});

it("a create never adopts, from the run's list, what has ended or gone since the list was taken", async () => {
  const mark = (name: string) => ownerMark({ organization: "o", project: "ml", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::ml::pulumi-nodejs:dynamic/compute:Sandbox::${name}`, salt: "v1:abc" });
  const inputsOf = (name: string) => checked("sandbox", { name, image: "python:3.12", compute: SMALL, ownerMark: mark(name), namePrefix: name });
  // An earlier run left `scratch` behind.
  startNewRun();
  const leftBehind = await runtime.resources.sandbox.create(await inputsOf("scratch"));
  // This run lists the family at its first create (of another resource)...
  startNewRun();
  await runtime.resources.sandbox.create(await inputsOf("other"));
  // ...and `scratch` goes before this run's create of it comes (an idle timeout, a delete).
  const client = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
  await client.sandboxes.delete(leftBehind.id);
  await client.close();
  const created = await runtime.resources.sandbox.create(await inputsOf("scratch"));
  expect(created.id).not.toBe(leftBehind.id);
  expect(created.outs.state).toBe("RUNNING");
});
