/**
 * Readiness through the runtime the providers run, against the emulator's real listeners on
 * 127.0.0.1: create returns once the service answers (not at RUNNING), with no API call added
 * by the network probes; a service that never comes up fails within the deadline with each
 * probe's last outcome and the log's last lines, the pod recorded with `ready: false`, and the
 * next `up` probes again in place; an update that restarts the container probes again; a
 * cluster waits for every node, a sandbox for a log line, an endpoint for its workers; and bad
 * readiness inputs are refused at preview, all at once.
 */
import { ComputeClient, ownerMark } from "../../sdk";
import { PartialFailure } from "../../provider/runtime/partial";
import { learnSecrets, redactLogLine } from "../../provider/runtime/secrets";
import { GPU } from "../helpers/fixtures";
import { PROVIDER_TEXT, printed, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

/**
 * In the public answer shape (jest project `public-shape`) the emulator leaves `runtime.ports`
 * out for a run's first 10 s, as the public document allows: the tcp and http probes then report
 * the mapping missing and read the pod again (at most every 2 s) until it is published.
 */
const PUBLIC_SHAPE = process.env.COMPUTE_EMULATOR_SHAPE === "public";

const env = useProvider({ resetBeforeEach: true });
let api: ComputeClient;
beforeAll(() => {
  api = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
});
afterAll(() => api?.close());

type Kind = "pod" | "sandbox" | "cluster" | "endpoint";
const handlers = (kind: Kind) => runtime.resources[kind]!;
const markFor = (kind: Kind, name: string) =>
  ownerMark({ organization: "o", project: "ready", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::ready::compute:index:${kind}::${name}`, salt: "s" });

async function check(kind: Kind, args: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await handlers(kind).check(olds, { namePrefix: String(args.name), ownerMark: markFor(kind, String(args.name)), ...args, __provider: PROVIDER_TEXT });
  return { inputs: result.inputs, failures: result.failures.map((f) => f.reason) };
}

async function create(kind: Kind, args: Record<string, unknown>) {
  const { inputs, failures } = await check(kind, args);
  expect(failures).toEqual([]);
  return { inputs, ...(await handlers(kind).create(inputs)) };
}

const web = { image: "vllm/vllm-openai:latest", gpu: { id: GPU.a5000 }, ports: ["22/tcp", "8000/http"], startSsh: true };
const probes = { ssh: true, http: { port: 8000, path: "/v1/models" } };

/** The pods of the account that still bill (the fixture's cluster left out). */
const livePods = async () => (await api.pods.list({ includeClusterPods: true })).filter((p) => p.status !== "TERMINATED" && p.cluster?.id !== "clu_dev_ray");

describe("readiness at create", () => {
  it("returns only once ssh and http answer, with no API call after the pod read RUNNING", async () => {
    await env.control.setNextServices({ mode: "normal", delayMs: 2500 });
    await env.control.clearRequests();
    const { value, lines } = await printed(() => create("pod", { name: "web", ...web, readiness: probes }));
    const returnedAt = Date.now();
    expect(value.outs).toMatchObject({ status: "RUNNING", ready: true });

    const events = (await env.control.serviceEvents()).filter((e) => e.podId === value.id);
    expect(events.map((e) => e.port).sort()).toEqual(["22/tcp", "8000/http"]);
    const upAt = Math.max(...events.map((e) => Date.parse(e.time)));
    const runningAt = Date.parse(events[0]!.runningAt);
    expect(upAt - runningAt).toBeGreaterThanOrEqual(2500);
    expect(returnedAt).toBeGreaterThanOrEqual(upAt);

    // The network probes used the addresses of the poll that saw RUNNING: after that poll, the
    // first API call once the pod ran, no other up to the return (counted, not timed).
    const [sawRunning, ...afterRunning] = (await env.control.requests()).filter((r) => Date.parse(r.time) >= runningAt && r.path.startsWith("/v2/"));
    expect(sawRunning).toMatchObject({ method: "GET" });
    const rereads = afterRunning.filter((r) => r.method === "GET" && r.path === `/v2/pods/${value.id}`);
    expect(afterRunning.filter((r) => !PUBLIC_SHAPE || !rereads.includes(r))).toEqual([]);
    if (PUBLIC_SHAPE) expect(rereads.length).toBeLessThanOrEqual(Math.ceil((returnedAt - runningAt) / 2000) + 1);

    // Progress on transitions only: the failure seen first, then the pass.
    const progress = lines.filter((line) => /: (ssh|http :8000\/v1\/models): /.test(line));
    expect(progress).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/ssh: connection (reset|closed before an SSH banner)$/),
        expect.stringMatching(/ssh: connection (reset|closed before an SSH banner) → banner received$/),
        expect.stringMatching(/http :8000\/v1\/models: .* → HTTP 200$/),
      ]),
    );
    expect(new Set(progress).size).toBe(progress.length);
  });

  it("a service that never comes up: the pod recorded not ready, each probe's last outcome and the log; the next up probes again in place", async () => {
    await env.control.setNextServices({ mode: "never" });
    const { inputs } = await check("pod", { name: "broken", ...web, readiness: { ...probes, logLine: "Uvicorn running on" }, readyTimeoutSeconds: 4 });
    const begun = Date.now();
    const error = await handlers("pod").create(inputs).catch((e: unknown) => e);
    expect(Date.now() - begun).toBeGreaterThanOrEqual(4000); // probed up to the deadline (a hang is jest's timeout's)
    expect(error).toBeInstanceOf(PartialFailure);
    const failure = error as PartialFailure;
    expect(failure.properties).toMatchObject({ podId: failure.id, status: "RUNNING", ready: false, __provider: PROVIDER_TEXT });
    expect(failure.message).toMatch(/is RUNNING but not ready within 4 s/);
    // The emulator's port proxy accepts and resets, as a container runtime's does with nothing behind it.
    expect(failure.message).toMatch(/- ssh: connection (reset|closed before an SSH banner)\n/);
    expect(failure.message).toMatch(PUBLIC_SHAPE ? /- http :8000\/v1\/models: (connection (reset|closed before an HTTP answer)|no public mapping of 8000 published yet)\n/ : /- http :8000\/v1\/models: connection (reset|closed before an HTTP answer)\n/);
    expect(failure.message).toMatch(/- logLine \/Uvicorn running on\/: no matching line/);
    expect(failure.message).toMatch(/Last \d+ log lines of pod_|Last \d+ log lines of /);
    expect(failure.message).toMatch(/service failed to start/);
    expect((await livePods()).map((p) => p.id)).toEqual([failure.id]);

    // The next `up`: the recorded pod is not ready, so the diff updates it (never replaces).
    const olds = recorded(failure.properties);
    const diff = await handlers("pod").diff(failure.id, olds, inputs);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    await env.control.setPodService(failure.id, { mode: "normal" });
    // A longer deadline too: in the public shape the ports are published 10 s into the run.
    const retried = { ...inputs, readyTimeoutSeconds: 20 };
    const fixed = await handlers("pod").update(failure.id, olds, retried);
    expect(fixed.outs).toMatchObject({ podId: failure.id, ready: true });
    expect((await livePods()).map((p) => p.id)).toEqual([failure.id]);
    expect((await handlers("pod").diff(failure.id, recorded(fixed.outs), retried)).changes).toBe(false);
  });

  it("redacts from quoted log lines the values given as secrets and anything a line says is one", () => {
    const secret = "hunter2-very-secret-token";
    learnSecrets({ secretInputs: ["env"], env: { HF_TOKEN: secret } });
    expect(redactLogLine(`loaded model with ${secret}`)).toBe("loaded model with [secret]");
    expect(redactLogLine("JUPYTER_PASSWORD=8f3k2l1m0n Jupyter started")).toBe("JUPYTER_PASSWORD=[secret] Jupyter started");
    expect(redactLogLine('config: {"api_key": "sk-live-123456"}')).toBe('config: {"api_key": "[secret]"}');
    expect(redactLogLine("Uvicorn running on http://0.0.0.0:8000")).toBe("Uvicorn running on http://0.0.0.0:8000");
  });

  it("an update that restarts the container probes again before it returns", async () => {
    const { id, inputs, outs } = await create("pod", { name: "roll", ...web, readiness: { ssh: true } });
    await env.control.setPodService(id, { mode: "normal", delayMs: 2000 });
    await env.control.clearServiceEvents();
    const updated = await handlers("pod").update(id, recorded(outs), { ...inputs, image: "vllm/vllm-openai:v2" });
    const returnedAt = Date.now();
    expect(updated.outs).toMatchObject({ imageApplied: "vllm/vllm-openai:v2", ready: true });
    const [event] = (await env.control.serviceEvents()).filter((e) => e.podId === id && e.port === "22/tcp");
    expect(event).toBeDefined();
    expect(returnedAt).toBeGreaterThanOrEqual(Date.parse(event!.time));
  });

  it("a pod meant to be stopped is not probed", async () => {
    const { outs } = await create("pod", { name: "parked", ...web, desiredState: "STOPPED", readiness: { ssh: true } });
    expect(outs).toMatchObject({ status: "EXITED", ready: null });
  });

  it("a cluster waits for every node's probe", async () => {
    await env.control.setNextServices({ mode: "normal", delayMs: 0, count: 1 });
    await env.control.setNextServices({ mode: "normal", delayMs: 2000, count: 2 });
    const { value, lines } = await printed(() =>
      create("cluster", {
        name: "ray",
        type: "RAY",
        compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 },
        image: "rayproject/ray:2.40.0-gpu",
        ports: ["22/tcp"],
        startSsh: true,
        readiness: { ssh: true },
      }),
    );
    const returnedAt = Date.now();
    expect(value.outs).toMatchObject({ status: "RUNNING", ready: true });
    const nodes = value.outs.nodes as Array<{ podId: string; rank: number }>;
    const events = (await env.control.serviceEvents()).filter((e) => nodes.some((n) => n.podId === e.podId));
    expect(events).toHaveLength(2);
    for (const event of events) expect(returnedAt).toBeGreaterThanOrEqual(Date.parse(event.time));
    expect(lines.some((line) => /rank 1 \([^)]+\) ssh: .* → banner received$/.test(line))).toBe(true);
  });

  it("a sandbox waits for a line of its log", async () => {
    const { value, lines } = await printed(() => create("sandbox", { name: "box", image: "ubuntu:24.04", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 }, readiness: { logLine: "environment ready" }, readyTimeoutSeconds: 20 }));
    expect(value.outs).toMatchObject({ state: "RUNNING", ready: true });
    expect(lines.some((line) => /logLine \/environment ready\/: (.* → )?matched "\[init\] environment ready"$/.test(line))).toBe(true);
  });

  it("an endpoint waits for its workers, and records one whose workers never get ready", async () => {
    const endpoint = { type: "QUEUE", image: "worker:1", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, workers: { min: 1, max: 2 } };
    const { outs } = await create("endpoint", { name: "ep", ...endpoint, readiness: { minReadyWorkers: 1 } });
    expect(outs).toMatchObject({ ready: true });

    const { inputs } = await check("endpoint", { name: "ep2", ...endpoint, readiness: { minReadyWorkers: 1 }, readyTimeoutSeconds: 1 });
    const pending = handlers("endpoint").create(inputs).catch((e: unknown) => e);
    // The endpoint exists at once; its workers are kept initializing.
    let id: string | undefined;
    for (let i = 0; i < 50 && !id; i++) {
      id = (await api.serverless.list()).find((e) => e.name.startsWith("ep2"))?.id;
      if (!id) await new Promise((r) => setTimeout(r, 20));
    }
    await env.control.setWorkers(id!, { mode: "never" });
    const error = (await pending) as PartialFailure;
    expect(error).toBeInstanceOf(PartialFailure);
    expect(error.message).toMatch(/- minReadyWorkers 1: 0 of 1 ready \(1 INITIALIZING\)/);
    expect(error.properties).toMatchObject({ endpointId: id, ready: false });
  });
});

describe("readiness on resources that exist", () => {
  it("an endpoint's readiness added later is probed by the update, and never sent to the service", async () => {
    const endpoint = { type: "QUEUE", image: "worker:1", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, workers: { min: 1, max: 2 } };
    const { id, inputs, outs } = await create("endpoint", { name: "later", ...endpoint });
    expect(outs.ready).toBeNull();
    await env.control.clearRequests();
    const next = { ...inputs, readiness: { minReadyWorkers: 1 }, readyTimeoutSeconds: 30 };
    expect(await handlers("endpoint").diff(id, recorded(outs), next)).toMatchObject({ changes: true, replaces: [] });
    const updated = await handlers("endpoint").update(id, recorded(outs), next);
    expect(updated.outs).toMatchObject({ ready: true });
    expect((await env.control.requests()).filter((r) => r.method === "PATCH")).toEqual([]);
  });

  it("a pod recorded before readiness existed (no `ready` in its state) shows no change", async () => {
    const { id, inputs, outs } = await create("pod", { name: "old", ...web });
    const { ready: _ready, ...before } = outs;
    void _ready;
    expect((await handlers("pod").diff(id, recorded(before), inputs)).changes).toBe(false);
    const refreshed = await handlers("pod").read(id, recorded(before));
    expect(refreshed.props).toMatchObject({ ready: null });
  });

  it("a pod found stopped when an update probes it fails at once, recorded not ready, instead of probing to the deadline", async () => {
    const { id, inputs, outs } = await create("pod", { name: "drifted", ...web, readiness: { ssh: true } });
    await api.pods.stop(id);
    const { value, lines } = await printed(() => handlers("pod").update(id, recorded(outs), { ...inputs, readyTimeoutSeconds: 300 }).catch((e: unknown) => e));
    const error = value as PartialFailure;
    // Not one probe attempt (each probe prints its first outcome): it failed on the status read.
    expect(lines.filter((line) => /: ssh: /.test(line))).toEqual([]);
    expect(error).toBeInstanceOf(PartialFailure);
    expect(error.message).toMatch(/is EXITED, not RUNNING: there is nothing to probe/);
    expect(error.properties).toMatchObject({ podId: id, ready: false });
  });
});

describe("readiness at preview", () => {
  it("refuses every bad probe at once, naming its field, with no API call that mutates", async () => {
    await env.control.clearRequests();
    const pod = await check("pod", { name: "p", image: "i", gpu: { id: GPU.a5000 }, ports: ["8000/http"], readiness: { ssh: true, tcp: { port: 9000 }, logLine: "([", minReadyWorkers: 1 } });
    expect(pod.failures).toEqual([
      expect.stringMatching(/^readiness\.minReadyWorkers: not a probe of this resource/),
      expect.stringMatching(/^readiness\.ssh, ports: needs "22\/tcp" in ports/),
      expect.stringMatching(/^readiness\.tcp\.port, ports: 9000 is not in ports/),
      expect.stringMatching(/^readiness\.logLine: is not a valid regular expression/),
    ]);
    const sandbox = await check("sandbox", { name: "s", image: "i", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 }, readiness: { http: { port: 80 } } });
    expect(sandbox.failures).toEqual([expect.stringMatching(/^readiness\.http: not a probe of this resource \(a sandbox publishes no port mappings/)]);
    const endpoint = await check("endpoint", { name: "e", type: "QUEUE", image: "i", gpu: { pools: ["ADA_24"] }, scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, readiness: { minReadyWorkers: 2 } });
    expect(endpoint.failures).toEqual([expect.stringMatching(/^readiness\.minReadyWorkers, workers\.min: 2 ready workers need workers\.min ≥ 2 \(is 0\)/)]);
    expect((await env.control.requests()).filter((r) => r.method !== "GET")).toEqual([]);
  });
});
