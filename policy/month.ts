/**
 * A monthly budget (`compute-budget.maxDollarsPerMonth`): what the stack will have cost by the
 * end of the month (UTC) if the change goes in, judged as
 *
 *     month-to-date actual of the stack + the month's remaining hours × the stack's estimate after the change
 *
 * The actual is the service's billing (GETs only) for the stack's resources that exist: those
 * the service holds under the stack's owner marks (sdk/ownership.ts), and the ids the preview
 * names (each kind's id output, `podId`, `clusterId`, …). The marks are what count a resource
 * the change updates or replaces: the preview gives it no id (a dynamic provider's preview
 * answers its new inputs alone), yet it has billed all month. Resources the stack destroyed
 * earlier in the month are not in it: the policy sees the stack as it will be, not its history
 * (`compute cost --stack` reads that); docs/cost.md says so.
 */
import { BILLING_ROUTE_OF_KIND, BILLING_ROUTES, roundMicros, type BillingBucketSize, type BillingRoute } from "../contract/billing";
import { formatDollars } from "../contract/estimate";
import type { ComputeClient } from "../sdk";
import { ownerOf } from "../sdk/ownership";
import { resourceByToken } from "../provider/resources";
import { pricedResourceOf } from "./resources";
import type { StackEstimate, StackResource } from "./stack-estimate";

const HOUR_MS = 3_600_000;

export interface MonthToDate {
  /** Dollars billed since the month began, for the ids read. */
  actual: number;
  /** The resources' ids the actual is for. */
  ids: string[];
  /** The month's start and end (UTC), and the hours left of it at `now`. */
  start: number;
  end: number;
  remainingHours: number;
}

/** The UTC month holding `now`, and the hours left of it. */
export function monthOf(now: number): Pick<MonthToDate, "start" | "end" | "remainingHours"> {
  const d = new Date(now);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start, end, remainingHours: (end - now) / HOUR_MS };
}

/** The stack's resources that bill, with their ids and routes (those whose id is known: existing ones). */
export function billedIds(resources: readonly StackResource[]): Array<{ id: string; urn: string; route: Exclude<BillingRoute, "all" | "endpoints"> }> {
  const found: Array<{ id: string; urn: string; route: Exclude<BillingRoute, "all" | "endpoints"> }> = [];
  for (const resource of resources) {
    const definition = resourceByToken(resource.type) ?? pricedResourceOf(resource.type, resource.props);
    const route = definition ? BILLING_ROUTE_OF_KIND[definition.name] : undefined;
    if (!definition || !route) continue;
    let id: unknown;
    try {
      id = resource.props[definition.idOutput];
    } catch {
      continue; // not known at preview: a resource to be created has billed nothing
    }
    if (typeof id === "string" && id !== "") found.push({ id, urn: resource.urn, route });
  }
  return found;
}

/**
 * What each of `entries` was billed in `[start, end)`, by id: one read per route they need
 * (`bucketSize` as large as the window allows, so few records come back), records picked by id.
 */
export async function billedById(
  entries: ReadonlyArray<{ id: string; route: Exclude<BillingRoute, "all" | "endpoints"> }>,
  client: ComputeClient,
  start: number,
  end: number,
  bucketSize: BillingBucketSize,
): Promise<Map<string, number>> {
  const billed = new Map<string, number>(entries.map((entry) => [entry.id, 0]));
  for (const route of new Set(entries.map((entry) => entry.route))) {
    const answer = await client.billing.read(route, { startTime: new Date(start).toISOString(), endTime: new Date(end).toISOString(), bucketSize });
    const member = BILLING_ROUTES[route].idFilter;
    for (const record of answer.records) {
      const id = record[member];
      if (typeof id === "string" && billed.has(id)) billed.set(id, billed.get(id)! + record.totalAmount);
    }
  }
  for (const [id, dollars] of billed) billed.set(id, roundMicros(dollars));
  return billed;
}

/** `project/stack` of the stack the resources belong to, from their URNs (`urn:pulumi:<stack>::<project>::…`). */
export function stackOfUrns(resources: readonly StackResource[]): { project: string; stack: string } | undefined {
  for (const resource of resources) {
    const match = /^urn:pulumi:([^:]+)::([^:]+)::/.exec(resource.urn);
    if (match) return { stack: match[1]!, project: match[2]! };
  }
  return undefined;
}

/** The ids of what the service holds under the stack's owner marks, by the route that bills each (pods, clusters, endpoints, volumes). */
export async function ownedIds(client: ComputeClient, project: string, stack: string): Promise<Array<{ id: string; route: Exclude<BillingRoute, "all" | "endpoints"> }>> {
  const prefix = `${project}/${stack}/`;
  const owned = (item: { env?: Record<string, string> | null; labels?: Record<string, string> | null; name?: string }) => ownerOf(item)?.label.startsWith(prefix) === true;
  const [pods, clusters, endpoints, volumes] = await Promise.all([
    client.pods.page({ includeClusterPods: false }),
    client.clusters.page(),
    client.serverless.page(),
    client.networkVolumes.page(),
  ]);
  return [
    ...pods.items.filter(owned).map((item) => ({ id: item.id, route: "pods" as const })),
    ...clusters.items.filter(owned).map((item) => ({ id: item.id, route: "clusters" as const })),
    ...endpoints.items.filter(owned).map((item) => ({ id: item.id, route: "serverless" as const })),
    ...volumes.items.filter(owned).map((item) => ({ id: item.id, route: "networkVolumes" as const })),
  ];
}

/** The month-to-date actual of the stack's resources (named in the preview or under its owner marks), in month buckets. */
export async function monthToDate(resources: readonly StackResource[], client: ComputeClient, now: number): Promise<MonthToDate> {
  const month = monthOf(now);
  const identity = stackOfUrns(resources);
  const marked = identity ? await ownedIds(client, identity.project, identity.stack) : [];
  const ids = [...new Map([...billedIds(resources), ...marked].map((entry) => [entry.id, { id: entry.id, route: entry.route }])).values()];
  const billed = await billedById(ids, client, month.start, now, "month");
  const actual = [...billed.values()].reduce((sum, dollars) => sum + dollars, 0);
  return { actual: roundMicros(actual), ids: ids.map((entry) => entry.id), ...month };
}

/** The month's projection: the actual so far, plus the rest of the month at the estimate. */
export function projection(stack: StackEstimate, mtd: MonthToDate): number {
  return Math.round((mtd.actual + mtd.remainingHours * stack.dollarsPerHour) * 1e6) / 1e6;
}

/**
 * Why the change breaks the monthly budget (naming the three figures), or undefined when it keeps
 * to it. A stack whose estimate or actual cannot be made cannot be shown to keep to it: a gate
 * fails closed.
 */
export function monthlyBudgetViolation(stack: StackEstimate, mtd: MonthToDate | { unavailable: string }, maxDollarsPerMonth: number): string | undefined {
  const budget = `the budget of $${formatDollars(maxDollarsPerMonth)} a month (compute-budget.maxDollarsPerMonth)`;
  if ("unavailable" in mtd) return `cannot check ${budget}: the month-to-date actual could not be read (${mtd.unavailable})`;
  if (stack.unavailable.length > 0) return `cannot check ${budget}: ${stack.unavailable.length} of ${stack.resources.length} priced resources have no estimate`;
  const projected = projection(stack, mtd);
  if (projected <= maxDollarsPerMonth) return undefined;
  return (
    `this month would cost $${formatDollars(projected)}, over ${budget}: ` +
    `$${formatDollars(mtd.actual)} billed so far this month + ${mtd.remainingHours.toFixed(1)} hours left × the stack's estimate of ${formatDollars(stack.dollarsPerHour)} $/hr after the change`
  );
}
