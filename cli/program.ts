/**
 * The `compute` command tree, its global flags, and the run loop that turns the outcome into an
 * exit code (see errors.ts). Every command talks to the service through the SDK only.
 */
import { Command, Option } from "commander";
import { ENV } from "../sdk/config";
import { packageVersion } from "../sdk/version";
import { describeFailure, EXIT_OK, redact, registerSecret } from "./errors";
import { OUTPUT_FORMATS } from "./output";
import { catalogCommand } from "./commands/catalog";
import { costCommand } from "./commands/cost";
import { hubCommand } from "./commands/hub";
import { psCommand } from "./commands/ps";
import { reapCommand } from "./commands/reap";
import { sandboxCommand } from "./commands/sandbox";
import { serverlessCommand } from "./commands/serverless";
import { examples } from "./commands/shared";

export function buildProgram(): Command {
  const program = new Command("compute")
    .description("Command-line tool of the Compute Service REST API v2: what runs on the account and what it costs, the Hub, serverless endpoints from the Hub, sandboxes and the catalog")
    .version(packageVersion(), "-V, --version", "print the version")
    .addOption(new Option("--base-url <url>", "service base URL, without /v2").env(ENV.baseUrl))
    .addOption(new Option("--api-key <key>", "API key (prefer the variable: flags show up in process lists)").env(ENV.apiKey))
    .addOption(new Option("--team-id <id>", "team to act for (console sessions only)").env(ENV.teamId))
    .addOption(new Option("-o, --output <format>", "output format (default: table)").choices([...OUTPUT_FORMATS]).env("COMPUTE_OUTPUT"))
    .addOption(new Option("--json", "same as --output json"))
    // Settings below are inherited by every subcommand added after them.
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(redact(text)) })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError("(add --help for usage)");

  program.addHelpText(
    "after",
    `
Configuration: flags first, then the variables COMPUTE_BASE_URL, COMPUTE_API_KEY,
COMPUTE_TEAM_ID and COMPUTE_OUTPUT.
Exit codes: 0 success; 1 the request failed (API, connection or configuration error);
2 usage error (unknown command or flag, bad value), found before any request.`,
  );
  examples(program, [
    "export COMPUTE_BASE_URL=https://api.example.com COMPUTE_API_KEY=...",
    "compute ps",
    "compute cost --stack dev --since 7d",
    "compute reap --stack ml/dev --apply",
    "compute hub list --type SERVERLESS",
    "compute serverless create --hub-id hub_662work --name my-llm",
    "compute sandbox logs sb_123 --follow",
    "compute catalog gpus --json",
  ]);

  for (const make of [psCommand, costCommand, reapCommand, hubCommand, serverlessCommand, sandboxCommand, catalogCommand]) {
    const command = make();
    // Commands built on their own did not inherit the settings above: copy them down the tree.
    inherit(command, program);
    program.addCommand(command);
  }
  return program;
}

function inherit(command: Command, from: Command): void {
  command.copyInheritedSettings(from);
  for (const sub of command.commands) inherit(sub, from);
}

/** Runs the CLI on `argv` (node, script, ...args) and returns the exit code. */
export async function run(argv: string[]): Promise<number> {
  // Known before parsing, so that no message printed while parsing can carry the key either.
  registerSecret(process.env[ENV.apiKey]);
  for (const [i, arg] of argv.entries()) {
    if (arg === "--api-key") registerSecret(argv[i + 1]);
    else if (arg.startsWith("--api-key=")) registerSecret(arg.slice("--api-key=".length));
  }
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    const { lines, exitCode } = describeFailure(error);
    for (const line of lines) process.stderr.write(`${redact(line)}\n`);
    if (process.env.COMPUTE_DEBUG === "1" && error instanceof Error && error.stack && exitCode !== EXIT_OK) {
      process.stderr.write(`${redact(error.stack)}\n`);
    }
    return exitCode;
  }
}
