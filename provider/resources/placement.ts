/**
 * Ordered placement candidates, as the resources that take them (pods, clusters) share them:
 * the input, the outputs that record what the create tried, the facts it returns, and the rule
 * every candidate obeys. The candidate loop itself is the SDK's (sdk/placement.ts).
 */
import type { CapacityPlan, GpuType, PlacementAttempt, PlacementCandidate, Placer } from "../../sdk";
import { placeWithPlan, planReadsCatalog } from "../../sdk/capacity";
import { PLACEMENT_STRATEGIES, type PlacementStrategy } from "../../contract/placement-choice";
import type { EstimateOutcome, PriceList } from "../../contract/estimate";
import { toCheckFailures, type CheckFailure } from "./check-failures";
import { candidateOrder, capViolation, describeSpot, formatRate } from "../../contract/placement-choice";
import { stockOf } from "../../sdk/capacity";
import { containsUnknown, isUnknown } from "./unknowns";
import { same, type DiffResult, type HookContext, type InputSpec, type OutputList } from "./definition";

const candidate = {
  type: "object",
  properties: { gpuTypeId: { type: "string", optional: true }, dataCenterId: { type: "string", optional: true } },
} as const;

/** The `placement` input of a resource that `fits` on a candidate (`one pod`, `every node`). */
export function placementInput(noun: string, fits: string) {
  return {
    type: "array",
    items: candidate,
    // Replaces only when the current placement is no longer among the candidates.
    onChange: "depends",
    sent: "provider",
    doc: `Ordered placement candidates, each a GPU type and/or a data center, tried in turn until one has room for ${fits}. Changing the list never moves a ${noun} unless its current placement is no longer in it.`,
  } as const satisfies InputSpec;
}

/** The `placementStrategy` input: in which order the candidates are tried (contract/placement-choice.ts). */
export const placementStrategyInput = {
  type: "string",
  enum: PLACEMENT_STRATEGIES,
  onChange: "update",
  sent: "provider",
  unset: "ORDERED",
  doc: "`ORDERED` (default): the `placement` candidates in the order given. `CHEAPEST`: those the catalog shows in stock first, cheapest first, ties in the given order. Read at create; a change moves nothing.",
} as const satisfies InputSpec;

/** The `maxCostPerHour` input of a resource priced as `what`. */
export function maxCostInput(what: string) {
  return {
    type: "number",
    onChange: "update",
    sent: "provider",
    positive: true,
    doc: `The most ${what} may cost, USD per hour at the catalog's list price: candidates over it are skipped at create (a line each), and a preview fails when none is under it, naming the cheapest.`,
  } as const satisfies InputSpec;
}

/** The `waitForCapacity` input: wait, paced, for a candidate to have room instead of failing. */
export const waitForCapacityInput = {
  type: "object",
  properties: { timeoutSeconds: { type: "integer" }, intervalSeconds: { type: "integer", optional: true } },
  onChange: "update",
  sent: "provider",
  doc: "When every candidate is out of capacity, wait up to `timeoutSeconds` (1 to 86400) for one, checking the catalog once per `intervalSeconds` (5 to 600, default 30) and trying the candidates it shows in stock, with a line per round. The deadline holds across an interrupted `up` on the same machine (the next `up` continues it).",
} as const satisfies InputSpec;

/** What the wait inputs allow (every violation at once, each naming its field). */
export function waitViolations(wait: unknown): string[] {
  if (wait === undefined || wait === null || typeof wait !== "object" || containsUnknown(wait)) return [];
  const { timeoutSeconds, intervalSeconds } = wait as { timeoutSeconds?: unknown; intervalSeconds?: unknown };
  const out: string[] = [];
  if (!(Number.isInteger(timeoutSeconds) && (timeoutSeconds as number) >= 1 && (timeoutSeconds as number) <= 86400)) out.push("waitForCapacity.timeoutSeconds: must be a whole number of seconds from 1 to 86400");
  if (intervalSeconds !== undefined && !(Number.isInteger(intervalSeconds) && (intervalSeconds as number) >= 5 && (intervalSeconds as number) <= 600)) out.push("waitForCapacity.intervalSeconds: must be a whole number of seconds from 5 to 600");
  return out;
}

/** How long the preview waits for the catalog before leaving placement to the create (as the estimate does). */
const PREVIEW_READ_SECONDS = 15;

/** The default pace of a wait: one catalog read, and a create per candidate in stock, every 30 s at most. */
export const DEFAULT_WAIT_INTERVAL_SECONDS = 30;

/** What a resource's placement settings are, as the create reads them. */
export interface PlacementSettings {
  placementStrategy?: PlacementStrategy;
  maxCostPerHour?: number;
  waitForCapacity?: { timeoutSeconds: number; intervalSeconds?: number };
}

/**
 * The SDK's capacity plan from a resource's settings (sdk/capacity.ts): `estimate` prices the
 * resource on one candidate (the estimate's own rule, contract/estimate.ts), `waitUntil` is the
 * wait's deadline (the runtime keeps it across an interrupted run).
 */
export function capacityPlan(
  settings: PlacementSettings,
  options: { estimate(placement: PlacementCandidate[], prices: PriceList): EstimateOutcome; gpuTypeOf(candidate: PlacementCandidate): string | undefined; report(line: string): void; waitUntil?: number; avoid?: PlacementCandidate },
): CapacityPlan {
  return {
    strategy: settings.placementStrategy ?? "ORDERED",
    ...(settings.maxCostPerHour !== undefined ? { maxCostPerHour: settings.maxCostPerHour } : {}),
    ...(options.waitUntil !== undefined ? { waitUntil: options.waitUntil } : {}),
    ...(options.avoid ? { avoid: options.avoid } : {}),
    intervalMs: (settings.waitForCapacity?.intervalSeconds ?? DEFAULT_WAIT_INTERVAL_SECONDS) * 1000,
    price: (candidate: PlacementCandidate, gpuTypes: GpuType[]) => {
      const outcome = options.estimate([candidate], { gpuTypes });
      return outcome.ok ? outcome.estimate.onceStarted ?? outcome.estimate.dollarsPerHour : undefined;
    },
    gpuTypeOf: options.gpuTypeOf,
    report: options.report,
  };
}

/**
 * A placed create under the resource's placement settings: the plan (sdk/capacity.ts) when they
 * ask for the catalog, else today's ordered loop; a wait's deadline continued from an interrupted
 * run, and forgotten once the create ends. `estimate` prices the resource on given candidates.
 */
export async function withCapacityPlan<R>(
  context: HookContext,
  inputs: PlacementSettings,
  estimate: (prices: PriceList, placement: PlacementCandidate[]) => EstimateOutcome,
  gpuTypeOf: (candidate: PlacementCandidate) => string | undefined,
  create: (place: Placer | undefined) => Promise<R>,
): Promise<R> {
  const wait = inputs.waitForCapacity ? await context.capacityDeadline(inputs.waitForCapacity.timeoutSeconds) : undefined;
  if (wait?.continued) context.report(`continuing the wait for capacity an interrupted run began, until ${new Date(wait.until).toISOString()}`);
  const plan = capacityPlan(inputs, {
    estimate: (placement, prices) => estimate(prices, placement),
    gpuTypeOf,
    report: (line) => context.report(line),
    ...(wait ? { waitUntil: wait.until } : {}),
    ...(context.failedPlacement ? { avoid: context.failedPlacement } : {}),
  });
  if (wait) plan.waiting = () => wait.persist();
  try {
    return await create(planReadsCatalog(plan) ? <T,>(candidates: PlacementCandidate[], attempt: (candidate: PlacementCandidate) => Promise<T>) => placeWithPlan(context.api, candidates, plan, attempt) : undefined);
  } finally {
    await wait?.clear();
  }
}

/** A new resource, or a change of what decides where it runs (then it may be replaced: its new placement is printed too). */
export function placementChanged(previous: Record<string, unknown>, inputs: Record<string, unknown>): boolean {
  if (Object.keys(previous).length === 0) return true;
  // What replaces it (or moves it): a cap or a strategy alone changes nothing that runs.
  return ["gpu", "compute", "cloud", "placement"].some((key) => !same(previous[key], inputs[key]));
}

/** The candidates' prices, as the estimate lists them (one per candidate, in order). */
type Priced = ReadonlyArray<{ label: string; dollarsPerHour?: number; excluded?: string }>;

/**
 * What a preview says of a new resource's placement (GETs only: `check` runs at preview): an
 * error when no candidate is under `maxCostPerHour` (naming the cheapest), else the candidate
 * the create would try first, with its price and stock level. No reservation is made.
 */
export async function placementPreview(
  context: HookContext,
  inputs: PlacementSettings & { placement?: PlacementCandidate[] },
  candidatesPriced: (prices: PriceList) => Priced | undefined,
  gpuTypeOf: (candidate: PlacementCandidate) => string | undefined,
): Promise<CheckFailure[]> {
  const settings = inputs as Record<string, unknown>;
  if (["placement", "maxCostPerHour", "placementStrategy", "cloud"].some((key) => containsUnknown(settings[key]))) return [];
  // A catalog that cannot be read in time (or a provider not configured yet) leaves the rule to the create.
  const signal = AbortSignal.timeout(PREVIEW_READ_SECONDS * 1000);
  const read = await (async () =>
    Promise.all([
      context.cached("catalog:gpus", 300, () => context.api.catalog.gpuTypes({ signal })),
      context.cached("catalog:datacenters:stock", 60, () => context.api.catalog.dataCenters({ includeGpuAvailability: true, signal })),
    ]))().catch(() => undefined);
  if (!read) return [];
  const [gpuTypes, dataCenters] = read;
  const priced = candidatesPriced({ gpuTypes });
  if (!priced) return [];
  // A candidate the service would refuse outright never bills: only the placeable ones count.
  const cap = capViolation(priced.filter((entry) => entry.excluded === undefined), inputs.maxCostPerHour);
  if (cap) return toCheckFailures([cap], inputs as Record<string, unknown>);
  const candidates = inputs.placement && inputs.placement.length > 0 ? inputs.placement : [{}];
  const ranked = candidateOrder(
    candidates.map((candidate, i) => ({ candidate, dollarsPerHour: priced[i]?.dollarsPerHour, stock: stockOf(candidate.gpuTypeId ?? gpuTypeOf(candidate), candidate.dataCenterId, dataCenters) })),
    inputs.placementStrategy ?? "ORDERED",
    inputs.maxCostPerHour,
  );
  const first = ranked.order[0];
  if (first) {
    const spot = describeSpot({ ...first.candidate, gpuTypeId: first.candidate.gpuTypeId ?? gpuTypeOf(first.candidate) });
    const facts = [first.dollarsPerHour !== undefined ? `${formatRate(first.dollarsPerHour)} $/hr` : undefined, first.stock !== undefined ? `stock ${first.stock}` : undefined].filter(Boolean).join(", ");
    context.report(`placement: would try ${spot} first${facts ? ` (${facts})` : ""}${ranked.skipped.length ? `, skipping ${ranked.skipped.length} over maxCostPerHour` : ""}; no reservation: capacity is known only at create`);
  }
  return [];
}

/** The outputs recording the candidate chosen and every one tried. */
export function placementOutputs(noun: string, chosenNote = "") {
  return {
    placementChosen: { ...candidate, doc: `The candidate the ${noun} was created on (\`{}\` without \`placement\`${chosenNote}).` },
    placementAttempts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          gpuTypeId: { type: "string", optional: true },
          dataCenterId: { type: "string", optional: true },
          outcome: { type: "string" },
          status: { type: "number", optional: true },
        },
      },
      doc: "Each candidate tried at create, in order, with its outcome and HTTP status.",
    },
  } as const satisfies OutputList;
}

/** What a placed create records of its candidates. */
export function placementFacts(result: { chosen: PlacementCandidate; attempts: PlacementAttempt[] }) {
  return {
    placementChosen: result.chosen,
    placementAttempts: result.attempts.map((a) => ({ ...a.candidate, outcome: a.outcome, status: a.status })),
  };
}

/** Every candidate names a GPU type, a data center or both (`extra`: a resource's own rule per candidate). */
export function candidateFailures(placement: unknown, extra?: (candidate: PlacementCandidate, path: string) => CheckFailure | undefined): CheckFailure[] {
  if (!Array.isArray(placement)) return [];
  const out: CheckFailure[] = [];
  placement.forEach((c: PlacementCandidate | undefined, i) => {
    if (containsUnknown(c)) return;
    if (!c || (c.gpuTypeId === undefined && c.dataCenterId === undefined)) out.push({ property: `placement[${i}]`, reason: "must name a gpuTypeId, a dataCenterId or both" });
    else {
      const failure = extra?.(c, `placement[${i}]`);
      if (failure) out.push(failure);
    }
  });
  return out;
}

/** Whether the current placement is still among the allowed candidates (none: anywhere). */
export function placementAllowed(chosen: PlacementCandidate | undefined, candidates: PlacementCandidate[] | undefined): boolean {
  if (!candidates || candidates.length === 0 || !chosen) return true;
  return candidates.some(
    (c) => (c.gpuTypeId === undefined || c.gpuTypeId === chosen.gpuTypeId) && (c.dataCenterId === undefined || c.dataCenterId === chosen.dataCenterId),
  );
}

/**
 * Where a resource runs, as a candidate: the one it was created on, with what that candidate
 * left open (all of it without `placement`: `{}`) taken from where the service placed it. A
 * pod made without a list runs somewhere all the same: a list added later that allows where it
 * runs must keep it there, not replace it.
 */
export function currentPlacement(chosen: PlacementCandidate | undefined, placed: { gpuTypeId?: string | null; dataCenterId?: string | null }): PlacementCandidate | undefined {
  if (!chosen) return undefined;
  const gpuTypeId = chosen.gpuTypeId ?? placed.gpuTypeId ?? undefined;
  const dataCenterId = chosen.dataCenterId ?? placed.dataCenterId ?? undefined;
  return { ...(gpuTypeId !== undefined ? { gpuTypeId } : {}), ...(dataCenterId !== undefined ? { dataCenterId } : {}) };
}

/**
 * The `placement` input's own diff (its change effect `depends`): a list the current placement
 * (`chosen`) is no longer in replaces; any other change is the provider's own setting, recorded
 * in place. At preview, a candidate not known yet may or may not allow it: the current placement
 * stays only if a known candidate allows it (adding candidates never removes one that does).
 */
export function placementDiff(chosen: PlacementCandidate | undefined, before: unknown, after: PlacementCandidate[] | undefined, result: DiffResult): void {
  if (isUnknown(after)) {
    result.replaces.push("placement");
    return;
  }
  const candidates = after ?? [];
  const known = candidates.filter((candidate) => !containsUnknown(candidate));
  const stays = known.length === candidates.length ? placementAllowed(chosen, candidates) : !chosen || known.some((candidate) => placementAllowed(chosen, [candidate]));
  if (!stays) result.replaces.push("placement");
  else if (!same(before, after)) result.updates.push("placement");
}

/**
 * Whether the candidates alone choose the GPU type: there are some, and each names one. Else
 * the resource's own GPU type (a pod's `gpu.id`, a cluster's `compute.gpuTypeId`) is what a
 * candidate without one places, and a change of it is a change of the resource.
 */
export function candidatesChooseGpuType(placement: ReadonlyArray<PlacementCandidate | undefined> | undefined): boolean {
  return Array.isArray(placement) && placement.length > 0 && placement.every((c) => c?.gpuTypeId !== undefined);
}
