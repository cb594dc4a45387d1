/**
 * `compute reap`: enforces the lifetimes and idle rules that stacks declared (docs/provider.md,
 * "Lifetimes"), with nothing but an API key: no program, no state, no laptop. The work is the
 * SDK's (sdk/lifetimes.ts); this prints a line per resource (what, why, since when, what it cost
 * meanwhile, what was done).
 *
 * A dry run unless `--apply`: nothing that stops or deletes acts by default. The scope is always
 * explicit (`--stack`, repeatable, or `--all-stacks`): a reaper for one stack never touches
 * another's resources. Unmanaged resources and resources without a lifetime are never touched.
 */
import { randomBytes } from "node:crypto";
import { Command, InvalidArgumentError, Option } from "commander";
import { describeOutcome, reap, type ReapOutcome } from "../../sdk";
import type { Context } from "../context";
import { CliFailure, UsageError } from "../errors";
import { collect } from "../parsers";
import { withSpinner } from "../spinner";
import { action, examples } from "./shared";

interface ReapFlags {
  apply?: boolean;
  dryRun?: boolean;
  stack?: string[];
  allStacks?: boolean;
  reaperId?: string;
  claimWait: number;
}

function reaperId(value: string): string {
  if (!/^[0-9a-z]{1,32}$/.test(value)) throw new InvalidArgumentError("1 to 32 lower-case letters and digits.");
  return value;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 60) throw new InvalidArgumentError("a number of seconds from 0 to 60.");
  return n;
}

export function reapCommand(): Command {
  const command = new Command("reap")
    .description(
      "Stop or terminate what is past the lifetime or idle rule its stack declared (`lifetime`, `idle` on Pod, Cluster, ServerlessEndpoint): a dry run unless --apply. Only resources that carry both a stack's owner mark and a lifetime are ever touched",
    )
    .addOption(new Option("--apply", "act: stop, terminate, scale to zero (default: a dry run that only says what it would do)").conflicts("dryRun"))
    .option("--dry-run", "say what would be done, change nothing (the default)")
    .addOption(new Option("--stack <project/stack>", "only this stack's resources (repeat for several)").argParser(collect).conflicts("allStacks"))
    .option("--all-stacks", "every stack's resources on the account")
    .addOption(new Option("--reaper-id <id>", "this reaper's name in its claims (default: random)").argParser(reaperId))
    .addOption(new Option("--claim-wait <seconds>", "how long a claim settles before acting: two reapers at once act once").argParser(seconds).default(2))
    .action(action((ctx, flags: ReapFlags) => run(ctx, flags)));
  examples(command, [
    "compute reap --stack ml/dev",
    "compute reap --stack ml/dev --apply",
    "compute reap --all-stacks --apply --json",
  ]);
  return command;
}

async function run(ctx: Context, flags: ReapFlags): Promise<void> {
  if (!flags.stack && !flags.allStacks) throw new UsageError("say whose resources: --stack <project/stack> (repeatable) or --all-stacks");
  for (const stack of flags.stack ?? []) if (!/^[^/\s]+\/[^/\s]+$/.test(stack)) throw new UsageError(`--stack ${stack}: expected <project>/<stack>, e.g. ml/dev`);
  const client = ctx.sdk();
  const apply = flags.apply === true;
  const report = await withSpinner(apply ? "Reaping" : "Looking for what is due (dry run)", () =>
    reap(client, { apply, stacks: flags.stack, reaperId: flags.reaperId ?? randomBytes(4).toString("hex"), claimWaitMs: flags.claimWait * 1000 }),
  );
  for (const { kind, message } of report.unreadable) ctx.printer.note(`(${kind}s not read: ${message})`);
  const now = client.http.serverNow();
  if (ctx.format !== "table") ctx.printer.data({ applied: apply, outcomes: report.outcomes.map((outcome) => ({ ...outcome, line: describeOutcome(outcome, now) })), unreadable: report.unreadable });
  else {
    for (const outcome of report.outcomes) ctx.printer.line(describeOutcome(outcome, now));
    ctx.printer.line(summary(report.outcomes, apply));
  }
  // What was due and could not be done may still bill: a scheduled job must show red.
  const failed = report.outcomes.filter((outcome) => outcome.failed).length;
  if (failed > 0) throw new CliFailure(`${failed} resource${failed === 1 ? "" : "s"} due could not be stopped or ended (see the lines above)`);
}

function summary(outcomes: ReapOutcome[], apply: boolean): string {
  const due = outcomes.filter((o) => o.verdict.do === "act").length;
  const scope = `${outcomes.length} resource${outcomes.length === 1 ? "" : "s"} with a lifetime`;
  if (!apply) return `${scope}; ${due} due${due > 0 ? ": run again with --apply to act" : ""} (dry run: nothing changed)`;
  const failed = outcomes.filter((o) => o.failed).length;
  return `${scope}; ${due} due${failed > 0 ? `, ${failed} of them not handled` : " and handled"}`;
}
