/**
 * `compute sandbox list|logs|set-idle-timeout|terminate` (v2 document, sandbox operations).
 *
 * `logs --follow` leans on the SDK's stream: a dropped connection is resumed with
 * `Last-Event-ID` and already delivered ids are skipped (no line lost or repeated), and a 409
 * `sandbox_starting` is waited out. Ctrl-C ends the stream and exits 0.
 */
import { Command, Option } from "commander";
import type { LogEvent, Sandbox } from "../../sdk";
import { DEFAULT_LOG_TAIL, LogSource, MAX_LOG_TAIL, MIN_IDLE_TIMEOUT_SECONDS, SandboxState } from "../../contract";
import type { Context } from "../context";
import { shortTime, toYaml, type Column } from "../output";
import { integer, label, nonEmpty, rfc3339 } from "../parsers";
import { startSpinner, withSpinner } from "../spinner";
import { action, examples } from "./shared";

const COLUMNS: Array<Column<Sandbox>> = [
  { header: "ID", value: (s) => s.id },
  { header: "NAME", value: (s) => s.name },
  { header: "STATE", value: (s) => (s.terminationReason ? `${s.state} (${s.terminationReason})` : s.state) },
  { header: "IMAGE", value: (s) => s.image },
  { header: "DATA CENTER", value: (s) => s.dataCenterId },
  { header: "IDLE TIMEOUT", value: (s) => `${s.idleTimeoutSeconds} s`, align: "right" },
  { header: "IDLE EXPIRES", value: (s) => shortTime(s.idleExpiresAt) },
  { header: "EXPIRES", value: (s) => shortTime(s.expiresAt) },
  { header: "LABELS", value: (s) => Object.entries(s.labels).map(([k, v]) => `${k}=${v}`).join(",") },
];

interface LogFlags {
  follow?: boolean;
  source?: LogSource;
  tail?: number;
  since?: string;
}

export function sandboxCommand(): Command {
  const sandbox = new Command("sandbox").description("Short-lived containers: list them, read their logs, change their idle timeout, terminate them");
  examples(sandbox, ["compute sandbox list --state RUNNING", "compute sandbox logs sb_123 --follow"]);

  const list = sandbox
    .command("list")
    .description("List your sandboxes (terminated ones only with --state TERMINATED)")
    .addOption(new Option("--state <state>", "only sandboxes in this state").choices(SandboxState.options))
    .addOption(new Option("--label <key=value>", "only sandboxes carrying this label (repeat: all must match)").argParser(label))
    .action(
      action(async (ctx, flags: { state?: SandboxState; label?: Record<string, string> }) => {
        const rows = await withSpinner("Listing sandboxes", () => ctx.sdk().sandboxes.list({ state: flags.state, labels: flags.label }));
        ctx.printer.list(rows, COLUMNS, { empty: "No sandboxes found." });
      }),
    );
  examples(list, [
    "compute sandbox list",
    "compute sandbox list --state TERMINATED",
    "compute sandbox list --label team=ml --label env=dev --json",
  ]);

  const logs = sandbox
    .command("logs")
    .description("Print a sandbox's log lines as `<ts> [<source>] <line>` (one JSON object per line with --json)")
    .argument("<id>", "sandbox id", nonEmpty)
    .option("-f, --follow", "keep streaming new lines until the container stops or Ctrl-C (resumes across dropped connections)")
    .addOption(new Option("--source <source>", "only the main process's output (container) or lifecycle events (system); default both").choices(LogSource.options))
    .addOption(new Option("--tail <n>", `lines of history to start with (0-${MAX_LOG_TAIL}; service default ${DEFAULT_LOG_TAIL}; ignored with --since)`).argParser(integer(0, MAX_LOG_TAIL)))
    .addOption(new Option("--since <time>", "start at this RFC 3339 time instead of the last --tail lines").argParser(rfc3339))
    .action(action((ctx, id: string, flags: LogFlags) => printLogs(ctx, id, flags)));
  examples(logs, [
    "compute sandbox logs sb_123",
    "compute sandbox logs sb_123 --follow --source container",
    "compute sandbox logs sb_123 --tail 0 --follow",
    "compute sandbox logs sb_123 --since 2026-11-23T10:00:00Z --json",
  ]);

  const idle = sandbox
    .command("set-idle-timeout")
    .description(`Change the idle timeout of a running sandbox; the service raises values under ${MIN_IDLE_TIMEOUT_SECONDS} s and clamps values above the account maximum`)
    .argument("<id>", "sandbox id", nonEmpty)
    .argument("<seconds>", "new idle timeout in seconds", integer(0))
    .action(
      action(async (ctx, id: string, seconds: number) => {
        const updated = await withSpinner(`Updating ${id}`, () => ctx.sdk().sandboxes.setIdleTimeout(id, seconds));
        const applied = updated.idleTimeoutSeconds;
        const clamped = applied !== seconds;
        ctx.printer.message(
          `Idle timeout set to ${applied} s${clamped ? ` (requested ${seconds} s, clamped by the service)` : ""}\n` +
            `Sandbox ${updated.id} will be terminated at ${shortTime(updated.idleExpiresAt)} unless there is activity before then`,
          { id: updated.id, requestedIdleTimeoutSeconds: seconds, idleTimeoutSeconds: applied, clamped, idleExpiresAt: updated.idleExpiresAt },
        );
      }),
    );
  examples(idle, ["compute sandbox set-idle-timeout sb_123 1800", `compute sandbox set-idle-timeout sb_123 30   # raised to ${MIN_IDLE_TIMEOUT_SECONDS} s`]);

  const terminate = sandbox
    .command("terminate")
    .description("Terminate a sandbox (final; terminating a terminated sandbox succeeds and changes nothing)")
    .argument("<id>", "sandbox id", nonEmpty)
    .action(
      action(async (ctx, id: string) => {
        await withSpinner(`Terminating ${id}`, () => ctx.sdk().sandboxes.delete(id));
        ctx.printer.message(`Sandbox ${id} terminated.`, { id, terminated: true });
      }),
    );
  examples(terminate, ["compute sandbox terminate sb_123"]);

  return sandbox;
}

async function printLogs(ctx: Context, id: string, flags: LogFlags): Promise<void> {
  const client = ctx.sdk();
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  const spinner = startSpinner(flags.follow ? `Waiting for log lines of ${id}` : `Reading logs of ${id}`);
  const write = lineWriter(ctx);
  let printed = 0;
  try {
    const events = client.sandboxes.logs(id, {
      follow: flags.follow ?? false,
      source: flags.source,
      tail: flags.tail,
      since: flags.since,
      signal: controller.signal,
    });
    for await (const event of events) {
      spinner.stop();
      printed += 1;
      write(event);
    }
  } catch (error) {
    if (controller.signal.aborted) return; // Ctrl-C: a normal end
    throw error;
  } finally {
    spinner.stop();
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  if ((flags.follow || printed === 0) && !controller.signal.aborted && ctx.format === "table") {
    // A followed stream ends for good only when the container is gone, and an empty history
    // may mean the same: say which (to stderr, for people).
    const sandbox = await client.sandboxes.get(id).catch(() => undefined);
    const state = sandbox ? `${sandbox.state}${sandbox.terminationReason ? `, ${sandbox.terminationReason}` : ""}` : "unknown";
    ctx.printer.note(`(${flags.follow ? "log stream ended" : "no log lines"}: sandbox ${id} is ${state})`);
  }
}

function lineWriter(ctx: Context): (event: LogEvent) => void {
  switch (ctx.format) {
    case "json":
      return (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
    case "yaml":
      return (event) => process.stdout.write(`---\n${toYaml(event)}`);
    default:
      return (event) => process.stdout.write(`${event.ts} [${event.source}] ${event.line}\n`);
  }
}
