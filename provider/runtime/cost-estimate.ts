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
 * The cost policy pack (policy/) reads a resource's recorded properties with the same functions
 * (provider/resources/estimate.ts), so the preview lines and the policy's figures are the same numbers.
 */
import { describeEstimate, type EstimateOutcome } from "../../contract/estimate";
import type { Props, ResourceDefinition } from "../resources/definition";
import { ESTIMATE_TIMEOUT_SECONDS, PRICES_KEPT_SECONDS, estimateOf, listsNeeded, readPrices, unreadableCatalog } from "../resources/estimate";
import { report } from "./progress";
import { forSeconds } from "./shared-reads";
import { client } from "./settings";

/** What the estimate needs of a definition. */
type Priced = Pick<ResourceDefinition, "kind" | "price">;

/** The estimate of one resource now: reads what the catalog lists it needs; never throws. */
export async function estimateNow(definition: Priced, inputs: Props): Promise<EstimateOutcome> {
  const needed = listsNeeded(definition, inputs);
  if (!needed.gpuTypes && !needed.cpuFlavors) return estimateOf(definition, inputs, {});
  const signal = AbortSignal.timeout(ESTIMATE_TIMEOUT_SECONDS * 1000);
  try {
    const api = client();
    // Kept a while: the engine checks every resource of the stack, and one read serves them all.
    return estimateOf(definition, inputs, await readPrices(api, needed, signal, (key, read) => forSeconds(api, key, PRICES_KEPT_SECONDS, read)));
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
