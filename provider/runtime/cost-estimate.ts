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
import {
  describeEstimate,
  estimatePodCost,
  estimateSandboxCost,
  pricesNeeded,
  type EstimateOutcome,
  type PodCostRequest,
  type PriceList,
  type SandboxCostRequest,
} from "../../contract/estimate";
import type { ComputeClient } from "../../sdk";
import { report } from "./progress";
import { forSeconds } from "./shared-reads";
import type { Props } from "./props";
import { client } from "./settings";
import { pathIsUnknown } from "./unknowns";

export type CostKind = "pod" | "sandbox";

/** How long a preview waits for the catalog before printing "estimate unavailable". */
export const ESTIMATE_TIMEOUT_SECONDS = 15;

const PRICE_PATHS: Record<CostKind, string[]> = {
  pod: ["gpu.id", "gpu.count", "cpu.id", "cpu.vcpuCount", "cloud", "placement", "desiredState"],
  sandbox: ["compute.vcpuCount", "compute.memoryInGb", "compute.containerDiskInGb"],
};

/** The price-deciding part of a pod's or sandbox's inputs, or why it is not known yet. */
export function costRequestOf(kind: "pod", inputs: Props): { request: PodCostRequest } | { reason: string };
export function costRequestOf(kind: "sandbox", inputs: Props): { request: SandboxCostRequest } | { reason: string };
export function costRequestOf(kind: CostKind, inputs: Props): { request: PodCostRequest | SandboxCostRequest } | { reason: string };
export function costRequestOf(kind: CostKind, inputs: Props): { request: PodCostRequest | SandboxCostRequest } | { reason: string } {
  const unknown = PRICE_PATHS[kind].find((path) => pathIsUnknown(inputs, path));
  if (unknown) return { reason: `${unknown} is not known until the update runs` };
  if (kind === "sandbox") return { request: { compute: inputs.compute as SandboxCostRequest["compute"] } };
  const request: PodCostRequest = {
    gpu: (inputs.gpu ?? undefined) as PodCostRequest["gpu"],
    cpu: (inputs.cpu ?? undefined) as PodCostRequest["cpu"],
    cloud: (inputs.cloud ?? undefined) as PodCostRequest["cloud"],
    placement: (inputs.placement ?? undefined) as PodCostRequest["placement"],
    stopped: inputs.desiredState === "STOPPED",
  };
  return { request };
}

/** A resource's estimate from its inputs and the catalog lists read for it (pure). */
export function estimateOf(kind: CostKind, inputs: Props, prices: PriceList): EstimateOutcome {
  const cost = costRequestOf(kind, inputs);
  if ("reason" in cost) return { ok: false, reason: cost.reason };
  return kind === "pod" ? estimatePodCost(cost.request as PodCostRequest, prices) : estimateSandboxCost(cost.request as SandboxCostRequest);
}

/** Which catalog lists the estimate of these inputs reads (none when they are not known). */
export function listsNeeded(kind: CostKind, inputs: Props): { gpuTypes: boolean; cpuFlavors: boolean } {
  const cost = costRequestOf(kind, inputs);
  if (kind === "sandbox" || "reason" in cost) return { gpuTypes: false, cpuFlavors: false };
  return pricesNeeded(cost.request as PodCostRequest);
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
export async function estimateNow(kind: CostKind, inputs: Props): Promise<EstimateOutcome> {
  const needed = listsNeeded(kind, inputs);
  if (!needed.gpuTypes && !needed.cpuFlavors) return estimateOf(kind, inputs, {});
  const signal = AbortSignal.timeout(ESTIMATE_TIMEOUT_SECONDS * 1000);
  try {
    return estimateOf(kind, inputs, await readPrices(client(), needed, signal));
  } catch (error) {
    return { ok: false, reason: unreadableCatalog(error, signal) };
  }
}

/** `check`'s estimate line for one pod or sandbox. */
export async function reportEstimate(kind: CostKind, inputs: Props): Promise<void> {
  report(kind, String(inputs.name), describeEstimate(await estimateNow(kind, inputs)));
}
