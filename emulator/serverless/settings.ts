/**
 * What a create or a PATCH body makes of an endpoint's settings: the service's defaults, a
 * serverless template's container settings applied once beneath the body's, the partial GPU
 * update, and the rules across members checked again on the merged result (400). The checks
 * that need the catalog or the account's volumes are rules.ts's.
 */
import {
  DEFAULT_CONTAINER_DISK_GB,
  createEndpointViolations,
  endpointCrossFieldViolations,
  type CreateEndpointRequest,
  type UpdateEndpointRequest,
} from "../../contract";
import { badRequest } from "../http";
import type { TemplateRecord } from "../templates/store";
import { checkTargets, cpuChoices, gpuSelection, type EndpointRulesWorld } from "./rules";
import type { ContainerSettings, EndpointChange, EndpointGpu, EndpointRecord, EndpointScaling, EndpointSettings } from "./store";

/** The reference OpenAPI's create defaults. */
const DEFAULT_WORKERS = { min: 0, max: 3, idleTimeout: 10 };
const DEFAULT_TIMEOUT_MS = 300000;

type ContainerBody = Pick<CreateEndpointRequest, "image" | "args" | "disk" | "env" | "ports" | "registry">;

/**
 * The container settings a body sets, with a template's applied once beneath them (reference
 * OpenAPI, create and PATCH alike): a body member wins over the template's, and `env` merges
 * the two per key, the body's winning. Members that neither sets are left out.
 */
function containerSettings(body: ContainerBody, template: TemplateRecord | undefined): Partial<ContainerSettings> {
  const settings: Partial<ContainerSettings> = {
    image: body.image ?? template?.image,
    args: body.args ?? template?.args,
    disk: body.disk ?? template?.disk,
    ports: body.ports ?? template?.ports,
    registry: body.registry !== undefined ? body.registry : template?.registry,
    env: body.env !== undefined || template ? { ...template?.env, ...body.env } : undefined,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/** A new endpoint's settings (its id is the store's to give). Catalog and volume checks first: 400 before anything is stored. */
export function newEndpoint(
  world: EndpointRulesWorld,
  accountId: string,
  body: CreateEndpointRequest,
  template: TemplateRecord | undefined,
  now: number,
): Omit<EndpointSettings, "id"> {
  const gpu = body.gpu ? createdGpu(world, body.gpu, template) : null;
  const cpu = body.cpu ? cpuChoices(world.catalog, body.cpu) : null;
  checkTargets(world, accountId, body);
  return {
    accountId,
    createdAt: now,
    name: body.name,
    type: body.type,
    image: "",
    args: "",
    disk: DEFAULT_CONTAINER_DISK_GB,
    env: {},
    ports: [],
    registry: null,
    ...containerSettings(body, template),
    ...(template ? { templateId: template.id } : {}),
    gpu,
    cpu,
    workers: {
      min: body.workers?.min ?? DEFAULT_WORKERS.min,
      max: body.workers?.max ?? DEFAULT_WORKERS.max,
      idleTimeout: body.workers?.idleTimeout ?? DEFAULT_WORKERS.idleTimeout,
    },
    scaling: body.scaling,
    dataCenterIds: body.dataCenterIds ?? [],
    networkVolumes: body.networkVolumes ?? [],
    timeout: body.timeout ?? DEFAULT_TIMEOUT_MS,
    flashboot: body.flashboot ?? "OFF",
  };
}

function createdGpu(world: EndpointRulesWorld, gpu: NonNullable<CreateEndpointRequest["gpu"]>, template: TemplateRecord | undefined): EndpointGpu {
  // The template's CUDA set seeds a create that sends no set, but never beside a floor: that
  // would turn a valid request into the set-or-floor 400 (reference OpenAPI, `templateId`).
  const seeded = gpu.minCudaVersion === undefined ? (template?.allowedCudaVersions ?? []) : [];
  return {
    ...gpuSelection(world.catalog, gpu.pools, gpu.excludedTypes),
    count: gpu.count ?? 1,
    allowedCudaVersions: gpu.allowedCudaVersions ?? seeded,
    minCudaVersion: gpu.minCudaVersion ?? null,
  };
}

/**
 * What a PATCH changes (reference OpenAPI `UpdateEndpointRequest`): only the members sent. The
 * compute family is fixed at create (400); `gpu` is a partial update; the rules across members
 * hold for the endpoint as it would be afterwards, not only for the body (400 listing each).
 */
export function endpointChange(
  world: EndpointRulesWorld,
  endpoint: EndpointRecord,
  body: UpdateEndpointRequest,
  template: TemplateRecord | undefined,
): EndpointChange {
  if (body.gpu !== undefined && endpoint.gpu === null) {
    throw badRequest("gpu: this is a CPU endpoint, and the compute family is fixed at create; create a GPU endpoint instead");
  }
  if (body.cpu !== undefined && endpoint.cpu === null) {
    throw badRequest("cpu: this is a GPU endpoint, and the compute family is fixed at create; create a CPU endpoint instead");
  }
  const gpu = endpoint.gpu && body.gpu ? mergedGpu(endpoint.gpu, body.gpu) : endpoint.gpu;
  const scaling = body.scaling ?? endpoint.scaling;
  const workers = {
    min: body.workers?.min ?? endpoint.workers.min,
    max: body.workers?.max ?? endpoint.workers.max,
    idleTimeout: body.workers?.idleTimeout ?? endpoint.workers.idleTimeout,
  };
  const broken = mergedViolations(endpoint, { gpu, scaling, workers }, body.workers?.idleTimeout);
  if (broken.length > 0) throw badRequest(`After this change the endpoint would break ${broken.length > 1 ? "these rules" : "a rule"}: ${broken.join("; ")}`, broken);

  const change: EndpointChange = { ...containerSettings(body, template), scaling, workers };
  if (body.gpu !== undefined && gpu) {
    change.gpu = body.gpu.pools !== undefined ? { ...gpu, ...gpuSelection(world.catalog, body.gpu.pools, body.gpu.excludedTypes) } : gpu;
  }
  if (body.cpu !== undefined) change.cpu = cpuChoices(world.catalog, body.cpu);
  checkTargets(world, endpoint.accountId, body);
  if (body.name !== undefined) change.name = body.name;
  if (body.dataCenterIds !== undefined) change.dataCenterIds = body.dataCenterIds;
  if (body.networkVolumes !== undefined) change.networkVolumes = body.networkVolumes;
  if (body.timeout !== undefined) change.timeout = body.timeout;
  if (body.flashboot !== undefined) change.flashboot = body.flashboot;
  return change;
}

/**
 * The GPU selection after a partial update: `pools` replaces the selection with the sent
 * `excludedTypes` (none when omitted), `allowedCudaVersions: []` clears the set,
 * `minCudaVersion: ""` clears the floor, and an omitted member stays as it was. A copy: the
 * endpoint changes only once every check has passed.
 */
function mergedGpu(current: EndpointGpu, change: NonNullable<UpdateEndpointRequest["gpu"]>): EndpointGpu {
  return {
    pools: change.pools ?? current.pools,
    excludedTypes: change.pools !== undefined ? (change.excludedTypes ?? []) : current.excludedTypes,
    count: change.count ?? current.count,
    allowedCudaVersions: change.allowedCudaVersions ?? current.allowedCudaVersions,
    minCudaVersion: change.minCudaVersion === undefined ? current.minCudaVersion : change.minCudaVersion || null,
  };
}

/**
 * The contract's rules across members (the same functions create's body is checked with), on
 * the endpoint as the PATCH would leave it: a CUDA set beside a floor, `workers.min` above
 * `max`, a load balancer on QUEUE_DELAY, and an idle timeout sent for a queue endpoint that
 * scales on request count (a stored one is kept, just not shown).
 */
function mergedViolations(
  endpoint: EndpointRecord,
  merged: { gpu: EndpointGpu | null; scaling: EndpointScaling; workers: { min: number; max: number } },
  sentIdleTimeout: number | undefined,
): string[] {
  const fields = {
    type: endpoint.type,
    scaling: merged.scaling,
    workers: { min: merged.workers.min, max: merged.workers.max, idleTimeout: sentIdleTimeout },
    gpu: merged.gpu ? { pools: merged.gpu.pools, allowedCudaVersions: merged.gpu.allowedCudaVersions, minCudaVersion: merged.gpu.minCudaVersion ?? undefined } : undefined,
  };
  return [...createEndpointViolations(fields), ...endpointCrossFieldViolations(fields, "update")];
}
