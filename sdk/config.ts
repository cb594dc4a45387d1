/**
 * Client configuration: explicit options first, then the COMPUTE_* environment variables.
 * A missing key or base URL fails here, before any request, with a message naming both ways
 * to set it. The key itself never appears in a message.
 */
import { bulleted, ConfigurationError } from "./errors";
import type { RetrySettings } from "./retry";
import { packageVersion } from "./version";

export interface ClientOptions {
  /** Service base URL without the `/v2` prefix. Default: `COMPUTE_BASE_URL`. */
  baseUrl?: string;
  /** Bearer API key. Default: `COMPUTE_API_KEY`. */
  apiKey?: string;
  /** Team to act for (sent as `X-Team-Id`). Default: `COMPUTE_TEAM_ID`. */
  teamId?: string;
  /** Whole-request timeout per attempt, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Attempts after the first for 5xx and connection failures. Default 4. */
  maxRetries?: number;
  /** Attempts after the first for 429 responses. Default 10. */
  maxRateLimitRetries?: number;
  /** Upper bound on one wait taken from `Retry-After`, in milliseconds. Default 60000. */
  maxRetryAfterMs?: number;
  /** First backoff delay for 5xx and connection failures, in milliseconds. Default 500. */
  initialBackoffMs?: number;
  /** Largest backoff delay, in milliseconds. Default 8000. */
  maxBackoffMs?: number;
  userAgent?: string;
  /** Environment to read defaults from (tests pass their own). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export interface ResolvedConfig extends RetrySettings {
  baseUrl: string;
  apiKey: string;
  teamId?: string;
  timeoutMs: number;
  userAgent: string;
}

export const ENV = {
  baseUrl: "COMPUTE_BASE_URL",
  apiKey: "COMPUTE_API_KEY",
  teamId: "COMPUTE_TEAM_ID",
} as const;

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export function resolveConfig(options: ClientOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;
  const baseUrl = nonEmpty(options.baseUrl) ?? nonEmpty(env[ENV.baseUrl]);
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env[ENV.apiKey]);
  const problems: string[] = [];
  if (!baseUrl) problems.push(`baseUrl: is required (pass baseUrl or set ${ENV.baseUrl})`);
  else if (!/^https?:\/\/[^/]/.test(baseUrl)) problems.push("baseUrl: must be an http:// or https:// URL");
  if (!apiKey) problems.push(`apiKey: is required (pass apiKey or set ${ENV.apiKey})`);
  if (problems.length > 0) throw new ConfigurationError(`Compute client configuration is incomplete:\n${bulleted(problems)}`);
  return {
    baseUrl: baseUrl!.replace(/\/+$/, "").replace(/\/v2$/, ""),
    apiKey: apiKey!,
    teamId: nonEmpty(options.teamId) ?? nonEmpty(env[ENV.teamId]),
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 4,
    maxRateLimitRetries: options.maxRateLimitRetries ?? 10,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    initialBackoffMs: options.initialBackoffMs ?? 500,
    maxBackoffMs: options.maxBackoffMs ?? 8_000,
    userAgent: options.userAgent ?? `pulumi-compute-sdk/${packageVersion()}`,
  };
}
