import { runCli } from "../cli/helpers";
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
  /** Every pod the stack has had, the replaced ones first. */
  const podIds: string[] = [];

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
    podIds.push(out.id);
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
    podIds.push(out.id);
  });

  it("an immediate preview after all that reports no changes", async () => {
    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 2 });
  });

  it("`compute cost --stack` lists the pods it replaced beside the one it has, each with what it cost, and a total equal to the service's billing for them", async () => {
    expect(podIds.length).toBeGreaterThan(1);
    await e2e.control.advance(2 * 3_600_000); // the current pod runs two more hours
    const day = 86_400_000;
    const from = new Date(Date.now() - day).toISOString();
    const to = new Date(Date.now() + 2 * day).toISOString(); // the emulator's clock is ahead
    const env = { ...e2e.env(), COMPUTE_BASE_URL: e2e.emulator.url, COMPUTE_API_KEY: e2e.emulator.apiKey };
    const result = await runCli(["cost", "--stack", e2e.stack.name, "--cwd", e2e.workDir, "--from", from, "--to", to, "--json"], env, 60_000);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    const report = JSON.parse(result.stdout) as { resources: Array<{ kind: string; id: string; source: string; actual: number }>; total: number; notes: string[] };
    const [current, ...replaced] = [...podIds].reverse();
    expect(report.resources.map((r) => [r.kind, r.id, r.source]).sort()).toEqual([["Pod", current, "state"], ...replaced.map((id) => ["Pod", id, "destroyed"])].sort());
    expect(report.resources.every((r) => r.actual > 0)).toBe(true);
    // The service's own figure for those ids, read by the test over HTTP.
    let truth = 0;
    for (const id of podIds) {
      const answer = await fetch(`${e2e.emulator.url}/v2/billing/pods?podId=${id}&bucketSize=day&startTime=${from}&endTime=${to}`, { headers: { Authorization: `Bearer ${e2e.emulator.apiKey}` } });
      truth += ((await answer.json()) as { metadata: { totals: { totalAmount: number } } }).metadata.totals.totalAmount;
    }
    expect(report.total).toBeCloseTo(truth, 2);
    expect(report.notes).toEqual(expect.arrayContaining([expect.stringMatching(/lag/), expect.stringMatching(/^Destroyed resources come from the backend's history/)]));
  });
});
