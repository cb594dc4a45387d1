#!/usr/bin/env node
/**
 * `compute-emulator`: runs the emulator until SIGINT/SIGTERM. Flags override environment
 * variables (COMPUTE_EMULATOR_*), which override defaults. See docs/emulator.md.
 */
import { parseArgs } from "node:util";
import { startEmulator } from "./index";
import { TIMING_KEYS, type Profile, type Timings } from "./options";
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
  --sandbox-creating-ms <n>, --log-interval-ms <n>
                           override one stage of the timing profile
  --quiet                  print nothing
  -h, --help               show this help
`;

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

async function main(): Promise<void> {
  const timingOptions = Object.fromEntries(TIMING_KEYS.map((k) => [kebab(k), { type: "string" as const }]));
  const { values } = parseArgs({
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "data-dir": { type: "string" },
      fixture: { type: "string" },
      profile: { type: "string" },
      "admin-token": { type: "string" },
      "freeze-clock": { type: "string" },
      shape: { type: "string" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      ...timingOptions,
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
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

  const emulator = await startEmulator({
    host: values.host ?? env.COMPUTE_EMULATOR_HOST ?? "127.0.0.1",
    port: number("--port", values.port ?? env.COMPUTE_EMULATOR_PORT) ?? 8787,
    dataDir: values["data-dir"] ?? (env.COMPUTE_EMULATOR_DATA_DIR || undefined),
    fixture: values.fixture ?? (env.COMPUTE_EMULATOR_FIXTURE || undefined),
    profile,
    timings,
    adminToken: values["admin-token"] ?? (env.COMPUTE_EMULATOR_ADMIN_TOKEN || undefined),
    shape: values.shape === undefined ? defaultShape(env) : parseShape(values.shape, "--shape"),
    freezeClock: freeze === undefined ? undefined : freeze === "" || freeze === "now" ? true : freeze,
    quiet: values.quiet ?? false,
  });

  const shutdown = (signal: string) => {
    if (!values.quiet) console.log(`Received ${signal}; shutting down`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: Error) => {
  console.error(`compute-emulator: ${error.message}`);
  process.exit(1);
});
