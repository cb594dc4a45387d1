import { ComputeClient } from "../../sdk";
import { createE2EStack, noIds, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";

jest.setTimeout(15 * 60_000);

const RAY = { type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "rayproject/ray:2.40.0-gpu", ports: ["22/tcp", "8265/http"] };

interface ClusterOutput {
  id: string;
  name: string;
  status: string;
  nodes: Array<{ podId: string; rank: number; role: string | null; ip: string | null; status: string }>;
  primary: { podId: string; sshCommand: string | null } | null;
  costPerHour: number;
}

/**
 * A cluster through the real engine (the TypeScript program of the e2e stack): create, a
 * rename in place, a change that replaces (new cluster up before the old one goes, or the
 * other way round when asked), a clean preview and refresh, and a destroy that leaves no
 * cluster and no member; a cluster that cannot be placed, a node that fails, and bad inputs.
 */
describe("Cluster end to end", () => {
  let e2e: E2EStack;

  beforeAll(async () => {
    e2e = await createE2EStack("cluster");
  });
  afterEach(() => e2e.cleanSlate());
  afterAll(() => e2e?.dispose());

  const outputs = async (up: { outputs: Record<string, { value: unknown }> }) => (up.outputs.clusterOutputs!.value as Record<string, ClusterOutput>).c!;
  /** Mutating requests in order (`POST /v2/clusters`, `DELETE /v2/clusters/<id>`, …). */
  const mutations = async () => (await e2e.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  /** Every member pod of the account that still exists (the fixture's cluster left out). */
  const members = async () => {
    const api = new ComputeClient({ baseUrl: e2e.emulator.url, apiKey: e2e.emulator.apiKey, env: {} });
    try {
      return (await api.pods.list({ includeClusterPods: true })).filter((p) => p.cluster && p.cluster.id !== "clu_dev_ray" && p.status !== "TERMINATED");
    } finally {
      await api.close();
    }
  };

  it("create → rename (same id) → podCount (replace, new up before old goes) → clean preview and refresh → destroy leaves nothing", async () => {
    await e2e.declare({ clusters: { c: { name: "ray-a", ...RAY } } });
    const created = await outputs(await e2e.stack.up());
    expect(created).toMatchObject({ name: "ray-a", status: "RUNNING", primary: { podId: created.nodes[0]!.podId, sshCommand: expect.stringMatching(/^ssh root@/) } });
    expect(created.nodes.map((n) => [n.rank, n.role, n.status])).toEqual([
      [0, "RAY_HEAD", "RUNNING"],
      [1, "RAY_WORKER", "RUNNING"],
    ]);
    expect(created.costPerHour).toBeGreaterThan(0);

    await e2e.declare({ clusters: { c: { name: "ray-b", ...RAY } } });
    const renamed = await e2e.stack.up();
    expect(renamed.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(await outputs(renamed)).toMatchObject({ id: created.id, name: "ray-b" });

    await e2e.control.clearRequests();
    await e2e.declare({ clusters: { c: { name: "ray-b", ...RAY, compute: { ...RAY.compute, podCount: 3 } } } });
    const replaced = await outputs(await e2e.stack.up());
    expect(replaced.id).not.toBe(created.id);
    expect(replaced.nodes).toHaveLength(3);
    const order = await mutations();
    expect(order.indexOf("POST /v2/clusters")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(`DELETE /v2/clusters/${created.id}`)).toBeGreaterThan(order.indexOf("POST /v2/clusters"));
    expect(await e2e.liveIds()).toMatchObject({ cluster: [replaced.id] });

    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toEqual({ same: expect.any(Number) });
    const refreshed = await e2e.stack.refresh();
    expect(Object.keys(refreshed.summary.resourceChanges ?? {})).toEqual(["same"]);

    await e2e.stack.destroy();
    expect(await e2e.liveIds()).toEqual(noIds());
    expect(await members()).toEqual([]);
  });

  it("with deleteBeforeReplace the old cluster goes first", async () => {
    await e2e.declare({ clusters: { c: RAY }, deleteBeforeReplace: ["c"] });
    const created = await outputs(await e2e.stack.up());
    await e2e.control.clearRequests();
    await e2e.declare({ clusters: { c: { ...RAY, type: "TRAINING" } }, deleteBeforeReplace: ["c"] });
    const replaced = await outputs(await e2e.stack.up());
    expect(replaced.nodes.map((n) => n.role)).toEqual([null, null]);
    const order = await mutations();
    expect(order.indexOf(`DELETE /v2/clusters/${created.id}`)).toBeLessThan(order.indexOf("POST /v2/clusters"));
    expect(order.indexOf(`DELETE /v2/clusters/${created.id}`)).toBeGreaterThanOrEqual(0);
  });

  it("a cluster the service cannot place fails the up with the service's reason and leaves nothing", async () => {
    await e2e.declare({ clusters: { c: { ...RAY, compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 8, podCount: 4 } } } });
    const failure = await e2e.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(String(failure)).toContain("cluster creation failed");
    expect(await e2e.liveIds()).toEqual(noIds());
    expect(await e2e.stateIds()).toEqual(noIds());
    expect(await members()).toEqual([]);
  });

  it("a node that fails: a partial failure naming the members, the cluster recorded; the next up replaces it", async () => {
    await e2e.declare({ clusters: { c: RAY } });
    await e2e.control.failNext("pod");
    const failure = await e2e.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(String(failure)).toMatch(/went to ERROR/);
    expect(String(failure)).toMatch(/1\/2 RUNNING \(1 ERROR\)/);
    const [broken] = (await e2e.stateIds()).cluster;
    expect(await e2e.liveIds()).toMatchObject({ cluster: [broken] }); // recorded, not leaked

    const repaired = await outputs(await e2e.stack.up());
    expect(repaired.id).not.toBe(broken);
    expect(repaired.status).toBe("RUNNING");
    expect(await e2e.liveIds()).toMatchObject({ cluster: [repaired.id] });
  });

  it("bad inputs fail the preview with every violation at once, and nothing is created", async () => {
    const previewFailure = async (cluster: Record<string, unknown>) => {
      await e2e.declare({ clusters: { c: cluster } });
      return String(
        await e2e.stack.preview().then(
          () => undefined,
          (error: Error) => error,
        ),
      );
    };
    const low = await previewFailure({ ...RAY, compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 0, podCount: 1 } });
    expect(low).toMatch(/compute\.podCount: must be >= 2/);
    expect(low).toMatch(/compute\.gpuCountPerPod: must be >= 1/);
    const high = await previewFailure({ ...RAY, type: "KUBERNETES", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 9, podCount: 251 } });
    expect(high).toMatch(/type: /);
    expect(high).toMatch(/compute\.podCount: .*250/);
    expect(high).toContain(`compute.gpuCountPerPod: must be at most 8, the GPUs of the largest ${GPU.rtx4090} machine`);
    const unknown = await previewFailure({ ...RAY, compute: { gpuTypeId: "NVIDIA Quantum 1", gpuCountPerPod: 1, podCount: 2 } });
    expect(unknown).toContain('compute.gpuTypeId: "NVIDIA Quantum 1" is not a GPU type of the catalog');
    expect((await mutations()).filter((m) => m.includes("/v2/clusters"))).toEqual([]);
  });
});
