/**
 * The service the policy pack reads prices from: the stack's own `compute:*` configuration, as
 * the provider reads it, then the COMPUTE_* environment (the SDK's fallback). The engine hands an
 * analyzer the stack's configuration, decrypted, as the JSON object `PULUMI_CONFIG` (Pulumi
 * 3.248 `analyzer_plugin.go`, `constructEnv`). The key is only ever passed to the client: the
 * SDK keeps it out of every message.
 */
import { ComputeClient, fromStackConfig, type ClientOptions } from "../sdk";

function stackConfig(env: NodeJS.ProcessEnv): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(env.PULUMI_CONFIG ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The client options from the stack's configuration; what it does not set, the SDK takes from the environment. */
export function computeSettings(env: NodeJS.ProcessEnv = process.env): ClientOptions {
  const config = stackConfig(env);
  return { ...fromStackConfig({ get: (key) => config[key] }), env };
}

export function policyClient(env: NodeJS.ProcessEnv = process.env): ComputeClient {
  return new ComputeClient({ ...computeSettings(env), userAgent: "pulumi-compute-policy" });
}
