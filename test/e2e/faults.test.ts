import { createE2EStack, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";

jest.setTimeout(15 * 60_000);

const A5000 = GPU.a5000;
const H100 = GPU.h100;
const A100 = GPU.a100;
const sandbox = { image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } };

/**
 * Each case: faults are injected into the emulator, `up` runs, and it must end converged (or
 * failed with a clear message) with exactly the pods and sandboxes the state knows billing in
 * the emulator: nothing lost, nothing leaked.
 */
describe("faults during up", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("faults");
  });
  afterEach(async () => {
    await e2e.cleanSlate();
  });
  afterAll(() => e2e?.dispose());

  async function expectConverged(expected: { pods: number; sandboxes: number }) {
    const state = await e2e.stateIds();
    expect(state.pod).toHaveLength(expected.pods);
    expect(state.sandbox).toHaveLength(expected.sandboxes);
    expect(await e2e.liveIds()).toEqual(state);
  }

  it("a 429 storm: every request waits out Retry-After and the stack converges", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } }, sandboxes: { s: sandbox } });
    await e2e.control.addFault({ path: "/v2/*", status: 429, retryAfter: 1, times: 6 });
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect((await e2e.control.requests()).filter((r) => r.status === 429).length).toBe(6);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("dozens of consecutive 429s on the left-behind lookup: honoured for as long as they come, and the up converges in one run", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } }, sandboxes: { s: sandbox } });
    // 24 in a row on the sandbox list, Retry-After: 1 (more than the 10 retries a count allowed).
    await e2e.control.addFault({ method: "GET", path: "/v2/sandboxes", status: 429, retryAfter: 1, times: 24 });
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect((await e2e.control.requests()).filter((r) => r.status === 429).length).toBe(24);
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("a 5xx burst on create: retried, still exactly one pod", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } } });
    await e2e.control.addFault({ method: "POST", path: "/v2/pods", status: 503, times: 3 });
    await e2e.stack.up();
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("dropped connections after the service created the pod and the sandbox: adopted, not duplicated", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } }, sandboxes: { s: sandbox } });
    await e2e.control.addFault({ method: "POST", path: "/v2/pods", drop: true, after: true, times: 1 });
    await e2e.control.addFault({ method: "POST", path: "/v2/sandboxes", status: 502, after: true, times: 1 });
    await e2e.stack.up();
    const posts = (await e2e.control.requests()).filter((r) => r.method === "POST" && (r.path === "/v2/pods" || r.path === "/v2/sandboxes"));
    expect(posts).toHaveLength(2); // one each: the lost answers were recovered, not resent
    await expectConverged({ pods: 1, sandboxes: 1 });
  });

  it("the first placement candidates sold out: the pod lands on a later one", async () => {
    await e2e.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: H100, cloud: "SECURE", available: 0 });
    await e2e.declare({
      pods: {
        a: {
          image: "i",
          gpu: { id: H100 },
          placement: [
            { gpuTypeId: H100, dataCenterId: "EU-RO-1" },
            { gpuTypeId: GPU.h200, dataCenterId: "EU-RO-1" },
            { gpuTypeId: A100, dataCenterId: "EU-RO-1" },
          ],
        },
      },
    });
    const up = await e2e.stack.up();
    const pod = (up.outputs.podOutputs.value as Record<string, { gpuTypeId: string; placementChosen: unknown }>).a;
    expect(pod).toMatchObject({ gpuTypeId: A100, placementChosen: { gpuTypeId: A100, dataCenterId: "EU-RO-1" } });
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("a pod that goes to ERROR while starting fails the up clearly, stays in the state, and the next up resumes it", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } } } });
    await e2e.control.failNext("pod");
    const failed = await e2e.stack.up().catch((e: Error) => e);
    expect(String(failed)).toMatch(/went to ERROR while waiting for RUNNING/);
    await expectConverged({ pods: 1, sandboxes: 0 }); // recorded, not leaked

    const retried = await e2e.stack.up();
    expect(retried.summary.result).toBe("succeeded");
    expect((retried.outputs.podOutputs.value as Record<string, { status: string }>).a.status).toBe("RUNNING");
    await expectConverged({ pods: 1, sandboxes: 0 });
  });

  it("the emulator restarted in the middle of an up: the up rides it out and converges", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: A5000 } }, b: { image: "i", cpu: { id: "cpu3c", vcpuCount: 2 } } }, sandboxes: { s: sandbox } });
    await e2e.control.setTimings({ podProvisioningMs: 1500, podStartingMs: 1500, sandboxCreatingMs: 1500 });
    const up = e2e.stack.up();
    await eventually("the three creates answered", async () => (await e2e.control.requests()).filter((r) => r.method === "POST" && r.status === 201).length >= 3, {
      timeoutMs: 60_000,
    });
    await e2e.restartEmulator(1000);
    const result = await up;
    expect(result.summary.result).toBe("succeeded");
    await expectConverged({ pods: 2, sandboxes: 1 });
  });
});
