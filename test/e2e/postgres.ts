/**
 * A real PostgreSQL server for a suite, started and stopped by the suite itself through
 * scripts/postgres.sh (the script examples/gitops/run-local.sh uses), on a loopback port, and
 * Pulumi's `postgres://` state backend in it, reached as docs/team-backend.md tells a team to:
 * the user in the URL, the password in PGPASSWORD only.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { REPO_ROOT, type Deployment, type StateStore } from "./harness";

const run = promisify(execFile);
const SCRIPT = path.join(REPO_ROOT, "scripts", "postgres.sh");
/** The table the engine keeps state in, created on first use (pkg/backend/diy/postgres). */
const TABLE = "pulumi_state";

export interface PostgresBackend extends StateStore {
  /** The password the engine logs in with (PGPASSWORD): never in the URL. */
  readonly password: string;
  /** Keys of the locks the backend holds for `stack` (`<database>/.pulumi/locks/…/<stack>/<id>.json`: the engine prefixes every key with the URL's path). */
  locks(stack: string): Promise<string[]>;
  /** Stops the server; `immediate` is PostgreSQL's crash stop. Its data is kept. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port, with its data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  remove(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresBackend> {
  const dir = mkdtempSync(path.join(tmpdir(), "compute-e2e-postgres-"));
  try {
    await run("bash", [SCRIPT, "start", dir]);
  } catch (error) {
    await run("bash", [SCRIPT, "remove", dir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const settings = Object.fromEntries(
    readFileSync(path.join(dir, "postgres.env"), "utf8")
      .trim()
      .split("\n")
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  ) as Record<"PGHOST" | "PGPORT" | "PGUSER" | "PGDATABASE" | "PGPASSWORD", string>;

  /** Rows of one query, as psql prints them unaligned (tab-separated fields). */
  const query = async (sql: string): Promise<string[][]> => {
    const { stdout } = await run("psql", ["-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql], {
      env: { ...process.env, ...settings },
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.split("\t"));
  };
  /** An object the engine stored: base64 in a JSON column, gzipped if the engine was told to. */
  const decode = (base64: string): string => {
    const bytes = Buffer.from(base64, "base64");
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) return gunzipSync(bytes).toString("utf8");
    if (bytes.readUInt32LE(0) === 0xfd2fb528) throw new Error("a zstd-compressed object in the state table: this reader cannot check it");
    return bytes.toString("utf8");
  };
  /** Rows of the state table; none before the engine first made it. */
  const objects = async (where = "true"): Promise<Array<{ key: string; text: string }>> => {
    const [[exists]] = (await query(`SELECT to_regclass('${TABLE}') IS NOT NULL`)) as [[string]];
    if (exists !== "t") return [];
    return (await query(`SELECT key, data->>'data' FROM ${TABLE} WHERE ${where} ORDER BY key`)).map(([key, data]) => ({ key: key!, text: decode(data ?? "") }));
  };
  const sqlString = (value: string) => `'${value.replace(/'/g, "''")}'`;

  return {
    url: `postgres://${settings.PGUSER}@${settings.PGHOST}:${settings.PGPORT}/${settings.PGDATABASE}?sslmode=disable`,
    env: { PGPASSWORD: settings.PGPASSWORD },
    password: settings.PGPASSWORD,
    async latest(stack): Promise<Deployment> {
      const [file] = await objects(`key LIKE '%.pulumi/stacks/%' AND key LIKE ${sqlString(`%/${stack}.json`)}`);
      if (!file) return {};
      return (JSON.parse(file.text) as { checkpoint?: { latest?: Deployment } }).checkpoint?.latest ?? {};
    },
    async text() {
      return (await objects()).map((object) => `${object.key}\n${object.text}`).join("\n");
    },
    async lastUpdate(stack) {
      // Keys sort as the file backend's names do: `<stack>-<Unix nanoseconds>.history.json`.
      const history = await objects(`key LIKE '%.pulumi/history/%' AND key LIKE ${sqlString(`%/${stack}/${stack}-%.history.json`)}`);
      return history.at(-1)?.text;
    },
    async locks(stack) {
      return (await objects(`key LIKE '%.pulumi/locks/%' AND key LIKE ${sqlString(`%/${stack}/%`)}`)).map((object) => object.key);
    },
    async stop(mode = "fast") {
      await run("bash", [SCRIPT, "stop", dir, ...(mode === "immediate" ? ["--immediate"] : [])]);
    },
    async start() {
      await run("bash", [SCRIPT, "start", dir]);
    },
    async remove() {
      await run("bash", [SCRIPT, "remove", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
