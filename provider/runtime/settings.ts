/**
 * Connection settings of the provider process: stack configuration (`compute:baseUrl`,
 * `compute:apiKey`, `compute:teamId`, received by `configure` with secrets decrypted), then the
 * COMPUTE_* environment. Read at run time in the provider process, so the key is never a
 * resource input, never serialized with the provider and never in state; a key rotated between
 * `up` and `destroy` is simply the one in force when the provider starts.
 */
import { ComputeClient, ConfigurationError } from "../../sdk";

interface Settings {
  baseUrl?: string;
  apiKey?: string;
  teamId?: string;
}

const SETTINGS = Symbol.for("pulumi-compute.provider.settings");

type ConfigReader = { get(key: string): string | undefined };

export function configure(config: ConfigReader): void {
  (globalThis as Record<symbol, unknown>)[SETTINGS] = {
    baseUrl: config.get("compute:baseUrl"),
    apiKey: config.get("compute:apiKey"),
    teamId: config.get("compute:teamId"),
  } satisfies Settings;
}

/** The process-wide client for the configured service (shared connection pool and polls). */
export function client(): ComputeClient {
  const settings = ((globalThis as Record<symbol, unknown>)[SETTINGS] ?? {}) as Settings;
  try {
    return ComputeClient.shared({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      teamId: settings.teamId,
      userAgent: "pulumi-compute-provider",
    });
  } catch (error) {
    if (error instanceof ConfigurationError) {
      throw new ConfigurationError(
        `${error.message}\nSet them with \`pulumi config set compute:baseUrl <url>\` and \`pulumi config set --secret compute:apiKey <key>\`, or the COMPUTE_BASE_URL / COMPUTE_API_KEY environment variables.`,
      );
    }
    throw error;
  }
}
