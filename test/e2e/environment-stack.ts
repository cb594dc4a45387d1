/**
 * The environment resources (NetworkVolume, RegistryCredential, Template, SshKey,
 * ServerlessEndpoint) through the real engine, whatever the program's language: the YAML program
 * (test/e2e/environment-yaml.test.ts), the Python one through the generated SDK
 * (environment-python.test.ts) and the TypeScript one through the dynamic classes
 * (environment-ts.test.ts) declare the same five resources and a pod that uses them by
 * reference (the template's `templateId`, the volume's `volumeId` in `mounts.network`, the
 * credential's `registryId`, `startSsh` after the key), from the same stack config, and export
 * the same outputs; so one table of cases drives all three:
 *
 * create → for each kind an update in place, a replace and a preview error naming the field →
 * preview and refresh clean → (native programs) `pulumi import` of each kind made outside the
 * stack → a volume something outside the stack mounts cannot be deleted → destroy leaves nothing
 * of the stack on the service, and the account's own SSH keys where they were. A few cases prove
 * a rule of the provider runtime, which the engine handles the same way whatever the rule: each
 * of those runs in one face (or two), as BAD_INPUT's comment says, and at the provider level;
 * the updates and replacements run in the TypeScript and YAML faces (STORYLINE_FACES).
 *
 * Beside them, each program reads what the stack does not own (docs/lookups.md), from stack
 * config: a template made outside the stack with the SDK, by a static `get` (a read resource),
 * and the account's own network volume, by `getNetworkVolume` by name;
 * every case then runs with both there, and destroy leaves the template as it was.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { parse, stringify } from "yaml";
import { formatDollars } from "../../contract/estimate";
import { resourceByToken } from "../../provider/resources";
import { ComputeClient, fingerprintOf } from "../../sdk";
import { eventually } from "../helpers/eventually";
import { newPublicKey } from "../helpers/ssh-keys";
import { createE2EStack, type E2EStack } from "./harness";

/** The secrets the stack is given: neither may ever appear in its state in plaintext. */
export const REGISTRY_USERNAME = "robot-e2e-user-7c1d";
export const REGISTRY_PASSWORD = "registry-pass-first-91f3";
const REGISTRY_PASSWORD_2 = "registry-pass-second-04ab";

/** The program's resources and the stack: what every clean preview counts as `same`. */
const TOTAL = 7;
/**
 * The resources the program reads (`get`). The engine counts a read step only when it had read
 * the resource before and the outputs changed (v3.248.0 pkg/engine/update.go,
 * shouldRecordReadStep), so an up or preview counts a read that changed nothing under no kind
 * at all, not even `same`; a refresh counts it (as `same` when nothing changed) like any other.
 */
const READ = 1;

/** The secret env value of the template made outside the stack: never in its state in plaintext. */
const OUTSIDE_TOKEN = "hf_outsideMakerToken5e0c";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export type EnvironmentOutputs = {
  volumeId: string;
  volumeServiceName: string;
  volumeSize: number;
  volumeType: string;
  volumeDataCenter: string;
  registryId: string;
  registryServiceName: string;
  templateId: string;
  templateServiceName: string;
  keyFingerprint: string;
  keyLine: string;
  endpointId: string;
  endpointComputeType: string;
  endpointWorkersMin: number;
  endpointWorkersMax: number;
  podId: string;
  podStatus: string;
  /** The template read by `get`: its outputs as the read recorded them. */
  outsideTemplateId: string;
  outsideTemplateServiceName: string;
  outsideTemplateArgs: string;
  /** The volume `getNetworkVolume` found by name: the service's answer. */
  foundVolumeId: string;
  foundVolumeSize: number;
  foundVolumeDataCenter: string;
};

/** What the account holds of each kind, by id (and its SSH key lines). */
interface Holdings {
  volumes: string[];
  templates: string[];
  registries: string[];
  endpoints: string[];
  pods: string[];
  sshKeys: string[];
}

const ACCOUNT = "acct_dev";

type Owned = { id: string; accountId: string | null };
/** What the suites read of `GET /_emulator/state`. */
export interface EmulatorState {
  accounts: Array<{ id: string; sshKeys: string[] }>;
  networkVolumes: Array<Owned & { name: string; size: number; type: string }>;
  templates: Array<Owned & { name: string }>;
  registries: Array<Owned & { name: string; username: string; passwordSha256: string }>;
  endpoints: Array<Owned & { name: string }>;
  pods: Array<Owned & { name: string }>;
}

/** The stack's state as `pulumi stack export` prints it (secrets as ciphertext). */
export async function exportedState(e2e: E2EStack): Promise<string> {
  const run = await e2e.cli(["stack", "export"]);
  if (run.code !== 0) throw new Error(`pulumi stack export failed (${run.code}): ${run.stderr}`);
  return run.stdout;
}

/** A summary of changes as expected, or an error that shows what the engine printed. */
export function expectChanges(summary: Record<string, number> | undefined, expected: Record<string, number>, output: string): void {
  if (JSON.stringify(Object.entries(summary ?? {}).sort()) !== JSON.stringify(Object.entries(expected).sort())) {
    throw new Error(`expected the changes ${JSON.stringify(expected)}, got ${JSON.stringify(summary)}; the engine printed:\n${output}`);
  }
}

export async function emulatorState(e2e: E2EStack): Promise<EmulatorState> {
  return (await e2e.control.state()) as unknown as EmulatorState;
}

export function holdingsOf(state: EmulatorState, account = ACCOUNT): Holdings {
  const own = (items: Owned[]) =>
    items
      .filter((item) => item.accountId === account)
      .map((item) => item.id)
      .sort();
  return {
    volumes: own(state.networkVolumes),
    templates: own(state.templates),
    registries: own(state.registries),
    endpoints: own(state.endpoints),
    pods: own(state.pods),
    sshKeys: [...(state.accounts.find((a) => a.id === account)?.sshKeys ?? [])],
  };
}

export interface EnvironmentStack {
  e2e: E2EStack;
  client: ComputeClient;
  /** The outputs of the last `up`. */
  last: EnvironmentOutputs;
  /** `<project>/<stack>`, as owner marks spell it. */
  owner: string;
  /** A key registered on the account by hand during the cases (the import cases import it). */
  byHand?: string;
  /** The template made outside the stack, which the program reads; the volume it looks up by name. */
  outside: { templateId: string; volumeName: string };
}

/** How the program reaches the provider runtime: the dynamic classes, or the native plugin from Python or YAML. */
export type Face = "typescript" | "python" | "yaml";

/**
 * Where a case runs through the engine. Every case runs in every face but these, each a rule of
 * the provider runtime (the same code in all three faces: the dynamic-provider host runs it for
 * TypeScript, the native plugin for Python and YAML) for which the engine adds nothing that
 * depends on the rule or the language: each runs where this says, and the rule itself is proven
 * at the provider level (test/provider/environment.test.ts), which is cheaper than an engine
 * operation (3-4 CPU-seconds of process start-ups each, on a 2-core machine).
 *
 * - The bad inputs: a failed check, which the engine prints and stops the preview at. How it
 *   prints one depends on the face (the dynamic face prints a failure without a property, the
 *   native face with one), never on the rule; so each rule runs in one face, two in each, and
 *   every face still proves its own path. Each rule is also asserted at the provider level: the
 *   failure names the field and the rule, and the check sends nothing but GETs.
 *   - typescript: shrinking the volume (a rule on the recorded size, which the dynamic-provider
 *     host passes as the olds), a template port that is not port/protocol (an element of a list);
 *   - python: a volume tier the data center does not offer (two config keys at once), more minimum
 *     than maximum endpoint workers (a nested input through the SDK's `...Args` class);
 *   - yaml: an empty registry username (a secret input), a public key that is not an
 *     authorized_keys line.
 * - A key registered by hand is a preview error that says to import it: the same failed check,
 *   in the face that imports (`importOutside`: YAML), whose import cases then take that key over.
 * - The endpoint's estimate at preview: a line the check prints, through the same sink as the
 *   template's warnings, which every face checks at its update (and test/e2e/cost.test.ts, in
 *   the dynamic face and in YAML): python.
 * - A volume a pod outside the stack mounts refuses destroy: destroy does not run the program, so
 *   Python and YAML reach the native plugin the same way: typescript (the dynamic-provider host)
 *   and yaml.
 * - The volume's and the template's updates in place and the four replacements: typescript and
 *   yaml. Python reaches the same native plugin as YAML; what its face adds is the generated SDK
 *   carrying each kind's inputs and outputs, which its create, its reads, its secrets, its
 *   refresh, the endpoint's update (nested inputs through the SDK's `...Args` classes) and its
 *   destroy show.
 * - The preview before each update in place (its summary, the template's warnings): typescript
 *   (the dynamic-provider host's preview). The other faces run the up alone and find the
 *   template's warnings in its output: the provider's check prints them in an up as in a preview.
 * - The closing preview, refresh and preview after the replacements: yaml. Every face runs the
 *   earlier "refresh, then preview: no changes" on its fresh stack.
 */
const BAD_INPUT: ReadonlyArray<[string, Face, Record<string, string>, RegExp[]]> = [
  ["shrinking the volume", "typescript", { volumeSize: "10" }, [/size: cannot shrink from 30 GB to 10 GB/]],
  ["a volume tier the data center does not offer", "python", { volumeDataCenter: "US-CA-2", volumeType: "HIGH_PERFORMANCE" }, [/type: data center US-CA-2 offers STANDARD volumes, not HIGH_PERFORMANCE/]],
  ["a template port that is not port/protocol", "typescript", { templatePort: "8888/udp" }, [/ports\[1\]/]],
  ["an empty registry username", "yaml", { registryUsername: "" }, [/username/]],
  ["a public key that is not an authorized_keys line", "yaml", { sshPublicKey: "ssh-ed25519 not/a/key!" }, [/publicKey: must be one authorized_keys line/]],
  ["more minimum than maximum endpoint workers", "python", { endpointWorkersMin: "6" }, [/workers\.min: must not exceed workers\.max/]],
];
const ESTIMATE_FACES: readonly Face[] = ["python"];
const DESTROY_REFUSED_FACES: readonly Face[] = ["typescript", "yaml"];
const STORYLINE_FACES: readonly Face[] = ["typescript", "yaml"];
const UPDATE_PREVIEW_FACES: readonly Face[] = ["typescript"];
const CLOSING_FACES: readonly Face[] = ["yaml"];

interface Options {
  /** Native programs only: `pulumi import` of each kind made outside the stack (YAML writes the declarations). */
  importOutside?: boolean;
}

/**
 * The shared cases, in order, over one stack of `program` (a folder of test/e2e/programs). A
 * YAML program given `importOutside` runs from a copy in a temporary folder, so the suite can add
 * the declarations `pulumi import` prints to it.
 */
export function describeEnvironmentStack(name: string, program: string, face: Face, options: Options = {}): void {
  const env = {} as EnvironmentStack;
  /** The stack config the program reads now (the program's defaults for what is not set). */
  const config: Record<string, string> = {};
  let programDir: string;
  let copied = false;
  let before: Holdings;
  let firstKey: string;

  async function setConfig(values: Record<string, string>): Promise<void> {
    Object.assign(config, values);
    await env.e2e.stack.setAllConfig(Object.fromEntries(Object.entries(values).map(([key, value]) => [key, { value, secret: key === "registryPassword" }])));
  }

  async function upWith(values: Record<string, string>): Promise<{ out: EnvironmentOutputs; summary: Record<string, number>; output: string }> {
    await setConfig(values);
    let output = "";
    const result = await env.e2e.stack.up({ onOutput: (text) => (output += text) });
    const out = Object.fromEntries(Object.entries(result.outputs).map(([key, value]) => [key, value.value])) as EnvironmentOutputs;
    return { out, summary: result.summary.resourceChanges as Record<string, number>, output };
  }

  /**
   * The preview of `values` (in UPDATE_PREVIEW_FACES), then the `up` (the up runs whatever the
   * preview showed, so one wrong preview does not leave its change to the next case). Elsewhere
   * the up alone: its output holds what the provider's check printed, as a preview's does.
   */
  async function previewThenUp(values: Record<string, string>) {
    await setConfig(values);
    if (!previewed) return { ...(await upWith({})), preview: undefined };
    let previewOutput = "";
    // Not `diff: true`: the engine's diff display leaves out the provider's progress lines.
    const preview = await env.e2e.stack.preview({ onOutput: (text) => (previewOutput += text) });
    const up = await upWith({});
    return { ...up, preview: { summary: preview.changeSummary, output: previewOutput } };
  }

  /** A preview that must fail on `values`, its message matching each of `expected`; the config is put back after. */
  async function expectPreviewError(values: Record<string, string>, expected: RegExp[]): Promise<string> {
    const restore = Object.fromEntries(Object.keys(values).map((key) => [key, config[key]]));
    await setConfig(values);
    const failed = await env.e2e.stack.preview().then(
      () => undefined,
      (error: Error) => error,
    );
    // Put back what was there (a key the program defaulted is removed again).
    const unset = Object.keys(restore).filter((key) => restore[key] === undefined);
    await setConfig(Object.fromEntries(Object.entries(restore).filter(([, value]) => value !== undefined)) as Record<string, string>);
    if (unset.length > 0) {
      await env.e2e.stack.removeAllConfig(unset);
      for (const key of unset) delete config[key];
    }
    expect(failed).toBeInstanceOf(Error);
    const message = String(failed?.message);
    for (const pattern of expected) expect(message).toMatch(pattern);
    return message;
  }

  /** Whether this face previews each update in place before its up (UPDATE_PREVIEW_FACES). */
  const previewed = UPDATE_PREVIEW_FACES.includes(face);
  const state = () => emulatorState(env.e2e);
  const marked = (serviceName: string, programName: string) => new RegExp(`^${programName}~${env.owner.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}~[0-9a-f]{18}$`).test(serviceName);

  beforeAll(async () => {
    programDir = program;
    if (options.importOutside) {
      programDir = mkdtempSync(path.join(tmpdir(), `compute-e2e-${name}-program-`));
      cpSync(path.join(__dirname, "programs", program), programDir, { recursive: true });
      copied = true;
    }
    env.e2e = await createE2EStack(name, { program: programDir });
    env.client = new ComputeClient({ baseUrl: env.e2e.emulator.url, apiKey: env.e2e.emulator.apiKey, env: {} });
    env.owner = `${(await env.e2e.stack.workspace.projectSettings()).name}/${env.e2e.stack.name}`;
    firstKey = newPublicKey("dev@e2e-first");
    // Made before `before` is taken: destroy must leave it, as it leaves the account's own keys.
    const template = await env.client.templates.create({ name: "shared-base", image: "python:3.12-slim", args: "python serve.py", env: { HF_TOKEN: OUTSIDE_TOKEN, MODE: "batch" }, category: "CPU" });
    // The account's own volume (the fixture's first), found in the emulator, not named here.
    const volume = (await state()).networkVolumes.find((v) => v.accountId === ACCOUNT)!;
    env.outside = { templateId: template.id, volumeName: volume.name };
    await setConfig({
      registryUsername: REGISTRY_USERNAME,
      registryPassword: REGISTRY_PASSWORD,
      sshPublicKey: firstKey,
      outsideTemplateId: env.outside.templateId,
      outsideVolumeName: env.outside.volumeName,
    });
    before = holdingsOf(await state());
    expect(before.sshKeys.length).toBeGreaterThan(0); // the fixture's own keys, which must outlive the stack
  });
  afterAll(async () => {
    await env.client?.close();
    await env.e2e?.dispose();
    if (copied) rmSync(programDir, { recursive: true, force: true });
  });

  it("up creates the five resources and the pod that uses them, each marked as the stack's", async () => {
    const { out, summary, output } = await upWith({});
    expectChanges(summary, { create: TOTAL }, output);
    expect(output).not.toMatch(/from \$PATH/);
    env.last = out;

    // The service holds each name followed by the owner mark: `<name>~<project>/<stack>~<tag>`.
    expect(marked(out.volumeServiceName, "datasets")).toBe(true);
    expect(marked(out.templateServiceName, "worker-base")).toBe(true);
    expect(marked(out.registryServiceName, "private-registry")).toBe(true);
    expect(out).toMatchObject({ volumeSize: 20, volumeType: "STANDARD", volumeDataCenter: "US-TX-3", endpointComputeType: "CPU", endpointWorkersMin: 1, endpointWorkersMax: 3, podStatus: "RUNNING" });

    // The key: its own line, the mark appended to its comment; the account's other keys kept.
    expect(out.keyFingerprint).toBe(fingerprintOf(firstKey));
    expect(out.keyLine.startsWith(`${firstKey} pulumi-compute-owner=`)).toBe(true);
    expect(out.keyLine).toContain(`:${env.owner}/key`);
    const now = holdingsOf(await state());
    expect(now.sshKeys).toEqual([...before.sshKeys, out.keyLine]);

    // The endpoint carries its mark in its environment.
    const endpoint = await env.client.serverless.get(out.endpointId);
    expect(endpoint.env?.PULUMI_COMPUTE_OWNER).toMatch(new RegExp(`:${env.owner}/endpoint$`));
    expect(endpoint).toMatchObject({ type: "QUEUE", networkVolumes: [out.volumeId], dataCenterIds: ["US-TX-3"], registry: out.registryId, timeout: 600000, flashboot: "FLASHBOOT" });
    expect(endpoint.cpu).toEqual([expect.objectContaining({ id: "cpu3c", vcpuCount: 2 })]);
  });

  it("reads the template made outside the stack (a read, not a create) and finds the account's volume by name: the outputs are the service's, the read env secret", async () => {
    const [template, volumes] = await Promise.all([env.client.templates.get(env.outside.templateId), env.client.networkVolumes.list()]);
    expect({ id: env.last.outsideTemplateId, serviceName: env.last.outsideTemplateServiceName, args: env.last.outsideTemplateArgs }).toEqual({
      id: template.id,
      serviceName: template.name,
      args: template.args,
    });
    const named = volumes.filter((v) => v.name === env.outside.volumeName);
    expect(named).toHaveLength(1);
    expect({ id: env.last.foundVolumeId, size: env.last.foundVolumeSize, dataCenter: env.last.foundVolumeDataCenter }).toEqual({ id: named[0]!.id, size: named[0]!.size, dataCenter: named[0]!.dataCenter });
    // Recorded as a read resource (`external`): the engine never creates, updates or deletes it.
    const resources = (JSON.parse(await exportedState(env.e2e)) as { deployment: { resources: Array<{ type: string; id?: string; external?: boolean }> } }).deployment.resources;
    const read = resources.filter((r) => r.external === true);
    expect(read.map((r) => [resourceByToken(r.type)?.kind, r.id])).toEqual([["template", template.id]]);
    // Nothing names the volume: a lookup adds nothing to the stack.
    expect(resources.map((r) => r.id)).not.toContain(named[0]!.id);
    // Its maker's env, read with it, is ciphertext in whatever the backend wrote.
    expect(template.env).toMatchObject({ HF_TOKEN: OUTSIDE_TOKEN });
    expect(await env.e2e.stateText()).not.toContain(OUTSIDE_TOKEN);
  });

  it("the pod uses the others by reference: its template's settings, the volume mounted, the credential, the key as PUBLIC_KEY", async () => {
    const pod = await env.client.pods.get(env.last.podId);
    expect(pod.image).toBe("python:3.12-slim"); // from the template
    expect(pod.env).toMatchObject({ STAGE: "one" });
    expect(pod.ports).toEqual(expect.arrayContaining(["22/tcp", "8888/http"]));
    expect(pod.mounts?.network).toEqual([expect.objectContaining({ volumeId: env.last.volumeId, path: "/data" })]);
    expect(pod.registry).toBe(env.last.registryId);
    expect(pod.env.PUBLIC_KEY?.split("\n")).toContain(env.last.keyLine);
    const template = await env.client.templates.get(env.last.templateId);
    expect(template).toMatchObject({ registry: env.last.registryId, category: "CPU", startJupyter: false });
  });

  it("the registry credential's username and password reach the service and never the state in plaintext", async () => {
    const registry = (await state()).registries.find((r) => r.id === env.last.registryId);
    expect(registry).toMatchObject({ username: REGISTRY_USERNAME, passwordSha256: sha256(REGISTRY_PASSWORD) });
    // The password is secret config: nowhere in what the backend wrote (state, history, backups).
    const text = await env.e2e.stateText();
    expect(text).toContain(env.last.registryId);
    expect(text).not.toContain(REGISTRY_PASSWORD);
    expect(text).not.toContain(env.e2e.emulator.apiKey);
    // The username is plain config here (so a provider that records the stack config holds it
    // as given), yet always a secret input: ciphertext in the credential's recorded state.
    const resources = (JSON.parse(await exportedState(env.e2e)) as { deployment: { resources: Array<{ type: string; id?: string }> } }).deployment.resources;
    const credential = resources.find((r) => resourceByToken(r.type)?.kind === "registry credential");
    expect(credential?.id).toBe(env.last.registryId);
    expect(JSON.stringify(credential)).not.toContain(REGISTRY_USERNAME);
    expect(JSON.stringify(credential)).not.toContain(REGISTRY_PASSWORD);
  });

  if (ESTIMATE_FACES.includes(face)) it("preview estimates the endpoint: workers.min × one worker's price, the ceiling at workers.max", async () => {
    const flavor = (await env.client.catalog.cpuFlavors()).find((f) => f.id === "cpu3c")!;
    const worker = flavor.price.serverlessPerVcpu! * 2;
    let output = "";
    const preview = await env.e2e.stack.preview({ onOutput: (text) => (output += text) });
    expectChanges(preview.changeSummary, { same: TOTAL }, output);
    expect(output).toContain(`estimated ${formatDollars(worker * 1)} $/hr (at the minimum workers; up to ${formatDollars(worker * 3)} $/hr at 3 workers; 2 vCPU cpu3c)`);
  });

  it("refresh, then preview: no changes; the refreshed read keeps its env secret", async () => {
    const refresh = await env.e2e.stack.refresh();
    expect(refresh.summary.resourceChanges).toEqual({ same: TOTAL + READ });
    // A refresh records what the read answers, inputs too: the maker's token still ciphertext.
    expect(await env.e2e.stateText()).not.toContain(OUTSIDE_TOKEN);
    expect((await env.e2e.stack.preview()).changeSummary).toEqual({ same: TOTAL });
  });

  // Updates in place: the same ids, the new values on the service.

  if (STORYLINE_FACES.includes(face)) it(`growing the volume and renaming it updates it in place (PATCH), the owner mark kept in its name${previewed ? "; the preview says so" : ""}`, async () => {
    const { out, summary, output, preview } = await previewThenUp({ volumeSize: "30", volumeName: "datasets-v2" });
    expectChanges(summary, { same: TOTAL - 1, update: 1 }, output);
    expect(out.volumeId).toBe(env.last.volumeId);
    expect(out.volumeSize).toBe(30);
    expect(marked(out.volumeServiceName, "datasets-v2")).toBe(true);
    expect(out.volumeServiceName.slice(out.volumeServiceName.lastIndexOf("~"))).toBe(env.last.volumeServiceName.slice(env.last.volumeServiceName.lastIndexOf("~")));
    const volume = await env.client.networkVolumes.get(out.volumeId);
    expect(volume).toMatchObject({ size: 30, name: out.volumeServiceName });
    env.last = out;
    // The volume keeps its id, so what mounts or lists it does not change.
    if (preview) expectChanges(preview.summary, { same: TOTAL - 1, update: 1 }, preview.output);
  });

  if (STORYLINE_FACES.includes(face)) it(`changing the template updates it in place, and the ${previewed ? "preview" : "up"} warns on the template and on the pod made from it`, async () => {
    const { out, summary, output, preview } = await previewThenUp({ templateImage: "python:3.13-slim", templateStage: "two" });
    expectChanges(summary, { same: TOTAL - 1, update: 1 }, output);
    expect(out.templateId).toBe(env.last.templateId);
    expect(out.podId).toBe(env.last.podId); // not replaced, not updated
    const template = await env.client.templates.get(out.templateId);
    expect(template).toMatchObject({ image: "python:3.13-slim", env: { STAGE: "two" } });
    const pod = await env.client.pods.get(out.podId);
    expect(pod.image).toBe("python:3.12-slim"); // what its template gave it at create
    expect(pod.env).toMatchObject({ STAGE: "one" });
    env.last = out;

    if (preview) expectChanges(preview.summary, { same: TOTAL - 1, update: 1 }, preview.output);
    const warned = preview?.output ?? output;
    expect(warned).toMatch(/template worker-base: changes (env, image|image, env): pods and sandboxes already made from it keep their settings/);
    expect(warned).toMatch(new RegExp(`pod worker-[0-9a-f]{8}: warning: its template worker-base \\(${out.templateId}\\) changes in this update \\((env, image|image, env)\\), but a pod keeps what its template gave it at create`));
  });

  it(`changing the endpoint's vCPUs and maximum workers updates it in place${previewed ? "; the preview says so" : ""}`, async () => {
    const { out, summary, output, preview } = await previewThenUp({ endpointVcpuCount: "4", endpointWorkersMax: "5" });
    expectChanges(summary, { same: TOTAL - 1, update: 1 }, output);
    expect(out.endpointId).toBe(env.last.endpointId);
    expect(out.endpointWorkersMax).toBe(5);
    const endpoint = await env.client.serverless.get(out.endpointId);
    expect(endpoint.cpu).toEqual([expect.objectContaining({ id: "cpu3c", vcpuCount: 4 })]);
    expect(endpoint.workers).toMatchObject({ min: 1, max: 5 });
    env.last = out;
    if (preview) expectChanges(preview.summary, { same: TOTAL - 1, update: 1 }, preview.output);
  });

  // Preview errors: the field named, nothing sent (each in one face: BAD_INPUT).

  const badInput = BAD_INPUT.filter(([, where]) => where === face).map(([what, , values, expected]) => [what, values, expected] as const);
  it.each(badInput)("%s fails the preview naming the field, and changes nothing", async (_what, values, expected) => {
    const requests = (await env.e2e.control.requests()).length;
    await expectPreviewError(values, expected);
    const sent = (await env.e2e.control.requests()).slice(requests).filter((r) => r.method !== "GET");
    expect(sent).toEqual([]);
  });

  // The import cases take this key over (BAD_INPUT's comment says why it runs in that face alone).
  if (options.importOutside) it("a public key someone registered by hand is a preview error that says to import it", async () => {
    const byHand = newPublicKey("ops@by-hand");
    await env.client.sshKeys.add(byHand);
    await expectPreviewError({ sshPublicKey: byHand }, [new RegExp(`publicKey: the key ${fingerprintOf(byHand).replace(/[+/]/g, "\\$&")} is already registered on the account outside any stack; import it`)]);
    expect(holdingsOf(await state()).sshKeys).toContain(byHand); // untouched
    env.byHand = byHand;
  });

  // Replacements: a new resource, what uses it moved over, the old one gone.

  if (STORYLINE_FACES.includes(face)) it("changing the volume's tier replaces it; the pod mounting it is replaced, the endpoint moves over by update", async () => {
    const { out, summary, output } = await upWith({ volumeType: "HIGH_PERFORMANCE" });
    expectChanges(summary, { same: TOTAL - 3, replace: 2, update: 1 }, output);
    expect(out.volumeId).not.toBe(env.last.volumeId);
    expect(out.volumeType).toBe("HIGH_PERFORMANCE");
    expect(out.volumeSize).toBe(30);
    expect(out.podId).not.toBe(env.last.podId);
    expect(out.endpointId).toBe(env.last.endpointId);
    expect((await env.client.serverless.get(out.endpointId)).networkVolumes).toEqual([out.volumeId]);
    const now = holdingsOf(await state());
    expect(now.volumes).toContain(out.volumeId);
    expect(now.volumes).not.toContain(env.last.volumeId);
    expect(now.pods).not.toContain(env.last.podId);
    env.last = out;
  });

  if (STORYLINE_FACES.includes(face)) it("changing the registry password replaces the credential, created before the old one is deleted; the template, endpoint and pod move over by update", async () => {
    await env.e2e.control.clearRequests();
    const { out, summary, output } = await upWith({ registryPassword: REGISTRY_PASSWORD_2 });
    expectChanges(summary, { same: TOTAL - 4, replace: 1, update: 3 }, output);
    expect(out.registryId).not.toBe(env.last.registryId);
    expect(out.templateId).toBe(env.last.templateId);
    expect(out.podId).toBe(env.last.podId);
    const mutations = (await env.e2e.control.requests()).filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    const created = mutations.indexOf("POST /v2/registries");
    const deleted = mutations.indexOf(`DELETE /v2/registries/${env.last.registryId}`);
    expect(created).toBeGreaterThanOrEqual(0);
    expect(deleted).toBeGreaterThan(created);
    const registries = (await state()).registries.filter((r) => r.accountId === ACCOUNT);
    expect(registries.map((r) => r.id)).not.toContain(env.last.registryId);
    expect(registries.find((r) => r.id === out.registryId)).toMatchObject({ passwordSha256: sha256(REGISTRY_PASSWORD_2) });
    expect((await env.client.templates.get(out.templateId)).registry).toBe(out.registryId);
    expect((await env.client.serverless.get(out.endpointId)).registry).toBe(out.registryId);
    expect((await env.client.pods.get(out.podId)).registry).toBe(out.registryId);
    expect(await env.e2e.stateText()).not.toContain(REGISTRY_PASSWORD_2);
    env.last = out;
  });

  if (STORYLINE_FACES.includes(face)) it("changing the public key replaces the SshKey: its new line added, its old one removed, the account's others kept", async () => {
    const second = newPublicKey("dev@e2e-second");
    const { out, summary, output } = await upWith({ sshPublicKey: second });
    expectChanges(summary, { same: TOTAL - 1, replace: 1 }, output);
    expect(out.keyFingerprint).toBe(fingerprintOf(second));
    const keys = holdingsOf(await state()).sshKeys;
    expect(keys).toContain(out.keyLine);
    expect(keys.map(fingerprintOf)).not.toContain(env.last.keyFingerprint);
    for (const key of before.sshKeys) expect(keys).toContain(key);
    env.last = out;
  });

  if (STORYLINE_FACES.includes(face)) it("changing the endpoint's type replaces it: a new id, the old one gone", async () => {
    const { out, summary, output } = await upWith({ endpointType: "LOAD_BALANCER" });
    expectChanges(summary, { same: TOTAL - 1, replace: 1 }, output);
    expect(out.endpointId).not.toBe(env.last.endpointId);
    expect((await env.client.serverless.get(out.endpointId)).type).toBe("LOAD_BALANCER");
    expect(holdingsOf(await state()).endpoints).not.toContain(env.last.endpointId);
    env.last = out;
  });

  if (CLOSING_FACES.includes(face)) it("after all that: preview, refresh and preview again show no changes", async () => {
    expect((await env.e2e.stack.preview()).changeSummary).toEqual({ same: TOTAL });
    expect((await env.e2e.stack.refresh()).summary.resourceChanges).toEqual({ same: TOTAL + READ });
    expect((await env.e2e.stack.preview()).changeSummary).toEqual({ same: TOTAL });
  });

  if (options.importOutside) describeImports(env, () => programDir, TOTAL);

  if (DESTROY_REFUSED_FACES.includes(face)) it("a volume a pod outside the stack mounts cannot be deleted: destroy fails naming it, and deletes nothing of it", async () => {
    const outside = await env.client.pods.create({
      name: "outside-user",
      image: "python:3.12-slim",
      cpu: { id: "cpu3c", vcpuCount: 2 },
      dataCenterIds: ["US-TX-3"],
      mounts: { network: [{ volumeId: env.last.volumeId, path: "/shared" }] },
    });
    const failed = await env.e2e.stack.destroy().then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    expect(String(failed?.message)).toMatch(new RegExp(`DELETE /v2/network-volumes/${env.last.volumeId}.*409.*mounted by pod ${outside.id}`));
    expect((await env.client.networkVolumes.get(env.last.volumeId)).id).toBe(env.last.volumeId);
    const exported = await env.e2e.stack.exportStack();
    expect((exported.deployment.resources as Array<{ id?: string }>).map((r) => r.id)).toContain(env.last.volumeId);

    await env.client.pods.delete(outside.id);
    await eventually("the outside pod gone", async () => !holdingsOf(await state()).pods.includes(outside.id), { timeoutMs: 30_000 });
  });

  it("destroy leaves nothing of the stack on the service, the account's own SSH keys where they were, and the template it only read as it was", async () => {
    const read = await env.client.templates.get(env.outside.templateId);
    await env.e2e.stack.destroy();
    const after = holdingsOf(await state());
    expect(after).toEqual(before);
    expect(after.templates).toContain(env.outside.templateId);
    expect(await env.client.templates.get(env.outside.templateId)).toEqual(read);
    const left = await env.e2e.stack.exportStack();
    expect(((left.deployment.resources ?? []) as Array<{ type: string }>).filter((r) => r.type !== "pulumi:pulumi:Stack" && !r.type.startsWith("pulumi:providers:"))).toEqual([]);
  });
}

interface Program {
  resources?: Record<string, { type: string; properties: Record<string, unknown>; options?: Record<string, unknown> }>;
}

/**
 * `pulumi import` of each kind made outside the stack (with the SDK, as someone using the
 * console would), by the CLI: the declaration it prints, added to the program unchanged,
 * previews with no change, and the stack then owns what it imported.
 */
function describeImports(env: EnvironmentStack, programDir: () => string, total: number): void {
  const made: Record<string, { type: string; id: string; expected: Record<string, unknown> }> = {};
  const generated: NonNullable<Program["resources"]> = {};

  async function importResource(type: string, name: string, id: string): Promise<Program> {
    const out = path.join(programDir(), `.generated-${name}.yaml`);
    const run = await env.e2e.cli(["import", type, name, id, "--protect=false", "--yes", "--out", out]);
    if (run.code !== 0) throw new Error(`pulumi import ${type} ${name} ${id} failed (${run.code}):\n${run.stdout}\n${run.stderr}`);
    const code = parse(readFileSync(out, "utf8")) as Program;
    rmSync(out);
    return code;
  }

  it("makes one of each kind outside the stack (the SDK, as the console would)", async () => {
    const { client } = env;
    const volume = await client.networkVolumes.create({ name: "legacy-data", dataCenter: "US-TX-3", size: 40, type: "STANDARD" });
    made.legacyVolume = { type: "compute:index:NetworkVolume", id: volume.id, expected: { name: "legacy-data", dataCenterId: "US-TX-3", size: 40, type: "STANDARD" } };
    const registry = await client.registries.create({ name: "legacy-registry", username: "legacy-user", password: "legacy-password-5d2e" });
    made.legacyRegistry = { type: "compute:index:RegistryCredential", id: registry.id, expected: { name: "legacy-registry" } };
    const template = await client.templates.create({ name: "legacy-template", image: "nginx:1.27", ports: ["80/http"], env: { MODE: "prod" }, category: "CPU", registry: registry.id });
    made.legacyTemplate = {
      type: "compute:index:Template",
      id: template.id,
      // As for an imported pod, every env value is imported as a secret (its value still spelled out).
      expected: { name: "legacy-template", image: "nginx:1.27", ports: ["80/http"], env: { MODE: { "fn::secret": "prod" } }, category: "CPU", registryId: registry.id },
    };
    // The key registered by hand earlier, which the preview said to import.
    const line = env.byHand!;
    made.legacyKey = { type: "compute:index:SshKey", id: fingerprintOf(line), expected: { publicKey: line } };
    const endpoint = await client.serverless.create({
      name: "legacy-endpoint",
      type: "QUEUE",
      image: "nginx:1.27",
      cpu: [{ id: "cpu3c", vcpuCount: 2 }],
      scaling: { type: "QUEUE_DELAY", queueDelay: 4 },
      workers: { max: 2 },
      networkVolumes: [volume.id],
    });
    made.legacyEndpoint = {
      type: "compute:index:ServerlessEndpoint",
      id: endpoint.id,
      expected: { name: "legacy-endpoint", type: "QUEUE", image: "nginx:1.27", cpu: [{ id: "cpu3c", vcpuCount: 2 }], scaling: { type: "QUEUE_DELAY", queueDelay: 4 }, workers: { max: 2 }, networkVolumeIds: [volume.id] },
    };
    // Outside the stack: the state holds none of them until each is imported.
    const exported = await env.e2e.stack.exportStack();
    const inState = new Set((exported.deployment.resources as Array<{ id?: string }>).map((r) => r.id));
    expect(Object.values(made).filter(({ id }) => inState.has(id))).toEqual([]);
    expect(Object.keys(made)).toHaveLength(5);
  });

  it.each(["legacyVolume", "legacyRegistry", "legacyTemplate", "legacyKey", "legacyEndpoint"])("pulumi import of %s by id prints its declaration with its settings", async (name) => {
    const { type, id, expected } = made[name]!;
    const code = await importResource(type, name, id);
    expect(Object.keys(code.resources ?? {})).toEqual([name]);
    // The YAML generator writes the short token form (`compute:NetworkVolume`).
    expect(code.resources![name]).toMatchObject({ type: type.replace(":index:", ":"), properties: expected });
    Object.assign(generated, code.resources);
    const exported = await env.e2e.stack.exportStack();
    expect((exported.deployment.resources as Array<{ id?: string }>).find((r) => r.id === id)).toMatchObject({ type });
  });

  it("the program with the printed declarations added previews with no changes, and an up changes nothing", async () => {
    const file = path.join(programDir(), "Pulumi.yaml");
    const project = parse(readFileSync(file, "utf8")) as Program;
    writeFileSync(file, stringify({ ...project, resources: { ...project.resources, ...generated } }));
    const count = total + Object.keys(generated).length;
    let output = "";
    const preview = await env.e2e.stack.preview({ diff: true, onOutput: (text) => (output += text) });
    expectChanges(preview.changeSummary, { same: count }, output);
    expect((await env.e2e.stack.up()).summary.resourceChanges).toEqual({ same: count });
  });
}
