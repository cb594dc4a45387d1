/**
 * How a failure becomes an exit code and a message on stderr, in one place.
 *
 * Exit codes (docs/cli.md#exit-codes):
 *   0  success (also `--help`, `--version`, and Ctrl-C during `sandbox logs --follow`)
 *   1  the request failed: an API error, a connection failure, missing or bad configuration
 *   2  usage: unknown command or flag, bad or missing flag value or argument, found before
 *      any request is sent (or, for `serverless create --gpu-id`, before the create is sent)
 *
 * A message never carries a stack trace (unless COMPUTE_DEBUG=1) and never the API key.
 */
import { CommanderError } from "commander";
import { ApiError, ComputeError, RateLimitError } from "../sdk/errors";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A bad command line found by the CLI itself (after commander has parsed it). */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose `--help` explains the mistake, e.g. `compute serverless create`. */
    readonly command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** Missing or malformed settings (base URL, API key); names the flag and the variable. */
export class CliConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "CliConfigError";
  }
}

/** A failure that is not the CLI's fault and not an API answer (e.g. a repo with no release). */
export class CliFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CliFailure";
  }
}

/** Strings that must never reach the terminal (the API key). Registered as soon as it is known. */
const secrets = new Set<string>();
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  return out;
}

/** Lines to print on stderr and the exit code for an error thrown while running a command. */
export function describeFailure(error: unknown): { lines: string[]; exitCode: number } {
  // commander has already printed its message (or the help, or the version): only the code is left.
  if (error instanceof CommanderError) return { lines: [], exitCode: error.exitCode === 0 ? EXIT_OK : EXIT_USAGE };
  if (error instanceof UsageError) {
    const lines = [`error: ${error.message}`];
    if (error.command) lines.push(`(run "${error.command} --help" for usage)`);
    return { lines, exitCode: EXIT_USAGE };
  }
  if (error instanceof CliConfigError) return { lines: error.problems.map((p) => `error: ${p}`), exitCode: EXIT_FAILURE };
  if (error instanceof ApiError) return { lines: describeApiError(error), exitCode: EXIT_FAILURE };
  // Every other SDK error (configuration, validation, connection, unreadable answer, placement)
  // says it all in its message (a list of violations one per line).
  if (error instanceof CliFailure || error instanceof ComputeError) return { lines: [`error: ${error.message}`], exitCode: EXIT_FAILURE };
  const message = error instanceof Error ? error.message : String(error);
  return { lines: [`error: unexpected failure: ${message}`, "(set COMPUTE_DEBUG=1 to see where it happened)"], exitCode: EXIT_FAILURE };
}

function describeApiError(error: ApiError): string[] {
  const { method, path } = error.request;
  const code = error.code ? ` [${error.code}]` : "";
  const lines = [`error: ${method} ${path} failed with ${error.status} ${error.title}: ${error.detail}${code}`];
  for (const entry of error.errors) lines.push(`  - ${entry}`);
  if (error.status === 401) lines.push("hint: check the API key (--api-key or COMPUTE_API_KEY)");
  if (error instanceof RateLimitError && error.retryAfterSeconds !== undefined) {
    lines.push(`hint: the service asked to wait ${error.retryAfterSeconds} s before trying again`);
  }
  return lines;
}
