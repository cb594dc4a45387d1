/**
 * Read-then-create placement (the contract's recommended client pattern): try an ordered list
 * of (data center, GPU type) candidates, one create per candidate, until one returns 201.
 * Catalog availability is not a reservation, so a create can still fail; what happens next
 * follows the contract's per-status table:
 *
 *   400 → next candidate (capacity, or a combination that cannot be placed)
 *   402 → stop at once: no candidate will succeed
 *   403 → skip this candidate (no access to that pool)
 *   422 → stop, never retry: the request itself is wrong
 *   429 → wait and resume (the request path waits out Retry-After)
 *   5xx → retry the same candidate (the request path backs off; its duplicate-safe create
 *         makes the retry safe)
 */
import { ApiError, ComputeError } from "./errors";
import type { ComputeClient } from "./client";
import {
  cudaVersionSatisfies,
  globalNetworkingRefusal,
  type AvailabilityLevel,
  type Cluster,
  type CreateClusterRequest,
  type CreatePodRequest,
  type CudaConstraint,
  type DataCenter,
  type GpuType,
  type Pod,
} from "../contract";

export interface PlacementCandidate {
  /** GPU type for GPU pods; omitted to keep the request's own `gpu.id` (or for CPU pods). */
  gpuTypeId?: string;
  /** Data center to pin the pod to; omitted to let the scheduler choose. */
  dataCenterId?: string;
}

export interface PlacementAttempt {
  candidate: PlacementCandidate;
  outcome: "created" | "no-capacity" | "forbidden" | "failed";
  status?: number;
  detail?: string;
}

export interface PlacementResult {
  pod: Pod;
  chosen: PlacementCandidate;
  attempts: PlacementAttempt[];
}

/** What to derive candidates from when none are listed explicitly. */
export interface CandidateRule {
  /** GPU types in order of preference; default: the request's `gpu.id`. */
  gpuTypeIds?: string[];
  /** Data centers allowed; default: every data center. */
  dataCenterIds?: string[];
  /** A region name passed to the catalog (`regions`). */
  region?: string;
  /** Lowest availability still worth trying. Default LOW (NONE is always skipped). */
  minAvailability?: Exclude<AvailabilityLevel, "NONE">;
}

export class PlacementError extends ComputeError {
  static override readonly brand: string = "PlacementError";
  constructor(
    message: string,
    readonly attempts: PlacementAttempt[],
    readonly lastError?: ApiError,
  ) {
    super(`${message}\n${attempts.map((a) => `  - ${describeCandidate(a.candidate)}: ${a.outcome}${a.status ? ` (${a.status})` : ""}${a.detail ? `: ${a.detail}` : ""}`).join("\n")}`);
  }
}

export function describeCandidate(candidate: PlacementCandidate): string {
  return `${candidate.gpuTypeId ?? "(requested GPU)"} in ${candidate.dataCenterId ?? "(any data center)"}`;
}

/** The request as sent for one candidate. */
export function requestForCandidate(request: CreatePodRequest, candidate: PlacementCandidate): CreatePodRequest {
  const out: CreatePodRequest = { ...request };
  if (candidate.gpuTypeId !== undefined) {
    if (!request.gpu) throw new ComputeError("placement: a GPU type candidate was given for a CPU pod");
    out.gpu = { ...request.gpu, id: candidate.gpuTypeId };
  }
  if (candidate.dataCenterId !== undefined) out.dataCenterIds = [candidate.dataCenterId];
  return out;
}

/**
 * The candidate loop of every placed create (pods, clusters): `attempt` sends one create for a
 * candidate; the per-status table above decides whether the next candidate is tried.
 */
export async function placeOnCandidates<T>(
  candidates: PlacementCandidate[],
  attempt: (candidate: PlacementCandidate) => Promise<T>,
): Promise<{ value: T; chosen: PlacementCandidate; attempts: PlacementAttempt[] }> {
  const list = candidates.length > 0 ? candidates : [{}];
  const attempts: PlacementAttempt[] = [];
  let lastError: ApiError | undefined;
  for (const candidate of list) {
    try {
      const value = await attempt(candidate);
      attempts.push({ candidate, outcome: "created", status: 201 });
      return { value, chosen: candidate, attempts };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      lastError = error;
      attempts.push({
        candidate,
        outcome: error.status === 400 ? "no-capacity" : error.status === 403 ? "forbidden" : "failed",
        status: error.status,
        detail: error.detail,
      });
      if (error.status === 400 || error.status === 403) continue;
      const reason =
        error.status === 402
          ? "placement stopped: insufficient balance (402), no candidate can succeed"
          : error.status === 422
            ? "placement stopped: the request violates the contract (422) and is never retried"
            : `placement stopped: ${error.status} ${error.title}`;
      throw new PlacementError(`${reason}: ${error.detail}${error.errors.length ? ` [${error.errors.join("; ")}]` : ""}`, attempts, error);
    }
  }
  const last = lastError?.detail ?? "none";
  // One candidate: the service's own reason is the message (a cluster that cannot be placed).
  const message = attempts.length === 1 ? `the service refused the create (${attempts[0]!.status}): ${last}` : `no placement candidate could be created (${attempts.length} tried); last answer: ${last}`;
  throw new PlacementError(message, attempts, lastError);
}

/** The candidate loop a create uses: `placeOnCandidates` (ordered), or a plan's (sdk/capacity.ts `placeWithPlan`). */
export type Placer = <T>(candidates: PlacementCandidate[], attempt: (candidate: PlacementCandidate) => Promise<T>) => Promise<{ value: T; chosen: PlacementCandidate; attempts: PlacementAttempt[] }>;

export async function createPodWithPlacement(
  client: ComputeClient,
  request: CreatePodRequest,
  candidates: PlacementCandidate[],
  options: { signal?: AbortSignal; place?: Placer } = {},
): Promise<PlacementResult> {
  const attempt = (candidate: PlacementCandidate) => client.pods.create(requestForCandidate(request, candidate), { signal: options.signal });
  const placed = await (options.place ?? placeOnCandidates)(candidates, attempt);
  return { pod: placed.value, chosen: placed.chosen, attempts: placed.attempts };
}

/** A cluster request as sent for one candidate: its GPU type and its one data center. */
export function clusterRequestForCandidate(request: CreateClusterRequest, candidate: PlacementCandidate): CreateClusterRequest {
  const out: CreateClusterRequest = { ...request };
  if (candidate.gpuTypeId !== undefined) out.compute = { ...request.compute, gpuTypeId: candidate.gpuTypeId };
  if (candidate.dataCenterId !== undefined) out.dataCenterIds = [candidate.dataCenterId];
  return out;
}

/** A cluster over ordered candidates: the service places all its nodes or none, so a refusal (400) moves on. */
export async function createClusterWithPlacement(
  client: ComputeClient,
  request: CreateClusterRequest,
  candidates: PlacementCandidate[],
  options: { signal?: AbortSignal; place?: Placer } = {},
): Promise<{ cluster: Cluster; chosen: PlacementCandidate; attempts: PlacementAttempt[] }> {
  const attempt = (candidate: PlacementCandidate) => client.clusters.create(clusterRequestForCandidate(request, candidate), { signal: options.signal });
  const placed = await (options.place ?? placeOnCandidates)(candidates, attempt);
  return { cluster: placed.value, chosen: placed.chosen, attempts: placed.attempts };
}

const RANK: Record<AvailabilityLevel, number> = { HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 };

/**
 * Whether a GPU type can satisfy the request's CUDA constraint: one of the versions the catalog
 * lists as available meets it (the rule itself: contract/cuda.ts).
 */
export function satisfiesCuda(gpu: GpuType | undefined, constraint: { allowedCudaVersions?: string[]; minCudaVersion?: string }): boolean {
  if (!gpu?.cudaVersions) return true; // the catalog did not say: let the service decide
  const cuda: CudaConstraint = { allowed: constraint.allowedCudaVersions, min: constraint.minCudaVersion };
  if ((cuda.allowed ?? []).length === 0 && cuda.min === undefined) return true;
  return gpu.cudaVersions.some((v) => v.available && cudaVersionSatisfies(v.version, cuda));
}

/**
 * Candidates from the catalog: availability HIGH before MEDIUM before LOW, NONE skipped, CUDA
 * constraints respected; ties keep the preference order of GPU types, then data centers.
 */
export function rankCandidates(
  request: CreatePodRequest,
  rule: CandidateRule,
  dataCenters: DataCenter[],
  gpuTypes: GpuType[],
): PlacementCandidate[] {
  const gpuIds = rule.gpuTypeIds ?? (request.gpu ? [request.gpu.id] : []);
  const floor = RANK[rule.minAvailability ?? "LOW"];
  const byId = new Map(gpuTypes.map((g) => [g.id, g]));
  const ranked: Array<{ candidate: PlacementCandidate; rank: number; order: number }> = [];
  let order = 0;
  gpuIds.forEach((gpuTypeId) => {
    const gpu = byId.get(gpuTypeId);
    if (!satisfiesCuda(gpu, request.gpu ?? {})) return;
    // Global networking rules out GPU types and data centers (the rule: pod-rules.ts).
    if (request.globalNetworking && gpu && globalNetworkingRefusal({ gpu: true, manufacturer: gpu.manufacturer })) return;
    for (const dc of dataCenters) {
      if (rule.dataCenterIds && !rule.dataCenterIds.includes(dc.id)) continue;
      if (request.globalNetworking && globalNetworkingRefusal({ gpu: true, dataCenterGlobalNetwork: dc.globalNetwork })) continue;
      const level = dc.gpuAvailability?.find((a) => a.id === gpuTypeId)?.availability ?? "NONE";
      if (RANK[level] === 0 || RANK[level] < floor) continue;
      ranked.push({ candidate: { gpuTypeId, dataCenterId: dc.id }, rank: RANK[level], order: order++ });
    }
  });
  return ranked.sort((a, b) => b.rank - a.rank || a.order - b.order).map((r) => r.candidate);
}

/** Reads the catalog (two requests) and ranks candidates for a GPU pod request. */
export async function deriveCandidates(
  client: ComputeClient,
  request: CreatePodRequest,
  rule: CandidateRule = {},
  options: { signal?: AbortSignal } = {},
): Promise<PlacementCandidate[]> {
  const [dataCenters, gpuTypes] = await Promise.all([
    client.catalog.dataCenters({ regions: rule.region, includeGpuAvailability: true, signal: options.signal }),
    client.catalog.gpuTypes({ includeAvailability: true, signal: options.signal }),
  ]);
  return rankCandidates(request, rule, dataCenters, gpuTypes);
}

