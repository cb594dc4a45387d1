/**
 * What every command gets: the global settings (flags first, then COMPUTE_* variables — the
 * variables reach the flags through commander's `.env()`), a printer for the chosen format,
 * and an SDK client made on first use, so a usage error never needs a key.
 */
import type { Command } from "commander";
import type { ComputeClient } from "../sdk";
import { CliConfigError, registerSecret, UsageError } from "./errors";
import { Printer, type OutputFormat } from "./output";
import { packageVersion } from "../sdk/version";

export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  teamId?: string;
  output?: OutputFormat;
  json?: boolean;
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
    const baseUrl = this.globals.baseUrl?.trim();
    const apiKey = this.globals.apiKey?.trim();
    const problems: string[] = [];
    if (!baseUrl) problems.push("no service URL: pass --base-url <url> or set COMPUTE_BASE_URL");
    else if (!/^https?:\/\/[^/]/.test(baseUrl)) problems.push(`--base-url / COMPUTE_BASE_URL must be an http:// or https:// URL, got "${baseUrl}"`);
    if (!apiKey) problems.push("no API key: pass --api-key <key> or set COMPUTE_API_KEY");
    if (problems.length > 0) throw new CliConfigError(problems);
    // Required here, not imported above: the client and its HTTP stack (undici) cost ~70 ms of
    // start-up that `--help` and usage errors do not need.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ComputeClient: Client } = require("../sdk/client") as typeof import("../sdk/client");
    this.client = new Client({
      baseUrl,
      apiKey,
      teamId: this.globals.teamId?.trim() || undefined,
      userAgent: `compute-cli/${packageVersion()}`,
      // The SDK reads COMPUTE_* itself when an option is missing; the CLI has already done so.
      env: {},
    });
    return this.client;
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
