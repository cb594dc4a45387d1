/**
 * The cost estimate of a pod or a sandbox from its inputs (the rule: contract/estimate.ts;
 * docs/cost.md), and the one progress line `check` prints with it: `estimated 5.98 $/hr (…)` or
 * `estimate unavailable: <why>`.
 *
 * `check` runs in preview, so this only reads (catalog GETs). It never fails `check`: a catalog
 * that cannot be read, or a price-deciding input not known until the update runs, is a line,
 * not an error. And it adds nothing to the inputs: the estimate is neither an input nor an
 * output, so a price change in the catalog alone never causes a diff.
 *
 * The cost policy pack (policy/) reads a resource's recorded properties with the same functions,
 * so the preview lines and the policy's figures are the same numbers.
 */
import { describeEstimate, type EstimateOutcome, type PriceList } from "../../contract/estimate";
import type { ComputeClient } from "../../sdk";
import type { ResourceDefinition } from "../resources/definition";
import { report } from "./progress";
import { forSeconds } from "./shared-reads";
import type { Props } from "./props";
import { client } from "./settings";
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

/** Reads the catalog lists an estimate needs (GETs only). */
export async function readPrices(api: ComputeClient, needed: { gpuTypes: boolean; cpuFlavors: boolean }, signal?: AbortSignal): Promise<PriceList> {
  const [gpuTypes, cpuFlavors] = await Promise.all([
    needed.gpuTypes ? forSeconds(api, "catalog:gpus", PRICES_KEPT_SECONDS, () => api.catalog.gpuTypes({ signal })) : undefined,
    needed.cpuFlavors ? forSeconds(api, "catalog:cpus", PRICES_KEPT_SECONDS, () => api.catalog.cpuFlavors({ signal })) : undefined,
  ]);
  return { ...(gpuTypes ? { gpuTypes } : {}), ...(cpuFlavors ? { cpuFlavors } : {}) };
}

/** Why the catalog could not be read, in one line (the SDK's messages never hold the key). */
export function unreadableCatalog(error: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return `the catalog did not answer within ${ESTIMATE_TIMEOUT_SECONDS} s`;
  const message = error instanceof Error ? error.message : String(error);
  return `the catalog could not be read: ${message.trim().replace(/\s*\n\s*/g, " ")}`;
}

/** The estimate of one resource now: reads what the catalog lists it needs; never throws. */
export async function estimateNow(definition: Priced, inputs: Props): Promise<EstimateOutcome> {
  const needed = listsNeeded(definition, inputs);
  if (!needed.gpuTypes && !needed.cpuFlavors) return estimateOf(definition, inputs, {});
  const signal = AbortSignal.timeout(ESTIMATE_TIMEOUT_SECONDS * 1000);
  try {
    return estimateOf(definition, inputs, await readPrices(client(), needed, signal));
  } catch (error) {
    return { ok: false, reason: unreadableCatalog(error, signal) };
  }
}

/** `check`'s estimate line for a resource that has a price. */
export async function reportEstimate(definition: Priced & Pick<ResourceDefinition, "unpriced">, inputs: Props): Promise<void> {
  if (definition.unpriced) report(definition.kind, String(inputs.name), `no estimate: ${definition.unpriced}`);
  if (!definition.price) return;
  report(definition.kind, String(inputs.name), describeEstimate(await estimateNow(definition, inputs)));
}
