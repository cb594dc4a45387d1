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
 * login recorded in `~/.pulumi/credentials.json`), as `backendIdentity` reads it; or
 * `COMPUTE_STATE_BACKEND_ID` where it is set.
 */
export function stateBackend(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[STATE_BACKEND_ID_ENV]?.trim();
  if (given) return given;
  let url = env.PULUMI_BACKEND_URL ?? "";
  if (!url) {
    try {
      const home = env.PULUMI_HOME || path.join(homedir(), ".pulumi");
      url = String((JSON.parse(readFileSync(path.join(home, "credentials.json"), "utf8")) as { current?: string }).current ?? "");
    } catch {
      url = "";
    }
  }
  return backendIdentity(url, env);
}

/**
 * Names the backend for the owner marks outright, for runners that reach one backend by
 * different addresses (CI by the database's DNS name, a Kubernetes workspace by a service name
 * or a tunnel): set the same value on each (docs/team-backend.md).
 */
export const STATE_BACKEND_ID_ENV = "COMPUTE_STATE_BACKEND_ID";

/** Where lib/pq (the engine's PostgreSQL driver) connects when the URL leaves a part out. */
const POSTGRES_DEFAULTS = { host: "localhost", port: "5432", table: "pulumi_state" };

/**
 * Where a backend URL keeps the state, and nothing about how a runner logs in, so that every
 * runner of a team's stack derives the same owner marks: a password that rotates, or one CI
 * runner's `sslmode` or `connect_timeout` another does not set, must not make a repeated create
 * miss what an interrupted one made (and create a second pod that bills outside the stack).
 *
 * - `file://`: the path made absolute (two developers' `pulumi login --local` stacks of one name
 *   are different stacks).
 * - `postgres://`: host, port, database, table and the URL's path, which the engine puts before
 *   every key (so `postgres://db/pulumi` and `postgres://db` with PGDATABASE=pulumi are two
 *   stores); lib/pq's `host`, `port` and `dbname` parameters, then the PG* variables, then its
 *   defaults fill what the URL leaves out. The table's name is folded to lower case, as
 *   PostgreSQL folds the engine's unquoted name. Credentials and connection options dropped.
 * - Anything else (`s3://`, `gs://`, `azblob://`, a Pulumi Cloud URL): scheme, host and path,
 *   with what else says where the bucket is (an S3-compatible server's `endpoint`, an Azure
 *   `storage_account`); credentials and other options dropped.
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
  const query = parsed.searchParams;
  const host = parsed.hostname.toLowerCase();
  const urlPath = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (parsed.protocol === "postgres:" || parsed.protocol === "postgresql:") {
    const user = decodeURIComponent(parsed.username) || env.PGUSER || "";
    const database = urlPath || query.get("dbname") || env.PGDATABASE || user;
    const table = (query.get("table") || POSTGRES_DEFAULTS.table).toLowerCase();
    const server = `${host || query.get("host")?.toLowerCase() || env.PGHOST?.toLowerCase() || POSTGRES_DEFAULTS.host}:${parsed.port || query.get("port") || env.PGPORT || POSTGRES_DEFAULTS.port}`;
    return `postgres://${server}/${database}?table=${table}&prefix=${urlPath}`;
  }
  const where = ["endpoint", "storage_account"].filter((key) => query.get(key)).map((key) => `${key}=${query.get(key)}`);
  return `${parsed.protocol}//${host}${parsed.port ? `:${parsed.port}` : ""}${parsed.pathname}${where.length > 0 ? `?${where.join("&")}` : ""}`;
}
