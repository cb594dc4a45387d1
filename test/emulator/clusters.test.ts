/**
 * Clusters (`/v2/clusters`): members as pods through their lifecycle (ranks, roles and overlay
 * addresses assigned during provisioning), the cluster view read off them, validation (422 with
 * every violation, the contract's 400s), all-or-nothing placement, rename, delete, the member
 * rules of the pod endpoints, the control plane's faults, and persistence.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useScratch } from "../helpers/scratch";
import { backfillOf, createdPod, expectViolationsIncluding, freshFixture, GPU, KEYS, useEmulator, withEmulator, type Harness } from "./harness";

const h = useEmulator({ freezeClock: "2030-06-01T00:00:00Z" }, freshFixture("2030-06-01T00:00:00Z"));
const { tempDir } = useScratch("compute-clusters-");

/** A valid cluster body: 3 nodes of 2 × RTX 4090 (US-TX-3's first machine has room for exactly these). */
function clusterBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "trainer",
    type: "TRAINING",
    compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 2, podCount: 3 },
    image: "pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime",
    ...overrides,
  };
}

async function createdCluster(body: Record<string, unknown> = clusterBody(), on: Harness = h, key?: string): Promise<any> {
  const response = await on.post("/v2/clusters", body, { key });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const cluster = async (id: string, on: Harness = h) => (await on.get(`/v2/clusters/${id}`)).body;
const members = async (id: string, on: Harness = h): Promise<any[]> => (await on.get(`/v2/clusters/${id}/pods`)).body.pods;
const podIds = async (query = "?includeClusterPods=true") => ((await h.get(`/v2/pods${query}`)).body.pods as Array<{ id: string }>).map((p) => p.id);

describe("create and the members' lifecycle", () => {
  test("members are pods of the request's configuration, PROVISIONING with null ranks, then ranked, then RUNNING", async () => {
    const body = clusterBody({
      type: "SLURM",
      args: "python train.py",
      disk: 40,
      env: { WANDB_PROJECT: "research" },
      ports: ["22/tcp", "8888/http"],
      startSsh: true,
      startJupyter: true,
      dataCenterIds: ["US-TX-3"],
    });
    const created = await createdCluster(body);
    expect(created).toEqual({
      id: expect.any(String),
      name: "trainer",
      type: "SLURM",
      compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 2, podCount: 3 },
      dataCenterId: "US-TX-3",
      pods: { total: 3, byStatus: { PROVISIONING: 3 } },
      network: { cidr: "10.66.0.0/16" }, // the fixture's Ray cluster holds 10.65
      primary: { podId: expect.any(String), status: "PROVISIONING" },
      createdAt: "2030-06-01T00:00:00.000Z",
    });

    const provisioning = await members(created.id);
    expect(provisioning.map((p) => p.name)).toEqual(["trainer-0", "trainer-1", "trainer-2"]);
    expect(created.primary.podId).toBe(provisioning[0].id);
    const password = provisioning[0].env.JUPYTER_PASSWORD;
    for (const pod of provisioning) {
      expect(pod).toMatchObject({
        status: "PROVISIONING",
        image: body.image,
        args: "python train.py",
        disk: 40,
        ports: ["22/tcp", "8888/http"],
        gpu: { id: GPU.rtx4090, count: 2 },
        cloud: "SECURE",
        dataCenterId: "US-TX-3",
        cost: 1.38, // a GPU pod of 2 × 0.69 on SECURE
        cluster: { id: created.id, rank: null },
      });
      expect(pod.cluster).toEqual({ id: created.id, rank: null });
      // One injection for the cluster: the account's keys, one generated password.
      expect(pod.env).toEqual({ WANDB_PROJECT: "research", PUBLIC_KEY: expect.stringContaining("ssh-ed25519"), JUPYTER_PASSWORD: password });
    }

    // Halfway through provisioning the ranks, roles, addresses and the VXLAN are assigned.
    await h.control.advance(60);
    const ranked = await members(created.id);
    expect(ranked.map((p) => [p.status, p.cluster])).toEqual([
      ["PROVISIONING", { id: created.id, rank: 0, role: "SLURM_CONTROLLER", ip: "10.66.0.2" }],
      ["PROVISIONING", { id: created.id, rank: 1, role: "SLURM_COMPUTE", ip: "10.66.0.3" }],
      ["PROVISIONING", { id: created.id, rank: 2, role: "SLURM_COMPUTE", ip: "10.66.0.4" }],
    ]);
    expect((await cluster(created.id)).network).toEqual({ cidr: "10.66.0.0/16", vxlanId: expect.any(Number), vxlanPort: 4789 });

    await h.control.advance(100);
    expect((await cluster(created.id)).pods).toEqual({ total: 3, byStatus: { STARTING: 3 } });
    await h.control.advance(100);
    const running = await cluster(created.id);
    const head = (await members(created.id))[0];
    const ssh = head.runtime.ports.find((p: { private: number }) => p.private === 22);
    expect(running.pods).toEqual({ total: 3, byStatus: { RUNNING: 3 } });
    expect(running.primary).toEqual({ podId: head.id, status: "RUNNING", sshEndpoint: `${ssh.ip}:${ssh.public}` });
    // The members are pods: readable by id, with their log stream.
    expect((await h.get(`/v2/pods/${head.id}`)).body).toMatchObject({ status: "RUNNING", name: "trainer-0" });
    await h.control.advance(2000);
    expect((await backfillOf(h, `/v2/pods/${head.id}/logs`)).length).toBeGreaterThan(0);
  });

  test("RAY members get head and worker roles; TRAINING and APPLICATION members none", async () => {
    const ray = await createdCluster(clusterBody({ type: "RAY", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 } }));
    const training = await createdCluster(clusterBody({ name: "plain", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 } }));
    await h.control.advance(250);
    expect((await members(ray.id)).map((p) => p.cluster.role)).toEqual(["RAY_HEAD", "RAY_WORKER"]);
    expect((await members(training.id)).map((p) => p.cluster)).toEqual([
      { id: training.id, rank: 0, ip: "10.67.0.2" },
      { id: training.id, rank: 1, ip: "10.67.0.3" },
    ]);
  });

  test("the primary has no sshEndpoint without 22/tcp; another account's clusters start at 10.65", async () => {
    const team = await createdCluster(clusterBody({ compute: { gpuTypeId: GPU.a6000, gpuCountPerPod: 1, podCount: 2 } }), h, KEYS.team);
    expect(team).toMatchObject({ dataCenterId: "US-CA-2", network: { cidr: "10.65.0.0/16" } });
    await h.control.advance(250);
    expect((await h.get(`/v2/clusters/${team.id}`, { key: KEYS.team })).body.primary).toEqual({ podId: expect.any(String), status: "RUNNING" });
  });

  test("the fixture's cluster is read off its members; list, get and member pods in rank order", async () => {
    const fixture = {
      id: "clu_dev_ray",
      name: "ray-finetune",
      type: "RAY",
      compute: { gpuTypeId: GPU.a100, gpuCountPerPod: 2, podCount: 2 },
      dataCenterId: "US-TX-3",
      pods: { total: 2, byStatus: { RUNNING: 2 } },
      network: { cidr: "10.65.0.0/16", vxlanId: expect.any(Number), vxlanPort: 4789 },
      primary: { podId: "pod_ray_head", status: "RUNNING", sshEndpoint: expect.stringMatching(/^[\d.]+:\d+$/) },
      createdAt: expect.any(String),
    };
    expect((await h.get("/v2/clusters")).body).toEqual({ clusters: [fixture] });
    expect(await cluster("clu_dev_ray")).toEqual(fixture);
    expect((await members("clu_dev_ray")).map((p) => [p.id, p.cluster.rank])).toEqual([
      ["pod_ray_head", 0],
      ["pod_ray_worker1", 1],
    ]);
    expect((await h.get("/v2/clusters/clu_dev_ray", { key: KEYS.other })).status).toBe(404);
    expect((await h.get("/v2/clusters", { key: KEYS.other })).body).toEqual({ clusters: [] });
  });
});

describe("validation", () => {
  test("422 lists every violation at once", async () => {
    const low = await h.post("/v2/clusters", clusterBody({ compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 0, podCount: 1 }, bogus: true }));
    expectViolationsIncluding(low, [/^compute\.podCount: .*2/, /^compute\.gpuCountPerPod: .*1/, "bogus: unknown property"]);
    expect(low.body.errors).toHaveLength(3);
    const high = await h.post("/v2/clusters", clusterBody({ type: "HUGE", compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 251 } }));
    expectViolationsIncluding(high, [/^compute\.podCount: .*250/, /^type: /]);
    expect((await h.post("/v2/clusters", clusterBody({ registry: "reg_dev_ghcr", templateId: "tpl_pytorch" }))).body.errors).toEqual([
      "registry: unknown property",
      "templateId: unknown property",
    ]);
  });

  test("400: per-node GPUs beyond maxCount.secure, a type the catalog lacks, no image, persistent with network", async () => {
    const many = await h.post("/v2/clusters", clusterBody({ compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 9, podCount: 2 } }));
    expect(many.status).toBe(400);
    expect(many.body.errors).toEqual([expect.stringMatching(/^compute\.gpuCountPerPod: must be at most 8/)]);
    const unknown = await h.post("/v2/clusters", clusterBody({ compute: { gpuTypeId: "NVIDIA GTX 9000", gpuCountPerPod: 1, podCount: 2 } }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.stringMatching(/^compute\.gpuTypeId: "NVIDIA GTX 9000" is not a GPU type/)]);
    const bare = await h.post("/v2/clusters", clusterBody({ image: undefined, mounts: { persistent: { size: 20, path: "/w" }, network: [{ volumeId: "vol_dev_tx", path: "/d" }] } }));
    expect(bare.status).toBe(400);
    expect(bare.body.errors).toEqual([expect.stringMatching(/^image: /), expect.stringMatching(/^mounts\.persistent: cannot be combined/)]);
    expect(await podIds()).toEqual(["pod_ray_head", "pod_ray_worker1"]);
  });

  test("a network volume must be the account's (404) and in a requested data center (400); it decides where the cluster lands", async () => {
    const mounts = { network: [{ volumeId: "vol_dev_tx", path: "/data" }] };
    expect((await h.post("/v2/clusters", clusterBody({ mounts: { network: [{ volumeId: "vol_other_ca", path: "/d" }] } }))).status).toBe(404);
    const elsewhere = await h.post("/v2/clusters", clusterBody({ mounts, dataCenterIds: ["EU-RO-1"] }));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.detail).toMatch(/vol_dev_tx is in US-TX-3.*a cluster can mount it only in its own data center/);
    const placed = await createdCluster(clusterBody({ mounts, compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 } }));
    expect(placed.dataCenterId).toBe("US-TX-3");
    expect((await members(placed.id))[0].mounts).toEqual(mounts);
  });

  test("a restricted pool is 403, and the balance must cover an hour of every node (402)", async () => {
    const b200 = clusterBody({ compute: { gpuTypeId: GPU.b200, gpuCountPerPod: 1, podCount: 2 } });
    expect((await h.post("/v2/clusters", b200)).status).toBe(403);
    expect((await h.post("/v2/clusters", b200, { key: KEYS.team })).status).toBe(201);
    // 2 nodes of 8 × H100 at 2.99 is $47.84/hr; Alice has $40.
    const poor = await h.post("/v2/clusters", clusterBody({ compute: { gpuTypeId: GPU.h100, gpuCountPerPod: 8, podCount: 2 } }), { key: KEYS.alice });
    expect(poor.status).toBe(402);
    expect(poor.body.detail).toMatch(/this cluster costs \$47\.84\/hr/);
  });
});

describe("all-or-nothing placement", () => {
  test("a cluster that fits nowhere is refused whole: 400 naming the closest data center, nothing held, no pod", async () => {
    const capacity = await h.control.capacity();
    const refused = await h.post("/v2/clusters", clusterBody({ compute: { gpuTypeId: GPU.h100, gpuCountPerPod: 8, podCount: 4 } }));
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe("cluster creation failed: no data center has 4 nodes of 8 × NVIDIA H100 80GB HBM3 free; best: US-TX-3 fits 1 of 4");
    expect(await h.control.capacity()).toEqual(capacity);
    expect(await podIds()).toEqual(["pod_ray_head", "pod_ray_worker1"]);
    expect((await h.get("/v2/clusters")).body.clusters).toHaveLength(1);
  });

  test("nodes may share a machine but never split across machines; the first data center where all fit is chosen", async () => {
    // US-TX-3 has 6 + 3 free: two nodes of 4 do not fit (6 holds one, 3 none); EU-RO-1's 7 hold one; US-CA-2's 4 one.
    const four = clusterBody({ compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 4, podCount: 2 } });
    expect((await h.post("/v2/clusters", four)).body.detail).toBe(
      "cluster creation failed: no data center has 2 nodes of 4 × NVIDIA GeForce RTX 4090 free; best: US-TX-3 fits 1 of 2",
    );
    // Three nodes of 3 fit US-TX-3 (two on the 6-GPU machine, one on the 3-GPU one).
    const three = await createdCluster(clusterBody({ compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 3, podCount: 3 } }));
    expect(three.dataCenterId).toBe("US-TX-3");
    const hosts = (await h.control.capacity()).machines.filter((m) => m.dataCenterId === "US-TX-3" && m.gpuTypeId === GPU.rtx4090 && m.cloud === "SECURE");
    expect(hosts.map((m) => m.free)).toEqual([0, 0]);
  });

  test("the control plane's capacity settings apply: a sold-out data center places no cluster", async () => {
    await h.control.setCapacity({ dataCenterId: "US-TX-3", gpuTypeId: GPU.rtx4090, available: 0 });
    const refused = await h.post("/v2/clusters", clusterBody({ dataCenterIds: ["US-TX-3"] }));
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      "cluster creation failed: no data center has 3 nodes of 2 × NVIDIA GeForce RTX 4090 free (candidates: US-TX-3); none has room for a single node",
    );
    // Elsewhere it goes to the next data center in order with room for all three (EU-RO-1's 7 free).
    expect((await createdCluster()).dataCenterId).toBe("EU-RO-1");
  });
});

describe("rename and delete", () => {
  test("PATCH renames the cluster only (members keep their names); anything else is 422", async () => {
    const created = await createdCluster();
    const renamed = await h.patch(`/v2/clusters/${created.id}`, { name: "renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created, name: "renamed" });
    expect((await members(created.id)).map((p) => p.name)).toEqual(["trainer-0", "trainer-1", "trainer-2"]);
    const more = await h.patch(`/v2/clusters/${created.id}`, { name: "again", type: "RAY", compute: { podCount: 4 } });
    expectViolationsIncluding(more, ["type: unknown property", "compute: unknown property"]);
    expect((await h.patch(`/v2/clusters/${created.id}`, {})).status).toBe(422);
    expect((await cluster(created.id)).name).toBe("renamed");
    expect((await h.patch("/v2/clusters/nope", { name: "x" })).status).toBe(404);
  });

  test("DELETE ends every member as a pod delete would and frees their GPUs; the cluster is 404 at once", async () => {
    const capacity = await h.control.capacity();
    const created = await createdCluster();
    await h.control.advance(250);
    const ids = (await members(created.id)).map((p) => p.id);
    expect(await h.control.capacity()).not.toEqual(capacity);
    expect((await h.del(`/v2/clusters/${created.id}`)).status).toBe(204);
    expect((await h.get(`/v2/clusters/${created.id}`)).status).toBe(404);
    expect((await h.get(`/v2/clusters/${created.id}/pods`)).status).toBe(404);
    expect((await h.del(`/v2/clusters/${created.id}`)).status).toBe(404);
    expect(await h.control.capacity()).toEqual(capacity);
    for (const id of ids) expect((await h.get(`/v2/pods/${id}`)).body).toMatchObject({ status: "TERMINATED", cost: 0, actions: [] });
    await h.control.advance(100);
    for (const id of ids) expect((await h.get(`/v2/pods/${id}`)).status).toBe(404);
    expect((await h.get("/v2/clusters")).body.clusters.map((c: { id: string }) => c.id)).toEqual(["clu_dev_ray"]);
    expect((await h.del("/v2/clusters/clu_nope")).status).toBe(404);
  });
});

describe("members through the pod endpoints", () => {
  test("hidden from the pod list unless includeClusterPods; PATCH, actions and DELETE answer 409", async () => {
    const created = await createdCluster(clusterBody({ compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 } }));
    const ids = (await members(created.id)).map((p) => p.id);
    const own = await createdPod(h);
    expect(await podIds("")).toEqual([own.id]);
    expect(await podIds()).toEqual(["pod_ray_head", "pod_ray_worker1", ...ids, own.id]);
    await h.control.advance(250);
    const conflict = [
      await h.patch(`/v2/pods/${ids[0]}`, { name: "x" }),
      await h.post(`/v2/pods/${ids[0]}/action`, { action: "stop" }),
      await h.del(`/v2/pods/${ids[1]}`),
    ];
    for (const answer of conflict) {
      expect(answer.status).toBe(409);
      expect(answer.body.detail).toContain(`/v2/clusters/${created.id}`);
    }
    expect((await cluster(created.id)).pods.byStatus).toEqual({ RUNNING: 2 });
  });
});

describe("faults", () => {
  test("the fail-next switch makes the next cluster's last member fail as it starts; the others run", async () => {
    await h.control.failNext("pod");
    const created = await createdCluster();
    expect((await h.control.state()).failNext.pod).toBe(0); // consumed once, by the whole cluster
    await h.control.advance(250);
    expect((await members(created.id)).map((p) => [p.name, p.status])).toEqual([
      ["trainer-0", "RUNNING"],
      ["trainer-1", "RUNNING"],
      ["trainer-2", "ERROR"],
    ]);
    expect((await cluster(created.id)).pods.byStatus).toEqual({ RUNNING: 2, ERROR: 1 });
  });

  test("the control plane's pod events act on members", async () => {
    const created = await createdCluster(clusterBody({ compute: { gpuTypeId: GPU.rtx4090, gpuCountPerPod: 1, podCount: 2 } }));
    const [head, worker] = await members(created.id);
    await h.control.podFailStart(worker.id);
    await h.control.advance(250);
    expect((await cluster(created.id)).pods.byStatus).toEqual({ RUNNING: 1, ERROR: 1 });
    await h.control.podError(head.id, "NCCL error: unhandled system error");
    expect((await cluster(created.id)).primary).toEqual({ podId: head.id, status: "ERROR" });
  });

  test("API faults and rate limits apply to the cluster routes as to every route", async () => {
    await h.control.addFault({ method: "POST", path: "/v2/clusters", status: 503, retryAfter: 1, times: 1 });
    const faulted = await h.post("/v2/clusters", clusterBody());
    expect(faulted.status).toBe(503);
    expect(faulted.headers.get("retry-after")).toBe("1");
    expect((await h.get("/v2/clusters")).body.clusters).toHaveLength(1); // not executed

    await h.control.addFault({ method: "POST", path: "/v2/clusters", status: 502, after: true, times: 1 });
    expect((await h.post("/v2/clusters", clusterBody())).status).toBe(502);
    expect((await h.get("/v2/clusters")).body.clusters.map((c: { name: string }) => c.name)).toEqual(["ray-finetune", "trainer"]); // executed

    await h.control.addFault({ path: "/v2/clusters/*", method: "GET", status: 500, times: 1 });
    expect((await h.get("/v2/clusters/clu_dev_ray/pods")).status).toBe(500);
    await h.control.clearFaults();

    await h.control.updateAccount("acct_dev", { rateLimits: { minute: 1 } });
    expect((await h.get("/v2/clusters")).status).toBe(200);
    expect((await h.get("/v2/clusters/clu_dev_ray")).status).toBe(429);
  });

  test("scopes: the clusters family, its read half for GET", async () => {
    expect((await h.get("/v2/clusters", { key: KEYS.devReadOnly })).status).toBe(200);
    expect((await h.post("/v2/clusters", clusterBody(), { key: KEYS.devReadOnly })).status).toBe(403);
    expect((await h.get("/v2/clusters", { key: KEYS.devNoSandboxes })).status).toBe(403);
  });
});

describe("control-plane state and persistence", () => {
  test("GET /_emulator/state lists the clusters of every account", async () => {
    const created = await createdCluster(clusterBody({ compute: { gpuTypeId: GPU.a6000, gpuCountPerPod: 1, podCount: 2 } }), h, KEYS.team);
    const state = await h.control.state();
    expect(state.clusters.map((c: { accountId: string; id: string }) => [c.accountId, c.id])).toEqual([
      ["acct_dev", "clu_dev_ray"],
      ["team_ml", created.id],
    ]);
    await h.control.reset();
    expect((await h.control.state()).clusters.map((c: { id: string }) => c.id)).toEqual(["clu_dev_ray"]);
  });

  test("clusters and their members come back after a restart; an older state file without them gets the fixture's", async () => {
    const dataDir = tempDir();
    const saved = await withEmulator({ dataDir, freezeClock: "2030-06-01T00:00:00Z" }, async (e) => {
      const created = await createdCluster(clusterBody({ type: "RAY" }), e);
      await e.control.advance(250);
      await e.patch(`/v2/clusters/${created.id}`, { name: "kept" });
      return { cluster: await cluster(created.id, e), members: await members(created.id, e), capacity: await e.control.capacity() };
    });
    expect(saved.cluster).toMatchObject({ name: "kept", pods: { byStatus: { RUNNING: 3 } } });

    await withEmulator({ dataDir }, async (e) => {
      expect(await cluster(saved.cluster.id, e)).toEqual(saved.cluster);
      expect(await members(saved.cluster.id, e)).toEqual(saved.members);
      expect(await e.control.capacity()).toEqual(saved.capacity);
      expect((await e.del(`/v2/clusters/${saved.cluster.id}`)).status).toBe(204);
    });

    const file = join(dataDir, "state.json");
    const state = JSON.parse(readFileSync(file, "utf8"));
    delete state.modules.clusters;
    writeFileSync(file, JSON.stringify(state));
    await withEmulator({ dataDir }, async (e) => {
      expect((await e.get("/v2/clusters")).body.clusters.map((c: { id: string }) => c.id)).toEqual(["clu_dev_ray"]);
    });
  });
});
