import type { ServerResponse } from "node:http";
import { ComputeClient, ConflictError } from "../../sdk";
import { problem, startLoopback, TEST_KEY } from "../helpers/loopback";

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
    const server = await startLoopback((_req, res) => {
      openSse(res);
      const text = frame(1, "system") + frame(2);
      res.write(text.slice(0, 17));
      setTimeout(() => {
        res.write(text.slice(17));
        res.end();
      }, 20);
    });
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      const events = await collect(client.sandboxes.logs("sb-1", { source: "container", tail: 5 }), 2);
      expect(events).toEqual([
        { source: "system", line: "line 1", ts: ts(1) },
        { source: "container", line: "line 2", ts: ts(2) },
      ]);
      expect(server.requests[0].path).toBe("/v2/sandboxes/sb-1/logs");
      expect(server.requests[0].query.get("source")).toBe("container");
      expect(server.requests[0].query.get("tail")).toBe("5");
      expect(server.requests[0].headers.accept).toBe("text/event-stream");
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("resumes a dropped connection with Last-Event-ID and neither loses nor repeats a line", async () => {
    let connection = 0;
    const server = await startLoopback((req, res, raw) => {
      connection += 1;
      openSse(res);
      if (connection === 1) {
        res.write(frame(1) + frame(2) + frame(3));
        setTimeout(() => raw.socket.destroy(), 20); // the network drops mid-stream
        return;
      }
      // The server replays from its history after the given id; the client must not repeat.
      const after = req.headers["last-event-id"];
      const lines = [1, 2, 3, 4, 5].filter((i) => ts(i) > String(after));
      res.end(lines.map((i) => frame(i)).join(""));
    });
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      const events = await collect(client.pods.logs("pod-1"), 5);
      expect(events.map((e) => e.line)).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
      expect(server.requests[1].headers["last-event-id"]).toBe(ts(3));
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("waits out 409 sandbox_starting and ends cleanly on container_exited", async () => {
    let connection = 0;
    const server = await startLoopback((_req, res) => {
      connection += 1;
      if (connection === 1) return problem(res, 409, "starting", { code: "sandbox_starting" });
      if (connection === 2) {
        openSse(res);
        return res.end(frame(1));
      }
      problem(res, 409, "the container exited", { code: "container_exited" });
    });
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      const events = await collect(client.sandboxes.logs("sb-1"));
      expect(events.map((e) => e.line)).toEqual(["line 1"]);
      expect(connection).toBe(3);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("surfaces other errors as typed errors", async () => {
    const server = await startLoopback((_req, res) => problem(res, 409, "odd", { code: "something_else" }));
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      await expect(collect(client.sandboxes.logs("sb-1"))).rejects.toBeInstanceOf(ConflictError);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("closes the connection when the consumer breaks out", async () => {
    let closed = false;
    const server = await startLoopback((_req, res, raw) => {
      openSse(res);
      res.write(frame(1));
      const timer = setInterval(() => res.write(": keep-alive\n\n"), 10);
      raw.on("close", () => {
        closed = true;
        clearInterval(timer);
      });
    });
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      await collect(client.sandboxes.logs("sb-1"), 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(closed).toBe(true);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("without follow, ends after the history", async () => {
    const server = await startLoopback((_req, res) => {
      openSse(res);
      res.write(frame(1) + frame(2)); // then stays open with no more lines
    });
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {} });
    try {
      const events = await collect(client.sandboxes.logs("sb-1", { follow: false, idleMs: 100 }));
      expect(events.map((e) => e.line)).toEqual(["line 1", "line 2"]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
