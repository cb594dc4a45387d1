/**
 * What a service that is up says, by kind: an SSH server's protocol banner, a web server's JSON
 * answer, a TCP server that holds the line. None goes further (no key exchange, no application):
 * a client learns that the service answers, which is what a readiness probe asks, and nothing
 * it could log in to.
 */
import { createServer } from "node:http";
import type { Socket } from "node:net";
import { httpDate } from "../time";
import type { ConnectionHandler } from "./listener";

/** A connection with no traffic is closed after this long, as servers with an idle timeout do. */
export const IDLE_MS = 30_000;

/** The SSH protocol identification (RFC 4253 §4.2) an OpenSSH server sends first. */
export const SSH_BANNER = "SSH-2.0-OpenSSH_9.6 compute-emulator\r\n";

/** Keeps the connection open, reading and dropping what the client sends, until the client closes it or it idles. */
function hold(socket: Socket): void {
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  socket.on("end", () => socket.end());
  socket.resume();
}

/** An SSH server: the banner, then nothing more (the client's key exchange is never answered). */
export const serveSsh: ConnectionHandler = (socket) => {
  socket.write(SSH_BANNER);
  hold(socket);
};

/** A TCP server whose protocol the emulator does not speak: it accepts and holds the connection. */
export const serveTcp: ConnectionHandler = hold;

/**
 * A web server: every request, any method and path, is answered `200 {"status":"ok"}` as JSON,
 * or `503 {"status":"unavailable"}` while `unavailable()` says so (asked per request, so a
 * change of the pod's settings shows on the next request). Its `Date` is the emulator clock's,
 * as every answer of the emulator's.
 */
export function webServer(unavailable: () => boolean, now: () => number): ConnectionHandler {
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    req.resume();
    const down = unavailable();
    const body = JSON.stringify({ status: down ? "unavailable" : "ok" });
    res.sendDate = false;
    res.writeHead(down ? 503 : 200, { Date: httpDate(now()), "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
  server.timeout = IDLE_MS;
  // The server never listens: the service host hands it each connection its listener accepted.
  return (socket) => {
    server.emit("connection", socket);
  };
}
