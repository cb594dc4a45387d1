/**
 * Billing: what the account spent, in time buckets (contract/billing.ts holds the routes and the
 * window rule). Each route is read tolerantly; a window longer than one answer may span
 * (`BILLING_MAX_BUCKETS`) is asked for in consecutive windows on bucket boundaries and merged,
 * so a year of hourly records reads as one answer whatever limit the service keeps.
 */
import { z } from "zod";
import { parseWire } from "../../contract";
import {
  BILLING_MAX_BUCKETS,
  BILLING_ROUTES,
  BillingBucketSize,
  addBuckets,
  billingResponseSchema,
  bucketCount,
  resolveBillingWindow,
  roundMicros,
  type BillingAnswer,
  type BillingRoute,
  type BillingWindow,
} from "../../contract/billing";
import { parseMillis } from "../../contract/time";
import { ComputeError } from "../errors";
import type { HttpCore } from "../http";

/**
 * How Go prints a time (`2026-11-28 07:00:00 +0000 UTC`): Pulumi YAML reads an unquoted
 * date-time, even a config value of type string, as a YAML timestamp and hands it on so.
 */
const GO_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) ([+-]\d{2})(\d{2})(?: \S+)?$/;

function millisOf(text: string): number {
  const rfc3339 = parseMillis(text);
  if (rfc3339 !== undefined) return rfc3339;
  const go = GO_TIME.exec(text.trim());
  return go ? Date.parse(`${go[1]}T${go[2]}${go[3]}:${go[4]}`) : Number.NaN;
}

/** A point in time: a Date, or an RFC 3339 string (what the service takes; sent as UTC), or Go's print of one. */
const instant = z.union([z.date(), z.string()]).transform((value, ctx) => {
  const at = value instanceof Date ? value.getTime() : millisOf(value);
  if (Number.isNaN(at)) ctx.addIssue({ code: "custom", message: `must be an RFC 3339 date-time such as 2026-05-01T00:00:00Z, got ${JSON.stringify(String(value))}` });
  return at;
});

/** What a billing read asks: a window (`startTime`/`endTime`, or `lastN` buckets), a bucket size, and the route's id filter (`id`). */
export const BillingQueryInput = z
  .strictObject({
    startTime: instant.optional(),
    endTime: instant.optional(),
    bucketSize: BillingBucketSize.optional(),
    lastN: z.int().min(1).optional(),
    /** The route's id filter (`podId`, `clusterId`, …); not taken by `all` and `endpoints`. */
    id: z.string().min(1).optional(),
  })
  .superRefine((q, ctx) => {
    // The window rule the service applies (contract/billing.ts), judged here before any request.
    if ([q.startTime, q.endTime].some((at) => at !== undefined && Number.isNaN(at))) return; // already said
    const window = resolveBillingWindow(q, Date.now());
    if ("violation" in window) ctx.addIssue({ code: "custom", path: [window.violation.field], message: window.violation.rule });
  });
export type BillingQueryInput = z.input<typeof BillingQueryInput>;

const sumDollars = (a: unknown, b: unknown) => roundMicros((typeof a === "number" ? a : 0) + (typeof b === "number" ? b : 0));

/** The most requests one read makes for a long window (100,000 buckets: eleven years of hours). */
const MAX_PARTS = 100;

export class Billing {
  constructor(private readonly http: HttpCore) {}

  /** Every family's spend per bucket (`GET /v2/billing`). */
  all(query: Omit<BillingQueryInput, "id"> = {}, options: { signal?: AbortSignal } = {}) {
    return this.read("all", query, options);
  }

  /** Per pod per bucket (GPU and CPU pods; cluster members bill under `clusters`). */
  pods(query: BillingQueryInput = {}, options: { signal?: AbortSignal } = {}) {
    return this.read("pods", query, options);
  }

  /** Per serverless endpoint per bucket. */
  serverless(query: BillingQueryInput = {}, options: { signal?: AbortSignal } = {}) {
    return this.read("serverless", query, options);
  }

  /** The service's public endpoints per bucket. */
  endpoints(query: Omit<BillingQueryInput, "id"> = {}, options: { signal?: AbortSignal } = {}) {
    return this.read("endpoints", query, options);
  }

  /** Per network volume per bucket (standard and high-performance storage). */
  networkVolumes(query: BillingQueryInput = {}, options: { signal?: AbortSignal } = {}) {
    return this.read("networkVolumes", query, options);
  }

  /** Per cluster per bucket. */
  clusters(query: BillingQueryInput = {}, options: { signal?: AbortSignal } = {}) {
    return this.read("clusters", query, options);
  }

  /**
   * One route's records for the window asked (checked before any request, every violation at
   * once). A window of more buckets than one answer spans is read in parts and merged.
   */
  async read(route: BillingRoute, input: BillingQueryInput = {}, options: { signal?: AbortSignal } = {}): Promise<BillingAnswer> {
    const read = parseWire(BillingQueryInput, input);
    if (!read.ok) throw new ComputeError(`invalid billing query: ${read.violations.join("; ")}`);
    const query = read.value;
    const idFilter = BILLING_ROUTES[route].idFilter;
    if (query.id !== undefined && !idFilter) throw new ComputeError(`invalid billing query: id: ${route} records name no resource, so they cannot be filtered by id`);
    const filter = idFilter && query.id !== undefined ? { [idFilter]: query.id } : {};
    // Split only what the service could refuse: as asked, the service resolves its own defaults and clock.
    const window = resolveBillingWindow(query, Date.now());
    if ("violation" in window || bucketCount(window) <= BILLING_MAX_BUCKETS) {
      const asked = { startTime: isoOf(query.startTime), endTime: isoOf(query.endTime), bucketSize: query.bucketSize, lastN: query.lastN, ...filter };
      return this.request(route, asked, options.signal);
    }
    const split = parts(window);
    if (split.length > MAX_PARTS) {
      throw new ComputeError(
        `invalid billing query: startTime: the window spans more than ${MAX_PARTS * BILLING_MAX_BUCKETS} ${window.bucketSize} buckets (${MAX_PARTS} requests); ask for a shorter window or a larger bucketSize`,
      );
    }
    const answers: BillingAnswer[] = [];
    for (const part of split) {
      answers.push(await this.request(route, { startTime: isoOf(part.start), endTime: isoOf(part.end), bucketSize: window.bucketSize, ...filter }, options.signal));
    }
    return merged(route, answers);
  }

  private request(route: BillingRoute, query: Record<string, string | number | undefined>, signal?: AbortSignal): Promise<BillingAnswer> {
    return this.http.request({ method: "GET", path: BILLING_ROUTES[route].path, query, schema: billingResponseSchema(route), signal });
  }
}

const isoOf = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());

/** The window in consecutive parts of at most `BILLING_MAX_BUCKETS` buckets, each on bucket boundaries. */
function parts(window: BillingWindow): Array<{ start: number; end: number }> {
  const found: Array<{ start: number; end: number }> = [];
  // Bounded: one past MAX_PARTS is enough to refuse the window.
  for (let start = window.start; start < window.end && found.length <= MAX_PARTS; ) {
    const end = Math.min(window.end, addBuckets(start, window.bucketSize, BILLING_MAX_BUCKETS));
    found.push({ start, end });
    start = end;
  }
  return found;
}

/** Answers of consecutive windows as one: records in order, totals and counts summed, distinct resources counted across parts. */
function merged(route: BillingRoute, answers: BillingAnswer[]): BillingAnswer {
  const spec = BILLING_ROUTES[route];
  const records = answers.flatMap((a) => a.records);
  const totals: Record<string, unknown> = { totalAmount: 0 };
  for (const answer of answers) for (const [member, value] of Object.entries(answer.metadata.totals)) if (typeof value === "number") totals[member] = sumDollars(totals[member], value);
  const first = answers[0].metadata;
  const last = answers[answers.length - 1].metadata;
  return {
    records,
    setAside: answers.flatMap((a) => a.setAside),
    metadata: {
      ...first,
      query: { ...first.query, endTime: last.query.endTime },
      recordCount: answers.reduce((n, a) => n + a.metadata.recordCount, 0),
      ...(spec.uniqueCount && spec.idFilter ? { [spec.uniqueCount]: new Set(records.map((r) => r[spec.idFilter!])).size } : {}),
      totals: totals as BillingAnswer["metadata"]["totals"],
    },
  };
}
