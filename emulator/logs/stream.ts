/**
 * Server-Sent Events for pod and sandbox logs (contract: Events).
 *
 * Framing: `id: <ts>` then `data: {"source","line","ts"}` then a blank line. The backfill is the
 * last `tail` lines, or everything after `since` (inclusive) or after `Last-Event-ID`
 * (exclusive); then live lines as the emulator clock reaches them. Open streams are re-checked
 * on a short real-time tick and whenever the clock jumps, so a frozen clock sends nothing new
 * and advancing it delivers the lines that became due at once. When the container stops, the
 * final lines are sent and the response ends.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_LOG_TAIL, LogSource, MAX_LOG_TAIL } from "../../contract";
import type { Clock } from "../clock";
import { httpDate, isoMicros, parseMicros } from "../time";
import { readQuery } from "../query";
import { eventsAfter, lastEvents, lastVisibleUs, type LogEvent, type RunLog } from "./timeline";

const TICK_MS = 100;
const HEARTBEAT_MS = 15000;
/** Events written per tick; a long backlog (after a big clock jump) drains over a few ticks. */
const BATCH = 2000;

export interface LogSubject {
  runs(now: number): RunLog[];
  /** Null while logs can stream; otherwise the 409 problem (also the reason an open stream ends). */
  unavailable(now: number): { code: string; detail: string } | null;
  opened?(): void;
  closed?(): void;
}

export interface StreamRequest {
  source?: LogSource;
  tail: number;
  /** Resume point in microseconds; events strictly after it. */
  afterUs?: number;
  /** The SSE `id:` of an event at `us` (default: the line's timestamp with microseconds). */
  eventId?: (us: number) => string;
}

/**
 * Reads `source`, `tail`, `since` and `Last-Event-ID` with the contract's precedence.
 * `resumeAfterUs` maps the instant a `Last-Event-ID` names to the resume point (ids of whole
 * seconds resume at the start of their second).
 */
export function readStreamRequest(
  query: URLSearchParams,
  lastEventId: string | undefined,
  resumeAfterUs: (us: number) => number = (us) => us,
): StreamRequest {
  const { source, tail, since } = readQuery(query, (q) => {
    const source = q.enumValue("source", LogSource.options);
    const tail = q.integer("tail", 0, MAX_LOG_TAIL);
    const sinceText = q.string("since");
    const since = sinceText === undefined ? undefined : parseMicros(sinceText);
    if (sinceText !== undefined && since === undefined) q.fail("since", "must be an RFC 3339 date-time");
    return { source, tail, since };
  });
  // Last-Event-ID wins over since, which wins over tail. An id we cannot read is ignored, as
  // EventSource clients resend whatever they last saw.
  const lastId = lastEventId === undefined ? undefined : parseMicros(lastEventId);
  if (lastId !== undefined) return { source, tail: 0, afterUs: resumeAfterUs(lastId) };
  if (since !== undefined) return { source, tail: 0, afterUs: since - 1 };
  return { source, tail: tail ?? DEFAULT_LOG_TAIL };
}

interface OpenStream {
  subject: LogSubject;
  source?: LogSource;
  res: ServerResponse;
  cursorUs: number;
  frame: (e: LogEvent) => string;
  lastWrite: number;
  closed: boolean;
}

const boundOf = (now: number) => now * 1000 + 999;

function framer(eventId: (us: number) => string = isoMicros): (e: LogEvent) => string {
  return (e) => `id: ${eventId(e.us)}\ndata: ${JSON.stringify({ source: e.source, line: e.line, ts: isoMicros(e.us) })}\n\n`;
}

export class LogStreams {
  private readonly open = new Set<OpenStream>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly clock: Clock) {
    clock.onChange(() => this.tickAll());
  }

  get count(): number {
    return this.open.size;
  }

  start(subject: LogSubject, request: StreamRequest, req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    const now = this.clock.now();
    const runs = subject.runs(now);
    const filter = { source: request.source, boundUs: boundOf(now) };
    const backfill =
      request.afterUs !== undefined ? eventsAfter(runs, request.afterUs, filter) : lastEvents(runs, request.tail, filter);
    res.writeHead(200, {
      ...headers,
      Date: httpDate(now),
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    const frame = framer(request.eventId);
    let chunk = "";
    for (const e of backfill) chunk += frame(e);
    res.write(chunk || ": stream open\n\n");
    const stream: OpenStream = {
      subject,
      source: request.source,
      res,
      cursorUs: Math.max(lastVisibleUs(runs, filter.boundUs), backfill.length ? backfill[backfill.length - 1].us : -Infinity),
      frame,
      lastWrite: Date.now(),
      closed: false,
    };
    this.open.add(stream);
    subject.opened?.();
    const finish = () => this.finish(stream);
    req.on("close", finish);
    res.on("close", finish);
    this.ensureTimer();
    this.tick(stream);
  }

  /** Ends every open stream (server shutdown, fixture reset). */
  closeAll(): void {
    for (const stream of [...this.open]) {
      stream.res.end();
      this.finish(stream);
    }
  }

  /** Checks every stream now, e.g. after a mutation that may have stopped a container. */
  tickAll(): void {
    for (const stream of [...this.open]) this.tick(stream);
  }

  private tick(stream: OpenStream): void {
    if (stream.closed || stream.res.writableNeedDrain) return;
    const now = this.clock.now();
    const runs = stream.subject.runs(now);
    const events = eventsAfter(runs, stream.cursorUs, { source: stream.source, boundUs: boundOf(now) }, BATCH);
    if (events.length > 0) {
      stream.res.write(events.map(stream.frame).join(""));
      stream.cursorUs = events[events.length - 1].us;
      stream.lastWrite = Date.now();
      if (events.length === BATCH) return; // more backlog; the next tick continues
    } else if (Date.now() - stream.lastWrite > HEARTBEAT_MS) {
      stream.res.write(": keep-alive\n\n");
      stream.lastWrite = Date.now();
    }
    // Non-matching-source events also move the cursor, so the next check starts after them.
    stream.cursorUs = Math.max(stream.cursorUs, lastVisibleUs(runs, boundOf(now)));
    if (stream.subject.unavailable(now)) {
      stream.res.end();
      this.finish(stream);
    }
  }

  private finish(stream: OpenStream): void {
    if (stream.closed) return;
    stream.closed = true;
    this.open.delete(stream);
    stream.subject.closed?.();
    if (this.open.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tickAll(), TICK_MS);
    this.timer.unref();
  }
}
