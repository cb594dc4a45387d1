import { createE2EStack, type E2EStack } from "./harness";
import { IN_PLACE_CHANGES, REPLACING_CHANGES, START_POD, statusAfter, throughTheEngine } from "./pod-change-cases";

jest.setTimeout(15 * 60_000);

type PodOut = { id: string; status: string; gpuTypeId: string | null };

/**
 * What the engine makes of the provider's diff: an update step or a replace step (the new pod
 * created, the old one deleted), recorded in the state, and nothing left to do afterwards. The
 * engine's part is the same for every field, so it runs on a representative subset of the pod's
 * update/replace table (pod-change-cases.ts `THROUGH_THE_ENGINE` says which and why); every case
 * of the table runs at the provider protocol, in both answer shapes (plugin-protocol.test.ts).
 */
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
    pod = { ...START_POD };
    const { out } = await upWith({});
    lastId = out.id;
    expect(out.status).toBe("RUNNING");
  });
  afterAll(() => e2e?.dispose());

  it.each(throughTheEngine(IN_PLACE_CHANGES))("changing %s updates the same pod in place", async (_field, change) => {
    const { out, summary } = await upWith(change);
    expect(summary.update).toBe(1);
    expect(summary.replace ?? 0).toBe(0);
    expect(out.id).toBe(lastId);
    expect(out.status).toBe(statusAfter(change));
  });

  it.each(throughTheEngine(REPLACING_CHANGES))("changing %s replaces the pod: a new id, the old one gone from the service", async (_field, change) => {
    const { out, summary } = await upWith(change);
    expect(summary.replace).toBe(1);
    expect(out.id).not.toBe(lastId);
    expect(out.status).toBe("RUNNING");
    const live = await e2e.liveIds();
    expect(live.pod).toEqual([out.id]);
    lastId = out.id;
  });

  it("an immediate preview after all that reports no changes", async () => {
    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 2 });
  });
});
