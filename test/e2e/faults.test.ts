/**
 * Faults during an `up`, through the real engine: only what the engine itself does with them.
 *
 * Each fault case is first a promise of the provider (it converges, exactly one object, a lost
 * answer adopted and not created again, a later placement candidate taken, a restart ridden
 * out), and test/e2e/plugin-protocol.test.ts ("the provider behaviours of
 * test/e2e/faults.test.ts") proves every one of them at the provider protocol, in both answer
 * shapes, each with the same faults and the same checks of what is recorded against what
 * bills in the emulator:
 * - a 429 storm: every request waits out Retry-After (the run's first requests among them);
 * - dozens of consecutive 429s on the left-behind lookup, honoured in one run;
 * - a 5xx burst on create: retried, exactly one pod;
 * - dropped connections after the service created the pod and the sandbox: adopted, not duplicated;
 * - the first placement candidates sold out: the pod lands on a later one;
 * - the emulator restarted in the middle of the creates: ridden out, converged;
 * - a pod that goes to ERROR while starting (the create's error and what it carries).
 * The engine adds nothing to the first six but the same calls in the same order.
 *
 * The last one has an engine part, and runs here too: the engine takes the failed create's
 * partial result, records the pod in its state (so it is not leaked), fails the `up`, and its
 * next `up` updates that pod until it runs instead of creating another.
 */
import { createE2EStack, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";

jest.setTimeout(15 * 60_000);

describe("faults during up", () => {
  let e2e: E2EStack;
  beforeAll(async () => {
    e2e = await createE2EStack("faults");
  });
  afterEach(async () => {
    await e2e.cleanSlate();
  });
  afterAll(() => e2e?.dispose());

  /** Exactly the pods and sandboxes the state knows bill in the emulator: nothing lost, nothing leaked. */
  async function expectConverged(expected: { pods: number; sandboxes: number }) {
    const state = await e2e.stateIds();
    expect(state.pod).toHaveLength(expected.pods);
    expect(state.sandbox).toHaveLength(expected.sandboxes);
    expect(await e2e.liveIds()).toEqual(state);
  }

  it("a pod that goes to ERROR while starting fails the up clearly, stays in the state, and the next up resumes it", async () => {
    await e2e.declare({ pods: { a: { image: "i", gpu: { id: GPU.a5000 } } } });
    await e2e.control.failNext("pod");
    const failed = await e2e.stack.up().catch((e: Error) => e);
    expect(String(failed)).toMatch(/went to ERROR while waiting for RUNNING/);
    await expectConverged({ pods: 1, sandboxes: 0 }); // recorded, not leaked

    const retried = await e2e.stack.up();
    expect(retried.summary.result).toBe("succeeded");
    expect((retried.outputs.podOutputs.value as Record<string, { status: string }>).a.status).toBe("RUNNING");
    await expectConverged({ pods: 1, sandboxes: 0 });
  });
});
