import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { parse, stringify } from "yaml";
import { ComputeClient } from "../../sdk";
import { createE2EStack, noIds, type E2EStack } from "./harness";

jest.setTimeout(10 * 60_000);

/** A token in the env of the pod made outside the stack: the import must keep it out of the state. */
const IMPORTED_TOKEN = "hf_imported_token_7f3a";

const PROJECT = { name: "compute-e2e-import", runtime: "yaml", description: "A stack that brings in a pod and a sandbox made outside it." };

interface Program {
  resources?: Record<string, { type: string; properties: Record<string, unknown>; options?: Record<string, unknown> }>;
}

/**
 * `pulumi import` of a pod, a sandbox and a cluster made outside the stack (with the SDK, as someone using
 * the console or the API would), through the real engine and the native plugin. The YAML host
 * writes the program that declares them; that program, as generated, previews with no changes,
 * and destroy then deletes what was imported.
 */
describe("pulumi import of a pod, a sandbox and a cluster made outside the stack", () => {
  let programDir: string;
  let e2e: E2EStack;
  let client: ComputeClient;
  let podId: string;
  let sandboxId: string;
  let clusterId: string;
  const generated: Program = { resources: {} };

  /** `pulumi import <type> <name> <id> --protect=false --yes`, the generated code read from --out. */
  async function importResource(type: string, name: string, id: string): Promise<Program> {
    const out = path.join(programDir, `.generated-${name}.yaml`);
    const run = await e2e.cli(["import", type, name, id, "--protect=false", "--yes", "--out", out]);
    if (run.code !== 0) throw new Error(`pulumi import failed (${run.code}):\n${run.stdout}\n${run.stderr}`);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(/from \$PATH/);
    const code = parse(readFileSync(out, "utf8")) as Program;
    rmSync(out);
    return code;
  }

  // What was made outside the stack, and what the generated declaration must say again (a pod's
  // data center is where it runs, not a setting the service records, so it is not imported).
  const MADE_POD = {
    name: "legacy-api",
    image: "nginx:1.27",
    cpu: { id: "cpu3c", vcpuCount: 2 },
    ports: ["80/http", "22/tcp"],
    env: { MODE: "prod", HF_TOKEN: IMPORTED_TOKEN },
    mounts: { network: [{ volumeId: "vol_dev_tx", path: "/srv/data" }] },
    startSsh: true,
  };
  const MADE_SANDBOX = {
    name: "legacy-scratch",
    image: "python:3.12-slim",
    compute: { vcpuCount: 1, memoryInGb: 2, containerDiskInGb: 5 },
    idleTimeoutSeconds: 900,
    labels: { team: "research" },
  };
  const MADE_CLUSTER = {
    name: "legacy-ray",
    type: "RAY" as const,
    compute: { gpuTypeId: "NVIDIA GeForce RTX 4090", gpuCountPerPod: 1, podCount: 2 },
    image: "rayproject/ray:2.40.0-gpu",
    disk: 40,
    ports: ["8265/http", "22/tcp"],
  };

  beforeAll(async () => {
    programDir = mkdtempSync(path.join(tmpdir(), "compute-e2e-import-program-"));
    writeFileSync(path.join(programDir, "Pulumi.yaml"), stringify(PROJECT));
    e2e = await createE2EStack("import", { program: programDir });
    client = new ComputeClient({ baseUrl: e2e.emulator.url, apiKey: e2e.emulator.apiKey, env: {} });
    const pod = await client.pods.create({ ...MADE_POD, dataCenterIds: ["US-TX-3"] });
    podId = pod.id;
    const sandbox = await client.sandboxes.create(MADE_SANDBOX);
    sandboxId = sandbox.id;
    clusterId = (await client.clusters.create(MADE_CLUSTER)).id;
  });
  afterAll(async () => {
    await client?.close();
    await e2e?.dispose();
    rmSync(programDir, { recursive: true, force: true });
  });

  it("imports the pod by id and generates its YAML declaration with the pod's settings", async () => {
    const code = await importResource("compute:index:Pod", "api", podId);
    expect(Object.keys(code.resources ?? {})).toEqual(["api"]);
    // The YAML generator writes the short token form (`compute:Pod` for `compute:index:Pod`).
    // Every env value is imported as a secret; the generated code still declares its value.
    const { env, ...rest } = MADE_POD;
    const secretEnv = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, { "fn::secret": value }]));
    expect(code.resources!.api).toMatchObject({ type: "compute:Pod", properties: { ...rest, env: secretEnv } });
    expect(await e2e.stateText()).not.toContain(IMPORTED_TOKEN);
    Object.assign(generated.resources!, code.resources);
    expect(await e2e.stateIds()).toEqual({ ...noIds(), pod: [podId] });
  });

  it("imports the sandbox by id", async () => {
    const code = await importResource("compute:index:Sandbox", "scratch", sandboxId);
    expect(code.resources!.scratch).toMatchObject({
      type: "compute:Sandbox",
      properties: MADE_SANDBOX,
    });
    Object.assign(generated.resources!, code.resources);
    expect(await e2e.stateIds()).toEqual({ ...noIds(), pod: [podId], sandbox: [sandboxId] });
  });

  it("imports the cluster by id, its container configuration read from its nodes", async () => {
    const code = await importResource("compute:index:Cluster", "ray", clusterId);
    expect(code.resources!.ray).toMatchObject({ type: "compute:Cluster", properties: MADE_CLUSTER });
    Object.assign(generated.resources!, code.resources);
    expect(await e2e.stateIds()).toEqual({ ...noIds(), pod: [podId], sandbox: [sandboxId], cluster: [clusterId] });
  });

  it("the program holding the generated declarations previews with no changes", async () => {
    writeFileSync(path.join(programDir, "Pulumi.yaml"), stringify({ ...PROJECT, ...generated }));
    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 4 });
  });

  it("an up changes nothing, and destroy deletes what was imported", async () => {
    const up = await e2e.stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 4 });
    expect(await e2e.liveIds()).toEqual({ ...noIds(), pod: [podId], sandbox: [sandboxId], cluster: [clusterId] });
    await e2e.stack.destroy();
    expect(await e2e.liveIds()).toEqual(noIds());
  });
});
