/**
 * What a whole stack costs per hour: each pod's and sandbox's estimate (the rule:
 * contract/estimate.ts, applied to a resource's properties as the provider's `check` applies it
 * to its inputs: provider/runtime/cost-estimate.ts) and their sum, the figures the policy pack
 * and the GitOps cost report print. Everything here is pure except `estimateStackNow`, which
 * reads the catalog (GETs only).
 */
import { formatDollars, roundPrice, type EstimateOutcome, type PriceList } from "../contract/estimate";
import type { ComputeClient } from "../sdk";
import { ESTIMATE_TIMEOUT_SECONDS, estimateOf, listsNeeded, readPrices, unreadableCatalog, type CostKind } from "../provider/resources/estimate";
import type { ResourceDefinition } from "../provider/resources/definition";
import { pricedResourceOf } from "./resources";

/** A resource as the policy framework, a state export or a preview digest describes it. */
export interface StackResource {
  type: string;
  /** The resource's logical name. */
  name: string;
  urn: string;
  props: Record<string, unknown>;
}

export interface ResourceEstimate {
  kind: CostKind;
  name: string;
  urn: string;
  outcome: EstimateOutcome;
}

export interface StackEstimate {
  /** Every pod and sandbox of the stack, in the order given. */
  resources: ResourceEstimate[];
  /** USD per hour: the sum of the estimates that could be made. */
  dollarsPerHour: number;
  /** The priced resources without an estimate (their outcome says why). */
  unavailable: ResourceEstimate[];
}

/**
 * The policy framework hands preview values that are not known yet as a proxy that throws
 * `UnknownValueError` (with the property path) when one is read (`@pulumi/policy` proxy.js).
 */
function unknownPath(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.constructor.name !== "UnknownValueError") return undefined;
  const props = (error as Error & { props?: unknown }).props;
  return Array.isArray(props) ? props.join(".") : "a property";
}

function readingProps<T>(read: () => T, unknown: (path: string) => T): T {
  try {
    return read();
  } catch (error) {
    const path = unknownPath(error);
    if (path === undefined) throw error;
    return unknown(path);
  }
}

/** The stack's priced resources (pods, sandboxes, endpoints) with their kind. */
export function costResources(resources: readonly StackResource[]): Array<StackResource & { kind: CostKind; definition: ResourceDefinition }> {
  return resources.flatMap((r) => {
    const definition = pricedResourceOf(r.type, r.props);
    return definition ? [{ ...r, kind: definition.kind, definition }] : [];
  });
}

/** The catalog lists the estimates of these resources read. */
export function listsNeededBy(resources: readonly StackResource[]): { gpuTypes: boolean; cpuFlavors: boolean } {
  const needed = { gpuTypes: false, cpuFlavors: false };
  for (const r of costResources(resources)) {
    const lists = readingProps(() => listsNeeded(r.definition, r.props), () => ({ gpuTypes: false, cpuFlavors: false }));
    needed.gpuTypes ||= lists.gpuTypes;
    needed.cpuFlavors ||= lists.cpuFlavors;
  }
  return needed;
}

/**
 * The stack's estimate from the lists read; `catalogFailure` is why they could not be read, the
 * outcome of every resource whose estimate needed them.
 */
export function estimateStack(resources: readonly StackResource[], prices: PriceList, catalogFailure?: string): StackEstimate {
  const estimates = costResources(resources).map((r): ResourceEstimate => {
    const outcome = readingProps(
      (): EstimateOutcome => {
        const lists = listsNeeded(r.definition, r.props);
        if (catalogFailure !== undefined && (lists.gpuTypes || lists.cpuFlavors)) return { ok: false, reason: catalogFailure };
        return estimateOf(r.definition, r.props, prices);
      },
      (path): EstimateOutcome => ({ ok: false, reason: `${path} is not known until the update runs` }),
    );
    return { kind: r.kind, name: r.name, urn: r.urn, outcome };
  });
  const known = estimates.flatMap((e) => (e.outcome.ok ? [e.outcome.estimate.dollarsPerHour] : []));
  return {
    resources: estimates,
    dollarsPerHour: roundPrice(known.reduce((sum, d) => sum + d, 0)),
    unavailable: estimates.filter((e) => !e.outcome.ok),
  };
}

/** Reads the lists the stack's estimates need (one read of each), then estimates; never throws. */
export async function estimateStackNow(resources: readonly StackResource[], api: () => ComputeClient): Promise<StackEstimate> {
  const needed = listsNeededBy(resources);
  if (!needed.gpuTypes && !needed.cpuFlavors) return estimateStack(resources, {});
  const signal = AbortSignal.timeout(ESTIMATE_TIMEOUT_SECONDS * 1000);
  try {
    return estimateStack(resources, await readPrices(api(), needed, signal));
  } catch (error) {
    return estimateStack(resources, {}, unreadableCatalog(error, signal));
  }
}

const dollarsOf = (e: ResourceEstimate) => (e.outcome.ok ? e.outcome.estimate.dollarsPerHour : 0);

/** The `count` most expensive resources, most expensive first (ties by name: the same every run). */
export function biggest(stack: StackEstimate, count = 3): ResourceEstimate[] {
  return stack.resources
    .filter((e) => e.outcome.ok)
    .sort((a, b) => dollarsOf(b) - dollarsOf(a) || a.name.localeCompare(b.name))
    .slice(0, count);
}

const named = (e: ResourceEstimate) => `${e.kind} ${e.name}`;
const priced = (e: ResourceEstimate) => `${named(e)} ${formatDollars(dollarsOf(e))} $/hr`;

function unavailableNote(stack: StackEstimate): string {
  if (stack.unavailable.length === 0) return "";
  return `; without an estimate: ${stack.unavailable.map((e) => `${named(e)} (${e.outcome.ok ? "" : e.outcome.reason})`).join(", ")}`;
}

/** `stack estimate: 6.36 $/hr for 3 priced resources (biggest: pod trainer 5.98 $/hr, …)`. */
export function describeStack(stack: StackEstimate): string {
  const count = stack.resources.length;
  const top = biggest(stack);
  const biggestNote = top.length > 0 ? ` (biggest: ${top.map(priced).join(", ")})` : "";
  return `stack estimate: ${formatDollars(stack.dollarsPerHour)} $/hr for ${count} priced ${count === 1 ? "resource" : "resources"}${biggestNote}${unavailableNote(stack)}`;
}

/**
 * Why the stack breaks the budget, or undefined when it keeps to it. A stack with a resource
 * that has no estimate cannot be shown to keep to it: a gate fails closed.
 */
export function budgetViolation(stack: StackEstimate, maxDollarsPerHour: number): string | undefined {
  const budget = `the budget of ${formatDollars(maxDollarsPerHour)} $/hr (compute-budget.maxDollarsPerHour)`;
  const top = biggest(stack).map(priced).join(", ");
  if (stack.unavailable.length > 0) {
    return `cannot check ${budget}: ${stack.unavailable.length} of ${stack.resources.length} priced resources have no estimate${unavailableNote(stack).replace(/^; without an estimate/, "")}; the others come to ${formatDollars(stack.dollarsPerHour)} $/hr`;
  }
  if (stack.dollarsPerHour <= maxDollarsPerHour) return undefined;
  return `stack estimate ${formatDollars(stack.dollarsPerHour)} $/hr exceeds ${budget}; biggest: ${top}`;
}
