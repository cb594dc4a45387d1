/**
 * `compute sandbox logs` against the emulator, with the emulator clock frozen (a day in the
 * past, so every stamped line is "history" to the CLI) and moved by the test: which lines
 * exist when is then exact, and "no line lost or repeated" can be checked line by line.
 */
import { parseAllDocuments } from "yaml";
import { ComputeClient, type LogEvent, type Sandbox } from "../../sdk";
import { sleep } from "../helpers/fixtures";
import { eventually } from "../helpers/eventually";
import { spawnCli, startRelay, useEmulator, type Outage } from "./helpers";

const emu = useEmulator({ freezeClock: new Date(Date.now() - 24 * 3600 * 1000).toISOString() });
let sdk: ComputeClient;

const compute = { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 };
const LOG_INTERVAL_MS = 1000; // the `fast` profile: one container line per emulator-clock second

/** The service's own history of a sandbox, read with a fresh SDK client (not the CLI). */
async function history(id: string, options: { tail?: number; source?: "container" | "system"; since?: string } = {}): Promise<LogEvent[]> {
  const client = new ComputeClient({ baseUrl: emu.url, apiKey: emu.apiKey, env: {} });
  try {
    const out: LogEvent[] = [];
    for await (const event of client.sandboxes.logs(id, { follow: false, tail: 5000, ...options })) out.push(event);
    return out;
  } finally {
    await client.close();
  }
}

async function createRunning(name: string): Promise<Sandbox> {
  const sandbox = await sdk.sandboxes.create({ name, image: "python:3.12", compute });
  await emu.control.advance(500); // past CREATING (100 ms in the fast profile)
  expect((await sdk.sandboxes.get(sandbox.id)).state).toBe("RUNNING");
  return sandbox;
}

const human = (e: LogEvent) => `${e.ts} [${e.source}] ${e.line}`;
const jsonLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as LogEvent);

let steady: Sandbox;

beforeAll(async () => {
  sdk = new ComputeClient({ baseUrl: emu.url, apiKey: emu.apiKey, env: {} });
  steady = await createRunning("steady");
  await emu.control.advance(6 * LOG_INTERVAL_MS);
});

afterAll(async () => {
  await sdk?.close();
});

// Reads only, while the clock stands still: run side by side.
describe("history (no --follow)", () => {
  test.concurrent("prints every line of the history as `<ts> [<source>] <line>`", async () => {
    const expected = await history(steady.id, { tail: 100 });
    expect(expected.length).toBeGreaterThan(10);
    expect(new Set(expected.map((e) => e.source))).toEqual(new Set(["system", "container"]));
    const r = await emu.run(["sandbox", "logs", steady.id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(expected.map(human).join("\n") + "\n");
  });

  test.concurrent("--tail 3 --json: the last three lines, one JSON object per line", async () => {
    const all = await history(steady.id);
    const r = await emu.run(["sandbox", "logs", steady.id, "--tail", "3", "--json"]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual(all.slice(-3));
  });

  test.concurrent.each(["system", "container"] as const)("--source %s: only that source's lines", async (source) => {
    const expected = await history(steady.id, { source });
    expect(expected.length).toBeGreaterThan(0);
    const r = await emu.run(["sandbox", "logs", steady.id, "--source", source, "--json"]);
    expect(r.code).toBe(0);
    const printed = jsonLines(r.stdout);
    expect(printed).toEqual(expected);
    expect(printed.every((e) => e.source === source)).toBe(true);
  });

  test.concurrent("--since: the lines from that time on (and --tail is ignored)", async () => {
    const all = await history(steady.id);
    const from = all[all.length - 4]!;
    const r = await emu.run(["sandbox", "logs", steady.id, "--since", from.ts, "--tail", "1", "--json"]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual(all.slice(-4));
  });

  test.concurrent("--tail 0: no lines, and a note on stderr says the sandbox is running", async () => {
    const r = await emu.run(["sandbox", "logs", steady.id, "--tail", "0"]);
    expect(r).toEqual({ code: 0, stdout: "", stderr: `(no log lines: sandbox ${steady.id} is RUNNING)\n` });
  });

  test.concurrent("--output yaml: one YAML document per line", async () => {
    const all = await history(steady.id);
    const r = await emu.run(["sandbox", "logs", steady.id, "--tail", "2", "--output", "yaml"]);
    expect(r.code).toBe(0);
    expect(parseAllDocuments(r.stdout).map((d) => d.toJS())).toEqual(all.slice(-2));
  });

  test.concurrent("an unknown sandbox: exit 1 with the 404", async () => {
    const r = await emu.run(["sandbox", "logs", "sb-unknown"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^error: GET \/v2\/sandboxes\/sb-unknown\/logs failed with 404 Not Found: .*\n$/);
  });
});

describe("--follow", () => {
  test("streams new lines as they happen, and ends by itself (exit 0) when the container exits", async () => {
    const sandbox = await createRunning("exits");
    const cli = spawnCli(["sandbox", "logs", sandbox.id, "--follow", "--tail", "1"], emu.env());
    await cli.waitFor((out) => out.split("\n").length > 1); // the one line of history
    await emu.control.advance(3 * LOG_INTERVAL_MS);
    await cli.waitFor((out) => out.trim().split("\n").length >= 4);
    // What the service logged while the container ran: the stream printed it, line for line.
    const logged = (await history(sandbox.id)).map(human);
    await emu.control.sandboxExit(sandbox.id);
    const done = await cli.exited;
    expect(done.code).toBe(0);
    expect(done.stderr).toBe(`(log stream ended: sandbox ${sandbox.id} is FAILED, CONTAINER_EXITED)\n`);
    const lines = done.stdout.trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(4);
    // From the one line of history on, every line logged until the exit, none skipped or
    // repeated (lines the exit itself logged may follow).
    const first = logged.indexOf(lines[0]!);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(lines.slice(0, logged.length - first)).toEqual(logged.slice(first));
    // Once the container is gone there is nothing to stream: the SDK reads no lines.
    expect(await history(sandbox.id)).toEqual([]);
  });

  test("resumes across a dropped connection: no line lost, none repeated", async () => {
    const sandbox = await createRunning("dropped");
    const relay: Outage = await startRelay(emu.url);
    try {
      await emu.control.clearRequests();
      const cli = spawnCli(["sandbox", "logs", sandbox.id, "--follow", "--tail", "2", "--json"], emu.env({ COMPUTE_BASE_URL: relay.url }));
      const count = () => cli.stdout().split("\n").filter((l) => l !== "").length;
      await cli.waitFor(() => count() >= 2);
      await emu.control.advance(3 * LOG_INTERVAL_MS);
      await cli.waitFor(() => count() >= 5);

      // The network goes away; the container keeps logging meanwhile.
      relay.cut();
      await emu.control.advance(4 * LOG_INTERVAL_MS);
      await sleep(300);
      expect(count()).toBe(5);
      relay.restore();
      await cli.waitFor(() => count() >= 9);
      await emu.control.advance(2 * LOG_INTERVAL_MS);
      await cli.waitFor(() => count() >= 11);

      cli.child.kill("SIGINT");
      const done = await cli.exited;
      expect(done.code).toBe(0); // Ctrl-C is a normal end
      expect(done.stderr).toBe("");

      const printed = jsonLines(done.stdout);
      const truth = await history(sandbox.id, { since: printed[0]!.ts });
      expect(printed).toEqual(truth); // every line, in order, once
      expect(new Set(printed.map((e) => e.ts)).size).toBe(printed.length);
      expect(printed).toHaveLength(11);

      expect(relay.relayed).toBeGreaterThanOrEqual(2); // it really reconnected
      const streams = (await emu.control.requests()).filter((q) => q.path === `/v2/sandboxes/${sandbox.id}/logs`);
      expect(streams.filter((q) => q.status === 200).length).toBeGreaterThanOrEqual(2);
    } finally {
      await relay.close();
    }
  });

  test("waits out `sandbox_starting`, then streams from the container's first line", async () => {
    await emu.control.clearRequests();
    const sandbox = await sdk.sandboxes.create({ name: "starting", image: "python:3.12", compute });
    const cli = spawnCli(["sandbox", "logs", sandbox.id, "--follow", "--json"], emu.env());
    const path = `/v2/sandboxes/${sandbox.id}/logs`;
    // Wait until the CLI has been told 409 at least once (the sandbox is still CREATING).
    await eventually("a 409 answered to the CLI", async () => (await emu.control.requests()).some((q) => q.path === path && q.status === 409), { timeoutMs: 5000 });
    expect((await emu.control.requests()).some((q) => q.path === path && q.status === 409)).toBe(true);
    expect(cli.stdout()).toBe("");
    await emu.control.advance(500);
    await cli.waitFor((out) => out.includes("sandbox is RUNNING"));
    cli.child.kill("SIGINT");
    const done = await cli.exited;
    expect(done.code).toBe(0);
    const printed = jsonLines(done.stdout);
    expect(printed[0]!.source).toBe("system");
    expect(printed).toEqual((await history(sandbox.id)).slice(0, printed.length));
  });

  test("a connection dropped before the stream opens is retried", async () => {
    await emu.control.clearRequests();
    await emu.control.addFault({ method: "GET", path: `/v2/sandboxes/${steady.id}/logs`, drop: true, times: 1 });
    const cli = spawnCli(["sandbox", "logs", steady.id, "--follow", "--tail", "2", "--json"], emu.env());
    await cli.waitFor((out) => out.trim().split("\n").length >= 2);
    cli.child.kill("SIGINT");
    const done = await cli.exited;
    expect(done.code).toBe(0);
    expect(jsonLines(done.stdout)).toEqual((await history(steady.id)).slice(-2));
    const attempts = (await emu.control.requests()).filter((q) => q.path === `/v2/sandboxes/${steady.id}/logs`).map((q) => q.status);
    expect(attempts.slice(0, 2)).toEqual([null, 200]); // dropped, then the retry streamed
  });

  test("a terminated sandbox: nothing to stream, exit 0, the reason on stderr", async () => {
    const sandbox = await createRunning("terminated");
    await sdk.sandboxes.delete(sandbox.id);
    for (const follow of [[], ["--follow"]]) {
      const r = await emu.run(["sandbox", "logs", sandbox.id, ...follow]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`(${follow.length ? "log stream ended" : "no log lines"}: sandbox ${sandbox.id} is TERMINATED, USER_REQUESTED)\n`);
    }
  });
});
