/** Pod lifecycle on the emulator clock, actions, PATCH, delete, cluster members, control-plane events. */
import { cpuPod, createdPod, freshFixture, GPU, gpuPod, KEYS, runningPod, sleep, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());

const get = async (id: string) => (await h.get(`/v2/pods/${id}`)).body;
const act = (id: string, action: string) => h.post(`/v2/pods/${id}/action`, { action });
/** The pod's status once `ms` more of emulator time have passed. */
const statusAfter = async (id: string, ms: number) => {
  await h.control.advance(ms);
  return (await get(id)).status;
};
const sshPod = () => gpuPod({ ports: ["22/tcp", "8888/http"], startSsh: true });

describe("status follows the emulator clock", () => {
  test("PROVISIONING → STARTING → RUNNING, and a frozen clock holds the stage", async () => {
    const pod = (await h.post("/v2/pods", sshPod())).body;
    await sleep(300); // real time passes, emulator time does not
    expect((await get(pod.id)).status).toBe("PROVISIONING");
    await h.control.advance(100);
    const starting = await get(pod.id);
    expect(starting).toMatchObject({ status: "STARTING", actions: ["stop", "terminate"], runtime: null, startedAt: null });
    await h.control.advance(100);
    const running = await get(pod.id);
    expect(running.status).toBe("RUNNING");
    expect(running.actions).toEqual(["stop", "restart", "terminate"]);
    expect(running.startedAt).toBe((await h.control.clock()).now);
    await h.control.advance(42_000);
    const later = await get(pod.id);
    expect(later.runtime.uptime).toBe(42);
    expect(later.runtime.gpus).toHaveLength(1);
    // Every port, http and tcp alike, is a real listener on the emulator's machine (services.test.ts).
    expect(later.runtime.ports).toEqual([
      { private: 22, public: expect.any(Number), type: "tcp", ip: "127.0.0.1" },
      { private: 8888, public: expect.any(Number), type: "http", ip: "127.0.0.1" },
    ]);
  });

  test("ssh.direct exists only while RUNNING with 22/tcp, startSsh and registered keys", async () => {
    const pod = await runningPod(h, sshPod());
    const tcp = pod.runtime.ports.find((p: { private: number }) => p.private === 22);
    expect(pod.ssh.direct).toEqual({ host: tcp.ip, port: tcp.public, username: "root", command: expect.stringContaining(`-p ${tcp.public}`) });
    expect(pod.ssh.proxy).not.toBeNull();
    expect((await runningPod(h, gpuPod({ ports: ["22/tcp"] }))).ssh.direct).toBeNull();
    expect((await runningPod(h, gpuPod({ ports: ["8888/http"], startSsh: true }))).ssh.direct).toBeNull();
    expect((await runningPod(h, sshPod(), KEYS.other)).ssh.direct).toBeNull();
    await act(pod.id, "stop");
    expect((await get(pod.id)).ssh.direct).toBeNull();
  });
});

describe("actions", () => {
  test("stop goes straight to EXITED with cost 0; start comes back through STARTING on the same host", async () => {
    const pod = await runningPod(h);
    const stopped = await act(pod.id, "stop");
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ status: "EXITED", cost: 0, runtime: null, actions: ["start", "terminate"] });
    const started = await act(pod.id, "start");
    expect(started.body.status).toBe("STARTING");
    await h.control.advance(100);
    const again = await get(pod.id);
    expect(again).toMatchObject({ status: "RUNNING", dataCenterId: pod.dataCenterId, cudaVersion: pod.cudaVersion, cost: pod.cost });
  });

  test("restart goes back through STARTING", async () => {
    const pod = await runningPod(h);
    expect((await act(pod.id, "restart")).body.status).toBe("STARTING");
    expect(await statusAfter(pod.id, 100)).toBe("RUNNING");
  });

  test("an action not in the pod's actions is 409", async () => {
    const pod = await createdPod(h);
    const start = await act(pod.id, "start");
    expect(start.status).toBe(409);
    expect(start.body.detail).toMatch(/PROVISIONING/);
    expect((await act(pod.id, "restart")).status).toBe(409);
    expect((await act(pod.id, "stop")).body.status).toBe("EXITED");
    expect((await act(pod.id, "stop")).status).toBe(409);
    expect((await act(pod.id, "explode")).status).toBe(422);
  });

  test("a locked pod refuses stop and restart with 409 naming the lock, but can be terminated", async () => {
    const pod = await runningPod(h);
    const locked = await h.patch(`/v2/pods/${pod.id}`, { locked: true });
    expect(locked.body).toMatchObject({ locked: true, status: "RUNNING" });
    for (const action of ["stop", "restart"]) {
      const refused = await act(pod.id, action);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/locked/);
    }
    expect((await act(pod.id, "terminate")).status).toBe(204);
  });

  test("a start whose host has no free GPUs left is a 400", async () => {
    await h.control.setCapacity({ dataCenterId: "US-CA-2", gpuTypeId: GPU.l4, cloud: "SECURE", machines: [{ cudaVersion: "12.4", gpus: 1, ramPerGpu: 31, vcpuPerGpu: 4 }] });
    const first = await runningPod(h, gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: ["US-CA-2"] }));
    await act(first.id, "stop");
    expect((await h.post("/v2/pods", gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: ["US-CA-2"] }))).status).toBe(201);
    const start = await act(first.id, "start");
    expect(start.status).toBe(400);
    expect((await get(first.id)).status).toBe("EXITED");
  });
});

describe("delete", () => {
  test("reads as TERMINATED with cost 0 and no actions, then 404; a second delete is 404", async () => {
    const pod = await runningPod(h);
    expect((await h.del(`/v2/pods/${pod.id}`)).status).toBe(204);
    expect(await get(pod.id)).toMatchObject({ status: "TERMINATED", cost: 0, actions: [], runtime: null });
    expect((await h.del(`/v2/pods/${pod.id}`)).status).toBe(404);
    expect((await act(pod.id, "start")).status).toBe(409);
    await h.control.advance(100);
    expect((await h.get(`/v2/pods/${pod.id}`)).status).toBe(404);
    expect((await h.get("/v2/pods")).body.pods).toEqual([]);
    expect((await h.del("/v2/pods/nope")).status).toBe(404);
  });
});

describe("PATCH", () => {
  test("name and locked change without a restart; env replaces the whole map", async () => {
    const pod = await runningPod(h, gpuPod({ env: { A: "1", B: "2" }, startSsh: true }));
    const renamed = (await h.patch(`/v2/pods/${pod.id}`, { name: "renamed" })).body;
    expect(renamed).toMatchObject({ name: "renamed", status: "RUNNING", startedAt: pod.startedAt });
    const replaced = (await h.patch(`/v2/pods/${pod.id}`, { env: { C: "3" } })).body;
    expect(replaced.env.A).toBeUndefined();
    expect(replaced.env.C).toBe("3");
    // What startSsh injected stays: the flag is part of the pod and cannot be changed by update.
    expect(replaced.env.PUBLIC_KEY).toBe(pod.env.PUBLIC_KEY);
    expect(replaced.status).toBe("STARTING");
  });

  test("a container change restarts a RUNNING pod; the same value does not", async () => {
    const pod = await runningPod(h, gpuPod({ ports: ["8888/http"] }));
    expect((await h.patch(`/v2/pods/${pod.id}`, { ports: ["8888/http"], image: pod.image })).body.status).toBe("RUNNING");
    const changed = (await h.patch(`/v2/pods/${pod.id}`, { image: "python:3.13-slim", cmd: ["python", "app.py"] })).body;
    expect(changed).toMatchObject({ status: "STARTING", image: "python:3.13-slim", cmd: ["python", "app.py"] });
    expect(await statusAfter(pod.id, 100)).toBe("RUNNING");
    const stopped = await runningPod(h);
    await act(stopped.id, "stop");
    expect((await h.patch(`/v2/pods/${stopped.id}`, { disk: 40 })).body).toMatchObject({ status: "EXITED", disk: 40 });
  });

  test("mount rules: path changes only, kinds and volume ids fixed, no empty lists, complete entries", async () => {
    const pod = await runningPod(h, gpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] } }));
    const moved = (await h.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: "vol_dev_tx", path: "/datasets" }] } })).body;
    expect(moved.mounts.network).toEqual([{ volumeId: "vol_dev_tx", path: "/datasets" }]);
    expect(moved.status).toBe("STARTING");
    expect((await h.patch(`/v2/pods/${pod.id}`, { mounts: {} })).body.mounts.network[0].path).toBe("/datasets");
    expect((await h.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: "vol_dev_ro", path: "/x" }] } })).status).toBe(400);
    expect((await h.patch(`/v2/pods/${pod.id}`, { mounts: { persistent: { size: 20, path: "/w" } } })).status).toBe(400);
    expect((await h.patch(`/v2/pods/${pod.id}`, { mounts: { global: [{ volumeId: "gvol_dev_models" }] } })).status).toBe(400);
    expect((await h.patch(`/v2/pods/${pod.id}`, { mounts: { network: [] } })).status).toBe(400);
    expect((await h.patch(`/v2/pods/${pod.id}`, { mounts: { network: [{ volumeId: "vol_dev_tx" }] } })).status).toBe(422);
    const bare = await runningPod(h);
    expect((await h.patch(`/v2/pods/${bare.id}`, { mounts: { network: [{ volumeId: "vol_dev_tx", path: "/d" }] } })).status).toBe(400);
  });

  test("globalNetworking takes effect at the next start, and needs an eligible pod", async () => {
    const pod = await runningPod(h, gpuPod({ dataCenterIds: ["US-TX-3"] }));
    const patched = (await h.patch(`/v2/pods/${pod.id}`, { globalNetworking: true })).body;
    expect(patched).toMatchObject({ status: "RUNNING", globalNetworking: { enabled: false } });
    await act(pod.id, "restart");
    expect((await get(pod.id)).globalNetworking.enabled).toBe(true);
    const cpu = await runningPod(h, cpuPod());
    expect((await h.patch(`/v2/pods/${cpu.id}`, { globalNetworking: true })).status).toBe(400);
    const notHere = await runningPod(h, gpuPod({ dataCenterIds: ["US-CA-2"] }));
    expect((await h.patch(`/v2/pods/${notHere.id}`, { globalNetworking: true })).status).toBe(400);
  });

  test("templateId applies the template once; unknown properties are 422; serverless templates 422", async () => {
    const pod = await runningPod(h, gpuPod({ env: { KEEP: "no" } }));
    const applied = (await h.patch(`/v2/pods/${pod.id}`, { templateId: "tpl_dev_trainer", env: { EXTRA: "1" } })).body;
    expect(applied).toMatchObject({ image: "ghcr.io/dev-example/trainer:1.4.2", registry: "reg_dev_ghcr", template: null });
    expect(applied.env).toEqual({ WANDB_PROJECT: "trainer", HF_HOME: "/workspace/hf", EXTRA: "1" });
    expect((await h.patch(`/v2/pods/${pod.id}`, { templateId: "tpl_vllm_worker" })).status).toBe(422);
    expect((await h.patch(`/v2/pods/${pod.id}`, { templateId: "tpl_other_private" })).status).toBe(404);
    const unknown = await h.patch(`/v2/pods/${pod.id}`, { startSsh: true, cloud: "SECURE" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual(["startSsh: unknown property", "cloud: unknown property"]);
  });
});

describe("cluster member pods", () => {
  test("are hidden from the list unless asked for, readable, and refuse changes with 409", async () => {
    expect((await h.get("/v2/pods")).body.pods).toEqual([]);
    const all = (await h.get("/v2/pods?includeClusterPods=true")).body.pods;
    expect(all.map((p: { id: string }) => p.id)).toEqual(["pod_ray_head", "pod_ray_worker1"]);
    const head = await get("pod_ray_head");
    expect(head).toMatchObject({ status: "RUNNING", cluster: { id: "clu_dev_ray", rank: 0, role: "RAY_HEAD", ip: "10.65.0.2" } });
    expect((await h.patch("/v2/pods/pod_ray_head", { name: "x" })).status).toBe(409);
    expect((await act("pod_ray_head", "stop")).status).toBe(409);
    expect((await h.del("/v2/pods/pod_ray_head")).status).toBe(409);
    expect((await h.get("/v2/pods?includeClusterPods=maybe")).status).toBe(422);
  });
});

describe("container events from the control plane", () => {
  test("exit takes a RUNNING pod to EXITED; error to ERROR, which can be started again", async () => {
    const a = await runningPod(h);
    await h.control.podExit(a.id);
    expect(await get(a.id)).toMatchObject({ status: "EXITED", cost: 0 });
    const b = await runningPod(h);
    await h.control.podError(b.id, "Segmentation fault (core dumped)");
    expect(await get(b.id)).toMatchObject({ status: "ERROR", actions: ["start", "terminate"], runtime: null });
    expect((await act(b.id, "start")).body.status).toBe("STARTING");
  });

  test("fail-next makes the next created pod go to ERROR when it would have started", async () => {
    await h.control.failNext("pod");
    const failing = await createdPod(h);
    const healthy = await createdPod(h);
    expect(await statusAfter(failing.id, 250)).toBe("ERROR");
    expect((await get(healthy.id)).status).toBe("RUNNING");
  });

  test("fail-start fails the ongoing start, or the next one", async () => {
    const pod = await createdPod(h);
    await h.control.podFailStart(pod.id);
    expect(await statusAfter(pod.id, 250)).toBe("ERROR");
    await act(pod.id, "start");
    expect(await statusAfter(pod.id, 100)).toBe("RUNNING");
    await h.control.podFailStart(pod.id);
    expect((await get(pod.id)).status).toBe("RUNNING");
    await act(pod.id, "restart");
    expect(await statusAfter(pod.id, 100)).toBe("ERROR");
  });
});
