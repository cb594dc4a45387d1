/**
 * The pod rules that need the world's data: expanding a template into the deployment (v2
 * template rules 1–4), where a new pod may go (volumes, global networking) and the one machine
 * (GPU) or pool (CPU) it gets there, with the checks the contract orders before placement (pool
 * access 403, balance 402, capacity 400); and the checks of a PATCH. Nothing here changes a pod:
 * store.ts applies what these decide.
 */
import {
  CPU_POD_CLOUD,
  DEFAULT_CONTAINER_DISK_GB,
  MAX_BODY_BYTES,
  globalNetworkingRefusal,
  storedArgs,
  type CreatePodRequest,
  type CudaConstraint,
  type Mounts,
  type UpdatePodRequest,
} from "../../contract";
import { cpuPodCostPerHour, gpuPodCostPerHour } from "../../contract/estimate";
import type { AccountRecord } from "../accounts/store";
import type { Catalog } from "../catalog/store";
import { ApiError, badRequest, conflict, notFound } from "../http";
import { generatedPassword, hash32 } from "../ids";
import type { GpuTypeFixture } from "../fixture";
import type { Capacity, Machine } from "../placement/capacity";
import { candidateDataCenters, checkBalance, checkGpuAccess, cpuFlavorOf, cpuMemoryGb, networkVolumeDataCenters, usableTemplate } from "../placement/rules";
import type { TemplateRecord, Templates } from "../templates/store";
import type { Volumes } from "../volumes/store";
import { podEnded, podStatus } from "./lifecycle";
import type { PodRecord } from "./record";

/** What the pod rules read of the world. */
export interface PodRulesWorld {
  readonly catalog: Catalog;
  readonly capacity: Capacity;
  readonly templates: Templates;
  readonly volumes: Volumes;
}

const DEFAULT_GLOBAL_MOUNT_PATH = "/mnt/global";

/** Where a new pod goes and what it gets there (as the pod records it), at what hourly cost. */
export interface Placement extends Pick<PodRecord, "gpu" | "cpu" | "dataCenterId" | "hostId" | "cudaVersion"> {
  cost: number;
}

/** The deployment a create describes once its template is expanded (v2: template rules 1–4). */
export interface Expanded {
  image: string;
  args: string;
  disk: number;
  ports: string[];
  env: Record<string, string>;
  registry: string | null;
  mounts: Mounts;
  startSsh: boolean;
  startJupyter: boolean;
  cuda: CudaConstraint;
}

/** Everything a create decided; the store turns it into a pod (the members it shares are the pod's own). */
export interface CreatePlan extends Pick<PodRecord, "cloud" | "globalNetworking" | "env" | "injected" | "mounts"> {
  deployment: Expanded;
  placement: Placement;
}

export function expand(body: CreatePodRequest, template: TemplateRecord | undefined): Expanded {
  const isGpu = body.gpu !== undefined;
  const bodyCuda = body.gpu && (body.gpu.allowedCudaVersions !== undefined || body.gpu.minCudaVersion !== undefined);
  return {
    image: body.image ?? template?.image ?? "",
    args: storedArgs(body).args ?? template?.args ?? "",
    disk: body.disk ?? template?.disk ?? DEFAULT_CONTAINER_DISK_GB,
    ports: body.ports ?? template?.ports ?? [],
    // Rule 2: env merges per key, body wins; every other field is replaced by the body's.
    env: { ...(template?.env ?? {}), ...(body.env ?? {}) },
    registry: body.registry !== undefined ? body.registry : (template?.registry ?? null),
    // Rule 4: a CPU pod does not inherit the template's persistent mount; a body `mounts` replaces it.
    mounts: body.mounts ?? (isGpu && template?.mounts.persistent ? { persistent: { ...template.mounts.persistent } } : {}),
    startSsh: body.startSsh ?? template?.startSsh ?? false,
    startJupyter: body.startJupyter ?? template?.startJupyter ?? false,
    // Rule 3: either CUDA field in the body replaces the template's constraint; rule 4: CPU pods ignore it.
    cuda: !isGpu
      ? {}
      : bodyCuda
        ? { allowed: body.gpu?.allowedCudaVersions, min: body.gpu?.minCudaVersion }
        : { allowed: template?.allowedCudaVersions ?? [] },
  };
}

function describeCuda(cuda: CudaConstraint): string {
  if (cuda.allowed && cuda.allowed.length > 0) return ` on CUDA ${cuda.allowed.join(" or ")}`;
  if (cuda.min !== undefined) return ` on CUDA ${cuda.min} or newer`;
  return "";
}

function placeGpu(world: PodRulesWorld, body: CreatePodRequest, deployment: Expanded, account: AccountRecord, dataCenterIds: string[]): Placement {
  const request = body.gpu!;
  const gpuType = world.catalog.gpuTypes.get(request.id);
  if (!gpuType) throw badRequest(`Unknown GPU type "${request.id}"; GET /v2/catalog/gpus lists the GPU type ids`);
  checkGpuAccess(gpuType, account);
  const cloud = body.cloud ?? "SECURE";
  const count = request.count ?? 1;
  const largest = gpuType.maxCount[cloud === "SECURE" ? "secure" : "community"];
  if (largest === 0) throw badRequest(`${gpuType.id} is not offered on ${cloud} cloud`);
  if (count > largest) {
    throw badRequest(`No ${cloud} machine has ${count} ${gpuType.id} GPUs; the largest has ${largest}`);
  }
  const cost = gpuPodCostPerHour(gpuType, cloud, count);
  checkBalance(account, cost, "pod");
  const machine = world.capacity.placeGpu({
    gpuTypeId: gpuType.id,
    count,
    cloud,
    dataCenterIds,
    cuda: deployment.cuda,
    minRamPerGpu: request.minRamPerGpu,
    minVcpuPerGpu: request.minVcpuCountPerGpu,
  });
  if (!machine) {
    // Capacity exhaustion: 400 with a human detail and no machine-readable code (v2: Errors).
    const filters = [
      request.minRamPerGpu !== undefined ? `at least ${request.minRamPerGpu} GB RAM per GPU` : "",
      request.minVcpuCountPerGpu !== undefined ? `at least ${request.minVcpuCountPerGpu} vCPUs per GPU` : "",
    ].filter(Boolean);
    throw badRequest(
      `There are no ${cloud} machines with ${count} free ${gpuType.id} GPU${count > 1 ? "s" : ""}${describeCuda(deployment.cuda)}${filters.length ? ` and ${filters.join(" and ")}` : ""} in ${dataCenterIds.join(", ")} right now. Try another data center or GPU type.`,
    );
  }
  return gpuPlacement(gpuType, count, machine, cost);
}

/** A GPU pod of `count` GPUs on this machine: its host RAM and vCPUs are the machine's per-GPU figures × count. */
export function gpuPlacement(gpuType: GpuTypeFixture, count: number, machine: Machine, cost: number): Placement {
  return {
    gpu: { id: gpuType.id, count, vcpuCount: machine.vcpuPerGpu * count, memory: machine.ramPerGpu * count },
    dataCenterId: machine.dataCenterId,
    hostId: machine.id,
    cudaVersion: machine.cudaVersion,
    cost,
  };
}

function placeCpu(world: PodRulesWorld, body: CreatePodRequest, account: AccountRecord, dataCenterIds: string[]): Placement {
  const request = body.cpu!;
  const { flavor, violation } = cpuFlavorOf(world.catalog, request, "cpu");
  if (violation !== undefined) throw badRequest(violation);
  if ((body.cloud ?? CPU_POD_CLOUD) !== CPU_POD_CLOUD) throw badRequest(`CPU pods run on ${CPU_POD_CLOUD} cloud only`);
  const cost = cpuPodCostPerHour(flavor, request.vcpuCount);
  checkBalance(account, cost, "pod");
  const pool = world.capacity.placeCpu(flavor.id, request.vcpuCount, dataCenterIds);
  if (!pool) {
    throw badRequest(
      `There is no capacity for a ${request.vcpuCount}-vCPU ${flavor.id} pod in ${dataCenterIds.join(", ")} right now. Try another data center or flavor.`,
    );
  }
  return {
    cpu: { id: flavor.id, vcpuCount: request.vcpuCount, memory: cpuMemoryGb(flavor, request.vcpuCount) },
    dataCenterId: pool.dataCenterId,
    hostId: `${pool.dataCenterId.toLowerCase()}-${flavor.id}-${hash32(pool.dataCenterId, flavor.id) % 100}`,
    cudaVersion: null,
    cost,
  };
}

/** Data centers a new pod may go to: its network volume's, and only those with global networking when asked. */
function allowedDataCenters(world: PodRulesWorld, account: AccountRecord, body: CreatePodRequest, mounts: Mounts): string[] {
  const catalog = world.catalog;
  const candidates = candidateDataCenters(catalog, body.dataCenterIds);
  const networkMount = mounts.network?.[0];
  const globalMount = mounts.global?.[0];
  let dataCenterIds = candidates;
  if (networkMount) dataCenterIds = networkVolumeDataCenters(world.volumes, account.id, networkMount.volumeId, candidates, "pod");
  if (globalMount && !world.volumes.globalVolume(account.id, globalMount.volumeId)) {
    throw notFound("global volume", globalMount.volumeId);
  }
  if (body.globalNetworking) {
    const gpuType = body.gpu ? catalog.gpuTypes.get(body.gpu.id) : undefined;
    const why = globalNetworkingRefusal({ gpu: body.gpu !== undefined, manufacturer: gpuType?.manufacturer });
    if (why) throw badRequest(`Global networking ${why}`);
    const eligible = dataCenterIds.filter((id) => catalog.dataCenters.get(id)?.globalNetwork);
    if (eligible.length === 0) {
      const offered = catalog.dataCenters.all().filter((d) => d.globalNetwork).map((d) => d.id);
      throw badRequest(
        `Global networking is not available in ${dataCenterIds.join(", ")}; data centers with global networking: ${offered.join(", ")}`,
      );
    }
    dataCenterIds = eligible;
  }
  return dataCenterIds;
}

/** Injection: PUBLIC_KEY from registered keys (nothing without keys), a generated JUPYTER_PASSWORD; neither overrides a value set. */
export function injectedEnv(deployment: Expanded, account: AccountRecord): Record<string, string> {
  const injected: Record<string, string> = {};
  if (deployment.startSsh && account.sshKeys.length > 0 && deployment.env.PUBLIC_KEY === undefined) {
    injected.PUBLIC_KEY = account.sshKeys.join("\n");
  }
  if (deployment.startJupyter && deployment.env.JUPYTER_PASSWORD === undefined) {
    injected.JUPYTER_PASSWORD = generatedPassword();
  }
  return injected;
}

/** POST /v2/pods, in the contract's order: template (404/422, expanded 413), volumes (404), placement. */
export function planCreate(world: PodRulesWorld, account: AccountRecord, body: CreatePodRequest): CreatePlan {
  const template = usableTemplate(world.templates, account.id, body.templateId, "pod");
  const deployment = expand(body, template);
  // Size rule: the expanded request must fit too (v2: 413 on body or expanded request).
  const expandedBytes = Buffer.byteLength(JSON.stringify({ ...body, ...deployment }));
  if (template && expandedBytes > MAX_BODY_BYTES) {
    throw new ApiError(
      413,
      `The request expanded with template ${template.id} is ${expandedBytes} bytes, over the ${MAX_BODY_BYTES}-byte limit; reduce env vars or command values in the request or template`,
    );
  }
  const dataCenterIds = allowedDataCenters(world, account, body, deployment.mounts);
  const placement = body.gpu ? placeGpu(world, body, deployment, account, dataCenterIds) : placeCpu(world, body, account, dataCenterIds);
  const injected = injectedEnv(deployment, account);
  const mounts: Mounts = { ...deployment.mounts };
  if (mounts.global) mounts.global = mounts.global.map((m) => ({ volumeId: m.volumeId, path: m.path ?? DEFAULT_GLOBAL_MOUNT_PATH }));
  return {
    deployment,
    placement,
    cloud: body.cloud ?? "SECURE",
    globalNetworking: body.globalNetworking ?? false,
    env: { ...deployment.env, ...injected },
    injected,
    mounts,
  };
}

/** v2 mount update semantics: kinds fixed at create, volume ids immutable, paths changeable. */
function updatedMounts(pod: PodRecord, requested: Mounts | undefined): Mounts {
  const stored = pod.mounts;
  if (!requested) return stored;
  const next: Mounts = structuredClone(stored);
  const problems: string[] = [];
  if (requested.persistent) {
    if (!stored.persistent) problems.push("mounts.persistent: the pod was created without a persistent mount; mount kinds are fixed at create");
    else if (requested.persistent.size !== stored.persistent.size) problems.push(`mounts.persistent.size: cannot change after create (${stored.persistent.size} GB)`);
    else next.persistent = { size: stored.persistent.size, path: requested.persistent.path };
  }
  for (const kind of ["network", "global"] as const) {
    const entry = requested[kind]?.[0];
    if (!entry) continue;
    const current = stored[kind]?.[0];
    if (!current) {
      problems.push(`mounts.${kind}: the pod was created without a ${kind} mount; mount kinds are fixed at create`);
    } else if (entry.volumeId !== current.volumeId) {
      problems.push(`mounts.${kind}[0].volumeId: is fixed at create ("${current.volumeId}")`);
    } else {
      next[kind] = [{ volumeId: current.volumeId, path: entry.path ?? current.path ?? DEFAULT_GLOBAL_MOUNT_PATH }];
    }
  }
  if (problems.length > 0) throw badRequest(problems.join("; "), problems);
  return next;
}

/** PATCH /v2/pods/{id}: not once terminated (409); the template, mount and global-networking rules. */
export function checkUpdate(world: PodRulesWorld, account: AccountRecord, pod: PodRecord, body: UpdatePodRequest, now: number): { template?: TemplateRecord; mounts: Mounts } {
  if (podEnded(podStatus(pod, now))) throw conflict(`Pod ${pod.id} is terminated`);
  const template = usableTemplate(world.templates, account.id, body.templateId, "pod");
  const mounts = updatedMounts(pod, body.mounts);
  if (body.globalNetworking === true) {
    const why = world.catalog.globalNetworkingRefusal(pod);
    if (why) throw badRequest(why);
  }
  return { template, mounts };
}
