/**
 * `compute:index:ServerlessEndpoint`: a serverless endpoint (queue or load-balanced workers)
 * from an image, a serverless template or a Hub listing's release. Everything the service's
 * PATCH takes changes in place; `type`, `hubRepo` and the compute family (GPU or CPU) are fixed
 * at create. Its owner mark is an env variable, as a pod's (an endpoint has env, not labels).
 * Its estimate at preview is `workers.min` × one worker's serverless price, with the ceiling
 * at `workers.max` beside it.
 */
import {
  CreateEndpointRequest,
  HUB_SCALING,
  POD_OWNER_ENV,
  hubReleaseRequest,
  createEndpointViolations,
  endpointCrossFieldViolations,
  hubEndpointRequest,
  readyWorkers,
  reservedEnvViolations,
  type ComputeClient,
  type Endpoint,
  type UpdateEndpointRequest,
} from "../../../sdk";
import { estimateEndpointCost, type EndpointCostRequest } from "../../../contract/estimate";
import { capViolation, formatRate } from "../../../contract/placement-choice";
import { readPrices } from "../estimate";
import { toCheckFailures, type CheckFailure } from "../check-failures";
import { containsUnknown, isUnknown } from "../unknowns";
import {
  createFields,
  defaultDiff,
  inputsOf,
  same,
  type CheckedInputs,
  type DiffResult,
  type FactValues,
  type HookContext,
  type Props,
  type Recorded,
  type ResourceDefinition,
} from "../definition";
import { inProgramWords, markInEnv, presentOnly, programName, renamedKeepingMark, schemaViolations, toWire } from "../wire";
import { heldExpired, recordedExpired } from "../lifetime";
import { splitLifetimeTag, tagDeadline } from "../../../contract/lifetime";
import { parseMillis } from "../../../contract/time";
import { CHANGES, EXAMPLE } from "./example";
import { ENDPOINT_LIFETIME, SERVERLESS_ENDPOINT_INPUTS } from "./inputs";
import { SERVERLESS_ENDPOINT_OUTPUTS } from "./outputs";

export type ServerlessEndpointInputs = CheckedInputs<typeof SERVERLESS_ENDPOINT_INPUTS>;
type EndpointFacts = FactValues<typeof SERVERLESS_ENDPOINT_OUTPUTS>;
type RecordedEndpoint = Recorded<ServerlessEndpointInputs, EndpointFacts>;
type Context = HookContext<Endpoint>;

const RENAMES = { registryId: "registry", networkVolumeIds: "networkVolumes", executionTimeoutMs: "timeout" } as const;
const FIELDS = createFields(SERVERLESS_ENDPOINT_INPUTS);
/** The service's defaults (reference OpenAPI), left out of an imported declaration. */
const DEFAULTS = { workers: { min: 0, max: 3, idleTimeout: 10 }, flashboot: "OFF", timeout: 300000 } as const;

const wireRequest = (inputs: Props) => toWire(inputs, FIELDS, RENAMES);

/**
 * The body as the service will judge it: from a Hub listing, what the release gives is not
 * known before create, so its members stand in (the release is checked on its own, `hubFailures`).
 */
function asJudged(inputs: ServerlessEndpointInputs): Props {
  const body = wireRequest(inputs);
  if (inputs.hubRepo === undefined) return body;
  body.type ??= "QUEUE";
  body.scaling ??= HUB_SCALING;
  if (body.image === undefined && body.templateId === undefined) body.image = "hub-release";
  if (body.gpu === undefined && body.cpu === undefined) body.gpu = { pools: ["hub-release"] };
  return body;
}

function violations(inputs: ServerlessEndpointInputs): string[] {
  const body = asJudged(inputs);
  const shape = schemaViolations(CreateEndpointRequest, body, RENAMES);
  // With the shape's own violations too, so all are reported at once; a member of a wrong type
  // can make a cross-field rule unreadable, and then the shape's violation says enough.
  let crossField: string[] = [];
  try {
    crossField = endpointCrossFieldViolations(body as CreateEndpointRequest);
  } catch {
    crossField = [];
  }
  return [...shape, ...[...createEndpointViolations(body), ...crossField].map((v) => inProgramWords(v, RENAMES)), ...reservedEnvViolations(inputs.env)];
}

/** The plan for a Hub listing: the release's settings, and its GPU types unless the program chose the compute. */
async function hubPlan(api: ComputeClient, hubRepo: string, name: string, ownCompute: boolean) {
  const repo = await api.hub.get(hubRepo);
  if (ownCompute) return hubReleaseRequest(repo, name);
  return hubEndpointRequest(repo, repo.release ? await api.catalog.gpuTypes() : [], { name });
}

/** The create request from a Hub listing: its release's, with what the program set on top. */
async function fromHub(api: ComputeClient, hubRepo: string, request: Props): Promise<Props> {
  const ownCompute = request.gpu !== undefined || request.cpu !== undefined;
  const plan = await hubPlan(api, hubRepo, String(request.name), ownCompute);
  if (!plan.ok) throw new Error(`hubRepo: ${plan.problem}; no endpoint was created`);
  return { ...plan.request, ...request, env: { ...plan.request.env, ...(request.env as Record<string, string> | undefined) } };
}

const changedFrom = (previous: Props, inputs: ServerlessEndpointInputs, keys: Array<keyof ServerlessEndpointInputs>) => keys.some((key) => !same(previous[key], inputs[key]));

/**
 * At preview (reads only), for a new endpoint or one whose listing or compute changes: the Hub
 * listing exists and its release can be deployed; the GPU pools and excluded types, or the CPU
 * flavors, are the catalog's. An endpoint that exists is not judged again by what the Hub or
 * the catalog say today (a listing removed since must not block its every `up`). A service
 * that cannot be read now leaves the rules to the create.
 */
async function previewFailures(context: Context, inputs: ServerlessEndpointInputs, previous: Props): Promise<CheckFailure[]> {
  const isNew = Object.keys(previous).length === 0;
  const out: CheckFailure[] = [];
  const { hubRepo } = inputs;
  const { api } = context;
  if (typeof hubRepo === "string" && !isUnknown(hubRepo) && (isNew || changedFrom(previous, inputs, ["hubRepo", "gpu", "cpu"]))) {
    const plan = await hubPlan(api, hubRepo, inputs.name, inputs.gpu !== undefined || inputs.cpu !== undefined).catch((error: unknown) =>
      (error as { status?: number }).status === 404 ? { ok: false as const, problem: `no Hub listing "${hubRepo}" (an id hub_… or owner/name; see \`compute hub list\`)` } : undefined,
    );
    if (plan && !plan.ok) out.push({ property: "hubRepo", reason: plan.problem });
  }
  if ((isNew || changedFrom(previous, inputs, ["gpu", "cpu"])) && !containsUnknown(inputs.gpu) && !containsUnknown(inputs.cpu)) out.push(...(await computeFailures(context, inputs)));
  if ((isNew || changedFrom(previous, inputs, ["gpu", "cpu", "maxCostPerHour"])) && !containsUnknown(inputs.gpu) && !containsUnknown(inputs.cpu)) out.push(...(await capFailures(context, inputs)));
  return out;
}

/** One worker's price on each GPU type (or CPU choice) it may get, uncapped (contract/estimate.ts). */
async function workerPrices(context: Context, inputs: ServerlessEndpointInputs) {
  if (inputs.gpu === undefined && inputs.cpu === undefined) return undefined;
  const prices = await readPrices(context.api, { gpuTypes: inputs.gpu !== undefined, cpuFlavors: inputs.gpu === undefined }, undefined, (key, read) => context.cached(key, 300, read)).catch(() => undefined);
  if (!prices) return undefined;
  const outcome = estimateEndpointCost({ ...(inputs as EndpointCostRequest), maxCostPerHour: undefined }, prices);
  return outcome.ok ? outcome.estimate.candidates : undefined;
}

/** `maxCostPerHour` is one worker's cap: a preview fails when no GPU type (or CPU choice) is under it, naming the cheapest. */
async function capFailures(context: Context, inputs: ServerlessEndpointInputs): Promise<CheckFailure[]> {
  if (inputs.maxCostPerHour === undefined || isUnknown(inputs.maxCostPerHour)) return [];
  // Only GPU types can be excluded on the service: a CPU endpoint's choices are all sent.
  if (inputs.gpu === undefined) return [{ property: "maxCostPerHour", reason: "applies to an endpoint's GPU types (its `gpu`): a CPU endpoint, or a Hub endpoint without `gpu`, has no type to exclude" }];
  const priced = await workerPrices(context, inputs);
  const violation = priced && capViolation(priced.filter((c) => c.excluded === undefined), inputs.maxCostPerHour);
  return violation ? toCheckFailures([violation], inputs) : [];
}

/**
 * The GPU types of the pools one worker may not use under `maxCostPerHour`: excluded on the
 * service with the program's own (`gpu.excludedTypes`), so no worker runs on them. Read at
 * create and when the cap or the GPUs change; a line names each.
 */
async function capExclusions(context: Context, inputs: ServerlessEndpointInputs): Promise<string[]> {
  if (inputs.maxCostPerHour === undefined || inputs.gpu === undefined) return [];
  const priced = await workerPrices(context, inputs);
  // Without prices the cap cannot be applied: nothing is sent (a PATCH of `gpu` would clear the exclusions already there).
  if (!priced) throw new Error("maxCostPerHour: the GPU catalog could not be read, so the GPU types over the cap are not known; nothing was sent: run `up` again");
  const over = priced.filter((c) => c.dollarsPerHour !== undefined && c.dollarsPerHour > inputs.maxCostPerHour!);
  for (const c of over) context.report(`skipped ${c.label}: ${formatRate(c.dollarsPerHour!)} $/hr a worker is over maxCostPerHour ${formatRate(inputs.maxCostPerHour)}`);
  // The label is `<count> × <GPU type id>`.
  return over.map((c) => c.label.replace(/^\d+ × /, ""));
}

/** The request's `gpu` with the cap's exclusions added to the program's. */
function withExclusions(gpu: Props | undefined, exclusions: string[]): Props | undefined {
  if (!gpu || exclusions.length === 0) return gpu;
  const declared = (gpu.excludedTypes as string[] | undefined) ?? [];
  return { ...gpu, excludedTypes: [...new Set([...declared, ...exclusions])] };
}

/** The GPU pools and excluded types, or the CPU flavors and their vCPU counts, against the catalog. */
async function computeFailures(context: Context, inputs: ServerlessEndpointInputs): Promise<CheckFailure[]> {
  const { api } = context;
  const out: CheckFailure[] = [];
  if (inputs.gpu?.pools) {
    const gpus = await context.cached("catalog:gpus", 300, () => api.catalog.gpuTypes()).catch(() => undefined);
    if (!gpus) return out;
    const pools = new Set(gpus.map((g) => g.pool).filter((pool): pool is string => typeof pool === "string"));
    inputs.gpu.pools.forEach((pool, i) => {
      if (!pools.has(pool)) out.push({ property: `gpu.pools[${i}]`, reason: `"${pool}" is not a serverless GPU pool of the catalog (${[...pools].sort().join(", ")})` });
    });
    const inPools = new Set(gpus.filter((g) => g.pool != null && inputs.gpu!.pools.includes(g.pool)).map((g) => g.id));
    (inputs.gpu.excludedTypes ?? []).forEach((type, i) => {
      if (!inPools.has(type)) out.push({ property: `gpu.excludedTypes[${i}]`, reason: `"${type}" is not a GPU type of the selected pools` });
    });
  }
  if (inputs.cpu) {
    const flavors = await context.cached("catalog:cpus", 300, () => api.catalog.cpuFlavors()).catch(() => undefined);
    if (!flavors) return out;
    inputs.cpu.forEach((choice, i) => {
      const flavor = flavors.find((f) => f.id === choice.id);
      if (!flavor) out.push({ property: `cpu[${i}].id`, reason: `"${choice.id}" is not a CPU flavor of the catalog` });
      else if (choice.vcpuCount < flavor.vcpu.min || choice.vcpuCount > flavor.vcpu.max) {
        out.push({ property: `cpu[${i}].vcpuCount`, reason: `${flavor.id} takes ${flavor.vcpu.min} to ${flavor.vcpu.max} vCPUs` });
      }
    });
  }
  return out;
}

const familyOf = (values: { cpu?: unknown; gpu?: unknown; hubRepo?: unknown }): "GPU" | "CPU" | undefined =>
  values.cpu !== undefined ? "CPU" : values.gpu !== undefined || values.hubRepo !== undefined ? "GPU" : undefined;

/** The compute family's rule, beyond the input list's table: gpu and cpu change in place, a switch between them replaces. */
function diff(olds: RecordedEndpoint, news: ServerlessEndpointInputs, table: DiffResult): DiffResult {
  const result = { replaces: [...table.replaces], updates: [...table.updates] };
  const before = olds.computeType ?? familyOf(olds);
  const after = familyOf(news);
  for (const key of ["gpu", "cpu"] as const) {
    if (same(olds[key], news[key]) && !containsUnknown(news[key])) continue;
    if (before !== after || containsUnknown(news.cpu) || containsUnknown(news.gpu)) result.replaces.push(key);
    else result.updates.push(key);
  }
  return result;
}

/**
 * What the service holds of a setting no one gives (reference OpenAPI defaults): sent when the
 * program stops setting it, so the endpoint is what the program says (a worker left at its old
 * minimum would bill on; a volume left attached could not be deleted).
 */
const UNSET: Props = { args: "", ports: [], registryId: null, flashboot: DEFAULTS.flashboot, networkVolumeIds: [], dataCenterIds: [], executionTimeoutMs: DEFAULTS.timeout };

/** The workers as the program says, the service's defaults for what it leaves out. */
function workersOf(news: ServerlessEndpointInputs): Props {
  const scaling = news.scaling ?? (news.hubRepo !== undefined ? HUB_SCALING : undefined);
  const workers: Props = { ...DEFAULTS.workers, ...news.workers };
  // A queue endpoint scaled on request count takes no idle timeout.
  if ((news.type ?? "QUEUE") === "QUEUE" && scaling?.type === "REQUEST_COUNT") delete workers.idleTimeout;
  return workers;
}

/** The endpoint's env after the update: the program's keys, and what it never set (a template's, a release's, the owner mark) carried over, as for a pod. */
function keptEnv(olds: RecordedEndpoint, news: ServerlessEndpointInputs, live: Endpoint): Record<string, string> {
  const managed = new Set(Object.keys(olds.env ?? {}));
  const unmanaged = Object.fromEntries(Object.entries(live.env ?? {}).filter(([name]) => !managed.has(name)));
  return { ...unmanaged, ...(news.env ?? {}) };
}

/** What PATCH needs for the inputs that changed: a removed setting goes back to the service's default, a removed CUDA constraint is cleared. */
function patchOf(olds: RecordedEndpoint, news: ServerlessEndpointInputs, live: Endpoint, changed: string[]): UpdateEndpointRequest {
  const values: Props = news;
  const patch: Props = {};
  const send = (key: string, value: unknown) => (patch[RENAMES[key as keyof typeof RENAMES] ?? key] = value);
  for (const key of changed) {
    // Only what the service takes: not the Hub listing, nor the provider's own settings (readiness, the timeout).
    if (!FIELDS.includes(key)) continue;
    if (key === "env") patch.env = keptEnv(olds, news, live);
    // The lifetime tag at the end of the name stays (contract/lifetime.ts).
    else if (key === "name") patch.name = renamedKeepingMark(live.name, news.name);
    else if (key === "workers") patch.workers = workersOf(news);
    else if (key === "gpu" && news.gpu) {
      const old: Props = olds.gpu ?? {};
      patch.gpu = {
        ...news.gpu,
        ...(old.count !== undefined && news.gpu.count === undefined ? { count: 1 } : {}),
        ...(old.allowedCudaVersions !== undefined && news.gpu.allowedCudaVersions === undefined ? { allowedCudaVersions: [] } : {}),
        ...(old.minCudaVersion !== undefined && news.gpu.minCudaVersion === undefined ? { minCudaVersion: "" } : {}),
      };
    } else if (values[key] !== undefined) send(key, values[key]);
    else if (key === "scaling" && news.hubRepo !== undefined) send(key, HUB_SCALING);
    else if (key in UNSET) send(key, UNSET[key]);
  }
  // A template is applied as if its settings were in the body, its env replacing the endpoint's
  // (reference OpenAPI): the program's own container settings and env go with it, and the mark.
  if (changed.includes("templateId") && news.templateId !== undefined) {
    for (const key of ["image", "args", "disk", "ports", "registryId"]) if (values[key] !== undefined) send(key, values[key]);
    patch.env = { ...(news.env ?? {}), ...(live.env?.[POD_OWNER_ENV] ? { [POD_OWNER_ENV]: live.env[POD_OWNER_ENV] } : {}) };
  }
  return patch as UpdateEndpointRequest;
}

/** How many of the endpoint's workers serve its current configuration now, with the counts by status. */
async function workersNow(api: ComputeClient, id: string, signal: AbortSignal) {
  const { workers } = await api.serverless.workers(id, { signal });
  const byStatus: Record<string, number> = {};
  for (const worker of workers) byStatus[worker.status] = (byStatus[worker.status] ?? 0) + 1;
  const counts = Object.entries(byStatus).map(([status, n]) => `${n} ${status}`).join(", ") || "no workers";
  const stale = workers.filter((w) => w.isStale).length;
  return { ready: readyWorkers(workers), counts: stale > 0 ? `${counts}, ${stale} on an older configuration` : counts };
}

/** Scaling as the program writes it: its type and that type's one value (an answer may carry more). */
function scalingOf(scaling: Props): Props {
  const value = scaling.type === "REQUEST_COUNT" ? { requestCount: scaling.requestCount } : { queueDelay: scaling.queueDelay };
  return { type: scaling.type, ...value };
}

function facts(endpoint: Endpoint): EndpointFacts {
  const urls = Object.fromEntries(Object.entries(endpoint.requestUrls ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  return {
    endpointId: endpoint.id,
    requestUrls: urls,
    workersMin: endpoint.workers?.min ?? 0,
    workersMax: endpoint.workers?.max ?? 0,
    imageApplied: endpoint.image ?? null,
    computeType: endpoint.cpu ? "CPU" : "GPU",
    createdAt: endpoint.createdAt,
  };
}

/** The owner mark left out of an env read back. */
function ownEnv(env: Record<string, string> | undefined): Record<string, string> {
  const { [POD_OWNER_ENV]: _mark, ...rest } = env ?? {};
  return rest;
}

/** The shortest declaration of an endpoint read by id: the service's defaults left out. */
function imported(endpoint: Endpoint): Props {
  const inputs: Props = { name: programName(endpoint.name), type: endpoint.type ?? "QUEUE" };
  if (endpoint.image) inputs.image = endpoint.image;
  if (endpoint.args) inputs.args = endpoint.args;
  if (endpoint.disk !== undefined) inputs.disk = endpoint.disk;
  const env = ownEnv(endpoint.env);
  if (Object.keys(env).length > 0) inputs.env = env;
  if (endpoint.ports && endpoint.ports.length > 0) inputs.ports = endpoint.ports;
  if (endpoint.registry) inputs.registryId = endpoint.registry;
  if (endpoint.cpu) inputs.cpu = endpoint.cpu.map(({ id, vcpuCount }) => ({ id, vcpuCount }));
  else if (endpoint.gpu) {
    const { pools, excludedTypes, count, allowedCudaVersions, minCudaVersion } = endpoint.gpu;
    inputs.gpu = {
      pools: pools ?? [],
      ...(excludedTypes && excludedTypes.length > 0 ? { excludedTypes } : {}),
      ...(count !== undefined && count !== 1 ? { count } : {}),
      ...(allowedCudaVersions && allowedCudaVersions.length > 0 ? { allowedCudaVersions } : {}),
      ...(minCudaVersion ? { minCudaVersion } : {}),
    };
  }
  if (endpoint.scaling) inputs.scaling = scalingOf(endpoint.scaling as Props);
  const workers = Object.fromEntries(Object.entries(endpoint.workers ?? {}).filter(([key, value]) => DEFAULTS.workers[key as keyof typeof DEFAULTS.workers] !== value));
  if (Object.keys(workers).length > 0) inputs.workers = workers;
  if (endpoint.flashboot && endpoint.flashboot !== DEFAULTS.flashboot) inputs.flashboot = endpoint.flashboot;
  if (endpoint.networkVolumes.length > 0) inputs.networkVolumeIds = endpoint.networkVolumes;
  if (endpoint.dataCenterIds.length > 0) inputs.dataCenterIds = endpoint.dataCenterIds;
  if (endpoint.timeout !== undefined && endpoint.timeout !== DEFAULTS.timeout) inputs.executionTimeoutMs = endpoint.timeout;
  return inputs;
}

/**
 * Drift in what the program set: the live value of each such input (of env and workers, only
 * the keys the program set: the release, the template and the service add their own).
 */
function refreshed(olds: RecordedEndpoint, endpoint: Endpoint): Props {
  const inputs = inputsOf(SERVERLESS_ENDPOINT_INPUTS, olds);
  const live = imported(endpoint);
  inputs.name = programName(endpoint.name);
  for (const key of ["scaling", "flashboot", "networkVolumeIds", "dataCenterIds", "executionTimeoutMs"]) {
    if (inputs[key] !== undefined) inputs[key] = live[key] ?? (key === "flashboot" ? DEFAULTS.flashboot : key === "executionTimeoutMs" ? DEFAULTS.timeout : key.endsWith("Ids") ? [] : inputs[key]);
  }
  // Scaled to zero by a reaper at its lifetime: not drift, the stack's own rule (shown in `expiry`).
  const expired = splitLifetimeTag(endpoint.name).tag?.expired !== undefined;
  if (inputs.workers !== undefined && endpoint.workers && !expired) {
    inputs.workers = Object.fromEntries(Object.keys(inputs.workers as Props).map((key) => [key, (endpoint.workers as Props)[key]]).filter(([, value]) => value !== undefined));
  }
  if (inputs.env !== undefined) {
    const env = endpoint.env ?? {};
    inputs.env = Object.fromEntries(Object.keys(inputs.env as Props).filter((key) => key in env).map((key) => [key, env[key]]));
  }
  return inputs;
}

export const serverlessEndpointResource = {
  name: "ServerlessEndpoint",
  kind: "endpoint",
  description: "A serverless endpoint: queue or load-balanced workers from an image, a serverless template or a Hub listing.",
  inputs: SERVERLESS_ENDPOINT_INPUTS,
  outputs: SERVERLESS_ENDPOINT_OUTPUTS,
  idOutput: "endpointId",
  deletedAs: "deleted",
  price: {
    paths: ["gpu", "cpu", "workers", "maxCostPerHour"],
    lists: (inputs) => ({ gpuTypes: inputs.gpu !== undefined, cpuFlavors: inputs.gpu === undefined && inputs.cpu !== undefined }),
    estimate: (inputs, prices) =>
      inputs.gpu === undefined && inputs.cpu === undefined && inputs.hubRepo !== undefined
        ? { ok: false, reason: "the GPU types come from the Hub release at create (set `gpu` to estimate at preview)" }
        : estimateEndpointCost(inputs as EndpointCostRequest, prices),
  },

  family: (api) => ({ get: (id) => api.serverless.get(id), page: () => api.serverless.page(), delete: (id) => api.serverless.delete(id) }),
  states: presentOnly("endpointId"),
  owner: markInEnv,
  lifetime: {
    ...ENDPOINT_LIFETIME,
    serviceName: (endpoint) => endpoint.name,
    // Its run: since its workers were last allowed (a lifetime written when it came back from zero), else its create.
    runStart: (endpoint) => {
      const tag = splitLifetimeTag(endpoint.name).tag;
      const until = tagDeadline(tag);
      return until !== undefined && tag?.max !== undefined && !tag.expired ? until - tag.max * 1000 : parseMillis(endpoint.createdAt);
    },
    rename: (api, endpoint, name) => api.serverless.update(endpoint.id, { name }),
  },

  violations,
  checkHook: previewFailures,
  // Env values may be secrets: only their names count toward the mark's spec.
  markSpec: (request, inputs) => ({ ...request, env: Object.keys((request.env as Props | undefined) ?? {}).sort(), hubRepo: inputs.hubRepo }),
  async create(context, request, inputs) {
    const { api } = context;
    const wire = wireRequest(request);
    const exclusions = await capExclusions(context, inputs);
    if (exclusions.length > 0) wire.gpu = withExclusions(wire.gpu as Props | undefined, exclusions);
    const body = inputs.hubRepo ? await fromHub(api, inputs.hubRepo, wire) : wire;
    return { live: await api.serverless.create(body as CreateEndpointRequest) };
  },

  readiness: {
    accepts: ["minReadyWorkers"],
    refusedBecause: "an endpoint's workers are reached through its request URLs, not published ports; count them with minReadyWorkers",
    targets: (endpoint) => [{ label: endpoint.id, workers: (api, signal) => workersNow(api, endpoint.id, signal) }],
  },

  facts,
  imported,
  refreshed,
  diff,
  async update(context, id, olds, news) {
    const changed = diff(olds, news, defaultDiff(SERVERLESS_ENDPOINT_INPUTS, olds, news)).updates;
    // A new cap is a new set of excluded GPU types.
    if (changed.includes("maxCostPerHour") && news.gpu !== undefined && !changed.includes("gpu")) changed.push("gpu");
    const exclusions = changed.includes("gpu") ? await capExclusions(context, news) : [];
    const api = context.api.serverless;
    const live = await api.get(id);
    // Scaled to zero at its lifetime: a new lifetime brings its workers back; the same one does not.
    if (heldExpired(olds, news, live.name)) changed.splice(0, changed.length, ...changed.filter((key) => key !== "workers"));
    else if (recordedExpired(olds)) changed.push("workers");
    const patch = patchOf(olds, news, live, changed);
    if (patch.gpu) patch.gpu = withExclusions(patch.gpu as Props, exclusions) as typeof patch.gpu;
    if (Object.keys(patch).length === 0) return undefined;
    const updated = await api.update(id, patch);
    context.report(`updated ${Object.keys(patch).join(", ")}`);
    return { live: updated };
  },
  example: EXAMPLE,
  exampleChanges: CHANGES,
} satisfies ResourceDefinition<ServerlessEndpointInputs, Endpoint, EndpointFacts>;
