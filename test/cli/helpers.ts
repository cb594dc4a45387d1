/**
 * Helpers of the CLI suites: run the built CLI (jest's global set-up, test/setup/build.ts, has
 * made `dist/` current) as a child process, as a user would, or inside the suite's own process
 * (what the emulator-backed cases do: see runCliInProcess), and start an emulator in-process per
 * test file.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { ROOT } from "../helpers/fixtures";

export { ROOT };
export const BIN = join(ROOT, "dist", "cli", "bin.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a run: the parent's, less every COMPUTE_* variable, plus `env`. */
export function cliEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("COMPUTE_")) out[key] = value;
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

export function runCli(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 20_000): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env: cliEnv(env), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** What one in-process run sees as its environment, and what it printed. */
interface InProcessRun {
  env: NodeJS.ProcessEnv;
  stdout: string;
  stderr: string;
}

/** The in-process run whose code is executing, if any (runs of one file overlap: test.concurrent, Promise.all). */
const currentRun = new AsyncLocalStorage<InProcessRun>();
let runsInFlight = 0;
let uninstall: (() => void) | undefined;

/**
 * While any in-process run is in flight: `process.env` and the two output streams answer each
 * run from its own context (its environment, its captured output), and everything else as
 * before (the in-process emulator, jest).
 */
function installRunContexts(): void {
  const env = process.env;
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const scoped = () => currentRun.getStore()?.env ?? env;
  process.env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, key) => Reflect.get(scoped(), key),
    set: (_target, key, value) => Reflect.set(scoped(), key, value),
    has: (_target, key) => Reflect.has(scoped(), key),
    deleteProperty: (_target, key) => Reflect.deleteProperty(scoped(), key),
    ownKeys: () => Reflect.ownKeys(scoped()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(scoped(), key),
  });
  for (const stream of ["stdout", "stderr"] as const) {
    const original = writes[stream];
    process[stream].write = function (this: NodeJS.WriteStream, ...args: Parameters<typeof original>) {
      const run = currentRun.getStore();
      if (!run) return original.apply(this, args);
      const [chunk, encoding, callback] = args as [string | Uint8Array, unknown, unknown];
      run[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
      (typeof encoding === "function" ? encoding : (callback as (() => void) | undefined))?.();
      return true;
    } as typeof original;
  }
  uninstall = () => {
    process.env = env;
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  };
}

/**
 * Runs `compute` inside this process: the built CLI's `run` (dist/cli/program.js, all that
 * bin.js calls), with the same environment as runCli's child (the parent's without COMPUTE_*,
 * plus `env`) and its own output captured. A child process costs 0.3-0.9 CPU-seconds of
 * start-up (Node.js, the SDK and its schemas), and the CLI suites started about 120 per test
 * run; the output, the exit code and every request are the same in-process. What only a
 * process shows (bin.js: the exit code as the process's, output flushed before it exits, a
 * closed pipe, signals, a terminal) is the child-process runs' part: usage.test.ts, the
 * spinner's terminal, --follow.
 */
export async function runCliInProcess(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  // Required when first used: dist/ is built by jest's global set-up, after this file loads.
  const { run } = require(join(ROOT, "dist", "cli", "program.js")) as typeof import("../../cli/program");
  const captured: InProcessRun = { env: cliEnv(env), stdout: "", stderr: "" };
  if (runsInFlight++ === 0) installRunContexts();
  try {
    const code = await currentRun.run(captured, () => run([process.execPath, BIN, ...args]));
    return { code, stdout: captured.stdout, stderr: captured.stderr };
  } finally {
    if (--runsInFlight === 0) uninstall?.();
  }
}

/** A running `compute` process whose output is collected as it arrives (for --follow). */
export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout satisfies `predicate`, rejects after `timeoutMs`. */
  waitFor(predicate: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<CliResult>;
}

export function spawnCli(args: string[], env: Record<string, string | undefined> = {}): LiveCli {
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiters: Array<() => void> = [];
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    for (const w of [...waiters]) w();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const exited = new Promise<CliResult>((done) => child.on("close", (code) => done({ code, stdout: out, stderr: err })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(predicate, timeoutMs = 15_000) {
      return new Promise((resolveWait, rejectWait) => {
        const check = () => {
          if (predicate(out)) {
            cleanup();
            resolveWait(out);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          rejectWait(new Error(`timed out waiting for output; stdout so far:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          const i = waiters.indexOf(check);
          if (i >= 0) waiters.splice(i, 1);
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** Rows of a borderless table: header row first, split on runs of two or more spaces. */
export function tableRows(stdout: string): string[][] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => line.trim().split(/\s{2,}/));
}

/**
 * A TCP relay in front of the emulator that can cut every open connection and refuse new ones
 * for a while: a network outage between the CLI and the service (the emulator itself keeps
 * running, and keeps producing log lines, throughout).
 */
export interface Outage {
  url: string;
  /** Connections accepted and relayed so far. */
  readonly relayed: number;
  /** Destroys every open connection and refuses new ones until `restore()`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRelay(targetUrl: string): Promise<Outage> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let down = false;
  let relayed = 0;
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    relayed += 1;
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get relayed() {
      return relayed;
    },
    cut() {
      down = true;
      for (const socket of [...sockets]) socket.destroy();
      sockets.clear();
    },
    restore() {
      down = false;
    },
    close() {
      for (const socket of [...sockets]) socket.destroy();
      return new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

export interface EmulatorSession {
  url: string;
  apiKey: string;
  control: import("../../emulator").EmulatorControl;
  /** Runs `compute` (in-process: runCliInProcess) against this emulator with the fixture's key (`env` adds or unsets variables). */
  run(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
}

/**
 * Starts one emulator for the calling test file (beforeAll/afterAll).
 * Returns an object filled in once beforeAll has run.
 */
export function useEmulator(options: import("../../emulator").EmulatorOptions = {}): EmulatorSession {
  const session = {} as EmulatorSession;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const { startEmulator, EmulatorControl } = require("../../emulator") as typeof import("../../emulator");
    const emulator = await startEmulator({ port: 0, profile: "fast", quiet: true, ...options });
    close = emulator.close;
    session.url = emulator.url;
    session.apiKey = emulator.apiKey;
    session.control = new EmulatorControl(emulator.url, emulator.adminToken);
    session.env = (extra = {}) => ({ COMPUTE_BASE_URL: emulator.url, COMPUTE_API_KEY: emulator.apiKey, ...extra });
    session.run = (args, env = {}) => runCliInProcess(args, session.env(env));
  }, 120_000);
  afterAll(async () => {
    await close?.();
  });
  return session;
}
