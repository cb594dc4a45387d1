/**
 * The reply of GET /v2/pods/{id}/logs and GET /v2/sandboxes/{id}/logs: the same parameters and
 * framing (decisions), with a 409 carrying `code` while no container can stream. Each family's
 * routes.ts declares its log route with its subject and its framing (`StreamStyle`).
 */
import { conflict, type StreamReply } from "../http";
import type { Operation } from "../router";
import type { ShapeProfile } from "../shape";
import { readStreamRequest, type LogStreams, type LogSubject } from "./stream";

/** How one stream kind is framed and what it does when no container can stream. */
export type StreamStyle = ShapeProfile["podLogs"];

/** The query is read (422) before the subject is looked up (404). */
export function streamReply(streams: LogStreams, op: Operation<unknown>, subjectOf: () => LogSubject, style: StreamStyle): StreamReply {
  const lastEventId = op.headers["last-event-id"];
  const request = readStreamRequest(op.query, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId, style.resumeAfterUs);
  request.eventId = style.eventId;
  const subject = subjectOf();
  const unavailable = subject.unavailable(op.now);
  // "end": the stream sends the history there is and closes at its first check.
  if (unavailable && style.whenUnavailable === "conflict") throw conflict(unavailable.detail, unavailable.code);
  return {
    kind: "stream",
    status: 200,
    start: (req, res, headers) => streams.start(subject, request, req, res, headers),
  };
}
