/**
 * Placement that reads the catalog (contract/placement-choice.ts): candidates ranked by price and
 * stock (`CHEAPEST`), over-cap ones skipped (`maxCostPerHour`), a failed placement tried last
 * (recovery), and waiting for capacity when every candidate is out of it, within a deadline.
 *
 * The ordered placement with none of these reads no catalog: it is `placeOnCandidates` as before
 * (its calls per pod are docs/benchmarks.md's).
 *
 * Waiting is paced: one round per `intervalMs` at most, each round one catalog read (the stock
 * levels) and then a create on each candidate the catalog shows in stock. The first round tries
 * every candidate whatever the catalog says (stock is not a reservation either way). The
 * deadline is on the service's clock (its `Date` answers), and the caller may carry it over from
 * an interrupted run. A progress line per round names the best candidate and its state.
 */
import type { ComputeClient } from "./client";
import { PlacementError, placeOnCandidates, type PlacementAttempt, type PlacementCandidate } from "./placement";
import { candidateOrder, describeSpot, formatRate, type PlacementStrategy, type PricedCandidate } from "../contract/placement-choice";
import type { AvailabilityLevel, DataCenter, GpuType } from "../contract";

export interface CapacityPlan {
  strategy: PlacementStrategy;
  maxCostPerHour?: number;
  /** Until when to wait for capacity (ms on the service's clock); undefined: no waiting. */
  waitUntil?: number;
  /** One round per this many ms at most. */
  intervalMs: number;
  /** The resource's price on a candidate (from the GPU catalog); undefined when the catalog does not price it. */
  price(candidate: PlacementCandidate, gpuTypes: GpuType[]): number | undefined;
  /** The GPU type a candidate without one places (the request's own); undefined for a CPU pod. */
  gpuTypeOf(candidate: PlacementCandidate): string | undefined;
  /** A placement that failed before (recovery): tried last. */
  avoid?: PlacementCandidate;
  /** Called once, when the first pause of a wait begins (the caller keeps the deadline then). */
  waiting?(): Promise<void>;
  report(line: string): void;
  sleep?(ms: number): Promise<void>;
}

/** Whether a plan needs the catalog at all (the ordered placement without cap or wait does not). */
export function planReadsCatalog(plan: Pick<CapacityPlan, "strategy" | "maxCostPerHour" | "waitUntil" | "avoid">): boolean {
  return plan.strategy !== "ORDERED" || plan.maxCostPerHour !== undefined || plan.waitUntil !== undefined || plan.avoid !== undefined;
}

const LEVEL: Record<AvailabilityLevel, number> = { NONE: 0, LOW: 1, MEDIUM: 2, HIGH: 3 };

/** The catalog's stock level of a candidate: its data center's, or the best of all without one. */
export function stockOf(gpuTypeId: string | undefined, dataCenterId: string | undefined, dataCenters: DataCenter[]): AvailabilityLevel | undefined {
  if (gpuTypeId === undefined) return undefined;
  const levels = dataCenters
    .filter((dc) => dataCenterId === undefined || dc.id === dataCenterId)
    .map((dc) => dc.gpuAvailability?.find((entry) => entry.id === gpuTypeId)?.availability ?? "NONE");
  if (levels.length === 0) return dataCenterId === undefined ? undefined : "NONE";
  return levels.reduce((best, level) => (LEVEL[level] > LEVEL[best] ? level : best));
}

/** The candidate a failed resource was created on (its `placementChosen`, one of the list): the same fields, either left open. */
const sameSpot = (a: PlacementCandidate, b: PlacementCandidate | undefined) => b !== undefined && (b.gpuTypeId !== undefined || b.dataCenterId !== undefined) && a.gpuTypeId === b.gpuTypeId && a.dataCenterId === b.dataCenterId;

/** `NVIDIA H100 80GB HBM3 in US-TX-3 (2.99 $/hr, HIGH)`. */
function label(entry: PricedCandidate<PlacementCandidate>, plan: CapacityPlan): string {
  const spot = describeSpot({ ...entry.candidate, gpuTypeId: entry.candidate.gpuTypeId ?? plan.gpuTypeOf(entry.candidate) });
  const facts = [entry.dollarsPerHour !== undefined ? `${formatRate(entry.dollarsPerHour)} $/hr` : "price not listed", entry.stock !== undefined ? `stock ${entry.stock}` : undefined];
  return `${spot} (${facts.filter(Boolean).join(", ")})`;
}

/** The candidates priced and stocked, in the order the plan tries them, and what it skips. */
export async function rankWithCatalog(client: ComputeClient, candidates: PlacementCandidate[], plan: CapacityPlan, gpuTypes?: GpuType[]) {
  const list = candidates.length > 0 ? candidates : [{}];
  const [prices, dataCenters] = await Promise.all([gpuTypes ? Promise.resolve(gpuTypes) : client.catalog.gpuTypes(), client.catalog.dataCenters({ includeGpuAvailability: true })]);
  const priced = list.map((candidate) => ({ candidate, dollarsPerHour: plan.price(candidate, prices), stock: stockOf(candidate.gpuTypeId ?? plan.gpuTypeOf(candidate), candidate.dataCenterId, dataCenters) }));
  const ranked = candidateOrder(priced, plan.strategy, plan.maxCostPerHour);
  // A placement that failed before goes last, when there is another.
  const order = [...ranked.order.filter((e) => !sameSpot(e.candidate, plan.avoid)), ...ranked.order.filter((e) => sameSpot(e.candidate, plan.avoid))];
  return { order, skipped: ranked.skipped, gpuTypes: prices };
}

/**
 * Places with the plan: rounds of (catalog read, creates) until one is created, a refusal that
 * no wait can change (402, 422, …), or the deadline. `attempt` sends one create.
 */
export async function placeWithPlan<T>(
  client: ComputeClient,
  candidates: PlacementCandidate[],
  plan: CapacityPlan,
  attempt: (candidate: PlacementCandidate) => Promise<T>,
): Promise<{ value: T; chosen: PlacementCandidate; attempts: PlacementAttempt[] }> {
  if (!planReadsCatalog(plan)) return placeOnCandidates(candidates, attempt);
  const sleep = plan.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const attempts: PlacementAttempt[] = [];
  let gpuTypes: GpuType[] | undefined;
  for (let round = 1; ; round++) {
    const ranked = await rankWithCatalog(client, candidates, plan, gpuTypes);
    gpuTypes = ranked.gpuTypes;
    if (round === 1) for (const entry of ranked.skipped) plan.report(`skipped ${label(entry, plan)}: ${entry.reason}`);
    if (ranked.order.length === 0) throw new PlacementError(`no candidate is at or under maxCostPerHour ${formatRate(plan.maxCostPerHour!)} $/hr`, attempts);
    const inStock = round === 1 ? ranked.order : ranked.order.filter((entry) => entry.stock !== "NONE");
    if (inStock.length > 0) {
      try {
        const placed = await placeOnCandidates(
          inStock.map((entry) => entry.candidate),
          attempt,
        );
        return { ...placed, attempts: [...attempts, ...placed.attempts] };
      } catch (error) {
        if (!(error instanceof PlacementError)) throw error;
        attempts.push(...error.attempts);
        // Only "no room" is worth waiting out: a refusal of another kind stops here.
        const waitable = error.attempts.every((a) => a.outcome === "no-capacity" || a.outcome === "forbidden") && error.attempts.some((a) => a.outcome === "no-capacity");
        if (!waitable || plan.waitUntil === undefined) throw new PlacementError(error.message.split("\n")[0]!, attempts, error.lastError);
      }
    }
    const now = client.http.serverNow();
    const best = ranked.order[0]!;
    // A round at the deadline itself is the last: a bound shorter than the interval still gets one.
    if (plan.waitUntil === undefined || now >= plan.waitUntil) {
      const states = ranked.order.map((entry) => label(entry, plan)).join("; ");
      throw new PlacementError(
        plan.waitUntil === undefined
          ? `no candidate has capacity: ${states}`
          : `no capacity within waitForCapacity (until ${new Date(plan.waitUntil).toISOString()}, ${round} round${round === 1 ? "" : "s"}); each candidate's last state: ${states}`,
        attempts,
      );
    }
    const pause = Math.min(plan.intervalMs, plan.waitUntil - now);
    if (round === 1) await plan.waiting?.();
    plan.report(`waiting for capacity (round ${round}): best candidate ${label(best, plan)}; next check in ${Math.round(pause / 1000)} s, until ${new Date(plan.waitUntil).toISOString()}`);
    await sleep(pause);
  }
}
