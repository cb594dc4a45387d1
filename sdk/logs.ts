/**
 * Log streams of pods and sandboxes as an async iterator of `{source, line, ts}`.
 *
 * Frames are Server-Sent Events (`id: <ts>` then `data: <json>`), parsed by the well-kept
 * `eventsource-parser`. `EventSource` itself is not used: it cannot send the bearer header,
 * and its reconnect logic cannot tell the contract's 409 codes apart.
 *
 * - A dropped connection reconnects with `Last-Event-ID` (the last id delivered), and ids at or
 *   before it are skipped, so no line is lost or repeated.
 * - 409 `sandbox_starting`: the container does not exist yet; wait and try again.
 * - 409 `container_exited` / `sandbox_terminated`: nothing more will come; the iterator ends.
 * - `break` (or `return`) closes the connection.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ComputeError, ConflictError, ConnectionError, ResponseValidationError } from "./errors";
import type { HttpCore } from "./http";
import { backoff, sleep } from "./retry";
import { LogEvent, parseWire } from "./schemas";

export type { LogEvent };

export interface LogStreamOptions {
  /** Only `container` (the main process's stdout) or only `system` (lifecycle) lines. */
  source?: "container" | "system";
  /** Lines of history before live lines (service default 100, maximum 5000; 0 = live only). */
  tail?: number;
  /** RFC 3339 resume point; `tail` is then ignored. */
  since?: string;
  /**
   * Keep streaming live lines (default true). With false the iterator ends once the history is
   * delivered: at the first line stamped after the moment of connecting, or after `idleMs` of
   * silence (the protocol has no end-of-history marker).
   */
  follow?: boolean;
  idleMs?: number;
  /** How long to wait out `sandbox_starting` before giving up, in milliseconds. Default 120000. */
  startTimeoutMs?: number;
  /** Consecutive failed reconnects tolerated. Default 8. */
  maxReconnects?: number;
  signal?: AbortSignal;
}

/** `a` is later than `b`: RFC 3339 stamps of one stream share a format, so compare as text then as time. */
export function isAfter(a: string, b: string): boolean {
  if (a.length === b.length) return a > b;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return Number.isNaN(ta) || Number.isNaN(tb) ? a > b : ta > tb;
}

const FINAL_CODES = new Set(["container_exited", "sandbox_terminated"]);

export async function* streamLogs(http: HttpCore, path: string, options: LogStreamOptions = {}): AsyncGenerator<LogEvent, void, undefined> {
  const follow = options.follow ?? true;
  const idleMs = options.idleMs ?? 750;
  const startDeadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  const maxReconnects = options.maxReconnects ?? 8;
  let lastId: string | undefined;
  let failures = 0;
  let startingWaits = 0;
  // Where history ends for a non-follow read: the service's clock when the stream opened,
  // learned from that response's Date header (whole seconds, so the rest of that second counts
  // as history). Not the local clock: a service clock ahead of it would cut off history.
  let connectedAt: string | undefined;

  for (;;) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let stream;
      try {
        stream = await http.openStream({
          path,
          signal: controller.signal,
          query:
            lastId === undefined
              ? { source: options.source, tail: options.tail, since: options.since }
              : { source: options.source },
          headers: lastId === undefined ? {} : { "last-event-id": lastId },
        });
      } catch (error) {
        if (error instanceof ConflictError && error.code && FINAL_CODES.has(error.code)) return;
        if (error instanceof ConflictError && error.code === "sandbox_starting") {
          if (Date.now() > startDeadline) throw error;
          await sleep(Math.min(2000, 250 * 2 ** Math.min(startingWaits++, 3)), options.signal);
          continue;
        }
        if (error instanceof ConnectionError && !options.signal?.aborted && failures < maxReconnects) {
          await sleep(backoff(failures++, { initialBackoffMs: 250, maxBackoffMs: 4000 }), options.signal);
          continue;
        }
        throw error;
      }
      failures = 0;
      connectedAt ??= new Date(http.serverNow() + 1000).toISOString();

      const pending: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (event) => pending.push(event) });
      const decoder = new TextDecoder();
      const chunks = stream.body[Symbol.asyncIterator]();
      let ended = false;
      while (!ended) {
        const next = follow ? await readChunk(chunks) : await readChunkWithin(chunks, idleMs);
        if (next === "idle") return;
        if (next.done) {
          ended = true;
          parser.feed(decoder.decode());
        } else {
          parser.feed(decoder.decode(next.value as Uint8Array, { stream: true }));
        }
        for (const message of pending.splice(0)) {
          const event = decodeEvent(message, stream.request);
          if (event === undefined) continue;
          const id = message.id ?? event.ts;
          if (lastId !== undefined && !isAfter(id, lastId)) continue; // already delivered
          if (!follow && connectedAt !== undefined && isAfter(event.ts, connectedAt)) return;
          lastId = id;
          yield event;
        }
      }
      // The server closed the stream: either the container stopped (the reconnect gets a 409
      // that ends the iteration) or the connection was cut (the reconnect resumes).
      if (!follow) return;
    } catch (error) {
      if (options.signal?.aborted) return;
      if (error instanceof ComputeError) throw error;
      // A connection dropped mid-body: resume after the last delivered id.
      if (failures >= maxReconnects) throw new ConnectionError({ method: "GET", path }, `log stream failed: ${(error as Error).message}`, { cause: error });
      await sleep(backoff(failures++, { initialBackoffMs: 250, maxBackoffMs: 4000 }), options.signal);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      controller.abort();
    }
  }
}

function decodeEvent(message: EventSourceMessage, request: { method: string; path: string }): LogEvent | undefined {
  if (message.event && message.event !== "message") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    throw new ResponseValidationError(request, [`(event ${message.id ?? "?"}): data is not JSON`]);
  }
  const parsed = parseWire(LogEvent, json);
  if (!parsed.ok) throw new ResponseValidationError(request, parsed.violations);
  return parsed.value;
}

type Chunk = IteratorResult<unknown>;

function readChunk(chunks: AsyncIterator<unknown>): Promise<Chunk> {
  return chunks.next();
}

async function readChunkWithin(chunks: AsyncIterator<unknown>, ms: number): Promise<Chunk | "idle"> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<"idle">((resolve) => {
    timer = setTimeout(() => resolve("idle"), ms);
  });
  try {
    return await Promise.race([chunks.next(), idle]);
  } finally {
    clearTimeout(timer);
  }
}
