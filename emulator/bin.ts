#!/usr/bin/env node
/**
 * `compute-emulator`: runs the emulator until SIGINT/SIGTERM. Flags override environment
 * variables (COMPUTE_EMULATOR_*), which override defaults. See docs/emulator.md.
 */
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import { TIMING_KEYS, type EmulatorReady, type Profile, type Timings } from "./options";
import { defaultShape, parseShape } from "./shape";

const HELP = `Usage: compute-emulator [options]

Runs a local emulator of the Compute Service REST API v2.

Options:
  --host <host>            interface to listen on (default 127.0.0.1; env COMPUTE_EMULATOR_HOST)
  --port <port>            port, 0 for any free port (default 8787; env COMPUTE_EMULATOR_PORT)
  --data-dir <dir>         keep state in <dir>/state.json across restarts (env COMPUTE_EMULATOR_DATA_DIR);
                           without it, state lives in memory
  --fixture <file>         fixture JSON to start from (default: built-in; env COMPUTE_EMULATOR_FIXTURE)
  --profile <name>         timing profile: fast or realistic (default realistic; env COMPUTE_EMULATOR_PROFILE)
  --admin-token <token>    control-plane token (default from the fixture; env COMPUTE_EMULATOR_ADMIN_TOKEN)
  --shape <name>           answer shape: seed (our reading of the API) or public (as the public
                           OpenAPI describes, with its liberties) (default seed; env COMPUTE_EMULATOR_SHAPE)
  --freeze-clock [<time>]  start with the emulator clock frozen (now, or at an RFC 3339 time)
  --pod-provisioning-ms <n>, --pod-starting-ms <n>, --pod-stopping-ms <n>,
  --sandbox-creating-ms <n>, --log-interval-ms <n>, --service-start-ms <n>,
  --worker-ready-ms <n>
                           override one stage of the timing profile
  --ready-file <path>      once listening, write {url, apiKey, adminToken, pid, shape, dataDir} as
                           JSON to <path> (atomically, mode 0600); removed again on SIGINT/SIGTERM
  --print <text|json>      text: the start-up lines on stdout (default); json: only that JSON
                           object, as one line, on stdout, and the start-up lines on stderr
  --quiet                  print no start-up lines (--print json still prints its line)
  -h, --help               show this help
`;

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The flags that take a value (the timing overrides too, named after their keys). */
const VALUE_FLAGS = ["host", "port", "data-dir", "fixture", "profile", "admin-token", "freeze-clock", "shape", "ready-file", "print"] as const;

const takesValue = <F extends string>(flags: readonly F[]) =>
  Object.fromEntries(flags.map((flag) => [flag, { type: "string" as const }])) as Record<F, { type: "string" }>;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ...takesValue(VALUE_FLAGS),
      ...takesValue(TIMING_KEYS.map(kebab)),
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values["ready-file"] === "") throw new Error("--ready-file needs a path");
  const readyFile = values["ready-file"] === undefined ? undefined : resolve(values["ready-file"]);
  // A file left by an earlier run must not pass for this one's, even if this start fails below:
  // whoever waits for the file to appear may start waiting before or after this line.
  if (readyFile) rmSync(readyFile, { force: true });
  const env = process.env;
  const number = (name: string, text: string | undefined): number | undefined => {
    if (text === undefined || text === "") return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, got "${text}"`);
    return n;
  };
  const timings: Partial<Timings> = {};
  for (const key of TIMING_KEYS) {
    const flag = kebab(key);
    const envName = `COMPUTE_EMULATOR_${flag.replace(/-/g, "_").toUpperCase()}`;
    const value = number(`--${flag}`, (values as Record<string, string | undefined>)[flag] ?? env[envName]);
    if (value !== undefined) timings[key] = value;
  }
  const profile = (values.profile ?? env.COMPUTE_EMULATOR_PROFILE ?? "realistic") as Profile;
  if (profile !== "fast" && profile !== "realistic") throw new Error(`--profile must be fast or realistic, got "${profile}"`);
  const freeze = values["freeze-clock"];
  const print = values.print ?? "text";
  if (print !== "text" && print !== "json") throw new Error(`--print must be text or json, got "${print}"`);
  // stdout carries the JSON line alone, so a reader can take its first line; the emulator's
  // human lines (index.ts writes them with console.log) go to stderr.
  if (print === "json") console.log = (...args: unknown[]) => console.error(...args);
  const shape = values.shape === undefined ? defaultShape(env) : parseShape(values.shape, "--shape");
  const dataDir = values["data-dir"] ?? (env.COMPUTE_EMULATOR_DATA_DIR || undefined);

  const emulator = await startEmulator({
    host: values.host ?? env.COMPUTE_EMULATOR_HOST ?? "127.0.0.1",
    port: number("--port", values.port ?? env.COMPUTE_EMULATOR_PORT) ?? 8787,
    dataDir,
    fixture: values.fixture ?? (env.COMPUTE_EMULATOR_FIXTURE || undefined),
    profile,
    timings,
    adminToken: values["admin-token"] ?? (env.COMPUTE_EMULATOR_ADMIN_TOKEN || undefined),
    shape,
    freezeClock: freeze === undefined ? undefined : freeze === "" || freeze === "now" ? true : freeze,
    quiet: values.quiet ?? false,
  });

  const ready: EmulatorReady = {
    url: emulator.url,
    apiKey: emulator.apiKey,
    adminToken: emulator.adminToken,
    pid: process.pid,
    shape,
    dataDir: dataDir === undefined ? null : resolve(dataDir),
  };

  const shutdown = (signal: string) => {
    if (!values.quiet) console.log(`Received ${signal}; shutting down`);
    // Gone before the server closes: a present file always names a live emulator (short of SIGKILL).
    if (readyFile) rmSync(readyFile, { force: true });
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  // Announced only once a signal would remove the file again.
  if (readyFile) writeReadyFile(readyFile, ready);
  if (print === "json") process.stdout.write(`${JSON.stringify(ready)}\n`);
}

/**
 * Written beside its final name, then renamed: a reader never sees half of it. Mode 0600: it
 * holds the development credentials the start-up lines show, for this user only.
 */
function writeReadyFile(file: string, ready: EmulatorReady): void {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(ready)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

main().catch((error: Error) => {
  console.error(`compute-emulator: ${error.message}`);
  process.exit(1);
});
