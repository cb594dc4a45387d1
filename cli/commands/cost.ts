/**
 * `compute cost`: what was spent, from the service's billing records, not estimated.
 *
 * - `compute cost` prints the account's spend in the window by family (pods' GPU, CPU and disk,
 *   serverless, storage, public endpoints, clusters) and the total.
 * - `compute cost --stack <stack>` prints the stack's resources (kind, name, id, the rate the
 *   state recorded, the hours billed, the actual dollars) and their total: those in the stack now
 *   and those it destroyed within the window (stack-resources.ts says where each comes from).
 *   `--by day` prints the stack's spend per UTC day instead.
 *
 * The billing routes are read once each for the window in hour buckets, and a resource's
 * records are picked by its id. What the amounts leave out is said, never hidden: the current
 * hour still being billed, the lag of the service's billing behind its clock, resources of a
 * kind no billing route covers (sandboxes), destroyed ones a backend's history does not show.
 */
import * as path from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { BILLING_ROUTE_OF_KIND, BILLING_ROUTES, bucketStart, roundMicros, type BillingAnswer, type BillingRecord, type BillingRoute } from "../../contract/billing";
import type { Context } from "../context";
import { money } from "../inventory";
import { tableOf, type Column } from "../output";
import { withSpinner } from "../spinner";
import { stackResources, type StackResource, type StackResources } from "../stack-resources";
import { UsageError } from "../errors";
import { action, examples } from "./shared";

const HOUR_MS = 3_600_000;
const UNITS: Record<string, number> = { m: 60_000, h: HOUR_MS, d: 24 * HOUR_MS, w: 7 * 24 * HOUR_MS };

/** The longest window back from now: ten years. */
const MAX_SINCE_MS = 3650 * UNITS.d!;

/** `7d`, `24h`, `90m`, `2w`: a duration back from now. */
function duration(value: string): number {
  const match = /^(\d+)([mhdw])$/.exec(value.trim());
  if (!match || Number(match[1]) === 0) throw new InvalidArgumentError("Expected a duration such as 7d, 24h, 90m or 2w.");
  const ms = Number(match[1]) * UNITS[match[2]!]!;
  if (ms > MAX_SINCE_MS) throw new InvalidArgumentError("Expected at most 3650d (ten years).");
  return ms;
}

/** A date (`2026-11-01`) or a date-time, in UTC unless it names its offset. */
function instant(value: string): number {
  const text = value.trim();
  const dateTime = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text.replace(" ", "T")}Z` : text;
  const at = Date.parse(dateTime);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at)) throw new InvalidArgumentError("Expected a date or an RFC 3339 date-time, such as 2026-11-01 or 2026-11-01T08:00:00Z.");
  return at;
}

interface CostFlags {
  stack?: string;
  since?: number;
  from?: number;
  to?: number;
  by: "resource" | "day";
  cwd?: string;
}

export function costCommand(): Command {
  const cost = new Command("cost")
    .description("What was spent, from the service's billing records: the account's by family, or a stack's per resource (those it destroyed in the window included) with its total")
    .option("--stack <stack>", "a stack of the current project (or org/project/stack), read with `pulumi stack export`")
    .addOption(new Option("--since <duration>", "the window: back from now (7d, 24h, 90m, 2w; default 7d)").argParser(duration).conflicts(["from", "to"]))
    .addOption(new Option("--from <date>", "the window's start (RFC 3339 or a date, UTC)").argParser(instant))
    .addOption(new Option("--to <date>", "the window's end, exclusive (default: now)").argParser(instant))
    .addOption(new Option("--by <what>", "rows per resource or per UTC day").choices(["resource", "day"]).default("resource"))
    .option("--cwd <dir>", "the Pulumi project directory (default: the current one)")
    .action(action((ctx, flags: CostFlags) => report(ctx, flags)));
  examples(cost, ["compute cost", "compute cost --since 30d", "compute cost --stack dev", "compute cost --stack dev --since 24h --by day", "compute cost --stack dev --json | jq .total"]);
  return cost;
}

/** The window asked: `--from`/`--to`, else `--since` (default 7 days) back from now. */
function windowOf(flags: CostFlags, now: number): { start: number; end: number } {
  const end = flags.to ?? now;
  const start = flags.from ?? end - (flags.since ?? 7 * UNITS.d!);
  if (start >= end) throw new UsageError("--from must be before --to", "compute cost");
  return { start, end };
}

const iso = (at: number) => new Date(at).toISOString();

/** What the amounts leave out, said with every report. */
function caveats(answers: BillingAnswer[], end: number): string[] {
  const notes = ["Billing may lag the service's clock: the amounts are what was billed so far."];
  if (end > Date.now() - 3_600_000) notes.push("The window reaches the current hour, which is still being billed: its amounts are partial.");
  const unread = answers.reduce((n, a) => n + a.setAside.length, 0);
  if (unread > 0) notes.push(`${unread} billing record(s) could not be read and are not counted.`);
  return notes;
}

async function report(ctx: Context, flags: CostFlags): Promise<void> {
  const window = windowOf(flags, Date.now());
  if (flags.stack === undefined) return accountReport(ctx, window, flags);
  const stack = await withSpinner(`Reading stack ${flags.stack}`, () =>
    stackResources({ stack: flags.stack!, cwd: path.resolve(flags.cwd ?? process.cwd()), since: window.start }),
  );
  return stackReport(ctx, stack, window, flags);
}

// ---- the account ----------------------------------------------------------------------------

/** The aggregate record's members, by family, in the order they are printed. */
const FAMILY_LINES: Array<[string, string]> = [
  ["pods: GPU", "podGpuAmount"],
  ["pods: CPU", "podCpuAmount"],
  ["pods: disk", "podDiskAmount"],
  ["serverless: GPU", "serverlessGpuAmount"],
  ["serverless: CPU", "serverlessCpuAmount"],
  ["serverless: disk", "serverlessDiskAmount"],
  ["serverless: fee", "serverlessFeeAmount"],
  ["storage: standard", "storageStandardAmount"],
  ["storage: high performance", "storageHighPerformanceAmount"],
  ["public endpoints", "endpointAmount"],
  ["clusters: GPU", "clusterGpuAmount"],
  ["clusters: disk", "clusterDiskAmount"],
  ["clusters: networking", "clusterNetworkingAmount"],
];

const amount = (value: unknown) => (typeof value === "number" ? value : 0);

async function accountReport(ctx: Context, window: { start: number; end: number }, flags: CostFlags): Promise<void> {
  const client = ctx.sdk();
  const bucketSize = flags.by === "day" ? "day" : "hour";
  const answer = await withSpinner("Reading billing", () => client.billing.all({ startTime: iso(window.start), endTime: iso(window.end), bucketSize }));
  const totals = answer.metadata.totals as Record<string, unknown>;
  const families = FAMILY_LINES.map(([family, member]) => ({ family, actual: amount(totals[member]) }));
  const notes = caveats([answer], window.end);
  const days = answer.records.map((r) => ({ day: r.startTime.slice(0, 10), actual: r.totalAmount }));
  if (ctx.format !== "table") {
    ctx.printer.data({ window: answer.metadata.query, families, ...(flags.by === "day" ? { days } : {}), total: totals.totalAmount, notes });
    return;
  }
  if (flags.by === "day") ctx.printer.line(tableOf(days, [{ header: "DAY (UTC)", value: (d) => d.day }, { header: "ACTUAL", value: (d) => money(d.actual), align: "right" }]));
  else ctx.printer.line(tableOf(families.filter((f) => f.actual !== 0), [{ header: "FAMILY", value: (f) => f.family }, { header: "ACTUAL", value: (f) => money(f.actual), align: "right" }]));
  ctx.printer.line(`Total: ${money(amount(totals.totalAmount))} from ${answer.metadata.query.startTime} to ${answer.metadata.query.endTime}`);
  for (const note of notes) ctx.printer.note(note);
}

// ---- a stack --------------------------------------------------------------------------------

export interface CostRow {
  kind: string;
  name: string;
  id: string;
  source: StackResource["source"];
  lastSeen?: string;
  /** The rate the state recorded, $/hr (null: it records none). */
  costPerHour: number | null;
  /** Actual dollars ÷ that rate; null when it records no rate above 0 (a stopped pod, a volume) or no billing route covers it. */
  hoursBilled: number | null;
  /** Null: no billing route covers the kind. */
  actual: number | null;
}

const ROW_COLUMNS: Array<Column<CostRow>> = [
  { header: "KIND", value: (r) => r.kind },
  { header: "NAME", value: (r) => r.name },
  { header: "ID", value: (r) => r.id },
  { header: "IN STACK", value: (r) => (r.source === "state" ? "yes" : `destroyed (last seen ${r.lastSeen?.slice(0, 16).replace("T", " ")})`) },
  { header: "$/HR (STATE)", value: (r) => (r.costPerHour === null ? undefined : money(r.costPerHour)), align: "right" },
  { header: "HOURS", value: (r) => (r.hoursBilled === null ? undefined : r.hoursBilled.toFixed(2)), align: "right" },
  { header: "ACTUAL", value: (r) => (r.actual === null ? "no billing route" : money(r.actual)), align: "right" },
];

/** Each record of the routes, by the id it bills. */
function recordsById(answers: Map<BillingRoute, BillingAnswer>): Map<string, BillingRecord[]> {
  const byId = new Map<string, BillingRecord[]>();
  for (const [route, answer] of answers) {
    const member = BILLING_ROUTES[route].idFilter;
    if (!member) continue;
    for (const record of answer.records) {
      const id = record[member];
      if (typeof id !== "string") continue;
      byId.set(id, [...(byId.get(id) ?? []), record]);
    }
  }
  return byId;
}

async function stackReport(ctx: Context, stack: StackResources, window: { start: number; end: number }, flags: CostFlags): Promise<void> {
  const client = ctx.sdk();
  const routes = [...new Set(stack.resources.map((r) => BILLING_ROUTE_OF_KIND[r.kind]).filter((r) => r !== undefined))];
  const answers = new Map<BillingRoute, BillingAnswer>();
  await withSpinner("Reading billing", async () => {
    for (const route of routes) answers.set(route, await client.billing.read(route, { startTime: iso(window.start), endTime: iso(window.end), bucketSize: "hour" }));
  });
  const byId = recordsById(answers);
  // What bills: the kinds a route covers; a sandbox is listed with no amount, the free kinds not at all.
  const listed = stack.resources.filter((r) => BILLING_ROUTE_OF_KIND[r.kind] !== undefined || r.kind === "Sandbox");
  const rows: CostRow[] = listed.map((resource) => {
    const covered = BILLING_ROUTE_OF_KIND[resource.kind] !== undefined;
    const records = byId.get(resource.id) ?? [];
    const actual = records.reduce((sum, r) => sum + r.totalAmount, 0);
    const hours = covered && resource.costPerHour !== null && resource.costPerHour > 0 ? actual / resource.costPerHour : null;
    return { ...resource, hoursBilled: hours, actual: covered ? roundMicros(actual) : null };
  });
  const total = roundMicros(rows.reduce((sum, r) => sum + (r.actual ?? 0), 0));
  const notes = caveats([...answers.values()], window.end);
  const sandboxes = rows.filter((r) => r.actual === null).length;
  if (sandboxes > 0) notes.push(`${sandboxes} sandbox(es) not in the total: the service's billing routes have no sandbox records.`);
  if (!stack.history.read) notes.push(`Resources the stack destroyed in the window are not listed: ${stack.history.why}.`);
  else notes.push(`Destroyed resources come from the backend's history (${stack.history.checkpoints} checkpoint(s) of the window); the others from the stack's state.`);
  const days = byDay(rows, byId);
  // What the amounts cover: the window widened to whole hours, as the service read it.
  const query = { startTime: iso(bucketStart(window.start, "hour")), endTime: iso(bucketStart(window.end - 1, "hour") + HOUR_MS) };
  if (ctx.format !== "table") {
    ctx.printer.data({ stack: stack.stack, window: query, resources: rows, ...(flags.by === "day" ? { days } : {}), total, notes });
    return;
  }
  if (flags.by === "day") ctx.printer.line(tableOf(days, [{ header: "DAY (UTC)", value: (d) => d.day }, { header: "ACTUAL", value: (d) => money(d.actual), align: "right" }]));
  else if (rows.length === 0) ctx.printer.line(`Stack ${stack.stack} holds nothing that bills.`);
  else ctx.printer.line(tableOf(rows, ROW_COLUMNS));
  ctx.printer.line(`Total: ${money(total)} for stack ${stack.stack} from ${query.startTime} to ${query.endTime}`);
  for (const note of notes) ctx.printer.note(note);
}

/** The stack's spend per UTC day, from its resources' hour records. */
function byDay(rows: CostRow[], byId: Map<string, BillingRecord[]>): Array<{ day: string; actual: number }> {
  const days = new Map<string, number>();
  for (const row of rows) for (const record of byId.get(row.id) ?? []) days.set(record.startTime.slice(0, 10), (days.get(record.startTime.slice(0, 10)) ?? 0) + record.totalAmount);
  return [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, actual]) => ({ day, actual: roundMicros(actual) }));
}
