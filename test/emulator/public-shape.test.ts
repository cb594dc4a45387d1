/**
 * The `public` answer shape: every answer a client reads conforms to the public OpenAPI (with the
 * declared nulls beyond it), each transformation is there, requests and problems are unchanged,
 * and pod log streams use whole-second ids and end with 200 instead of a 409.
 */
import { EXTRA, RUNTIME_WARMUP_SECONDS } from "../../emulator/shape/public-views";
import { backfillOf, cpuPod, createdPod, createdSandbox, freshFixture, GPU, gpuPod, KEYS, openLogStream, podRunningFor, runningPod, runningSandbox, useEmulator, withEmulator } from "./harness";
import { publicViolations } from "./openapi";

const h = useEmulator({ shape: "public", freezeClock: "2030-05-01T08:00:00Z" }, freshFixture("2030-05-01T08:00:00Z"));

const endpointBody = (overrides: Record<string, unknown> = {}) => ({
  name: "ep",
  type: "QUEUE",
  scaling: { type: "QUEUE_DELAY", queueDelay: 1 },
  image: "runpod/worker:1",
  gpu: { pools: ["ADA_24"] },
  ...overrides,
});

async function ok(path: string, key?: string): Promise<any> {
  const response = await h.get(path, { key });
  expect(response.status).toBe(200);
  return response.body;
}

describe("answers conform to the public OpenAPI", () => {
  test("the check is real: a member the document requires, missing or mistyped, is a violation", async () => {
    const pod = await createdPod(h);
    expect(publicViolations("Pod", pod)).toEqual([]);
    const { locked: _locked, ...unlocked } = pod;
    expect(publicViolations("Pod", unlocked)).toEqual([expect.stringContaining("locked")]);
    expect(publicViolations("Pod", { ...pod, status: "SLEEPING" })).toEqual([expect.stringContaining("status")]);
    expect(publicViolations("Pod", { ...pod, mounts: { persistent: null, extra: 1 } })).toEqual([expect.stringContaining("extra")]);
  });

  test("pods: list, get, create, update, action, in every status and kind", async () => {
    const created = await h.post("/v2/pods", gpuPod({ ports: ["22/tcp", "8888/http"], mounts: { persistent: { size: 20, path: "/workspace" } } }));
    expect(created.status).toBe(201);
    expect(publicViolations("Pod", created.body)).toEqual([]);
    const cpu = await h.post("/v2/pods", cpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] }, dataCenterIds: ["US-TX-3"] }));
    expect(cpu.status).toBe(201);
    expect(publicViolations("Pod", cpu.body)).toEqual([]);
    await h.control.advance(250);
    expect(publicViolations("Pod", await ok(`/v2/pods/${created.body.id}`))).toEqual([]); // warming up
    await h.control.advance(RUNTIME_WARMUP_SECONDS * 1000);
    expect(publicViolations("Pod", await ok(`/v2/pods/${created.body.id}`))).toEqual([]); // full runtime
    const patched = await h.patch(`/v2/pods/${created.body.id}`, { name: "renamed" });
    expect(patched.status).toBe(200);
    expect(publicViolations("Pod", patched.body)).toEqual([]);
    const stopped = await h.post(`/v2/pods/${created.body.id}/action`, { action: "stop" });
    expect(stopped.status).toBe(200);
    expect(publicViolations("Pod", stopped.body)).toEqual([]);
    const list = await ok("/v2/pods?includeClusterPods=true");
    expect(list.pods.length).toBeGreaterThanOrEqual(4); // the two new pods and the fixture's cluster members
    expect(publicViolations("Pod", list, { wrapper: "ListPodsResponse", member: "pods" })).toEqual([]);
    expect(publicViolations("Pod", await ok("/v2/pods", KEYS.team), { wrapper: "ListPodsResponse", member: "pods" })).toEqual([]);
  });

  test("templates, network volumes, SSH keys", async () => {
    expect(publicViolations("Template", await ok("/v2/templates"), { wrapper: "ListTemplatesResponse", member: "templates" })).toEqual([]);
    expect(publicViolations("Template", await ok("/v2/catalog/templates"), { wrapper: "ListTemplatesResponse", member: "templates" })).toEqual([]);
    expect(publicViolations("Template", await ok("/v2/templates/tpl_dev_trainer"))).toEqual([]);
    const template = await h.post("/v2/templates", { name: "mine", image: "python:3.12-slim" });
    expect(template.status).toBe(201);
    expect(publicViolations("Template", template.body)).toEqual([]);
    expect(publicViolations("NetworkVolume", await ok("/v2/network-volumes"), { wrapper: "ListNetworkVolumesResponse", member: "networkVolumes" })).toEqual([]);
    const volume = await h.post("/v2/network-volumes", { name: "v", size: 20, dataCenter: "US-TX-3" });
    expect(volume.status).toBe(201);
    expect(publicViolations("NetworkVolume", volume.body)).toEqual([]);
    expect(publicViolations("SshKeys", await ok("/v2/account/ssh-keys"))).toEqual([]);
  });

  test("catalog: GPU and CPU types with and without availability, data centers", async () => {
    const gpus = { wrapper: "ListGpuTypesResponse", member: "gpus" };
    expect(publicViolations("GpuType", await ok("/v2/catalog/gpus"), gpus)).toEqual([]);
    expect(publicViolations("GpuType", await ok("/v2/catalog/gpus?include=AVAILABILITY&product=POD"), gpus)).toEqual([]);
    expect(publicViolations("GpuType", await ok(`/v2/catalog/gpus/${encodeURIComponent(GPU.mi300x)}`))).toEqual([]);
    const cpus = { wrapper: "ListCpuTypesResponse", member: "cpus" };
    expect(publicViolations("CpuType", await ok("/v2/catalog/cpus"), cpus)).toEqual([]);
    expect(publicViolations("CpuType", await ok("/v2/catalog/cpus?include=AVAILABILITY&product=POD"), cpus)).toEqual([]);
    const dcs = { wrapper: "ListDataCentersResponse", member: "dataCenters" };
    expect(publicViolations("DataCenter", await ok("/v2/catalog/datacenters"), dcs)).toEqual([]);
    expect(publicViolations("DataCenter", await ok("/v2/catalog/datacenters?include=GPU_AVAILABILITY,CPU_AVAILABILITY"), dcs)).toEqual([]);
  });

  test("serverless endpoints, GPU and CPU: create, get, list, update", async () => {
    const created = await h.post("/v2/serverless", endpointBody());
    expect(created.status).toBe(201);
    expect(publicViolations("Endpoint", created.body)).toEqual([]);
    expect(publicViolations("Endpoint", await ok(`/v2/serverless/${created.body.id}`))).toEqual([]);
    const cpu = await h.post("/v2/serverless", endpointBody({ gpu: undefined, cpu: [{ id: "cpu3c", vcpuCount: 4 }, { id: "cpu5g", vcpuCount: 8 }] }));
    expect(cpu.status).toBe(201);
    expect(publicViolations("Endpoint", cpu.body)).toEqual([]);
    expect(publicViolations("Endpoint", await ok(`/v2/serverless/${cpu.body.id}`))).toEqual([]);
    expect(publicViolations("Endpoint", await ok("/v2/serverless"), { wrapper: "ListEndpointsResponse", member: "endpoints" })).toEqual([]);
    const gpuPatched = await h.patch(`/v2/serverless/${created.body.id}`, { gpu: { minCudaVersion: "12.4", count: 2 }, scaling: { type: "REQUEST_COUNT", requestCount: 3 } });
    expect(gpuPatched.status).toBe(200);
    expect(publicViolations("Endpoint", gpuPatched.body)).toEqual([]);
    const cpuPatched = await h.patch(`/v2/serverless/${cpu.body.id}`, { cpu: [{ id: "cpu3m", vcpuCount: 2 }], env: {} });
    expect(cpuPatched.status).toBe(200);
    expect(publicViolations("Endpoint", cpuPatched.body)).toEqual([]);
  });

  test("serverless workers: initializing, ready, restarted by a PATCH, CPU, none", async () => {
    const workers = { wrapper: "ListEndpointWorkersResponse", member: "workers" };
    const gpu = (await h.post("/v2/serverless", endpointBody({ workers: { min: 2, max: 3 } }))).body;
    const cpu = (await h.post("/v2/serverless", endpointBody({ gpu: undefined, cpu: [{ id: "cpu3c", vcpuCount: 4 }], workers: { min: 1, max: 1 } }))).body;
    const none = (await h.post("/v2/serverless", endpointBody())).body;
    const check = async (id: string) => {
      const answer = await ok(`/v2/serverless/${id}/workers`);
      expect(publicViolations("Worker", answer, workers)).toEqual([]);
      return answer;
    };
    expect((await check(gpu.id)).workers[0].status).toBe("INITIALIZING");
    await h.control.advance(5000);
    const ready = await check(gpu.id);
    expect(ready.workers[0]).toMatchObject({ status: "IDLE", uptimeSeconds: expect.any(Number), [EXTRA.resource]: expect.any(Number) });
    expect(ready).toHaveProperty(EXTRA.wrapper, null);
    await h.patch(`/v2/serverless/${gpu.id}`, { image: "runpod/worker:2" });
    expect((await check(gpu.id)).endpointVersion).toBe(2);
    expect((await check(cpu.id)).workers[0]).toMatchObject({ gpuCount: 0, gpuTypeId: null });
    expect((await check(none.id)).workers).toEqual([]);
    // The check is real: a status the document does not know, or a missing summary, is a violation.
    expect(publicViolations("Worker", { ...ready, workers: [{ ...ready.workers[0], status: "SLEEPING" }] }, workers)).not.toEqual([]);
    const { summary: _summary, ...withoutSummary } = ready;
    expect(publicViolations("Worker", withoutSummary, workers)).not.toEqual([]);
  });

  test("clusters: create, get, list, rename and member pods, before and after ranks, running", async () => {
    const body = { name: "c", type: "RAY", image: "rayproject/ray:2.40.0-py311-gpu", ports: ["22/tcp"], compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 } };
    const created = await h.post("/v2/clusters", body);
    expect(created.status).toBe(201);
    expect(publicViolations("Cluster", created.body)).toEqual([]);
    const id = created.body.id;
    const clusters = { wrapper: "ListClustersResponse", member: "clusters" };
    const pods = { wrapper: "ListPodsResponse", member: "pods" };
    const check = async () => {
      expect(publicViolations("Cluster", await ok(`/v2/clusters/${id}`))).toEqual([]);
      expect(publicViolations("Cluster", await ok("/v2/clusters"), clusters)).toEqual([]);
      expect(publicViolations("Pod", await ok(`/v2/clusters/${id}/pods`), pods)).toEqual([]);
    };
    await check(); // ranks null, no VXLAN yet
    await h.control.advance(60);
    await check(); // ranked, still provisioning
    await h.control.advance(200 + RUNTIME_WARMUP_SECONDS * 1000);
    expect((await ok(`/v2/clusters/${id}`)).primary.sshEndpoint).toEqual(expect.any(String));
    await check(); // running, with the primary's SSH endpoint
    const renamed = await h.patch(`/v2/clusters/${id}`, { name: "renamed" });
    expect(renamed.status).toBe(200);
    expect(publicViolations("Cluster", renamed.body)).toEqual([]);
  });

  test("the check is real for clusters: a missing summary or a member the closed network lacks is a violation", async () => {
    const fixture = await ok("/v2/clusters/clu_dev_ray");
    expect(publicViolations("Cluster", fixture)).toEqual([]);
    const { pods: _pods, ...withoutPods } = fixture;
    expect(publicViolations("Cluster", withoutPods)).toEqual([expect.stringContaining("pods")]);
    expect(publicViolations("Cluster", { ...fixture, network: { ...fixture.network, mtu: 1450 } })).toEqual([expect.stringContaining("mtu")]);
  });

  test("the check is real for endpoints: a CPU choice without memory, or an empty cpu list, is a violation", async () => {
    const cpu = (await h.post("/v2/serverless", endpointBody({ gpu: undefined, cpu: [{ id: "cpu3c", vcpuCount: 4 }] }))).body;
    expect(publicViolations("Endpoint", { ...cpu, cpu: [{ id: "cpu3c", vcpuCount: 4 }] })).toEqual([expect.stringContaining("memory")]);
    expect(publicViolations("Endpoint", { ...cpu, cpu: [] })).not.toEqual([]);
  });

  test("registry credentials: create, get, list", async () => {
    const created = await h.post("/v2/registries", { name: "hub", username: "me", password: "pw" });
    expect(created.status).toBe(201);
    expect(publicViolations("Registry", created.body)).toEqual([]);
    expect(publicViolations("Registry", await ok(`/v2/registries/${created.body.id}`))).toEqual([]);
    const list = await ok("/v2/registries");
    expect(list.registries).toHaveLength(2); // the fixture's and this one
    expect(publicViolations("Registry", list, { wrapper: "ListRegistriesResponse", member: "registries" })).toEqual([]);
  });
});

describe("pods", () => {
  test("seed-only members are omitted: cmd, entrypoint, gpu.vcpuCount, gpu.memory", async () => {
    const pod = await runningPod(h, gpuPod({ cmd: ["python", "train.py"] }));
    expect(pod.args).not.toBe("");
    expect(pod).not.toHaveProperty("cmd");
    expect(pod).not.toHaveProperty("entrypoint");
    expect(pod.gpu).toEqual({ id: GPU.rtx4090, count: 1, [EXTRA.nested]: "gpu" });
  });

  test("mounts.persistent is null when the pod has none, kept when it has one; mounts gets no unknown member", async () => {
    const bare = await createdPod(h);
    expect(bare.mounts).toEqual({ persistent: null });
    const withNetwork = await createdPod(h, gpuPod({ mounts: { network: [{ volumeId: "vol_dev_tx", path: "/data" }] } }));
    expect(withNetwork.mounts).toEqual({ persistent: null, network: [{ volumeId: "vol_dev_tx", path: "/data" }] });
    const persistent = { size: 30, path: "/workspace" };
    expect((await createdPod(h, gpuPod({ mounts: { persistent } }))).mounts).toEqual({ persistent });
  });

  test(`runtime is thinned for the first ${RUNTIME_WARMUP_SECONDS} s of a run: uptime only, ports null`, async () => {
    const pod = await runningPod(h, gpuPod({ ports: ["22/tcp", "8888/http"] }));
    expect(pod.runtime).toEqual({ uptime: 0, ports: null, [EXTRA.nested]: "runtime" });
    await h.control.advance(RUNTIME_WARMUP_SECONDS * 1000);
    const later = await ok(`/v2/pods/${pod.id}`);
    expect(later.runtime).toMatchObject({
      uptime: RUNTIME_WARMUP_SECONDS,
      cpu: { util: expect.any(Number) },
      memory: { util: expect.any(Number) },
      gpus: [{ util: expect.any(Number), memoryUtil: expect.any(Number) }],
      ports: [
        { private: 22, public: expect.any(Number), type: "tcp", ip: expect.any(String) },
        { private: 8888, public: expect.any(Number), type: "http", ip: "127.0.0.1" },
      ],
    });
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    expect((await ok(`/v2/pods/${pod.id}`)).runtime).toBeNull();
  });

  test("unknown members at every level: list wrapper, resource, open nested objects; the same state gives the same answer", async () => {
    const pod = await runningPod(h, gpuPod({ ports: ["22/tcp"], startSsh: true }));
    const list = await ok("/v2/pods");
    expect(list).toHaveProperty(EXTRA.wrapper, null);
    const listed = list.pods.find((p: { id: string }) => p.id === pod.id);
    expect(listed[EXTRA.resource]).toEqual(expect.any(Number));
    expect(listed.ssh[EXTRA.nested]).toBe("ssh");
    expect(listed.ssh.proxy[EXTRA.nested]).toBe("proxy");
    expect(listed.ssh.direct[EXTRA.nested]).toBe("direct");
    expect(listed.globalNetworking[EXTRA.nested]).toBe("globalNetworking");
    expect(await ok(`/v2/pods/${pod.id}`)).toEqual(listed);
    // A change of state is a new revision.
    const renamed = (await h.patch(`/v2/pods/${pod.id}`, { name: "renamed" })).body;
    expect(renamed[EXTRA.resource]).not.toBe(listed[EXTRA.resource]);
  });

  test("the cluster membership object, closed in the document, gets no unknown member", async () => {
    const team = await ok("/v2/pods?includeClusterPods=true");
    const member = team.pods.find((p: { cluster?: object }) => p.cluster);
    expect(member.cluster).not.toHaveProperty(EXTRA.nested);
  });

  test("clusters get the resource's unknown member only: their nested objects are closed in the document", async () => {
    const list = await ok("/v2/clusters");
    expect(list).toHaveProperty(EXTRA.wrapper, null);
    const cluster = list.clusters[0];
    expect(cluster[EXTRA.resource]).toEqual(expect.any(Number));
    for (const member of ["compute", "pods", "network", "primary"]) expect(cluster[member]).not.toHaveProperty(EXTRA.nested);
    const members = await ok("/v2/clusters/clu_dev_ray/pods");
    expect(members.pods[0].ssh[EXTRA.nested]).toBe("ssh"); // member pods are rewritten as pods
    expect(members.pods[0]).not.toHaveProperty("cmd");
  });
});

describe("catalog and endpoints: optional members null where the seed leaves them out", () => {
  test("GPU types: availability null unless asked for; price.serverless null without a serverless pool", async () => {
    const plain = await ok(`/v2/catalog/gpus/${encodeURIComponent(GPU.mi300x)}`);
    expect(plain.availability).toBeNull();
    expect(plain.price.serverless).toBeNull();
    expect(plain.price[EXTRA.nested]).toBe("price");
    const asked = await ok(`/v2/catalog/gpus/${encodeURIComponent(GPU.rtx4090)}?include=AVAILABILITY&product=POD`);
    expect(asked.availability).toMatch(/^(LOW|MEDIUM|HIGH)$/);
    expect(asked.price.serverless).toEqual(expect.any(Number));
    expect(asked.dataCenters[0][EXTRA.nested]).toBe("dataCenters");
  });

  test("CPU types and data centers: availability lists null unless asked for", async () => {
    expect((await ok("/v2/catalog/cpus/cpu3c")).availability).toBeNull();
    const dc = await ok("/v2/catalog/datacenters/US-TX-3");
    expect(dc).toMatchObject({ gpuAvailability: null, cpuAvailability: null });
    const asked = await ok("/v2/catalog/datacenters/US-TX-3?include=GPU_AVAILABILITY");
    expect(asked.gpuAvailability.length).toBeGreaterThan(0);
    expect(asked.cpuAvailability).toBeNull();
  });

  test("endpoints: an empty env is null, a set one is kept", async () => {
    expect((await h.post("/v2/serverless", endpointBody())).body.env).toBeNull();
    expect((await h.post("/v2/serverless", endpointBody({ env: { A: "1" } }))).body.env).toEqual({ A: "1" });
  });

  test("CPU endpoints: gpu stays null (the document allows it) and each cpu choice is an open object", async () => {
    const cpu = (await h.post("/v2/serverless", endpointBody({ gpu: undefined, cpu: [{ id: "cpu3c", vcpuCount: 4 }] }))).body;
    expect(cpu.gpu).toBeNull();
    expect(cpu.cpu).toEqual([{ id: "cpu3c", vcpuCount: 4, memory: 8, [EXTRA.nested]: "cpu" }]);
  });

  test("resources outside the document (sandboxes, Hub) get the unknown members only", async () => {
    const sandbox = await runningSandbox(h);
    expect(sandbox[EXTRA.resource]).toEqual(expect.any(Number));
    expect(sandbox.compute).not.toHaveProperty(EXTRA.nested);
    const repos = await ok("/v2/hub/repos");
    expect(repos).toHaveProperty(EXTRA.wrapper, null);
    expect(repos.repos[0][EXTRA.resource]).toEqual(expect.any(Number));
  });
});

describe("requests and problems do not change", () => {
  test("the same invalid body gets the same 422 in both shapes", async () => {
    const body = gpuPod({ cpu: { id: "cpu3c", vcpuCount: 3 }, disk: 0, bogus: true });
    const there = await withEmulator({ shape: "seed", freezeClock: true }, (seed) => seed.post("/v2/pods", body));
    const here = await h.post("/v2/pods", body);
    expect(there.status).toBe(422);
    expect(here.status).toBe(422);
    expect(here.body).toEqual(there.body);
  });

  test("problems carry no unknown member", async () => {
    const missing = await h.get("/v2/pods/pod_nope");
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body).sort()).toEqual(["detail", "status", "title"]);
  });
});

describe("pod log streams", () => {
  const SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

  const backfill = (path: string, headers?: Record<string, string>) => backfillOf(h, path, headers);

  test("ids are the line's second; lines share it; data.ts keeps the exact time", async () => {
    const events = await backfill(`/v2/pods/${await podRunningFor(h, 5)}/logs?tail=5000`);
    for (const e of events) {
      expect(e.id).toMatch(SECOND);
      expect(e.id).toBe(`${e.data.ts.slice(0, 19)}Z`);
    }
    const perSecond = new Map<string, number>();
    for (const e of events) perSecond.set(e.id, (perSecond.get(e.id) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeGreaterThan(1);
  });

  test("a resume from a whole-second id sends that whole second again, then what follows", async () => {
    const id = await podRunningFor(h, 5);
    const all = await backfill(`/v2/pods/${id}/logs?tail=5000`);
    const shared = all.find((e, i) => i > 0 && all[i - 1].id === e.id)!;
    const from = all.findIndex((e) => e.id === shared.id);
    const resumed = await backfill(`/v2/pods/${id}/logs`, { "Last-Event-ID": shared.id });
    expect(resumed.map((e) => e.data)).toEqual(all.slice(from).map((e) => e.data));
  });

  test("no container to stream: 200 with the history there is, then the body ends (no 409)", async () => {
    const provisioning = await createdPod(h);
    const early = await openLogStream(h, `/v2/pods/${provisioning.id}/logs`);
    expect(early.status).toBe(200);
    await early.end();

    const pod = await runningPod(h);
    await h.control.advance(3000);
    await h.post(`/v2/pods/${pod.id}/action`, { action: "stop" });
    const stopped = await openLogStream(h, `/v2/pods/${pod.id}/logs?tail=5000`);
    expect(stopped.status).toBe(200);
    expect(stopped.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await stopped.end();
    expect(stopped.events.at(-1)!.data.line).toMatch(/EXITED/);
    expect((await openLogStream(h, "/v2/pods/pod_nope/logs")).status).toBe(404);
  });

  test("sandbox streams keep the seed's framing and 409 codes (the public document has no sandboxes)", async () => {
    const creating = await createdSandbox(h);
    expect((await openLogStream(h, `/v2/sandboxes/${creating.id}/logs`)).problem.code).toBe("sandbox_starting");
    const sandbox = await runningSandbox(h);
    await h.control.advance(2000);
    const events = await backfill(`/v2/sandboxes/${sandbox.id}/logs`);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.id).toBe(e.data.ts);
  });
});
