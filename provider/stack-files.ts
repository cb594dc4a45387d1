/**
 * What identifies a stack outside the program's process: its secrets salt in
 * `Pulumi.<stack>.yaml` and the backend its state lives in. Read from files and the
 * environment only (no `@pulumi/pulumi`), so the resource classes (provider/stack-identity.ts)
 * and the native plugin (provider/native/), which has no program runtime, derive the same
 * owner-mark identity from them.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";

/**
 * Something random per stack that everyone who runs the stack shares: the secrets salt (or
 * encrypted data key) that `pulumi stack init` wrote into `Pulumi.<stack>.yaml` in the project
 * directory `root`. Empty where there is none (Pulumi Cloud's own secrets: there
 * organization/project/stack is unique).
 */
export function stackSalt(root: string, stack: string): string {
  try {
    const settings = parseYaml(readFileSync(path.join(root, `Pulumi.${stack.split("/").pop()}.yaml`), "utf8")) as Record<string, unknown> | null;
    const salt = settings?.encryptionsalt ?? settings?.encryptedkey;
    return typeof salt === "string" ? salt : "";
  } catch {
    return "";
  }
}

/**
 * The backend the stack's state lives in, as the CLI chose it (`PULUMI_BACKEND_URL`, else the
 * login recorded in `~/.pulumi/credentials.json`), as `backendIdentity` reads it.
 */
export function stateBackend(): string {
  let url = process.env.PULUMI_BACKEND_URL ?? "";
  if (!url) {
    try {
      const home = process.env.PULUMI_HOME || path.join(homedir(), ".pulumi");
      url = String((JSON.parse(readFileSync(path.join(home, "credentials.json"), "utf8")) as { current?: string }).current ?? "");
    } catch {
      url = "";
    }
  }
  return backendIdentity(url);
}

/** Where lib/pq (the engine's PostgreSQL driver) connects when the URL leaves a part out. */
const POSTGRES_DEFAULTS = { host: "localhost", port: "5432", table: "pulumi_state" };

/**
 * Where a backend URL keeps the state, and nothing about how a runner reaches it, so that every
 * runner of a team's stack derives the same owner marks: a password that rotates, or one CI
 * runner's `sslmode` or `connect_timeout` another does not set, must not make a repeated create
 * miss what an interrupted one made (and create a second pod that bills outside the stack).
 *
 * - `file://`: the path made absolute (two developers' `pulumi login --local` stacks of one name
 *   are different stacks).
 * - `postgres://`: host, port, database and table, with the PG* variables and lib/pq's
 *   defaults filling what the URL leaves out (`pulumi login postgres://` takes them all from the
 *   environment); credentials and connection options dropped.
 * - Anything else (`s3://`, `gs://`, `azblob://`, a Pulumi Cloud URL): scheme, host and path,
 *   with an S3-compatible server's `endpoint`; credentials and other options dropped.
 */
export function backendIdentity(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const local = /^file:\/\/(.*)$/.exec(url);
  if (local) {
    const where = local[1]!.startsWith("~") ? path.join(homedir(), local[1]!.slice(1)) : local[1]!;
    return `file://${path.resolve(where)}`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const host = parsed.hostname.toLowerCase();
  if (parsed.protocol === "postgres:" || parsed.protocol === "postgresql:") {
    const user = decodeURIComponent(parsed.username) || env.PGUSER || "";
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || env.PGDATABASE || user;
    const table = parsed.searchParams.get("table") || POSTGRES_DEFAULTS.table;
    return `postgres://${host || env.PGHOST || POSTGRES_DEFAULTS.host}:${parsed.port || env.PGPORT || POSTGRES_DEFAULTS.port}/${database}?table=${table}`;
  }
  const endpoint = parsed.searchParams.get("endpoint");
  return `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ""}${parsed.pathname}${endpoint ? `?endpoint=${endpoint}` : ""}`;
}
