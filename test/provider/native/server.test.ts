/**
 * The native plugin's gRPC service, served in-process and called as the engine calls it, against
 * an in-process emulator: the same runtime as the dynamic resources, with the engine's secrets,
 * unknowns, import and partial failures.
 */
import { readFileSync } from "node:fs";
import * as path from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { serve, type Served } from "../../../provider/native/server";
import { GPU } from "../../helpers/fixtures";
import { bootProvider, type ProviderEnv } from "../helpers";
import {
  connect,
  Empty,
  errorDetails,
  fakeEngine,
  initFailure,
  js,
  prov,
  secret,
  SECRET,
  SIG,
  struct,
  UNKNOWN_BOOL,
  UNKNOWN_NUMBER,
  UNKNOWN_STRING,
  type Client,
} from "./client";

jest.setTimeout(60_000);

const POD = "compute:index:Pod";
const urnOf = (name: string, type = POD) => `urn:pulumi:dev::native-test::${type}::${name}`;
const { DiffChanges } = prov.DiffResponse;
const Kind = prov.PropertyDiff.Kind;

let env: ProviderEnv;
let plugin: Served;
let engine: Awaited<ReturnType<typeof fakeEngine>>;
let rpc: Client;

function configureRequest(variables: Record<string, string>) {
  const request = new prov.ConfigureRequest().setAcceptsecrets(true);
  for (const [key, value] of Object.entries(variables)) request.getVariablesMap().set(key, value);
  return request;
}

async function configureFromStack() {
  await rpc.configure(configureRequest({ "compute:config:baseUrl": env.url, "compute:config:apiKey": env.apiKey }));
}

beforeAll(async () => {
  env = await bootProvider();
  engine = await fakeEngine();
  plugin = await serve({ engineAddress: engine.address, projectDir: __dirname });
  rpc = connect(plugin.port);
  await configureFromStack();
});
afterAll(async () => {
  rpc.close();
  await plugin.close();
  await engine.close();
  await env.close();
});
beforeEach(() => env.control.reset());

async function check(name: string, news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const response = await rpc.check(new prov.CheckRequest().setUrn(urnOf(name)).setType(POD).setName(name).setOlds(struct(olds)).setNews(struct(news)));
  return { inputs: js(response.getInputs()), failures: response.getFailuresList().map((f) => f.getReason()) };
}

async function create(name: string, news: Record<string, unknown>) {
  const { inputs, failures } = await check(name, news);
  expect(failures).toEqual([]);
  const response = await rpc.create(new prov.CreateRequest().setUrn(urnOf(name)).setType(POD).setName(name).setProperties(struct(inputs)));
  return { id: response.getId(), inputs, outputs: js(response.getProperties()) };
}

async function diff(id: string, olds: Record<string, unknown>, oldInputs: Record<string, unknown>, news: Record<string, unknown>) {
  return rpc.diff(new prov.DiffRequest().setId(id).setUrn(urnOf("d")).setType(POD).setOlds(struct(olds)).setOldInputs(struct(oldInputs)).setNews(struct(news)));
}

async function livePod(id: string): Promise<{ status?: string; name?: string } | undefined> {
  const res = await fetch(`${env.url}/v2/pods/${id}`, { headers: { authorization: `Bearer ${env.apiKey}` } });
  return res.status === 404 ? undefined : ((await res.json()) as { status: string; name: string });
}

describe("plugin identity", () => {
  it("accepts secrets at handshake and reports the package's version", async () => {
    const handshake = await rpc.handshake(new prov.ProviderHandshakeRequest().setEngineAddress(engine.address));
    expect(handshake.getAcceptSecrets()).toBe(true);
    const version = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8")).version;
    expect((await rpc.getPluginInfo(new Empty())).getVersion()).toBe(version);
  });

  it("serves the package schema", async () => {
    const schema = JSON.parse((await rpc.getSchema(new prov.GetSchemaRequest())).getSchema());
    expect(schema).toMatchObject({ name: "compute" });
  });
});

describe("provider configuration", () => {
  const saved = { ...process.env };
  afterEach(async () => {
    process.env = { ...saved };
    await configureFromStack();
  });

  it("returns the inputs it was given, never an environment value, and refuses a non-string setting", async () => {
    process.env.COMPUTE_API_KEY = "env-key-never-in-state";
    const news = struct({ baseUrl: env.url, teamId: 42 });
    const response = await rpc.checkConfig(new prov.CheckRequest().setUrn("urn:pulumi:dev::p::pulumi:providers:compute::default").setOlds(struct({})).setNews(news));
    expect(js(response.getInputs())).toEqual({ baseUrl: env.url, teamId: 42 });
    expect(response.getFailuresList().map((f) => [f.getProperty(), f.getReason()])).toEqual([["teamId", "must be a string"]]);
  });

  it("falls back to COMPUTE_BASE_URL and COMPUTE_API_KEY when the stack sets neither", async () => {
    process.env.COMPUTE_BASE_URL = env.url;
    process.env.COMPUTE_API_KEY = env.apiKey;
    await rpc.configure(configureRequest({}));
    const result = await rpc.invoke(new prov.InvokeRequest().setTok("compute:index:getCpuFlavors").setArgs(struct({})));
    expect(js(result.getReturn()).cpuFlavors.length).toBeGreaterThan(0);
  });

  it("names the missing keys the way the engine prints them when neither config nor environment has them", async () => {
    delete process.env.COMPUTE_BASE_URL;
    delete process.env.COMPUTE_API_KEY;
    const error = (await rpc.configure(configureRequest({ "compute:config:baseUrl": env.url })).catch((e) => e)) as grpc.ServiceError;
    const detail = errorDetails(error).find((d) => d.type === "pulumirpc.ConfigureErrorMissingKeys");
    expect(detail).toBeDefined();
    const missing = prov.ConfigureErrorMissingKeys.deserializeBinary(detail!.value).getMissingkeysList();
    expect(missing.map((k) => k.getName())).toEqual(["compute:apiKey"]);
  });

  it("sees a changed setting in DiffConfig", async () => {
    const changed = await rpc.diffConfig(new prov.DiffRequest().setOlds(struct({ baseUrl: "http://a" })).setOldInputs(struct({ baseUrl: "http://a" })).setNews(struct({ baseUrl: "http://b" })));
    expect(changed.getChanges()).toBe(DiffChanges.DIFF_SOME);
    const same = await rpc.diffConfig(new prov.DiffRequest().setOlds(struct({ baseUrl: "http://a" })).setOldInputs(struct({ baseUrl: "http://a" })).setNews(struct({ baseUrl: "http://a" })));
    expect(same.getChanges()).toBe(DiffChanges.DIFF_NONE);
  });
});

describe("check", () => {
  it("reports every broken rule, naming the field", async () => {
    const { failures } = await check("bad", { name: "bad", image: "i", disk: 0, cpu: { id: "cpu3c", vcpuCount: 3 } });
    expect(failures).toEqual(expect.arrayContaining([expect.stringMatching(/^disk: /), expect.stringMatching(/^cpu\.vcpuCount: must be a power of two/)]));
  });

  it("lets unknowns of every type through and returns them as the engine sent them", async () => {
    const { inputs, failures } = await check("later", { name: UNKNOWN_STRING, image: "i", gpu: { id: GPU.a5000 }, disk: UNKNOWN_NUMBER, startSsh: UNKNOWN_BOOL });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ name: UNKNOWN_STRING, disk: UNKNOWN_NUMBER, startSsh: UNKNOWN_BOOL });
  });

  it("adds the owner mark from the URN and a generated name from the resource's name", async () => {
    const { inputs } = await check("trainer", { image: "i", gpu: { id: GPU.a5000 } });
    expect(inputs.ownerMark).toMatch(/^[0-9a-f]{24}-000000000000:native-test\/dev\/trainer$/);
    expect(inputs.name).toMatch(/^trainer-[0-9a-f]{8}$/);
    // The same resource checked again (the run after an interrupted one) asks for the same pod.
    expect((await check("trainer", { image: "i", gpu: { id: GPU.a5000 } })).inputs).toMatchObject({ ownerMark: inputs.ownerMark, name: inputs.name });
  });
});

describe("create, read, update, delete", () => {
  it("creates a pod up to RUNNING, keeping secret inputs and the Jupyter password secret", async () => {
    const { id, inputs, outputs } = await create("nb", { name: "nb", image: "jupyter", gpu: { id: GPU.a5000 }, env: { A: "1", TOKEN: secret("tok-very-secret") }, startJupyter: true });
    expect(inputs.env).toEqual({ A: "1", TOKEN: secret("tok-very-secret") });
    expect(inputs.secretInputs).toEqual(["env"]);
    expect(outputs).toMatchObject({ podId: id, status: "RUNNING", name: "nb", env: { A: "1", TOKEN: secret("tok-very-secret") } });
    expect(outputs.jupyterPassword).toEqual({ [SIG]: SECRET, value: expect.any(String) });
    // Progress went to the engine, attributed to the resource, with the secret redacted.
    const lines = engine.logs.filter((l) => l.message.includes(id));
    expect(lines).toContainEqual({ urn: urnOf("nb"), message: expect.stringMatching(/RUNNING/) });
    expect(JSON.stringify(engine.logs)).not.toContain("tok-very-secret");
  });

  it("previews a create without calling the API, its outputs unknown", async () => {
    const { inputs } = await check("p", { name: "p", image: "i", gpu: { id: GPU.a5000 } });
    await env.control.clearRequests();
    const response = await rpc.create(new prov.CreateRequest().setUrn(urnOf("p")).setType(POD).setProperties(struct(inputs)).setPreview(true));
    expect(response.getId()).toBe("");
    // The string sentinel for a number too: the only unknown the Python and Node.js SDKs recognize.
    expect(js(response.getProperties())).toMatchObject({ name: "p", podId: UNKNOWN_STRING, costPerHour: UNKNOWN_STRING, startedAt: UNKNOWN_STRING });
    expect((await env.control.requests()).filter((r) => r.path.startsWith("/v2/"))).toEqual([]);
  });

  it("diffs like the dynamic resources: a mount path updates in place, startSsh replaces", async () => {
    const declared = { name: "m", image: "i", gpu: { id: GPU.a5000 }, mounts: { persistent: { size: 20, path: "/data" } }, startSsh: false };
    const { inputs } = await check("m", declared);
    const olds = { ...inputs, podId: "pod-1" };

    const moved = (await check("m", { ...declared, mounts: { persistent: { size: 20, path: "/workspace" } } }, inputs)).inputs;
    const update = await diff("pod-1", olds, inputs, moved);
    expect(update.getChanges()).toBe(DiffChanges.DIFF_SOME);
    expect(update.getReplacesList()).toEqual([]);
    expect(update.getDetaileddiffMap().get("mounts")?.getKind()).toBe(Kind.UPDATE);

    const ssh = (await check("m", { ...declared, startSsh: true }, inputs)).inputs;
    const replace = await diff("pod-1", olds, inputs, ssh);
    expect(replace.getReplacesList()).toEqual(["startSsh"]);
    expect(replace.getDetaileddiffMap().get("startSsh")?.getKind()).toBe(Kind.UPDATE_REPLACE);

    expect((await diff("pod-1", olds, inputs, inputs)).getChanges()).toBe(DiffChanges.DIFF_NONE);
  });

  it("imports a pod by id alone, with inputs that the same declaration previews as no change", async () => {
    const declared = { name: "imp", image: "img:1", disk: 20, gpu: { id: GPU.a5000 }, ports: ["8888/http"], env: { A: "1" }, startSsh: true };
    const { id } = await create("imp", declared);

    const read = await rpc.read(new prov.ReadRequest().setId(id).setUrn(urnOf("imp")).setType(POD));
    expect(read.getId()).toBe(id);
    const inputs = js(read.getInputs());
    // Every env value comes back a secret: an import cannot know which ones hold tokens.
    expect(inputs).toEqual({ name: "imp", image: "img:1", disk: 20, gpu: { id: GPU.a5000 }, ports: ["8888/http"], env: { A: secret("1") }, startSsh: true });
    expect(js(read.getProperties())).toMatchObject({ podId: id, status: "RUNNING", env: { A: secret("1") } });

    const checked = await check("imp", declared, inputs);
    expect(checked.failures).toEqual([]);
    expect((await diff(id, js(read.getProperties()), inputs, checked.inputs)).getChanges()).toBe(DiffChanges.DIFF_NONE);
  });

  it("imports a sandbox by id alone the same way", async () => {
    const SANDBOX = "compute:index:Sandbox";
    const declared = { name: "sb", image: "python:3.12", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 }, ports: ["8080/http"], labels: { team: "a" } };
    const checkSandbox = async (news: Record<string, unknown>, olds: Record<string, unknown> = {}) =>
      js((await rpc.check(new prov.CheckRequest().setUrn(urnOf("sb", SANDBOX)).setType(SANDBOX).setOlds(struct(olds)).setNews(struct(news)))).getInputs());
    const created = await rpc.create(new prov.CreateRequest().setUrn(urnOf("sb", SANDBOX)).setType(SANDBOX).setProperties(struct(await checkSandbox(declared))));

    const read = await rpc.read(new prov.ReadRequest().setId(created.getId()).setUrn(urnOf("sb", SANDBOX)).setType(SANDBOX));
    const inputs = js(read.getInputs());
    expect(inputs).toEqual(declared);
    const again = await rpc.diff(
      new prov.DiffRequest().setId(created.getId()).setType(SANDBOX).setOlds(read.getProperties()).setOldInputs(read.getInputs()).setNews(struct(await checkSandbox(declared, inputs))),
    );
    expect(again.getChanges()).toBe(DiffChanges.DIFF_NONE);
  });

  it("refreshes, updates in place and deletes", async () => {
    const { id, inputs, outputs } = await create("u", { name: "u", image: "i", gpu: { id: GPU.a5000 } });
    const refreshed = await rpc.read(new prov.ReadRequest().setId(id).setUrn(urnOf("u")).setType(POD).setProperties(struct(outputs)).setInputs(struct(inputs)));
    expect(js(refreshed.getInputs())).toMatchObject({ name: "u", image: "i" });

    const renamed = (await check("u", { name: "u-2", image: "i", gpu: { id: GPU.a5000 } }, inputs)).inputs;
    const updated = await rpc.update(new prov.UpdateRequest().setId(id).setUrn(urnOf("u")).setType(POD).setOlds(struct(outputs)).setOldInputs(struct(inputs)).setNews(struct(renamed)));
    expect(js(updated.getProperties())).toMatchObject({ podId: id, name: "u-2", status: "RUNNING" });
    expect((await livePod(id))?.name).toBe("u-2");

    await rpc.delete(new prov.DeleteRequest().setId(id).setUrn(urnOf("u")).setType(POD).setProperties(updated.getProperties()).setOldInputs(struct(renamed)));
    const gone = await livePod(id);
    expect(gone === undefined || gone.status === "TERMINATED").toBe(true);
  });

  it("sends a pod that fails after it exists as ErrorResourceInitFailed, so the engine records it", async () => {
    await env.control.failNext("pod");
    const { inputs } = await check("flaky", { name: "flaky", image: "i", gpu: { id: GPU.a5000 } });
    const error = (await rpc.create(new prov.CreateRequest().setUrn(urnOf("flaky")).setType(POD).setProperties(struct(inputs))).catch((e) => e)) as grpc.ServiceError;
    const failure = initFailure(error);
    expect(failure).toBeDefined();
    expect(failure!.getId()).toMatch(/.+/);
    expect(failure!.getReasonsList()[0]).toMatch(/went to ERROR while waiting for RUNNING/);
    const properties = js(failure!.getProperties());
    expect(properties).toMatchObject({ podId: failure!.getId(), status: "ERROR", name: "flaky" });
    expect(properties).not.toHaveProperty("__provider");
  });
});

describe("invoke", () => {
  it("serves getGpuTypes", async () => {
    const response = await rpc.invoke(new prov.InvokeRequest().setTok("compute:index:getGpuTypes").setArgs(struct({})));
    expect(js(response.getReturn()).gpuTypes).toEqual(expect.arrayContaining([expect.objectContaining({ id: GPU.a5000 })]));
  });

  it("reports a failed call in one line: the function, the request, the status, the detail and the request id", async () => {
    await env.control.addFault({ method: "GET", path: "/v2/catalog/gpus", status: 403, times: 1 });
    const error = await rpc.invoke(new prov.InvokeRequest().setTok("compute:index:getGpuTypes").setArgs(struct({}))).then(
      () => undefined,
      (e: { details: string }) => e,
    );
    expect(error?.details).toMatch(/^getGpuTypes failed: GET \/v2\/catalog\/gpus answered 403 Forbidden: .+ \[request req_[0-9a-f-]+\]$/);
  });

  it("serves the billing functions: the window, the records and the totals as the service answers them", async () => {
    const response = await rpc.invoke(new prov.InvokeRequest().setTok("compute:index:getBilling").setArgs(struct({ bucketSize: "hour", lastN: 3 })));
    const answer = js(response.getReturn());
    expect(answer.window).toEqual({ startTime: expect.any(String), endTime: expect.any(String), bucketSize: "hour" });
    expect(answer.records).toHaveLength(3); // one per bucket of the window
    expect(answer.totals.totalAmount).toBeCloseTo(answer.records.reduce((sum: number, r: { totalAmount: number }) => sum + r.totalAmount, 0), 6);
  });

  it("refuses a function it does not have", async () => {
    await expect(rpc.invoke(new prov.InvokeRequest().setTok("compute:index:getNothing").setArgs(struct({})))).rejects.toThrow(/unknown function compute:index:getNothing/);
  });
});
