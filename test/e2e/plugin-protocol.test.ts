/**
 * The provider behaviours of the end-to-end suites basic, changes and faults, driven at the
 * provider protocol instead of through the engine: the built plugin (`node
 * dist/provider/native/main.js`, as the engine starts it) called over gRPC with the calls the
 * engine makes for an `up`, a `preview`, a `refresh` and a `destroy` (check, diff, create, update,
 * read, delete), against an in-process emulator. The plugin runs the same provider runtime as the
 * dynamic resources.
 *
 * It runs in both jest projects (jest.config.js): against the emulator's seed shape (`default`)
 * and against the public OpenAPI's (`public-shape`), every provider behaviour of those three
 * suites each time, in seconds: the whole update/replace table of the pod (pod-change-cases.ts)
 * and every fault case. This suite is where they are proven; the engine suites keep only what
 * the engine itself shows (the state and the secrets encrypted in it, the plan it prints, a diff
 * turned into an update or a replace step and recorded, a failed create recorded and resumed by
 * the next `up`), on a few representative cases and against the seed shape alone: that part does
 * not depend on the answer shape.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { EmulatorControl, startEmulator, type RunningEmulator } from "../../emulator";
import { resourceByToken } from "../../provider/resources";
import { added, clientOf, listedIds, noIds, type IdsByKind } from "../helpers/live-objects";
import { eventually } from "../helpers/eventually";
import { IN_PLACE_CHANGES, REPLACING_CHANGES, START_POD, statusAfter } from "./pod-change-cases";
import { GPU, KEYS, ROOT } from "../helpers/fixtures";
import { connect, fakeEngine, initFailure, js, prov, secret, SECRET, SIG, struct, type Client } from "../provider/native/client";

jest.setTimeout(120_000);

const POD = "compute:index:Pod";
const SANDBOX = "compute:index:Sandbox";
const STACK = "protocol";
const PROJECT = "compute-e2e";
const MAIN = path.join(ROOT, "dist", "provider", "native", "main.js");
const { DiffChanges } = prov.DiffResponse;

type Props = Record<string, any>;

/**
 * A resource as the engine's state holds it (id, the inputs check returned, the outputs), and
 * what the program declares for it.
 */
interface Recorded {
  type: string;
  name: string;
  id: string;
  declared: Props;
  inputs: Props;
  outputs: Props;
}

const urnOf = (type: string, name: string) => `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;

/** The values of a property bag with every secret replaced, as the engine writes them to state. */
function plaintext(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plaintext);
  if (value !== null && typeof value === "object") {
    if ((value as Props)[SIG] === SECRET) return "[secret]";
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plaintext(item)]));
  }
  return value;
}

/**
 * The plugin process, its fake engine, an emulator (with a data directory, so that it can be
 * restarted on the same port), and the engine's calls.
 */
function usePlugin() {
  const env = {} as {
    scratch: string;
    emulator: RunningEmulator;
    control: EmulatorControl;
    engine: Awaited<ReturnType<typeof fakeEngine>>;
    plugin: ChildProcess;
    rpc: Client;
    /** What the emulator's fixture holds, of every kind: never the stack's. */
    fixture: IdsByKind;
  };
  const emulatorOptions = () => ({ port: 0, profile: "fast" as const, quiet: true, dataDir: path.join(env.scratch, "emulator") });

  beforeAll(async () => {
    env.scratch = mkdtempSync(path.join(tmpdir(), "compute-protocol-"));
    mkdirSync(path.join(env.scratch, "state"));
    writeFileSync(path.join(env.scratch, "Pulumi.yaml"), `name: ${PROJECT}\nruntime: yaml\n`);
    env.emulator = await startEmulator(emulatorOptions());
    env.control = new EmulatorControl(env.emulator.url, env.emulator.adminToken);
    const fixture = clientOf(env.emulator);
    env.fixture = await listedIds(fixture);
    await fixture.close();
    env.engine = await fakeEngine();
    await startPlugin();
  });
  afterAll(async () => {
    await stopPlugin();
    await env.engine?.close();
    await env.emulator?.close();
    if (env.scratch) rmSync(env.scratch, { recursive: true, force: true });
  });

  /** The plugin as the engine starts it for a run: spawned, its port read, the handshake, Configure. */
  async function startPlugin() {
    // In the project's folder, the engine's address last; the backend and the Pulumi home are
    // the stack's own (the owner mark reads the backend), and no COMPUTE_* setting of this
    // process reaches it.
    const childEnv: NodeJS.ProcessEnv = { PULUMI_BACKEND_URL: `file://${path.join(env.scratch, "state")}`, PULUMI_HOME: path.join(env.scratch, "home") };
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("COMPUTE_") && !key.startsWith("PULUMI_")) childEnv[key] = value;
    env.plugin = spawn(process.execPath, [MAIN, env.engine.address], { cwd: env.scratch, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    env.plugin.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    env.plugin.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const port = await eventually(
      "the plugin's port on stdout",
      () => {
        if (env.plugin.exitCode !== null) throw new Error(`the plugin exited (${env.plugin.exitCode}) before printing its port:\n${stderr}`);
        return /^(\d+)\n/.exec(stdout)?.[1];
      },
      { timeoutMs: 30_000 },
    );
    env.rpc = connect(Number(port));
    await env.rpc.handshake(new prov.ProviderHandshakeRequest().setEngineAddress(env.engine.address));
    await configure(env.emulator.apiKey);
  }

  async function stopPlugin() {
    env.rpc?.close();
    if (env.plugin && env.plugin.exitCode === null) {
      const gone = new Promise((resolve) => env.plugin.once("exit", resolve));
      env.plugin.kill("SIGTERM");
      await gone;
    }
  }

  /**
   * A new engine run: the engine starts a provider process for each `up`, so what a process
   * keeps for its run (the checked key, the left-behind lists: shared-reads.ts `forRun`, the
   * ids it adopted) starts empty again, and the run's first calls make those requests afresh.
   */
  async function newRun() {
    await stopPlugin();
    await startPlugin();
  }

  /** What the engine sends from the stack's config (`compute:baseUrl`, `compute:apiKey`). */
  async function configure(apiKey: string) {
    const request = new prov.ConfigureRequest().setAcceptsecrets(true);
    request.getVariablesMap().set("compute:config:baseUrl", env.emulator.url);
    request.getVariablesMap().set("compute:config:apiKey", apiKey);
    await env.rpc.configure(request);
  }

  async function check(type: string, name: string, news: Props, olds: Props = {}) {
    const response = await env.rpc.check(new prov.CheckRequest().setUrn(urnOf(type, name)).setType(type).setName(name).setOlds(struct(olds)).setNews(struct(news)));
    const failures = response.getFailuresList().map((f) => f.getReason());
    if (failures.length > 0) throw new Error(`check of ${name} failed: ${failures.join("; ")}`);
    return js(response.getInputs());
  }

  /** A create as `up` makes it: check (no olds), then create. */
  async function create(type: string, name: string, news: Props): Promise<Recorded> {
    const inputs = await check(type, name, news);
    const response = await env.rpc.create(new prov.CreateRequest().setUrn(urnOf(type, name)).setType(type).setName(name).setProperties(struct(inputs)));
    return { type, name, id: response.getId(), declared: news, inputs, outputs: js(response.getProperties()) };
  }

  async function diff(res: Recorded, inputs: Props) {
    const response = await env.rpc.diff(
      new prov.DiffRequest().setId(res.id).setUrn(urnOf(res.type, res.name)).setType(res.type).setOlds(struct(res.outputs)).setOldInputs(struct(res.inputs)).setNews(struct(inputs)),
    );
    return { changes: response.getChanges(), replaces: response.getReplacesList() };
  }

  async function update(res: Recorded, inputs: Props, declared = res.declared): Promise<Recorded> {
    const response = await env.rpc.update(
      new prov.UpdateRequest().setId(res.id).setUrn(urnOf(res.type, res.name)).setType(res.type).setOlds(struct(res.outputs)).setOldInputs(struct(res.inputs)).setNews(struct(inputs)),
    );
    return { ...res, declared, inputs, outputs: js(response.getProperties()) };
  }

  async function remove(res: Recorded): Promise<void> {
    await env.rpc.delete(new prov.DeleteRequest().setId(res.id).setUrn(urnOf(res.type, res.name)).setType(res.type).setProperties(struct(res.outputs)).setOldInputs(struct(res.inputs)));
  }

  /** `refresh` of one resource: read with what the state holds; undefined when it is gone. */
  async function refresh(res: Recorded): Promise<Recorded | undefined> {
    const response = await env.rpc.read(
      new prov.ReadRequest().setId(res.id).setUrn(urnOf(res.type, res.name)).setType(res.type).setProperties(struct(res.outputs)).setInputs(struct(res.inputs)),
    );
    if (response.getId() === "") return undefined;
    return { ...res, id: response.getId(), inputs: js(response.getInputs()), outputs: js(response.getProperties()) };
  }

  /**
   * One resource of an `up` (or, with `preview`, of a preview): check with the recorded inputs,
   * diff; then nothing, an update, or a replacement (check again without the olds, create the
   * new one, delete the old one: create-before-delete, the engine's default).
   */
  async function up(res: Recorded, news: Props): Promise<{ step: "same" | "update" | "replace"; res: Recorded }> {
    const inputs = await check(res.type, res.name, news, res.inputs);
    const { changes, replaces } = await diff(res, inputs);
    if (changes !== DiffChanges.DIFF_SOME) return { step: "same", res: { ...res, declared: news } };
    if (replaces.length === 0) return { step: "update", res: await update(res, inputs, news) };
    const created = await create(res.type, res.name, news);
    await remove(res);
    return { step: "replace", res: created };
  }

  /** `preview` of one resource, the program unchanged: whether the engine would change it. */
  async function changes(res: Recorded): Promise<number> {
    const inputs = await check(res.type, res.name, res.declared, res.inputs);
    return (await diff(res, inputs)).changes;
  }

  async function api(apiPath: string) {
    const response = await fetch(`${env.emulator.url}${apiPath}`, { headers: { authorization: `Bearer ${env.emulator.apiKey}` } });
    return response.json() as Promise<Record<string, Array<{ id: string; cluster?: unknown; env?: Record<string, string> }>>>;
  }

  /** The ids of every registered kind the emulator holds that its fixture did not (test/helpers/live-objects.ts). */
  async function liveIds() {
    const client = clientOf(env.emulator);
    try {
      return added(await listedIds(client), env.fixture);
    } finally {
      await client.close();
    }
  }

  async function restartEmulator(downMs: number) {
    const port = Number(new URL(env.emulator.url).port);
    await env.emulator.close();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    env.emulator = await startEmulator({ ...emulatorOptions(), port });
  }

  return { env, configure, newRun, check, create, diff, update, remove, refresh, up, changes, api, liveIds, restartEmulator };
}

/** The ids of what the engine recorded, by kind (every registered kind a key), as the engine suites compare them with what runs. */
function idsOf(resources: Recorded[]): IdsByKind {
  const ids = noIds();
  for (const r of resources) ids[resourceByToken(r.type)!.kind]!.push(r.id);
  return Object.fromEntries(Object.entries(ids).map(([kind, list]) => [kind, list.sort()]));
}

describe("the provider behaviours of test/e2e/basic.test.ts", () => {
  const p = usePlugin();

  it("creates everything RUNNING; preview and refresh+preview show no changes; no secret outside the secret outputs; a rotated key works; delete leaves nothing", async () => {
    const pod = await p.create(POD, "trainer", {
      image: "pytorch:2.4",
      gpu: { id: GPU.a5000 },
      ports: ["22/tcp", "8888/http"],
      startSsh: true,
      startJupyter: true,
      env: secret({ HF_TOKEN: "hf-secret-token-123" }),
    });
    const sandbox = await p.create(SANDBOX, "scratch", { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 }, idleTimeoutSeconds: 30 });
    expect(pod.outputs.status).toBe("RUNNING");
    expect(sandbox.outputs).toMatchObject({ state: "RUNNING", appliedIdleTimeoutSeconds: 90 });

    expect(await p.changes(pod)).toBe(DiffChanges.DIFF_NONE);
    expect(await p.changes(sandbox)).toBe(DiffChanges.DIFF_NONE);

    const refreshedPod = (await p.refresh(pod))!;
    const refreshedSandbox = (await p.refresh(sandbox))!;
    expect(await p.changes(refreshedPod)).toBe(DiffChanges.DIFF_NONE);
    expect(await p.changes(refreshedSandbox)).toBe(DiffChanges.DIFF_NONE);

    const live = (await p.api(`/v2/pods/${pod.id}`)) as unknown as { env: Record<string, string> };
    const jupyterPassword = live.env.JUPYTER_PASSWORD;
    expect(jupyterPassword).toEqual(expect.any(String));
    expect(pod.outputs.jupyterPassword).toEqual({ [SIG]: SECRET, value: jupyterPassword });
    // What the engine would write to state in plaintext: everything but the secret values.
    const state = JSON.stringify(plaintext([pod, sandbox, refreshedPod, refreshedSandbox]));
    expect(state).toContain(`"podId":"${pod.id}"`);
    expect(state).not.toContain(p.env.emulator.apiKey);
    expect(state).not.toContain("hf-secret-token-123");
    expect(state).not.toContain(jupyterPassword);

    // A revoked key fails Configure itself, once, in one line naming the setting (the run's
    // key check); a rotated key of the same account just works.
    expect(String(await p.configure("cs_revoked_000").then(() => "configured", (e: grpc.ServiceError) => e.details))).toMatch(/^compute:apiKey: http:\/\/127\.0\.0\.1:\d+ refused the key \(401 [^\n]+$/);
    await p.configure(KEYS.sessionDev);
    expect(await p.refresh(pod)).toMatchObject({ id: pod.id });

    await p.remove(refreshedPod);
    await p.remove(refreshedSandbox);
    expect(await p.liveIds()).toEqual(noIds());
    await p.configure(p.env.emulator.apiKey);
  });
});

describe("the provider behaviours of test/e2e/changes.test.ts", () => {
  const p = usePlugin();
  let pod: Props;
  let svc: Recorded;

  async function upWith(change: Props) {
    pod = { ...pod, ...change };
    const { step, res } = await p.up(svc, pod);
    const lastId = svc.id;
    svc = res;
    return { step, lastId };
  }

  beforeAll(async () => {
    pod = { ...START_POD };
    svc = await p.create(POD, "svc", pod);
    expect(svc.outputs.status).toBe("RUNNING");
  });

  it.each(IN_PLACE_CHANGES)("changing %s updates the same pod in place", async (_field, change) => {
    const { step, lastId } = await upWith(change);
    expect(step).toBe("update");
    expect(svc.id).toBe(lastId);
    expect(svc.outputs.status).toBe(statusAfter(change));
  });

  it.each(REPLACING_CHANGES)("changing %s replaces the pod: a new id, the old one gone from the service", async (_field, change) => {
    const { step, lastId } = await upWith(change);
    expect(step).toBe("replace");
    expect(svc.id).not.toBe(lastId);
    expect(svc.outputs.status).toBe("RUNNING");
    expect((await p.liveIds()).pod).toEqual([svc.id]);
  });

  it("an immediate preview after all that reports no changes", async () => {
    expect(await p.changes(svc)).toBe(DiffChanges.DIFF_NONE);
  });
});

describe("the provider behaviours of test/e2e/faults.test.ts", () => {
  const p = usePlugin();
  const sandbox = { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } };
  /** What the state holds after the case's `up`. */
  let recorded: Recorded[] = [];

  /** Every create of an `up` at once (nothing orders them), what succeeded recorded. */
  async function upAll(declared: Array<[string, string, Props]>): Promise<Recorded[]> {
    const results = await Promise.all(declared.map(([type, name, news]) => p.create(type, name, news)));
    recorded.push(...results);
    return results;
  }

  async function expectConverged(expected: { pods: number; sandboxes: number }) {
    const state = idsOf(recorded);
    expect(state.pod).toHaveLength(expected.pods);
    expect(state.sandbox).toHaveLength(expected.sandboxes);
    expect(await p.liveIds()).toEqual(state);
  }

  afterEach(async () => {
    // Between cases, as the engine suite's cleanSlate: faults cleared, destroy, nothing left.
    await p.env.control.clearFaults();
    for (const res of recorded) await p.remove(res);
    recorded = [];
    expect(await p.liveIds()).toEqual(noIds());
    await p.env.control.reset();
    await p.env.control.clearRequests();
  });

  it("a 429 storm: every request waits out Retry-After and the stack converges", async () => {
    await p.env.control.addFault({ path: "/v2/*", status: 429, retryAfter: 1, times: 6 });
    // A run of its own, as an `up` starts one: the storm meets the run's first requests too
    // (the key check, the left-behind lists), not only the creates'.
    await p.newRun();
    await upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [SANDBOX, "s", sandbox],
    ]);
    expect((await p.env.control.requests()).filter((r) => r.status === 429).length).toBe(6);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("dozens of consecutive 429s on the left-behind lookup: honoured for as long as they come, and the creates converge in one run", async () => {
    // 24 in a row on the sandbox list, Retry-After: 1 (more than the 10 retries a count allowed).
    await p.env.control.addFault({ method: "GET", path: "/v2/sandboxes", status: 429, retryAfter: 1, times: 24 });
    // A new run: the lookup is made once per run (shared-reads.ts `forRun`), so an earlier
    // case's would otherwise answer it.
    await p.newRun();
    await upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [SANDBOX, "s", sandbox],
    ]);
    expect((await p.env.control.requests()).filter((r) => r.status === 429).length).toBe(24);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("a 5xx burst on create: retried, still exactly one pod", async () => {
    await p.env.control.addFault({ method: "POST", path: "/v2/pods", status: 503, times: 3 });
    await upAll([[POD, "a", { image: "i", gpu: { id: GPU.a5000 } }]]);
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("dropped connections after the service created the pod and the sandbox: adopted, not duplicated", async () => {
    await p.env.control.addFault({ method: "POST", path: "/v2/pods", drop: true, after: true, times: 1 });
    await p.env.control.addFault({ method: "POST", path: "/v2/sandboxes", status: 502, after: true, times: 1 });
    await upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [SANDBOX, "s", sandbox],
    ]);
    const posts = (await p.env.control.requests()).filter((r) => r.method === "POST" && (r.path === "/v2/pods" || r.path === "/v2/sandboxes"));
    expect(posts).toHaveLength(2); // one each: the lost answers were recovered, not resent
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("the first placement candidates sold out: the pod lands on a later one", async () => {
    await p.env.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: GPU.h100, cloud: "SECURE", available: 0 });
    const [pod] = await upAll([
      [
        POD,
        "a",
        {
          image: "i",
          gpu: { id: GPU.h100 },
          placement: [
            { gpuTypeId: GPU.h100, dataCenterId: "EU-RO-1" },
            { gpuTypeId: GPU.h200, dataCenterId: "EU-RO-1" },
            { gpuTypeId: GPU.a100, dataCenterId: "EU-RO-1" },
          ],
        },
      ],
    ]);
    expect(pod!.outputs).toMatchObject({ gpuTypeId: GPU.a100, placementChosen: { gpuTypeId: GPU.a100, dataCenterId: "EU-RO-1" } });
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("a pod that goes to ERROR while starting fails the create clearly, is recorded, and the next up resumes it", async () => {
    await p.env.control.failNext("pod");
    const news = { image: "i", gpu: { id: GPU.a5000 } };
    const inputs = await p.check(POD, "a", news);
    const error = (await p.env.rpc.create(new prov.CreateRequest().setUrn(urnOf(POD, "a")).setType(POD).setName("a").setProperties(struct(inputs))).catch((e) => e)) as grpc.ServiceError;
    expect(String(error.message)).toMatch(/went to ERROR while waiting for RUNNING/);
    const failure = initFailure(error)!;
    // The engine records what ErrorResourceInitFailed carries: recorded, not leaked.
    recorded.push({ type: POD, name: "a", id: failure.getId(), declared: news, inputs, outputs: js(failure.getProperties()) });
    await expectConverged({ pods: 1, sandboxes: 0 });

    // The next up, a provider process of its own, updates the recorded pod (the engine does so
    // for a resource whose create failed): what the state holds is all it has to go on.
    await p.newRun();
    const resumed = await p.update(recorded[0]!, await p.check(POD, "a", news, inputs));
    recorded[0] = resumed;
    expect(resumed.outputs.status).toBe("RUNNING");
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("the emulator restarted in the middle of the creates: they ride it out and converge", async () => {
    await p.env.control.setTimings({ podProvisioningMs: 1500, podStartingMs: 1500, sandboxCreatingMs: 1500 });
    const up = upAll([
      [POD, "a", { image: "i", gpu: { id: GPU.a5000 } }],
      [POD, "b", { image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } }],
      [SANDBOX, "s", sandbox],
    ]);
    await eventually("the three creates answered", async () => (await p.env.control.requests()).filter((r) => r.method === "POST" && r.status === 201).length >= 3, {
      timeoutMs: 60_000,
    });
    await p.restartEmulator(1000);
    await up;
    await expectConverged({ pods: 2, sandboxes: 1 });
  });
});
