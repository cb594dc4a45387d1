/**
 * The key is checked once per run, before the first resource step, like the AWS provider does
 * (with `skipCredentialsValidation` to opt out): a wrong key or an unreachable service fails the
 * run at once, in one line that names the setting and the command that fixes it, instead of
 * "3 unchanged" and a 401 only when something must change.
 *
 * Rotation. `refresh` and `destroy` run no program, so the engine configures the provider with
 * the configuration recorded at the last `up`: after `pulumi config set --secret compute:apiKey`
 * and a revoked old key, that recorded key is refused. Then, and only then, the current key is
 * looked for: the stack's current `compute:apiKey` (read with the Pulumi CLI, which decrypts it
 * with the stack's own secrets provider), then `COMPUTE_API_KEY`. A key found there is never
 * trusted blindly: another account's key would answer 404 for every id of this stack, and a
 * 404 would make `refresh` forget and `destroy` skip pods that keep billing. So the current key
 * is *unproven* until it has seen one of this stack's resources by id (ids belong to one
 * account; the contract: nothing of one account is visible to another); until then every read
 * and delete first looks its resource up, and one it cannot see stops the operation with the
 * fix. And a program run (`up`, `preview`) always uses the configured key: its configuration is
 * the current one, so a refused key there is simply wrong, and `check` says so.
 */
import { execFile } from "node:child_process";
import { ENV, checkKey, ComputeError, resolveSettings, type ApiError, type ConnectionSettings } from "../../sdk";
import { report } from "./progress";
import { clientWith, configured, settingsFor, settingsId, useKeyFor } from "./settings";
import { isUnknown } from "../resources/unknowns";
import { processSlot } from "./process-memory";

export const SKIP_ENV = "COMPUTE_SKIP_CREDENTIALS_VALIDATION";

/** Where the key in force came from. */
export type KeySource = "configured" | typeof ENV.apiKey | "the stack's current compute:apiKey";

export interface Credentials {
  source: KeySource;
  /** For a current key that replaced a refused recorded one: whether it has seen one of this stack's resources. */
  proven: boolean;
  /** The refusal of the configured key, when another key is in force. */
  refused?: ApiError;
}

function memo(): Map<string, Promise<Credentials>> {
  // Checked once per key and process: every copy of this module must see the check (process-memory.ts).
  return processSlot("credentials", () => new Map<string, Promise<Credentials>>());
}

const truthy = (value: string | undefined) => /^(1|true|yes)$/i.test(value?.trim() ?? "");

/** Which setting gave the configured key, as the user would change it. */
function keySetting(): string {
  return configured().stackConfig.apiKey?.trim() ? "compute:apiKey" : ENV.apiKey;
}

function refusedLine(settings: ConnectionSettings, error: ApiError): string {
  const requestId = error.requestId ? `, request ${error.requestId}` : "";
  return (
    `${keySetting()}: ${settings.baseUrl} refused the key (${error.status} ${error.title}: ${error.detail}${requestId}). ` +
    "Set the current key with `pulumi config set --secret compute:apiKey <key>` (or COMPUTE_API_KEY); " +
    "`refresh` and `destroy` start from the key recorded at the last `up`, and use the current one when that one is refused."
  );
}

function unreachableLine(settings: ConnectionSettings, error: Error): string {
  const cause = error.message.replace(/^GET \S+: /, "");
  return (
    `compute:baseUrl: ${settings.baseUrl} cannot be reached (${cause}). Check it with \`pulumi config get compute:baseUrl\` (or ${ENV.baseUrl}); ` +
    `for a preview without the service: \`pulumi config set compute:skipCredentialsValidation true\` (or ${SKIP_ENV}=true).`
  );
}

/**
 * The stack's current `compute:apiKey`, decrypted by the Pulumi CLI on PATH from the project
 * directory the engine runs the provider in; undefined where the CLI, the stack or the key is
 * not there. Bounded: one process, 30 s at most.
 */
function currentStackKey(stack: string | undefined): Promise<string | undefined> {
  if (!stack) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    execFile(
      "pulumi",
      ["config", "get", "compute:apiKey", "--stack", stack],
      { cwd: process.cwd(), timeout: 30_000, env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } },
      (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined),
    );
  });
}

async function verify(settings: ConnectionSettings): Promise<Credentials> {
  const first = await checkKey(clientWith(settings));
  if (first.verdict === "accepted" || first.verdict === "unknown") return { source: "configured", proven: true };
  if (first.verdict === "unreachable") throw new ComputeError(unreachableLine(settings, first.error));
  // The stack's own current key first, as the stack config wins over the environment (an
  // environment key may well be another account's, which the proof would then refuse).
  const candidates: Array<[KeySource, () => Promise<string | undefined>]> = [
    ["the stack's current compute:apiKey", () => currentStackKey(configured().stack)],
    [ENV.apiKey, async () => process.env[ENV.apiKey]?.trim() || undefined],
  ];
  for (const [source, find] of candidates) {
    const key = await find();
    if (!key || key === settings.apiKey) continue;
    const check = await checkKey(clientWith({ ...settings, apiKey: key }));
    if (check.verdict !== "accepted") continue;
    useKeyFor(settings, key);
    report("provider", "credentials", `the recorded key (${keySetting()}) was refused (${first.error.status}); using the current key from ${source}, checked against each resource before it is read or deleted`);
    return { source, proven: false, refused: first.error };
  }
  throw new ComputeError(refusedLine(settings, first.error));
}

/**
 * The credentials of this run, checked once per (service, key, team) per process; rejects with
 * the one-line error when the key is refused with no current one to take over, or the service
 * cannot be reached. Skipped (taken as good) when the user opted out, and while a setting is
 * still unknown at preview.
 */
export function credentials(): Promise<Credentials> {
  const { stackConfig, skipCredentialsValidation } = configured();
  if (truthy(skipCredentialsValidation) || truthy(process.env[SKIP_ENV]) || Object.values(stackConfig).some(isUnknown)) {
    return Promise.resolve({ source: "configured", proven: true });
  }
  // Incomplete settings are not a key to check: where a client is needed, its error names what to set.
  const resolved = resolveSettings([stackConfig]);
  if (!resolved.ok) return Promise.resolve({ source: "configured", proven: true });
  const settings = resolved.settings;
  const id = settingsId(settings);
  let verified = memo().get(id);
  if (!verified) {
    verified = verify(settings);
    memo().set(id, verified);
  }
  return verified;
}

/** For a program run (`check`, `create`, `update`): the configured key must be the one in force. */
export async function requireConfiguredKey(): Promise<void> {
  const current = await credentials();
  if (current.source !== "configured" && current.refused) throw new ComputeError(refusedLine(settingsFor(configured().stackConfig), current.refused));
}

/**
 * Before a read or delete of `kind` `id` with a current key that replaced a refused one: proof
 * that this key acts for the stack's account. `seen` looks the resource up by id (true when
 * found); the first resource seen proves the key for the rest of the run.
 */
export async function proveKeyFor(kind: string, name: string, id: string, seen: () => Promise<boolean>): Promise<void> {
  const current = await credentials();
  if (current.proven) return;
  if (await seen()) {
    current.proven = true;
    return;
  }
  throw new ComputeError(
    `${kind} ${name} (${id}): the recorded key was refused and the current key from ${current.source} cannot see this ${kind}, so it may act for another account: nothing was read or deleted. ` +
      `Set ${ENV.apiKey} to this stack's current key and run again, or \`pulumi refresh --run-program\`.`,
  );
}
