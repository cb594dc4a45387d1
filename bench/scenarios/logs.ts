/**
 * Scenario 5: log-stream throughput of the SDK (`client.sandboxes.logs`, an async iterator over
 * SSE with eventsource-parser, zod-validated lines and Last-Event-ID resume) beside the
 * `eventsource` package (WHATWG EventSource over fetch, reading the same stream, each line's
 * data JSON-parsed), in the same run.
 *
 * The emulator runs as a process of its own with a frozen clock and one container line per
 * millisecond. One RUNNING sandbox is given 60 s of clock, so ~60 000 lines are due.
 *
 * - Throughput: each reader opens the live stream (follow) at `since` = the sandbox's creation
 *   and reads 50 000 lines; the emulator writes every due line at once, so from the first line
 *   on the reader sets the pace. Lines per second are taken from the first line to the last;
 *   the time to the first line (the emulator computing the backfill) is reported apart. Seven
 *   rounds after two unmeasured reads each, order alternating, medians reported, with the bench
 *   process's CPU time per line.
 * - Live: both readers connected at once with `tail=0`, then the clock advances 10 s: the lines
 *   arrive as the emulator's stream ticks release them (2000 per 100 ms); both must see the
 *   same ids.
 * Every read checks its ids strictly increasing and identical, id for id, to every other read
 * of the same lines (no line lost or repeated).
 */
import { EmulatorControl } from "../../emulator";
import { ComputeClient, type LogStreamOptions } from "../../sdk";
import { log, median, round, sleep, startEmulatorProcess, type Row, type ScenarioResult } from "../lib/common";

const LINES = 50000;
const ROUNDS = 7;
const LIVE_SECONDS = 10;
const LIVE_LINES = 9000; // fewer than the ~10 000 that 10 s of clock make due

function integrity(ids: string[], reference?: string[]) {
  let increasing = true;
  for (let i = 1; i < ids.length; i++) {
    if (!(ids[i]!.length === ids[i - 1]!.length && ids[i]! > ids[i - 1]!)) {
      increasing = false;
      break;
    }
  }
  const duplicates = ids.length - new Set(ids).size;
  const sameAsReference = reference === undefined || (ids.length === reference.length && ids.every((id, i) => id === reference[i]));
  return { count: ids.length, increasing, duplicates, sameAsReference, ok: increasing && duplicates === 0 && sameAsReference };
}

/**
 * Clocks of one read: wall and CPU time (of this process; the emulator runs in another) at the
 * first line and at the last one. Throughput is taken between the two, when the emulator has
 * already written every due line and only the reader decides the pace; the time to the first
 * line (connect, and the emulator computing and writing the backfill) is reported apart.
 */
class Clocks {
  readonly startedAt = performance.now();
  firstAt = 0;
  lastAt = 0;
  cpuFirst: NodeJS.CpuUsage = { user: 0, system: 0 };
  cpuLast: NodeJS.CpuUsage = { user: 0, system: 0 };
  line(index: number, count: number): void {
    if (index === 0) {
      this.firstAt = performance.now();
      this.cpuFirst = process.cpuUsage();
    }
    if (index === count - 1) {
      this.lastAt = performance.now();
      this.cpuLast = process.cpuUsage(this.cpuFirst);
    }
  }
  summary(count: number): ReadSummary {
    const seconds = (this.lastAt - this.firstAt) / 1000;
    return {
      linesPerSecond: (count - 1) / seconds,
      firstLineMs: this.firstAt - this.startedAt,
      cpuMicrosPerLine: (this.cpuLast.user + this.cpuLast.system) / (count - 1),
      lastAt: this.lastAt,
    };
  }
}

interface ReadSummary {
  linesPerSecond: number;
  firstLineMs: number;
  cpuMicrosPerLine: number;
  lastAt: number;
}
type Read = ReadSummary & { ids: string[] };

async function main() {
  const emulator = await startEmulatorProcess(["--profile", "fast", "--log-interval-ms", "1", "--sandbox-creating-ms", "0", "--freeze-clock", "now"]);
  const { EventSource } = await import("eventsource");
  const control = new EmulatorControl(emulator.url, emulator.adminToken);
  const client = new ComputeClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const authFetch = (input: string | URL | Request, init?: RequestInit) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), authorization: `Bearer ${emulator.apiKey}` } });

  /** The SDK's iterator; `options` are its stream options. */
  const sdkRead = async (id: string, options: LogStreamOptions, count: number): Promise<Read> => {
    const clocks = new Clocks();
    const ids: string[] = [];
    for await (const event of client.sandboxes.logs(id, { follow: true, ...options })) {
      clocks.line(ids.length, count);
      ids.push(event.ts);
      if (ids.length === count) break;
    }
    return { ids, ...clocks.summary(count) };
  };

  /** The eventsource package on the same URL; `query` is the same options as query parameters. */
  const eventSourceRead = (id: string, query: Record<string, string>, count: number) =>
    new Promise<Read>((resolve, reject) => {
      const clocks = new Clocks();
      const ids: string[] = [];
      const es = new EventSource(`${emulator.url}/v2/sandboxes/${encodeURIComponent(id)}/logs?${new URLSearchParams(query)}`, { fetch: authFetch });
      es.onmessage = (event) => {
        // close() does not stop the events already parsed from the same chunk: ignore them.
        if (ids.length === count) return;
        JSON.parse(event.data); // what a caller does with each line, as the SDK does for it
        clocks.line(ids.length, count);
        ids.push(event.lastEventId);
        if (ids.length === count) {
          es.close();
          resolve({ ids, ...clocks.summary(count) });
        }
      };
      es.onerror = (error: { message?: string }) => {
        es.close();
        reject(new Error(`eventsource: ${error.message ?? "stream error"}`));
      };
    });

  try {
    const sandbox = await client.sandboxes.create({
      name: "bench-logs",
      image: "python:3.12",
      compute: { vcpuCount: 1, memoryInGb: 1, containerDiskInGb: 1 },
      idleTimeoutSeconds: 3600,
    });
    await control.advance(1000);
    await control.advance(60_000);
    const since = sandbox.createdAt;

    // Throughput: the stream at `since`, read as fast as each reader can take it. Two reads of
    // each first, unmeasured, so neither pays for the JIT warming up.
    for (let i = 0; i < 2; i++) {
      await sdkRead(sandbox.id, { since }, LINES);
      await eventSourceRead(sandbox.id, { since }, LINES);
    }
    const samples: Record<"sdk" | "eventsource", Read[]> = { sdk: [], eventsource: [] };
    let reference: string[] | undefined;
    const checks: Array<{ reader: string; round: number } & ReturnType<typeof integrity>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (["sdk", "eventsource"] as const) : (["eventsource", "sdk"] as const);
      for (const reader of order) {
        const result = reader === "sdk" ? await sdkRead(sandbox.id, { since }, LINES) : await eventSourceRead(sandbox.id, { since }, LINES);
        reference ??= result.ids;
        const check = integrity(result.ids, reference);
        checks.push({ reader, round: round + 1, ...check });
        samples[reader].push(result);
        log(
          `${reader} round ${round + 1}: ${result.linesPerSecond.toFixed(0)} lines/s, ${result.cpuMicrosPerLine.toFixed(2)} µs CPU per line, ` +
            `first line after ${result.firstLineMs.toFixed(0)} ms, ids ${check.ok ? "ok" : "NOT OK"}`,
        );
      }
    }

    // Live: both connected before the lines become due; the clock then releases them.
    const both = Promise.all([sdkRead(sandbox.id, { tail: 0 }, LIVE_LINES), eventSourceRead(sandbox.id, { tail: "0" }, LIVE_LINES)]);
    await sleep(500); // loopback connects take a few ms; no line is due before the advance
    const advancedAt = performance.now();
    await control.advance(LIVE_SECONDS * 1000);
    const [liveSdk, liveEs] = await both;
    const liveCheckSdk = integrity(liveSdk.ids);
    const liveCheckEs = integrity(liveEs.ids, liveSdk.ids);
    const liveRate = (r: Read) => LIVE_LINES / ((r.lastAt - advancedAt) / 1000);
    log(
      `live: sdk ${liveRate(liveSdk).toFixed(0)} lines/s ${liveCheckSdk.ok ? "ok" : "NOT OK"}, eventsource ${liveRate(liveEs).toFixed(0)} lines/s ` +
        `${liveCheckEs.ok ? "ok" : "NOT OK"} (${LIVE_LINES} lines each, paced by the emulator)`,
    );

    const sdkRate = median(samples.sdk.map((s) => s.linesPerSecond));
    const esRate = median(samples.eventsource.map((s) => s.linesPerSecond));
    const allOk = checks.every((c) => c.ok) && liveCheckSdk.ok && liveCheckEs.ok;
    return {
      linesPerRead: LINES,
      rounds: ROUNDS,
      sdk: {
        linesPerSecond: round(sdkRate, 0),
        cpuMicrosPerLine: round(median(samples.sdk.map((s) => s.cpuMicrosPerLine)), 2),
        firstLineMs: round(median(samples.sdk.map((s) => s.firstLineMs)), 0),
        samples: samples.sdk.map((s) => round(s.linesPerSecond, 0)),
      },
      eventsource: {
        package: `eventsource@${(require("eventsource/package.json") as { version: string }).version}`,
        linesPerSecond: round(esRate, 0),
        cpuMicrosPerLine: round(median(samples.eventsource.map((s) => s.cpuMicrosPerLine)), 2),
        firstLineMs: round(median(samples.eventsource.map((s) => s.firstLineMs)), 0),
        samples: samples.eventsource.map((s) => round(s.linesPerSecond, 0)),
      },
      ratio: round(sdkRate / esRate, 3),
      idsOk: allOk,
      checks: checks.map(({ reader, round: r, ok }) => ({ reader, round: r, ok })),
      live: {
        lines: LIVE_LINES,
        sdkOk: liveCheckSdk.ok,
        eventsourceOk: liveCheckEs.ok,
        sdkLinesPerSecond: round(liveRate(liveSdk), 0),
        eventsourceLinesPerSecond: round(liveRate(liveEs), 0),
      },
    };
  } finally {
    await client.close();
    await emulator.close();
  }
}

export async function run(): Promise<ScenarioResult> {
  const r = await main();
  const s5 = "5 Log streaming";
  const rows: Row[] = [
    {
      scenario: s5,
      figure: `SDK iterator, ${LINES} lines of a live stream (median of ${ROUNDS}; ${r.sdk.cpuMicrosPerLine} µs CPU/line)`,
      value: `${r.sdk.linesPerSecond} lines/s`,
      reference: `eventsource ${r.eventsource.linesPerSecond} lines/s (${r.eventsource.cpuMicrosPerLine} µs CPU/line)`,
      ratio: r.ratio,
      goal: "ratio ≥ 1.0",
      met: r.ratio >= 1.0,
    },
    {
      scenario: s5,
      figure: `ids strictly increasing, none lost or repeated (${ROUNDS * 2} reads + live ${LIVE_LINES} lines each)`,
      value: r.idsOk ? "yes" : "no",
      goal: "yes",
      met: r.idsOk,
    },
  ];
  return { results: { logStreaming: r }, rows };
}
