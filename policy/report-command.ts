/**
 * `node dist/policy/report-command.js --preview <preview.json> --state <state.json>
 * [--policy-config <policy config.json>] [--preview-exit-code <n>]`: prints the Markdown of
 * cost-report.ts for a change (examples/gitops/pull-request.sh runs it).
 *
 * - `--preview`: what `pulumi preview --json --show-sames` printed (the stack after the change);
 * - `--state`: what `pulumi stack export` printed (the stack before it);
 * - `--policy-config`: the file given to `--policy-pack-config`, for the budget;
 * - `--preview-exit-code`: the preview's exit code, reported when it failed.
 *
 * Prices come from the stack's service, found as the policy pack finds it: the stack's
 * `compute:*` configuration in `PULUMI_CONFIG` (a JSON object of key → value, what the engine
 * hands an analyzer), then the COMPUTE_* environment. One catalog read serves both sides. Beside
 * the estimate, what the resources deployed now were billed over the last 7 days (one billing
 * read per kind they are, GETs only).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { PriceList } from "../contract/estimate";
import { ESTIMATE_TIMEOUT_SECONDS, readPrices, unreadableCatalog } from "../provider/resources/estimate";
import { costReport, previewResources, stateOutputs, stateResources, type PreviewDigest, type ReportInput, type StateExport } from "./cost-report";
import { billedById, billedIds } from "./month";
import { policyClient } from "./settings";
import { estimateStack, listsNeededBy } from "./stack-estimate";

function readJson<T>(file: string, what: string): T {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch (error) {
    throw new Error(`${what} ${file}: ${(error as Error).message}`);
  }
}

/** `compute-budget.maxDollarsPerHour` of a policy pack configuration file, when it sets one. */
export function budgetOf(config: unknown): number | undefined {
  const budget = (config as Record<string, unknown> | null)?.["compute-budget"];
  const max = budget && typeof budget === "object" ? (budget as Record<string, unknown>).maxDollarsPerHour : undefined;
  return typeof max === "number" ? max : undefined;
}

/** The days of billing the report shows beside the estimate. */
const RECENT_DAYS = 7;

/**
 * What the resources deployed now were billed over the last `days`, in whole hours up to the
 * start of the current one (GETs only): an hour still being billed would make the comment a
 * bot posts again for the same change read differently. Why not, when it cannot be read.
 */
async function lastDays(state: StateExport, days: number): Promise<NonNullable<ReportInput["actual"]>> {
  const entries = billedIds(stateOutputs(state));
  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const until = new Date(end).toISOString();
  if (entries.length === 0) return { days, until, byUrn: new Map() };
  let client: ReturnType<typeof policyClient> | undefined;
  try {
    client = policyClient();
    const billed = await billedById(entries, client, end - days * 86_400_000, end, "hour");
    return { days, until, byUrn: new Map(entries.map((entry) => [entry.urn, billed.get(entry.id) ?? 0])) };
  } catch (error) {
    return { days, until, unavailable: error instanceof Error ? error.message : String(error) };
  } finally {
    await client?.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      preview: { type: "string" },
      state: { type: "string" },
      "policy-config": { type: "string" },
      "preview-exit-code": { type: "string" },
    },
  });
  if (!values.preview || !values.state) throw new Error("--preview <pulumi preview --json output> and --state <pulumi stack export output> are required");
  const preview = readJson<PreviewDigest>(values.preview, "--preview");
  const state = readJson<StateExport>(values.state, "--state");
  const maxDollarsPerHour = values["policy-config"] ? budgetOf(readJson(values["policy-config"], "--policy-config")) : undefined;
  const exitCode = values["preview-exit-code"] !== undefined ? Number(values["preview-exit-code"]) : undefined;

  const beforeResources = stateResources(state);
  const afterResources = previewResources(preview);
  const needed = listsNeededBy([...beforeResources, ...afterResources]);
  let prices: PriceList = {};
  let failure: string | undefined;
  if (needed.gpuTypes || needed.cpuFlavors) {
    const signal = AbortSignal.timeout(ESTIMATE_TIMEOUT_SECONDS * 1000);
    try {
      prices = await readPrices(policyClient(), needed, signal);
    } catch (error) {
      failure = unreadableCatalog(error, signal);
    }
  }
  const actual = await lastDays(state, RECENT_DAYS);
  process.stdout.write(
    costReport({
      actual,
      before: estimateStack(beforeResources, prices, failure),
      after: estimateStack(afterResources, prices, failure),
      preview,
      maxDollarsPerHour,
      previewExitCode: exitCode,
    }),
  );
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`cost report: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
