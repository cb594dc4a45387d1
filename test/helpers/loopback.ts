/** A scripted HTTP server on 127.0.0.1 for SDK tests that need exact wire behaviour. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ComputeClient } from "../../sdk";

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export type Handler = (req: SeenRequest, res: ServerResponse, raw: IncomingMessage) => unknown;

export interface Loopback {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: SeenRequest[] = [];
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on("data", (c: Buffer) => chunks.push(c));
    raw.on("end", () => {
      const url = new URL(raw.url ?? "/", "http://x");
      const seen: SeenRequest = {
        method: raw.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        headers: raw.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res, raw)).catch((error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a ComputeClient takes, watcher settings included. */
type ClientOptions = ConstructorParameters<typeof ComputeClient>[0];

/**
 * For a file whose tests each script their own server: the returned `serve(handler, options)`
 * starts one and a client pointed at it (`defaults`, then `options`, over the test key), and
 * both are closed after the test, whatever it did.
 */
export function useLoopback(defaults: ClientOptions = {}) {
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    // The client first, then its server: the order a test would close them in.
    for (const each of opened.splice(0).reverse()) await each.close();
  });
  return async (handler: Handler, options: ClientOptions = {}) => {
    const server = await startLoopback(handler);
    opened.push(server);
    const client = new ComputeClient({ baseUrl: server.url, apiKey: TEST_KEY, env: {}, ...defaults, ...options });
    opened.push(client);
    return { server, client };
  };
}

/**
 * A handler that answers the first request with `answers[0]`, the second with `answers[1]` and
 * so on; the last one answers every request after it too.
 */
export function inTurn(...answers: Handler[]): Handler {
  let next = 0;
  return (req, res, raw) => answers[Math.min(next++, answers.length - 1)](req, res, raw);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": status >= 400 ? "application/problem+json" : "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function problem(res: ServerResponse, status: number, detail: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): void {
  sendJson(res, status, { title: `Status ${status}`, status, detail, ...extra }, headers);
}

export const TEST_KEY = "cs_test_secret_key_0123456789";

/**
 * A loopback port where a connection is refused: 9 (discard), privileged, so never handed out by
 * `listen(0)` and bound by no suite. A port bound and then closed is not safe for this: with
 * the suites running side by side, another suite's server listening on port 0 may take it in
 * between (a run once met an emulator there, and its 401, where a refusal was expected).
 */
export const REFUSED_PORT = 9;
