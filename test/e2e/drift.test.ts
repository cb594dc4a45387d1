import { createE2EStack, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";

jest.setTimeout(10 * 60_000);

const A5000 = GPU.a5000;

describe("drift: GitOps with `up --refresh` converges by itself", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("drift");
    await e2e.declare({
      pods: { web: { image: "web:1", gpu: { id: A5000 } } },
      sandboxes: { job: { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, idleTimeoutSeconds: 90 } },
    });
    await e2e.stack.up();
  });
  afterAll(() => e2e?.dispose());

  it("a sandbox that idled out leaves the stack on refresh, and up --refresh recreates it", async () => {
    const before = await e2e.stateIds();
    await e2e.control.advance(5 * 60_000); // past the 90 s idle timeout, on the emulator's clock
    expect((await e2e.liveIds()).sandbox).toEqual([]);

    await e2e.stack.refresh();
    expect((await e2e.stateIds()).sandbox).toEqual([]);

    const up = await e2e.stack.up({ refresh: true });
    const after = await e2e.stateIds();
    expect(up.summary.resourceChanges?.create).toBe(1);
    expect(after.sandbox).toHaveLength(1);
    expect(after.sandbox).not.toEqual(before.sandbox);
    expect(await e2e.liveIds()).toEqual(after);
  });

  it("a pod stopped behind the stack's back is reported by refresh and started again by up", async () => {
    const [podId] = (await e2e.stateIds()).pod;
    await fetch(`${e2e.emulator.url}/v2/pods/${podId}/action`, {
      method: "POST",
      headers: { authorization: `Bearer ${e2e.emulator.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "stop" }),
    });
    const refresh = await e2e.stack.refresh();
    expect(refresh.summary.resourceChanges?.update).toBe(1);

    const preview = await e2e.stack.preview();
    expect(preview.changeSummary.update).toBe(1);

    const up = await e2e.stack.up();
    const pod = (up.outputs.podOutputs.value as Record<string, { id: string; status: string }>).web;
    expect(pod).toMatchObject({ id: podId, status: "RUNNING" });
    expect((await e2e.stack.preview()).changeSummary).toEqual({ same: 3 });
  });
});
