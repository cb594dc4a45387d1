/**
 * A follow-mode reader is calm with a service whose streams end with a plain 200 (the public
 * OpenAPI lists no 409 for pod logs): it reconnects, but a handful of times a minute at most
 * while nothing new comes, and at its first pace again once lines arrive.
 *
 * The minute is virtual: the SDK's `sleep` (sdk/retry.ts, through which the reader waits) is
 * replaced by one that advances a counter, and reconnects are counted against that clock. One
 * test also counts over a short real interval, with nothing replaced.
 */
import type { ServerResponse } from "node:http";
import { streamLogs } from "../../sdk/logs";
import * as retry from "../../sdk/retry";
import { useLoopback } from "../helpers/loopback";

const serve = useLoopback();

const MINUTE = 60_000;
const ts = (i: number) => `2020-01-01T01:00:${String(i).padStart(2, "0")}.000000Z`;
const frame = (i: number) => `id: ${ts(i)}\ndata: ${JSON.stringify({ source: "container", line: `line ${i}`, ts: ts(i) })}\n\n`;

function endEmpty(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(": nothing new\n\n");
}

/** Virtual time: every wait of the reader advances `now` at once; `waits` lists them. */
function virtualSleep() {
  const clock = { now: 0, waits: [] as number[] };
  jest.spyOn(retry, "sleep").mockImplementation(async (ms: number) => {
    clock.waits.push(ms);
    clock.now += ms;
    await new Promise((resolve) => setImmediate(resolve));
  });
  return clock;
}

afterEach(() => jest.restoreAllMocks());

it("reconnects at most a handful of times a minute to streams that keep ending empty", async () => {
  const clock = virtualSleep();
  const connectedAt: number[] = [];
  const { client } = await serve((_req, res) => {
    connectedAt.push(clock.now);
    endEmpty(res);
  });
  const lines = [];
  const stream = streamLogs(client.http, "/v2/pods/pod-1/logs", { isFinished: async () => clock.now >= 10 * MINUTE });
  for await (const event of stream) lines.push(event);
  expect(lines).toEqual([]);
  const perMinute = Array.from({ length: 10 }, (_, m) => connectedAt.filter((t) => t >= m * MINUTE && t < (m + 1) * MINUTE).length);
  // Still following (it never gave up), but calmly: the old reader made thousands a second.
  expect(perMinute.every((n) => n >= 1)).toBe(true);
  expect(Math.max(...perMinute)).toBeLessThanOrEqual(8);
  expect(perMinute.slice(1).every((n) => n <= 4)).toBe(true);
});

it("goes back to its first pace only when new lines arrive", async () => {
  const clock = virtualSleep();
  let connection = 0;
  const { client } = await serve((_req, res) => {
    connection += 1;
    if (connection !== 8) return endEmpty(res);
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(frame(1));
  });
  const lines = [];
  for await (const event of streamLogs(client.http, "/v2/pods/pod-1/logs", { isFinished: async () => connection >= 10 })) lines.push(event.line);
  expect(lines).toEqual(["line 1"]);
  // Seven empty streams: the waits grew to the cap. The one with a line: back to about a second.
  expect(clock.waits).toHaveLength(9);
  expect(clock.waits[6]).toBeGreaterThanOrEqual(15_000);
  expect(clock.waits[7]).toBeLessThanOrEqual(1000);
  expect(clock.waits[8]).toBeGreaterThanOrEqual(1000); // and grows again from there
});
