/**
 * Connection settings of the provider process: stack configuration (`compute:baseUrl`,
 * `compute:apiKey`, `compute:teamId`, received by `configure` with secrets decrypted), then the
 * COMPUTE_* environment, by the SDK's one rule (`fromStackConfig`, `resolveSettings`). Read at
 * run time in the provider process, so the key is never a resource input, never serialized with
 * the provider and never in state; a key rotated between `up` and `destroy` is simply the one in
 * force when the provider starts.
 */
import { ComputeClient, ConfigurationError, ENV, bulleted, fromStackConfig, resolveSettings, type SettingProblem, type SettingsSource } from "../../sdk";

const SETTINGS = Symbol.for("pulumi-compute.provider.settings");

type ConfigReader = { get(key: string): string | undefined };

export function configure(config: ConfigReader): void {
  (globalThis as Record<symbol, unknown>)[SETTINGS] = fromStackConfig(config);
}

/** A settings problem as a stack's user fixes it: the `pulumi config set` to run, or the variable to set. */
function stackWording(problem: SettingProblem): string {
  if (problem.problem === "not-http") return "compute:baseUrl: must be an http:// or https:// URL";
  const command = problem.setting === "baseUrl" ? "pulumi config set compute:baseUrl <url>" : "pulumi config set --secret compute:apiKey <key>";
  return `compute:${problem.setting}: is required (\`${command}\`, or set ${ENV[problem.setting]})`;
}

/** The shared client for these stack settings (then the environment): the program's functions use it too. */
export function clientFor(stack: SettingsSource): ComputeClient {
  const resolved = resolveSettings([stack]);
  if (!resolved.ok) throw new ConfigurationError(`Compute provider configuration is incomplete:\n${bulleted(resolved.problems.map(stackWording))}`);
  return ComputeClient.shared({ ...resolved.settings, userAgent: "pulumi-compute-provider", env: {} });
}

/** The process-wide client for the configured service (shared connection pool and polls). */
export function client(): ComputeClient {
  return clientFor(((globalThis as Record<symbol, unknown>)[SETTINGS] ?? {}) as SettingsSource);
}
