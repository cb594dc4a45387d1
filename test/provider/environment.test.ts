/**
 * The environment resources (network volumes, templates, registry credentials, SSH keys,
 * serverless endpoints) through the runtime the providers run, against the emulator: every rule
 * at preview with every violation at once, what a change does, a repeated create after a lost
 * one adopting what it made, import by id previewing no change, and what a delete keeps.
 *
 * The bad input of the engine suites (test/e2e/environment-stack.ts), each of which runs through
 * the engine in one face only, is here for every rule: the failure names the field and the rule,
 * and the check sends nothing but GETs (a failed check is where the engine stops the preview).
 */
import { ComputeClient, fingerprintOf, markOfKey, nameWithMark, ownerMark, splitMarkedName, withSpec } from "../../sdk";
import { SshKeySet } from "../../sdk/ssh-keys";
import { Templates } from "../../sdk/resources/templates";
import { startNewRun } from "../../provider/runtime/shared-reads";
import { newPublicKey } from "../helpers/ssh-keys";
import { PROVIDER_TEXT, printed, recorded, runtime, useProvider } from "./helpers";

const env = useProvider({ resetBeforeEach: true });
let api: ComputeClient;
beforeAll(() => {
  api = new ComputeClient({ baseUrl: env.url, apiKey: env.apiKey, env: {} });
});
afterAll(() => api?.close());

/** What the emulator was sent since the log was last cleared, GETs aside: a failed check sends none. */
const mutations = async () =>
  (await env.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
/** A registry credential's secret given empty: the service's rule, by the field's name. */
const EMPTY = (field: string) => `${field}: must be at least 1 character(s) long`;

/** The mark the resource classes give a resource of this stack. */
const markFor = (name: string, type: string) =>
  ownerMark({ organization: "organization", project: "env", stack: "dev", backend: "file:///state", urn: `urn:pulumi:dev::env::compute:index:${type}::${name}`, salt: "s" });

type Kind = "volume" | "template" | "registry credential" | "ssh key" | "endpoint";
const handlers = (kind: Kind) => runtime.resources[kind]!;

/** `check` as the engine gets it: each failure's reason names its field (`size: must be …`). */
async function check(kind: Kind, args: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const result = await handlers(kind).check(olds, { ...args, __provider: PROVIDER_TEXT });
  return { inputs: result.inputs, failures: result.failures.map((f) => f.reason) };
}

async function create(kind: Kind, type: string, args: Record<string, unknown>) {
  const { inputs, failures } = await check(kind, { namePrefix: args.name ?? type.toLowerCase(), ownerMark: markFor(String(args.name ?? type), type), ...args });
  expect(failures).toEqual([]);
  return { inputs, ...(await handlers(kind).create(inputs)) };
}

/** A read by id alone (`pulumi import`) gives inputs that check cleanly and diff as no change. */
async function expectImportPreviewsClean(kind: Kind, id: string) {
  const read = await handlers(kind).read(id, {});
  expect(read.id).toBe(id);
  const { inputs, failures } = await check(kind, read.inputs!, read.inputs!);
  expect(failures).toEqual([]);
  const diff = await handlers(kind).diff(id, recorded(read.props!), inputs);
  expect(diff).toMatchObject({ changes: false, replaces: [] });
  return read;
}

describe("NetworkVolume", () => {
  it("reports every violation at preview at once: the size range, and a tier the data center does not offer; nothing is sent", async () => {
    await env.control.clearRequests();
    const { failures } = await check("volume", { name: "v", dataCenterId: "US-CA-2", size: 5000, type: "HIGH_PERFORMANCE" });
    expect(failures).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^size: .*4096/),
        "type: data center US-CA-2 offers STANDARD volumes, not HIGH_PERFORMANCE",
      ]),
    );
    expect((await check("volume", { name: "v", dataCenterId: "EU-NL-1", size: 10 })).failures).toEqual(["dataCenterId: data center EU-NL-1 does not offer network volumes"]);
    expect(await mutations()).toEqual([]);
  });

  it("refuses to shrink at preview, naming both sizes and sending nothing; growing updates in place", async () => {
    const { id, outs } = await create("volume", "NetworkVolume", { name: "data", dataCenterId: "EU-RO-1", size: 50 });
    const olds = recorded(outs);
    await env.control.clearRequests();
    expect((await check("volume", { ...olds, size: 20 }, olds)).failures).toEqual([
      "size: cannot shrink from 50 GB to 20 GB: network volume storage only grows (a smaller volume needs a new resource)",
    ]);
    expect(await mutations()).toEqual([]);
    const grown = (await check("volume", { ...olds, size: 80 }, olds)).inputs;
    expect(await handlers("volume").diff(id, olds, grown)).toMatchObject({ changes: true, replaces: [] });
    const updated = await handlers("volume").update(id, olds, grown);
    expect((await api.networkVolumes.get(id)).size).toBe(80);
    expect(updated.outs).toMatchObject({ size: 80, appliedSize: 80 });
    // A different data center is a new volume.
    const moved = (await check("volume", { ...olds, dataCenterId: "US-TX-3" }, olds)).inputs;
    expect((await handlers("volume").diff(id, olds, moved)).replaces).toEqual(["dataCenterId"]);
  });

  it("holds its owner mark in its name, and a repeated create adopts the volume a lost create made", async () => {
    const first = await create("volume", "NetworkVolume", { name: "cache", dataCenterId: "EU-RO-1", size: 10 });
    const volume = await api.networkVolumes.get(first.id);
    expect(splitMarkedName(volume.name)).toMatchObject({ name: "cache", mark: expect.stringMatching(/:env\/dev\/cache$/) });
    startNewRun(); // the killed `up` is gone; the next run's create comes in a new process
    const again = await printed(() => create("volume", "NetworkVolume", { name: "cache", dataCenterId: "EU-RO-1", size: 10 }));
    expect(again.value.id).toBe(first.id);
    expect(again.lines.join("\n")).toContain("which an interrupted run created for this resource");
    expect((await api.networkVolumes.list()).filter((v) => splitMarkedName(v.name).name === "cache")).toHaveLength(1);
  });

  it("deleting a volume a pod outside the stack mounts fails clearly and deletes nothing; refresh then import preview clean", async () => {
    const { id, outs } = await create("volume", "NetworkVolume", { name: "shared", dataCenterId: "US-TX-3", size: 10 });
    const pod = await api.pods.create({ name: "outside", image: "alpine", cpu: { id: "cpu3c", vcpuCount: 2 }, dataCenterIds: ["US-TX-3"], mounts: { network: [{ volumeId: id, path: "/data" }] } });
    await expect(handlers("volume").remove(id, recorded(outs))).rejects.toThrow(/mounted by pod/);
    expect((await api.networkVolumes.get(id)).id).toBe(id);
    const refreshed = await handlers("volume").read(id, recorded(outs));
    expect(refreshed.inputs).toMatchObject({ name: "shared", size: 10, dataCenterId: "US-TX-3" });
    await expectImportPreviewsClean("volume", id);
    await api.pods.delete(pod.id);
  });
});

describe("Template", () => {
  it("reports every violation at once, a port by its place in the list; nothing is sent", async () => {
    await env.control.clearRequests();
    const { failures } = await check("template", { name: "t", image: "", ports: ["22/tcp", "8888/udp"], args: "python a.py", cmd: ["python", "b.py"] });
    expect(failures.map((f) => f.slice(0, f.indexOf(":"))).sort()).toEqual(["args", "image", "ports[1]"]);
    expect(failures).toContain('ports[1]: must be "<port>/<protocol>" with port 1-65535 and protocol http or tcp');
    expect(await mutations()).toEqual([]);
  });

  it("sends an exec-form command as the one `args` string the public API takes", async () => {
    const sent = jest.spyOn(Templates.prototype, "create");
    const { id } = await create("template", "Template", { name: "exec", image: "python:3.12", cmd: ["python", "-m", "http.server"] });
    const body = sent.mock.calls[0]![0] as Record<string, unknown>;
    sent.mockRestore();
    expect(body).not.toHaveProperty("cmd");
    expect(body.args).toEqual(expect.stringContaining("http.server"));
    expect((await api.templates.get(id)).args).toBe(body.args);
  });

  it("changes in place, and a pod made from it says at preview that it keeps what it was given", async () => {
    const { id, outs } = await create("template", "Template", { name: "base", image: "python:3.12", env: { A: "1" } });
    const olds = recorded(outs);
    const news = (await check("template", { ...olds, image: "python:3.13", env: { A: "2" } }, olds)).inputs;
    const diff = await printed(() => handlers("template").diff(id, olds, news));
    expect(diff.value).toMatchObject({ changes: true, replaces: [] });
    expect(diff.lines.join("\n")).toContain("pods and sandboxes already made from it keep their settings");
    await handlers("template").update(id, olds, news);
    expect(await api.templates.get(id)).toMatchObject({ image: "python:3.13", env: { A: "2" } });

    const podOlds = { name: "p", image: "python:3.12", templateId: id, cpu: { id: "cpu3c", vcpuCount: 2 }, placementChosen: {} };
    const pod = await printed(() => runtime.resources.pod!.diff("pod-1", recorded(podOlds), { ...podOlds, __provider: PROVIDER_TEXT }));
    expect(pod.lines.join("\n")).toContain(`its template base (${id}) changes in this update (image, env), but a pod keeps what its template gave it at create`);
    await expectImportPreviewsClean("template", id);
  });
});

describe("RegistryCredential", () => {
  it("needs both secrets to create, but not to import", async () => {
    const { failures } = await check("registry credential", { name: "ghcr" });
    expect(failures).toEqual([
      "username: is required to create a registry credential",
      "password: is required to create a registry credential",
    ]);
    expect((await check("registry credential", { name: "ghcr" }, { name: "ghcr" })).failures).toEqual([]);
  });

  it("an empty username or password is a preview error naming it, new or recorded, and nothing is sent", async () => {
    const { outs } = await create("registry credential", "RegistryCredential", { name: "ghcr", username: "me", password: "pw-1", secretInputs: ["password", "username"] });
    const olds = recorded(outs);
    await env.control.clearRequests();
    expect((await check("registry credential", { ...olds, username: "" }, olds)).failures).toEqual([EMPTY("username")]);
    expect((await check("registry credential", { name: "ghcr", username: "me", password: "" })).failures).toEqual([EMPTY("password")]);
    expect(await mutations()).toEqual([]);
  });

  it("never prints the password; a changed secret replaces, a first one after an import is recorded", async () => {
    const password = "ghp_never_printed_9f2c";
    const made = await printed(() => create("registry credential", "RegistryCredential", { name: "ghcr", username: "me", password, secretInputs: ["password", "username"] }));
    expect(made.lines.join("\n")).not.toContain(password);
    const olds = recorded(made.value.outs);
    // Write-only: the answer names the credential and nothing of its secrets.
    const answer = await api.registries.get(made.value.id);
    expect(answer).toMatchObject({ id: made.value.id, name: expect.stringMatching(/^ghcr~env\/dev~/) });
    expect(JSON.stringify(answer)).not.toMatch(/ghp_never_printed|"username"|"password"/);
    // A pod that still pulls with it: the delete is refused, says what to change, and deletes nothing.
    const pod = await api.pods.create({ name: "puller", image: "ghcr.io/me/private:1", cpu: { id: "cpu3c", vcpuCount: 2 }, registry: made.value.id });
    await expect(handlers("registry credential").remove(made.value.id, olds)).rejects.toThrow(/answered 400 .*in use by pod .*Nothing was deleted.*set its `registry` \(pod\)/);
    expect((await api.registries.get(made.value.id)).id).toBe(made.value.id);
    await api.pods.delete(pod.id);
    const changed = (await check("registry credential", { ...olds, password: "rotated" }, olds)).inputs;
    expect((await handlers("registry credential").diff(made.value.id, olds, changed)).replaces).toEqual(["password"]);
    const imported = await expectImportPreviewsClean("registry credential", made.value.id);
    const given = (await check("registry credential", { ...imported.inputs, username: "me", password }, imported.inputs!)).inputs;
    expect(await handlers("registry credential").diff(made.value.id, recorded(imported.props!), given)).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("SshKey", () => {
  it("checks the key line at preview: its form, a base64 body, and a body that is a key of the type it names; nothing is sent", async () => {
    await env.control.clearRequests();
    expect((await check("ssh key", { publicKey: "not a key" })).failures).toEqual([expect.stringMatching(/^publicKey: .*authorized_keys line/)]);
    expect((await check("ssh key", { publicKey: "ssh-ed25519 not/a/key!" })).failures).toEqual([
      'publicKey: must be one authorized_keys line "<type> <base64-key> [comment]", such as the contents of ~/.ssh/id_ed25519.pub: the key is not base64',
    ]);
    const [type, body] = newPublicKey().split(" ");
    expect((await check("ssh key", { publicKey: `ssh-rsa ${body}` })).failures).toEqual([expect.stringMatching(/^publicKey: .*not a ssh-rsa key \(it holds a ssh-ed25519 key\)$/)]);
    expect(type).toBe("ssh-ed25519");
    expect(await mutations()).toEqual([]);
  });

  it("a key registered by hand is a preview error that says to import it, and nothing is sent", async () => {
    const [line] = await api.account.sshKeys();
    await env.control.clearRequests();
    const { failures } = await check("ssh key", { namePrefix: "laptop", ownerMark: markFor("laptop", "SshKey"), publicKey: line! });
    expect(failures).toEqual([
      `publicKey: the key ${fingerprintOf(line!)} is already registered on the account outside any stack; import it to manage it here (pulumi import compute:index:SshKey <name> ${fingerprintOf(line!)}), or use another key`,
    ]);
    expect(await mutations()).toEqual([]);
  });

  it("adds only its own line and removes only its own, keeping every key it does not manage", async () => {
    const before = await api.account.sshKeys();
    const line = newPublicKey();
    const { id, outs } = await create("ssh key", "SshKey", { namePrefix: "ci", publicKey: line });
    expect(id).toBe(fingerprintOf(line));
    const after = await api.account.sshKeys();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(markOfKey(after[after.length - 1]!)).toMatch(/:env\/dev\/SshKey$/);
    await expectImportPreviewsClean("ssh key", id);
    await handlers("ssh key").remove(id, recorded(outs));
    expect(await api.account.sshKeys()).toEqual(before);
  });

  it("the same key with another comment is rewritten in place, keeping its mark; another key replaces", async () => {
    const line = newPublicKey("old@comment");
    const { id, outs } = await create("ssh key", "SshKey", { namePrefix: "ops", publicKey: line });
    const olds = recorded(outs);
    const count = (await api.account.sshKeys()).length;
    const renamed = (await check("ssh key", { ...olds, publicKey: line.replace("old@comment", "new@comment") }, olds)).inputs;
    expect(await handlers("ssh key").diff(id, olds, renamed)).toMatchObject({ changes: true, replaces: [] });
    await handlers("ssh key").update(id, olds, renamed);
    const lines = await api.account.sshKeys();
    expect(lines).toHaveLength(count);
    const mine = lines.find((l) => fingerprintOf(l) === id)!;
    expect(mine).toContain("new@comment pulumi-compute-owner=");
    const other = (await check("ssh key", { ...olds, publicKey: newPublicKey() }, olds)).inputs;
    expect((await handlers("ssh key").diff(id, olds, other)).replaces).toEqual(["publicKey"]);
  });

  it("a line read from a file, with its newline, is no change", async () => {
    const line = newPublicKey();
    const { id, outs } = await create("ssh key", "SshKey", { namePrefix: "file", publicKey: line });
    const olds = recorded(outs);
    const same = (await check("ssh key", { ...olds, publicKey: `${line}\n` }, olds)).inputs;
    expect(await handlers("ssh key").diff(id, olds, same)).toMatchObject({ changes: false });
  });

  it("a repeated create after a lost one adopts the key it registered: one line, not two", async () => {
    const line = newPublicKey();
    const first = await create("ssh key", "SshKey", { namePrefix: "deploy", publicKey: line });
    startNewRun();
    expect((await create("ssh key", "SshKey", { namePrefix: "deploy", publicKey: line })).id).toBe(first.id);
    expect((await api.account.sshKeys()).filter((l) => fingerprintOf(l) === first.id)).toHaveLength(1);
  });

  it("a change another writer makes between the read and the write is applied again on top, never lost", async () => {
    const other = newPublicKey("someone@else");
    const mine = newPublicKey();
    let stored: string[] = ["ssh-ed25519 AAAA a"];
    let writes = 0;
    const account = {
      sshKeys: async () => [...stored],
      // The other writer's PUT lands right after ours, from the set it read before ours.
      setSshKeys: async (keys: string[]) => {
        writes += 1;
        stored = writes === 1 ? ["ssh-ed25519 AAAA a", other] : [...keys];
        return stored;
      },
    };
    await new SshKeySet(account as never).add(mine);
    expect(stored).toEqual(["ssh-ed25519 AAAA a", other, mine]);
    expect(writes).toBe(2);
  });
});

describe("ServerlessEndpoint", () => {
  it("reports every violation at once, more minimum than maximum workers among them; nothing is sent", async () => {
    await env.control.clearRequests();
    const { failures } = await check("endpoint", {
      name: "e",
      type: "LOAD_BALANCER",
      image: "img",
      gpu: { pools: ["ADA_24"] },
      cpu: [{ id: "cpu3c", vcpuCount: 3 }],
      scaling: { type: "QUEUE_DELAY", queueDelay: 1 },
      workers: { min: 4, max: 2 },
    });
    expect(failures.map((f) => f.slice(0, f.indexOf(":"))).sort()).toEqual(["cpu", "cpu[0].vcpuCount", "scaling.type", "workers.min"]);
    expect(failures).toContain("workers.min: must not exceed workers.max");
    expect(await mutations()).toEqual([]);
  });

  it("a Hub listing without a release, or none at all, is a preview error", async () => {
    expect((await check("endpoint", { name: "e", hubRepo: "hub_1cxvcand" })).failures).toEqual([expect.stringMatching(/^hubRepo: .*has no release yet/)]);
    expect((await check("endpoint", { name: "e", hubRepo: "nobody/nothing" })).failures).toEqual([expect.stringMatching(/^hubRepo: no Hub listing "nobody\/nothing"/)]);
  });

  it("from a Hub listing: the release's image, its estimate at preview with the ceiling, updates in place, a family switch replaces, import previews clean", async () => {
    const estimate = await printed(() => check("endpoint", { name: "llm", hubRepo: "hub_662work", gpu: { pools: ["ADA_24"] }, workers: { min: 1, max: 4 } }));
    // The worst GPU type of the pool (RTX 4090, 1.10 $/hr per worker in the catalog) × 1 worker, and × 4 at most.
    expect(estimate.lines.join("\n")).toMatch(/estimated 1\.10 \$\/hr \(at the minimum workers; up to 4\.40 \$\/hr at 4 workers; worst of 2 candidates/);
    const { id, outs } = await create("endpoint", "ServerlessEndpoint", { name: "llm", hubRepo: "hub_662work" });
    const repo = await api.hub.get("hub_662work");
    expect(outs).toMatchObject({ imageApplied: repo.release!.image, computeType: "GPU", workersMin: 0, workersMax: 3, requestUrls: { run: expect.stringContaining(id) } });
    const olds = recorded(outs);
    const scaled = (await check("endpoint", { ...olds, workers: { min: 0, max: 5 } }, olds)).inputs;
    expect(await handlers("endpoint").diff(id, olds, scaled)).toMatchObject({ changes: true, replaces: [] });
    await handlers("endpoint").update(id, olds, scaled);
    const live = await api.serverless.get(id);
    expect(live.workers?.max).toBe(5);
    expect(live.env?.PULUMI_COMPUTE_OWNER).toEqual(expect.stringMatching(/:env\/dev\/llm$/));
    // The program's env replaces its own keys only: the release's and the owner mark stay.
    const withEnv = (await check("endpoint", { ...olds, env: { LOG_LEVEL: "debug" } }, olds)).inputs;
    await handlers("endpoint").update(id, olds, withEnv);
    expect((await api.serverless.get(id)).env).toEqual({ ...repo.release!.config.env, LOG_LEVEL: "debug", PULUMI_COMPUTE_OWNER: live.env!.PULUMI_COMPUTE_OWNER });
    // A setting the program stops giving goes back to the service's default: no worker left billing.
    const before = recorded((await handlers("endpoint").update(id, olds, (await check("endpoint", { ...olds, workers: { min: 2 } }, olds)).inputs)).outs);
    expect((await api.serverless.get(id)).workers).toMatchObject({ min: 2 });
    const dropped = (await check("endpoint", { ...before, workers: undefined }, before)).inputs;
    await handlers("endpoint").update(id, before, dropped);
    expect((await api.serverless.get(id)).workers).toMatchObject({ min: 0, max: 3 });
    // A Hub listing gone since the create does not block the endpoint's later previews.
    expect((await check("endpoint", { ...olds, hubRepo: "hub_662work" }, { ...olds })).failures).toEqual([]);
    const cpu = (await check("endpoint", { ...olds, cpu: [{ id: "cpu3c", vcpuCount: 2 }] }, olds)).inputs;
    expect((await handlers("endpoint").diff(id, olds, cpu)).replaces).toEqual(["cpu"]);
    await expectImportPreviewsClean("endpoint", id);
  });
});

describe("marks in names", () => {
  it("round-trip, and a name without one is the program's name", () => {
    const mark = withSpec(markFor("data", "NetworkVolume"), { dataCenter: "EU-RO-1" });
    const name = nameWithMark("data", mark);
    expect(name).toMatch(/^data~env\/dev~[0-9a-f]{18}$/);
    expect(splitMarkedName(name).name).toBe("data");
    expect(splitMarkedName("my volume").mark).toBeUndefined();
  });
});
