/**
 * The reaper (sdk/lifetimes.ts), against the emulator on its own clock: it acts only on what
 * carries both an owner mark and a lifetime tag of a stack in scope; a dry run changes nothing;
 * two reapers at once act on each resource once; an idle pod is stopped after its window and a
 * busy one is left alone; a cluster is terminated, an endpoint scaled to zero; each act is
 * recorded on the resource (`expired=`) with its reason and time. Checked by the request log.
 */
import { ComputeClient, POD_OWNER_ENV, describeOutcome, nameWithMark, ownerMark, reap, splitLifetimeTag, withSpec, type ReapOptions } from "../../sdk";
import { declaredTag, formatLifetimeTag, type IdleInput, type LifetimeInput } from "../../contract";
import { GPU } from "../helpers/fixtures";
import { freshFixture, gpuPod, useEmulator } from "../emulator/harness";

const T0 = "2030-05-01T00:00:00Z";
const h = useEmulator({ freezeClock: T0 }, freshFixture(T0));
const HOUR = 3600_000;

const client = () => new ComputeClient({ baseUrl: h.url, apiKey: h.apiKey, env: {} });

function markOf(stack: string, name: string): string {
  const [project, stackName] = stack.split("/") as [string, string];
  return withSpec(ownerMark({ organization: "o", project, stack: stackName, backend: "b", urn: `urn:pulumi:${stackName}::${project}::compute:index:Pod::${name}`, salt: "" }), {});
}

const tagged = (name: string, lifetime?: LifetimeInput, idle?: IdleInput) => name + formatLifetimeTag(declaredTag(lifetime, idle, Date.parse(T0))!);

/** A running pod, with a mark (`stack`) or none, and a tag (`lifetime`/`idle`) or none. */
async function pod(name: string, options: { stack?: string; lifetime?: LifetimeInput; idle?: IdleInput } = {}): Promise<string> {
  const serviceName = options.lifetime || options.idle ? tagged(name, options.lifetime, options.idle) : name;
  const env = options.stack ? { [POD_OWNER_ENV]: markOf(options.stack, name) } : {};
  const created = await h.post("/v2/pods", gpuPod({ name: serviceName, env }));
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.id;
}

const mutations = async (id: string) => (await h.control.requests()).filter((r) => r.method !== "GET" && r.path.includes(id)).map((r) => `${r.method} ${r.path}`);
const options = (more: Partial<ReapOptions> = {}): ReapOptions => ({ apply: true, stacks: ["ml/dev"], reaperId: "r1", claimWaitMs: 200, ...more });

test("only what a stack in scope marked and gave a lifetime is touched; a dry run changes nothing; two reapers at once act once", async () => {
  const twoHours: LifetimeInput = { maxDurationSeconds: 7200, action: "STOP" };
  const stop = await pod("stop-me", { stack: "ml/dev", lifetime: twoHours });
  const end = await pod("end-me", { stack: "ml/dev", lifetime: { maxDurationSeconds: 7200, action: "TERMINATE" } });
  const noTag = await pod("no-tag", { stack: "ml/dev" });
  const unmanaged = await pod("unmanaged", { lifetime: twoHours });
  const otherStack = await pod("other", { stack: "ml/prod", lifetime: twoHours });
  const later = await pod("later", { stack: "ml/dev", lifetime: { maxDurationSeconds: 3 * 3600, action: "STOP" } });
  const clusterMark = withSpec(ownerMark({ organization: "o", project: "ml", stack: "dev", backend: "b", urn: "urn:pulumi:dev::ml::compute:index:Cluster::ray", salt: "" }), {});
  const cluster = (await h.post("/v2/clusters", { name: tagged(nameWithMark("ray", clusterMark), { maxDurationSeconds: 7200, action: "TERMINATE" }), type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "rayproject/ray:2.9.0" })).body;
  const endpoint = (
    await h.post("/v2/serverless", {
      name: tagged("infer", { maxDurationSeconds: 7200, action: "STOP" }),
      type: "QUEUE",
      scaling: { type: "QUEUE_DELAY", queueDelay: 1 },
      workers: { min: 1, max: 3 },
      image: "i",
      gpu: { pools: ["ADA_24"] },
      env: { [POD_OWNER_ENV]: markOf("ml/dev", "infer") },
    })
  ).body;
  await h.control.advance(2 * HOUR + 1000);
  const sdk = client();
  const other = client();
  try {
    await h.control.clearRequests();
    const dry = await reap(sdk, options({ apply: false }));
    expect((await h.control.requests()).filter((r) => r.method !== "GET")).toEqual([]);
    const due = dry.outcomes.filter((o) => o.verdict.do === "act").map((o) => o.id);
    expect(due.sort()).toEqual([stop, end, cluster.id, endpoint.id].sort());
    expect(dry.outcomes.map((o) => o.id)).not.toEqual(expect.arrayContaining([noTag]));
    expect(dry.outcomes.find((o) => o.id === later)?.result).toBe("until 2030-05-01T03:00:00Z");
    const line = describeOutcome(dry.outcomes.find((o) => o.id === stop)!, Date.parse(T0) + 2 * HOUR + 1000);
    expect(line).toMatch(/^pod stop-me \(.+, ml\/dev\): STOP, lifetime reached at 2030-05-01T02:00:00Z \(1 s ago\), ≈ \$0\.00 meanwhile at \$[\d.]+\/hr: would be stopped \(dry run\)$/);

    await h.control.clearRequests();
    const [first, second] = await Promise.all([reap(sdk, options({ reaperId: "r1" })), reap(other, options({ reaperId: "r2" }))]);
    const results = (id: string) => [first, second].map((report) => report.outcomes.find((o) => o.id === id)?.result);
    for (const id of [stop, end, cluster.id, endpoint.id]) expect(results(id).filter((r) => r && !r.startsWith("left to reaper"))).toHaveLength(1);
    const requests = await h.control.requests();
    const count = (method: string, path: string) => requests.filter((r) => r.method === method && r.path === path).length;
    expect(count("POST", `/v2/pods/${stop}/action`)).toBe(1);
    expect(count("DELETE", `/v2/pods/${end}`)).toBe(1);
    expect(count("DELETE", `/v2/clusters/${cluster.id}`)).toBe(1);
    for (const id of [noTag, unmanaged, otherStack, later]) expect(await mutations(id)).toEqual([]);

    const stopped = (await h.get(`/v2/pods/${stop}`)).body;
    expect(stopped.status).toBe("EXITED");
    expect(splitLifetimeTag(stopped.name)).toEqual({ rest: "stop-me", tag: expect.objectContaining({ expired: { at: "2030-05-01T02:00:01Z", reason: "lifetime" }, until: "2030-05-01T02:00:00Z" }) });
    expect(splitLifetimeTag(stopped.name).tag?.claim).toBeUndefined();
    expect((await h.get(`/v2/clusters/${cluster.id}`)).status).toBe(404);
    expect((await h.get(`/v2/serverless/${endpoint.id}`)).body.workers).toMatchObject({ min: 0, max: 0 });

    // Again: what expired no longer bills, so nothing more is done to it.
    await h.control.clearRequests();
    const again = await reap(sdk, options());
    expect(again.outcomes.filter((o) => o.verdict.do === "act")).toEqual([]);
    expect((await h.control.requests()).filter((r) => r.method !== "GET")).toEqual([]);
  } finally {
    await sdk.close();
    await other.close();
  }
});

test("an idle pod is stopped after its window, measured between runs; a busy one is left alone", async () => {
  const rule: IdleInput = { gpuUtilBelowPercent: 10, forSeconds: 600, action: "STOP" };
  const idle = await pod("idle", { stack: "ml/dev", idle: rule });
  const busy = await pod("busy", { stack: "ml/dev", idle: rule });
  await h.control.advance(250);
  await h.control.setGpuUtilization(idle, { util: 0 });
  await h.control.setGpuUtilization(busy, { curve: [{ afterSeconds: 0, util: 0 }, { afterSeconds: 300, util: 90 }] });
  const sdk = client();
  try {
    const first = await reap(sdk, options());
    expect(first.outcomes.map((o) => [o.name, o.verdict.do])).toEqual(expect.arrayContaining([["idle", "markIdle"], ["busy", "markIdle"]]));
    await h.control.advance(400_000);
    const second = await reap(sdk, options());
    // Busy again within the window: its idle record is cleared, so the window starts over.
    expect(second.outcomes.find((o) => o.id === busy)?.verdict).toEqual({ do: "clearIdle" });
    expect(second.outcomes.find((o) => o.id === idle)?.verdict.do).toBe("nothing");
    await h.control.advance(300_000);
    await h.control.clearRequests();
    const third = await reap(sdk, options());
    expect(third.outcomes.find((o) => o.id === idle)?.result).toBe("stopped");
    expect(await mutations(busy)).toEqual([]);
    expect((await h.get(`/v2/pods/${idle}`)).body.status).toBe("EXITED");
    expect(splitLifetimeTag((await h.get(`/v2/pods/${idle}`)).body.name).tag?.expired?.reason).toBe("idle");
    expect((await h.get(`/v2/pods/${busy}`)).body.status).toBe("RUNNING");
  } finally {
    await sdk.close();
  }
});

test("a claim another reaper holds is left to it until it goes stale", async () => {
  const id = await pod("claimed", { stack: "ml/dev", lifetime: { maxDurationSeconds: 60, action: "STOP" } });
  await h.control.advance(120_000);
  const sdk = client();
  try {
    const name = (await h.get(`/v2/pods/${id}`)).body.name as string;
    await h.patch(`/v2/pods/${id}`, { name: name.replace("]", " claim=other/2030-05-01T00:02:00Z]") });
    expect((await reap(sdk, options())).outcomes[0]?.result).toBe("left to reaper other, acting on it since 2030-05-01T00:02:00Z");
    await h.control.advance(11 * 60_000);
    expect((await reap(sdk, options())).outcomes[0]?.result).toBe("stopped");
  } finally {
    await sdk.close();
  }
});

test("a reaper that comes while another holds its claim steps aside: one stop", async () => {
  const id = await pod("staggered", { stack: "ml/dev", lifetime: { maxDurationSeconds: 60, action: "STOP" } });
  await h.control.advance(120_000);
  const sdk = client();
  const other = client();
  try {
    await h.control.clearRequests();
    let second: Awaited<ReturnType<typeof reap>> | undefined;
    // The second reaper runs whole while the first waits on its claim.
    const first = await reap(sdk, options({ reaperId: "a", sleep: async () => void (second = await reap(other, options({ reaperId: "b" }))) }));
    expect(second!.outcomes.map((o) => o.result)).toEqual(["left to reaper a, acting on it since 2030-05-01T00:02:00Z"]);
    expect(first.outcomes.map((o) => o.result)).toEqual(["stopped"]);
    expect((await h.control.requests()).filter((r) => r.method === "POST" && r.path === `/v2/pods/${id}/action`)).toHaveLength(1);
  } finally {
    await sdk.close();
    await other.close();
  }
});

test("a lifetime extended while a reaper waits on its claim is not acted on; a locked pod is reported, not called stopped", async () => {
  const extended = await pod("extended", { stack: "ml/dev", lifetime: { maxDurationSeconds: 60, action: "STOP" } });
  await h.control.advance(120_000);
  const sdk = client();
  try {
    // `pulumi up` renames it with a later deadline meanwhile (the claim goes with the old tag).
    const later = tagged("extended", { maxDurationSeconds: 86400, action: "STOP" });
    const raced = await reap(sdk, options({ sleep: async () => void (await h.patch(`/v2/pods/${extended}`, { name: later })) }));
    expect(raced.outcomes.map((o) => o.result)).toEqual(["left to reaper (none: its lifetime was changed meanwhile)"]);
    expect((await h.get(`/v2/pods/${extended}`)).body).toMatchObject({ status: "RUNNING", name: later });

    const locked = await pod("locked", { stack: "ml/dev", lifetime: { maxDurationSeconds: 60, action: "STOP" } });
    await h.control.advance(250);
    await h.patch(`/v2/pods/${locked}`, { locked: true });
    await h.control.advance(120_000);
    const refused = await reap(sdk, options());
    const outcome = refused.outcomes.find((o) => o.id === locked)!;
    expect(outcome).toMatchObject({ failed: true, result: expect.stringMatching(/^refused by the service \(.+\): it still bills$/) });
    const live = (await h.get(`/v2/pods/${locked}`)).body;
    expect(live.status).toBe("RUNNING");
    // Not recorded as expired: refresh must not show a stop that did not happen.
    expect(splitLifetimeTag(live.name).tag).not.toHaveProperty("expired");
  } finally {
    await sdk.close();
  }
});

test("one resource gone between the list and the act does not stop the others", async () => {
  const gone = await pod("gone", { stack: "ml/dev", lifetime: { maxDurationSeconds: 60, action: "STOP" } });
  const kept = await pod("kept", { stack: "ml/dev", lifetime: { maxDurationSeconds: 60, action: "STOP" } });
  await h.control.advance(120_000);
  const sdk = client();
  try {
    let deleted = false;
    const report = await reap(sdk, options({ sleep: async () => void (deleted || ((deleted = true), await h.del(`/v2/pods/${gone}`))) }));
    const results = Object.fromEntries(report.outcomes.map((o) => [o.id, o.result]));
    expect(results[gone]).toMatch(/^(gone meanwhile|no longer due \(not billing\))$/);
    expect(results[kept]).toBe("stopped");
  } finally {
    await sdk.close();
  }
});
