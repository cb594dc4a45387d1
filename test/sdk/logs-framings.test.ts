/**
 * Exactly once and in order, for every event framing the API's documents allow:
 * - `id` = the line's `ts` with microseconds (our emulator);
 * - `id` = a `ts` of whole seconds, several lines per second (the v2 document: "the id is the ts");
 * - `id` = `<ts>/<sequence>` (the public OpenAPI's examples of getPodLogs and getWorkerLogs,
 *   e.g. `2026-06-01T12:02:03Z/000000000001`);
 * - no `id:` lines at all (resume with `since`).
 * A scripted service cuts the connection in the middle of a second and answers the resume either
 * after the cursor (exclusive) or from it (inclusive: the lines at the cursor are sent again).
 * A whole-second id is shared by every line of its second, so the reader resumes those from
 * `since` = the second before, which even an exclusive service cannot put past an unsent line.
 */
import { ComputeClient } from "../../sdk";
import { comparePositions, streamLogs } from "../../sdk/logs";
import { useLoopback, type Loopback } from "../helpers/loopback";

const serve = useLoopback();

interface Line {
  source: "container" | "system";
  line: string;
  ts: string;
}

/** Eight lines over three seconds; second :03 holds four, two of them identical. */
function history(stamp: (second: number, micros: number) => string): Line[] {
  const at = (second: number, micros: number, line: string, source: Line["source"] = "container"): Line => ({ source, line, ts: stamp(second, micros) });
  return [
    at(2, 100, "booting", "system"),
    at(2, 200, "loading weights"),
    at(3, 100, "epoch 1"),
    at(3, 200, "."),
    at(3, 300, "."),
    at(3, 400, "epoch 2"),
    at(4, 100, "saving"),
    at(4, 200, "done"),
  ];
}
const micros = (second: number, us: number) => `2020-01-01T12:00:0${second}.${String(us).padStart(6, "0")}Z`;
const seconds = (second: number) => `2020-01-01T12:00:0${second}Z`;

type Framing = (line: Line, index: number) => string | undefined;
/**
 * How each framing may answer a resume: every framing with ids either way. `since` is inclusive
 * (as on our emulator), and without ids it is the only resume point.
 */
const FRAMINGS: Record<string, { lines: Line[]; id: Framing; resumes: Array<"exclusive" | "inclusive"> }> = {
  "microsecond ts ids": { lines: history(micros), id: (l) => l.ts, resumes: ["exclusive", "inclusive"] },
  "second-precision ts ids": { lines: history(seconds), id: (l) => l.ts, resumes: ["exclusive", "inclusive"] },
  "ts/sequence ids": { lines: history(seconds), id: (l, i) => `${l.ts}/${String(i + 1).padStart(12, "0")}`, resumes: ["exclusive", "inclusive"] },
  "no ids": { lines: history(seconds), id: () => undefined, resumes: ["inclusive"] },
};

interface Script {
  lines: Line[];
  id: Framing;
  /** Per connection, how many lines (counted from its first) it sends before the network cuts it. */
  cuts: number[];
  /** How a resume point is read: after it (exclusive) or from it (inclusive). */
  resume: "exclusive" | "inclusive";
}

/** A log service over its fixed history; the last connection sends the rest and ends with 200. */
async function scriptedService(script: Script): Promise<{ server: Loopback; client: ComputeClient; servedAll: () => boolean }> {
  const { lines, id } = script;
  const ids = lines.map(id);
  let connection = 0;
  let servedAll = false;
  const { server, client } = await serve((req, res, raw) => {
    const cut = script.cuts[connection++];
    const lastId = req.headers["last-event-id"] as string | undefined;
    const since = req.query.get("since");
    let from = 0;
    if (lastId !== undefined) {
      from = script.resume === "inclusive" ? ids.indexOf(lastId) : ids.lastIndexOf(lastId) + 1;
      if (from < 0 || (script.resume === "exclusive" && from === 0)) throw new Error(`unknown Last-Event-ID ${lastId}`);
    } else if (since !== null) {
      from = lines.findIndex((l) => l.ts >= since); // the same format throughout: text order is time order
    }
    const frames = lines.map((l, i) => `${ids[i] === undefined ? "" : `id: ${ids[i]}\n`}data: ${JSON.stringify(l)}\n\n`);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (cut !== undefined) {
      res.write(frames.slice(from, from + cut).join("") || ": open\n\n", () => setTimeout(() => raw.socket.destroy(), 20));
      return;
    }
    servedAll = true;
    res.end(frames.slice(from).join(""));
  });
  return { server, client, servedAll: () => servedAll };
}

async function read(script: Script): Promise<{ got: Line[]; server: Loopback }> {
  const { server, client, servedAll } = await scriptedService(script);
  const got: Line[] = [];
  // Follow mode: the stream ends only because the service says nothing more will come.
  for await (const event of streamLogs(client.http, "/v2/pods/pod-1/logs", { isFinished: async () => servedAll() })) {
    got.push({ source: event.source, line: event.line, ts: event.ts });
  }
  return { got, server };
}

describe.each(Object.entries(FRAMINGS))("log stream with %s", (_name, { lines, id, resumes }) => {
  it("delivers every line of one connection, several per second included", async () => {
    const { got, server } = await read({ lines, id, cuts: [], resume: "exclusive" });
    expect(got).toEqual(lines);
    expect(server.requests).toHaveLength(1);
  });

  it.each(resumes)("resumes cuts in the middle of a second exactly once (the service resumes %s)", async (resume) => {
    // The first connection is cut after "epoch 1" and the first "." of second :03, the resume
    // after three more lines (some of them sent again): the cursor's second is split twice.
    const { got, server } = await read({ lines, id, cuts: [4, 3], resume });
    expect(got).toEqual(lines);
    expect(server.requests).toHaveLength(3);
    const resumed = server.requests[1];
    const cursor = id(lines[3], 3);
    if (cursor === undefined) {
      expect(resumed.headers["last-event-id"]).toBeUndefined();
      expect(resumed.query.get("since")).toBe(lines[3].ts);
    } else if (cursor === seconds(3)) {
      // A whole-second id: resumed from the second before, whatever the service makes of a cursor.
      expect(resumed.headers["last-event-id"]).toBeUndefined();
      expect(resumed.query.get("since")).toBe(seconds(2));
    } else {
      expect(resumed.headers["last-event-id"]).toBe(cursor);
      expect(resumed.query.get("since")).toBeNull();
    }
    expect(resumed.query.get("tail")).toBeNull();
  });

  it("resumes a cut after the very first line, and a connection cut before any line", async () => {
    const { got, server } = await read({ lines, id, cuts: [1, 6, 0], resume: resumes[resumes.length - 1] });
    expect(got).toEqual(lines);
    expect(server.requests).toHaveLength(4);
  });
});

it("skips history a resume sends again before the cursor (a service that ignores it)", async () => {
  let connection = 0;
  const lines = history(seconds);
  const frames = lines.map((l) => `data: ${JSON.stringify(l)}\n\n`);
  const { client } = await serve((_req, res, raw) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (connection++ === 0) return res.write(frames.slice(0, 5).join(""), () => setTimeout(() => raw.socket.destroy(), 20));
    res.end(frames.join("")); // the whole history again, whatever `since` said
  });
  const got: string[] = [];
  for await (const event of streamLogs(client.http, "/v2/pods/pod-1/logs", { isFinished: async () => connection >= 2 })) got.push(event.line);
  expect(got).toEqual(lines.map((l) => l.line));
});

it("resumes a live-only read cut before its first line from when it opened, not live again", async () => {
  let connection = 0;
  const line: Line = { source: "container", line: "written while reconnecting", ts: "2020-01-01T12:00:07.500000Z" };
  const { server, client } = await serve((_req, res, raw) => {
    // The service's clock (its Date header) is what counts, not this machine's.
    res.writeHead(200, { "content-type": "text/event-stream", date: "Wed, 01 Jan 2020 12:00:07 GMT" });
    if (connection++ === 0) return res.write(": open\n\n", () => setTimeout(() => raw.socket.destroy(), 20));
    res.end(`data: ${JSON.stringify(line)}\n\n`);
  });
  const got: string[] = [];
  for await (const event of streamLogs(client.http, "/v2/pods/pod-1/logs", { tail: 0, isFinished: async () => true })) got.push(event.line);
  expect(got).toEqual([line.line]);
  const [first, resumed] = server.requests;
  expect(first.query.get("tail")).toBe("0");
  expect(resumed.query.get("tail")).toBeNull();
  expect(resumed.query.get("since")).toBe("2020-01-01T12:00:07.000Z");
});

describe("stream positions", () => {
  it("order stamps as instants whatever their precision, then sequences as numbers", () => {
    expect(comparePositions("2020-01-01T12:00:03Z", "2020-01-01T12:00:03.000000Z")).toBe(0);
    expect(comparePositions("2020-01-01T12:00:03.5Z", "2020-01-01T12:00:03.400000Z")).toBe(1);
    expect(comparePositions("2020-01-01T13:00:03+01:00", "2020-01-01T12:00:04Z")).toBe(-1);
    expect(comparePositions("2020-01-01T12:00:03Z/000000000009", "2020-01-01T12:00:03Z/000000000010")).toBe(-1);
    expect(comparePositions("2020-01-01T12:00:03Z/9", "2020-01-01T12:00:03Z/10")).toBe(-1);
    expect(comparePositions("2020-01-01T12:00:04Z/1", "2020-01-01T12:00:03Z/10")).toBe(1);
  });
});
