/**
 * A static `get` (YAML `get:`, Python `Pod.get`, Go `GetPod`) through the native plugin's Read,
 * called in-process with exactly what the engine sends for one (pkg/resource/deploy/step.go,
 * ReadStep and RefreshStep of v3.248.0): the object was made outside the stack, so nothing says
 * which of its env values are its maker's secrets, and every one must reach the state as
 * ciphertext, at the read, at each refresh after it, and on import. What the stack owns keeps
 * the marks its program gave.
 */
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { serve, type Served } from "../../../provider/native/server";
import { RESOURCES } from "../../../provider/resources";
import { nativeToken } from "../../../provider/resources/definition";
import { ComputeClient } from "../../../sdk";
import { GPU } from "../../helpers/fixtures";
import { bootProvider, type ProviderEnv } from "../helpers";
import { connect, fakeEngine, js, prov, secret, SECRET, SIG, struct, type Client } from "./client";

jest.setTimeout(60_000);

/** A token its maker gave as a secret, and a value that is not one: the read cannot tell them apart. */
const TOKEN = "hf_getSecretsToken7d41";
const ENV = { HF_TOKEN: TOKEN, MODE: "batch" };

let env: ProviderEnv;
let plugin: Served;
let engine: Awaited<ReturnType<typeof fakeEngine>>;
let rpc: Client;
let api: ComputeClient;

beforeAll(async () => {
  env = await bootProvider();
  engine = await fakeEngine();
  plugin = await serve({ engineAddress: engine.address, projectDir: __dirname });
  rpc = connect(plugin.port);
  const configure = new prov.ConfigureRequest().setAcceptsecrets(true);
  configure.getVariablesMap().set("compute:config:baseUrl", env.url);
  configure.getVariablesMap().set("compute:config:apiKey", env.apiKey);
  await rpc.configure(configure);
  api = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
});
afterAll(async () => {
  rpc?.close();
  await api?.close();
  await plugin?.close();
  await engine?.close();
  await env?.close();
});

/**
 * Each kind whose live object answers an env, made with the SDK as someone outside the stack
 * would. (A sandbox has an env input too, but the service never answers it: nothing to read.)
 */
const MAKERS: Record<string, () => Promise<string>> = {
  Pod: async () => (await api.pods.create({ name: "outside-pod", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, env: ENV })).id,
  Template: async () => (await api.templates.create({ name: "outside-template", image: "alpine", env: ENV })).id,
  ServerlessEndpoint: async () =>
    (await api.serverless.create({ name: "outside-endpoint", type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "img", gpu: { pools: ["ADA_24"] }, env: ENV })).id,
  Cluster: async () =>
    (await api.clusters.create({ name: "outside-cluster", type: "TRAINING", compute: { gpuTypeId: GPU.a6000, gpuCountPerPod: 1, podCount: 2 }, image: "pytorch", env: ENV })).id,
};

it("covers every kind with an env input (a new one must be added here, or said to answer none)", () => {
  const withEnv = RESOURCES.filter((definition) => "env" in definition.inputs).map((definition) => definition.name);
  expect(withEnv.sort()).toEqual([...Object.keys(MAKERS), "Sandbox"].sort());
});

/** Every string the state would hold in plaintext: the leaves not inside a secret. */
function plaintext(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  if ((value as Record<string, unknown>)[SIG] === SECRET) return [];
  return Object.values(value as Record<string, unknown>).flatMap(plaintext);
}

/** The engine's Read: its id, its state (`properties`) and, unless it sends none, its inputs. */
async function read(type: string, id: string, properties: Struct, inputs?: Struct) {
  const request = new prov.ReadRequest().setId(id).setUrn(`urn:pulumi:dev::native-test::${type}::read`).setType(type).setProperties(properties);
  if (inputs) request.setInputs(inputs);
  const response = await rpc.read(request);
  expect(response.getId()).toBe(id);
  return { properties: response.getProperties()!, inputs: response.getInputs()! };
}

/** What must hold of each answer: every env value there, each a secret; the token nowhere in plaintext. */
function expectEnvSecret(answer: { properties: Struct; inputs: Struct }): void {
  for (const bag of [js(answer.properties), js(answer.inputs)]) {
    expect(bag.env).toEqual({ HF_TOKEN: secret(TOKEN), MODE: secret("batch") });
    expect(plaintext(bag)).not.toContain(TOKEN);
  }
}

describe.each(Object.keys(MAKERS))("%s", (name) => {
  const type = nativeToken(RESOURCES.find((definition) => definition.name === name)!);
  let id: string;
  beforeAll(async () => {
    id = await MAKERS[name]!();
  });

  it("a `get` (the program's `get` properties, none, sent as inputs and as state) keeps every read env value secret", async () => {
    // ReadStep: `Inputs: s.new.Inputs, State: s.new.Inputs`, an empty bag, never an absent one.
    const got = await read(type, id, struct({}), struct({}));
    expectEnvSecret(got);
    // RefreshStep of the read resource: `Inputs: old.Inputs` (ReadStep records the program's,
    // empty), `State: old.Outputs`; then its next refresh, with the inputs this one returned.
    const refreshed = await read(type, id, got.properties, struct({}));
    expectEnvSecret(refreshed);
    expectEnvSecret(await read(type, id, refreshed.properties, refreshed.inputs));
  });

  it("an import (no inputs at all) keeps every read env value secret too", async () => {
    expectEnvSecret(await read(type, id, struct({})));
  });
});

it("the refresh of a pod the stack made keeps the marks its program gave: a plain value stays plain", async () => {
  const POD = "compute:index:Pod";
  const urn = "urn:pulumi:dev::native-test::compute:index:Pod::owned";
  const checked = await rpc.check(new prov.CheckRequest().setUrn(urn).setType(POD).setOlds(struct({})).setNews(struct({ name: "owned", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { MODE: "batch", HF_TOKEN: secret(TOKEN) } })));
  expect(checked.getFailuresList()).toEqual([]);
  const inputs = checked.getInputs()!;
  expect(js(inputs).ownerMark).toEqual(expect.any(String)); // what tells the plugin the stack owns it
  const created = await rpc.create(new prov.CreateRequest().setUrn(urn).setType(POD).setProperties(inputs));
  const refreshed = await read(POD, created.getId(), created.getProperties()!, inputs);
  for (const bag of [js(refreshed.properties), js(refreshed.inputs)]) {
    expect(bag.env).toEqual({ MODE: "batch", HF_TOKEN: secret(TOKEN) });
  }
  await rpc.delete(new prov.DeleteRequest().setId(created.getId()).setUrn(urn).setType(POD).setProperties(created.getProperties()));
});
