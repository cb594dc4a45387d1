/**
 * The machine-readable start of `compute-emulator` (the built binary, as scripts run it):
 * `--ready-file` and `--print json` hand over what the human start-up lines show, so that
 * scripts, benchmarks and tests never parse those lines.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { EmulatorControl } from "../../emulator";
import type { EmulatorReady } from "../../emulator/options";
import { ROOT } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";
import { useScratch } from "../helpers/scratch";

// Built by jest's global set-up (test/setup/build.ts).
const BIN = join(ROOT, "dist", "emulator", "bin.js");

const { tempDir, track } = useScratch("compute-emulator-ready-");

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(args: string[]): Run {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("COMPUTE_EMULATOR_")) env[key] = value;
  const child = spawn(process.execPath, [BIN, "--port", "0", "--profile", "fast", ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  track(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += chunk));
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Resolves once `test()` holds, polling; rejects if the process exits first. */
async function until(r: Run, test: () => boolean): Promise<void> {
  let gone = false;
  void r.exited.then(() => (gone = true));
  await eventually("the emulator's start-up output", () => {
    if (test()) return true;
    if (gone) throw new Error(`compute-emulator exited: ${r.stderr()}${r.stdout()}`);
    return false;
  }, { timeoutMs: 20_000 });
}

async function stop(r: Run): Promise<number | null> {
  r.child.kill("SIGTERM");
  return r.exited;
}

/** The three credentials/addresses of a ready object work against the running emulator. */
async function expectUsable(ready: EmulatorReady): Promise<void> {
  const pods = await fetch(`${ready.url}/v2/pods`, { headers: { Authorization: `Bearer ${ready.apiKey}` } });
  expect(pods.status).toBe(200);
  expect(await new EmulatorControl(ready.url, ready.adminToken).shape()).toBe("seed");
}

test("--ready-file: once listening, the file holds url, API key, admin token, pid, shape and data dir; it goes on SIGTERM", async () => {
  const dir = tempDir();
  const file = join(dir, "ready.json");
  const dataDir = join(dir, "data");
  const r = run(["--ready-file", file, "--data-dir", dataDir]);
  await until(r, () => existsSync(file));

  const ready = JSON.parse(readFileSync(file, "utf8")) as EmulatorReady;
  expect(Object.keys(ready).sort()).toEqual(["adminToken", "apiKey", "dataDir", "pid", "shape", "url"]);
  expect(ready).toMatchObject({ pid: r.child.pid, shape: "seed", dataDir });
  await expectUsable(ready);
  // It holds credentials: readable by this user only.
  expect(statSync(file).mode & 0o777).toBe(0o600);
  // Without --print json the start-up lines stay as they were, on stdout.
  await until(r, () => /^State: /m.test(r.stdout()));
  expect(r.stdout()).toContain(`Compute emulator listening on ${ready.url}\n`);

  expect(await stop(r)).toBe(0);
  expect(existsSync(file)).toBe(false);
});

test("--ready-file: a file left by an earlier run is removed, and none is written when the start fails", async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
  try {
    const file = join(tempDir(), "ready.json");
    writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:1", apiKey: "stale", adminToken: "stale", pid: 1, shape: "seed", dataDir: null }));
    const r = run(["--ready-file", file, "--port", String((blocker.address() as AddressInfo).port)]);
    expect(await r.exited).toBe(1);
    expect(existsSync(file)).toBe(false);
  } finally {
    blocker.close();
  }
});

test("--print json: stdout is that JSON object alone, on one line; the start-up lines go to stderr", async () => {
  const r = run(["--print", "json"]);
  await until(r, () => r.stdout().includes("\n") && /^State: /m.test(r.stderr()));

  const ready = JSON.parse(r.stdout()) as EmulatorReady;
  expect(r.stdout()).toBe(`${JSON.stringify(ready)}\n`);
  expect(ready).toMatchObject({ pid: r.child.pid, shape: "seed", dataDir: null });
  await expectUsable(ready);
  expect(r.stderr()).toContain(`Compute emulator listening on ${ready.url}\n`);

  expect(await stop(r)).toBe(0);
  expect(r.stdout()).toBe(`${JSON.stringify(ready)}\n`); // the shutdown line went to stderr too
  expect(r.stderr()).toContain("Received SIGTERM; shutting down");
});

test("--print json --quiet: the JSON line, and nothing else", async () => {
  const r = run(["--print", "json", "--quiet"]);
  await until(r, () => r.stdout().includes("\n"));
  await expectUsable(JSON.parse(r.stdout()) as EmulatorReady);
  expect(await stop(r)).toBe(0);
  expect(r.stderr()).toBe("");
  expect(r.stdout().split("\n")).toHaveLength(2);
});

test("--print with an unknown format is refused before anything starts", async () => {
  const r = run(["--print", "yaml"]);
  expect(await r.exited).toBe(1);
  expect(r.stderr()).toBe('compute-emulator: --print must be text or json, got "yaml"\n');
  expect(r.stdout()).toBe("");
});
