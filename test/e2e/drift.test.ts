import { createE2EStack, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";
import { runCliInProcess } from "../cli/helpers";

jest.setTimeout(10 * 60_000);

const A5000 = GPU.a5000;
const HOUR = 3600_000;
/** Two hours from each one's start, then what the issue asks of each kind. */
const lifetime = (action: string, hours = 2) => ({ maxDurationSeconds: hours * 3600, action });
const LIVING = (hours = 2) => ({
  pods: { stopper: { image: "web:1", gpu: { id: A5000 }, lifetime: lifetime("STOP", hours) }, ender: { image: "batch:1", gpu: { id: A5000 }, lifetime: lifetime("TERMINATE", hours) } },
  clusters: { ray: { type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "rayproject/ray:2.9.0", lifetime: lifetime("TERMINATE", hours) } },
  endpoints: { infer: { type: "QUEUE", image: "infer:1", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, workers: { min: 1, max: 2 }, lifetime: lifetime("STOP", hours) } },
});

describe("drift: GitOps with `up --refresh` converges by itself", () => {
  let e2e: E2EStack;
  // Beside the drift cases' pod and sandbox, what carries a lifetime (the last case).
  const declared = (hours = 2) => {
    const living = LIVING(hours);
    return {
      pods: { web: { image: "web:1", gpu: { id: A5000 } }, ...living.pods },
      sandboxes: { job: { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 }, idleTimeoutSeconds: 90 } },
      clusters: living.clusters,
      endpoints: living.endpoints,
    };
  };
  beforeAll(async () => {
    e2e = await createE2EStack("drift");
    await e2e.declare(declared());
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
    const podId = ((await e2e.stack.outputs()).podOutputs!.value as Record<string, { id: string }>).web!.id;
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
    expect((await e2e.stack.preview()).changeSummary).toEqual({ same: 7 });
  });

  it("a lifetime fires with no program: compute reap acts, refresh shows why and when, up brings nothing back until the lifetime changes", async () => {
    type Out = { id: string; status?: string; workersMax?: number; expiry: { expiredAt: string | null; reason: string | null; deadline: string | null } };
    const outputs = async () => {
      const o = (await e2e.stack.outputs()) as Record<string, { value: Record<string, Out> }>;
      return { ...o.podOutputs!.value, ...o.clusterOutputs!.value, ...o.endpointOutputs!.value };
    };
    const before = await outputs();
    await e2e.control.advance(2 * HOUR + 60_000);
    const project = (await e2e.stack.workspace.projectSettings()).name;
    const env = { COMPUTE_BASE_URL: e2e.emulator.url, COMPUTE_API_KEY: e2e.emulator.apiKey };
    const reaped = await runCliInProcess(["reap", "--stack", `${project}/${e2e.stack.name}`, "--apply", "--claim-wait", "0"], env);
    expect({ code: reaped.code, stderr: reaped.stderr }).toEqual({ code: 0, stderr: "" });
    for (const [kind, name, done] of [["pod", "stopper", "stopped"], ["pod", "ender", "terminated"], ["cluster", "ray", "terminated"], ["serverless endpoint", "infer", "scaled to zero workers"]]) {
      expect(reaped.stdout).toMatch(new RegExp(`^${kind} ${name}-[0-9a-f]+ \\(.+, ${project}/${e2e.stack.name}\\): (STOP|TERMINATE), lifetime reached at .+: ${done}$`, "m"));
    }
    expect(reaped.stdout).not.toMatch(/^pod web-/m);

    // Refresh records each expiry with its reason and time; what the lifetime ended stays known.
    await e2e.stack.refresh();
    const state = (await e2e.stack.exportStack()).deployment.resources as Array<{ urn: string; id?: string; outputs?: Record<string, any> }>;
    const recorded = (name: string) => state.find((r) => r.urn.endsWith(`::${name}`))!.outputs!;
    for (const name of ["stopper", "ender", "ray", "infer"]) expect(recorded(name).expiry).toMatchObject({ reason: "lifetime", expiredAt: expect.any(String) });
    expect(recorded("stopper").status).toBe("EXITED");
    expect([recorded("ender").status, recorded("ray").status]).toEqual(["EXPIRED", "EXPIRED"]);
    expect(recorded("web").expiry).toBeNull();

    // The next up restarts and recreates nothing of it (the sandbox idled out meanwhile: that is drift's own case).
    const held = await e2e.stack.up();
    const after = await outputs();
    expect(after.stopper).toMatchObject({ id: before.stopper!.id, status: "EXITED" });
    expect(after.ender!.id).toBe(before.ender!.id);
    expect(after.ray!.id).toBe(before.ray!.id);
    expect(after.infer!.workersMax).toBe(0);
    expect(held.summary.resourceChanges).not.toHaveProperty("update");
    expect((await e2e.liveIds()).pod).not.toContain(before.ender!.id);

    // A longer lifetime brings each back: the stopped pod started in place, the ended ones made anew, the workers back.
    await e2e.declare(declared(3));
    await e2e.stack.up();
    const back = await outputs();
    expect(back.stopper).toMatchObject({ id: before.stopper!.id, status: "RUNNING", expiry: { expiredAt: null } });
    expect(back.ender!.id).not.toBe(before.ender!.id);
    expect(back.ray!.id).not.toBe(before.ray!.id);
    expect(back.infer).toMatchObject({ id: before.infer!.id, workersMax: 2, expiry: { expiredAt: null } });
    expect((await e2e.stack.preview()).changeSummary).toEqual({ same: 7 });
  });
});
