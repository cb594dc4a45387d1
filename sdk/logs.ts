/**
 * Log streams of pods and sandboxes as an async iterator of `{source, line, ts}`.
 *
 * Frames are Server-Sent Events (`id: ...` then `data: <json>`), parsed by the well-kept
 * `eventsource-parser`. `EventSource` itself is not used: it cannot send the bearer header, its
 * reconnect logic cannot tell the contract's 409 codes apart, and it reconnects at a fixed pace.
 *
 * Exactly once, in order. The documents allow four framings: `id` = the line's `ts` with
 * microseconds (our emulator); `id` = a `ts` of whole seconds, shared by every line of that
 * second (the seed: "the id is the ts"); `id` = `<ts>/<sequence>` (the public OpenAPI's
 * examples); and no `id:` lines at all. So an id is a *position* in the stream, not a line's
 * identity, and several lines may share one. Hence:
 * - Within one connection nothing is filtered: the server sends each line once, in order.
 *   (Skipping ids "not after the last one" there dropped every line but the first of a second.)
 * - A resume sends the server's own cursor: `Last-Event-ID` = the last id seen, or, when lines
 *   come without ids, `since` = the last line's `ts`. Except a whole-second id: it is shared by
 *   every line of its second, so a server that resumes strictly after it would skip the rest of
 *   that second. The cursor then is `since` = one second before it, which no reading of a resume
 *   point (after it, from it, truncated to seconds) can put past an undelivered line; what comes
 *   again is dropped as below. The server may re-send lines at that cursor:
 *   our emulator continues after a `Last-Event-ID` (as the seed says) but includes `since`; the
 *   OpenAPI only says both "resume from this point"; and a second-precision id cannot say which
 *   lines of its second were already sent, so a faithful server must send that second again. So
 *   the reader remembers every line it delivered at the last position (by content, with counts)
 *   and, after a resume, skips lines before that position and exactly those remembered lines at
 *   it; the first line past it ends the skipping. Two identical lines in one second are both
 *   delivered, and a re-send of both is skipped, not just one. This holds whether the server
 *   resumes after the cursor or from it.
 * - Nothing delivered yet: the resume repeats the first request (history, or `since`); for a
 *   live-only read (`tail: 0`) it asks `since` = the service's clock when the stream first opened,
 *   so lines written while reconnecting are not lost.
 *
 * Calm. A 200 whose body ends is the normal end of a stream (the public OpenAPI lists no 409 for
 * pod logs). In follow mode the reader then asks `isFinished` (the resource's state, wired by
 * `pods.logs` and `sandboxes.logs`) and ends if so; otherwise it reconnects after a delay that
 * doubles (1 s up to 30 s, equal jitter) for as long as connections bring no new line, and goes
 * back to 1 s only when lines actually arrive. A cut connection resumes the same way from 250 ms.
 * So a service that keeps ending empty streams sees at most a handful of reconnects a minute.
 * - 409 `sandbox_starting`: the container does not exist yet; wait and try again.
 * - 409 `container_exited` / `sandbox_terminated`: nothing more will come; the iterator ends.
 * - 404: with `isFinished`, the resource decides (gone or stopped: the iterator ends, or throws
 *   the 404 when nothing was ever streamed; otherwise wait calmly); without it, thrown.
 * - `break` (or `return`) closes the connection.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ComputeError, ConflictError, ConnectionError, NotFoundError, ResponseValidationError } from "./errors";
import type { HttpCore, StreamSpec } from "./http";
import { backoff, sleep } from "./retry";
import { LogEvent, jsonValue, parseWire } from "../contract";

export type { LogEvent };

export interface LogStreamOptions {
  /** Only `container` (the main process's stdout) or only `system` (lifecycle) lines. */
  source?: "container" | "system";
  /** Lines of history before live lines (service default `DEFAULT_LOG_TAIL`, at most `MAX_LOG_TAIL`, contract/logs.ts; 0 = live only). */
  tail?: number;
  /** RFC 3339 resume point; `tail` is then ignored. */
  since?: string;
  /**
   * Keep streaming live lines (default true). With false the iterator ends once the history is
   * delivered: at the first line stamped after the moment of connecting, or after `idleMs` of
   * silence (the protocol has no end-of-history marker), or when the server ends the stream.
   */
  follow?: boolean;
  idleMs?: number;
  /**
   * Asked in follow mode after the server ends a stream normally, and on a 404: true when no more
   * lines can come (the resource stopped or is gone), which ends the iterator. A `NotFoundError`
   * thrown by it counts as true, any other SDK error as false (not known to be over). Without it,
   * follow mode reconnects (calmly) until a 409 says the container is gone. `pods.logs` and
   * `sandboxes.logs` supply one from the resource's state.
   */
  isFinished?: () => Promise<boolean>;
  /** How long to wait out `sandbox_starting` before giving up, in milliseconds. Default 120000. */
  startTimeoutMs?: number;
  /** Consecutive failed connects tolerated. Default 8. */
  maxReconnects?: number;
  signal?: AbortSignal;
}

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)(?:\/(\d+))?$/i;

/**
 * Orders two stream positions: ids (`<ts>` or `<ts>/<sequence>`) or line stamps. Stamps compare
 * as instants to the nanosecond whatever their precision or offset, then sequences as numbers;
 * anything else compares as text.
 */
export function comparePositions(a: string, b: string): number {
  if (a === b) return 0;
  const ma = RFC3339.exec(a);
  const mb = RFC3339.exec(b);
  const sa = ma ? Date.parse(ma[1] + ma[3]) : NaN;
  const sb = mb ? Date.parse(mb[1] + mb[3]) : NaN;
  if (Number.isNaN(sa) || Number.isNaN(sb)) return a < b ? -1 : a > b ? 1 : 0;
  if (sa !== sb) return sa < sb ? -1 : 1;
  const fa = (ma![2] ?? "").padEnd(9, "0");
  const fb = (mb![2] ?? "").padEnd(9, "0");
  if (fa !== fb) return fa < fb ? -1 : 1;
  const qa = ma![4] === undefined ? -1n : BigInt(ma![4]);
  const qb = mb![4] === undefined ? -1n : BigInt(mb![4]);
  return qa === qb ? 0 : qa < qb ? -1 : 1;
}

/** `a` is later than `b` (see `comparePositions`). */
function isAfter(a: string, b: string): boolean {
  return comparePositions(a, b) > 0;
}

const WHOLE_SECOND = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/i;

/** For a whole-second timestamp id, the second before it (same precision, UTC); otherwise undefined. */
function secondBefore(id: string): string | undefined {
  if (!WHOLE_SECOND.test(id)) return undefined;
  const ms = Date.parse(id);
  return Number.isNaN(ms) ? undefined : new Date(ms - 1000).toISOString().replace(/\.000Z$/, "Z");
}

/** What a line is, for recognising it when the server sends it again. */
const identity = (e: LogEvent) => `${e.source}\n${e.ts}\n${e.line}`;

/**
 * The reader's memory of what it delivered: the last position (id, or `ts` without ids) with
 * every line delivered at it, and, right after a resume, which of those the server may repeat.
 */
class Delivered {
  /** Id of the last line, or its `ts` when it came without one; undefined before the first line. */
  private position: string | undefined;
  private lastId: string | undefined;
  private lastTs: string | undefined;
  /** Its first `atPositionCount` entries are the lines delivered at `position` (reused, not reallocated, per line). */
  private readonly atPosition: LogEvent[] = [];
  private atPositionCount = 0;
  /** Lines at `position` not yet seen again since the resume, by identity, with counts. */
  private replay: Map<string, number> | undefined;

  /** Query and headers of the next connect: the first request's, or a resume after the last line. */
  request(options: LogStreamOptions, liveFrom: string | undefined): Pick<StreamSpec, "query" | "headers"> {
    const source = options.source;
    if (this.lastId !== undefined) {
      const before = secondBefore(this.lastId);
      if (before !== undefined) return { query: { source, since: before }, headers: {} };
      return { query: { source }, headers: { "last-event-id": this.lastId } };
    }
    if (this.lastTs !== undefined) return { query: { source, since: this.lastTs }, headers: {} };
    if (liveFrom !== undefined && options.tail === 0 && options.since === undefined) return { query: { source, since: liveFrom }, headers: {} };
    return { query: { source, tail: options.tail, since: options.since }, headers: {} };
  }

  /** A new connection resumes after `position`: what it may send again is what was delivered there. */
  resume(): void {
    if (this.position === undefined) return;
    this.replay = new Map();
    for (let i = 0; i < this.atPositionCount; i++) {
      const event = this.atPosition[i];
      const key = identity(event);
      this.replay.set(key, (this.replay.get(key) ?? 0) + 1);
    }
  }

  /** Records the line and returns true when it is new; false when it was delivered before. */
  accept(event: LogEvent, id: string | undefined): boolean {
    const position = id ?? event.ts;
    let samePosition = position === this.position;
    if (this.replay !== undefined) {
      const order = comparePositions(position, this.position!);
      if (order < 0) return false;
      if (order === 0) {
        samePosition = true;
        const key = identity(event);
        const left = this.replay.get(key);
        if (left !== undefined) {
          if (left === 1) this.replay.delete(key);
          else this.replay.set(key, left - 1);
          return false;
        }
      } else {
        this.replay = undefined; // past the resume point: everything from here on is new
      }
    }
    if (!samePosition) {
      this.position = position;
      this.atPositionCount = 0;
    }
    this.atPosition[this.atPositionCount++] = event;
    this.lastId = id;
    this.lastTs = event.ts;
    return true;
  }
}

const FINAL_CODES = new Set(["container_exited", "sandbox_terminated"]);
/** Reconnect delays while connections bring nothing new; back to the start when lines arrive. */
const AFTER_END = { initialBackoffMs: 1000, maxBackoffMs: 30_000 };
const AFTER_CUT = { initialBackoffMs: 250, maxBackoffMs: 30_000 };

export async function* streamLogs(http: HttpCore, path: string, options: LogStreamOptions = {}): AsyncGenerator<LogEvent, void, undefined> {
  const follow = options.follow ?? true;
  const idleMs = options.idleMs ?? 750;
  const startDeadline = Date.now() + (options.startTimeoutMs ?? 120_000);
  const maxReconnects = options.maxReconnects ?? 8;
  const delivered = new Delivered();
  let failures = 0; // consecutive connects that failed
  let quiet = 0; // consecutive connections that brought no new line
  let startingWaits = 0;
  let opened = false;
  // The service's clock when the stream first opened (whole seconds, from its Date header).
  let openedAt: string | undefined;
  // Where history ends for a non-follow read: the service's clock when the stream opened, the
  // rest of that second included. Not the local clock: a service clock ahead of it would cut
  // off history.
  let connectedAt: string | undefined;

  // Waits; false when the caller aborted meanwhile (the iterator then simply ends).
  const pause = async (ms: number): Promise<boolean> => {
    try {
      await sleep(ms, options.signal);
      return true;
    } catch (error) {
      if (options.signal?.aborted) return false;
      throw error;
    }
  };
  const finished = async (): Promise<boolean> => {
    if (!options.isFinished) return false;
    try {
      return await options.isFinished();
    } catch (error) {
      if (error instanceof NotFoundError) return true;
      // The state could not be read (network, 5xx after the retries, 429): not known to be over,
      // so keep following; the next connect surfaces a lasting problem itself.
      if (error instanceof ComputeError) return false;
      throw error;
    }
  };

  for (;;) {
    let ending: "ended" | "cut";
    let fresh = 0;
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      let stream;
      try {
        stream = await http.openStream({ path, signal: controller.signal, ...delivered.request(options, openedAt) });
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof ConflictError && error.code && FINAL_CODES.has(error.code)) return;
        if (error instanceof ConflictError && error.code === "sandbox_starting") {
          if (Date.now() > startDeadline) throw error;
          if (!(await pause(Math.min(2000, 250 * 2 ** Math.min(startingWaits++, 3))))) return;
          continue;
        }
        if (error instanceof NotFoundError && options.isFinished) {
          // Gone: the end of the stream, unless nothing was ever streamed (then the id is wrong).
          if (await finished()) {
            if (opened) return;
            throw error;
          }
          if (!(await pause(backoff(quiet++, AFTER_END)))) return;
          continue;
        }
        if (error instanceof ConnectionError && failures < maxReconnects) {
          if (!(await pause(backoff(failures++, { initialBackoffMs: 250, maxBackoffMs: 4000 })))) return;
          continue;
        }
        throw error;
      }
      failures = 0;
      opened = true;
      openedAt ??= new Date(Math.floor(http.serverNow() / 1000) * 1000).toISOString();
      connectedAt ??= new Date(http.serverNow() + 1000).toISOString();
      delivered.resume();

      const pending: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (event) => pending.push(event) });
      const decoder = new TextDecoder();
      const chunks = stream.body[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = follow ? await chunks.next() : await readChunkWithin(chunks, idleMs);
          if (next === "idle") return;
          parser.feed(next.done ? decoder.decode() : decoder.decode(next.value as Uint8Array, { stream: true }));
          for (const message of pending.splice(0)) {
            const event = decodeEvent(message, stream.request);
            if (event === undefined) continue;
            if (!follow && isAfter(event.ts, connectedAt)) return;
            if (!delivered.accept(event, message.id || undefined)) continue;
            fresh += 1;
            yield event;
          }
          if (next.done) break;
        }
        ending = "ended";
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof ComputeError) throw error;
        ending = "cut"; // the connection dropped mid-body: resume after the last delivered line
      }
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      controller.abort();
    }

    if (fresh > 0) quiet = 0;
    if (ending === "ended") {
      if (!follow) return;
      if (await finished()) return;
      if (!(await pause(backoff(quiet++, AFTER_END)))) return;
    } else if (!(await pause(backoff(quiet++, AFTER_CUT)))) {
      return;
    }
  }
}

function decodeEvent(message: EventSourceMessage, request: { method: string; path: string }): LogEvent | undefined {
  if (message.event && message.event !== "message") return undefined;
  const json = jsonValue(message.data);
  if (json === undefined) throw new ResponseValidationError(request, [`(event ${message.id ?? "?"}): data is not JSON`]);
  const parsed = parseWire(LogEvent, json);
  if (!parsed.ok) throw new ResponseValidationError(request, parsed.violations);
  return parsed.value;
}

type Chunk = IteratorResult<unknown>;

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
