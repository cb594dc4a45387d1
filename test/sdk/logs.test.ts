import type { ServerResponse } from "node:http";
import { ConflictError, ConnectionError, NotFoundError } from "../../sdk";
import { streamLogs } from "../../sdk/logs";
import { inTurn, problem, sendJson, useLoopback } from "../helpers/loopback";
import { podResponse, sandboxResponse, sleep } from "../helpers/fixtures";

const serve = useLoopback();

const ts = (i: number) => `2020-01-01T01:00:${String(i).padStart(2, "0")}.000000Z`;
const frame = (i: number, source = "container") => `id: ${ts(i)}\ndata: ${JSON.stringify({ source, line: `line ${i}`, ts: ts(i) })}\n\n`;

function openSse(res: ServerResponse) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
}

async function collect<T>(iterable: AsyncIterable<T>, limit = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

describe("log stream", () => {
  it("parses SSE frames split across chunks and passes source, tail and since", async () => {
    const { server, client } = await serve((_req, res) => {
      openSse(res);
      const text = frame(1, "system") + frame(2);
      res.write(text.slice(0, 17));
      setTimeout(() => {
        res.write(text.slice(17));
        res.end();
      }, 20);
    });
    const events = await collect(client.sandboxes.logs("sb-1", { source: "container", tail: 5 }), 2);
    expect(events).toEqual([
      { source: "system", line: "line 1", ts: ts(1) },
      { source: "container", line: "line 2", ts: ts(2) },
    ]);
    expect(server.requests[0].path).toBe("/v2/sandboxes/sb-1/logs");
    expect(server.requests[0].query.get("source")).toBe("container");
    expect(server.requests[0].query.get("tail")).toBe("5");
    expect(server.requests[0].headers.accept).toBe("text/event-stream");
  });

  it("resumes a dropped connection with Last-Event-ID and neither loses nor repeats a line", async () => {
    const { server, client } = await serve(
      inTurn(
        (_req, res, raw) => {
          openSse(res);
          res.write(frame(1) + frame(2) + frame(3));
          setTimeout(() => raw.socket.destroy(), 20); // the network drops mid-stream
        },
        (req, res) => {
          openSse(res);
          // The server replays from its history after the given id; the client must not repeat.
          const after = req.headers["last-event-id"];
          const lines = [1, 2, 3, 4, 5].filter((i) => ts(i) > String(after));
          res.end(lines.map((i) => frame(i)).join(""));
        },
      ),
    );
    const events = await collect(client.pods.logs("pod-1"), 5);
    expect(events.map((e) => e.line)).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
    expect(server.requests[1].headers["last-event-id"]).toBe(ts(3));
  });

  it("waits out 409 sandbox_starting and ends cleanly on container_exited", async () => {
    let connection = 0;
    const { client } = await serve((req, res) => {
      // After a stream ends the reader asks the sandbox's state: still running, so it reconnects.
      if (!req.path.endsWith("/logs")) return sendJson(res, 200, sandboxResponse({ state: "RUNNING" }));
      connection += 1;
      if (connection === 1) return problem(res, 409, "starting", { code: "sandbox_starting" });
      if (connection === 2) {
        openSse(res);
        return res.end(frame(1));
      }
      problem(res, 409, "the container exited", { code: "container_exited" });
    });
    const events = await collect(client.sandboxes.logs("sb-1"));
    expect(events.map((e) => e.line)).toEqual(["line 1"]);
    expect(connection).toBe(3);
  });

  it("surfaces other errors as typed errors", async () => {
    const { client } = await serve((_req, res) => problem(res, 409, "odd", { code: "something_else" }));
    await expect(collect(client.sandboxes.logs("sb-1"))).rejects.toBeInstanceOf(ConflictError);
  });

  it("closes the connection when the consumer breaks out", async () => {
    let closed = false;
    const { client } = await serve((_req, res, raw) => {
      openSse(res);
      res.write(frame(1));
      const timer = setInterval(() => res.write(": keep-alive\n\n"), 10);
      raw.on("close", () => {
        closed = true;
        clearInterval(timer);
      });
    });
    await collect(client.sandboxes.logs("sb-1"), 1);
    await sleep(100);
    expect(closed).toBe(true);
  });

  it("without follow, ends after the history", async () => {
    const { client } = await serve((_req, res) => {
      openSse(res);
      res.write(frame(1) + frame(2)); // then stays open with no more lines
    });
    const events = await collect(client.sandboxes.logs("sb-1", { follow: false, idleMs: 100 }));
    expect(events.map((e) => e.line)).toEqual(["line 1", "line 2"]);
  });
});

describe("follow mode after a stream ends with 200", () => {
  it("reconnects while the pod runs and ends once it has stopped", async () => {
    let connection = 0;
    let status = "RUNNING";
    const { server, client } = await serve((req, res) => {
      if (!req.path.endsWith("/logs")) return sendJson(res, 200, podResponse({ status }));
      connection += 1;
      openSse(res);
      if (connection === 2) status = "EXITED"; // the container stops after its last line
      res.end(frame(connection)); // no 409 in the public API for pod logs: a plain end
    });
    const events = await collect(client.pods.logs("pod-1"));
    expect(events.map((e) => e.line)).toEqual(["line 1", "line 2"]);
    expect(connection).toBe(2);
    expect(server.requests.filter((r) => r.path === "/v2/pods/pod-1")).toHaveLength(2);
  });

  it.each(["TERMINATED", "FAILED"])("ends a sandbox's stream once the sandbox is %s", async (state) => {
    const { server, client } = await serve((req, res) => {
      if (!req.path.endsWith("/logs")) return sendJson(res, 200, sandboxResponse({ state }));
      openSse(res);
      res.end(frame(1));
    });
    const events = await collect(client.sandboxes.logs("sb-1"));
    expect(events.map((e) => e.line)).toEqual(["line 1"]);
    expect(server.requests.filter((r) => r.path.endsWith("/logs"))).toHaveLength(1);
  });

  it("ends when the pod is gone (404), on reading it or on reconnecting", async () => {
    let connection = 0;
    let gone = false;
    const { client } = await serve((req, res) => {
      if (!req.path.endsWith("/logs")) {
        if (gone) return problem(res, 404, "no such pod");
        gone = true; // deleted right after this read
        return sendJson(res, 200, podResponse({ status: "RUNNING" }));
      }
      connection += 1;
      if (gone) return problem(res, 404, "no such pod");
      openSse(res);
      res.end(frame(connection));
    });
    const events = await collect(client.pods.logs("pod-1"));
    expect(events.map((e) => e.line)).toEqual(["line 1"]);
    expect(connection).toBe(2); // the reconnect's 404, then the pod's own 404
  });

  it("keeps following when the state cannot be read, and ends once it can", async () => {
    let connection = 0;
    const { client } = await serve((_req, res) => {
      connection += 1;
      openSse(res);
      res.end(frame(connection));
    });
    let asked = 0;
    const isFinished = async () => {
      if (++asked === 1) throw new ConnectionError({ method: "GET", path: "/v2/pods/pod-1" }, "network unreachable");
      return true;
    };
    const events = await collect(streamLogs(client.http, "/v2/pods/pod-1/logs", { isFinished }));
    expect(events.map((e) => e.line)).toEqual(["line 1", "line 2"]);
  });

  it("throws the 404 of an id that never streamed", async () => {
    const { client } = await serve((_req, res) => problem(res, 404, "no such sandbox"));
    await expect(collect(client.sandboxes.logs("sb-404"))).rejects.toBeInstanceOf(NotFoundError);
  });
});
