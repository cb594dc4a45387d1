/**
 * What a pod or a sandbox is expected to cost per hour before it exists, from the catalog's list
 * prices: the one rule behind the estimate `pulumi preview` prints per resource (provider
 * `check`), the cost policy pack (policy/) and the GitOps cost report, and the prices the
 * emulator charges. Pure: the callers read the catalog.
 *
 * Which price: a pod may land on any of its placement candidates (the service places exactly
 * one GPU type per create and the provider tries them in turn, docs/api-contract.md 5.5), so
 * the estimate is the **worst** (most expensive) candidate that can be placed at all: a bound
 * the bill cannot exceed at today's list prices, whichever candidate has capacity. A candidate
 * the service would refuse outright (a GPU type the catalog does not list, one not offered on
 * the pod's cloud, more GPUs than its largest machine) never bills, so it does not count.
 *
 * Limits (docs/cost.md): list prices change (the estimate is of today's catalog, never stored,
 * so a price change alone is never a diff); availability is not a reservation; storage is not
 * priced (the catalog lists no storage price: container disk, persistent and network volumes
 * are left out); negotiated discounts are not known.
 */
import type { Cloud } from "./common";
import { CPU_POD_CLOUD } from "./pod-rules";

/** Prices are kept to four decimals, as the catalog lists them. */
export function roundPrice(dollars: number): number {
  return Math.round(dollars * 10000) / 10000;
}

/** What an estimate reads of a GPU type (catalog `gpus[]`). */
export interface GpuTypePrices {
  id: string;
  /** USD per hour for one GPU, per cloud; `serverless` per GPU of a worker, where the catalog gives it. */
  price: { secure: number; community: number; serverless?: number };
  /** The serverless pool the type belongs to (none: it runs no endpoint). */
  pool?: string | null;
  /** GPUs of the largest machine per cloud; 0 = not offered on that cloud. */
  maxCount: { secure: number; community: number };
}

/** What an estimate reads of a CPU flavor (catalog `cpus[]`). */
export interface CpuFlavorPrices {
  id: string;
  vcpu: { min: number; max: number };
  /** USD per hour for one vCPU (CPU pods run on SECURE cloud only); `serverlessPerVcpu` for an endpoint's worker. */
  price: { securePerVcpu: number; serverlessPerVcpu?: number };
}

/** The catalog lists an estimate may need; a list not read is absent. */
export interface PriceList {
  gpuTypes?: readonly GpuTypePrices[];
  cpuFlavors?: readonly CpuFlavorPrices[];
}

const cloudKey = (cloud: Cloud) => (cloud === "SECURE" ? "secure" : "community");

/** A GPU pod: the type's list price on its cloud × the GPU count (v2: `price` is per GPU). */
export function gpuPodCostPerHour(gpuType: Pick<GpuTypePrices, "price">, cloud: Cloud, count: number): number {
  return roundPrice(gpuType.price[cloudKey(cloud)] * count);
}

/** A CPU pod: the flavor's price per vCPU × the vCPU count. */
export function cpuPodCostPerHour(flavor: Pick<CpuFlavorPrices, "price">, vcpuCount: number): number {
  return roundPrice(flavor.price.securePerVcpu * vcpuCount);
}

/**
 * The sandbox rate, USD per hour. The v2 document shows a sandbox's rate only once it exists
 * (`compute.costPerHr`) and the catalog lists no sandbox price, so this is the project's
 * decision: the rate the emulator charges and estimates assume (docs/cost.md).
 */
export const SANDBOX_RATE = { perVcpu: 0.03, perGbMemory: 0.004, perGbDisk: 0.0002 } as const;

export interface SandboxCompute {
  vcpuCount: number;
  memoryInGb: number;
  containerDiskInGb: number;
}

/** Per hour: vCPU × 0.03 + GB of memory × 0.004 + GB of disk × 0.0002 (`SANDBOX_RATE`). */
export function sandboxCostPerHour(compute: SandboxCompute): number {
  return roundPrice(compute.vcpuCount * SANDBOX_RATE.perVcpu + compute.memoryInGb * SANDBOX_RATE.perGbMemory + compute.containerDiskInGb * SANDBOX_RATE.perGbDisk);
}

/** The part of a pod's create request (and provider inputs) that decides its price. */
export interface PodCostRequest {
  gpu?: { id: string; count?: number };
  cpu?: { id: string; vcpuCount: number };
  /** Default `SECURE`. */
  cloud?: Cloud;
  /** Placement candidates in order; a candidate without `gpuTypeId` keeps `gpu.id`. None: `gpu.id` alone. */
  placement?: ReadonlyArray<{ gpuTypeId?: string; dataCenterId?: string }>;
  /** The pod is to be kept stopped: an `EXITED` pod bills no compute (v2: `cost` 0 when `EXITED`). */
  stopped?: boolean;
  /** Candidates over this price are never tried (contract/placement-choice.ts), so they never bill. */
  maxCostPerHour?: number;
}

export interface SandboxCostRequest {
  compute: SandboxCompute;
}

/** One candidate the estimate considered. */
export interface CandidateCost {
  /** `2 × NVIDIA H100 80GB HBM3 on SECURE`, `4 vCPU cpu3c on SECURE`, the sandbox rate applied. */
  label: string;
  /** The candidate's data center, when it names one (prices do not depend on it). */
  dataCenterId?: string;
  /** USD per hour; absent when the candidate cannot be placed. */
  dollarsPerHour?: number;
  /** Why the candidate can never bill (the service refuses it), when it cannot. */
  excluded?: string;
}

export interface CostEstimate {
  /** USD per hour: the worst candidate that can be placed (0 for a pod kept stopped). */
  dollarsPerHour: number;
  /** Which price this is: the worst candidate, the safe bound whichever candidate gets capacity. */
  bound: "worst-candidate";
  /** The price rule applied: `GPU list price on SECURE × 2`, `CPU list price per vCPU × 4`, `sandbox rate`. */
  basis: string;
  /** Every candidate considered, placeable or not, in the request's order. */
  candidates: CandidateCost[];
  /** For a pod kept stopped: what it costs once started (the worst candidate). */
  onceStarted?: number;
  /** For a serverless endpoint: what it costs at its maximum workers (the estimate is at its minimum). */
  ceiling?: { dollarsPerHour: number; workers: number };
}

export type EstimateOutcome = { ok: true; estimate: CostEstimate } | { ok: false; reason: string };

/** Which catalog lists a pod's estimate reads (a sandbox's reads none). */
export function pricesNeeded(request: PodCostRequest): { gpuTypes: boolean; cpuFlavors: boolean } {
  return { gpuTypes: request.gpu !== undefined, cpuFlavors: request.gpu === undefined && request.cpu !== undefined };
}

const isCount = (n: unknown, min: number): n is number => typeof n === "number" && Number.isInteger(n) && n >= min;
const isAmount = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n) && n >= 0;
const unavailable = (reason: string): EstimateOutcome => ({ ok: false, reason });

function gpuCandidate(gpuTypes: readonly GpuTypePrices[], gpuTypeId: string, cloud: Cloud, count: number, dataCenterId: string | undefined): CandidateCost {
  const label = `${count} × ${gpuTypeId} on ${cloud}`;
  const base = { label, ...(dataCenterId !== undefined ? { dataCenterId } : {}) };
  const gpuType = gpuTypes.find((g) => g.id === gpuTypeId);
  if (!gpuType) return { ...base, excluded: "not in the GPU catalog" };
  const largest = gpuType.maxCount[cloudKey(cloud)];
  if (largest === 0) return { ...base, excluded: `not offered on ${cloud} cloud` };
  if (count > largest) return { ...base, excluded: `the largest ${cloud} machine has ${largest} GPUs` };
  return { ...base, dollarsPerHour: gpuPodCostPerHour(gpuType, cloud, count) };
}

/** Candidates over `maxCostPerHour` are skipped at create: they never bill, so they leave the estimate. */
function capped(candidates: CandidateCost[], maxCostPerHour: number | undefined): CandidateCost[] {
  if (maxCostPerHour === undefined) return candidates;
  return candidates.map(({ dollarsPerHour, ...rest }) =>
    dollarsPerHour !== undefined && dollarsPerHour > maxCostPerHour ? { ...rest, excluded: `over maxCostPerHour ${formatDollars(maxCostPerHour)}` } : { ...rest, ...(dollarsPerHour !== undefined ? { dollarsPerHour } : {}) },
  );
}

function worstOf(candidates: CandidateCost[], basis: string, stopped: boolean): EstimateOutcome {
  const priced = candidates.filter((c) => c.dollarsPerHour !== undefined);
  if (priced.length === 0) {
    return unavailable(`no candidate can be placed (${candidates.map((c) => `${c.label}: ${c.excluded}`).join("; ")})`);
  }
  const worst = Math.max(...priced.map((c) => c.dollarsPerHour!));
  const estimate: CostEstimate = { dollarsPerHour: stopped ? 0 : worst, bound: "worst-candidate", basis, candidates };
  if (stopped) estimate.onceStarted = worst;
  return { ok: true, estimate };
}

/** A pod's estimate from the catalog's lists (`pricesNeeded` says which). */
export function estimatePodCost(request: PodCostRequest, prices: PriceList): EstimateOutcome {
  const stopped = request.stopped === true;
  if (request.gpu) {
    if (typeof request.gpu.id !== "string") return unavailable("gpu.id: must be a string");
    if (!prices.gpuTypes) return unavailable("the GPU catalog was not read");
    const count = request.gpu.count ?? 1;
    if (!isCount(count, 1)) return unavailable("gpu.count: must be an integer >= 1");
    const cloud = request.cloud ?? "SECURE";
    const placement = request.placement && request.placement.length > 0 ? request.placement : [{}];
    const candidates = placement.map((c) => gpuCandidate(prices.gpuTypes!, c.gpuTypeId ?? request.gpu!.id, cloud, count, c.dataCenterId));
    return worstOf(capped(candidates, request.maxCostPerHour), `GPU list price on ${cloud} × ${count}`, stopped);
  }
  if (request.cpu) {
    if (!prices.cpuFlavors) return unavailable("the CPU catalog was not read");
    const { id, vcpuCount } = request.cpu;
    if (typeof id !== "string") return unavailable("cpu.id: must be a string");
    if (!isCount(vcpuCount, 1)) return unavailable("cpu.vcpuCount: must be an integer >= 1");
    const label = `${vcpuCount} vCPU ${id} on ${CPU_POD_CLOUD}`;
    const flavor = prices.cpuFlavors.find((f) => f.id === id);
    const candidate: CandidateCost = !flavor
      ? { label, excluded: "not in the CPU catalog" }
      : vcpuCount < flavor.vcpu.min || vcpuCount > flavor.vcpu.max
        ? { label, excluded: `${id} takes ${flavor.vcpu.min} to ${flavor.vcpu.max} vCPUs` }
        : { label, dollarsPerHour: cpuPodCostPerHour(flavor, vcpuCount) };
    // Data-center candidates do not change a CPU pod's price: one candidate.
    return worstOf(capped([candidate], request.maxCostPerHour), `CPU list price per vCPU × ${vcpuCount}`, stopped);
  }
  return unavailable("neither gpu nor cpu is set");
}

/** A sandbox's estimate: the sandbox rate on its compute (no catalog read). */
export function estimateSandboxCost(request: SandboxCostRequest): EstimateOutcome {
  const { vcpuCount, memoryInGb, containerDiskInGb } = request.compute ?? ({} as Partial<SandboxCompute>);
  for (const [field, value] of Object.entries({ vcpuCount, memoryInGb, containerDiskInGb })) {
    if (!isAmount(value)) return unavailable(`compute.${field}: must be a number >= 0`);
  }
  const compute = { vcpuCount, memoryInGb, containerDiskInGb } as SandboxCompute;
  const label = `sandbox rate: ${vcpuCount} vCPU × ${SANDBOX_RATE.perVcpu} + ${memoryInGb} GB × ${SANDBOX_RATE.perGbMemory} + ${containerDiskInGb} GB disk × ${SANDBOX_RATE.perGbDisk}`;
  return worstOf([{ label, dollarsPerHour: sandboxCostPerHour(compute) }], "sandbox rate", false);
}

/** What an endpoint's estimate reads of its inputs. */
export interface EndpointCostRequest {
  gpu?: { pools?: string[]; excludedTypes?: string[]; count?: number };
  cpu?: Array<{ id: string; vcpuCount: number }>;
  workers?: { min?: number; max?: number };
  /** The most one worker may cost: the GPU types over it are excluded on the service (GPU endpoints only). */
  maxCostPerHour?: number;
}

/** The service's worker defaults (reference OpenAPI `CreateEndpointRequest.workers`). */
export const ENDPOINT_DEFAULT_WORKERS = { min: 0, max: 3 } as const;

/**
 * A serverless endpoint's estimate: `workers.min` × the price of one worker (an idle endpoint
 * scaled to zero costs nothing), with the ceiling at `workers.max` beside it. One worker's price
 * is the worst it can be placed on: the most expensive serverless price among the GPU types
 * its pools allow (× `gpu.count`), or among its CPU choices (per vCPU × vCPUs).
 */
export function estimateEndpointCost(request: EndpointCostRequest, prices: PriceList): EstimateOutcome {
  const min = request.workers?.min ?? ENDPOINT_DEFAULT_WORKERS.min;
  const max = request.workers?.max ?? ENDPOINT_DEFAULT_WORKERS.max;
  if (!isCount(min, 0) || !isCount(max, 0)) return unavailable("workers.min and workers.max: must be integers >= 0");
  let candidates: CandidateCost[];
  let basis: string;
  if (request.gpu) {
    if (!prices.gpuTypes) return unavailable("the GPU catalog was not read");
    const count = request.gpu.count ?? 1;
    const excluded = new Set(request.gpu.excludedTypes ?? []);
    const types = prices.gpuTypes.filter((t) => t.pool != null && (request.gpu!.pools ?? []).includes(t.pool) && !excluded.has(t.id));
    if (types.length === 0) return unavailable("gpu.pools: no GPU type of the catalog is in the pools (less the excluded types)");
    candidates = types.map((t) =>
      t.price.serverless === undefined ? { label: `${count} × ${t.id}`, excluded: "no serverless price in the catalog" } : { label: `${count} × ${t.id}`, dollarsPerHour: roundPrice(t.price.serverless * count) },
    );
    basis = `serverless GPU price × ${count} per worker`;
  } else if (request.cpu) {
    if (!prices.cpuFlavors) return unavailable("the CPU catalog was not read");
    candidates = request.cpu.map(({ id, vcpuCount }) => {
      const flavor = prices.cpuFlavors!.find((f) => f.id === id);
      const label = `${vcpuCount} vCPU ${id}`;
      if (!flavor) return { label, excluded: "not in the CPU catalog" };
      if (flavor.price.serverlessPerVcpu === undefined) return { label, excluded: "no serverless price in the catalog" };
      return { label, dollarsPerHour: roundPrice(flavor.price.serverlessPerVcpu * vcpuCount) };
    });
    basis = "serverless CPU price per vCPU per worker";
  } else return unavailable("neither gpu nor cpu is set");
  // The cap excludes GPU types on the service; CPU choices are all sent (the provider refuses a cap there).
  const perWorker = worstOf(request.gpu ? capped(candidates, request.maxCostPerHour) : candidates, basis, false);
  if (!perWorker.ok) return perWorker;
  const worker = perWorker.estimate.dollarsPerHour;
  return {
    ok: true,
    estimate: { ...perWorker.estimate, dollarsPerHour: roundPrice(worker * min), basis: `${min} worker(s) × ${basis}`, ceiling: { dollarsPerHour: roundPrice(worker * max), workers: max } },
  };
}

/** What a cluster's estimate reads of its inputs. */
export interface ClusterCostRequest {
  compute?: { gpuTypeId?: string; gpuCountPerPod?: number; podCount?: number };
  /** Placement candidates in order; a candidate without `gpuTypeId` keeps `compute.gpuTypeId`. */
  placement?: ReadonlyArray<{ gpuTypeId?: string; dataCenterId?: string }>;
  /** Candidates over this price (the whole cluster's) are never tried. */
  maxCostPerHour?: number;
}

/**
 * A cluster's estimate: every node bills as a GPU pod on SECURE (decision 37), so it is
 * `podCount × gpuCountPerPod ×` the GPU's list price, for the worst placement candidate.
 */
export function estimateClusterCost(request: ClusterCostRequest, prices: PriceList): EstimateOutcome {
  const compute = request.compute ?? {};
  if (typeof compute.gpuTypeId !== "string") return unavailable("compute.gpuTypeId: must be a string");
  if (!isCount(compute.gpuCountPerPod, 1)) return unavailable("compute.gpuCountPerPod: must be an integer >= 1");
  if (!isCount(compute.podCount, 1)) return unavailable("compute.podCount: must be an integer >= 1");
  if (!prices.gpuTypes) return unavailable("the GPU catalog was not read");
  const { gpuCountPerPod, podCount } = compute;
  const placement = request.placement && request.placement.length > 0 ? request.placement : [{}];
  const candidates = placement.map((c) => {
    const node = gpuCandidate(prices.gpuTypes!, c.gpuTypeId ?? compute.gpuTypeId!, "SECURE", gpuCountPerPod, c.dataCenterId);
    const label = `${podCount} nodes × ${node.label}`;
    return node.dollarsPerHour === undefined ? { ...node, label } : { ...node, label, dollarsPerHour: roundPrice(node.dollarsPerHour * podCount) };
  });
  return worstOf(capped(candidates, request.maxCostPerHour), `${podCount} nodes × GPU list price on SECURE × ${gpuCountPerPod}`, false);
}

/** Dollars as the estimate lines print them: at least two decimals, at most the catalog's four. */
export function formatDollars(dollars: number): string {
  return roundPrice(dollars).toFixed(4).replace(/(\.\d\d\d*?)0+$/, "$1");
}

/**
 * The one line printed for a resource: `estimated 5.98 $/hr (worst of 2 candidates: …)` or
 * `estimate unavailable: <why>`.
 */
export function describeEstimate(outcome: EstimateOutcome): string {
  if (!outcome.ok) return `estimate unavailable: ${outcome.reason}`;
  const { dollarsPerHour, candidates, onceStarted } = outcome.estimate;
  const priced = candidates.filter((c) => c.dollarsPerHour !== undefined);
  const excluded = candidates.filter((c) => c.excluded !== undefined);
  // Candidates that differ only by data center cost the same: each price is listed once.
  const options = [...new Map(priced.map((c) => [c.label, c.dollarsPerHour!])).entries()].sort((a, b) => b[1] - a[1]);
  const details: string[] = [];
  if (onceStarted !== undefined) details.push(`kept stopped; ${formatDollars(onceStarted)} $/hr once started`);
  const { ceiling } = outcome.estimate;
  if (ceiling !== undefined) details.push(`at the minimum workers; up to ${formatDollars(ceiling.dollarsPerHour)} $/hr at ${ceiling.workers} workers`);
  details.push(
    candidates.length > 1
      ? `worst of ${candidates.length} candidates: ${options.map(([label, dollars]) => `${label} ${formatDollars(dollars)}`).join(", ")}`
      : options[0]![0],
  );
  if (excluded.length > 0) details.push(`never billed: ${[...new Set(excluded.map((c) => `${c.label} (${c.excluded})`))].join(", ")}`);
  return `estimated ${formatDollars(dollarsPerHour)} $/hr (${details.join("; ")})`;
}
