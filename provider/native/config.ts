/**
 * The plugin's own configuration: `compute:baseUrl`, `compute:apiKey` (secret), `compute:teamId`
 * from the stack config or an explicit provider's inputs, each falling back to its COMPUTE_*
 * environment variable, by the SDK's one rule (`fromStackConfig`, `resolveSettings`). The
 * fallback is applied when settings are resolved, never written into the provider's inputs:
 * those become the provider resource's state, and an environment key must not land there (nor
 * make every resource diff when CI rotates it).
 */
import { ENV, SETTING_NAMES, fromStackConfig, resolveSettings, type SettingName } from "../../sdk";
import type { CheckFailure } from "../resources/check-failures";
import type { Props } from "../resources/definition";
import { isUnknown } from "../resources/unknowns";

export const CONFIG_KEYS = SETTING_NAMES;
type ConfigKey = SettingName;

const DESCRIPTIONS: Record<ConfigKey, string> = {
  baseUrl: `the Compute Service URL, without /v2 (or set ${ENV.baseUrl})`,
  apiKey: `the API key; set it with --secret (or set ${ENV.apiKey})`,
  teamId: `the team to act for (or set ${ENV.teamId})`,
};

/** CheckConfig's rule: each setting given is a string (or not known yet at preview). */
export function configFailures(news: Props): CheckFailure[] {
  return CONFIG_KEYS.filter((key) => news[key] !== undefined && news[key] !== null && !isUnknown(news[key]) && typeof news[key] !== "string").map((key) => ({
    property: key,
    reason: "must be a string",
  }));
}

/** The settings that differ between two provider input bags (an unknown one counts as differing). */
export function changedSettings(olds: Props, news: Props): ConfigKey[] {
  return CONFIG_KEYS.filter((key) => isUnknown(news[key]) || (olds[key] ?? "") !== (news[key] ?? ""));
}

/**
 * Configure's `variables` (`compute:config:<key>`, secrets decrypted) as the runtime reads its
 * settings (`compute:<key>`), and the required settings that neither they nor the environment
 * give.
 */
export function settingsFrom(variables: { get(key: string): string | undefined }, env: NodeJS.ProcessEnv = process.env) {
  const reader = { get: (key: string) => (key.startsWith("compute:") ? variables.get(`compute:config:${key.slice("compute:".length)}`) : undefined) };
  const resolved = resolveSettings([fromStackConfig(reader)], env);
  // Only what is missing stops Configure (the engine prints `pulumi config set` for it); a
  // malformed URL is reported by the first request's client, with the rest of the rule.
  const missing = resolved.ok ? [] : resolved.problems.filter((p) => p.problem === "missing").map((p) => ({ name: `compute:${p.setting}`, description: DESCRIPTIONS[p.setting] }));
  return { reader, missing };
}
