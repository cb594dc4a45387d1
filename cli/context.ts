/**
 * What every command gets: the global settings (flags first, then COMPUTE_* variables — the
 * variables reach the flags through commander's `.env()`), a printer for the chosen format,
 * and an SDK client made on first use, so a usage error never needs a key.
 */
import type { Command } from "commander";
import type { ComputeClient } from "../sdk/client";
import { ENV, resolveSettings, type SettingProblem } from "../sdk/config";
import { packageVersion } from "../sdk/version";
import { CliConfigError, registerSecret, UsageError } from "./errors";
import { Printer, type OutputFormat } from "./output";

export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  teamId?: string;
  output?: OutputFormat;
  json?: boolean;
}

/** A settings problem as the CLI words it: the flag to pass and the variable to set. */
function cliWording(problem: SettingProblem): string {
  if (problem.problem === "not-http") return `--base-url / ${ENV.baseUrl} must be an http:// or https:// URL, got "${problem.value}"`;
  return problem.setting === "baseUrl" ? `no service URL: pass --base-url <url> or set ${ENV.baseUrl}` : `no API key: pass --api-key <key> or set ${ENV.apiKey}`;
}

export class Context {
  readonly printer: Printer;
  private client?: ComputeClient;

  constructor(
    readonly globals: GlobalOptions,
    /** The command line that ran, e.g. `compute hub list`, for hints in messages. */
    readonly commandPath: string,
    /** Where `--output` came from: `cli`, `env` (COMPUTE_OUTPUT) or undefined. */
    outputSource?: string,
  ) {
    registerSecret(globals.apiKey);
    // --json beats COMPUTE_OUTPUT, but contradicts an explicit --output table|yaml.
    if (globals.json && outputSource === "cli" && globals.output !== "json") {
      throw new UsageError(`--json contradicts --output ${globals.output}: give one of them`, commandPath);
    }
    this.printer = new Printer(globals.json ? "json" : (globals.output ?? "table"));
  }

  static of(command: Command): Context {
    const names: string[] = [];
    for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
    return new Context(command.optsWithGlobals<GlobalOptions>(), names.join(" "), command.getOptionValueSourceWithGlobals("output"));
  }

  get format(): OutputFormat {
    return this.printer.format;
  }

  /** The SDK client; fails with the flag and variable to set when a setting is missing. */
  sdk(): ComputeClient {
    if (this.client) return this.client;
    // The variables reach the flags through commander's `.env()` (which lists them in --help).
    const resolved = resolveSettings([this.globals]);
    if (!resolved.ok) throw new CliConfigError(resolved.problems.map(cliWording));
    // Required here, not imported above: the client and its HTTP stack (undici) cost ~70 ms of
    // start-up that `--help` and usage errors do not need.
    const { ComputeClient: Client } = require("../sdk/client") as typeof import("../sdk/client");
    this.client = new Client({ ...resolved.settings, userAgent: `compute-cli/${packageVersion()}`, env: {} });
    return this.client;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
