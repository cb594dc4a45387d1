/**
 * Serverless endpoints beyond create-from-Hub (resources.test.ts): CPU endpoints, the partial
 * update (PATCH), the template's CUDA seeding, and the network volumes an endpoint holds.
 */
import { freshFixture, GPU, KEYS, useEmulator, type Harness } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());

const QUEUE = { type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 2 } };

const gpuEndpoint = (overrides: Record<string, unknown> = {}) => ({ name: "gpu-ep", ...QUEUE, image: "me/worker:1", gpu: { pools: ["ADA_24"] }, ...overrides });
const cpuEndpoint = (overrides: Record<string, unknown> = {}) => ({ name: "cpu-ep", ...QUEUE, image: "me/worker:1", cpu: [{ id: "cpu3c", vcpuCount: 4 }], ...overrides });

/** Creates an endpoint and returns it as answered (must be a 201). */
async function created(harness: Harness, body: Record<string, unknown>): Promise<any> {
  const response = await harness.post("/v2/serverless", body);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** PATCHes an endpoint, expecting 200, and checks the answer is what GET reads afterwards. */
async function patched(id: string, body: Record<string, unknown>): Promise<any> {
  const response = await h.patch(`/v2/serverless/${id}`, body);
  expect(response).toMatchObject({ status: 200 });
  expect((await h.get(`/v2/serverless/${id}`)).body).toEqual(response.body);
  return response.body;
}

/** PATCHes an endpoint expecting 400, and checks the endpoint did not change at all. */
async function refused(id: string, body: Record<string, unknown>): Promise<any> {
  const before = (await h.get(`/v2/serverless/${id}`)).body;
  const response = await h.patch(`/v2/serverless/${id}`, body);
  expect(response.status).toBe(400);
  expect((await h.get(`/v2/serverless/${id}`)).body).toEqual(before);
  return response.body;
}

describe("CPU endpoints", () => {
  test("each choice is answered with its memory from the flavor's RAM per vCPU; gpu is null", async () => {
    const endpoint = await created(h, cpuEndpoint({ cpu: [{ id: "cpu3c", vcpuCount: 4 }, { id: "cpu5c", vcpuCount: 2 }, { id: "cpu3c", vcpuCount: 8 }] }));
    expect(endpoint.cpu).toEqual([
      { id: "cpu3c", vcpuCount: 4, memory: 8 },
      { id: "cpu5c", vcpuCount: 2, memory: 5 },
      { id: "cpu3c", vcpuCount: 8, memory: 16 },
    ]);
    expect(endpoint.gpu).toBeNull();
    expect((await h.get(`/v2/serverless/${endpoint.id}`)).body).toEqual(endpoint);
    expect((await h.get("/v2/serverless")).body.endpoints).toEqual([endpoint]);
  });

  test("a GPU endpoint's answer has no cpu member", async () => {
    expect(await created(h, gpuEndpoint())).not.toHaveProperty("cpu");
  });

  test("a flavor the catalog lacks, or a vCPU count it does not offer, is 400 naming each entry", async () => {
    const response = await h.post("/v2/serverless", cpuEndpoint({ cpu: [{ id: "cpu3c", vcpuCount: 64 }, { id: "cpu5g", vcpuCount: 4 }, { id: "cpu9x", vcpuCount: 2 }] }));
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      "cpu[0].vcpuCount: 64 is not valid for cpu3c (2 to 32 vCPUs)",
      'cpu[2].id: unknown CPU flavor "cpu9x"; GET /v2/catalog/cpus lists the flavor ids',
    ]);
    expect(response.body.detail).toContain("cpu[2].id");
    expect((await h.get("/v2/serverless")).body.endpoints).toEqual([]);
  });

  test("exactly one of gpu and cpu (400); a duplicate choice or an odd vCPU count is 422", async () => {
    const both = await h.post("/v2/serverless", cpuEndpoint({ gpu: { pools: ["ADA_24"] } }));
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual(["cpu: cannot be combined with gpu (exactly one of gpu or cpu)"]);
    const neither = await h.post("/v2/serverless", cpuEndpoint({ cpu: undefined }));
    expect(neither.status).toBe(400);
    expect(neither.body.errors).toEqual(["gpu: exactly one of gpu or cpu is required"]);
    const duplicate = await h.post("/v2/serverless", cpuEndpoint({ cpu: [{ id: "cpu3c", vcpuCount: 4 }, { id: "cpu3c", vcpuCount: 8 }, { id: "cpu3c", vcpuCount: 4 }] }));
    expect(duplicate.status).toBe(422);
    expect(duplicate.body.errors).toEqual(["cpu[2]: duplicates cpu[0] (the same flavor may be listed at different vCPU counts)"]);
    const odd = await h.post("/v2/serverless", cpuEndpoint({ cpu: [{ id: "cpu3c", vcpuCount: 6 }] }));
    expect(odd.status).toBe(422);
    expect(odd.body.errors).toEqual(["cpu[0].vcpuCount: must be a power of two"]);
  });

  test("from a serverless template: its container settings, and no CUDA set to seed", async () => {
    const endpoint = await created(h, cpuEndpoint({ image: undefined, templateId: "tpl_vllm_worker" }));
    expect(endpoint).toMatchObject({ image: "runpod/worker-v1-vllm:v2.4.0", disk: 40, gpu: null, templateId: "tpl_vllm_worker" });
    expect(endpoint.env).toEqual({ MODEL_NAME: "meta-llama/Llama-3.1-8B-Instruct", MAX_MODEL_LEN: "8192" });
  });
});

describe("a template's CUDA set seeds a GPU create", () => {
  test("when the body sends no CUDA member", async () => {
    const endpoint = await created(h, gpuEndpoint({ image: undefined, templateId: "tpl_vllm_worker" }));
    expect(endpoint.gpu).toMatchObject({ allowedCudaVersions: ["12.4", "12.8"], minCudaVersion: null });
  });

  test("never beside a floor the body sends (that would manufacture the set-or-floor 400)", async () => {
    const endpoint = await created(h, gpuEndpoint({ image: undefined, templateId: "tpl_vllm_worker", gpu: { pools: ["ADA_24"], minCudaVersion: "12.6" } }));
    expect(endpoint.gpu).toMatchObject({ allowedCudaVersions: [], minCudaVersion: "12.6" });
  });
});

describe("PATCH /v2/serverless/{id}", () => {
  test("only the members sent change; env replaces the endpoint's map", async () => {
    const before = await created(h, gpuEndpoint({ env: { A: "1", B: "2" }, dataCenterIds: ["US-TX-3"] }));
    const after = await patched(before.id, { name: "renamed", env: { C: "3" }, timeout: 60000, flashboot: "FLASHBOOT" });
    expect(after).toEqual({ ...before, name: "renamed", env: { C: "3" }, timeout: 60000, flashboot: "FLASHBOOT" });
    expect(await patched(before.id, {})).toEqual(after);
  });

  test("another account's endpoint, or an unknown one, is 404", async () => {
    const endpoint = await created(h, gpuEndpoint());
    expect((await h.patch(`/v2/serverless/${endpoint.id}`, { name: "x" }, { key: KEYS.other })).status).toBe(404);
    expect((await h.patch("/v2/serverless/nope", { name: "x" })).status).toBe(404);
    expect((await h.get(`/v2/serverless/${endpoint.id}`)).body.name).toBe("gpu-ep");
  });

  test("an unknown member or a malformed value is 422, with every violation", async () => {
    const endpoint = await created(h, gpuEndpoint());
    const response = await h.patch(`/v2/serverless/${endpoint.id}`, { type: "LOAD_BALANCER", disk: 0, gpu: { minCudaVersion: "12" } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^type: /), expect.stringMatching(/^disk: /), expect.stringMatching(/^gpu\.minCudaVersion: /)]));
  });

  describe("gpu is a partial update", () => {
    test("pools replaces the selection: excluded types sent with it, or none", async () => {
      const endpoint = await created(h, gpuEndpoint({ gpu: { pools: ["ADA_24"], excludedTypes: [GPU.l4], count: 2 } }));
      const counted = await patched(endpoint.id, { gpu: { count: 1 } });
      expect(counted.gpu).toMatchObject({ pools: ["ADA_24"], excludedTypes: [GPU.l4], count: 1 });
      const widened = await patched(endpoint.id, { gpu: { pools: ["ADA_24", "HOPPER_80"] } });
      expect(widened.gpu.pools).toEqual(["ADA_24", "HOPPER_80"]);
      expect(widened.gpu).not.toHaveProperty("excludedTypes");
      const pinned = await patched(endpoint.id, { gpu: { pools: ["ADA_24"], excludedTypes: [` ${GPU.rtx4090}`] } });
      expect(pinned.gpu).toMatchObject({ pools: ["ADA_24"], excludedTypes: [GPU.rtx4090], count: 1 });
    });

    test("excludedTypes without pools is 400 (the two are one selection)", async () => {
      const endpoint = await created(h, gpuEndpoint());
      const body = await refused(endpoint.id, { gpu: { excludedTypes: [GPU.l4] } });
      expect(body.errors).toEqual(["gpu.excludedTypes: needs gpu.pools beside it (the two are one selection)"]);
    });

    test("unknown pools and stray exclusions are 400, as on create", async () => {
      const endpoint = await created(h, gpuEndpoint());
      expect((await refused(endpoint.id, { gpu: { pools: [GPU.rtx4090] } })).detail).toMatch(/^gpu\.pools: unknown GPU pool/);
      expect((await refused(endpoint.id, { gpu: { pools: ["ADA_24"], excludedTypes: [GPU.h100] } })).detail).toMatch(/^gpu\.excludedTypes: /);
      expect((await refused(endpoint.id, { gpu: { pools: ["ADA_24"], excludedTypes: [GPU.rtx4090, GPU.l4] } })).detail).toBe("gpu.excludedTypes: the selection leaves no GPU type");
    });

    test("allowedCudaVersions: [] clears the set, minCudaVersion: \"\" clears the floor", async () => {
      const endpoint = await created(h, gpuEndpoint({ gpu: { pools: ["ADA_24"], allowedCudaVersions: ["12.4"] } }));
      expect((await patched(endpoint.id, { gpu: { allowedCudaVersions: [] } })).gpu).toMatchObject({ allowedCudaVersions: [], minCudaVersion: null });
      expect((await patched(endpoint.id, { gpu: { minCudaVersion: "12.6" } })).gpu).toMatchObject({ allowedCudaVersions: [], minCudaVersion: "12.6" });
      expect((await patched(endpoint.id, { gpu: { minCudaVersion: "" } })).gpu).toMatchObject({ allowedCudaVersions: [], minCudaVersion: null });
    });

    test("a set beside the endpoint's floor is 400 unless the same PATCH clears the floor", async () => {
      const endpoint = await created(h, gpuEndpoint({ gpu: { pools: ["ADA_24"], minCudaVersion: "12.4" } }));
      const body = await refused(endpoint.id, { gpu: { allowedCudaVersions: ["12.8"] } });
      expect(body.errors).toEqual(["gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions"]);
      const swapped = await patched(endpoint.id, { gpu: { allowedCudaVersions: ["12.8"], minCudaVersion: "" } });
      expect(swapped.gpu).toMatchObject({ allowedCudaVersions: ["12.8"], minCudaVersion: null });
      // And the other way round: a floor beside the set the endpoint now has.
      await refused(endpoint.id, { gpu: { minCudaVersion: "12.6" } });
    });
  });

  describe("the compute family is fixed at create", () => {
    test("gpu on a CPU endpoint, or cpu on a GPU endpoint, is 400", async () => {
      const cpu = await created(h, cpuEndpoint());
      expect((await refused(cpu.id, { gpu: { count: 1 } })).detail).toMatch(/^gpu: .*fixed at create/);
      const gpu = await created(h, gpuEndpoint());
      expect((await refused(gpu.id, { cpu: [{ id: "cpu3c", vcpuCount: 2 }] })).detail).toMatch(/^cpu: .*fixed at create/);
      expect((await refused(gpu.id, { gpu: { count: 2 }, cpu: [{ id: "cpu3c", vcpuCount: 2 }] })).errors).toEqual(["cpu: cannot be combined with gpu (exactly one of gpu or cpu)"]);
    });

    test("cpu replaces a CPU endpoint's choices, checked against the catalog", async () => {
      const endpoint = await created(h, cpuEndpoint());
      expect((await patched(endpoint.id, { cpu: [{ id: "cpu3m", vcpuCount: 2 }] })).cpu).toEqual([{ id: "cpu3m", vcpuCount: 2, memory: 16 }]);
      expect((await refused(endpoint.id, { cpu: [{ id: "cpu3m", vcpuCount: 2 }, { id: "cpu5m", vcpuCount: 2 }] })).errors).toEqual([
        "cpu[1].vcpuCount: 2 is not valid for cpu5m (4 to 32 vCPUs)",
      ]);
      expect((await h.patch(`/v2/serverless/${endpoint.id}`, { cpu: [{ id: "cpu3m", vcpuCount: 2 }, { id: "cpu3m", vcpuCount: 2 }] })).status).toBe(422);
    });
  });

  describe("workers and scaling hold for the endpoint as the PATCH leaves it", () => {
    test("workers.min may not exceed the endpoint's max, nor max fall below its min", async () => {
      const endpoint = await created(h, gpuEndpoint({ workers: { min: 1, max: 3 } }));
      expect((await refused(endpoint.id, { workers: { min: 5 } })).errors).toEqual(["workers.min: must not exceed workers.max"]);
      await refused(endpoint.id, { workers: { max: 0 } });
      expect((await patched(endpoint.id, { workers: { min: 5, max: 8 } })).workers).toEqual({ min: 5, max: 8, idleTimeout: 10 });
    });

    test("a load balancer scales on REQUEST_COUNT only", async () => {
      const endpoint = await created(h, gpuEndpoint({ type: "LOAD_BALANCER", scaling: { type: "REQUEST_COUNT", requestCount: 4 } }));
      const body = await refused(endpoint.id, { scaling: { type: "QUEUE_DELAY", queueDelay: 2 } });
      expect(body.errors).toEqual(['scaling.type: must be "REQUEST_COUNT" for a LOAD_BALANCER endpoint']);
      expect((await patched(endpoint.id, { scaling: { type: "REQUEST_COUNT", requestCount: 9 } })).scaling).toEqual({ type: "REQUEST_COUNT", requestCount: 9 });
    });

    test("a queue endpoint on REQUEST_COUNT has no idle timeout: omitted from answers, refused in a PATCH", async () => {
      const endpoint = await created(h, gpuEndpoint({ workers: { idleTimeout: 30 } }));
      const byCount = await patched(endpoint.id, { scaling: { type: "REQUEST_COUNT", requestCount: 2 } });
      expect(byCount.workers).toEqual({ min: 0, max: 3 });
      expect((await refused(endpoint.id, { workers: { idleTimeout: 60 } })).errors).toEqual([
        "workers.idleTimeout: does not apply to a QUEUE endpoint scaling on REQUEST_COUNT",
      ]);
      await refused(endpoint.id, { scaling: { type: "REQUEST_COUNT", requestCount: 3 }, workers: { idleTimeout: 60 } });
      // Back on QUEUE_DELAY, the idle timeout it had shows again.
      expect((await patched(endpoint.id, { scaling: { type: "QUEUE_DELAY", queueDelay: 1 } })).workers).toEqual({ min: 0, max: 3, idleTimeout: 30 });
    });
  });

  test("unknown data centers and volumes are 400, as on create", async () => {
    const endpoint = await created(h, gpuEndpoint());
    expect((await refused(endpoint.id, { dataCenterIds: ["US-TX-3", "XX-1"] })).detail).toBe("dataCenterIds: unknown data center XX-1");
    expect((await refused(endpoint.id, { networkVolumes: ["vol_other_ca"] })).detail).toBe("networkVolumes: no network volume vol_other_ca on this account");
    expect((await patched(endpoint.id, { dataCenterIds: ["US-TX-3"], networkVolumes: ["vol_dev_tx"] })).networkVolumes).toEqual(["vol_dev_tx"]);
  });

  describe("templateId applies a serverless template's container settings once", () => {
    test("body members win, env merges per key and replaces the endpoint's; no link is kept", async () => {
      const endpoint = await created(h, gpuEndpoint({ env: { OLD: "1" }, disk: 10 }));
      const template = (await h.post("/v2/templates", { name: "w", image: "me/tpl:1", serverless: true, disk: 30, env: { T: "t", SHARED: "template" }, ports: ["8000/http"] })).body;
      const applied = await patched(endpoint.id, { templateId: template.id, image: "me/body:2", env: { SHARED: "body" } });
      expect(applied).toMatchObject({ image: "me/body:2", disk: 30, ports: ["8000/http"], env: { T: "t", SHARED: "body" } });
      expect(applied).not.toHaveProperty("templateId");
      // Later edits of the template do not reach the endpoint.
      expect((await h.patch(`/v2/templates/${template.id}`, { image: "me/tpl:2", disk: 50 })).status).toBe(200);
      expect((await h.get(`/v2/serverless/${endpoint.id}`)).body).toMatchObject({ image: "me/body:2", disk: 30 });
    });

    test("an unknown or another account's template is 404; a pod template is 422", async () => {
      const endpoint = await created(h, gpuEndpoint());
      expect((await h.patch(`/v2/serverless/${endpoint.id}`, { templateId: "tpl_other_private" })).status).toBe(404);
      expect((await h.patch(`/v2/serverless/${endpoint.id}`, { templateId: "tpl_pytorch" })).status).toBe(422);
      expect((await h.get(`/v2/serverless/${endpoint.id}`)).body.image).toBe("me/worker:1");
    });
  });
});

describe("network volumes an endpoint lists", () => {
  test("cannot be deleted while it does (409 naming the endpoint); can once it no longer does", async () => {
    const endpoint = await created(h, gpuEndpoint({ networkVolumes: ["vol_dev_tx"] }));
    const refusedDelete = await h.del("/v2/network-volumes/vol_dev_tx");
    expect(refusedDelete.status).toBe(409);
    expect(refusedDelete.body.detail).toContain(`serverless endpoint ${endpoint.id}`);
    await patched(endpoint.id, { networkVolumes: [] });
    expect((await h.del("/v2/network-volumes/vol_dev_tx")).status).toBe(204);
  });

  test("deleting the endpoint releases the volume", async () => {
    const endpoint = await created(h, gpuEndpoint({ networkVolumes: ["vol_dev_ro"] }));
    expect((await h.del("/v2/network-volumes/vol_dev_ro")).status).toBe(409);
    expect((await h.del(`/v2/serverless/${endpoint.id}`)).status).toBe(204);
    expect((await h.del("/v2/network-volumes/vol_dev_ro")).status).toBe(204);
  });
});
