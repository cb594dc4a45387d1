/**
 * Looking up what the stack does not own (docs/lookups.md), against the emulator, for every
 * resource kind: the `get<Kind>` functions by id and by name, through the TypeScript face and
 * Invoke, with their one-line failures; and the read a static `get` makes the engine run, with
 * no recorded state. Every object looked up is made here through the SDK, outside any stack.
 */
import * as pulumi from "@pulumi/pulumi";
import { GPU } from "../helpers/fixtures";
import { newPublicKey } from "../helpers/ssh-keys";
import { ComputeClient, type Registry } from "../../sdk";
import { FUNCTIONS } from "../../provider/functions";
import * as functions from "../../provider/functions";
import { FUNCTION_SHAPES } from "../../provider/native/function-shapes";
import { functionFor } from "../../provider/native/invoke";
import { RESOURCES } from "../../provider/resources";
import { PROVIDER_TEXT, runtime, useProvider } from "./helpers";

const env = useProvider();
let api: ComputeClient;
beforeAll(() => {
  api = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
  pulumi.runtime.setAllConfig({ "compute:baseUrl": env.url, "compute:apiKey": env.apiKey });
});
afterAll(() => api?.close());

const SECRET = "hf_lookupSecretValue0001";
const compute = { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 };

/** Each kind: its lookup, its resource (type token, runtime handlers, id output), and how the SDK makes one named `name`. */
interface Kind {
  fn: keyof typeof FUNCTIONS;
  resource: string;
  make(name: string): Promise<string>;
  /** The id the service never has, in the kind's form, and the request the 404 answers. */
  missing: { id: string; request: string };
}

const KINDS: Kind[] = [
  {
    fn: "getPod",
    resource: "Pod",
    make: async (name) => (await api.pods.create({ name, image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { HF_TOKEN: SECRET } })).id,
    missing: { id: "pod_nope", request: "GET /v2/pods/pod_nope" },
  },
  {
    fn: "getSandbox",
    resource: "Sandbox",
    make: async (name) => (await api.sandboxes.create({ name, image: "python:3.12", compute, env: { HF_TOKEN: SECRET } })).id,
    missing: { id: "sbx_nope", request: "GET /v2/sandboxes/sbx_nope" },
  },
  {
    fn: "getNetworkVolume",
    resource: "NetworkVolume",
    make: async (name) => (await api.networkVolumes.create({ name, dataCenter: "US-TX-3", size: 10 })).id,
    missing: { id: "vol_nope", request: "GET /v2/network-volumes/vol_nope" },
  },
  {
    fn: "getTemplate",
    resource: "Template",
    make: async (name) => (await api.templates.create({ name, image: "alpine", env: { HF_TOKEN: SECRET } })).id,
    missing: { id: "tpl_nope", request: "GET /v2/templates/tpl_nope" },
  },
  {
    fn: "getRegistryCredential",
    resource: "RegistryCredential",
    make: async (name) => (await api.registries.create({ name, username: "robot", password: SECRET })).id,
    missing: { id: "reg_nope", request: "GET /v2/registries/reg_nope" },
  },
  {
    fn: "getSshKey",
    resource: "SshKey",
    make: async (name) => {
      const line = newPublicKey(name);
      await api.sshKeys.change((lines) => [...lines, line]);
      return (await api.sshKeys.list()).find((key) => key.line === line)!.id;
    },
    missing: { id: "SHA256:nope", request: "GET /v2/account/ssh-keys" },
  },
  {
    fn: "getServerlessEndpoint",
    resource: "ServerlessEndpoint",
    make: async (name) =>
      (await api.serverless.create({ name, type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "img", gpu: { pools: ["ADA_24"] }, env: { HF_TOKEN: SECRET } })).id,
    missing: { id: "ep_nope", request: "GET /v2/serverless/ep_nope" },
  },
  {
    fn: "getCluster",
    resource: "Cluster",
    make: async (name) => (await api.clusters.create({ name, type: "TRAINING", compute: { gpuTypeId: GPU.a6000, gpuCountPerPod: 1, podCount: 2 }, image: "pytorch", env: { HF_TOKEN: SECRET } })).id,
    missing: { id: "clu_nope", request: "GET /v2/clusters/clu_nope" },
  },
];

/** The TypeScript function of a lookup, as a program calls it. */
const call = (fn: Kind["fn"], args: Record<string, unknown>) => (functions[fn] as (args: unknown) => Promise<Record<string, any>>)(args);

/** Its failure, which must be a RunError: the Node.js SDK then prints its one line alone. */
async function failure(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (e: Error) => e,
  );
  expect(pulumi.RunError.isInstance(error)).toBe(true);
  expect(error!.message).not.toContain("\n");
  return error!.message;
}

const tokenOf = (kind: Kind) => `compute:index:${kind.resource}`;
const definitionOf = (kind: Kind) => RESOURCES.find((definition) => definition.name === kind.resource)!;

describe.each(KINDS)("$fn", (kind) => {
  const made: { solo: string; twins: string[] } = { solo: "", twins: [] };
  const names = { solo: `solo-${kind.resource.toLowerCase()}`, twin: `twin-${kind.resource.toLowerCase()}` };
  beforeAll(async () => {
    made.solo = await kind.make(names.solo);
    // One after the other: the SSH key set changes one key at a time.
    made.twins = [await kind.make(names.twin), await kind.make(names.twin)];
  });

  it("finds the object by id, and by name, with what the schema declares and no secret", async () => {
    const byId = await call(kind.fn, { id: made.solo });
    const byName = await call(kind.fn, { name: names.solo });
    expect(byId).toMatchObject({ id: made.solo, ...(kind.fn === "getSshKey" ? { comment: names.solo } : { name: names.solo }) });
    // Live values (a sandbox's state) may move between two reads: the same object is enough.
    expect(byName.id).toBe(made.solo);
    // No member the result schema leaves out (a pod's env, a password), at any depth: nothing secret.
    expect(JSON.stringify(byId)).not.toContain(SECRET);
    expect(Object.keys(byId).filter((key) => !(key in FUNCTION_SHAPES[kind.fn].result))).toEqual([]);
    expect(byId).not.toHaveProperty("env");
  });

  it("fails in one line naming the kind and the id that is not there", async () => {
    const message = await failure(call(kind.fn, { id: kind.missing.id }));
    expect(message.startsWith(`${kind.fn} failed: ${tokenOf(kind)} "${kind.missing.id}" not found: ${kind.missing.request} answered 404 Not Found: `)).toBe(true);
  });

  it("fails in one line for a name nothing has, and names every id a shared name matches", async () => {
    expect(await failure(call(kind.fn, { name: "nothing-has-this-name" }))).toBe(`${kind.fn} failed: ${tokenOf(kind)} named "nothing-has-this-name" not found`);
    const ambiguous = await failure(call(kind.fn, { name: names.twin }));
    expect(ambiguous).toBe(`${kind.fn} failed: ${tokenOf(kind)} named "${names.twin}" is ambiguous: 2 match (${made.twins.join(", ")}); look it up by id`);
  });

  it("refuses both id and name, or neither, naming the fields and the rule, before asking the service anything", async () => {
    const before = (await env.control.requests()).length;
    expect(await failure(call(kind.fn, { id: made.solo, name: names.solo }))).toBe(`${kind.fn} failed: invalid arguments: name: cannot be combined with id (exactly one of id or name)`);
    expect(await failure(call(kind.fn, {}))).toBe(`${kind.fn} failed: invalid arguments: id: exactly one of id or name is required`);
    // Every violation at once: a wrong type and the rule.
    expect(await failure(call(kind.fn, { id: 7, name: "" }))).toBe(
      `${kind.fn} failed: invalid arguments: id: must be a string; name: must be at least 1 character(s) long; name: cannot be combined with id (exactly one of id or name)`,
    );
    expect((await env.control.requests()).length).toBe(before);
  });

  it("answers the same through Invoke, under its token, and refuses the same arguments the same way", async () => {
    const invoke = functionFor(tokenOf(kind).replace(kind.resource, kind.fn))!;
    expect(await invoke({ name: names.solo })).toMatchObject({ id: made.solo });
    await expect(invoke({})).rejects.toThrow(`${kind.fn} failed: invalid arguments: id: exactly one of id or name is required`);
  });

  it("reads the object by id alone, as a static `get` has the engine do, with no recorded state", async () => {
    const definition = definitionOf(kind);
    const read = await runtime.resources[definition.kind]!.read(made.solo, { __provider: PROVIDER_TEXT });
    expect(read.id).toBe(made.solo);
    expect(read.props![definition.idOutput]).toBe(made.solo);
    expect(read.inputs).toEqual(definition.imported(await definition.family(api).get(made.solo)));
  });

  it("through the TypeScript forwarders, a `get` and its refresh return no inputs (the host cannot mark them secret); a refresh of what the stack owns does", async () => {
    const definition = definitionOf(kind);
    const forwarded = runtime.handlersFor(tokenOf(kind));
    const first = await forwarded.read(made.solo, { __provider: PROVIDER_TEXT });
    expect(first.props![definition.idOutput]).toBe(made.solo);
    expect(first).not.toHaveProperty("inputs");
    const refreshed = await forwarded.read(made.solo, { ...first.props, __provider: PROVIDER_TEXT });
    expect(refreshed.props![definition.idOutput]).toBe(made.solo);
    expect(refreshed).not.toHaveProperty("inputs");
    // The same object, recorded as the stack's own (its owner mark), refreshes its inputs.
    const owned = await forwarded.read(made.solo, { ...first.props, ownerMark: "owned-by-this-stack", __provider: PROVIDER_TEXT });
    expect(owned.inputs).toBeDefined();
  });

  it("fails a static `get` of an id that is not there in one line naming the kind and the id", async () => {
    const definition = definitionOf(kind);
    const error = await runtime.resources[definition.kind]!.read(kind.missing.id, { __provider: PROVIDER_TEXT }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message.startsWith(`${tokenOf(kind)} "${kind.missing.id}" not found: ${kind.missing.request} answered 404 Not Found: `)).toBe(true);
    expect(error?.message).not.toContain("\n");
  });
});

it("fails a static `get` of an ended object: nothing to look up any more", async () => {
  const sandbox = await api.sandboxes.create({ name: "ended", image: "python:3.12", compute });
  await api.sandboxes.delete(sandbox.id);
  await expect(runtime.resources.sandbox!.read(sandbox.id, { __provider: PROVIDER_TEXT })).rejects.toThrow(`compute:index:Sandbox "${sandbox.id}" not found: it is TERMINATED`);
});

it("a registry credential's lookup answers its id and name only, even where the service answered more", async () => {
  const answered = { id: "reg_1", name: "ghcr", username: "robot", password: SECRET } as Registry;
  // The calls the credential's definition reads it with (its family: get by id, the page a name is searched in).
  const client = { registries: { get: async () => answered, page: async () => ({ items: [answered], setAside: [] }) } } as unknown as ComputeClient;
  const fn = FUNCTIONS.getRegistryCredential;
  expect(await fn.call(client, fn.readArgs({ id: "reg_1" }))).toEqual({ id: "reg_1", name: "ghcr" });
  expect(await fn.call(client, fn.readArgs({ name: "ghcr" }))).toEqual({ id: "reg_1", name: "ghcr" });
});
