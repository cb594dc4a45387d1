/**
 * Endpoint rules that need the world's data (400): `gpu.pools` are catalog pool ids,
 * `excludedTypes` are types of those pools and leave at least one, each `cpu` entry is a catalog
 * flavor at a vCPU count it offers, data centers and network volumes exist. Plus the one 422 the
 * contract's schema does not state: the same CPU choice listed twice (reference OpenAPI
 * `uniqueItems`). The rules across members are the contract's (`endpointCrossFieldViolations`).
 */
import type { CreateCpuConfig } from "../../contract";
import type { Catalog } from "../catalog/store";
import { badRequest } from "../http";
import { cpuFlavorOf, cpuMemoryGb } from "../placement/rules";
import type { Volumes } from "../volumes/store";
import type { EndpointCpu, EndpointGpu } from "./store";

/** What the endpoint rules read of the world. */
export interface EndpointRulesWorld {
  readonly catalog: Catalog;
  readonly volumes: Volumes;
}

/** The GPU selection as stored: the pools, and the excluded types (trimmed: `" NVIDIA L40"` is `"NVIDIA L40"`). */
export function gpuSelection(catalog: Catalog, pools: string[], excludedTypes: string[] | undefined): Pick<EndpointGpu, "pools" | "excludedTypes"> {
  const knownPools = catalog.gpuPools();
  const unknownPools = pools.filter((p) => !knownPools.includes(p));
  if (unknownPools.length > 0) {
    throw badRequest(
      `gpu.pools: unknown GPU pool ${unknownPools.map((p) => `"${p}"`).join(", ")}; pools are the "pool" field of GET /v2/catalog/gpus (GPU type ids go in gpu.excludedTypes)`,
    );
  }
  const excluded = (excludedTypes ?? []).map((t) => t.trim());
  const typesInPools = [...new Set(pools)].flatMap((pool) => catalog.gpuTypesOfPool(pool));
  const stray = excluded.filter((t) => !typesInPools.includes(t));
  if (stray.length > 0) throw badRequest(`gpu.excludedTypes: ${stray.join(", ")} ${stray.length > 1 ? "are" : "is"} not a GPU type in the selected pools`);
  if (typesInPools.every((t) => excluded.includes(t))) throw badRequest("gpu.excludedTypes: the selection leaves no GPU type");
  return { pools, excludedTypes: excluded };
}

/** A CPU endpoint's choices as stored, each with its memory; 400 naming every entry the catalog refuses (`cpu[1].id: …`). */
export function cpuChoices(catalog: Catalog, choices: CreateCpuConfig[]): EndpointCpu[] {
  const checked = choices.map((choice, i) => ({ choice, ...cpuFlavorOf(catalog, choice, `cpu[${i}]`) }));
  const refused = checked.flatMap((c) => (c.violation !== undefined ? [c.violation] : []));
  if (refused.length > 0) throw badRequest(refused.join("; "), refused);
  return checked.map(({ choice, flavor }) => ({ id: choice.id, vcpuCount: choice.vcpuCount, memory: cpuMemoryGb(flavor!, choice.vcpuCount) }));
}

/** The data centers and network volumes a body names exist (the volumes on this account). */
export function checkTargets(world: EndpointRulesWorld, accountId: string, body: { dataCenterIds?: string[]; networkVolumes?: string[] }): void {
  const unknownDcs = (body.dataCenterIds ?? []).filter((id) => !world.catalog.dataCenters.get(id));
  if (unknownDcs.length > 0) throw badRequest(`dataCenterIds: unknown data center ${unknownDcs.join(", ")}`);
  const missingVolumes = (body.networkVolumes ?? []).filter((id) => !world.volumes.networkVolume(accountId, id));
  if (missingVolumes.length > 0) throw badRequest(`networkVolumes: no network volume ${missingVolumes.join(", ")} on this account`);
}

/**
 * 422 (on the raw body, so listed with the schema's violations): an exact duplicate of an earlier
 * CPU choice. The same flavor at another vCPU count is a different choice.
 */
export function duplicateCpuChoices(raw: unknown): string[] {
  const cpu = (raw as { cpu?: unknown } | null)?.cpu;
  if (!Array.isArray(cpu)) return [];
  const seen = new Map<string, number>();
  return cpu.flatMap((entry: unknown, i) => {
    // Entries the schema refuses are reported there, not compared here.
    const { id, vcpuCount } = (typeof entry === "object" && entry !== null ? entry : {}) as { id?: unknown; vcpuCount?: unknown };
    if (typeof id !== "string" || typeof vcpuCount !== "number") return [];
    const key = `${id}\u0000${vcpuCount}`;
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return [];
    }
    return [`cpu[${i}]: duplicates cpu[${first}] (the same flavor may be listed at different vCPU counts)`];
  });
}
