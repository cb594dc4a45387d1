/**
 * The provider protocol as the engine speaks it, for suites that drive the built plugin (`node
 * dist/provider/native/main.js`, started as the engine starts it) over gRPC against an
 * in-process emulator: `usePlugin()` gives the engine's calls for an `up`, a `preview`, a
 * `refresh` and a `destroy` (check, diff, create, update, read, delete), and what they record.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { EmulatorControl, startEmulator, type RunningEmulator } from "../../emulator";
import { resourceByToken } from "../../provider/resources";
import { added, clientOf, clusterMemberIds, listedIds, noIds, type IdsByKind } from "../helpers/live-objects";
import { eventually } from "../helpers/eventually";
import { ROOT } from "../helpers/fixtures";
import { connect, fakeEngine, js, prov, SECRET, SIG, struct, type Client } from "../provider/native/client";

export const POD = "compute:index:Pod";
export const SANDBOX = "compute:index:Sandbox";
export const STACK = "protocol";
export const PROJECT = "compute-e2e";
export const MAIN = path.join(ROOT, "dist", "provider", "native", "main.js");
export const { DiffChanges } = prov.DiffResponse;

export type Props = Record<string, any>;

/**
 * A resource as the engine's state holds it (id, the inputs check returned, the outputs), and
 * what the program declares for it.
 */
export interface Recorded {
  type: string;
  name: string;
  id: string;
  declared: Props;
  inputs: Props;
  outputs: Props;
}

export const urnOf = (type: string, name: string) => `urn:pulumi:${STACK}::${PROJECT}::${type}::${name}`;

/** The values of a property bag with every secret replaced, as the engine writes them to state. */
export function plaintext(value: unknown): unknown {
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
export function usePlugin() {
  const env = {} as {
    scratch: string;
    emulator: RunningEmulator;
    control: EmulatorControl;
    engine: Awaited<ReturnType<typeof fakeEngine>>;
    plugin: ChildProcess;
    rpc: Client;
    /** What the emulator's fixture holds, of every kind, and its cluster member pods: never the stack's. */
    fixture: IdsByKind;
    fixtureMembers: string[];
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
    env.fixtureMembers = await clusterMemberIds(fixture);
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
    return { changes: response.getChanges(), replaces: response.getReplacesList(), diffs: response.getDiffsList() };
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

  /**
   * `preview` of one resource, the program unchanged: what the engine would change, by input
   * (none: []). A change the provider reports under no input (a cluster's unfinished wait)
   * still counts, as "(not an input)".
   */
  async function changedInputs(res: Recorded): Promise<string[]> {
    const inputs = await check(res.type, res.name, res.declared, res.inputs);
    const found = await diff(res, inputs);
    if (found.changes !== DiffChanges.DIFF_SOME) return [];
    return found.diffs.length > 0 ? [...found.diffs].sort() : ["(not an input)"];
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

  return { env, configure, newRun, check, create, diff, update, remove, refresh, up, changes, changedInputs, api, liveIds, restartEmulator };
}

/** The ids of what the engine recorded, by kind (every registered kind a key), as the engine suites compare them with what runs. */
export function idsOf(resources: Recorded[]): IdsByKind {
  const ids = noIds();
  for (const r of resources) ids[resourceByToken(r.type)!.kind]!.push(r.id);
  return Object.fromEntries(Object.entries(ids).map(([kind, list]) => [kind, list.sort()]));
}
