/**
 * One attempt of each network probe (provider/runtime/probes.ts) against real listeners on
 * 127.0.0.1, started and stopped here: what passes, and the words a failure is reported in.
 */
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { probeHttp, probeSshBanner, probeTcp } from "../../provider/runtime/probes";
import { REFUSED_PORT } from "../helpers/loopback";

const servers: Array<Server | HttpServer> = [];
const sockets = new Set<Socket>();

async function listen(server: Server | HttpServer): Promise<number> {
  servers.push(server);
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe("tcp probe", () => {
  it("passes when the port accepts, and says 'connection refused' when nothing listens", async () => {
    const port = await listen(createServer(() => undefined));
    expect(await probeTcp("127.0.0.1", port, 2000)).toEqual({ ok: true, detail: "connection accepted" });
    expect(await probeTcp("127.0.0.1", REFUSED_PORT, 2000)).toEqual({ ok: false, detail: "connection refused" });
  });

  it("fails on a connection the port proxy hangs up at once (nothing listens behind the mapping)", async () => {
    const proxy = await listen(createServer((socket) => socket.end()));
    expect(await probeTcp("127.0.0.1", proxy, 2000)).toEqual({ ok: false, detail: "connection closed at once (nothing listens behind the mapping)" });
    const resetting = await listen(createServer((socket) => socket.resetAndDestroy()));
    expect((await probeTcp("127.0.0.1", resetting, 2000)).ok).toBe(false);
  });
});

describe("ssh probe", () => {
  it("passes on an SSH protocol banner, sending nothing", async () => {
    const received: Buffer[] = [];
    const port = await listen(
      createServer((socket) => {
        socket.on("data", (chunk) => received.push(chunk));
        socket.write("SSH-2.0-OpenSSH_9.6\r\n");
      }),
    );
    expect(await probeSshBanner("127.0.0.1", port, 2000)).toEqual({ ok: true, detail: "banner received" });
    expect(Buffer.concat(received).length).toBe(0);
  });

  it("fails on a connection closed before a banner (a port proxy with nothing behind it), and on another protocol", async () => {
    const proxy = await listen(createServer((socket) => socket.end()));
    expect(await probeSshBanner("127.0.0.1", proxy, 2000)).toEqual({ ok: false, detail: "connection closed before an SSH banner" });
    const web = await listen(createServer((socket) => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n")));
    expect(await probeSshBanner("127.0.0.1", web, 2000)).toEqual({ ok: false, detail: 'answered without an SSH banner ("HTTP/1.1 400 Bad Request")' });
    const silentAfterLine = await listen(createServer((socket) => socket.write("please wait\r\n")));
    // The attempt's whole time passes (the line is no banner, the server says no more): long
    // enough that the line, sent at once, is read before it ends on a loaded machine too.
    expect(await probeSshBanner("127.0.0.1", silentAfterLine, 2000)).toEqual({ ok: false, detail: 'answered without an SSH banner ("please wait")' });
  });

  it("passes on a banner that follows other lines (RFC 4253 4.2)", async () => {
    const port = await listen(createServer((socket) => socket.write("Welcome to the GPU box\r\nSSH-2.0-OpenSSH_9.6\r\n")));
    expect(await probeSshBanner("127.0.0.1", port, 2000)).toEqual({ ok: true, detail: "banner received" });
  });

  it("gives up an attempt that gets no banner in its time", async () => {
    const silent = await listen(createServer(() => undefined));
    expect(await probeSshBanner("127.0.0.1", silent, 300)).toEqual({ ok: false, detail: "no banner within the attempt's time" });
  });
});

describe("http probe", () => {
  it("passes on a 2xx, or on exactly the expected status, and names the status otherwise", async () => {
    const paths: string[] = [];
    const headers: string[][] = [];
    const port = await listen(
      createHttpServer((req, res) => {
        paths.push(req.url ?? "");
        headers.push(Object.keys(req.headers));
        res.statusCode = req.url === "/health" ? 200 : req.url === "/down" ? 503 : 401;
        res.end("{}");
      }),
    );
    expect(await probeHttp("127.0.0.1", port, "/health", undefined, 2000)).toEqual({ ok: true, detail: "HTTP 200" });
    expect(await probeHttp("127.0.0.1", port, "/down", undefined, 2000)).toEqual({ ok: false, detail: "HTTP 503, expected 2xx" });
    expect(await probeHttp("127.0.0.1", port, "/login", 401, 2000)).toEqual({ ok: true, detail: "HTTP 401" });
    expect(paths).toEqual(["/health", "/down", "/login"]);
    // No credentials or provider headers go to the pod.
    expect(headers.flat().filter((h) => /authorization|cookie|api/i.test(h))).toEqual([]);
  });

  it("says what happened when no HTTP answer comes", async () => {
    expect(await probeHttp("127.0.0.1", REFUSED_PORT, "/", undefined, 2000)).toEqual({ ok: false, detail: "connection refused" });
    const proxy = await listen(createServer((socket) => socket.end()));
    expect(await probeHttp("127.0.0.1", proxy, "/", undefined, 2000)).toEqual({ ok: false, detail: "connection closed before an HTTP answer" });
  });
});
