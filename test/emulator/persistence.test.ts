/** State survives a restart with a data directory, including a SIGKILL of the `compute-emulator` process. */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { useScratch } from "../helpers/scratch";
import { createdPod, createdSandbox, gpuPod, sandboxBody, withEmulator } from "./harness";

const { tempDir, track } = useScratch("compute-emulator-");

test("every kind of state comes back after a clean restart, with the clock where it was", async () => {
  const dataDir = tempDir();
  const saved = await withEmulator({ dataDir, freezeClock: "2030-07-01T00:00:00Z" }, async (h) => {
    const pod = await createdPod(h, gpuPod({ startJupyter: true, dataCenterIds: ["EU-RO-1"] }));
    const sandbox = await createdSandbox(h, sandboxBody({ labels: { keep: "yes" } }));
    await h.control.advance(250);
    const volume = (await h.post("/v2/network-volumes", { name: "kept", dataCenter: "US-TX-3", size: 25 })).body;
    const template = (await h.post("/v2/templates", { name: "kept", image: "me/kept:1" })).body;
    const endpointId = (await h.post("/v2/serverless", { name: "kept", type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "i", gpu: { pools: ["ADA_24"] } })).body.id;
    const endpoint = (await h.patch(`/v2/serverless/${endpointId}`, { name: "changed", gpu: { count: 2 } })).body;
    const cpuEndpoint = (await h.post("/v2/serverless", { name: "cpu", type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "i", cpu: [{ id: "cpu3c", vcpuCount: 4 }] })).body;
    await h.call("PUT", "/v2/account/ssh-keys", { body: { keys: ["ssh-ed25519 AAAAkept kept@host"] } });
    await h.control.updateAccount("acct_dev", { balance: 12.5 });
    const before = (await h.get(`/v2/pods/${pod.id}`)).body;
    expect(before.status).toBe("RUNNING");
    return { pod, sandbox, volume, template, endpoint, cpuEndpoint, before, capacityBefore: await h.control.capacity() };
  });
  const { pod, sandbox, volume, template, endpoint, cpuEndpoint, before, capacityBefore } = saved;
  expect(endpoint).toMatchObject({ name: "changed", gpu: { count: 2 } });

  await withEmulator({ dataDir }, async (h) => {
    expect(await h.control.clock()).toEqual({ now: "2030-07-01T00:00:00.250Z", frozen: true });
    expect((await h.get(`/v2/pods/${pod.id}`)).body).toEqual(before);
    expect((await h.get(`/v2/sandboxes/${sandbox.id}`)).body).toMatchObject({ state: "RUNNING", labels: { keep: "yes" } });
    expect((await h.get(`/v2/network-volumes/${volume.id}`)).body).toEqual(volume);
    expect((await h.get(`/v2/templates/${template.id}`)).body).toEqual(template);
    expect((await h.get(`/v2/serverless/${endpoint.id}`)).body).toEqual(endpoint);
    expect((await h.get(`/v2/serverless/${cpuEndpoint.id}`)).body).toEqual(cpuEndpoint);
    expect((await h.get("/v2/account/ssh-keys")).body.keys).toEqual(["ssh-ed25519 AAAAkept kept@host"]);
    expect((await h.control.account("acct_dev")).balance).toBe(12.5);
    expect(await h.control.capacity()).toEqual(capacityBefore);
    // Lifecycle continues from the restored clock.
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect((await h.get(`/v2/pods/${pod.id}`)).body.status).toBe("EXITED");
  });

  expect(readdirSync(dataDir)).toEqual(["state.json"]); // no temp file left behind
  expect(() => JSON.parse(readFileSync(join(dataDir, "state.json"), "utf8"))).not.toThrow();
});

test("endpoints saved as their answer (state files from before endpoints could change) read back, and can change", async () => {
  const dataDir = tempDir();
  const body = { name: "old", type: "QUEUE", scaling: { type: "REQUEST_COUNT", requestCount: 2 }, image: "i", gpu: { pools: ["ADA_24"], minCudaVersion: "12.4" } };
  const answer = await withEmulator({ dataDir, freezeClock: "2030-07-01T00:00:00Z" }, async (h) => (await h.post("/v2/serverless", body)).body);
  // Rewrite the endpoint into the old form: its answer, built once at create, under `view`.
  const file = join(dataDir, "state.json");
  const state = JSON.parse(readFileSync(file, "utf8"));
  state.modules.serverless = [{ id: answer.id, accountId: "acct_dev", createdAt: Date.parse(answer.createdAt), view: answer }];
  writeFileSync(file, JSON.stringify(state));

  await withEmulator({ dataDir }, async (h) => {
    expect((await h.get(`/v2/serverless/${answer.id}`)).body).toEqual(answer);
    const changed = await h.patch(`/v2/serverless/${answer.id}`, { scaling: { type: "QUEUE_DELAY", queueDelay: 3 }, gpu: { minCudaVersion: "" } });
    expect(changed.status).toBe(200);
    // The idle timeout the old answer left out (queue endpoint on REQUEST_COUNT) is the default.
    expect(changed.body).toEqual({ ...answer, scaling: { type: "QUEUE_DELAY", queueDelay: 3 }, workers: { min: 0, max: 3, idleTimeout: 10 }, gpu: { ...answer.gpu, minCudaVersion: null } });
  });
});

test("workers and their configuration version come back; the control plane's service and worker settings (in memory) do not", async () => {
  const dataDir = tempDir();
  const saved = await withEmulator({ dataDir, freezeClock: "2030-07-01T00:00:00Z" }, async (h) => {
    const body = { name: "kept", type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "i", gpu: { pools: ["ADA_24"] }, workers: { min: 2, max: 2 } };
    const endpoint = (await h.post("/v2/serverless", body)).body;
    await h.patch(`/v2/serverless/${endpoint.id}`, { image: "j" });
    await h.control.setWorkers(endpoint.id, { mode: "never" });
    const pod = await createdPod(h, gpuPod({ ports: ["22/tcp"] }));
    await h.control.setPodService(pod.id, { mode: "never" });
    await h.control.setNextServices({ mode: "never", count: 5 });
    return { endpointId: endpoint.id, podId: pod.id, workers: (await h.get(`/v2/serverless/${endpoint.id}/workers`)).body };
  });
  expect(readFileSync(join(dataDir, "state.json"), "utf8")).not.toMatch(/"workerSettings"|"service"/);

  await withEmulator({ dataDir }, async (h) => {
    expect((await h.get(`/v2/serverless/${saved.endpointId}/workers`)).body).toEqual(saved.workers);
    expect(saved.workers.endpointVersion).toBe(2);
    await h.control.advance(200);
    expect((await h.get(`/v2/serverless/${saved.endpointId}/workers`)).body.summary).toMatchObject({ idle: 2 });
    expect((await h.control.podService(saved.podId)).mode).toBe("normal");
    const next = await createdPod(h, gpuPod({ ports: ["22/tcp"] }));
    expect((await h.control.podService(next.id)).mode).toBe("normal");
  });
});

test("reset through the control plane is durable too", async () => {
  const dataDir = tempDir();
  const podId = await withEmulator({ dataDir }, async (h) => {
    const created = (await createdPod(h)).id;
    await h.control.reset();
    return created;
  });
  await withEmulator({ dataDir }, async (h) => {
    expect((await h.get(`/v2/pods/${podId}`)).status).toBe(404);
  });
});

/** Runs the real `compute-emulator` entry point (from source) and resolves with its URL. */
function runBinary(dataDir: string): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const root = resolve(__dirname, "../..");
  const child = spawn(
    process.execPath,
    ["-r", "ts-node/register/transpile-only", "emulator/bin.ts", "--port", "0", "--profile", "fast", "--data-dir", dataDir, "--print", "json"],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TS_NODE_PROJECT: join(root, "tsconfig.json") } },
  );
  track(child);
  return new Promise((resolvePromise, reject) => {
    let out = "";
    // Its exit is the failure (below); a start that hangs is the test's timeout's: no real-time
    // window of its own for a transpile that a loaded machine slows down.
    let line = "";
    child.stdout!.on("data", (chunk) => {
      line += chunk;
      if (!line.includes("\n")) return;
      const { url, apiKey } = JSON.parse(line) as { url: string; apiKey: string };
      resolvePromise({ child, url, apiKey });
    });
    child.stderr!.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => reject(new Error(`compute-emulator exited with ${code}: ${out}`)));
  });
}

test("compute-emulator loses no accepted request when killed with SIGKILL", async () => {
  const dataDir = tempDir();
  const first = await runBinary(dataDir);
  const headers = { Authorization: `Bearer ${first.apiKey}`, "Content-Type": "application/json" };
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`${first.url}/v2/pods`, { method: "POST", headers, body: JSON.stringify(gpuPod({ name: `p${i}` })) });
    expect(response.status).toBe(201);
    ids.push(((await response.json()) as { id: string }).id);
  }
  const exited = new Promise((r) => first.child.once("exit", r));
  first.child.kill("SIGKILL");
  await exited;

  const second = await runBinary(dataDir);
  try {
    const listed = (await (await fetch(`${second.url}/v2/pods`, { headers })).json()) as { pods: Array<{ id: string; name: string }> };
    expect(listed.pods.map((p) => p.id).sort()).toEqual([...ids].sort());
  } finally {
    const stopped = new Promise((r) => second.child.once("exit", r));
    second.child.kill("SIGTERM");
    expect(await stopped).toBe(0);
  }
}, 60000);

test("billing history comes back after a restart; a state file from before billing bills what runs from its start", async () => {
  const dataDir = tempDir();
  const T0 = "2030-07-01T00:00:00Z";
  const window = `bucketSize=hour&startTime=${T0}&endTime=2030-07-01T04:00:00Z`;
  const { podId, before } = await withEmulator({ dataDir, freezeClock: T0 }, async (h) => {
    const pod = await createdPod(h, gpuPod());
    await h.control.advance(3_600_000);
    const gone = await createdPod(h, gpuPod({ name: "gone" }));
    await h.control.advance(1_800_000);
    await h.del(`/v2/pods/${gone.id}`);
    return { podId: pod.id, before: (await h.get(`/v2/billing/pods?${window}`)).body };
  });
  expect(before.records.length).toBeGreaterThanOrEqual(3); // the pod's two hours, the deleted one's half hour

  await withEmulator({ dataDir }, async (h) => {
    expect((await h.get(`/v2/billing/pods?${window}`)).body).toEqual(before);
  });

  // The same state without its billing slice, as an earlier version wrote it.
  const file = join(dataDir, "state.json");
  const state = JSON.parse(readFileSync(file, "utf8"));
  delete state.modules.billing;
  writeFileSync(file, JSON.stringify(state));
  await withEmulator({ dataDir }, async (h) => {
    const answer = (await h.get(`/v2/billing/pods?podId=${podId}&${window}`)).body;
    const kept = before.records.filter((r: { podId: string }) => r.podId === podId);
    expect(answer.records).toEqual(kept); // the running pod: from its run's start, as before
  });
});
