/** SSH keys, network volumes, serverless endpoints and the catalog. */
import { createdPod, freshFixture, GPU, gpuPod, KEYS, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHx9Q2w3e4r5t6y7u8i9o0pAsDfGhJkLzXcVbNm1Q2w3 ci@runner";

describe("SSH keys", () => {
  test("PUT replaces the whole set; pods created afterwards get it in PUBLIC_KEY", async () => {
    const before = await createdPod(h, gpuPod({ startSsh: true }));
    const put = await h.call("PUT", "/v2/account/ssh-keys", { body: { keys: [KEY] } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ keys: [KEY] });
    expect((await h.get("/v2/account/ssh-keys")).body).toEqual({ keys: [KEY] });
    expect((await createdPod(h, gpuPod({ startSsh: true }))).env.PUBLIC_KEY).toBe(KEY);
    expect((await h.get(`/v2/pods/${before.id}`)).body.env.PUBLIC_KEY).not.toBe(KEY);
    await h.call("PUT", "/v2/account/ssh-keys", { body: { keys: [] } });
    expect((await createdPod(h, gpuPod({ startSsh: true }))).env.PUBLIC_KEY).toBeUndefined();
  });

  test("each key must be an authorized_keys line (422 per bad entry)", async () => {
    const response = await h.call("PUT", "/v2/account/ssh-keys", { body: { keys: [KEY, "not a key", ""] } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([expect.stringMatching(/^keys\[2\]: /), expect.stringMatching(/^keys\[1\]: must be an authorized_keys line/)]);
  });
});

describe("network volumes", () => {
  test("create, read, grow, rename and delete", async () => {
    const created = await h.post("/v2/network-volumes", { name: "scratch", dataCenter: "EU-SE-1", size: 50 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: "scratch", size: 50, dataCenter: "EU-SE-1", type: "STANDARD" });
    const id = created.body.id;
    expect((await h.get(`/v2/network-volumes/${id}`)).body).toEqual(created.body);
    expect((await h.patch(`/v2/network-volumes/${id}`, { size: 80, name: "bigger" })).body).toMatchObject({ size: 80, name: "bigger" });
    expect((await h.patch(`/v2/network-volumes/${id}`, { size: 60 })).status).toBe(400);
    expect((await h.patch(`/v2/network-volumes/${id}`, {})).status).toBe(422);
    expect((await h.patch(`/v2/network-volumes/${id}`, { size: 4097 })).status).toBe(422);
    expect((await h.get("/v2/network-volumes")).body.networkVolumes.map((v: { id: string }) => v.id)).toContain(id);
    expect((await h.del(`/v2/network-volumes/${id}`)).status).toBe(204);
    expect((await h.get(`/v2/network-volumes/${id}`)).status).toBe(404);
  });

  test("the data center must exist and offer the tier; the body is validated", async () => {
    expect((await h.post("/v2/network-volumes", { name: "v", dataCenter: "XX-1", size: 10 })).status).toBe(400);
    expect((await h.post("/v2/network-volumes", { name: "v", dataCenter: "EU-NL-1", size: 10 })).status).toBe(400);
    expect((await h.post("/v2/network-volumes", { name: "v", dataCenter: "US-CA-2", size: 10, type: "HIGH_PERFORMANCE" })).status).toBe(400);
    const fast = await h.post("/v2/network-volumes", { name: "v", dataCenter: "US-TX-3", size: 10, type: "HIGH_PERFORMANCE" });
    expect(fast.body.type).toBe("HIGH_PERFORMANCE");
    const invalid = await h.post("/v2/network-volumes", { name: "", size: 0, extra: 1 });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toHaveLength(4);
  });

  test("a volume mounted by a pod cannot be deleted until the pod is gone", async () => {
    const pod = await createdPod(h, gpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] } }));
    expect((await h.del("/v2/network-volumes/vol_dev_tx")).status).toBe(409);
    await h.del(`/v2/pods/${pod.id}`);
    expect((await h.del("/v2/network-volumes/vol_dev_tx")).status).toBe(204);
  });

  test("global volumes are listed per account", async () => {
    expect((await h.get("/v2/global-volumes")).body.globalVolumes.map((v: { id: string }) => v.id)).toEqual(["gvol_dev_models"]);
  });
});

describe("serverless endpoints", () => {
  test("create from a Hub release stores the endpoint; GET returns it", async () => {
    const repo = (await h.get("/v2/hub/repos/runpod-workers/worker-vllm")).body;
    const catalog = (await h.get("/v2/catalog/gpus")).body.gpus as Array<{ id: string; pool: string | null }>;
    const pools = [...new Set(repo.release.config.gpuIds.map((id: string) => catalog.find((g) => g.id === id)!.pool))];
    const body = {
      name: "llama",
      type: "QUEUE",
      scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
      image: repo.release.image,
      disk: repo.release.config.containerDiskInGb,
      env: repo.release.config.env,
      gpu: { pools, count: repo.release.config.gpuCount, allowedCudaVersions: repo.release.config.allowedCudaVersions },
    };
    const created = await h.post("/v2/serverless", body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "llama",
      type: "QUEUE",
      image: "runpod/worker-v1-vllm:v2.4.0",
      disk: 40,
      env: { MODEL_NAME: "meta-llama/Llama-3.1-8B-Instruct" },
      gpu: { pools: ["HOPPER_80", "AMPERE_80"], count: 1, allowedCudaVersions: ["12.4", "12.8"], minCudaVersion: null },
      workers: { min: 0, max: 3, idleTimeout: 10 },
      flashboot: "OFF",
      timeout: 300000,
      scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
      requestUrls: { run: expect.stringContaining(`/${created.body.id}/run`) },
    });
    expect((await h.get(`/v2/serverless/${created.body.id}`)).body).toEqual(created.body);
    expect((await h.get("/v2/serverless")).body.endpoints).toEqual([created.body]);
    expect((await h.get(`/v2/serverless/${created.body.id}`, { key: KEYS.other })).status).toBe(404);
    expect((await h.del(`/v2/serverless/${created.body.id}`)).status).toBe(204);
    expect((await h.get(`/v2/serverless/${created.body.id}`)).status).toBe(404);
  });

  test("pools are pool ids, not GPU type ids; templates must be serverless ones", async () => {
    const base = { name: "e", type: "QUEUE", scaling: { type: "REQUEST_COUNT", requestCount: 2 } };
    const wrongPool = await h.post("/v2/serverless", { ...base, image: "i", gpu: { pools: [GPU.rtx4090] } });
    expect(wrongPool.status).toBe(400);
    expect(wrongPool.body.detail).toMatch(/pool/);
    const excluded = await h.post("/v2/serverless", { ...base, image: "i", gpu: { pools: ["ADA_24"], excludedTypes: [GPU.l4] } });
    expect(excluded.status).toBe(201);
    expect(excluded.body.gpu.excludedTypes).toEqual([GPU.l4]);
    expect(excluded.body.workers.idleTimeout).toBeUndefined();
    expect((await h.post("/v2/serverless", { ...base, image: "i", gpu: { pools: ["ADA_24"], excludedTypes: [GPU.h100] } })).status).toBe(400);
    expect((await h.post("/v2/serverless", { ...base, image: "i" })).status).toBe(400);
    const fromTemplate = await h.post("/v2/serverless", { ...base, templateId: "tpl_vllm_worker", gpu: { pools: ["ADA_24"] } });
    expect(fromTemplate.body).toMatchObject({ image: "runpod/worker-v1-vllm:v2.4.0", templateId: "tpl_vllm_worker" });
    expect((await h.post("/v2/serverless", { ...base, templateId: "tpl_pytorch", gpu: { pools: ["ADA_24"] } })).status).toBe(422);
    const invalid = await h.post("/v2/serverless", { ...base, type: "LOAD_BALANCER", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "i", gpu: {} });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual(["gpu.pools: is required", 'scaling.type: must be "REQUEST_COUNT" for a LOAD_BALANCER endpoint']);
    expect((await h.post("/v2/serverless", { ...base, type: "BATCH", gpu: { pools: ["ADA_24"] } })).status).toBe(422);
  });
});

describe("catalog", () => {
  test("GPU types with pod availability, per-data-center stock and CUDA versions", async () => {
    const plain = (await h.get("/v2/catalog/gpus")).body.gpus;
    expect(plain.length).toBeGreaterThanOrEqual(12);
    expect(plain[0].availability).toBeUndefined();
    const gpus = (await h.get("/v2/catalog/gpus?include=AVAILABILITY&product=POD")).body.gpus;
    const rtx = gpus.find((g: { id: string }) => g.id === GPU.rtx4090);
    expect(rtx).toMatchObject({ name: "RTX 4090", pool: "ADA_24", manufacturer: "NVIDIA", secure: true, community: true, availability: "HIGH" });
    expect(rtx.dataCenters).toEqual(expect.arrayContaining([{ id: "US-TX-3", name: "US Texas 3", availability: "HIGH" }]));
    expect(rtx.cudaVersions).toEqual(expect.arrayContaining([{ version: "12.8", available: true }, { version: "12.4", available: true }]));
    const h200 = gpus.find((g: { id: string }) => g.id === GPU.h200);
    expect(h200.availability).toBe("NONE");
    await h.control.setCapacity({ dataCenterId: "US-TX-3", gpuTypeId: GPU.rtx4090, cloud: "SECURE", available: 0 });
    const after = (await h.get("/v2/catalog/gpus/" + encodeURIComponent(GPU.rtx4090) + "?include=AVAILABILITY&product=POD")).body;
    expect(after.dataCenters.find((d: { id: string }) => d.id === "US-TX-3").availability).toBe("NONE");
  });

  test("availability parameters need each other (400) and well-formed values (422)", async () => {
    expect((await h.get("/v2/catalog/gpus?include=AVAILABILITY")).status).toBe(400);
    expect((await h.get("/v2/catalog/gpus?product=POD")).status).toBe(400);
    expect((await h.get("/v2/catalog/gpus?include=AVAILABILITY&product=POD&cudaVersions=12.4&minCudaVersion=12")).status).toBe(400);
    expect((await h.get("/v2/catalog/gpus?include=AVAILABILITY&product=POD&cudaVersions=12")).status).toBe(422);
    expect((await h.get("/v2/catalog/gpus/nope")).status).toBe(404);
  });

  test("data centers by region with GPU availability and the globalNetwork attribute", async () => {
    const europe = (await h.get("/v2/catalog/datacenters?regions=EUROPE&include=GPU_AVAILABILITY")).body.dataCenters;
    expect(europe.map((d: { id: string }) => d.id)).toEqual(["EU-RO-1", "EU-SE-1", "EU-NL-1"]);
    expect(europe[0]).toMatchObject({ region: "EUROPE", globalNetwork: true, networkVolumeTypes: ["STANDARD", "HIGH_PERFORMANCE"] });
    expect(europe[0].gpuAvailability).toEqual(expect.arrayContaining([{ id: GPU.rtx4090, name: "RTX 4090", availability: "HIGH" }]));
    const global = (await h.get("/v2/catalog/datacenters?globalNetwork=true")).body.dataCenters.map((d: { id: string }) => d.id);
    expect(global).toEqual(["US-TX-3", "US-KS-2", "EU-RO-1"]);
    const all = (await h.get("/v2/catalog/datacenters")).body.dataCenters;
    expect(new Set(all.map((d: { region: string }) => d.region)).size).toBeGreaterThanOrEqual(4);
    expect((await h.get("/v2/catalog/datacenters?regions=MARS")).status).toBe(422);
  });

  test("CPU flavors with vCPU ranges and RAM multipliers", async () => {
    const cpus = (await h.get("/v2/catalog/cpus")).body.cpus;
    expect(cpus.find((c: { id: string }) => c.id === "cpu5c")).toMatchObject({ vcpu: { min: 2, max: 32 }, ramGbPerVcpu: 2.5, price: { securePerVcpu: 0.04 } });
    const withStock = (await h.get("/v2/catalog/cpus/cpu3c?include=AVAILABILITY&product=POD")).body;
    expect(withStock.availability).toBe("HIGH");
    expect((await h.get("/v2/catalog/cpus?include=AVAILABILITY&product=POD&vcpuCount=6")).status).toBe(422);
  });
});
