/**
 * The Markdown a pull-request bot posts for a change (examples/gitops/): what the preview will
 * do, and what it does to the stack's estimated cost per hour — the stack as it is (its state)
 * against the stack as the change declares it (the preview), both estimated with the same rule
 * and the same catalog read, so adding one pod raises the estimate by exactly that pod's.
 *
 * Pure: report-command.ts reads the files and the catalog.
 */
import { formatDollars, roundPrice } from "../contract/estimate";
import { biggest, budgetViolation, type ResourceEstimate, type StackEstimate, type StackResource } from "./stack-estimate";

/** What `pulumi preview --json --show-sames` prints (the members read here). */
export interface PreviewDigest {
  steps?: Array<{
    op: string;
    urn: string;
    oldState?: { type: string; inputs?: Record<string, unknown> };
    newState?: { type: string; inputs?: Record<string, unknown> };
  }>;
  changeSummary?: Record<string, number>;
  diagnostics?: Array<{ message: string; severity: string; urn?: string }>;
}

/** What `pulumi stack export` prints (the members read here). */
export interface StateExport {
  deployment?: { resources?: Array<{ urn: string; type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; delete?: boolean }> };
}

const nameOf = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);

/** Steps after which a resource is gone (or was never the stack's). */
const GONE = new Set(["delete", "delete-replaced", "discard", "discard-replaced", "remove-pending-replace", "read-discard"]);

/**
 * The stack now: its state's resources, with their recorded inputs. A resource marked for
 * deletion (the old half of a replacement an earlier run left) is not the stack's any more.
 */
export function stateResources(state: StateExport): StackResource[] {
  return (state.deployment?.resources ?? [])
    .filter((r) => !r.delete)
    .map((r) => ({ type: r.type, urn: r.urn, name: nameOf(r.urn), props: r.inputs ?? {} }));
}

/** The stack now with what each resource recorded of itself (its id among it), for what it was billed. */
export function stateOutputs(state: StateExport): StackResource[] {
  return (state.deployment?.resources ?? [])
    .filter((r) => !r.delete)
    .map((r) => ({ type: r.type, urn: r.urn, name: nameOf(r.urn), props: { ...(r.inputs ?? {}), ...(r.outputs ?? {}) } }));
}

/** The stack after the change: every resource the preview keeps or makes, with its new inputs. */
export function previewResources(preview: PreviewDigest): StackResource[] {
  const byUrn = new Map<string, StackResource>();
  for (const step of preview.steps ?? []) {
    if (GONE.has(step.op) || !step.newState) continue;
    byUrn.set(step.urn, { type: step.newState.type, urn: step.urn, name: nameOf(step.urn), props: step.newState.inputs ?? {} });
  }
  return [...byUrn.values()];
}

/** What the provider records for itself next to a resource's inputs: never a user's change. */
const BOOKKEEPING = new Set(["__provider", "ownerMark", "secretInputs", "namePrefix", "nameGenerated"]);

function changedInputs(step: NonNullable<PreviewDigest["steps"]>[number]): string[] {
  const olds = step.oldState?.inputs ?? {};
  const news = step.newState?.inputs ?? {};
  return [...new Set([...Object.keys(olds), ...Object.keys(news)])]
    .filter((key) => !BOOKKEEPING.has(key) && JSON.stringify(olds[key]) !== JSON.stringify(news[key]))
    .sort();
}

const dollars = (e: ResourceEstimate | undefined) => (e?.outcome.ok ? e.outcome.estimate.dollarsPerHour : undefined);
const cell = (d: number | undefined, e: ResourceEstimate | undefined) => (d !== undefined ? formatDollars(d) : e ? "unknown" : "—");

/** `+2.99`, `-1.50`, `0.00`. */
export function signedDollars(delta: number): string {
  const rounded = roundPrice(delta);
  return `${rounded > 0 ? "+" : rounded < 0 ? "-" : ""}${formatDollars(Math.abs(rounded))}`;
}

export interface ReportInput {
  before: StackEstimate;
  after: StackEstimate;
  preview: PreviewDigest;
  /** The stack's budget (`compute-budget.maxDollarsPerHour`), when one is configured. */
  maxDollarsPerHour?: number;
  /** The preview's exit code: non-zero when the policy pack (or anything else) failed it. */
  previewExitCode?: number;
  /**
   * What the resources deployed now were billed over the last `days` whole hours' worth of days
   * up to `until` (an hour's start, ISO 8601), by URN; or why it could not be read.
   */
  actual?: { days: number; until: string; byUrn: Map<string, number> } | { days: number; until: string; unavailable: string };
}

/** The line beside the estimate: what the stack deployed now was billed lately. */
function actualLine(actual: NonNullable<ReportInput["actual"]>, before: StackEstimate): string {
  const label = `Last ${actual.days} days to ${actual.until.slice(0, 13).replace("T", " ")}:00 UTC, actual`;
  if ("unavailable" in actual) return `${label}: unavailable (${actual.unavailable}).`;
  const total = [...actual.byUrn.values()].reduce((sum, d) => sum + d, 0);
  const kindOf = new Map(before.resources.map((e) => [e.urn, e.kind]));
  const named = (urn: string) => `${kindOf.get(urn) ?? "resource"} ${nameOf(urn)}`;
  const top = [...actual.byUrn].filter(([, d]) => d > 0).sort(([ua, a], [ub, b]) => b - a || ua.localeCompare(ub)).slice(0, 3);
  const most = top.length > 0 ? ` (most: ${top.map(([urn, d]) => `${named(urn)} $${formatDollars(d)}`).join(", ")})` : "";
  return `${label}: $${formatDollars(total)} billed for the ${actual.byUrn.size} resource${actual.byUrn.size === 1 ? "" : "s"} deployed now that bill${most}. Resources removed earlier are not counted, and billing may lag by hours.`;
}

export function costReport(input: ReportInput): string {
  const { before, after, preview } = input;
  const delta = roundPrice(after.dollarsPerHour - before.dollarsPerHour);
  const lines: string[] = [];
  lines.push(`### Compute cost of this change: ${signedDollars(delta)} $/hr`, "");
  lines.push("| stack | estimated $/hr |", "| --- | ---: |");
  lines.push(`| before (as deployed) | ${formatDollars(before.dollarsPerHour)} |`);
  lines.push(`| after (this change) | ${formatDollars(after.dollarsPerHour)} |`);
  lines.push(`| **change** | **${signedDollars(delta)}** |`, "");
  if (input.actual) lines.push(actualLine(input.actual, before), "");

  if (input.maxDollarsPerHour !== undefined) {
    const violation = budgetViolation(after, input.maxDollarsPerHour);
    lines.push(violation ? `**Over budget** — ${violation}.` : `Within the budget of ${formatDollars(input.maxDollarsPerHour)} $/hr.`, "");
  }
  if (input.previewExitCode !== undefined && input.previewExitCode !== 0) {
    const errors = (preview.diagnostics ?? []).filter((d) => d.severity === "error").map((d) => d.message.trim().replace(/^error: /, ""));
    lines.push(`**The preview failed** (exit code ${input.previewExitCode})${errors.length ? `: ${errors.join("; ")}` : ""}.`, "");
  }

  // Every pod and sandbox of either side, those the change costs or saves first.
  const beforeByUrn = new Map(before.resources.map((e) => [e.urn, e]));
  const afterByUrn = new Map(after.resources.map((e) => [e.urn, e]));
  const urns = [...new Set([...after.resources.map((e) => e.urn), ...before.resources.map((e) => e.urn)])];
  const rows = urns.map((urn) => {
    const b = beforeByUrn.get(urn);
    const a = afterByUrn.get(urn);
    const change = (dollars(a) ?? 0) - (dollars(b) ?? 0);
    return { urn, b, a, change, label: `${(a ?? b)!.kind} ${(a ?? b)!.name}` };
  });
  // Sorted, so the comment a bot posts again for the same change reads the same.
  rows.sort((x, y) => Number(roundPrice(y.change) !== 0) - Number(roundPrice(x.change) !== 0) || x.label.localeCompare(y.label));
  if (rows.length > 0) {
    lines.push("| resource | before $/hr | after $/hr | change |", "| --- | ---: | ---: | ---: |");
    for (const row of rows) {
      lines.push(`| ${row.label} | ${cell(dollars(row.b), row.b)} | ${cell(dollars(row.a), row.a)} | ${signedDollars(row.change)} |`);
    }
    lines.push("");
  }
  const unknown = after.unavailable.map((e) => `${e.kind} ${e.name}: ${e.outcome.ok ? "" : e.outcome.reason}`);
  if (unknown.length > 0) lines.push(`Without an estimate (not counted): ${unknown.join("; ")}.`, "");

  const steps = (preview.steps ?? [])
    .filter((s) => s.op !== "same" && !s.urn.includes("::pulumi:pulumi:Stack::"))
    .sort((x, y) => nameOf(x.urn).localeCompare(nameOf(y.urn)));
  lines.push("#### Planned changes", "");
  if (steps.length === 0) lines.push("No resource changes.", "");
  else {
    lines.push("| operation | resource | type | changed inputs |", "| --- | --- | --- | --- |");
    for (const step of steps) {
      const type = step.newState?.type ?? step.oldState?.type ?? "";
      const changed = step.op === "create" || GONE.has(step.op) ? "" : changedInputs(step).join(", ");
      lines.push(`| ${step.op} | ${nameOf(step.urn)} | \`${type}\` | ${changed} |`);
    }
    lines.push("");
  }
  const top = biggest(after);
  if (top.length > 0) lines.push(`Biggest after the change: ${top.map((e) => `${e.kind} ${e.name} ${formatDollars(dollars(e)!)} $/hr`).join(", ")}.`, "");
  lines.push(
    "<sub>Estimates at today's catalog list prices: each pod at its worst placement candidate, sandboxes at the sandbox rate; storage is not priced, prices change, and availability is not a reservation (docs/cost.md).</sub>",
  );
  return `${lines.join("\n")}\n`;
}
