/**
 * Connection settings (where the service is, which API key, which team), resolved by one rule
 * for every face: the SDK's options, the CLI's flags, a stack's configuration for the provider,
 * the native plugin's Configure. A face lists its own sources, most specific first;
 * `resolveSettings` takes each setting from the first source with a non-blank value, then from
 * the COMPUTE_* environment variables, and requires the base URL (an http(s) URL) and the key.
 * Its problems are data: each face words them for its users (an option, a flag, a `pulumi
 * config set`), and none carries the key. What a key is worth (does the service accept it) is
 * a question for the same place, once the settings are complete.
 */
import { bulleted, ConfigurationError } from "./errors";
import type { RetrySettings } from "./retry";
import { packageVersion } from "./version";

/** Every setting and the environment variable it falls back to. */
export const ENV = {
  baseUrl: "COMPUTE_BASE_URL",
  apiKey: "COMPUTE_API_KEY",
  teamId: "COMPUTE_TEAM_ID",
} as const;
export type SettingName = keyof typeof ENV;
export const SETTING_NAMES = Object.keys(ENV) as readonly SettingName[];

/** Settings as one source gives them (options, flags, a stack's configuration): any may be missing or blank. */
export type SettingsSource = { readonly [K in SettingName]?: string };

/**
 * The settings a Pulumi stack's configuration gives, under `compute:<setting>` (the package's
 * namespace): where the provider, the native plugin, a program's functions and the policy pack
 * look first. `get` reads one key (decrypted).
 */
export function fromStackConfig(config: { get(key: string): string | undefined }): SettingsSource {
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, config.get(`compute:${name}`)]));
}

/** Settings a client can be made from. */
export interface ConnectionSettings {
  /** Without a trailing `/` or `/v2`. */
  baseUrl: string;
  apiKey: string;
  teamId?: string;
}

export type SettingProblem =
  | { setting: "baseUrl" | "apiKey"; problem: "missing" }
  | { setting: "baseUrl"; problem: "not-http"; value: string };

export type SettingsResolution = { ok: true; settings: ConnectionSettings } | { ok: false; problems: SettingProblem[] };

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The settings from `sources`, then `env`; the problems in setting order (base URL first). */
export function resolveSettings(sources: readonly SettingsSource[], env: NodeJS.ProcessEnv = process.env): SettingsResolution {
  const pick = (name: SettingName) => [...sources.map((source) => source[name]), env[ENV[name]]].map(nonEmpty).find((value) => value !== undefined);
  const baseUrl = pick("baseUrl");
  const apiKey = pick("apiKey");
  const problems: SettingProblem[] = [];
  if (!baseUrl) problems.push({ setting: "baseUrl", problem: "missing" });
  else if (!/^https?:\/\/[^/]/.test(baseUrl)) problems.push({ setting: "baseUrl", problem: "not-http", value: baseUrl });
  if (!apiKey) problems.push({ setting: "apiKey", problem: "missing" });
  if (problems.length > 0 || !baseUrl || !apiKey) return { ok: false, problems };
  return { ok: true, settings: { baseUrl: baseUrl.replace(/\/+$/, "").replace(/\/v2$/, ""), apiKey, teamId: pick("teamId") } };
}

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
  /** Attempts after the first for 429 responses. Default: as many as `rateLimitDeadlineMs` allows. */
  maxRateLimitRetries?: number;
  /** How long one request keeps retrying 429 answers (honouring `Retry-After`), from the first. Default 600000 (10 minutes). */
  rateLimitDeadlineMs?: number;
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

export interface ResolvedConfig extends ConnectionSettings, RetrySettings {
  timeoutMs: number;
  userAgent: string;
}

/** What the SDK words a problem as: the option to pass or the variable to set. */
function sdkWording(problem: SettingProblem): string {
  if (problem.problem === "not-http") return "baseUrl: must be an http:// or https:// URL";
  return `${problem.setting}: is required (pass ${problem.setting} or set ${ENV[problem.setting]})`;
}

/** The client's settings: `options` first, then `options.env` (default `process.env`), then the defaults. */
export function resolveConfig(options: ClientOptions = {}): ResolvedConfig {
  const resolved = resolveSettings([options], options.env ?? process.env);
  if (!resolved.ok) throw new ConfigurationError(`Compute client configuration is incomplete:\n${bulleted(resolved.problems.map(sdkWording))}`);
  return {
    ...resolved.settings,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 4,
    maxRateLimitRetries: options.maxRateLimitRetries ?? Number.POSITIVE_INFINITY,
    rateLimitDeadlineMs: options.rateLimitDeadlineMs ?? 600_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    initialBackoffMs: options.initialBackoffMs ?? 500,
    maxBackoffMs: options.maxBackoffMs ?? 8_000,
    userAgent: options.userAgent ?? `pulumi-compute-sdk/${packageVersion()}`,
  };
}
