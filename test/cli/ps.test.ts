/**
 * `compute ps` against the emulator: pods, clusters, sandboxes, network volumes and serverless
 * endpoints created through the API with and without owner marks (a volume's and a cluster's in
 * its name, an endpoint's in its env), beside the fixture's RAY cluster, then the rows, owners,
 * totals and filters the built CLI prints.
 * Expected totals are computed here from what the API reports, never written down.
 */
import { parse as parseYaml } from "yaml";
import { ComputeClient, POD_OWNER_ENV, SANDBOX_OWNER_LABEL, describeMemberStates, nameWithMark, withSpec, type Pod, type Sandbox } from "../../sdk";
import { ownerMark } from "../../sdk/ownership";
import { clusterRow, money, outsideClusters, podRow, sandboxRow, selectRows, totalLine, totalOf, unreadableRow } from "../../cli/inventory";
import { GPU, KEYS } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";
import { runCli, tableRows, useEmulator } from "./helpers";

// A terminated pod reads as TERMINATED for this long before it is gone: long enough for --all.
const emu = useEmulator({ timings: { podStoppingMs: 3_600_000 } });
let sdk: ComputeClient;

/** Something a pod's env may hold that no listing may repeat. */
const SECRET = "hf_do_not_print_8c1e2a";
const compute = { vcpuCount: 2, memoryInGb: 4, containerDiskInGb: 10 };

/** The owner mark the provider writes for resource `name` of stack `project/stack`. */
function mark(project: string, stack: string, name: string, settings?: unknown): string {
  const first = ownerMark({ organization: "organization", project, stack, backend: "file:///state", urn: `urn:pulumi:${stack}::${project}::compute:index:Resource::${name}`, salt: "salt" });
  return settings === undefined ? first : withSpec(first, settings);
}

/** The fixture's cluster (account acct_dev), made by no stack. */
const RAY = "clu_dev_ray";

const created: Record<string, Pod | Sandbox | { id: string }> = {};
/** Ids of the resources created with an owner mark, by `project/stack`. */
const owned: Record<string, string[]> = { "ml/dev": [], "ml/prod": [] };

function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return eventually("the expected state", read, { until: done, timeoutMs: 5000, intervalMs: 25 });
}

beforeAll(async () => {
  sdk = new ComputeClient({ baseUrl: emu.url, apiKey: emu.apiKey, env: {} });
  const trainerSettings = { image: "pytorch", gpu: "H100" };
  const [trainer, worker, stray, lookalike, parked, gone] = await Promise.all([
    sdk.pods.create({ name: "trainer", image: "pytorch", gpu: { id: GPU.h100, count: 1 }, env: { [POD_OWNER_ENV]: mark("ml", "dev", "trainer", trainerSettings), HF_TOKEN: SECRET } }),
    sdk.pods.create({ name: "worker", image: "python", cpu: { id: "cpu3c", vcpuCount: 4 }, env: { [POD_OWNER_ENV]: mark("ml", "prod", "worker") } }),
    sdk.pods.create({ name: "stray", image: "pytorch", gpu: { id: GPU.rtx4090, count: 2 }, env: { HF_TOKEN: SECRET } }),
    // A user's own variable of the same name that is not a mark: no stack owns this pod.
    sdk.pods.create({ name: "lookalike", image: "python", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { [POD_OWNER_ENV]: "me" } }),
    sdk.pods.create({ name: "parked", image: "python", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { [POD_OWNER_ENV]: mark("ml", "dev", "parked") } }),
    sdk.pods.create({ name: "gone", image: "python", cpu: { id: "cpu3c", vcpuCount: 2 }, env: { [POD_OWNER_ENV]: mark("ml", "dev", "gone") } }),
  ]);
  const [notebook, scratch, finished, crashed] = await Promise.all([
    sdk.sandboxes.create({ name: "notebook", image: "python:3.12", compute, labels: { [SANDBOX_OWNER_LABEL]: mark("ml", "dev", "notebook"), team: "ml" } }),
    sdk.sandboxes.create({ name: "scratch", image: "python:3.12", compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 } }),
    sdk.sandboxes.create({ name: "finished", image: "python:3.12", compute, labels: { [SANDBOX_OWNER_LABEL]: mark("ml", "dev", "finished") } }),
    sdk.sandboxes.create({ name: "crashed", image: "python:3.12", compute }),
  ]);
  const endpoint = (name: string, env: Record<string, string>) =>
    sdk.serverless.create({ name, type: "QUEUE", scaling: { type: "QUEUE_DELAY", queueDelay: 1 }, image: "img", gpu: { pools: ["ADA_24"] }, env });
  const [datasets, inference, adhoc, ring] = await Promise.all([
    sdk.networkVolumes.create({ name: nameWithMark("datasets", mark("ml", "dev", "datasets", { dataCenter: "EU-RO-1" })), dataCenter: "EU-RO-1", size: 10 }),
    endpoint("inference", { [POD_OWNER_ENV]: mark("ml", "dev", "inference") }),
    endpoint("adhoc", { HF_TOKEN: SECRET }),
    sdk.clusters.create({
      name: nameWithMark("ring", mark("ml", "dev", "ring", { type: "TRAINING" })),
      type: "TRAINING",
      compute: { gpuTypeId: GPU.a6000, gpuCountPerPod: 1, podCount: 2 },
      image: "pytorch",
      env: { HF_TOKEN: SECRET },
    }),
  ]);
  Object.assign(created, { trainer, worker, stray, lookalike, parked, gone, notebook, scratch, finished, crashed, datasets, inference, adhoc, ring });
  owned["ml/dev"]!.push(trainer!.id, parked!.id, gone!.id, notebook!.id, finished!.id, datasets.id, inference.id, ring.id);
  owned["ml/prod"]!.push(worker!.id);

  await Promise.all([trainer, worker, stray, lookalike, parked, gone].map((p) => until(() => sdk.pods.get(p!.id), (x) => x.status === "RUNNING")));
  await Promise.all([notebook, scratch, finished, crashed].map((s) => until(() => sdk.sandboxes.get(s!.id), (x) => x.state === "RUNNING")));
  await until(() => sdk.clusters.get(ring.id), (x) => x.pods.byStatus.RUNNING === 2);
  await sdk.pods.stop(parked!.id);
  await sdk.pods.delete(gone!.id);
  await sdk.sandboxes.delete(finished!.id);
  await emu.control.sandboxExit(crashed!.id);
}, 60_000);

afterAll(async () => {
  await sdk?.close();
});

interface Expected {
  ids: string[];
  billing: number;
  costPerHr: number;
  unmanagedBilling: number;
  unmanagedCostPerHr: number;
  unknownCost: number;
}

/** A member pod bills until it is terminated. */
const billsNow = (pod: Pod) => pod.status !== "TERMINATED";

/**
 * What `ps` should show, from the API's own answers: pods not TERMINATED (their `cost` is
 * what they bill now), clusters with such a member (they bill what those members bill; the
 * members are no rows of their own), sandboxes CREATING or RUNNING (they bill
 * `compute.costPerHr`); `all` adds the ended ones; `keep` narrows by id.
 */
async function expected(options: { all?: boolean; keep?: (id: string) => boolean } = {}): Promise<Expected> {
  const [pods, clusters, sandboxes, terminated, volumes, endpoints] = await Promise.all([
    sdk.pods.list(),
    sdk.clusters.pageWithMembers(),
    sdk.sandboxes.list(),
    sdk.sandboxes.list({ state: "TERMINATED" }),
    sdk.networkVolumes.list(),
    sdk.serverless.list(),
  ]);
  const keep = options.keep ?? (() => true);
  const marked = new Set(Object.values(owned).flat());
  const rows = [
    ...pods.map((p) => ({ id: p.id, live: billsNow(p), rate: p.cost })),
    ...clusters.items.map((c) => ({ id: c.id, live: c.members.some(billsNow), rate: c.members.filter(billsNow).reduce((acc, p) => acc + p.cost, 0) })),
    ...[...sandboxes, ...terminated].map((s) => ({ id: s.id, live: s.state === "CREATING" || s.state === "RUNNING", rate: s.compute.costPerHr })),
    // Storage and workers bill, but the answers carry no rate: live, of unknown cost.
    ...[...volumes, ...endpoints].map((v) => ({ id: v.id, live: true, rate: null as number | null })),
  ].filter((r) => (options.all || r.live) && keep(r.id));
  const billing = rows.filter((r) => r.live && (r.rate ?? 0) > 0);
  const unmanaged = billing.filter((r) => !marked.has(r.id));
  const sum = (list: typeof rows) => list.reduce((acc, r) => acc + (r.rate ?? 0), 0);
  return {
    ids: rows.map((r) => r.id).sort(),
    billing: billing.length,
    costPerHr: sum(billing),
    unmanagedBilling: unmanaged.length,
    unmanagedCostPerHr: sum(unmanaged),
    unknownCost: rows.filter((r) => r.live && r.rate === null).length,
  };
}

const TOTAL = /^Total: (\d+) shown, (\d+) billing \$([\d.]+)\/hr \(\$([\d.]+)\/day\), (\d+) of them unmanaged \(\$([\d.]+)\/hr\)(?:, (\d+) of unknown cost \(not counted\))?$/;

/** The table's rows by id, and the total line parsed. */
function parseTable(stdout: string) {
  const lines = stdout.trimEnd().split("\n");
  const total = TOTAL.exec(lines[lines.length - 1]!);
  if (!total) throw new Error(`no total line in:\n${stdout}`);
  const [head, ...rows] = tableRows(lines.slice(0, -1).join("\n"));
  return {
    head,
    rows: new Map(rows.map((row) => [row[2]!, row])),
    total: {
      shown: Number(total[1]),
      billing: Number(total[2]),
      costPerHr: Number(total[3]),
      costPerDay: Number(total[4]),
      unmanagedBilling: Number(total[5]),
      unmanagedCostPerHr: Number(total[6]),
      unknownCost: Number(total[7] ?? 0),
    },
  };
}

function expectTotal(total: ReturnType<typeof parseTable>["total"], want: Expected): void {
  expect({ shown: total.shown, billing: total.billing, unmanagedBilling: total.unmanagedBilling, unknownCost: total.unknownCost }).toEqual({
    shown: want.ids.length,
    billing: want.billing,
    unmanagedBilling: want.unmanagedBilling,
    unknownCost: want.unknownCost,
  });
  expect(total.costPerHr).toBeCloseTo(want.costPerHr, 4);
  expect(total.costPerDay).toBeCloseTo(want.costPerHr * 24, 2);
  expect(total.unmanagedCostPerHr).toBeCloseTo(want.unmanagedCostPerHr, 4);
}

const idOf = (name: string) => created[name]!.id;

describe("compute ps", () => {
  test.concurrent("lists what bills or may bill, with rate, GPU or compute, owner or unmanaged, and the total", async () => {
    const r = await emu.run(["ps"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const { head, rows, total } = parseTable(r.stdout);
    expect(head).toEqual(["KIND", "NAME", "ID", "STATUS", "$/HR", "GPU / COMPUTE", "OWNER"]);
    const want = await expected();
    expect([...rows.keys()].sort()).toEqual(want.ids);
    expect(want.ids).not.toContain(idOf("gone"));
    expect(want.ids).not.toContain(idOf("finished"));
    expect(want.ids).not.toContain(idOf("crashed"));

    const pods = new Map((await sdk.pods.list()).map((p) => [p.id, p]));
    const row = (name: string) => rows.get(idOf(name))!;
    expect(row("trainer")).toEqual(["pod", "trainer", idOf("trainer"), "RUNNING", row("trainer")[4], `1x ${GPU.h100}`, "ml/dev/trainer"]);
    expect(row("worker").slice(5)).toEqual(["cpu3c 4 vCPU", "ml/prod/worker"]);
    expect(row("stray").slice(5)).toEqual([`2x ${GPU.rtx4090}`, "unmanaged"]);
    expect(row("lookalike")[6]).toBe("unmanaged");
    expect(row("notebook")).toEqual(["sandbox", "notebook", idOf("notebook"), "RUNNING", row("notebook")[4], "2 vCPU 4 GB", "ml/dev/notebook"]);
    expect(row("scratch").slice(5)).toEqual(["1 vCPU 1 GB", "unmanaged"]);
    // A stopped pod is listed (it can start again) at the $0 the service reports for it.
    expect([row("parked")[3], Number(row("parked")[4]!.slice(1))]).toEqual(["EXITED", 0]);
    // Rates are the service's own figures.
    for (const name of ["trainer", "worker", "stray", "lookalike"]) expect(row(name)[4]).toMatch(/^\$\d+\.\d{2,4}$/);
    for (const name of ["trainer", "worker", "stray", "lookalike"]) expect(Number(row(name)[4]!.slice(1))).toBeCloseTo(pods.get(idOf(name))!.cost, 4);
    expect(Number(row("notebook")[4]!.slice(1))).toBeCloseTo((created.notebook as Sandbox).compute.costPerHr, 4);
    // A cluster is one row: its members by status, nodes × GPUs, and what its members bill;
    // the fixture's was made by no stack of this product, `ring` by ml/dev (the mark in its name).
    const clusters = new Map((await sdk.clusters.pageWithMembers()).items.map((c) => [c.id, c]));
    const membersCost = (id: string) => clusters.get(id)!.members.reduce((acc, p) => acc + p.cost, 0);
    expect(rows.get(RAY)).toEqual(["cluster", "ray-finetune", RAY, "2/2 RUNNING", rows.get(RAY)![4], `2 × 2x ${GPU.a100}`, "unmanaged"]);
    expect(row("ring")).toEqual(["cluster", "ring", idOf("ring"), "2/2 RUNNING", row("ring")[4], `2 × 1x ${GPU.a6000}`, "ml/dev/ring"]);
    for (const id of [RAY, idOf("ring")]) expect(Number(rows.get(id)![4]!.slice(1))).toBeCloseTo(membersCost(id), 4);
    expect(membersCost(RAY)).toBeGreaterThan(0);
    // Their members are counted there, and only there.
    const memberIds = [...clusters.values()].flatMap((c) => c.members.map((p) => p.id));
    expect(memberIds).toHaveLength(4);
    for (const id of memberIds) expect(rows.has(id)).toBe(false);
    expect(r.stdout).not.toContain("cluster pod");
    // A volume shows the program's name (the mark in its name gives the owner); an endpoint its workers.
    expect(row("datasets")).toEqual(["volume", "datasets", idOf("datasets"), "-", "-", "10 GB STANDARD", "ml/dev/datasets"]);
    expect(row("inference")).toEqual(["endpoint", "inference", idOf("inference"), "0-3 workers", "-", "1x ADA_24", "ml/dev/inference"]);
    expect(row("adhoc")[6]).toBe("unmanaged");

    expectTotal(total, want);
    expect(want.unknownCost).toBeGreaterThan(0);
    expect(want.unmanagedBilling).toBeGreaterThan(0);
  });

  test.concurrent("--all adds terminated pods and terminated or failed sandboxes, which add nothing to the bill", async () => {
    const [all, live] = await Promise.all([emu.run(["ps", "--all"]), emu.run(["ps"])]);
    expect(all.code).toBe(0);
    const { rows, total } = parseTable(all.stdout);
    const want = await expected({ all: true });
    expect([...rows.keys()].sort()).toEqual(want.ids);
    expect(rows.get(idOf("gone"))!.slice(3, 5)).toEqual(["TERMINATED", "$0.00"]);
    expect(rows.get(idOf("gone"))![6]).toBe("ml/dev/gone");
    expect(rows.get(idOf("finished"))![3]).toBe("TERMINATED (USER_REQUESTED)");
    expect(rows.get(idOf("crashed"))![3]).toBe("FAILED (CONTAINER_EXITED)");
    expectTotal(total, want);
    const liveTotal = parseTable(live.stdout).total;
    expect({ ...total, shown: 0 }).toEqual({ ...liveTotal, shown: 0 });
    expect(total.shown).toBe(liveTotal.shown + 3);
  });

  test.concurrent("--unmanaged lists only resources without an owner mark", async () => {
    const r = await emu.run(["ps", "--unmanaged"]);
    expect(r.code).toBe(0);
    const { rows, total } = parseTable(r.stdout);
    const marked = new Set(Object.values(owned).flat());
    const want = await expected({ keep: (id) => !marked.has(id) });
    expect([...rows.keys()].sort()).toEqual(want.ids);
    expect([...rows.keys()]).toEqual(expect.arrayContaining([idOf("stray"), idOf("lookalike"), idOf("scratch"), RAY]));
    expect(rows.has(idOf("ring"))).toBe(false);
    for (const cells of rows.values()) expect(cells[6]).toBe("unmanaged");
    expectTotal(total, want);
    expect(total.unmanagedBilling).toBe(total.billing);
  });

  test.concurrent("--stack lists only what that stack owns, with --all its ended resources too", async () => {
    const [dev, devAll, prod] = await Promise.all([emu.run(["ps", "--stack", "ml/dev"]), emu.run(["ps", "--stack", "ml/dev", "--all"]), emu.run(["ps", "--stack", "ml/prod"])]);
    const mine = (stack: string) => (id: string) => owned[stack]!.includes(id);
    for (const [r, want] of [
      [dev, await expected({ keep: mine("ml/dev") })],
      [devAll, await expected({ all: true, keep: mine("ml/dev") })],
      [prod, await expected({ keep: mine("ml/prod") })],
    ] as const) {
      expect(r.code).toBe(0);
      const { rows, total } = parseTable(r.stdout);
      expect([...rows.keys()].sort()).toEqual(want.ids);
      expectTotal(total, want);
      expect(total.unmanagedBilling).toBe(0);
    }
    expect(parseTable(dev.stdout).rows.has(idOf("parked"))).toBe(true);
    expect(parseTable(dev.stdout).rows.get(idOf("ring"))![0]).toBe("cluster");
    expect(parseTable(devAll.stdout).rows.has(idOf("finished"))).toBe(true);
    expect([...parseTable(prod.stdout).rows.keys()]).toEqual([idOf("worker")]);
  });

  test.concurrent("--json: pods, clusters with their members, sandboxes and total, machine-readable, and no env value of any pod", async () => {
    const r = await emu.run(["ps", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    type Rows = Array<Record<string, unknown>>;
    const out = JSON.parse(r.stdout) as { pods: Rows; clusters: Rows; sandboxes: Rows; volumes: Rows; endpoints: Rows; total: Record<string, number> };
    expect(Object.keys(out)).toEqual(["pods", "clusters", "sandboxes", "volumes", "endpoints", "total"]);
    const want = await expected();
    expect([...out.pods, ...out.clusters, ...out.sandboxes, ...out.volumes, ...out.endpoints].map((row) => row.id).sort()).toEqual(want.ids);
    expect(out.pods.every((row) => row.members === null)).toBe(true);

    // Members ride under their cluster, in rank order, without `--members`.
    const ray = (await sdk.clusters.pageWithMembers()).items.find((c) => c.id === RAY)!;
    expect(out.clusters.find((row) => row.id === RAY)).toEqual({
      kind: "cluster",
      id: RAY,
      name: "ray-finetune",
      status: describeMemberStates(ray.pods.byStatus, ray.pods.total),
      terminationReason: null,
      costPerHr: ray.members.reduce((acc, p) => acc + p.cost, 0),
      live: true,
      resources: `2 × 2x ${GPU.a100}`,
      cluster: null,
      dataCenterId: ray.dataCenterId,
      createdAt: ray.createdAt,
      owner: null,
      unreadable: null,
      lifetime: null,
      members: ray.members.map((p) => ({ id: p.id, name: p.name, rank: p.cluster!.rank, role: p.cluster!.role, ip: p.cluster!.ip, status: p.status, costPerHr: p.cost, live: true })),
    });
    expect(ray.members.map((p) => [p.id, p.cluster!.rank, p.cluster!.role])).toEqual([["pod_ray_head", 0, "RAY_HEAD"], ["pod_ray_worker1", 1, "RAY_WORKER"]]);
    expect(out.clusters.find((row) => row.id === idOf("ring"))).toMatchObject({ name: "ring", owner: { label: "ml/dev/ring", project: "ml", stack: "dev", name: "ring" } });
    expect(out.endpoints.find((row) => row.id === idOf("inference"))).toMatchObject({ owner: { label: "ml/dev/inference" }, costPerHr: null });
    expect(out.pods.every((row) => row.kind === "pod") && out.sandboxes.every((row) => row.kind === "sandbox")).toBe(true);

    const trainer = out.pods.find((row) => row.id === idOf("trainer"))!;
    expect(trainer).toMatchObject({
      name: "trainer",
      status: "RUNNING",
      costPerHr: (created.trainer as Pod).cost,
      resources: `1x ${GPU.h100}`,
      cluster: null,
      owner: { label: "ml/dev/trainer", project: "ml", stack: "dev", name: "trainer" },
    });
    expect(out.pods.find((row) => row.id === idOf("stray"))!.owner).toBeNull();
    expect(out.sandboxes.find((row) => row.id === idOf("notebook"))).toMatchObject({ costPerHr: (created.notebook as Sandbox).compute.costPerHr, owner: { label: "ml/dev/notebook" } });

    expect(out.total).toMatchObject({ shown: want.ids.length, billing: want.billing, unmanagedBilling: want.unmanagedBilling, unknownCost: want.unknownCost });
    expect(out.total.costPerHr).toBeCloseTo(want.costPerHr, 4);
    expect(out.total.costPerDay).toBeCloseTo(want.costPerHr * 24, 3);
    expect(out.total.unmanagedCostPerHr).toBeCloseTo(want.unmanagedCostPerHr, 4);
    expect(r.stdout).not.toContain(SECRET);
  });

  test.concurrent("--members prints each cluster's members beneath its row: rank, role, pod, overlay IP, status, $/hr", async () => {
    const [r, plain, json, jsonMembers] = await Promise.all([emu.run(["ps", "--members"]), emu.run(["ps"]), emu.run(["ps", "--json"]), emu.run(["ps", "--json", "--members"])]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    const clusters = (await sdk.clusters.pageWithMembers()).items;
    expect(clusters.map((c) => c.id).sort()).toEqual([RAY, idOf("ring")].sort());
    for (const cluster of clusters) {
      const at = lines.findIndex((line) => line.split(/\s{2,}/)[2] === cluster.id);
      expect(lines[at]).toMatch(/^cluster /);
      expect(lines[at + 1]).toMatch(/^ {2}RANK +ROLE +POD +IP +STATUS +\$\/HR$/);
      const members = lines.slice(at + 2, at + 2 + cluster.members.length);
      expect(tableRows(members.join("\n"))).toEqual(cluster.members.map((p) => [String(p.cluster!.rank ?? "-"), p.cluster!.role ?? "-", p.id, p.cluster!.ip ?? "-", p.status, money(p.cost)]));
      // Beneath its own row only: the next line is a row or the total again.
      expect(lines[at + 2 + cluster.members.length]).toMatch(/^\S/);
    }
    expect(lines.filter((line) => line.startsWith("  ")).length).toBe(clusters.reduce((acc, c) => acc + 1 + c.members.length, 0));
    // The rest is the table without them, total included.
    expect(lines.filter((line) => !line.startsWith("  ")).join("\n")).toBe(plain.stdout.trimEnd());
    // JSON always carries the members.
    expect(JSON.parse(jsonMembers.stdout)).toEqual(JSON.parse(json.stdout));
  });

  test.concurrent("--members with a filter: a stack's own cluster, with its members", async () => {
    const r = await emu.run(["ps", "--members", "--stack", "ml/dev"]);
    expect(r.code).toBe(0);
    const ring = await sdk.clusters.withMembers(idOf("ring"));
    const beneath = r.stdout.split("\n").filter((line) => line.startsWith("  "));
    expect(beneath.slice(1).map((line) => line.trim().split(/\s{2,}/)[2])).toEqual(ring.members.map((p) => p.id));
    expect(ring.members.map((p) => p.cluster!.rank)).toEqual([0, 1]);
    expect(r.stdout).not.toContain(RAY);
  });

  test.concurrent("--output yaml carries the same data as JSON", async () => {
    const [yaml, json] = await Promise.all([emu.run(["ps", "-o", "yaml", "--stack", "ml/dev"]), emu.run(["ps", "--json", "--stack", "ml/dev"])]);
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(JSON.parse(json.stdout));
  });

  test.concurrent("nothing to show: one sentence in a table, empty lists and a zero total in JSON", async () => {
    const [table, json] = await Promise.all([emu.run(["ps", "--stack", "nobody/none"]), emu.run(["ps", "--stack", "nobody/none", "--json"])]);
    expect(table).toEqual({ code: 0, stdout: "No pods, clusters, sandboxes, volumes or endpoints found.\n", stderr: "" });
    expect(JSON.parse(json.stdout)).toEqual({
      pods: [],
      clusters: [],
      sandboxes: [],
      volumes: [],
      endpoints: [],
      total: { shown: 0, billing: 0, costPerHr: 0, costPerDay: 0, unmanagedBilling: 0, unmanagedCostPerHr: 0, unknownCost: 0 },
    });
  });

  test.concurrent("a key that may not read endpoints still lists what bills by the hour, and says what it left out", async () => {
    const key = "cs_ps_no_serverless_1";
    await emu.control.issueApiKey(key, { userId: "user_dev", accountId: "acct_dev", scopes: ["pods", "sandboxes", "network-volumes", "clusters"] });
    const r = await emu.run(["ps"], { COMPUTE_API_KEY: key });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("(serverless endpoints not listed: this API key may not read them)\n");
    expect(r.stdout).toContain(idOf("trainer"));
    expect(r.stdout).not.toContain(idOf("inference"));
  });

  test.concurrent("a key that may not read clusters still lists the rest, says so, and lists the members that bill as cluster pods", async () => {
    const [noClusters, podsOnly] = ["cs_ps_no_clusters_1", "cs_ps_pods_only_1"];
    await emu.control.issueApiKey(noClusters, { userId: "user_dev", accountId: "acct_dev", scopes: ["pods", "sandboxes", "network-volumes", "serverless"] });
    await emu.control.issueApiKey(podsOnly, { userId: "user_dev", accountId: "acct_dev", scopes: ["pods", "sandboxes"] });
    const [r, narrow, json] = await Promise.all([
      emu.run(["ps", "--members"], { COMPUTE_API_KEY: noClusters }),
      emu.run(["ps"], { COMPUTE_API_KEY: podsOnly }),
      emu.run(["ps", "--json"], { COMPUTE_API_KEY: noClusters }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("(clusters not listed: this API key may not read them)\n");
    expect(r.stdout).toContain(idOf("trainer"));
    expect(r.stdout).toContain(idOf("inference"));
    // The nodes still bill: each is a `cluster pod` row, and the total counts it.
    expect(r.stdout).toContain("pod_ray_head");
    expect(r.stdout).toMatch(/cluster pod/);
    const members = (JSON.parse(json.stdout) as { pods: Array<{ id: string; cluster: string | null }> }).pods.filter((p) => p.cluster !== null);
    expect(members.map((p) => p.id)).toEqual(expect.arrayContaining(["pod_ray_head", "pod_ray_worker1"]));
    expect(narrow.stderr).toBe("(clusters, network volumes and serverless endpoints not listed: this API key may not read them)\n");
    expect(narrow.stdout).toContain(idOf("trainer"));
  });

  test.concurrent("a refused list fails the command (exit 1, nothing on stdout)", async () => {
    // A key without the sandbox scope: the pod list succeeds, the sandbox list is refused.
    const r = await emu.run(["ps"], { COMPUTE_API_KEY: KEYS.devNoSandboxes });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: GET \/v2\/sandboxes failed with 403 /);
  });

  test.concurrent("a wrong key: exit 1 with the 401 and its hint, and the key never printed", async () => {
    const r = await emu.run(["ps"], { COMPUTE_API_KEY: "cs_wrong_key_5f3a9c" });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    // Every list is refused; whichever answer comes first is reported.
    expect(r.stderr).toMatch(/^error: GET \/v2\/(pods|clusters|sandboxes|network-volumes|serverless) failed with 401 /);
    expect(r.stderr).toContain("hint: check the API key");
    expect(r.stderr).not.toContain("cs_wrong_key_5f3a9c");
  });
});

describe("compute ps usage errors exit 2 before any request", () => {
  const UNUSED_SERVICE = { COMPUTE_BASE_URL: "http://127.0.0.1:9", COMPUTE_API_KEY: "cs_unused_key_000" };
  test.concurrent.each([
    [["ps", "--stack", "ml"], "Expected <project>/<stack>"],
    [["ps", "--stack", "ml/dev/trainer"], "Expected <project>/<stack>"],
    [["ps", "--unmanaged", "--stack", "ml/dev"], "option '--unmanaged' cannot be used with option '--stack <project/stack>'"],
    [["ps", "running"], "too many arguments"],
  ])("compute %j", async (args, message) => {
    const r = await runCli(args, UNUSED_SERVICE);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: "" });
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain("cs_unused_key_000");
  });
});

/**
 * Answers shaped as the public OpenAPI allows: members absent or null. The rows keep what is
 * there, leave the rest empty, and the total says how many rates it could not count.
 */
describe("rows from sparse answers", () => {
  test("a pod without gpu.count, cost or env; a sandbox without compute or labels", () => {
    const gpu = podRow({ id: "p1", name: "odd", status: "RUNNING", gpu: { id: "NVIDIA L4" } });
    expect(gpu).toMatchObject({ resources: "1x NVIDIA L4", costPerHr: null, owner: null, live: true, cluster: null });
    const bare = podRow({ id: "p2", cost: null, env: null, gpu: null, cpu: null, cluster: null });
    expect(bare).toMatchObject({ name: null, status: null, resources: null, costPerHr: null, owner: null, live: true });
    const cpu = podRow({ id: "p3", status: "RUNNING", cost: 0.06, cpu: { id: "cpu3c" } });
    expect(cpu.resources).toBe("cpu3c");
    const sandbox = sandboxRow({ id: "s1", state: "RUNNING", compute: null, labels: null });
    expect(sandbox).toMatchObject({ resources: null, costPerHr: null, owner: null, live: true });

    const total = totalOf([gpu, bare, cpu, sandbox]);
    expect(total).toEqual({ shown: 4, billing: 1, costPerHr: 0.06, costPerDay: 1.44, unmanagedBilling: 1, unmanagedCostPerHr: 0.06, unknownCost: 3 });
    expect(totalLine(total)).toBe("Total: 4 shown, 1 billing $0.06/hr ($1.44/day), 1 of them unmanaged ($0.06/hr), 3 of unknown cost (not counted)");
  });

  test("a mark whose label the service cut off still counts as owned", () => {
    const row = podRow({ id: "p4", status: "RUNNING", cost: 1, env: { [POD_OWNER_ENV]: "0123456789abcdef01234567-000000000000" } });
    expect(row.owner).toEqual({ label: "0123456789abcdef01234567-000000000000", project: null, stack: null, name: null, key: "0123456789abcdef01234567-000000000000" });
    expect(totalOf([row]).unmanagedBilling).toBe(0);
  });
});

/**
 * Cluster rows from plain answers: a cluster is one row that bills what its members bill, with
 * its owner in its name, and answers missing any member give `null`s, never an exception.
 */
describe("cluster rows", () => {
  const member = (rank: number, status: string, cost: number | null, extra: Record<string, unknown> = {}) => ({
    id: `pod_${rank}`,
    name: `train-${rank}`,
    status,
    cost,
    cluster: { id: "clu_1", rank, role: rank === 0 ? "RAY_HEAD" : "RAY_WORKER", ip: `10.65.0.${rank + 2}` },
    ...extra,
  });
  const markedName = nameWithMark("train", mark("ml", "dev", "train", { type: "RAY" }));
  const cluster = {
    id: "clu_1",
    name: markedName,
    type: "RAY",
    compute: { gpuTypeId: GPU.h100, gpuCountPerPod: 8, podCount: 4 },
    dataCenterId: "US-TX-3",
    pods: { total: 4, byStatus: { RUNNING: 3, STARTING: 1 } },
    createdAt: "2026-01-01T00:00:00Z",
    members: [member(0, "RUNNING", 23.92), member(1, "RUNNING", 23.92), member(2, "RUNNING", 23.92), member(3, "STARTING", 23.92)],
  };

  test("one row: members by status, nodes × GPUs, the members' summed rate, the owner from the name", () => {
    const row = clusterRow(cluster);
    expect(row).toEqual({
      kind: "cluster",
      id: "clu_1",
      name: "train",
      status: describeMemberStates({ RUNNING: 3, STARTING: 1 }, 4),
      terminationReason: null,
      costPerHr: 95.68,
      live: true,
      resources: `4 × 8x ${GPU.h100}`,
      cluster: null,
      dataCenterId: "US-TX-3",
      createdAt: "2026-01-01T00:00:00Z",
      owner: { label: "ml/dev/train", project: "ml", stack: "dev", name: "train", key: expect.any(String) },
      unreadable: null,
      lifetime: null,
      members: cluster.members.map((pod) => ({ id: pod.id, name: pod.name, rank: pod.cluster.rank, role: pod.cluster.role, ip: pod.cluster.ip, status: pod.status, costPerHr: 23.92, live: true })),
    });
    expect(row.status).toBe("3/4 RUNNING (1 STARTING)");
    // Counted once, as one row; owned, so not in the unmanaged sums.
    expect(totalOf([row])).toEqual({ shown: 1, billing: 1, costPerHr: 95.68, costPerDay: 2296.32, unmanagedBilling: 0, unmanagedCostPerHr: 0, unknownCost: 0 });
    expect(selectRows([row], { stack: "ml/dev" })).toHaveLength(1);
    expect(selectRows([row], { stack: "ml/prod" })).toHaveLength(0);
    expect(selectRows([row], { unmanaged: true })).toHaveLength(0);
  });

  test("a name without a mark is unmanaged and shown whole", () => {
    const row = clusterRow({ ...cluster, name: "ray-finetune" });
    expect({ name: row.name, owner: row.owner }).toEqual({ name: "ray-finetune", owner: null });
    expect(totalOf([row])).toMatchObject({ unmanagedBilling: 1, unmanagedCostPerHr: 95.68 });
  });

  test("odd answers: no pods summary, nulls, an unknown status, counts missing from compute", () => {
    const bare = clusterRow({ id: "clu_2", name: null, compute: null, pods: null, members: null });
    expect(bare).toMatchObject({ name: null, status: null, resources: null, costPerHr: null, owner: null, live: true, members: null, dataCenterId: null, createdAt: null });
    // Members unknown: it may bill, at a rate nobody reported.
    expect(totalOf([bare])).toMatchObject({ billing: 0, unknownCost: 1 });
    expect(clusterRow({}).kind).toBe("cluster");

    const odd = clusterRow({
      id: "clu_3",
      compute: { gpuTypeId: GPU.a100, gpuCountPerPod: null, podCount: 2 },
      pods: { total: null, byStatus: { RUNNING: 1, SLEEPING: 1, ERROR: null } },
      members: [member(0, "RUNNING", 1.74), member(1, "SLEEPING", null, { cluster: null })],
    });
    expect(odd.status).toBe(describeMemberStates({ RUNNING: 1, SLEEPING: 1 }, 2));
    expect(odd.resources).toBe(`2 × ${GPU.a100}`);
    expect(odd.costPerHr).toBe(1.74);
    expect(odd.members![1]).toEqual({ id: "pod_1", name: "train-1", rank: null, role: null, ip: null, status: "SLEEPING", costPerHr: null, live: true });
    expect(clusterRow({ compute: { gpuTypeId: GPU.a100, gpuCountPerPod: 2 } }).resources).toBe(`2x ${GPU.a100}`);
    expect(clusterRow({ pods: { total: 2 } }).status).toBe(describeMemberStates({}, 2));
    expect(clusterRow({ pods: { byStatus: "RUNNING" as unknown as Record<string, number> } }).status).toBe(describeMemberStates({}, 0));
  });

  test("its rate: what its live members bill; null only when no member reports one", () => {
    const costs = (...members: Array<ReturnType<typeof member>>) => clusterRow({ ...cluster, members }).costPerHr;
    expect(costs(member(0, "RUNNING", 2), member(1, "RUNNING", null))).toBe(2);
    expect(costs(member(0, "RUNNING", null), member(1, "RUNNING", null))).toBeNull();
    expect(costs()).toBeNull();
    // A member that bills no more adds nothing, whatever it reports.
    expect(costs(member(0, "RUNNING", 2), member(1, "TERMINATED", 2))).toBe(2);
    expect(costs(member(0, "EXITED", 0), member(1, "EXITED", 0))).toBe(0);
  });

  test("live while a member may bill, by the member list or by the summary; --all adds the rest, members too", () => {
    const ended = clusterRow({ ...cluster, pods: { total: 2, byStatus: { TERMINATED: 2 } }, members: [member(0, "TERMINATED", 0), member(1, "TERMINATED", 0)] });
    expect(ended.live).toBe(false);
    expect(clusterRow({ ...cluster, pods: { total: 0, byStatus: {} }, members: [] }).live).toBe(false);
    // The summary was read after the member list: a member just created is in it only.
    expect(clusterRow({ ...cluster, pods: { total: 1, byStatus: { PROVISIONING: 1 } }, members: [] }).live).toBe(true);
    expect(clusterRow({ ...cluster, pods: null, members: [member(0, "EXITED", 0)] }).live).toBe(true);

    const partly = clusterRow({ ...cluster, pods: { total: 2, byStatus: { RUNNING: 1, TERMINATED: 1 } }, members: [member(0, "RUNNING", 2), member(1, "TERMINATED", 0)] });
    expect(selectRows([ended, partly], {}).map((row) => [row.id, row.members!.map((m) => m.id)])).toEqual([["clu_1", ["pod_0"]]]);
    expect(selectRows([ended, partly], { all: true }).map((row) => row.members!.map((m) => m.id))).toEqual([["pod_0", "pod_1"], ["pod_0", "pod_1"]]);
    expect(totalOf(selectRows([ended, partly], { all: true }))).toMatchObject({ shown: 2, billing: 1, costPerHr: 2 });
  });

  test("a member pod that a pod list carries anyway is counted in its cluster only", () => {
    const pods = [{ id: "solo" }, member(0, "RUNNING", 1), { id: "elsewhere", cluster: { id: "clu_unlisted" } }, { id: "odd", cluster: { id: null } }];
    expect(outsideClusters(pods, [cluster, { id: null }]).map((pod) => pod.id)).toEqual(["solo", "elsewhere", "odd"]);
    expect(outsideClusters(pods, []).map((pod) => pod.id)).toEqual(["solo", "pod_0", "elsewhere", "odd"]);
  });

  test("a cluster the SDK set aside: listed, of unknown cost, members unknown", () => {
    const row = unreadableRow("cluster", { id: "clu_4", name: "bad", violations: ["a member pod of this cluster could not be read from the pod list"] });
    expect(row).toMatchObject({ kind: "cluster", live: true, costPerHr: null, members: null, owner: null });
    expect(totalOf([row]).unknownCost).toBe(1);
  });
});

/** The same command against an emulator answering as the public OpenAPI describes (nulls, fewer members). */
describe("compute ps against public-shaped answers", () => {
  const pub = useEmulator({ shape: "public" });
  let client: ComputeClient;
  let gpuPod: Pod;
  let cpuPod: Pod;

  beforeAll(async () => {
    client = new ComputeClient({ baseUrl: pub.url, apiKey: pub.apiKey, env: {} });
    [gpuPod, cpuPod] = await Promise.all([
      client.pods.create({ name: "l4", image: "img", gpu: { id: GPU.l4 }, env: { [POD_OWNER_ENV]: mark("web", "prod", "l4") } }),
      client.pods.create({ name: "cpu", image: "img", cpu: { id: "cpu3c", vcpuCount: 2 } }),
    ]);
  });

  afterAll(async () => {
    await client?.close();
  });

  test("rows, owners and total as from the seed shape", async () => {
    const r = await pub.run(["ps", "--json"]);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { pods: Array<Record<string, unknown>>; total: Record<string, number> };
    expect(out.pods.find((row) => row.id === gpuPod.id)).toMatchObject({ resources: `1x ${GPU.l4}`, costPerHr: gpuPod.cost, owner: { label: "web/prod/l4" } });
    expect(out.pods.find((row) => row.id === cpuPod.id)).toMatchObject({ resources: "cpu3c 2 vCPU", costPerHr: cpuPod.cost, owner: null });
    const [pods, clusters, volumes, endpoints] = await Promise.all([client.pods.list(), client.clusters.pageWithMembers(), client.networkVolumes.list(), client.serverless.list()]);
    // Every pod here bills (none is terminated), and a cluster bills what its members bill.
    const rates = [...pods.map((p) => p.cost), ...clusters.items.map((c) => c.members.reduce((acc, p) => acc + p.cost, 0))];
    const unpriced = volumes.length + endpoints.length;
    expect(clusters.items.length).toBeGreaterThan(0);
    expect(out.total).toMatchObject({ shown: rates.length + unpriced, billing: rates.filter((rate) => rate > 0).length, unknownCost: unpriced });
    expect(out.total.costPerHr).toBeCloseTo(rates.reduce((acc, rate) => acc + rate, 0), 4);
  });

  test("a pod the SDK cannot read is listed as unreadable, of unknown cost, with the reason on stderr", async () => {
    // A list answer with one pod as sparse as the public document allows, and one without `cost`.
    const sparse = { id: "pod-min", name: "minimal", status: "RUNNING", image: "img", args: "", disk: 10, cost: 0.44, locked: false, createdAt: "2026-01-01T00:00:00Z", gpu: { id: "NVIDIA L4" }, env: null, dataCenterId: null };
    const odd = { id: "pod-odd", name: "no-cost", status: "RUNNING", image: "img", args: "", disk: 10, locked: false, createdAt: "2026-01-01T00:00:00Z" };
    // The fault answers both pod lists of a run (the service's, and the one the members are read
    // from): it carries the cluster members, whose cluster is then still whole, and so shows that
    // a member in the plain pod list is counted in its cluster only.
    const answer = (await fetch(`${pub.url}/v2/pods?includeClusterPods=true`, { headers: { authorization: `Bearer ${pub.apiKey}` } }).then((res) => res.json())) as { pods: Array<{ id: string; cluster?: unknown }> };
    const members = answer.pods.filter((pod) => pod.cluster);
    expect(members.length).toBeGreaterThan(0);
    await pub.control.addFault({ method: "GET", path: "/v2/pods", status: 200, body: { pods: [sparse, odd, ...members] }, times: 4 });

    const table = await pub.run(["ps"]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    const rows = new Map(tableRows(lines.slice(0, -1).join("\n")).slice(1).map((row) => [row[2]!, row]));
    expect(rows.get("pod-min")).toEqual(["pod", "minimal", "pod-min", "RUNNING", "$0.44", "1x NVIDIA L4", "unmanaged"]);
    expect(rows.get("pod-odd")).toEqual(["pod", "no-cost", "pod-odd", "unreadable", "-", "-", "unknown"]);
    expect(rows.get(RAY)![0]).toBe("cluster");
    for (const member of members) expect(rows.has(member.id)).toBe(false);
    const unpriced = (await client.networkVolumes.list()).length + (await client.serverless.list()).length;
    expect(lines[lines.length - 1]).toMatch(new RegExp(`, ${1 + unpriced} of unknown cost \\(not counted\\)$`));
    expect(table.stderr).toBe('(pod pod-odd "no-cost" could not be read, so its status, cost and owner are unknown: pods[1].cost: is required)\n');

    const json = await pub.run(["ps", "--unmanaged", "--json"]);
    const out = JSON.parse(json.stdout) as { pods: Array<Record<string, unknown>>; total: Record<string, number> };
    expect(out.pods.find((row) => row.id === "pod-odd")).toMatchObject({ status: null, costPerHr: null, owner: null, unreadable: ["pods[1].cost: is required"] });
    expect(out.total).toMatchObject({ unknownCost: 1 + unpriced });
    expect(json.stderr).toBe("");
  });
});

/** A lifetime (docs/provider.md, "Lifetimes") is its own column: the name stays the program's. */
describe("lifetimes", () => {
  const now = Date.parse("2030-05-01T10:00:00Z");
  const env = { [POD_OWNER_ENV]: withSpec(ownerMark({ organization: "o", project: "ml", stack: "dev", backend: "b", urn: "urn:pulumi:dev::ml::compute:index:Pod::trainer", salt: "" }), {}) };
  test("each deadline in words against the service's clock, from the run's start, the idle rule, and what expired", () => {
    const pod = podRow({ id: "p1", name: "trainer [lifetime until=2030-05-01T12:10:00Z then=STOP max=7200 idle=10%/1800s/STOP]", status: "RUNNING", cost: 1, env }, now);
    expect(pod).toMatchObject({ name: "trainer", lifetime: "stops in 2 h 10 m; idle: STOP under 10% GPU for 30 m" });
    // Started again since the tag was written: its two hours count from that start.
    const restarted = podRow({ id: "p1", name: "trainer [lifetime until=2030-05-01T08:00:00Z then=STOP max=7200]", status: "RUNNING", env, startedAt: "2030-05-01T09:30:00Z" }, now);
    expect(restarted.lifetime).toBe("stops in 1 h 30 m");
    const idle = podRow({ id: "p2", name: "nb [lifetime idle=5%/600s/TERMINATE idleSince=2030-05-01T09:55:00Z]", status: "RUNNING", env }, now);
    expect(idle.lifetime).toBe("idle: TERMINATE under 5% GPU for 10 m (idle since 2030-05-01T09:55:00Z)");
    const expired = podRow({ id: "p3", name: "old [lifetime until=2030-05-01T08:00:00Z then=STOP expired=2030-05-01T08:05:00Z/lifetime]", status: "EXITED", env }, now);
    expect(expired.lifetime).toBe("expired 2030-05-01T08:05:00Z (lifetime)");
    // Stopped by its stack, not expired: the rule, not a countdown no reaper will act on.
    expect(podRow({ id: "p5", name: "rest [lifetime until=2030-05-01T08:00:00Z then=STOP max=7200]", status: "EXITED", env }, now).lifetime).toBe("STOP at 2030-05-01T08:00:00Z (2 h 0 m lifetime)");
    const cluster = clusterRow({ id: "c1", name: "ray~ml/dev~0123456789abcdef01 [lifetime until=2030-05-01T09:00:00Z then=TERMINATE]" }, now);
    expect(cluster).toMatchObject({ name: "ray", lifetime: "terminates at the next reap (due 1 h 0 m ago)", owner: { label: "ml/dev/ray" } });
    expect(podRow({ id: "p4", name: "plain", status: "RUNNING", env }, now).lifetime).toBeNull();
    // No owner mark: no reaper acts on it, so no deadline is shown.
    expect(podRow({ id: "p6", name: "handmade [lifetime until=2030-05-01T09:00:00Z then=STOP]", status: "RUNNING" }, now)).toMatchObject({ name: "handmade", lifetime: null });
  });
});
