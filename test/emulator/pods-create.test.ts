/** POST /v2/pods: every rule of the v2 document and the contract decisions except templates. */
import { podDefaults } from "../helpers/fixtures";
import { cpuPod, createdPod, freshFixture, GPU, gpuPod, KEYS, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());

const create = (body: Record<string, unknown>, key?: string) => h.post("/v2/pods", body, { key });

test("a GPU pod is created PROVISIONING with its machine assigned and the whole Pod shape", async () => {
  const pod = await createdPod(h, gpuPod({ gpu: { id: GPU.rtx4090, count: 2 }, ports: ["8888/http"], env: { A: "1" } }));
  expect(pod).toMatchObject({
    name: "test-pod",
    status: "PROVISIONING",
    actions: ["stop", "terminate"],
    image: "python:3.12-slim",
    ...podDefaults(),
    ports: ["8888/http"],
    env: { A: "1" },
    registry: null,
    gpu: { id: GPU.rtx4090, count: 2, vcpuCount: 32, memory: 124 },
    cloud: "SECURE",
    dataCenterId: "US-TX-3",
    cudaVersion: "12.8",
    template: null,
    cost: 1.38,
    locked: false,
    globalNetworking: { enabled: false },
    runtime: null,
    startedAt: null,
  });
  expect(typeof pod.id).toBe("string");
  expect(pod.cpu).toBeUndefined();
  expect(pod.ssh.proxy).toMatchObject({ host: expect.any(String), port: 22, username: expect.stringContaining(pod.id) });
  expect(pod.ssh.proxy.command).toContain("ssh ");
  expect(pod.ssh.direct).toBeNull();
  expect(pod.startJupyter).toBeUndefined();
  expect(pod.startSsh).toBeUndefined();
});

describe("command forms", () => {
  test("cmd and entrypoint are stored in args and returned decoded", async () => {
    const pod = (await create(gpuPod({ entrypoint: ["python", "-m"], cmd: ["http.server", "8000"] }))).body;
    expect(JSON.parse(pod.args)).toEqual({ entrypoint: ["python", "-m"], cmd: ["http.server", "8000"] });
    expect(pod.entrypoint).toEqual(["python", "-m"]);
    expect(pod.cmd).toEqual(["http.server", "8000"]);
  });

  test("a bare shell string in args is CMD split into words", async () => {
    const pod = (await create(gpuPod({ args: "python -c 'print(1)'" }))).body;
    expect(pod.args).toBe("python -c 'print(1)'");
    expect(pod.cmd).toEqual(["python", "-c", "print(1)"]);
  });

  test("args that disagree with cmd are a 400", async () => {
    const response = await create(gpuPod({ args: "sleep 1", cmd: ["sleep", "2"] }));
    expect(response.status).toBe(400);
  });
});

describe("env injection", () => {
  test("startSsh injects PUBLIC_KEY with the registered keys; startJupyter a generated password", async () => {
    const keys = (await h.get("/v2/account/ssh-keys")).body.keys as string[];
    expect(keys.length).toBe(2);
    const pod = (await create(gpuPod({ startSsh: true, startJupyter: true, env: { A: "1" } }))).body;
    expect(pod.env.PUBLIC_KEY).toBe(keys.join("\n"));
    expect(pod.env.JUPYTER_PASSWORD).toMatch(/^\S{12,}$/);
    expect(pod.env.A).toBe("1");
    const other = (await create(gpuPod({ startJupyter: true }))).body;
    expect(other.env.JUPYTER_PASSWORD).not.toBe(pod.env.JUPYTER_PASSWORD);
  });

  test("values the request sets win over injection", async () => {
    const pod = (await create(gpuPod({ startSsh: true, startJupyter: true, env: { PUBLIC_KEY: "mine", JUPYTER_PASSWORD: "pw" } }))).body;
    expect(pod.env).toEqual({ PUBLIC_KEY: "mine", JUPYTER_PASSWORD: "pw" });
  });

  test("startSsh does nothing without registered keys, and nothing is injected without the flags", async () => {
    const theirs = (await create(gpuPod({ startSsh: true }), KEYS.other)).body;
    expect(theirs.env.PUBLIC_KEY).toBeUndefined();
    const plain = (await create(gpuPod())).body;
    expect(plain.env).toEqual({});
  });
});

describe("CUDA constraints", () => {
  test("allowedCudaVersions matches exactly and never falls back", async () => {
    const pinned = (await create(gpuPod({ gpu: { id: GPU.rtx4090, allowedCudaVersions: ["12.4"] }, dataCenterIds: ["US-TX-3"] }))).body;
    expect(pinned.cudaVersion).toBe("12.4");
    const none = await create(gpuPod({ gpu: { id: GPU.rtx4090, allowedCudaVersions: ["11.7"] } }));
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/CUDA 11\.7/);
    expect(none.body.code).toBeUndefined();
  });

  test("minCudaVersion compares numerically (12.11 is above 12.2)", async () => {
    await h.control.setCapacity({
      dataCenterId: "EU-SE-1",
      gpuTypeId: GPU.a5000,
      cloud: "SECURE",
      machines: [
        { cudaVersion: "12.2", gpus: 4, ramPerGpu: 32, vcpuPerGpu: 8 },
        { cudaVersion: "12.11", gpus: 4, ramPerGpu: 32, vcpuPerGpu: 8 },
      ],
    });
    const body = (min: string) => gpuPod({ gpu: { id: GPU.a5000, minCudaVersion: min }, dataCenterIds: ["EU-SE-1"] });
    expect((await create(body("12.10"))).body.cudaVersion).toBe("12.11");
    expect((await create(body("12.2"))).body.cudaVersion).toBe("12.2");
    expect((await create(body("12.12"))).status).toBe(400);
  });

  test("a non-empty set with a floor is 400; an explicit empty set may accompany a floor", async () => {
    expect((await create(gpuPod({ gpu: { id: GPU.rtx4090, allowedCudaVersions: ["12.8"], minCudaVersion: "12.0" } }))).status).toBe(400);
    const ok = await create(gpuPod({ gpu: { id: GPU.rtx4090, allowedCudaVersions: [], minCudaVersion: "12.5" } }));
    expect(ok.status).toBe(201);
    expect(ok.body.cudaVersion).toBe("12.8");
  });

  test("a malformed version is 422", async () => {
    const response = await create(gpuPod({ gpu: { id: GPU.rtx4090, allowedCudaVersions: ["12"], minCudaVersion: "twelve" } }));
    expect(response.status).toBe(422);
    expect(response.body.errors).toHaveLength(2);
  });
});

describe("per-GPU RAM and vCPU filters", () => {
  test("they choose the machine and the pod reports the actual totals", async () => {
    const roomy = (await create(gpuPod({ gpu: { id: GPU.rtx4090, count: 2, minVcpuCountPerGpu: 12, minRamPerGpu: 60 }, dataCenterIds: ["US-TX-3"] }))).body;
    expect(roomy.gpu).toMatchObject({ vcpuCount: 32, memory: 124 });
    const narrow = await create(gpuPod({ gpu: { id: GPU.rtx4090, allowedCudaVersions: ["12.4"], minRamPerGpu: 50 }, dataCenterIds: ["US-TX-3"] }));
    expect(narrow.status).toBe(400);
    expect(narrow.body.detail).toMatch(/at least 50 GB RAM per GPU/);
  });
});

describe("placement", () => {
  test("data-center preference is honoured in order, skipping full ones", async () => {
    expect((await create(gpuPod({ dataCenterIds: ["EU-RO-1", "US-TX-3"] }))).body.dataCenterId).toBe("EU-RO-1");
    await h.control.setCapacity({ dataCenterId: "EU-RO-1", gpuTypeId: GPU.rtx4090, cloud: "SECURE", available: 0 });
    expect((await create(gpuPod({ dataCenterIds: ["EU-RO-1", "US-TX-3"] }))).body.dataCenterId).toBe("US-TX-3");
    expect((await create(gpuPod({ dataCenterIds: [] }))).status).toBe(201);
    expect((await create(gpuPod({ dataCenterIds: ["XX-NONE-1"] }))).status).toBe(400);
  });

  test("capacity exhaustion is 400 with a human detail and no code", async () => {
    const response = await create(gpuPod({ gpu: { id: GPU.h200 } }));
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/no SECURE machines with 1 free NVIDIA H200 GPU/);
    expect(response.body.code).toBeUndefined();
    expect(response.body.errors).toBeUndefined();
  });

  test("created pods hold their GPUs: a full pool refuses the next create until one is deleted", async () => {
    await h.control.setCapacity({ dataCenterId: "US-CA-2", gpuTypeId: GPU.l4, cloud: "SECURE", available: 1 });
    const first = await create(gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: ["US-CA-2"] }));
    expect(first.status).toBe(201);
    expect((await create(gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: ["US-CA-2"] }))).status).toBe(400);
    expect((await h.del(`/v2/pods/${first.body.id}`)).status).toBe(204);
    expect((await create(gpuPod({ gpu: { id: GPU.l4 }, dataCenterIds: ["US-CA-2"] }))).status).toBe(201);
  });

  test("a GPU count above the largest machine, or a cloud that does not offer the type, is 400", async () => {
    expect((await create(gpuPod({ gpu: { id: GPU.rtx4090, count: 9 } }))).status).toBe(400);
    expect((await create(gpuPod({ gpu: { id: GPU.l4 }, cloud: "COMMUNITY" }))).status).toBe(400);
    expect((await create(gpuPod({ gpu: { id: "NVIDIA GeForce GTX 480" } }))).status).toBe(400);
  });

  test("COMMUNITY cloud places on community machines at the community price", async () => {
    const pod = (await create(gpuPod({ cloud: "COMMUNITY" }))).body;
    expect(pod).toMatchObject({ cloud: "COMMUNITY", dataCenterId: "US-TX-3", cudaVersion: "12.6", cost: 0.34 });
  });

  test("a pool the account cannot access is 403; an account that may gets the pod", async () => {
    const denied = await create(gpuPod({ gpu: { id: GPU.b200 } }));
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toMatch(/B200/);
    expect((await create(gpuPod({ gpu: { id: GPU.b200 } }), KEYS.team)).status).toBe(201);
  });
});

describe("network volume, global volume and global networking", () => {
  test("a network volume pins the pod to the volume's data center", async () => {
    const pod = (await create(gpuPod({ mounts: { network: [{ volumeId: "vol_dev_ro", path: "/data" }] } }))).body;
    expect(pod.dataCenterId).toBe("EU-RO-1");
    expect(pod.mounts).toEqual({ network: [{ volumeId: "vol_dev_ro", path: "/data" }] });
    const elsewhere = await create(gpuPod({ mounts: { network: [{ volumeId: "vol_dev_ro", path: "/data" }] }, dataCenterIds: ["US-TX-3"] }));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.detail).toMatch(/EU-RO-1/);
  });

  test("unknown or foreign volumes are 404; an incomplete mount entry is 422", async () => {
    expect((await create(gpuPod({ mounts: { network: [{ volumeId: "vol_other_ca", path: "/d" }] } }))).status).toBe(404);
    expect((await create(gpuPod({ mounts: { global: [{ volumeId: "gvol_nope" }] } }))).status).toBe(404);
    const incomplete = await create(gpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx" }], extra: {} } }));
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.errors).toEqual(["mounts.network[0].path: is required", "mounts.extra: unknown property"]);
  });

  test("a global volume gets a default path and combines with a network volume", async () => {
    const pod = (
      await create(gpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }], global: [{ volumeId: "gvol_dev_models" }] } }))
    ).body;
    expect(pod.mounts.global).toEqual([{ volumeId: "gvol_dev_models", path: expect.stringMatching(/^\//) }]);
    expect(pod.dataCenterId).toBe("US-TX-3");
  });

  test("global networking needs an NVIDIA GPU in a data center that has it", async () => {
    const pod = (await create(gpuPod({ globalNetworking: true, dataCenterIds: ["US-CA-2", "EU-RO-1"] }))).body;
    expect(pod.dataCenterId).toBe("EU-RO-1");
    expect(pod.globalNetworking).toEqual({ enabled: true, ip: expect.stringMatching(/^10\./), internalDns: `${pod.id}.compute.internal` });
    expect((await create(gpuPod({ globalNetworking: true, dataCenterIds: ["US-CA-2"] }))).status).toBe(400);
    expect((await create(gpuPod({ globalNetworking: true, gpu: { id: GPU.mi300x } }))).status).toBe(400);
    expect((await create(cpuPod({ globalNetworking: true }))).status).toBe(400);
  });
});

describe("CPU pods", () => {
  test("memory comes from the flavor's RAM multiplier and cost from its vCPU price", async () => {
    const pod = (await create(cpuPod({ cpu: { id: "cpu5c", vcpuCount: 4 } }))).body;
    expect(pod.cpu).toEqual({ id: "cpu5c", vcpuCount: 4, memory: 10 });
    expect(pod.gpu).toBeUndefined();
    expect(pod.cost).toBe(0.16);
    expect(pod.cudaVersion).toBeNull();
  });

  test("vCPU count must be a power of two (422) and valid for the flavor (400)", async () => {
    expect((await create(cpuPod({ cpu: { id: "cpu3c", vcpuCount: 6 } }))).status).toBe(422);
    expect((await create(cpuPod({ cpu: { id: "cpu3c", vcpuCount: 64 } }))).status).toBe(400);
    expect((await create(cpuPod({ cpu: { id: "cpu9x", vcpuCount: 2 } }))).status).toBe(400);
  });

  test("a persistent mount is invalid on a CPU pod; network volumes work", async () => {
    expect((await create(cpuPod({ mounts: { persistent: { size: 20, path: "/w" } } }))).status).toBe(400);
    expect((await create(cpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] } }))).status).toBe(201);
  });
});

describe("request-level rules", () => {
  test("exactly one of gpu or cpu, and an image unless templateId (400)", async () => {
    expect((await create({ name: "x", image: "i", gpu: { id: GPU.rtx4090 }, cpu: { id: "cpu3c", vcpuCount: 2 } })).status).toBe(400);
    expect((await create({ name: "x", image: "i" })).status).toBe(400);
    expect((await create({ name: "x", gpu: { id: GPU.rtx4090 } })).status).toBe(400);
  });

  test("insufficient balance is 402 and creates nothing", async () => {
    await h.control.updateAccount("acct_dev", { balance: 1 });
    const response = await create(gpuPod({ gpu: { id: GPU.h100 } }));
    expect(response.status).toBe(402);
    expect(response.body.detail).toMatch(/balance/);
    expect((await h.get("/v2/pods")).body.pods).toEqual([]);
  });
});
