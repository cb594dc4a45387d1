/**
 * Which placement candidate a create tries first, stated once: the `placementStrategy` and
 * `maxCostPerHour` rules the provider applies at create and prints at preview, and the policy
 * pack's estimate follows. Pure: the callers read the catalog (prices and stock levels).
 *
 * - `ORDERED` (the default, and the behaviour before strategies existed): the candidates in the
 *   order given.
 * - `CHEAPEST`: the candidates in stock first (the catalog's stock level is not NONE), cheapest
 *   first among them, a higher stock level first at the same price, ties in the given order; then
 *   those the catalog lists as out of stock (stock is not a reservation, nor is NONE a refusal:
 *   they are still tried, last).
 * - `maxCostPerHour`: a candidate whose price is over the cap is skipped with its reason; one
 *   whose price the catalog does not give is tried (the service decides), and says so.
 */
import type { AvailabilityLevel } from "./common";

export const PLACEMENT_STRATEGIES = ["ORDERED", "CHEAPEST"] as const;
export type PlacementStrategy = (typeof PLACEMENT_STRATEGIES)[number];

/** A candidate as the catalog can price it: a GPU type and a data center, either left open. */
export interface CandidateSpot {
  gpuTypeId?: string;
  dataCenterId?: string;
}

/** A candidate with what the catalog says of it. */
export interface PricedCandidate<C extends CandidateSpot = CandidateSpot> {
  candidate: C;
  /** USD per hour of the whole resource on it; undefined: the catalog does not price it. */
  dollarsPerHour?: number;
  /** The catalog's stock level there; undefined: not known (a candidate without a data center, an unread catalog). */
  stock?: AvailabilityLevel;
}

export interface CandidateOrder<C extends CandidateSpot> {
  /** What the create tries, in order. */
  order: Array<PricedCandidate<C>>;
  /** What it skips, and why (over the cap). */
  skipped: Array<PricedCandidate<C> & { reason: string }>;
}

const STOCK: Record<AvailabilityLevel, number> = { HIGH: 3, MEDIUM: 2, LOW: 1, NONE: 0 };
/** An unknown stock level ranks with LOW: it may be there. */
const stockRank = (stock: AvailabilityLevel | undefined) => (stock === undefined ? 1 : STOCK[stock]);

/** The order a create tries `priced` in, under `strategy` and the cap. */
export function candidateOrder<C extends CandidateSpot>(priced: Array<PricedCandidate<C>>, strategy: PlacementStrategy, maxCostPerHour?: number): CandidateOrder<C> {
  const skipped: CandidateOrder<C>["skipped"] = [];
  const kept: Array<PricedCandidate<C> & { index: number }> = [];
  priced.forEach((entry, index) => {
    if (maxCostPerHour !== undefined && entry.dollarsPerHour !== undefined && entry.dollarsPerHour > maxCostPerHour) {
      skipped.push({ ...entry, reason: `${formatRate(entry.dollarsPerHour)} $/hr is over maxCostPerHour ${formatRate(maxCostPerHour)}` });
    } else kept.push({ ...entry, index });
  });
  if (strategy === "CHEAPEST") {
    const price = (entry: PricedCandidate<C>) => entry.dollarsPerHour ?? Number.POSITIVE_INFINITY;
    kept.sort(
      (a, b) =>
        Number(stockRank(b.stock) > 0) - Number(stockRank(a.stock) > 0) || price(a) - price(b) || stockRank(b.stock) - stockRank(a.stock) || a.index - b.index,
    );
  }
  return { order: kept.map(({ index: _index, ...entry }) => entry), skipped };
}

/**
 * Why no candidate can be under the cap, naming the cheapest price (a preview error), or
 * undefined when one can (or the catalog prices none: the service decides at create).
 */
export function capViolation(priced: ReadonlyArray<{ label: string; dollarsPerHour?: number }>, maxCostPerHour: number | undefined): string | undefined {
  if (maxCostPerHour === undefined) return undefined;
  const known = priced.filter((entry) => entry.dollarsPerHour !== undefined);
  if (known.length === 0 || known.length < priced.length) return undefined;
  const cheapest = known.reduce((a, b) => (b.dollarsPerHour! < a.dollarsPerHour! ? b : a));
  if (cheapest.dollarsPerHour! <= maxCostPerHour) return undefined;
  return `maxCostPerHour: no candidate is at or under ${formatRate(maxCostPerHour)} $/hr; the cheapest is ${cheapest.label} at ${formatRate(cheapest.dollarsPerHour!)} $/hr`;
}

/** A rate as the lines print it (up to four decimals, at least two). */
export function formatRate(dollars: number): string {
  const fixed = dollars.toFixed(4).replace(/0{1,2}$/, "");
  return fixed;
}

/** `NVIDIA H100 80GB HBM3 in US-TX-3`: a candidate for people (`(requested GPU)`, `(any data center)` for what it leaves open). */
export function describeSpot(candidate: CandidateSpot): string {
  return `${candidate.gpuTypeId ?? "(requested GPU)"} in ${candidate.dataCenterId ?? "(any data center)"}`;
}
