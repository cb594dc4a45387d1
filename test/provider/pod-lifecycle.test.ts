import { PlacementError, PaymentRequiredError } from "../../sdk";
import { PartialFailure } from "../../provider/runtime/partial";
import { GPU } from "../helpers/fixtures";
import { checked, PROVIDER_TEXT, recorded, runtime, useProvider } from "./helpers";

jest.setTimeout(60_000);

const env = useProvider({ resetBeforeEach: true });

async function livePods() {
  const res = await fetch(`${env.url}/v2/pods?includeClusterPods=false`, { headers: { authorization: `Bearer ${env.apiKey}` } });
  const body = (await res.json()) as { pods: Array<{ id: string; name: string; status: string; cluster?: unknown }> };
  return body.pods.filter((p) => !p.cluster);
}

async function createPod(args: Record<string, unknown>) {
  const inputs = await checked("pod", args);
  const created = await runtime.resources.pod.create(inputs);
  return { inputs, id: created.id, outs: recorded(created.outs) };
}

describe("Pod create", () => {
  it("places from candidates, skipping a sold-out GPU type, and waits until RUNNING", async () => {
    await env.control.setCapacity({ dataCenterId: "US-TX-3", gpuTypeId: GPU.h100, cloud: "SECURE", available: 0 });
    const { id, outs } = await createPod({
      name: "trainer",
      image: "pytorch:2.4",
      gpu: { id: GPU.h100 },
      placement: [
        { gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" },
        { gpuTypeId: GPU.a100, dataCenterId: "EU-RO-1" },
      ],
    });
    expect(outs).toMatchObject({
      podId: id,
      status: "RUNNING",
      gpuTypeId: GPU.a100,
      dataCenterId: "EU-RO-1",
      placementChosen: { gpuTypeId: GPU.a100, dataCenterId: "EU-RO-1" },
      placementAttempts: [expect.objectContaining({ gpuTypeId: GPU.h100, outcome: "no-capacity", status: 400 }), expect.objectContaining({ outcome: "created" })],
      name: "trainer",
    });
    expect(outs.costPerHour).toBeGreaterThan(0);
    expect((await livePods()).map((p) => p.id)).toEqual([id]);
  });

  it("fails with every attempt listed when no candidate has capacity, and creates nothing", async () => {
    await env.control.setCapacity({ dataCenterId: "US-TX-3", gpuTypeId: GPU.h100, cloud: "SECURE", available: 0 });
    const inputs = await checked("pod", { name: "nope", image: "i", gpu: { id: GPU.h100 }, placement: [{ gpuTypeId: GPU.h100, dataCenterId: "US-TX-3" }, { gpuTypeId: GPU.h100, dataCenterId: "AP-JP-1" }] });
    const error = await runtime.resources.pod.create(inputs).catch((e) => e);
    expect(error).toBeInstanceOf(PlacementError);
    expect(error.attempts).toHaveLength(2);
    expect(await livePods()).toEqual([]);
  });

  it("stops at 402 (insufficient balance) and creates nothing", async () => {
    await env.control.updateAccount("acct_dev", { balance: 0 });
    const inputs = await checked("pod", { name: "broke", image: "i", gpu: { id: GPU.a5000 } });
    const error = await runtime.resources.pod.create(inputs).catch((e) => e);
    expect(error).toBeInstanceOf(PlacementError);
    expect(error.lastError).toBeInstanceOf(PaymentRequiredError);
    expect(await livePods()).toEqual([]);
  });

  it("records a pod that goes to ERROR while starting as partially created, with its id and the provider", async () => {
    await env.control.failNext("pod");
    const inputs = await checked("pod", { name: "flaky", image: "i", gpu: { id: GPU.a5000 } });
    const error = await runtime.resources.pod.create(inputs).catch((e) => e);
    expect(error).toBeInstanceOf(PartialFailure);
    expect(error.message).toMatch(/went to ERROR while waiting for RUNNING/);
    expect(error.properties).toMatchObject({ podId: error.id, status: "ERROR", name: "flaky", __provider: PROVIDER_TEXT });
    expect(JSON.stringify(error.properties)).not.toContain("undefined");
    expect((await livePods()).map((p) => p.id)).toEqual([error.id]);

    // The next `up` calls update on the recorded pod: it is started again and converges.
    const resumed = await runtime.resources.pod.update(error.id, error.properties, inputs);
    expect(resumed.outs).toMatchObject({ status: "RUNNING", podId: error.id });
  });

  it("records a pod that is not ready in time as partially created", async () => {
    await env.control.freezeClock();
    const inputs = await checked("pod", { name: "slow", image: "i", gpu: { id: GPU.a5000 }, readyTimeoutSeconds: 1 });
    const error = await runtime.resources.pod.create(inputs).catch((e) => e);
    await env.control.unfreezeClock();
    expect(error).toBeInstanceOf(PartialFailure);
    expect(error.message).toMatch(/was not RUNNING within 1 s \(last status PROVISIONING\)/);
    expect(error.id).toMatch(/.+/);
  });

  it("creates a stopped pod when desiredState is STOPPED, and locks it when asked", async () => {
    const { outs } = await createPod({ name: "parked", image: "i", cpu: { id: "cpu3c", vcpuCount: 2 }, desiredState: "STOPPED", locked: true });
    expect(outs).toMatchObject({ status: "EXITED", costPerHour: 0, locked: true });
  });
});

describe("Pod update, read and delete", () => {
  it("renames and locks without a restart; changes the image with a restart back to RUNNING", async () => {
    const { id, inputs, outs } = await createPod({ name: "svc", image: "img:1", gpu: { id: GPU.a5000 }, env: { A: "1" }, startSsh: true, ports: ["22/tcp"] });
    const renamed = await runtime.resources.pod.update(id, outs, { ...inputs, name: "svc-2", locked: true });
    expect(renamed.outs).toMatchObject({ name: "svc-2", locked: true, status: "RUNNING", startedAt: outs.startedAt });

    const log0 = (await env.control.requests()).length;
    const reimaged = await runtime.resources.pod.update(id, recorded(renamed.outs), { ...inputs, name: "svc-2", locked: true, image: "img:2", env: { A: "2", B: "x" } });
    expect(reimaged.outs).toMatchObject({ imageApplied: "img:2", status: "RUNNING", env: { A: "2", B: "x" } });
    const patches = (await env.control.requests()).slice(log0).filter((r) => r.method === "PATCH");
    expect(patches).toHaveLength(1);
    // The service's injected PUBLIC_KEY survived the env replacement.
    const live = (await (await fetch(`${env.url}/v2/pods/${id}`, { headers: { authorization: `Bearer ${env.apiKey}` } })).json()) as { env: Record<string, string> };
    expect(live.env).toMatchObject({ A: "2", B: "x", PUBLIC_KEY: expect.any(String) });
  });

  it("stops and starts through the action endpoint for desiredState", async () => {
    const { id, inputs, outs } = await createPod({ name: "toggle", image: "i", gpu: { id: GPU.a5000 } });
    const stopped = await runtime.resources.pod.update(id, outs, { ...inputs, desiredState: "STOPPED" });
    expect(stopped.outs).toMatchObject({ status: "EXITED", costPerHour: 0 });
    const started = await runtime.resources.pod.update(id, recorded(stopped.outs), { ...inputs, desiredState: "RUNNING" });
    expect(started.outs).toMatchObject({ status: "RUNNING", dataCenterId: outs.dataCenterId });
  });

  it("stops a locked pod when asked (the lock steps aside and comes back); a removed setting leaves no perpetual diff", async () => {
    const { id, inputs, outs } = await createPod({ name: "locked", image: "i", gpu: { id: GPU.a5000 }, locked: true, readyTimeoutSeconds: 300 });
    const stopped = await runtime.resources.pod.update(id, outs, { ...inputs, desiredState: "STOPPED" });
    expect(stopped.outs).toMatchObject({ status: "EXITED", locked: true });

    const { readyTimeoutSeconds: _removed, ...withoutTimeout } = inputs;
    void _removed;
    const next = { ...withoutTimeout, desiredState: "STOPPED" };
    const updated = await runtime.resources.pod.update(id, recorded(stopped.outs), next);
    expect(updated.outs.readyTimeoutSeconds).toBeUndefined();
    expect((await runtime.resources.pod.diff(id, recorded(updated.outs), next)).changes).toBe(false);
  });

  it("refresh: no drift leaves the inputs as they were; a pod stopped behind the stack's back shows desiredState STOPPED", async () => {
    const { id, inputs, outs } = await createPod({ name: "drift", image: "i", gpu: { id: GPU.a5000 }, cmd: ["python", "serve.py"] });
    const clean = await runtime.resources.pod.read(id, outs);
    const { __provider: _p, ...expected } = inputs;
    void _p;
    expect(clean.inputs).toEqual(expected);

    await fetch(`${env.url}/v2/pods/${id}/action`, { method: "POST", headers: { authorization: `Bearer ${env.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ action: "stop" }) });
    const drifted = await runtime.resources.pod.read(id, outs);
    expect(drifted.inputs).toMatchObject({ desiredState: "STOPPED" });
    expect(drifted.props).toMatchObject({ status: "EXITED" });
  });

  it("refresh of a pod that is gone removes it from the state; delete is idempotent and waits until gone", async () => {
    const { id, outs } = await createPod({ name: "bye", image: "i", gpu: { id: GPU.a5000 } });
    await runtime.resources.pod.remove(id, outs);
    expect(await livePods()).toEqual([]);
    await expect(runtime.resources.pod.remove(id, outs)).resolves.toBeUndefined();
    expect(await runtime.resources.pod.read(id, outs)).toEqual({ id: "" });
  });

  it("keeps the generated Jupyter password out of env: it is only the jupyterPassword output", async () => {
    const { outs } = await createPod({ name: "nb", image: "jupyter", gpu: { id: GPU.a5000 }, startJupyter: true, ports: ["8888/http"], env: { MODE: "lab" } });
    expect(outs.jupyterPassword).toEqual(expect.any(String));
    expect(outs.env).toEqual({ MODE: "lab" });
    expect(JSON.stringify({ ...outs, jupyterPassword: null })).not.toContain(outs.jupyterPassword as string);
  });
});

describe("shared polls", () => {
  it("waits a fleet with few API calls per pod", async () => {
    await env.control.clearRequests();
    const names = ["a", "b", "c", "d", "e", "f"];
    await Promise.all(names.map((n) => createPod({ name: `fleet-${n}`, image: "i", gpu: { id: GPU.a5000 } })));
    const calls = (await env.control.requests()).filter((r) => r.path.startsWith("/v2/pods"));
    expect(calls.length / names.length).toBeLessThanOrEqual(3);
  });
});
