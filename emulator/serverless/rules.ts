/**
 * Endpoint rules: the cross-field ones (400) on a valid body, and those that need the catalog and
 * the account's volumes: `gpu.pools` are catalog pool ids, `excludedTypes` are types of those
 * pools and leave at least one, data centers and network volumes exist.
 */
import type { CreateEndpointRequest } from "../../contract";
import type { Catalog } from "../catalog/store";
import { badRequest } from "../http";
import type { Volumes } from "../volumes/store";

/** What the endpoint rules read of the world. */
export interface EndpointRulesWorld {
  readonly catalog: Catalog;
  readonly volumes: Volumes;
}

export function endpointCrossFieldViolations(body: CreateEndpointRequest): string[] {
  const out: string[] = [];
  if (!body.gpu) out.push("gpu: is required (exactly one of gpu or cpu; CPU endpoints are not offered here)");
  if (body.image === undefined && body.templateId === undefined) out.push("image: is required unless templateId is set");
  const cuda = body.gpu?.allowedCudaVersions;
  if (cuda && cuda.length > 0 && body.gpu?.minCudaVersion !== undefined) {
    out.push("gpu.minCudaVersion: cannot be combined with a non-empty gpu.allowedCudaVersions");
  }
  if (body.workers?.min !== undefined && body.workers.max !== undefined && body.workers.min > body.workers.max) {
    out.push("workers.min: must not exceed workers.max");
  }
  return out;
}

/** The GPU selection as stored: the pools, and the excluded types (trimmed). */
export function gpuSelection(world: EndpointRulesWorld, accountId: string, body: CreateEndpointRequest): { pools: string[]; excluded: string[] } {
  const catalog = world.catalog;
  const knownPools = catalog.gpuPools();
  const pools = body.gpu?.pools ?? [];
  const unknownPools = pools.filter((p) => !knownPools.includes(p));
  if (unknownPools.length > 0) {
    throw badRequest(
      `gpu.pools: unknown GPU pool ${unknownPools.map((p) => `"${p}"`).join(", ")}; pools are the "pool" field of GET /v2/catalog/gpus (GPU type ids go in gpu.excludedTypes)`,
    );
  }
  const excluded = (body.gpu?.excludedTypes ?? []).map((t) => t.trim());
  const typesInPools = [...new Set(pools)].flatMap((pool) => (knownPools.includes(pool) ? catalog.gpuTypesOfPool(pool) : []));
  const stray = excluded.filter((t) => !typesInPools.includes(t));
  if (stray.length > 0) throw badRequest(`gpu.excludedTypes: ${stray.join(", ")} ${stray.length > 1 ? "are" : "is"} not a GPU type in the selected pools`);
  if (typesInPools.every((t) => excluded.includes(t))) throw badRequest("gpu.excludedTypes: the selection leaves no GPU type");
  const unknownDcs = (body.dataCenterIds ?? []).filter((id) => !catalog.dataCenters.get(id));
  if (unknownDcs.length > 0) throw badRequest(`dataCenterIds: unknown data center ${unknownDcs.join(", ")}`);
  const missingVolumes = (body.networkVolumes ?? []).filter((id) => !world.volumes.networkVolume(accountId, id));
  if (missingVolumes.length > 0) throw badRequest(`networkVolumes: no network volume ${missingVolumes.join(", ")} on this account`);
  return { pools, excluded };
}
