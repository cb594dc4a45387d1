/**
 * One attempt of each network probe, against an address the service published. Each answers
 * `{ok, detail}`: `detail` is what a person reads in a progress line or a failure message
 * ("connection refused", "banner received"). Nothing is ever sent but a TCP handshake or a bare
 * HTTP GET: no credentials, no headers of the provider's, no secret.
 *
 * Plain `node:net` and undici's `request` rather than an SSH or health-check library: the probe
 * proves only that a service answers, and a library that goes on to a key exchange would need
 * credentials the probe must not have.
 */
import { Socket } from "node:net";
import { undici } from "../../sdk/lazy-undici";
import { statusPasses } from "../../contract/readiness";
import { redactLogLine } from "./secrets";

export interface ProbeOutcome {
  ok: boolean;
  detail: string;
}

/** The bytes an SSH server may send before and with its identification line (RFC 4253 4.2: 255 per line). */
const BANNER_WINDOW = 255;

/** How long a plain TCP connection must stay open to count as accepted by a service. */
const HOLD_MS = 300;

/** The words for a failed connection, from its error code. */
function connectionFailure(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
    case "EPIPE":
      return "connection reset";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    case "ETIMEDOUT":
      return "timed out";
    default:
      return error.code ? `${error.code.toLowerCase()}` : error.message;
  }
}

/**
 * Connects, then (with `banner`) waits for the first line: the SSH protocol identification
 * (`SSH-2.0-…`, or `SSH-1.99-…` of a server that also speaks the old protocol). A connection
 * closed before it means nothing serves the port yet (a container runtime's port proxy accepts
 * for a mapped port and closes at once when nothing listens inside).
 */
function connect(host: string, port: number, timeoutMs: number, banner: boolean): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let received = "";
    let settled = false;
    const done = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    // What the port sent instead of a banner, quoted only as far as it is safe to: redacted, short.
    const notSsh = () => `answered without an SSH banner (${JSON.stringify(redactLogLine(received.split("\n")[0]!.replace(/\r$/, "")).slice(0, 40))})`;
    const closed = () => (!banner ? "connection closed at once (nothing listens behind the mapping)" : received === "" ? "connection closed before an SSH banner" : notSsh());
    const timer = setTimeout(
      () => done({ ok: false, detail: !banner || socket.readyState !== "open" ? "timed out" : received === "" ? "no banner within the attempt's time" : notSsh() }),
      timeoutMs,
    );
    socket.once("error", (error: NodeJS.ErrnoException) => done({ ok: false, detail: connectionFailure(error) }));
    socket.once("connect", () => {
      // A port proxy accepts for a mapped port and hangs up at once when nothing listens behind
      // it: only a connection that stays open a moment is a service.
      if (!banner) setTimeout(() => done({ ok: true, detail: "connection accepted" }), Math.min(HOLD_MS, timeoutMs / 2)).unref();
    });
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      // A server may send other lines before its identification (RFC 4253 4.2): look at every
      // whole line within the first 255 bytes.
      const lines = received.slice(0, BANNER_WINDOW).split("\n");
      const whole = received.length >= BANNER_WINDOW ? lines : lines.slice(0, -1);
      if (whole.some((line) => /^SSH-(2\.0|1\.99)-/.test(line))) return done({ ok: true, detail: "banner received" });
      if (received.length >= BANNER_WINDOW || whole.some((line) => line.startsWith("SSH-"))) done({ ok: false, detail: notSsh() });
    });
    socket.once("end", () => done({ ok: false, detail: closed() }));
    socket.once("close", () => done({ ok: false, detail: closed() }));
    socket.connect(port, host);
  });
}

/** The port accepts a TCP connection. */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  return connect(host, port, timeoutMs, false);
}

/** The port answers with an SSH protocol banner; the probe then hangs up (no key exchange). */
export function probeSshBanner(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  return connect(host, port, timeoutMs, true);
}

/** An HTTP GET of `path` answers with the expected status (default: any 2xx). */
export async function probeHttp(host: string, port: number, path: string, expectStatus: number | undefined, timeoutMs: number): Promise<ProbeOutcome> {
  // A client of its own, closed after the attempt: no pooled socket is left open to the pod, and
  // no dispatcher the host process set (a proxy) is used.
  const client = new (undici().Client)(`http://${host.includes(":") ? `[${host}]` : host}:${port}`, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  try {
    const response = await client.request({ method: "GET", path, signal: AbortSignal.timeout(timeoutMs) });
    await response.body.dump();
    const status = response.statusCode;
    if (statusPasses(status, expectStatus)) return { ok: true, detail: `HTTP ${status}` };
    return { ok: false, detail: `HTTP ${status}, expected ${expectStatus ?? "2xx"}` };
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "UND_ERR_SOCKET" || code === "UND_ERR_CLOSED") return { ok: false, detail: "connection closed before an HTTP answer" };
    if (code === "UND_ERR_HEADERS_TIMEOUT" || (error as Error).name === "TimeoutError" || (error as Error).name === "AbortError") return { ok: false, detail: "no HTTP answer within the attempt's time" };
    return { ok: false, detail: connectionFailure(cause ?? (error as NodeJS.ErrnoException)) };
  } finally {
    await client.destroy().catch(() => undefined);
  }
}
