import { createE2EStack, type E2EStack } from "./harness";
import { GPU } from "../helpers/fixtures";

jest.setTimeout(15 * 60_000);

const WEB = { image: "vllm/vllm-openai:latest", gpu: { id: GPU.a5000 }, ports: ["22/tcp", "8000/http"], startSsh: true };
const PROBES = { ssh: true, http: { port: 8000, path: "/v1/models" } };
const BOX = { image: "ubuntu:24.04", compute: { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 } };

interface PodOutput {
  id: string;
  status: string;
  ready: boolean | null;
}

/**
 * Readiness through the real engine (the TypeScript program of the e2e stack), against the
 * emulator's real listeners: a pod whose sshd and HTTP server come up 3 s after RUNNING is
 * created only once both answer, and what depends on it starts only after; a service that never
 * comes up fails the `up` at its deadline with each probe's last outcome and the pod's log, the
 * pod recorded, and the next `up` (service fixed) makes it ready without a second pod; a cluster
 * waits for every node.
 */
describe("Readiness end to end", () => {
  let e2e: E2EStack;

  beforeAll(async () => {
    e2e = await createE2EStack("readiness");
  });
  afterEach(() => e2e.cleanSlate());
  afterAll(() => e2e?.dispose());

  const podOf = (up: { outputs: Record<string, { value: unknown }> }, name: string) => (up.outputs.podOutputs!.value as Record<string, PodOutput>)[name]!;
  const requests = async (method: string, path: RegExp) => (await e2e.control.requests()).filter((r) => r.method === method && path.test(r.path));

  it("creates the pod only once ssh and http answer (3 s after RUNNING), and its dependent only after", async () => {
    await e2e.control.setNextServices({ mode: "normal", delayMs: 3000 });
    await e2e.declare({ pods: { web: { ...WEB, readiness: PROBES } }, sandboxes: { after: { ...BOX, dependsOn: ["web"] } } });
    const up = await e2e.stack.up();
    const web = podOf(up, "web");
    expect(web).toMatchObject({ status: "RUNNING", ready: true });

    const events = (await e2e.control.serviceEvents()).filter((e) => e.podId === web.id);
    expect(events.map((e) => e.port).sort()).toEqual(["22/tcp", "8000/http"]);
    const runningAt = Date.parse(events[0]!.runningAt);
    const servicesUpAt = Math.max(...events.map((e) => Date.parse(e.time)));
    expect(servicesUpAt - runningAt).toBeGreaterThanOrEqual(3000);
    // The emulator's log: the dependent's create arrived after the services answered, not at RUNNING.
    const [sandboxCreate] = await requests("POST", /^\/v2\/sandboxes$/);
    expect(Date.parse(sandboxCreate!.time)).toBeGreaterThanOrEqual(servicesUpAt);

    // Ready and recorded so: the next preview has nothing to do.
    expect((await e2e.stack.preview()).changeSummary).toEqual({ same: expect.any(Number) });
  });

  it("a service that never comes up fails at its deadline with the probes' last errors and the log; the next up (fixed) needs no second pod", async () => {
    await e2e.control.setNextServices({ mode: "never" });
    await e2e.declare({ pods: { web: { ...WEB, readiness: { ...PROBES, logLine: "Uvicorn running on" }, readyTimeoutSeconds: 8 } } });
    const failure = await e2e.stack.up().then(
      () => undefined,
      (error: Error) => error,
    );
    const text = String(failure);
    expect(text).toMatch(/is RUNNING but not ready within 8 s/);
    expect(text).toMatch(/- ssh: connection (reset|closed before an SSH banner)/);
    expect(text).toMatch(/- http :8000\/v1\/models: connection (reset|closed before an HTTP answer)/);
    expect(text).toMatch(/- logLine \/Uvicorn running on\/: no matching line/);
    expect(text).toMatch(/Last \d+ log lines of /);
    expect(text).toMatch(/service failed to start/);
    const recorded = (await e2e.stateIds()).pod;
    expect(recorded).toHaveLength(1);
    expect((await e2e.liveIds()).pod).toEqual(recorded); // recorded, not leaked

    await e2e.control.setPodService(recorded[0]!, { mode: "normal" });
    const repaired = await e2e.stack.up();
    expect(repaired.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(podOf(repaired, "web")).toMatchObject({ id: recorded[0], ready: true });
    expect(await requests("POST", /^\/v2\/pods$/)).toHaveLength(1);
    expect((await e2e.liveIds()).pod).toEqual(recorded);
  });

  it("a cluster is created only once every node's sshd answers, and its dependent only after", async () => {
    await e2e.control.setNextServices({ mode: "normal", delayMs: 2500, count: 2 });
    await e2e.declare({
      clusters: { c: { type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 }, image: "rayproject/ray:2.40.0-gpu", ports: ["22/tcp"], startSsh: true, readiness: { ssh: true } } },
      sandboxes: { after: { ...BOX, dependsOn: ["c"] } },
    });
    const up = await e2e.stack.up();
    const [sandboxCreate] = await requests("POST", /^\/v2\/sandboxes$/);
    const cluster = (up.outputs.clusterOutputs!.value as Record<string, { ready: boolean; nodes: Array<{ podId: string }> }>).c!;
    expect(cluster.ready).toBe(true);
    const events = (await e2e.control.serviceEvents()).filter((e) => cluster.nodes.some((n) => n.podId === e.podId));
    expect(events.map((e) => e.podId).sort()).toEqual(cluster.nodes.map((n) => n.podId).sort());
    for (const event of events) {
      expect(Date.parse(event.time) - Date.parse(event.runningAt)).toBeGreaterThanOrEqual(2500);
      expect(Date.parse(sandboxCreate!.time)).toBeGreaterThanOrEqual(Date.parse(event.time));
    }
  });
});
