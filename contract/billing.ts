/**
 * Billing (the public OpenAPI's operation group Billing; the v2 document shows no billing
 * records): six routes of time-bucketed spend. Stated once here and read by the emulator (which
 * answers them), the SDK (which asks and reads them), the functions and `compute cost`:
 *
 * - `BILLING_ROUTES`: each route's path, its per-resource id filter and member, its count of
 *   distinct resources, and its amount components;
 * - `resolveBillingWindow`: how a query's `startTime` / `endTime` / `lastN` / `bucketSize`
 *   become the half-open window the answer covers (snapped to bucket boundaries, in UTC);
 * - the answer schemas, read tolerantly (reading.ts): an unknown member is kept, a component
 *   this SDK does not know is kept, an absent or `null` component reads as absent, and one
 *   unreadable record is set aside rather than losing the others.
 */
import { z } from "zod";
import { optional, tolerantList } from "./reading";

export const BILLING_BUCKET_SIZES = ["hour", "day", "week", "month", "year"] as const;
export const BillingBucketSize = z.enum(BILLING_BUCKET_SIZES);
export type BillingBucketSize = z.infer<typeof BillingBucketSize>;

/** The public document's defaults: `bucketSize` day; a window from 30 days ago to now. */
export const BILLING_DEFAULT_BUCKET: BillingBucketSize = "day";
export const BILLING_DEFAULT_LOOKBACK_MS = 30 * 24 * 3600 * 1000;

/**
 * The most buckets one answer spans (buckets × resources can be large). The public document
 * states no limit; this is the emulator's, and the SDK splits a longer window into requests of
 * at most this many buckets, so a service with a higher limit (or none) answers the same.
 */
export const BILLING_MAX_BUCKETS = 1000;

/** What each of the six routes bills; `idFilter` is both its query filter and its records' member. */
export const BILLING_ROUTES = {
  all: {
    path: "/v2/billing",
    idFilter: undefined,
    uniqueCount: undefined,
    components: [
      "podGpuAmount",
      "podCpuAmount",
      "podDiskAmount",
      "serverlessGpuAmount",
      "serverlessCpuAmount",
      "serverlessDiskAmount",
      "serverlessFeeAmount",
      "storageStandardAmount",
      "storageHighPerformanceAmount",
      "endpointAmount",
      "clusterGpuAmount",
      "clusterDiskAmount",
      "clusterNetworkingAmount",
    ],
  },
  pods: {
    path: "/v2/billing/pods",
    idFilter: "podId",
    uniqueCount: "uniquePodCount",
    components: ["gpuAmount", "cpuAmount", "diskAmount"],
    intoAll: { totalAmount: undefined, gpuAmount: "podGpuAmount", cpuAmount: "podCpuAmount", diskAmount: "podDiskAmount" },
  },
  serverless: {
    path: "/v2/billing/serverless",
    idFilter: "serverlessId",
    uniqueCount: "uniqueServerlessCount",
    components: ["gpuAmount", "cpuAmount", "diskAmount", "feeAmount"],
    intoAll: { totalAmount: undefined, gpuAmount: "serverlessGpuAmount", cpuAmount: "serverlessCpuAmount", diskAmount: "serverlessDiskAmount", feeAmount: "serverlessFeeAmount" },
  },
  /** The service's public endpoints (per-request APIs it runs itself), not a user's serverless endpoints. */
  endpoints: { path: "/v2/billing/endpoints", idFilter: undefined, uniqueCount: undefined, components: [], intoAll: { totalAmount: "endpointAmount" } },
  networkVolumes: {
    path: "/v2/billing/network-volumes",
    idFilter: "networkVolumeId",
    uniqueCount: "uniqueNetworkVolumeCount",
    components: ["standardAmount", "highPerformanceAmount"],
    intoAll: { totalAmount: undefined, standardAmount: "storageStandardAmount", highPerformanceAmount: "storageHighPerformanceAmount" },
  },
  clusters: {
    path: "/v2/billing/clusters",
    idFilter: "clusterId",
    uniqueCount: "uniqueClusterCount",
    components: ["gpuAmount", "diskAmount", "networkingAmount"],
    intoAll: { totalAmount: undefined, gpuAmount: "clusterGpuAmount", diskAmount: "clusterDiskAmount", networkingAmount: "clusterNetworkingAmount" },
  },
} as const satisfies Record<
  string,
  {
    path: string;
    idFilter: string | undefined;
    uniqueCount: string | undefined;
    components: readonly string[];
    /** Where a family's amounts go in a record of `/v2/billing` (its total is the sum of its components, unless the family has none). */
    intoAll?: Record<string, string | undefined>;
  }
>;

export type BillingRoute = keyof typeof BILLING_ROUTES;

/**
 * The route that bills each kind of resource this package makes, by its type name; the others
 * have none (a sandbox bills, but the public document has no route for it; a template, a
 * registry credential and an SSH key cost nothing).
 */
export const BILLING_ROUTE_OF_KIND: Readonly<Record<string, Exclude<BillingRoute, "all" | "endpoints">>> = {
  Pod: "pods",
  Cluster: "clusters",
  ServerlessEndpoint: "serverless",
  NetworkVolume: "networkVolumes",
};
export const BILLING_ROUTE_NAMES = Object.keys(BILLING_ROUTES) as BillingRoute[];

/** The per-resource id member of a route's records (`podId`, …), or undefined for the aggregate routes. */
export type BillingIdMember<R extends BillingRoute> = (typeof BILLING_ROUTES)[R]["idFilter"];

// ---- the window -------------------------------------------------------------------------------

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The start (UTC) of the bucket holding `at`; weeks start on Monday (ISO 8601). */
export function bucketStart(at: number, size: BillingBucketSize): number {
  const d = new Date(at);
  switch (size) {
    case "hour":
      return Math.floor(at / HOUR_MS) * HOUR_MS;
    case "day":
      return Math.floor(at / DAY_MS) * DAY_MS;
    case "week": {
      const day = Math.floor(at / DAY_MS) * DAY_MS;
      const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0
      return day - weekday * DAY_MS;
    }
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case "year":
      return Date.UTC(d.getUTCFullYear(), 0, 1);
  }
}

/** The start of the bucket `n` buckets after the one starting at `start` (n may be negative). */
export function addBuckets(start: number, size: BillingBucketSize, n: number): number {
  const d = new Date(start);
  switch (size) {
    case "hour":
      return start + n * HOUR_MS;
    case "day":
      return start + n * DAY_MS;
    case "week":
      return start + n * 7 * DAY_MS;
    case "month":
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
    case "year":
      return Date.UTC(d.getUTCFullYear() + n, 0, 1);
  }
}

/** The buckets' starts of a window already on boundaries, in order. */
export function bucketsOf(window: { start: number; end: number }, size: BillingBucketSize): number[] {
  const starts: number[] = [];
  for (let at = window.start; at < window.end && starts.length <= BILLING_MAX_BUCKETS; at = addBuckets(at, size, 1)) starts.push(at);
  return starts;
}

export interface BillingWindowQuery {
  startTime?: number;
  endTime?: number;
  bucketSize?: BillingBucketSize;
  lastN?: number;
}

export interface BillingWindow {
  start: number;
  end: number;
  bucketSize: BillingBucketSize;
}

/** A rule of the window a query breaks: the parameter, and the rule in words (`${field} ${rule}` reads as a sentence). */
export interface WindowViolation {
  field: "lastN" | "startTime";
  rule: string;
}

/**
 * The window an answer covers (public document, parameters BillingStartTime, BillingEndTime,
 * BillingLastN): `startTime` (default 30 days ago) snapped down to its bucket's start; `endTime`
 * (default now, exclusive) snapped up to the end of its bucket unless already on a boundary;
 * `lastN` is the last N buckets ending with the current, in-progress one. Returns the rule a
 * query breaks instead: the emulator answers it (400), the SDK refuses the query with it.
 */
export function resolveBillingWindow(query: BillingWindowQuery, now: number): BillingWindow | { violation: WindowViolation } {
  const bucketSize = query.bucketSize ?? BILLING_DEFAULT_BUCKET;
  let window: BillingWindow;
  if (query.lastN !== undefined) {
    if (query.startTime !== undefined || query.endTime !== undefined) {
      return { violation: { field: "lastN", rule: "cannot be combined with startTime or endTime: give one or the other" } };
    }
    const current = bucketStart(now, bucketSize);
    window = { start: addBuckets(current, bucketSize, -(query.lastN - 1)), end: addBuckets(current, bucketSize, 1), bucketSize };
  } else {
    const endAt = query.endTime ?? now;
    const startAt = query.startTime ?? endAt - BILLING_DEFAULT_LOOKBACK_MS;
    if (startAt >= endAt) return { violation: { field: "startTime", rule: "must be before endTime" } };
    const start = bucketStart(startAt, bucketSize);
    const endBucket = bucketStart(endAt, bucketSize);
    window = { start, end: endBucket === endAt ? endAt : addBuckets(endBucket, bucketSize, 1), bucketSize };
  }
  // A start before the dates JavaScript (and RFC 3339) can write: a huge lastN of months or years.
  if (!Number.isFinite(window.start) || !Number.isFinite(window.end) || window.start < Date.UTC(0, 0, 1)) {
    return { violation: { field: query.lastN !== undefined ? "lastN" : "startTime", rule: "reaches before the year 0000" } };
  }
  return window;
}

/** Dollars rounded to the micro-dollar, the precision billing records carry. */
export function roundMicros(dollars: number): number {
  return Math.round(dollars * 1_000_000) / 1_000_000;
}

/** How many buckets a window spans, counted up to one past the limit. */
export function bucketCount(window: BillingWindow): number {
  return bucketsOf(window, window.bucketSize).length;
}

// ---- answers ----------------------------------------------------------------------------------

/** A dollar amount; absent or null reads as absent (the service may leave a component out). */
const amount = optional(z.number());

/** The component amounts of a route, each read as optional: `totalAmount` alone is required. */
function amountsOf(components: readonly string[]) {
  return Object.fromEntries(components.map((name) => [name, amount])) as Record<string, typeof amount>;
}

const timeRange = { startTime: z.string(), endTime: z.string() };

/** One record of a route: its bucket, its total and components, and (per-resource routes) the id it bills. */
export function billingRecordSchema(route: BillingRoute) {
  const spec = BILLING_ROUTES[route];
  return z.looseObject({
    ...timeRange,
    totalAmount: z.number(),
    ...amountsOf(spec.components),
    ...(spec.idFilter ? { [spec.idFilter]: z.string() } : {}),
  });
}

/** The answer's metadata: the resolved window, the record count, distinct resources and totals. */
export function billingMetadataSchema(route: BillingRoute) {
  const spec = BILLING_ROUTES[route];
  return z.looseObject({
    query: z.looseObject({
      ...timeRange,
      bucketSize: z.string(),
      ...(spec.idFilter ? { [spec.idFilter]: optional(z.string()) } : {}),
    }),
    recordCount: z.int(),
    ...(spec.uniqueCount ? { [spec.uniqueCount]: optional(z.int()) } : {}),
    totals: z.looseObject({ totalAmount: z.number(), ...amountsOf(spec.components) }),
  });
}

/** A billing record as the SDK hands it on: bucket, total, components, and the id it bills (per-resource routes). */
export interface BillingRecord {
  startTime: string;
  endTime: string;
  totalAmount: number;
  [member: string]: unknown;
}

export interface BillingAnswer {
  records: BillingRecord[];
  metadata: {
    query: { startTime: string; endTime: string; bucketSize: string; [member: string]: unknown };
    recordCount: number;
    totals: { totalAmount: number; [member: string]: unknown };
    [member: string]: unknown;
  };
  /** Records that could not be read, with why (reading.ts). */
  setAside: import("./reading").SetAside[];
}

const responseSchemas = new Map<BillingRoute, z.ZodType<BillingAnswer>>();

/** `{records, metadata}` of a route, with unreadable records set aside (and the metadata read after them); made once per route. */
export function billingResponseSchema(route: BillingRoute): z.ZodType<BillingAnswer> {
  let schema = responseSchemas.get(route);
  if (!schema) {
    const metadata = z.looseObject({ metadata: billingMetadataSchema(route) });
    schema = (tolerantList("records", billingRecordSchema(route)) as z.ZodType).pipe(metadata) as unknown as z.ZodType<BillingAnswer>;
    responseSchemas.set(route, schema);
  }
  return schema;
}

/** The answer schemas by the public document's names, for the routes' readers and their tests. */
export const BILLING_RESPONSES = {
  ListBillingResponse: billingResponseSchema("all"),
  ListPodBillingResponse: billingResponseSchema("pods"),
  ListServerlessBillingResponse: billingResponseSchema("serverless"),
  ListEndpointBillingResponse: billingResponseSchema("endpoints"),
  ListNetworkVolumeBillingResponse: billingResponseSchema("networkVolumes"),
  ListClusterBillingResponse: billingResponseSchema("clusters"),
} as const;
