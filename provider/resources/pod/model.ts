/**
 * The Pod resource's data: the desired inputs as the provider receives them, the create and
 * update requests built from them, the outputs recorded in state, and the diff table.
 * Pure functions only: the handlers do the I/O.
 */
import type { CreatePodRequest, Pod, UpdatePodRequest } from "../../../sdk";
import { INJECTED_ENV_KEYS, POD_ACTIVE_STATUSES, POD_OWNER_ENV, commandOf, encodeCommand, sameCommand } from "../../../sdk";
import { isUnknown } from "../unknowns";
import { candidatesChooseGpuType, currentPlacement, placementDiff } from "../placement";
import { createRequestOf, defaultDiff, inputsOf, same, type CheckedInputs, type DiffResult, type FactValues, type Recorded } from "../definition";
import { programName, renamedKeepingMark } from "../wire";
import { splitLifetimeTag } from "../../../contract/lifetime";
import { POD_INPUTS } from "./inputs";
import type { POD_OUTPUTS } from "./outputs";

/** Inputs after `check` (what `create`/`diff`/`update` receive as `news`). */
export type PodInputs = CheckedInputs<typeof POD_INPUTS>;

/** Live facts recorded next to the desired inputs in the outputs: one per entry of `POD_OUTPUTS`. */
export type PodFacts = FactValues<typeof POD_OUTPUTS>;

export type PodOutputs = Recorded<PodInputs, PodFacts>;

export function toCreateRequest(inputs: PodInputs): CreatePodRequest {
  return createRequestOf(POD_INPUTS, inputs) as CreatePodRequest;
}

export function factsFromPod(pod: Pod, previous?: Partial<PodFacts>): PodFacts {
  return {
    podId: pod.id,
    status: pod.status,
    dataCenterId: pod.dataCenterId,
    gpuTypeId: pod.gpu?.id ?? null,
    gpuCount: pod.gpu?.count ?? null,
    cpuFlavorId: pod.cpu?.id ?? null,
    vcpuCount: pod.gpu?.vcpuCount ?? pod.cpu?.vcpuCount ?? null,
    memoryGb: pod.gpu?.memory ?? pod.cpu?.memory ?? null,
    cudaVersion: pod.cudaVersion,
    costPerHour: pod.cost,
    sshProxyCommand: pod.ssh.proxy?.command ?? null,
    sshDirectCommand: pod.ssh.direct?.command ?? null,
    publicPorts: (pod.runtime?.ports ?? []).map((p) => ({ privatePort: p.private, publicPort: p.public, ip: p.ip, type: p.type ?? "" })),
    globalNetworkingIp: pod.globalNetworking.ip ?? null,
    internalDns: pod.globalNetworking.internalDns ?? null,
    imageApplied: pod.image,
    argsApplied: pod.args,
    createdAt: pod.createdAt,
    startedAt: pod.startedAt,
    placementChosen: previous?.placementChosen ?? { gpuTypeId: pod.gpu?.id, dataCenterId: pod.dataCenterId ?? undefined },
    placementAttempts: previous?.placementAttempts ?? [],
    jupyterPassword: pod.env.JUPYTER_PASSWORD ?? previous?.jupyterPassword ?? null,
  };
}

/** The desired inputs part of recorded outputs (so `diff` compares desired with desired). */
const desiredOf = (outputs: PodOutputs): PodInputs => inputsOf(POD_INPUTS, outputs) as PodInputs;

const stable = (value: unknown) => JSON.stringify(value ?? null);

function mountKinds(mounts: PodInputs["mounts"]): string {
  return ["persistent", "network", "global"].filter((k) => (mounts as Record<string, unknown> | undefined)?.[k] !== undefined).join(",");
}

/** The inputs that spell the command: one command in two spellings is no change. */
const COMMAND: ReadonlySet<string> = new Set(["args", "cmd", "entrypoint"]);

/**
 * What the input list's table (`table`, from each input's `onChange`) cannot say about a pod,
 * the rest of docs/provider.md's update/replace table: the GPU's fields (its type is the
 * candidates' choice while each names one), the mounts (a path updates, a volume or size
 * replaces), the placement, and the command, compared as one whichever way it is spelled.
 * `olds` are the last recorded outputs (their desired part counts), `news` the new desired
 * inputs: server-normalised values never take part.
 */
export function diffPod(olds: Recorded<PodInputs, PodFacts>, news: PodInputs, table: DiffResult): DiffResult {
  const old = desiredOf(olds);
  const replaces = [...table.replaces];
  // A pod records the name prefix a logical rename (with an alias) gives only with another change: never a change of its own.
  const updates = table.updates.filter((key) => !COMMAND.has(key) && key !== "namePrefix");
  const commandChanged = [news.args, news.cmd, news.entrypoint].some(isUnknown) || !sameCommand(commandOf(old), commandOf(news));
  if (commandChanged) updates.push("args");

  // The GPU's fields are fixed at create; `gpu.id` only while no candidate list chooses it.
  const gpuOld = old.gpu;
  const gpuNew = news.gpu;
  // A switch between GPU and CPU is the table's `cpu` replace already.
  if (Boolean(gpuOld) !== Boolean(gpuNew)) {
    if (!replaces.includes("cpu")) replaces.push("gpu");
  }
  else if (gpuOld && gpuNew) {
    if (!candidatesChooseGpuType(news.placement) && !same(gpuOld.id, gpuNew.id)) replaces.push("gpu.id");
    for (const field of ["count", "allowedCudaVersions", "minCudaVersion", "minRamPerGpu", "minVcpuCountPerGpu"] as const) {
      if (!same(gpuOld[field], gpuNew[field])) replaces.push(`gpu.${field}`);
    }
  }

  // Mounts: the kind, the volumes and the persistent size are fixed; paths may change.
  const mOld = old.mounts ?? {};
  const mNew = isUnknown(news.mounts) ? undefined : (news.mounts ?? {});
  if (mNew === undefined || mountKinds(mOld) !== mountKinds(mNew)) replaces.push("mounts");
  else {
    if (!same(mOld.persistent?.size, mNew.persistent?.size)) replaces.push("mounts.persistent.size");
    if (!same(mOld.network?.[0]?.volumeId, mNew.network?.[0]?.volumeId)) replaces.push("mounts.network.volumeId");
    if (!same(mOld.global?.[0]?.volumeId, mNew.global?.[0]?.volumeId)) replaces.push("mounts.global.volumeId");
    const paths = (m: typeof mOld) => [m.persistent?.path, m.network?.[0]?.path, m.global?.[0]?.path];
    if (!same(paths(mOld), paths(mNew))) updates.push("mounts");
  }

  placementDiff(currentPlacement(olds.placementChosen, olds), old.placement, news.placement, { replaces, updates });
  return { replaces, updates };
}

/** The inputs an update changes: what `update` asks the service for. */
export function podUpdates(olds: Recorded<PodInputs, PodFacts>, news: PodInputs): ReadonlySet<string> {
  return new Set(diffPod(olds, news, defaultDiff(POD_INPUTS, olds, news)).updates);
}

/**
 * The PATCH for the container-level changes. `env` replaces the whole map on the service, so
 * keys the user never managed (injected `PUBLIC_KEY` / `JUPYTER_PASSWORD`, template keys) are
 * carried over from the live pod, and keys the user removed are dropped.
 */
export function updateRequest(olds: Recorded<PodInputs, PodFacts>, news: PodInputs, updates: ReadonlySet<string>, live: Pod): UpdatePodRequest {
  const patch: UpdatePodRequest = {};
  const old = desiredOf(olds);
  // A new template is applied as at create: the service takes its container settings but for
  // those the request sends (the template rules, 2), so the ones the program declares go with
  // it, or the template's image, command, disk, ports, registry and env would replace them; and
  // one the program stopped declaring in the same change is left to the template, not cleared.
  const template = updates.has("templateId") && news.templateId !== undefined;
  const sent = (key: string, declared: boolean) => (template ? declared : updates.has(key));
  // The lifetime tag at the end of the name stays (contract/lifetime.ts).
  if (updates.has("name")) patch.name = renamedKeepingMark(live.name, news.name);
  if (updates.has("locked")) patch.locked = news.locked ?? false;
  if (sent("image", news.image !== undefined) && news.image !== undefined) patch.image = news.image;
  if (sent("disk", news.disk !== undefined) && news.disk !== undefined) patch.disk = news.disk;
  if (sent("ports", news.ports !== undefined)) patch.ports = news.ports ?? [];
  if (sent("registry", news.registry !== undefined)) patch.registry = news.registry ?? null;
  if (template) patch.templateId = news.templateId;
  if (updates.has("globalNetworking")) patch.globalNetworking = news.globalNetworking ?? false;
  if (sent("args", news.args !== undefined || news.cmd !== undefined || news.entrypoint !== undefined)) {
    // The command travels as the stored `args` string: both documents accept it, while the
    // public UpdatePodRequest is closed without `cmd`/`entrypoint`. Arrays the user wrote are
    // encoded (check() has refused args that disagree with them); no command at all is "".
    const arrays = news.cmd !== undefined || news.entrypoint !== undefined;
    patch.args = arrays ? encodeCommand({ cmd: news.cmd, entrypoint: news.entrypoint }) : (news.args ?? "");
  }
  if (template) {
    // The service merges the new template's env under the map it is sent. So the map holds
    // what the program declares, what the service injected (`startSsh`/`startJupyter`) and the
    // owner mark; not the rest of the live env, which is the old template's and must go.
    const kept = Object.entries(live.env).filter(([key]) => INJECTED_ENV_KEYS.has(key) || key === POD_OWNER_ENV);
    patch.env = { ...Object.fromEntries(kept), ...(news.env ?? {}) };
  } else if (updates.has("env")) {
    const env: Record<string, string> = { ...live.env };
    for (const key of Object.keys(old.env ?? {})) delete env[key];
    Object.assign(env, news.env ?? {});
    patch.env = env;
  }
  if (updates.has("mounts") && news.mounts) {
    const mounts: UpdatePodRequest["mounts"] = {};
    if (news.mounts.persistent) mounts.persistent = news.mounts.persistent;
    // An empty list in a PATCH is a 400 (the mount kind is fixed at create): send only kinds
    // that have an entry.
    if (news.mounts.network?.length) mounts.network = news.mounts.network;
    if (news.mounts.global?.length) mounts.global = news.mounts.global;
    patch.mounts = mounts;
  }
  return patch;
}

/**
 * Desired inputs as refresh saw them: a field the user set that drifted on the live pod takes
 * the live value, so the next preview shows the drift; fields the user left to the service
 * (template defaults, injected env keys) never do, so refresh of an unchanged pod is a no-op.
 */
export function refreshedInputs(olds: PodOutputs, live: Pod): PodInputs {
  const inputs = desiredOf(olds);
  const running = POD_ACTIVE_STATUSES.has(live.status);
  // Stopped by a reaper at its lifetime: not drift, the stack's own rule (shown in `expiry`).
  const expired = splitLifetimeTag(live.name).tag?.expired !== undefined;
  if ((inputs.desiredState ?? "RUNNING") === "RUNNING" && !running && !expired) inputs.desiredState = "STOPPED";
  if (inputs.desiredState === "STOPPED" && running) inputs.desiredState = "RUNNING";
  if (programName(live.name) !== inputs.name) inputs.name = programName(live.name);
  if (live.locked !== (inputs.locked ?? false)) inputs.locked = live.locked;
  if (inputs.image !== undefined && live.image !== inputs.image) inputs.image = live.image;
  if (inputs.disk !== undefined && live.disk !== inputs.disk) inputs.disk = live.disk;
  if (inputs.ports !== undefined && stable([...live.ports].sort()) !== stable([...inputs.ports].sort())) inputs.ports = live.ports;
  if (inputs.env !== undefined) {
    const drifted = Object.entries(inputs.env).some(([k, v]) => live.env[k] !== v);
    if (drifted) inputs.env = Object.fromEntries(Object.keys(inputs.env).filter((k) => k in live.env).map((k) => [k, live.env[k]]));
  }
  const desiredCommand = commandOf(inputs);
  if (desiredCommand !== undefined && !sameCommand(desiredCommand, commandOf({ args: live.args }))) {
    delete inputs.cmd;
    delete inputs.entrypoint;
    inputs.args = live.args;
  }
  return inputs;
}

/**
 * The inputs of a pod read by id alone (`pulumi import`, the `import` resource option): what a
 * program declares to get this pod, in the shortest form, so that a program written from them
 * (or with the defaults left out) previews no change. Values that are the service's defaults or
 * that it injected are left out: `gpu.count` 1, `SECURE` cloud, no ports, the injected
 * `PUBLIC_KEY` / `JUPYTER_PASSWORD` (their presence says `startSsh` / `startJupyter`) and the
 * owner mark. Filters the pod does not record (`dataCenterIds`, CUDA constraints, a template's
 * link) cannot be known and are left out.
 */
export function importedInputs(pod: Pod): PodInputs {
  const env: Record<string, string> = { ...pod.env };
  const startSsh = env.PUBLIC_KEY !== undefined;
  const startJupyter = env.JUPYTER_PASSWORD !== undefined;
  for (const key of [...INJECTED_ENV_KEYS, POD_OWNER_ENV]) delete env[key];
  const mounts: Record<string, unknown> = {};
  if (pod.mounts.persistent) mounts.persistent = { size: pod.mounts.persistent.size, path: pod.mounts.persistent.path };
  if (pod.mounts.network?.length) mounts.network = pod.mounts.network.map((m) => ({ volumeId: m.volumeId, path: m.path }));
  if (pod.mounts.global?.length) mounts.global = pod.mounts.global.map((m) => ({ volumeId: m.volumeId, path: m.path }));
  const inputs: Record<string, unknown> = { name: programName(pod.name), image: pod.image, disk: pod.disk };
  if (pod.args !== "") inputs.args = pod.args;
  if (Object.keys(env).length > 0) inputs.env = env;
  if (pod.ports.length > 0) inputs.ports = pod.ports;
  if (pod.registry) inputs.registry = pod.registry;
  if (pod.gpu) inputs.gpu = pod.gpu.count === 1 ? { id: pod.gpu.id } : { id: pod.gpu.id, count: pod.gpu.count };
  if (pod.cpu) inputs.cpu = { id: pod.cpu.id, vcpuCount: pod.cpu.vcpuCount };
  if (pod.cloud === "COMMUNITY") inputs.cloud = pod.cloud;
  if (pod.globalNetworking.enabled) inputs.globalNetworking = true;
  if (Object.keys(mounts).length > 0) inputs.mounts = mounts;
  if (startSsh) inputs.startSsh = true;
  if (startJupyter) inputs.startJupyter = true;
  if (pod.locked) inputs.locked = true;
  if (!POD_ACTIVE_STATUSES.has(pod.status)) inputs.desiredState = "STOPPED";
  return inputs as PodInputs;
}
