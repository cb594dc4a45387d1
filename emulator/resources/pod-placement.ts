/**
 * Pod creation's decisions that do not touch stored pods: expanding a template into the
 * deployment (v2 template rules 1–4) and placing it on one machine (GPU) or pool (CPU), with the
 * checks the contract orders before placement (pool access 403, balance 402, capacity 400).
 */
import { CPU_POD_CLOUD, storedArgs, type CreatePodRequest, type CudaConstraint, type Mounts } from "../../contract";
import { ApiError, badRequest } from "../http";
import { hash32 } from "../ids";
import type { AccountRecord } from "./accounts";
import type { Catalog } from "./catalog";
import type { TemplateRecord } from "./templates";

const DEFAULT_DISK_GB = 20;

/** Where a new pod goes and what it gets there. */
export interface Placement {
  gpu?: { id: string; count: number; vcpuCount: number; memory: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  dataCenterId: string;
  hostId: string;
  cudaVersion: string | null;
  cost: number;
}

export const round4 = (n: number) => Math.round(n * 10000) / 10000;

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

export function expand(body: CreatePodRequest, template: TemplateRecord | undefined): Expanded {
  const isGpu = body.gpu !== undefined;
  const bodyCuda = body.gpu && (body.gpu.allowedCudaVersions !== undefined || body.gpu.minCudaVersion !== undefined);
  return {
    image: body.image ?? template?.image ?? "",
    args: storedArgs(body).args ?? template?.args ?? "",
    disk: body.disk ?? template?.disk ?? DEFAULT_DISK_GB,
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

/** Preference order when given (unknown ids ignored unless none is known); else every data center. */
export function candidateDataCenters(catalog: Catalog, requested: string[] | undefined): string[] {
  if (!requested || requested.length === 0) return catalog.allDataCenters().map((d) => d.id);
  const known = requested.filter((id) => catalog.dataCenter(id));
  if (known.length === 0) throw badRequest(`None of the requested data centers exist: ${requested.join(", ")}`);
  return known;
}

export function checkBalance(account: AccountRecord, costPerHour: number): void {
  // One hour of the new pod must be covered (v2: 402, "no candidate will succeed").
  if (account.balance < costPerHour) {
    throw new ApiError(
      402,
      `Insufficient balance: this pod costs $${costPerHour.toFixed(2)}/hr and the account balance is $${account.balance.toFixed(2)}`,
    );
  }
}

export function placeGpu(catalog: Catalog, body: CreatePodRequest, deployment: Expanded, account: AccountRecord, dataCenterIds: string[]): Placement {
  const request = body.gpu!;
  const gpuType = catalog.gpuType(request.id);
  if (!gpuType) throw badRequest(`Unknown GPU type "${request.id}"; GET /v2/catalog/gpus lists the GPU type ids`);
  if (gpuType.restrictedToAccounts && !gpuType.restrictedToAccounts.includes(account.id)) {
    throw new ApiError(403, `This account cannot access the ${gpuType.name} pool`);
  }
  const cloud = body.cloud ?? "SECURE";
  const count = request.count ?? 1;
  const largest = gpuType.maxCount[cloud === "SECURE" ? "secure" : "community"];
  if (largest === 0) throw badRequest(`${gpuType.id} is not offered on ${cloud} cloud`);
  if (count > largest) {
    throw badRequest(`No ${cloud} machine has ${count} ${gpuType.id} GPUs; the largest has ${largest}`);
  }
  const cost = round4(gpuType.price[cloud === "SECURE" ? "secure" : "community"] * count);
  checkBalance(account, cost);
  const machine = catalog.placeGpu({
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
  catalog.reserveGpus(machine.id, count);
  return {
    gpu: { id: gpuType.id, count, vcpuCount: machine.vcpuPerGpu * count, memory: machine.ramPerGpu * count },
    dataCenterId: machine.dataCenterId,
    hostId: machine.id,
    cudaVersion: machine.cudaVersion,
    cost,
  };
}

export function placeCpu(catalog: Catalog, body: CreatePodRequest, account: AccountRecord, dataCenterIds: string[]): Placement {
  const request = body.cpu!;
  const flavor = catalog.cpuFlavor(request.id);
  if (!flavor) throw badRequest(`Unknown CPU flavor "${request.id}"; GET /v2/catalog/cpus lists the flavor ids`);
  if (request.vcpuCount < flavor.vcpu.min || request.vcpuCount > flavor.vcpu.max) {
    throw badRequest(`cpu.vcpuCount ${request.vcpuCount} is not valid for ${flavor.id} (${flavor.vcpu.min} to ${flavor.vcpu.max} vCPUs)`);
  }
  if ((body.cloud ?? CPU_POD_CLOUD) !== CPU_POD_CLOUD) throw badRequest(`CPU pods run on ${CPU_POD_CLOUD} cloud only`);
  const cost = round4(flavor.price.securePerVcpu * request.vcpuCount);
  checkBalance(account, cost);
  const pool = catalog.placeCpu(flavor.id, request.vcpuCount, dataCenterIds);
  if (!pool) {
    throw badRequest(
      `There is no capacity for a ${request.vcpuCount}-vCPU ${flavor.id} pod in ${dataCenterIds.join(", ")} right now. Try another data center or flavor.`,
    );
  }
  catalog.reserveCpu(pool.dataCenterId, flavor.id, request.vcpuCount);
  return {
    cpu: { id: flavor.id, vcpuCount: request.vcpuCount, memory: Math.floor(request.vcpuCount * flavor.ramGbPerVcpu) },
    dataCenterId: pool.dataCenterId,
    hostId: `${pool.dataCenterId.toLowerCase()}-${flavor.id}-${hash32(pool.dataCenterId, flavor.id) % 100}`,
    cudaVersion: null,
    cost,
  };
}
