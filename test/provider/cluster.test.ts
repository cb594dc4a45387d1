/**
 * The Cluster resource through the runtime the providers run, against the emulator: every rule
 * at preview at once, the create that waits for every node (rank, role, overlay address), a
 * rename in place and what replaces, a member that fails (recorded, then replaced), a cluster
 * that cannot be placed (nothing left), a repeated create after a lost one, a template spread,
 * import, and a delete that ends every member.
 */
import { Cluster, ComputeClient, Pod, ownerMark, parseWire, splitMarkedName, type ClusterWithMembers } from "../../sdk";
import { clusterResource } from "../../provider/resources/cluster";
import { diffOf } from "../../provider/resources/definition";
import { podResponse } from "../helpers/fixtures";
import { CLUSTER_OUTPUTS } from "../../provider/resources/cluster/outputs";
import { PartialFailure } from "../../provider/runtime/partial";
import { startNewRun } from "../../provider/runtime/shared-reads";
import { STATE_VERSION_KEY } from "../../provider/runtime/state-versions";
import { PROVIDER_TEXT, printed, recorded, runtime, useProvider } from "./helpers";

const env = useProvider({ resetBeforeEach: true });
let api: ComputeClient;
beforeAll(() => {
  api = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
});
afterAll(() => api?.close());

const handlers = () => runtime.resources.cluster!;
const markFor = (name: string) =>
  ownerMark({ organization: "organization", project: "train", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::train::compute:index:Cluster::${name}`, salt: "s" });

const RTX = "NVIDIA GeForce RTX 4090";
const base = { name: "ray", type: "RAY", compute: { gpuTypeId: RTX, gpuCountPerPod: 2, podCount: 2 }, image: "rayproject/ray:2.40.0-gpu", ports: ["22/tcp", "8265/http"], startSsh: true };

async function check(args: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await handlers().check(olds, { ...args, __provider: PROVIDER_TEXT });
  return { inputs: result.inputs, failures: result.failures.map((f) => f.reason) };
}

async function create(args: Record<string, unknown>) {
  const { inputs, failures } = await check({ namePrefix: String(args.name), ownerMark: markFor(String(args.name)), ...args });
  expect(failures).toEqual([]);
  return { inputs, ...(await handlers().create(inputs)) };
}

/** The clusters of the account beside the fixture's own. */
const ours = async () => (await api.clusters.list()).filter((cluster) => cluster.id !== "clu_dev_ray");

/** Every member pod of the account, cluster members included. */
const members = async (clusterId: string) => (await api.pods.list({ includeClusterPods: true })).filter((pod) => pod.cluster?.id === clusterId);

describe("Cluster", () => {
  it("reports every violation at preview at once, from the schema and the catalog", async () => {
    const first = await check({ name: "c", type: "KUBERNETES", compute: { gpuTypeId: RTX, gpuCountPerPod: 9, podCount: 251 } });
    expect(first.failures).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^type: /),
        expect.stringMatching(/^compute\.podCount: .*250/),
        `compute.gpuCountPerPod: must be at most 8, the GPUs of the largest ${RTX} machine (catalog maxCount)`,
        expect.stringMatching(/^image: a cluster needs an image/),
      ]),
    );
    expect(first.failures).toHaveLength(4);
    const second = await check({ name: "c", type: "SLURM", image: "x", compute: { gpuTypeId: "NVIDIA Quantum 1", gpuCountPerPod: 0, podCount: 1 } });
    expect(second.failures).toEqual(
      expect.arrayContaining([expect.stringMatching(/^compute\.podCount: .*2/), expect.stringMatching(/^compute\.gpuCountPerPod: .*1/), 'compute.gpuTypeId: "NVIDIA Quantum 1" is not a GPU type of the catalog']),
    );
    // Nothing was created by either preview.
    expect(await ours()).toEqual([]);
  });

  it("creates a cluster and returns once every node runs with its rank, role and overlay address", async () => {
    const { value, lines } = await printed(() => create(base));
    const { id, outs, inputs } = value;
    // Exactly the listed outputs are recorded next to the inputs, and the state's version.
    expect(Object.keys(outs).filter((key) => !(key in inputs)).sort()).toEqual([...Object.keys(CLUSTER_OUTPUTS), STATE_VERSION_KEY].sort());
    expect(outs).toMatchObject({ clusterId: id, status: "RUNNING", gpuTypeId: RTX, dataCenterId: expect.any(String), network: { cidr: expect.stringMatching(/\/\d+$/) } });
    const nodes = outs.nodes as Array<{ podId: string; rank: number; role: string; ip: string; status: string }>;
    expect(nodes.map((n) => [n.rank, n.role, n.status])).toEqual([
      [0, "RAY_HEAD", "RUNNING"],
      [1, "RAY_WORKER", "RUNNING"],
    ]);
    expect(nodes.every((n) => /^\d+\.\d+\.\d+\.\d+$/.test(n.ip))).toBe(true);
    expect(outs.primary).toEqual({ podId: nodes[0]!.podId, sshCommand: expect.stringMatching(/^ssh root@/) });
    const pods = await members(id);
    expect(outs.costPerHour).toBeCloseTo(pods.reduce((sum, pod) => sum + pod.cost, 0), 4);
    expect(outs.costPerHour).toBeGreaterThan(0);
    // Progress counted nodes on the way, and the members are not in the default pod list.
    expect(lines.join("\n")).toMatch(/2\/2 RUNNING/);
    expect((await api.pods.list()).filter((pod) => pod.cluster)).toEqual([]);
  });

  it("renames in place (same id, mark kept); a podCount change replaces; a placement kept updates", async () => {
    const { id, outs } = await create({ ...base, placement: [{ gpuTypeId: RTX }] });
    const olds = recorded(outs);
    const tagOf = (serviceName: string) => splitMarkedName(serviceName).mark!.split(":")[0];
    const tag = tagOf((await api.clusters.get(id)).name);
    const renamed = (await check({ ...olds, name: "ray-renamed" }, olds)).inputs;
    expect(await handlers().diff(id, olds, renamed)).toMatchObject({ changes: true, replaces: [] });
    const updated = await handlers().update(id, olds, renamed);
    expect(updated.outs).toMatchObject({ clusterId: id, name: "ray-renamed" });
    const live = await api.clusters.get(id);
    expect(splitMarkedName(live.name)).toMatchObject({ name: "ray-renamed", mark: expect.stringContaining(":train/dev/") });
    expect(tagOf(live.name)).toBe(tag);
    const bigger = (await check({ ...olds, compute: { ...base.compute, podCount: 3 } }, olds)).inputs;
    expect((await handlers().diff(id, olds, bigger)).replaces).toEqual(["compute.podCount"]);
    const widened = (await check({ ...olds, placement: [{ gpuTypeId: RTX }, { gpuTypeId: "NVIDIA L40S" }] }, olds)).inputs;
    expect(await handlers().diff(id, olds, widened)).toMatchObject({ changes: true, replaces: [] });
    const moved = (await check({ ...olds, placement: [{ gpuTypeId: "NVIDIA L40S" }] }, olds)).inputs;
    expect((await handlers().diff(id, olds, moved)).replaces).toContain("placement");
  });

  it("a node that fails is a partial failure naming the members; the cluster is recorded and the next diff replaces it", async () => {
    await env.control.failNext("pod");
    const error = await create({ ...base, name: "fails" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PartialFailure);
    const failure = error as PartialFailure;
    expect(failure.message).toMatch(/went to ERROR/);
    expect(failure.message).toMatch(/1\/2 RUNNING \(1 ERROR\)/);
    expect(failure.properties).toMatchObject({ clusterId: failure.id, status: "ERROR" });
    expect(await api.clusters.get(failure.id)).toMatchObject({ id: failure.id });
    const olds = failure.properties;
    const again = (await check({ ...base, name: "fails" }, olds)).inputs;
    expect((await handlers().diff(failure.id, olds, again)).replaces).toEqual(["status"]);
  });

  it("a cluster an interrupted run left broken is never adopted: the next create makes a new one and then deletes it", async () => {
    await env.control.failNext("pod");
    const broken = await create({ ...base, name: "left" }).then(
      () => undefined,
      (e: unknown) => e as PartialFailure,
    );
    expect(broken).toBeInstanceOf(PartialFailure);
    startNewRun(); // that run was killed before recording it
    const again = await create({ ...base, name: "left" });
    expect(again.id).not.toBe(broken!.id);
    expect(again.outs.status).toBe("RUNNING");
    await expect(api.clusters.get(broken!.id)).rejects.toThrow(/404|not found/i);
  });

  it("a wait cut off by its deadline is recorded; the next up takes it up again, refresh or not, without a new cluster", async () => {
    await env.control.setTimings({ podProvisioningMs: 4000, podStartingMs: 500 });
    const error = await create({ ...base, name: "slow", readyTimeoutSeconds: 0.3 }).then(
      () => undefined,
      (e: unknown) => e as PartialFailure,
    );
    expect(error).toBeInstanceOf(PartialFailure);
    expect(error!.message).toMatch(/was not RUNNING within 0.3 s \(last status \d\/2 RUNNING/);
    const olds = error!.properties;
    expect(olds.status).toBe("PROVISIONING");
    // A refresh keeps what it recorded (no init error left to force an update): the diff must.
    const refreshed = await handlers().read(error!.id, olds);
    const news = (await check({ ...base, name: "slow" }, refreshed.inputs!)).inputs;
    const diff = await handlers().diff(error!.id, recorded(refreshed.props!), news);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    const updated = await handlers().update(error!.id, recorded(refreshed.props!), news);
    expect(updated.outs).toMatchObject({ clusterId: error!.id, status: "RUNNING" });
    expect(await ours()).toHaveLength(1);
  });

  it("a cluster the service cannot place fails with the service's reason and leaves nothing", async () => {
    const tooBig = { ...base, name: "huge", compute: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 8, podCount: 5 } };
    await expect(create(tooBig)).rejects.toThrow(/cluster creation failed/);
    expect(await ours()).toEqual([]);
    expect((await api.pods.list({ includeClusterPods: true })).filter((pod) => pod.cluster && pod.cluster.id !== "clu_dev_ray")).toEqual([]);
  });

  it("a sold-out first candidate falls back to the next, and the attempts are recorded", async () => {
    const { outs } = await create({ ...base, name: "fallback", placement: [{ gpuTypeId: "NVIDIA H100 80GB HBM3", dataCenterId: "US-KS-2" }, { gpuTypeId: RTX }] });
    expect(outs.gpuTypeId).toBe(RTX);
    expect(outs.placementChosen).toEqual({ gpuTypeId: RTX });
    expect((outs.placementAttempts as Array<{ outcome: string }>).map((a) => a.outcome)).toEqual(["no-capacity", "created"]);
  });

  it("a repeated create after a lost one adopts the cluster the first made", async () => {
    const first = await create({ ...base, name: "again" });
    startNewRun(); // the killed `up` is gone; the next run's create comes in a new process
    const again = await printed(() => create({ ...base, name: "again" }));
    expect(again.value.id).toBe(first.id);
    expect(again.lines.join("\n")).toContain("which an interrupted run created for this resource");
    expect((await api.clusters.list()).filter((c) => splitMarkedName(c.name).name === "again")).toHaveLength(1);
  });

  it("spreads a template's container configuration under the inputs; a template with a registry credential is refused at preview", async () => {
    const { id } = await create({ name: "from-template", type: "TRAINING", compute: base.compute, templateId: "tpl_pytorch", env: { EPOCHS: "3" } });
    const pods = await members(id);
    expect(pods.map((pod) => pod.image)).toEqual(pods.map(() => "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"));
    expect(pods[0]!.env.EPOCHS).toBe("3");
    expect(pods.map((pod) => pod.cluster?.role)).toEqual([undefined, undefined]);
    const refused = await check({ name: "private", type: "TRAINING", compute: base.compute, templateId: "tpl_dev_trainer" });
    expect(refused.failures).toEqual(['templateId: "tpl_dev_trainer" pulls its image with a registry credential, and clusters cannot use private registries']);
  });

  it("import by id gives inputs that check cleanly and preview no change; delete ends every member", async () => {
    const { id, outs } = await create({ ...base, name: "imported", startSsh: undefined });
    const read = await handlers().read(id, {});
    expect(read.id).toBe(id);
    const { inputs, failures } = await check(read.inputs!, read.inputs!);
    expect(failures).toEqual([]);
    expect(await handlers().diff(id, recorded(read.props!), inputs)).toMatchObject({ changes: false, replaces: [] });
    await handlers().remove(id, recorded(outs));
    await expect(api.clusters.get(id)).rejects.toThrow(/not found|404/i);
    const left = (await api.pods.list({ includeClusterPods: true })).filter((pod) => pod.cluster?.id === id && pod.status !== "TERMINATED");
    expect(left).toEqual([]);
  });
});

describe("Cluster answers the public document allows", () => {
  const read = <T>(schema: Parameters<typeof parseWire>[0], body: unknown): T => {
    const parsed = parseWire(schema, body);
    if (!parsed.ok) throw new Error(parsed.violations.join("; "));
    return parsed.value as T;
  };
  /** A cluster as the public OpenAPI requires it at least: no data center, network or primary yet. */
  const bare = { id: "clu_1", name: "c", type: "RAY", compute: { gpuTypeId: "NVIDIA H100 80GB HBM3", gpuCountPerPod: 8, podCount: 2 }, pods: { total: 2, byStatus: { PROVISIONING: 2 } }, createdAt: "2026-11-26T00:00:00Z" };
  const member = (id: string, status: string, cluster: Record<string, unknown>, extra: Record<string, unknown> = {}) => read<Pod>(Pod, podResponse({ id, status, cluster: { id: "clu_1", ...cluster }, ...extra }));
  const withMembers = (cluster: Record<string, unknown>, members: Pod[]): ClusterWithMembers => ({ ...read<Cluster>(Cluster, cluster), members });

  it("a cluster not yet placed, its members without rank or address: PROVISIONING, and facts with nulls, never an exception", () => {
    const live = withMembers(bare, [member("p1", "PROVISIONING", { rank: null }), member("p0", "PROVISIONING", { rank: null })]);
    expect(clusterResource.states.of(live)).toBe("PROVISIONING");
    expect(clusterResource.facts(live)).toMatchObject({ dataCenterId: null, network: null, primary: null, nodes: [{ rank: null, ip: null }, { rank: null, ip: null }] });
  });

  it("RUNNING only once every node has its rank and address; the primary from rank 0 when the answer names none", () => {
    const direct = { host: "1.2.3.4", port: 22001, username: "root", command: "ssh root@1.2.3.4 -p 22001" };
    const running = [member("p0", "RUNNING", { rank: 0, role: "RAY_HEAD", ip: "10.65.0.2" }, { ssh: { proxy: null, direct } }), member("p1", "RUNNING", { rank: 1, role: "RAY_WORKER" })];
    const noAddress = withMembers({ ...bare, pods: { total: 2, byStatus: { RUNNING: 2 } } }, running);
    expect(clusterResource.states.of(noAddress)).toBe("PROVISIONING");
    expect(clusterResource.states.progress!(noAddress)).toBe("2/2 RUNNING, 1 without rank or address yet");
    expect(clusterResource.facts(noAddress).primary).toEqual({ podId: "p0", sshCommand: direct.command });
    const ready = withMembers(bare, [running[0]!, member("p1", "RUNNING", { rank: 1, role: "RAY_WORKER", ip: "10.65.0.3" })]);
    expect(clusterResource.states.of(ready)).toBe("RUNNING");
  });

  it("compute.gpuTypeId replaces unless every placement candidate names a GPU type", () => {
    const olds = { name: "c", type: "RAY", compute: bare.compute, placement: [{ dataCenterId: "US-TX-3" }], placementChosen: { dataCenterId: "US-TX-3" }, status: "RUNNING" };
    const other = { ...bare.compute, gpuTypeId: "NVIDIA A100-SXM4-80GB" };
    expect(diffOf(clusterResource, olds, { ...olds, compute: other }).replaces).toEqual(["compute.gpuTypeId"]);
    const typed = [{ gpuTypeId: bare.compute.gpuTypeId, dataCenterId: "US-TX-3" }];
    expect(diffOf(clusterResource, { ...olds, placement: typed, placementChosen: typed[0] }, { ...olds, placement: typed, compute: other }).replaces).toEqual([]);
  });

  it("a node that failed, or that is gone once ranks were given out, is ERROR (broken: replaced, never adopted)", () => {
    const failed = withMembers(bare, [member("p0", "RUNNING", { rank: 0, ip: "10.65.0.2" }), member("p1", "ERROR", { rank: 1, ip: "10.65.0.3" })]);
    expect(clusterResource.states.of(failed)).toBe("ERROR");
    const gone = withMembers(bare, [member("p0", "RUNNING", { rank: 0, ip: "10.65.0.2" })]);
    expect(clusterResource.states.of(gone)).toBe("ERROR");
    expect(clusterResource.states.broken?.has("ERROR")).toBe(true);
    // Still placing: fewer members than nodes before any rank is given out is not a failure.
    expect(clusterResource.states.of(withMembers(bare, [member("p0", "PROVISIONING", { rank: null })]))).toBe("PROVISIONING");
  });
});
