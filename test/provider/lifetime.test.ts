/**
 * Lifetimes through the runtime's handlers (provider/runtime/lifetime.ts), against the emulator:
 * the deadline is written on the service object at create; extending it is a rename, never a
 * restart; after a reaper acted, refresh shows the expiry (when, why) and keeps what it ended;
 * the next `up` with the same lifetime brings nothing back, a changed one does. Every rule is
 * refused at check, all at once, before any request.
 */
import { ComputeClient, ownerMark, reap, splitLifetimeTag } from "../../sdk";
import { parseMillis } from "../../contract/time";
import { GPU } from "../helpers/fixtures";
import { PROVIDER_TEXT, printed, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });
const HOUR = 3600_000;

type Kind = "pod" | "cluster" | "endpoint";
const handlers = (kind: Kind) => runtime.resources[kind]!;

async function checkedAs(kind: Kind, args: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await handlers(kind).check(olds, { ...args, __provider: PROVIDER_TEXT });
  if (result.failures.length > 0) throw new Error(`unexpected check failures: ${JSON.stringify(result.failures)}`);
  return result.inputs;
}

/** The owner mark the resource class gives (only what a stack marked is ever reaped). */
const markFor = (kind: Kind, name: string) => ownerMark({ organization: "o", project: "life", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::life::compute:index:${kind}::${name}`, salt: "s" });

async function create(kind: Kind, args: Record<string, unknown>) {
  const inputs = await checkedAs(kind, { ownerMark: markFor(kind, String(args.name)), ...args });
  const created = await handlers(kind).create(inputs);
  return { inputs, id: created.id, outs: recorded(created.outs) };
}

/** `pulumi refresh`: the read's outputs, as recorded. */
async function refresh(kind: Kind, id: string, outs: Record<string, unknown>) {
  const read = await handlers(kind).read(id, outs);
  return { ...read, props: read.props && recorded(read.props) };
}

async function reapNow() {
  const sdk = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
  try {
    return await reap(sdk, { apply: true, reaperId: "t", claimWaitMs: 0 });
  } finally {
    await sdk.close();
  }
}

const get = async (path: string) => (await fetch(`${env.url}${path}`, { headers: { authorization: `Bearer ${env.apiKey}` } })).json() as Promise<any>;
const mutating = async () => (await env.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace(/\/[^/]+(\/action)?$/, "/{id}$1")}`);

const pod = (more: Record<string, unknown> = {}) => ({ name: "trainer", image: "pytorch:2.4", gpu: { id: GPU.a5000 }, ...more });

test("every rule of lifetime and idle at check, each naming its field, with no request", async () => {
  await env.control.clearRequests();
  const bad = await handlers("pod").check({}, { ...pod(), lifetime: { maxDurationSeconds: 10, action: "PAUSE" }, idle: { gpuUtilBelowPercent: 150, forSeconds: 60, action: "STOP" }, __provider: PROVIDER_TEXT });
  expect(bad.failures.map((f) => f.reason)).toEqual(
    expect.arrayContaining([
      "lifetime.maxDurationSeconds: must be a whole number of seconds, at least 60",
      'lifetime.action: must be "STOP" or "TERMINATE"',
      "idle.gpuUtilBelowPercent: must be a whole number from 1 to 100",
      "idle.forSeconds: must be a whole number of seconds, at least 300",
    ]),
  );
  const cluster = await handlers("cluster").check({}, { name: "c", type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "i", lifetime: { maxDurationSeconds: 3600, action: "STOP" }, __provider: PROVIDER_TEXT });
  expect(cluster.failures.map((f) => f.reason)).toEqual(['lifetime.action: must be "TERMINATE" (a cluster cannot be stopped: its member pods refuse actions)']);
  const cpuIdle = await handlers("pod").check({}, { name: "cpu", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 }, idle: { gpuUtilBelowPercent: 5, forSeconds: 600, action: "STOP" }, __provider: PROVIDER_TEXT });
  expect(cpuIdle.failures.map((f) => f.reason)).toEqual(["idle: watches GPU utilisation: a CPU pod has none (use lifetime)"]);
  expect(await mutating()).toEqual([]);
});

test("a pod: the deadline rides in its name; an extension is a rename; STOP at the deadline holds until the lifetime changes", async () => {
  const lifetime = { maxDurationSeconds: 7200, action: "STOP" };
  const { inputs, id, outs } = await create("pod", pod({ lifetime }));
  const created = await get(`/v2/pods/${id}`);
  const tag = splitLifetimeTag(created.name).tag!;
  expect(splitLifetimeTag(created.name).rest).toBe("trainer");
  // Whole seconds, on the service's clock as its Date answers give it (to the second).
  expect(Math.abs(Date.parse(tag.until!) - Date.parse(created.createdAt) - 7200_000)).toBeLessThan(2000);
  expect(outs).toMatchObject({ name: "trainer", expiry: { action: "STOP", idle: null, expiredAt: null, reason: null } });
  // What holds counts from the run's start (the tag was written at the create, before it ran).
  const started = (await get(`/v2/pods/${id}`)).startedAt as string;
  expect(Math.abs(parseMillis(outs.expiry.deadline)! - (Date.parse(started) + 2 * HOUR))).toBeLessThan(1000);

  // Extended while it runs: counted from its run's start, one rename, no restart.
  const longer = await checkedAs("pod", pod({ lifetime: { maxDurationSeconds: 3 * 3600, action: "STOP" } }), inputs);
  const previewed = await printed(() => handlers("pod").diff(id, outs, longer));
  expect(previewed.value.changes).toBe(true);
  expect(previewed.lines).toContainEqual(expect.stringMatching(new RegExp(`lifetime: STOP at .+ \\(3 h 0 m lifetime\\) \\(from its current run's start, ${outs.startedAt}\\)$`)));
  await env.control.clearRequests();
  const extended = recorded((await handlers("pod").update(id, outs, longer)).outs);
  expect(await mutating()).toEqual(["PATCH /v2/pods/{id}"]);
  const live = await get(`/v2/pods/${id}`);
  expect(live).toMatchObject({ status: "RUNNING", startedAt: created.startedAt ?? live.startedAt });
  // Whole seconds, from the run's start.
  expect(Math.abs(parseMillis(extended.expiry.deadline)! - (Date.parse(live.startedAt) + 3 * HOUR))).toBeLessThan(1000);
  expect(extended.name).toBe("trainer");

  // Past it: a reaper stops it; refresh shows when and why, and asks for nothing back.
  await env.control.advance(3 * HOUR + 1000);
  expect((await reapNow()).outcomes.map((o) => o.result)).toEqual(["stopped"]);
  const { value: refreshed, lines } = await printed(() => refresh("pod", id, extended));
  expect(refreshed.props).toMatchObject({ status: "EXITED", expiry: { reason: "lifetime", expiredAt: expect.any(String) } });
  expect(refreshed.inputs).toMatchObject({ name: "trainer", lifetime: longer.lifetime });
  expect(refreshed.inputs!.desiredState).toBeUndefined();
  const same = await printed(() => handlers("pod").diff(id, refreshed.props!, longer));
  expect(same.value.changes).toBe(false);
  expect(same.lines.join("\n")).toMatch(/expired at .* \(lifetime\): not brought back; change `lifetime`/);
  expect(lines).toEqual([]);

  // Another change alone applies, and the pod stays stopped.
  const withEnv = await checkedAs("pod", pod({ lifetime: longer.lifetime, env: { A: "1" } }), longer);
  await handlers("pod").update(id, refreshed.props!, withEnv);
  expect((await get(`/v2/pods/${id}`))).toMatchObject({ status: "EXITED", env: expect.objectContaining({ A: "1" }) });

  // A new lifetime brings it back, with a deadline from its new start.
  const again = await checkedAs("pod", pod({ lifetime: { maxDurationSeconds: 4 * 3600, action: "STOP" }, env: { A: "1" } }), withEnv);
  expect(await handlers("pod").diff(id, refreshed.props!, again)).toMatchObject({ changes: true, replaces: [] });
  const back = recorded((await handlers("pod").update(id, refreshed.props!, again)).outs);
  const restarted = await get(`/v2/pods/${id}`);
  expect(restarted.status).toBe("RUNNING");
  expect(back.expiry).toMatchObject({ expiredAt: null, reason: null });
  expect(Date.parse(back.expiry.deadline) - Date.parse(restarted.startedAt)).toBeGreaterThan(4 * HOUR - 5000);
});

test("refused at check: a lifetime on an adopted pod (no reaper may act on it), a STOP on a locked pod, a name that reads as a tag", async () => {
  const check = (args: Record<string, unknown>) => handlers("pod").check({}, { ...pod(), ...args, __provider: PROVIDER_TEXT });
  expect((await check({ adoptPodId: "pod_x", lifetime: { maxDurationSeconds: 3600, action: "STOP" } })).failures.map((f) => f.reason)).toEqual([
    "lifetime: a resource brought in with adoptPodId carries no owner mark, so no reaper acts on it: create it from the stack to give it a lifetime",
  ]);
  expect((await check({ locked: true, lifetime: { maxDurationSeconds: 3600, action: "STOP" } })).failures.map((f) => f.reason)).toEqual([
    "lifetime.action: a locked pod refuses stop: unlock it (locked: false) or use TERMINATE",
  ]);
  expect((await check({ locked: true, lifetime: { maxDurationSeconds: 3600, action: "TERMINATE" } })).failures).toEqual([]);
  expect((await check({ name: "x [lifetime until=2030-01-01T00:00:00Z then=TERMINATE]" })).failures.map((f) => f.reason)).toEqual([
    'name: must not end in " [lifetime …]", the provider\'s lifetime tag (use the lifetime input)',
  ]);
});

test("an up whose state predates the reap: another change leaves the pod stopped, a new lifetime starts it; a held EXPIRED record asks the service nothing", async () => {
  const { inputs, id, outs } = await create("pod", pod({ name: "stale", lifetime: { maxDurationSeconds: 3600, action: "STOP" } }));
  await env.control.advance(HOUR + 1000);
  expect((await reapNow()).outcomes.map((o) => o.result)).toEqual(["stopped"]);
  // No refresh: `outs` still say RUNNING.
  const withEnv = await checkedAs("pod", pod({ name: "stale", lifetime: inputs.lifetime, env: { B: "2" } }), inputs);
  await handlers("pod").update(id, outs, withEnv);
  expect((await get(`/v2/pods/${id}`)).status).toBe("EXITED");
  const longer = await checkedAs("pod", pod({ name: "stale", lifetime: { maxDurationSeconds: 7200, action: "STOP" }, env: { B: "2" } }), withEnv);
  const back = recorded((await handlers("pod").update(id, outs, longer)).outs);
  expect(back).toMatchObject({ status: "RUNNING", expiry: { expiredAt: null } });

  const ended = await create("pod", pod({ name: "ended", lifetime: { maxDurationSeconds: 3600, action: "TERMINATE" } }));
  await env.control.advance(HOUR + 1000);
  await reapNow();
  const kept = (await refresh("pod", ended.id, ended.outs)).props!;
  await env.control.clearRequests();
  const other = await checkedAs("pod", pod({ name: "ended", lifetime: ended.inputs.lifetime, env: { C: "3" } }), ended.inputs);
  const updated = recorded((await handlers("pod").update(ended.id, kept, other)).outs);
  expect(updated).toMatchObject({ status: "EXPIRED", env: { C: "3" } });
  expect(await mutating()).toEqual([]);
});

test("TERMINATE: refresh keeps what the lifetime ended as EXPIRED; the same lifetime recreates nothing, a new one replaces", async () => {
  const { inputs, id, outs } = await create("pod", pod({ name: "batch", lifetime: { maxDurationSeconds: 3600, action: "TERMINATE" } }));
  await env.control.advance(HOUR + 1000);
  expect((await reapNow()).outcomes.map((o) => o.result)).toEqual(["terminated"]);
  await env.control.advance(60_000);
  const first = await refresh("pod", id, outs);
  expect(first.id).toBe(id);
  expect(first.props).toMatchObject({ status: "EXPIRED", expiry: { reason: "lifetime" } });
  // Gone from the service by now: still kept, from what the state recorded.
  const second = await refresh("pod", id, first.props!);
  expect(second.props).toMatchObject({ status: "EXPIRED", expiry: first.props!.expiry });
  expect((await handlers("pod").diff(id, second.props!, inputs)).changes).toBe(false);
  const renewed = await checkedAs("pod", pod({ name: "batch", lifetime: { maxDurationSeconds: 7200, action: "TERMINATE" } }), inputs);
  expect((await handlers("pod").diff(id, second.props!, renewed)).replaces).toEqual(["lifetime"]);
  // Destroying it deletes nothing that exists, and fails on nothing.
  await expect(handlers("pod").remove(id, second.props!)).resolves.toBeUndefined();
});

test("a cluster ends at its lifetime and stays EXPIRED; an endpoint is scaled to zero and gets its workers back with a new lifetime", async () => {
  const cluster = await create("cluster", { name: "ray", type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "rayproject/ray:2.9.0", lifetime: { maxDurationSeconds: 3600, action: "TERMINATE" } });
  const scaling = { type: "QUEUE_DELAY", queueDelay: 4 };
  const endpointArgs = { name: "infer", type: "QUEUE", image: "i", gpu: { pools: ["ADA_24"] }, scaling, workers: { min: 1, max: 3 } };
  const endpoint = await create("endpoint", { ...endpointArgs, lifetime: { maxDurationSeconds: 3600, action: "STOP" } });
  await env.control.advance(HOUR + 1000);
  const outcomes = (await reapNow()).outcomes;
  expect(outcomes.map((o) => [o.kind, o.result]).sort()).toEqual([["cluster", "terminated"], ["serverless endpoint", "scaled to zero workers"]]);

  const clusterRead = await refresh("cluster", cluster.id, cluster.outs);
  expect(clusterRead.props).toMatchObject({ status: "EXPIRED", expiry: { reason: "lifetime" } });
  expect((await handlers("cluster").diff(cluster.id, clusterRead.props!, cluster.inputs)).changes).toBe(false);

  const endpointRead = await refresh("endpoint", endpoint.id, endpoint.outs);
  expect(endpointRead.props).toMatchObject({ workersMin: 0, workersMax: 0, expiry: { reason: "lifetime" } });
  expect(endpointRead.inputs).toMatchObject({ name: "infer", workers: { min: 1, max: 3 } });
  expect((await handlers("endpoint").diff(endpoint.id, endpointRead.props!, endpoint.inputs)).changes).toBe(false);
  const renewed = await checkedAs("endpoint", { ...endpointArgs, lifetime: { maxDurationSeconds: 7200, action: "STOP" } }, endpoint.inputs);
  const back = recorded((await handlers("endpoint").update(endpoint.id, endpointRead.props!, renewed)).outs);
  expect(back).toMatchObject({ workersMin: 1, workersMax: 3, name: "infer", expiry: { expiredAt: null } });
  expect((await get(`/v2/serverless/${endpoint.id}`)).workers).toMatchObject({ min: 1, max: 3 });
});
