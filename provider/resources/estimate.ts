/**
 * A resource's cost estimate from its inputs, as data and pure reads (the rule itself:
 * contract/estimate.ts; docs/cost.md): what `check` prints at preview (provider/runtime/cost-estimate.ts)
 * and what the cost policy pack (policy/) sums, so both are the same numbers. The catalog is
 * only read (GETs); nothing here reports or keeps state.
 */
import type { EstimateOutcome, PriceList } from "../../contract/estimate";
import type { ComputeClient } from "../../sdk";
import type { Props, ResourceDefinition } from "./definition";
import { pathIsUnknown } from "./unknowns";

/** The kind of a resource that has a price (its definition's `price`). */
export type CostKind = string;

/** What the estimate needs of a definition. */
type Priced = Pick<ResourceDefinition, "kind" | "price">;

/** How long a preview waits for the catalog before printing "estimate unavailable". */
export const ESTIMATE_TIMEOUT_SECONDS = 15;

/** Why an estimate cannot be made yet: a price-deciding input not known until the update runs. */
function notKnownYet(definition: Priced, inputs: Props): string | undefined {
  const unknown = definition.price?.paths.find((path) => pathIsUnknown(inputs, path));
  return unknown && `${unknown} is not known until the update runs`;
}

/** A resource's estimate from its inputs and the catalog lists read for it (pure). */
export function estimateOf(definition: Priced, inputs: Props, prices: PriceList): EstimateOutcome {
  if (!definition.price) return { ok: false, reason: `a ${definition.kind} has no price` };
  const reason = notKnownYet(definition, inputs);
  if (reason) return { ok: false, reason };
  return definition.price.estimate(inputs, prices);
}

/** Which catalog lists the estimate of these inputs reads (none when they are not known). */
export function listsNeeded(definition: Priced, inputs: Props): { gpuTypes: boolean; cpuFlavors: boolean } {
  if (!definition.price || notKnownYet(definition, inputs)) return { gpuTypes: false, cpuFlavors: false };
  return definition.price.lists(inputs);
}

/**
 * How long the catalog's prices are kept: one read per list serves a whole preview (the engine
 * checks every resource of the stack), and a price that changed meanwhile only moves a
 * printed figure.
 */
export const PRICES_KEPT_SECONDS = 300;

/** How a caller keeps a catalog read (`key`) for PRICES_KEPT_SECONDS; default: it does not. */
export type KeepRead = <T>(key: string, read: () => Promise<T>) => Promise<T>;

/** Reads the catalog lists an estimate needs (GETs only). */
export async function readPrices(api: ComputeClient, needed: { gpuTypes: boolean; cpuFlavors: boolean }, signal?: AbortSignal, keep: KeepRead = (_key, read) => read()): Promise<PriceList> {
  const [gpuTypes, cpuFlavors] = await Promise.all([
    needed.gpuTypes ? keep("catalog:gpus", () => api.catalog.gpuTypes({ signal })) : undefined,
    needed.cpuFlavors ? keep("catalog:cpus", () => api.catalog.cpuFlavors({ signal })) : undefined,
  ]);
  return { ...(gpuTypes ? { gpuTypes } : {}), ...(cpuFlavors ? { cpuFlavors } : {}) };
}

/** Why the catalog could not be read, in one line (the SDK's messages never hold the key). */
export function unreadableCatalog(error: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return `the catalog did not answer within ${ESTIMATE_TIMEOUT_SECONDS} s`;
  const message = error instanceof Error ? error.message : String(error);
  return `the catalog could not be read: ${message.trim().replace(/\s*\n\s*/g, " ")}`;
}
