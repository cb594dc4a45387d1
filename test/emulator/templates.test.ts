/** Template rules 1–6 of pod create, the expanded-size 413, and the template endpoints. */
import { cpuPod, freshFixture, GPU, gpuPod, useEmulator } from "./harness";

const h = useEmulator({ freezeClock: true }, freshFixture());

const fromTemplate = (templateId: string, overrides: Record<string, unknown> = {}) =>
  h.post("/v2/pods", { name: "from-template", templateId, gpu: { id: GPU.rtx4090 }, ...overrides });

test("rule 1: the template's container settings, mount, SSH/Jupyter flags and CUDA set are resolved", async () => {
  const template = (await h.get("/v2/templates/tpl_pytorch")).body;
  const response = await fromTemplate("tpl_pytorch");
  expect(response.status).toBe(201);
  const pod = response.body;
  expect(pod).toMatchObject({
    image: template.image,
    disk: template.disk,
    ports: template.ports,
    mounts: { persistent: template.mounts.persistent },
    registry: null,
    template: null,
  });
  expect(pod.env.JUPYTER_DIR).toBe("/workspace");
  expect(pod.env.PUBLIC_KEY).toContain("ssh-ed25519");
  expect(pod.env.JUPYTER_PASSWORD).toMatch(/^\S{8,}$/); // generated, not empty
  expect(template.allowedCudaVersions).toContain(pod.cudaVersion);
});

test("rule 1 with a private template: registry and the exec-form command come along", async () => {
  const pod = (await fromTemplate("tpl_dev_trainer")).body;
  expect(pod.registry).toBe("reg_dev_ghcr");
  expect(pod.entrypoint).toEqual(["python", "-m", "trainer"]);
  expect(pod.cmd).toEqual(["--config", "/workspace/config.yaml"]);
  expect(pod.cudaVersion).toBe("12.8");
  expect(pod.env.PUBLIC_KEY).toContain("ssh-ed25519");
  expect(pod.env.JUPYTER_PASSWORD).toBeUndefined();
});

test("rule 2: body fields override the template's; env merges per key with the body winning", async () => {
  const pod = (
    await fromTemplate("tpl_pytorch", {
      image: "custom/image:1",
      disk: 5,
      ports: ["22/tcp"],
      env: { JUPYTER_DIR: "/mine", EXTRA: "1" },
      startJupyter: false,
      mounts: {},
    })
  ).body;
  expect(pod).toMatchObject({ image: "custom/image:1", disk: 5, ports: ["22/tcp"], mounts: {} });
  expect(pod.env).toMatchObject({ JUPYTER_DIR: "/mine", EXTRA: "1" });
  expect(pod.env.JUPYTER_PASSWORD).toBeUndefined();
});

test("rule 3: either CUDA field in the body replaces the template's constraint entirely", async () => {
  // tpl_pytorch allows 12.4/12.6/12.8; only a 12.9 machine satisfies this floor.
  await h.control.setCapacity({ dataCenterId: "US-TX-3", gpuTypeId: GPU.h100, cloud: "SECURE", machines: [{ cudaVersion: "12.9", gpus: 8, ramPerGpu: 251, vcpuPerGpu: 24 }] });
  const floor = await fromTemplate("tpl_pytorch", { gpu: { id: GPU.h100, minCudaVersion: "12.9" }, dataCenterIds: ["US-TX-3"] });
  expect(floor.status).toBe(201);
  expect(floor.body.cudaVersion).toBe("12.9");

  // tpl_comfyui allows only 12.8; an explicit [] lifts it, so the 12.2 A5000 machine qualifies.
  expect((await fromTemplate("tpl_comfyui", { gpu: { id: GPU.a5000 }, dataCenterIds: ["US-TX-3"] })).status).toBe(400);
  const lifted = await fromTemplate("tpl_comfyui", { gpu: { id: GPU.a5000, allowedCudaVersions: [] }, dataCenterIds: ["US-TX-3"] });
  expect(lifted.status).toBe(201);
  expect(lifted.body.cudaVersion).toBe("12.2");
});

test("rule 4: a CPU pod ignores the CUDA constraint and does not inherit the persistent mount", async () => {
  const response = await h.post("/v2/pods", cpuPod({ image: undefined, templateId: "tpl_pytorch" }));
  expect(response.status).toBe(201);
  expect(response.body.mounts).toEqual({});
  expect(response.body.image).toMatch(/pytorch/);
});

test("rule 5: later template edits do not reach the pod, and the pod keeps no link", async () => {
  const template = (await h.post("/v2/templates", { name: "mine", image: "me/app:1", env: { V: "1" }, startSsh: false, startJupyter: false })).body;
  const pod = (await fromTemplate(template.id)).body;
  expect((await h.patch(`/v2/templates/${template.id}`, { image: "me/app:2", env: { V: "2" } })).status).toBe(200);
  const again = (await h.get(`/v2/pods/${pod.id}`)).body;
  expect(again).toMatchObject({ image: "me/app:1", env: { V: "1" }, template: null });
});

test("rule 6: own and public templates resolve; unknown or another account's are 404; serverless is 422", async () => {
  expect((await fromTemplate("tpl_comfyui")).status).toBe(201);
  expect((await fromTemplate("tpl_unknown")).status).toBe(404);
  expect((await fromTemplate("tpl_other_private")).status).toBe(404);
  const serverless = await fromTemplate("tpl_vllm_worker");
  expect(serverless.status).toBe(422);
  expect(serverless.body.errors).toEqual([expect.stringMatching(/^templateId: .*serverless/)]);
  expect((await fromTemplate("tpl_dev_embedder")).status).toBe(422);
});

test("the expanded request (body plus template) over 102400 bytes is 413, though each part fits", async () => {
  const template = await h.post("/v2/templates", { name: "big", image: "me/big:1", env: { BIG: "t".repeat(90000) } });
  expect(template.status).toBe(201);
  const env = { SMALL: "b".repeat(20000) };
  expect((await h.post("/v2/pods", gpuPod({ env }))).status).toBe(201);
  const response = await fromTemplate(template.body.id, { env });
  expect(response.status).toBe(413);
  expect(response.body.detail).toMatch(/expanded/);
  expect((await h.get("/v2/pods")).body.pods).toHaveLength(1);
});

describe("template endpoints", () => {
  test("the public catalog lists official templates by default and never another account's registry", async () => {
    const official = (await h.get("/v2/catalog/templates")).body.templates;
    expect(official.map((t: { id: string }) => t.id)).toEqual(["tpl_pytorch", "tpl_comfyui", "tpl_ubuntu", "tpl_vllm_worker"]);
    expect(official.find((t: { id: string }) => t.id === "tpl_vllm_worker").serverless).toBe(true);
    const community = (await h.get("/v2/catalog/templates?source=community")).body.templates;
    expect(community.map((t: { id: string }) => t.id)).toEqual(["tpl_rocm"]);
  });

  test("own templates are listed, created with defaults, updated and deleted", async () => {
    const own = (await h.get("/v2/templates")).body.templates.map((t: { id: string }) => t.id);
    expect(own).toEqual(["tpl_dev_trainer", "tpl_dev_embedder"]);
    const created = await h.post("/v2/templates", { name: "t", image: "i:1", cmd: ["run"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ startSsh: true, startJupyter: true, public: false, serverless: false, category: "NVIDIA", args: '{"cmd":["run"]}' });
    expect((await h.post("/v2/templates", { name: "t", image: "i", mounts: { network: [] } })).status).toBe(422);
    expect((await h.del(`/v2/templates/${created.body.id}`)).status).toBe(204);
    expect((await h.get(`/v2/templates/${created.body.id}`)).status).toBe(404);
    expect((await h.del("/v2/templates/tpl_pytorch")).status).toBe(404);
  });

  describe("PATCH changes only the members sent (reference OpenAPI)", () => {
    const persistent = { size: 30, path: "/workspace" };
    const own = async () =>
      (await h.post("/v2/templates", { name: "t", image: "i:1", env: { A: "1" }, mounts: { persistent }, allowedCudaVersions: ["12.4", "12.8"] })).body;

    test("an omitted member is unchanged; a sent one replaces it (env is the new map)", async () => {
      const before = await own();
      const patched = await h.patch(`/v2/templates/${before.id}`, { name: "renamed", env: { B: "2" } });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({ ...before, name: "renamed", env: { B: "2" } });
      expect((await h.get(`/v2/templates/${before.id}`)).body).toEqual(patched.body);
    });

    test("mounts omitted or {} leaves the persistent mount; a sent persistent mount replaces it", async () => {
      const before = await own();
      expect((await h.patch(`/v2/templates/${before.id}`, { image: "i:2" })).body.mounts).toEqual({ persistent });
      expect((await h.patch(`/v2/templates/${before.id}`, { mounts: {} })).body.mounts).toEqual({ persistent });
      const bigger = { size: 50, path: "/data" };
      expect((await h.patch(`/v2/templates/${before.id}`, { mounts: { persistent: bigger } })).body.mounts).toEqual({ persistent: bigger });
      expect((await h.patch(`/v2/templates/${before.id}`, { mounts: { network: [] } })).status).toBe(422);
    });

    test("allowedCudaVersions: [] clears the constraint; omitted keeps it", async () => {
      const before = await own();
      expect((await h.patch(`/v2/templates/${before.id}`, { name: "x" })).body.allowedCudaVersions).toEqual(["12.4", "12.8"]);
      expect((await h.patch(`/v2/templates/${before.id}`, { allowedCudaVersions: [] })).body.allowedCudaVersions).toEqual([]);
    });

    test("only the owner's templates can be changed (a public one is 404)", async () => {
      expect((await h.patch("/v2/templates/tpl_pytorch", { name: "mine now" })).status).toBe(404);
      expect((await h.patch("/v2/templates/tpl_other_private", { name: "mine now" })).status).toBe(404);
    });
  });
});
