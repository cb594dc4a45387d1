import { createE2EStack, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";

jest.setTimeout(15 * 60_000);

const A5000 = GPU.a5000;
const RTX4090 = GPU.rtx4090;

type PodOut = { id: string; status: string; gpuTypeId: string | null };

describe("in-place updates and replacements through the real engine", () => {
  let e2e: E2EStack;
  let pod: Record<string, unknown>;
  let lastId: string;

  async function upWith(changes: Record<string, unknown>): Promise<{ out: PodOut; summary: Record<string, number> }> {
    pod = { ...pod, ...changes };
    await e2e.declare({ pods: { svc: pod } });
    const result = await e2e.stack.up();
    const out = (result.outputs.podOutputs.value as Record<string, PodOut>).svc;
    return { out, summary: result.summary.resourceChanges as Record<string, number> };
  }

  beforeAll(async () => {
    e2e = await createE2EStack("changes");
    pod = { image: "app:1", gpu: { id: A5000 }, env: { A: "1" }, ports: ["22/tcp"] };
    const { out } = await upWith({});
    lastId = out.id;
    expect(out.status).toBe("RUNNING");
  });
  afterAll(() => e2e?.dispose());

  it.each([
    ["name", { name: "svc-renamed" }],
    ["locked", { locked: true }],
    ["image", { image: "app:2" }],
    ["env", { env: { A: "2", B: "3" } }],
    ["ports", { ports: ["22/tcp", "8888/http"] }],
    ["cmd", { cmd: ["python", "serve.py"] }],
    ["disk", { disk: 40 }],
    ["globalNetworking", { globalNetworking: true }],
    ["desiredState STOPPED", { locked: false, desiredState: "STOPPED" }],
    ["desiredState RUNNING", { desiredState: "RUNNING" }],
  ])("changing %s updates the same pod in place", async (_field, change) => {
    const { out, summary } = await upWith(change);
    expect(summary.update).toBe(1);
    expect(summary.replace ?? 0).toBe(0);
    expect(out.id).toBe(lastId);
    expect(out.status).toBe((change as { desiredState?: string }).desiredState === "STOPPED" ? "EXITED" : "RUNNING");
  });

  it.each([
    ["gpu.id", { gpu: { id: RTX4090 } }],
    ["gpu.count", { gpu: { id: RTX4090, count: 2 } }],
    ["startSsh", { startSsh: true }],
    ["cloud", { cloud: "COMMUNITY" }],
    ["mounts (a new kind)", { mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] }, dataCenterIds: ["US-TX-3"], cloud: "SECURE" }],
  ])("changing %s replaces the pod: a new id, the old one gone from the service", async (_field, change) => {
    const { out, summary } = await upWith(change);
    expect(summary.replace).toBe(1);
    expect(out.id).not.toBe(lastId);
    expect(out.status).toBe("RUNNING");
    const live = await e2e.liveIds();
    expect(live.pods).toEqual([out.id]);
    lastId = out.id;
  });

  it("an immediate preview after all that reports no changes", async () => {
    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 2 });
  });
});
