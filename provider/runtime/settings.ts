/**
 * Connection settings of the provider process: stack configuration (`compute:baseUrl`,
 * `compute:apiKey`, `compute:teamId`, received by `configure` with secrets decrypted), then the
 * COMPUTE_* environment, by the SDK's one rule (`fromStackConfig`, `resolveSettings`).
 *
 * What the engine hands `configure` is the configuration recorded in the state at the last `up`
 * (for `refresh` and `destroy`, which run no program), so the key it names may since have been
 * rotated: credentials.ts checks the key once per run and, for a refused recorded key, finds
 * the current one. `client()` is the client of whichever key that check settled on.
 */
import { ComputeClient, ConfigurationError, ENV, bulleted, fromStackConfig, resolveSettings, type ConnectionSettings, type SettingProblem, type SettingsSource } from "../../sdk";
import { processSlot } from "./process-memory";


type ConfigReader = { get(key: string): string | undefined };

/** What the provider was configured with, and what the engine told it about the run. */
export interface Configured {
  stackConfig: SettingsSource;
  /** `compute:skipCredentialsValidation` as configured (the environment is read where it is used). */
  skipCredentialsValidation?: string;
  /** The stack the engine runs (its name as a URN gives it), where known: for reading its current configuration. */
  stack?: string;
}

/** The configuration, and the keys that stand in for refused configured ones (by `settingsId`). */
function store(): { configured?: Configured; standIns: Map<string, string> } {
  // `configure` may run through another copy of this module than `client()` (process-memory.ts).
  return processSlot<{ configured?: Configured; standIns: Map<string, string> }>("settings", () => ({ standIns: new Map() }));
}

/** One run's settings, as a key: what a credentials check is remembered by. */
export const settingsId = (settings: ConnectionSettings) => JSON.stringify([settings.baseUrl, settings.apiKey, settings.teamId ?? ""]);

/** Records the provider's configuration; the key is checked on the first call that needs it (credentials.ts). */
export function configure(config: ConfigReader, context: { stack?: string } = {}): void {
  // A provider serialized by an older build names no stack: keep the one a newer one named.
  const stack = context.stack ?? store().configured?.stack;
  store().configured = { stackConfig: fromStackConfig(config), skipCredentialsValidation: config.get("compute:skipCredentialsValidation"), stack };
}

export function configured(): Configured {
  return store().configured ?? { stackConfig: {} };
}

/** A settings problem as a stack's user fixes it: the `pulumi config set` to run, or the variable to set. */
function stackWording(problem: SettingProblem): string {
  if (problem.problem === "not-http") return "compute:baseUrl: must be an http:// or https:// URL";
  const command = problem.setting === "baseUrl" ? "pulumi config set compute:baseUrl <url>" : "pulumi config set --secret compute:apiKey <key>";
  return `compute:${problem.setting}: is required (\`${command}\`, or set ${ENV[problem.setting]})`;
}

/** The settings these stack settings (then the environment) give, or the error that says what to set. */
export function settingsFor(stack: SettingsSource): ConnectionSettings {
  const resolved = resolveSettings([stack]);
  if (!resolved.ok) throw new ConfigurationError(`Compute provider configuration is incomplete:\n${bulleted(resolved.problems.map(stackWording))}`);
  return resolved.settings;
}

/** The shared client for these settings: one pool and one set of polls per (service, key, team). */
export function clientWith(settings: ConnectionSettings): ComputeClient {
  return ComputeClient.shared({ ...settings, userAgent: "pulumi-compute-provider", env: {} });
}

/** The shared client for these stack settings (then the environment): the program's functions use it too. */
export function clientFor(stack: SettingsSource): ComputeClient {
  return clientWith(settingsFor(stack));
}

/** From now on, the provider configured with `settings` acts with `key` instead (credentials.ts decides when). */
export function useKeyFor(settings: ConnectionSettings, key: string): void {
  store().standIns.set(settingsId(settings), key);
}

/** The process-wide client for the configured service, with the key the credentials check settled on. */
export function client(): ComputeClient {
  const settings = settingsFor(configured().stackConfig);
  const key = store().standIns.get(settingsId(settings));
  return clientWith(key ? { ...settings, apiKey: key } : settings);
}
