/**
 * What a handler gives back, the one way errors are shaped, and the one place a reply is written.
 *
 * Handlers (API and control plane alike) return a `Reply` instead of writing to the socket, so
 * the gateway can still replace it afterwards (an `after` fault drops the connection of a
 * request that did execute) and can persist state before anything reaches the client. Errors
 * are thrown as `ApiError`, whose status is explicit, and become `application/problem+json`
 * bodies `{title, status, detail, errors?, code?}`. `send` is the only writer of responses; the
 * one exception is the log stream (logs/stream.ts), which owns its socket once started.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { httpDate } from "./time";

export type Headers = Record<string, string>;

export interface JsonReply {
  kind: "json";
  status: number;
  body?: unknown;
  headers?: Headers;
  contentType?: string;
}

/** A long-lived response (Server-Sent Events): the handler takes over the socket. */
export interface StreamReply {
  kind: "stream";
  status: 200;
  headers?: Headers;
  /** `headers` are the chain's (rate-limit) headers to send with the stream's head. */
  start(req: IncomingMessage, res: ServerResponse, headers: Headers): void;
}

export type Reply = JsonReply | StreamReply;

export function json(status: number, body?: unknown, headers?: Headers): JsonReply {
  return { kind: "json", status, body, headers };
}

export const noContent = (): JsonReply => ({ kind: "json", status: 204 });

export interface ProblemExtras {
  errors?: string[];
  code?: string;
  headers?: Headers;
  title?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extras: ProblemExtras = {},
  ) {
    super(detail);
  }
}

export function problem(status: number, detail: string, extras: ProblemExtras = {}): JsonReply {
  const body: Record<string, unknown> = { title: extras.title ?? STATUS_CODES[status] ?? "Error", status, detail };
  if (extras.errors) body.errors = extras.errors;
  if (extras.code) body.code = extras.code;
  return { kind: "json", status, body, headers: extras.headers, contentType: "application/problem+json" };
}

export function replyOf(error: ApiError): JsonReply {
  return problem(error.status, error.detail, error.extras);
}

// The few errors every resource raises; their wording is part of what users read.
export const notFound = (what: string, id: string) => new ApiError(404, `No ${what} with id "${id}" on this account`);

/** What a lookup by id found, or the 404 naming what was looked for. */
export function orNotFound<T>(found: T | undefined, what: string, id: string): T {
  if (found === undefined) throw notFound(what, id);
  return found;
}
export const badRequest = (detail: string, errors?: string[]) => new ApiError(400, detail, { errors });
export const conflict = (detail: string, code?: string) => new ApiError(409, detail, { code });
export const unprocessable = (detail: string, errors?: string[]) => new ApiError(422, detail, { errors });

/** Writes a reply: `headers` are the chain's (rate-limit) headers; `Date` is the emulator clock's. */
export function send(res: ServerResponse, reply: Reply, headers: Headers, now: number): void {
  // Every answer names itself, so a user can quote it to support (docs/api-contract.md).
  const all: Headers = { "X-Request-Id": `req_${randomUUID()}`, ...headers, ...reply.headers };
  if (reply.kind === "stream") {
    reply.start(res.req, res, all);
    return;
  }
  all.Date = httpDate(now);
  if (reply.body === undefined) {
    res.writeHead(reply.status, all);
    res.end();
    return;
  }
  const body = JSON.stringify(reply.body);
  all["Content-Type"] = reply.contentType ?? "application/json";
  all["Content-Length"] = String(Buffer.byteLength(body));
  res.writeHead(reply.status, all);
  res.end(body);
}
