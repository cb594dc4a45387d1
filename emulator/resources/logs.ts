/**
 * GET /v2/pods/{id}/logs and GET /v2/sandboxes/{id}/logs: the same parameters and framing
 * (decisions), with a 409 carrying `code` while no container can stream. The `public` answer
 * shape changes the pod stream only (the public OpenAPI describes pods, not sandboxes): ids of
 * whole seconds, and a 200 stream that ends instead of the 409.
 */
import { conflict, type Reply } from "../http";
import { LogStreams, readStreamRequest, type LogSubject } from "../logs/stream";
import type { World } from "../module";
import { route, type Operation, type Route } from "../router";
import { profileOf, type ShapeProfile } from "../shape";

/** How one stream kind is framed and what it does when no container can stream. */
type StreamStyle = ShapeProfile["podLogs"];

const SEED_STYLE = profileOf("seed").podLogs;

export class Logs {
  constructor(
    private readonly world: World,
    readonly streams: LogStreams,
  ) {}

  private stream(op: Operation<unknown>, subjectOf: () => LogSubject, style: StreamStyle): Reply {
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
      start: (req, res, headers) => this.streams.start(subject, request, req, res, headers),
    };
  }

  routes(): Array<Route<unknown>> {
    return [
      route({
        method: "GET",
        path: "/v2/pods/:id/logs",
        family: "pods",
        handle: (op) =>
          this.stream(op, () => this.world.pods.logSubject(op.account.id, op.params.id, op.now), profileOf(this.world.shape).podLogs),
      }),
      route({
        method: "GET",
        path: "/v2/sandboxes/:id/logs",
        family: "sandboxes",
        handle: (op) => this.stream(op, () => this.world.sandboxes.logSubject(op.account.id, op.params.id), SEED_STYLE),
      }),
    ];
  }
}
