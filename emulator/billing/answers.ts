/**
 * The billing routes' answers, reckoned from the meter's uses: each use is cut at the window's
 * bucket boundaries and each piece costs its rate × its hours. Amounts are summed in whole
 * micro-dollars (each piece rounded once), so a record's total is exactly the sum of its
 * components and the metadata's totals exactly the sum of its records.
 *
 * Per-resource routes answer one record per resource per bucket it was billed in (ordered by
 * bucket, then id); `/v2/billing` answers one record per bucket of the window, spend or none, so
 * a day with nothing billed reads as 0 rather than missing; `/v2/billing/endpoints` bills the
 * service's public endpoints, which the emulator does not run: no records, totals 0.
 */
import { BILLING_ROUTES, addBuckets, bucketStart, bucketsOf, type BillingRoute, type BillingWindow } from "../../contract/billing";
import { iso } from "../time";
import type { MeteredRoute, Use } from "./meter";

const HOUR_MS = 3600 * 1000;
const MICRO = 1_000_000;

type Micros = Record<string, number>;

const dollars = (micros: number) => micros / MICRO;

/** One piece per bucket a use overlaps within the window: the bucket's start and the piece's cost. */
function* pieces(use: Use & { to: number }, window: BillingWindow): Generator<{ bucket: number; micros: number }> {
  const from = Math.max(use.from, window.start);
  const to = Math.min(use.to, window.end);
  for (let bucket = bucketStart(from, window.bucketSize); bucket < to; bucket = addBuckets(bucket, window.bucketSize, 1)) {
    const next = addBuckets(bucket, window.bucketSize, 1);
    const ms = Math.min(to, next) - Math.max(from, bucket);
    if (ms > 0) yield { bucket, micros: Math.round((use.ratePerHour * ms * MICRO) / HOUR_MS) };
  }
}

function zeroAmounts(route: BillingRoute): Micros {
  return Object.fromEntries(["totalAmount", ...BILLING_ROUTES[route].components].map((c) => [c, 0]));
}

function asDollars(micros: Micros): Record<string, number> {
  return Object.fromEntries(Object.entries(micros).map(([k, v]) => [k, dollars(v)]));
}

function addTo(amounts: Micros, component: string, micros: number): void {
  amounts[component] = (amounts[component] ?? 0) + micros;
  amounts.totalAmount = (amounts.totalAmount ?? 0) + micros;
}

function range(start: number, window: BillingWindow) {
  return { startTime: iso(start), endTime: iso(addBuckets(start, window.bucketSize, 1)) };
}

function query(window: BillingWindow, route: BillingRoute, filter: string | undefined) {
  const idFilter = BILLING_ROUTES[route].idFilter;
  return { startTime: iso(window.start), endTime: iso(window.end), bucketSize: window.bucketSize, ...(idFilter ? { [idFilter]: filter ?? null } : {}) };
}

/** `{records, metadata}` of a per-resource route (`pods`, `serverless`, `networkVolumes`, `clusters`). */
function perResource(route: MeteredRoute, uses: Array<Use & { to: number }>, window: BillingWindow, filter: string | undefined) {
  const idMember = BILLING_ROUTES[route].idFilter;
  const byKey = new Map<string, { bucket: number; id: string; amounts: Micros }>();
  const totals = zeroAmounts(route);
  for (const use of uses) {
    if (use.route !== route || (filter !== undefined && use.resourceId !== filter)) continue;
    for (const piece of pieces(use, window)) {
      const key = `${piece.bucket}\u0000${use.resourceId}`;
      let entry = byKey.get(key);
      if (!entry) byKey.set(key, (entry = { bucket: piece.bucket, id: use.resourceId, amounts: zeroAmounts(route) }));
      addTo(entry.amounts, use.component, piece.micros);
      addTo(totals, use.component, piece.micros);
    }
  }
  const entries = [...byKey.values()].sort((a, b) => a.bucket - b.bucket || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const records = entries.map((e) => ({ ...range(e.bucket, window), ...asDollars(e.amounts), [idMember]: e.id }));
  return {
    records,
    metadata: {
      query: query(window, route, filter),
      recordCount: records.length,
      [BILLING_ROUTES[route].uniqueCount]: new Set(entries.map((e) => e.id)).size,
      totals: asDollars(totals),
    },
  };
}

/** `{records, metadata}` of `/v2/billing`: every bucket of the window, each family's amounts under its own names. */
function aggregate(uses: Array<Use & { to: number }>, window: BillingWindow) {
  const byBucket = new Map(bucketsOf(window, window.bucketSize).map((bucket) => [bucket, zeroAmounts("all")]));
  const totals = zeroAmounts("all");
  for (const use of uses) {
    const member = (BILLING_ROUTES[use.route].intoAll as Record<string, string | undefined>)[use.component];
    if (!member) continue;
    for (const piece of pieces(use, window)) {
      addTo(byBucket.get(piece.bucket)!, member, piece.micros);
      addTo(totals, member, piece.micros);
    }
  }
  const records = [...byBucket].map(([bucket, amounts]) => ({ ...range(bucket, window), ...asDollars(amounts) }));
  return { records, metadata: { query: query(window, "all", undefined), recordCount: records.length, totals: asDollars(totals) } };
}

/** The answer of one billing route for the uses that overlap its window (`filter`: the route's id filter, if given). */
export function billingAnswer(route: BillingRoute, uses: Array<Use & { to: number }>, window: BillingWindow, filter: string | undefined) {
  if (route === "all") return aggregate(uses, window);
  if (route === "endpoints") {
    return { records: [], metadata: { query: query(window, route, undefined), recordCount: 0, totals: asDollars(zeroAmounts(route)) } };
  }
  return perResource(route, uses, window, filter);
}
