/**
 * GET /v2/pods/{id}/logs and GET /v2/sandboxes/{id}/logs: the same parameters and framing
 * (decisions), with a 409 carrying `code` while no container can stream.
 */
import { conflict, type Reply } from "../http";
import { LogStreams, readStreamRequest, type LogSubject } from "../logs/stream";
import type { World } from "../module";
import { route, type Operation, type Route } from "../router";

export class Logs {
  constructor(
    private readonly world: World,
    readonly streams: LogStreams,
  ) {}

  private stream(op: Operation<unknown>, subjectOf: () => LogSubject): Reply {
    const lastEventId = op.headers["last-event-id"];
    const request = readStreamRequest(op.query, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
    const subject = subjectOf();
    const unavailable = subject.unavailable(op.now);
    if (unavailable) throw conflict(unavailable.detail, unavailable.code);
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
        handle: (op) => this.stream(op, () => this.world.pods.logSubject(op.account.id, op.params.id, op.now)),
      }),
      route({
        method: "GET",
        path: "/v2/sandboxes/:id/logs",
        family: "sandboxes",
        handle: (op) => this.stream(op, () => this.world.sandboxes.logSubject(op.account.id, op.params.id)),
      }),
    ];
  }
}
