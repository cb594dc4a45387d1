/**
 * Routes: one declaration per operation, carrying everything the chain needs to check a request
 * before its handler runs (scope family, body schema for 422, extra 422 rules, 400 rules). The
 * API (`Route`) and the control plane (`ControlRoute`) are declared the same way and matched by
 * the same `Router`; the gateway (server.ts) runs each through its chain.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { z } from "zod";
import type { AccountRecord } from "./accounts/store";
import type { Principal, ScopeFamily } from "./auth";
import type { Reply } from "./http";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler sees: an authenticated, scoped, rate-limited, validated request. */
export interface Operation<B = unknown> {
  principal: Principal;
  account: AccountRecord;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: B;
  /** Emulator-clock time when the operation started. */
  now: number;
}

/** What every route declares, whichever plane serves it. */
export interface BaseRoute<B = unknown> {
  method: Method;
  /** `/v2/pods/:id`; a `:name` segment matches one path segment. */
  path: string;
  /** Request schema; violations are 422 (or `invalidStatus`) with every violation listed. */
  body?: z.ZodType<B>;
  invalidStatus?: 400 | 422;
  /** The problem's `detail` when the body is invalid (default: by status). */
  invalidDetail?: string;
}

export interface Route<B = unknown> extends BaseRoute<B> {
  /** The scope family a key needs (auth.ts). */
  family: ScopeFamily;
  /** More 422 rules that need account or catalog data; gets the raw body so they run even when the schema fails. */
  violations?(raw: unknown, op: Operation<unknown>): string[];
  /** Cross-field rules (400), on a body that passed validation. */
  crossField?(body: B, op: Operation<B>): string[];
  handle(op: Operation<B>): Reply | Promise<Reply>;
}

/** Erases the body type so routes of different bodies share one table. */
export function route<B>(definition: Route<B>): Route<unknown> {
  return definition as unknown as Route<unknown>;
}

/** The declarer of one scope family's routes: each declaration then names only its own parts. */
export function familyRoute(family: ScopeFamily) {
  return <B>(definition: Omit<Route<B>, "family">): Route<unknown> => route({ ...definition, family });
}

/**
 * A family's route table, declared against the part of the world its handlers use (`W`, an
 * interface the family states; the emulator is checked against it where the registry builds the
 * routes): `declare` gets the scope family's `route` (see `familyRoute`) and the world.
 */
export function familyRoutes<W>(
  family: ScopeFamily,
  declare: (route: ReturnType<typeof familyRoute>, world: W) => Array<Route<unknown>>,
): (world: W) => Array<Route<unknown>> {
  const route = familyRoute(family);
  return (world) => declare(route, world);
}

/** What a control-plane handler sees: an admin request with a validated body. */
export interface ControlOperation<B = unknown> {
  params: Record<string, string>;
  body: B;
  /** Emulator-clock time when the operation started. */
  now: number;
}

/** A `/_emulator/...` operation: admin token instead of credentials, scopes and rate limits. */
export interface ControlRoute<B = unknown> extends BaseRoute<B> {
  handle(op: ControlOperation<B>): Reply;
}

/** A control-plane body that does not fit its schema is a bad request (400), whatever the rule. */
export function controlRoute<B>(definition: ControlRoute<B>): ControlRoute<unknown> {
  return { invalidStatus: 400, invalidDetail: "Invalid control-plane request", ...definition } as unknown as ControlRoute<unknown>;
}

interface Compiled<R> {
  route: R;
  pattern: RegExp;
  names: string[];
}

export type Match<R = Route<unknown>> =
  | { kind: "found"; route: R; params: Record<string, string> }
  | { kind: "method-not-allowed"; allowed: Method[] }
  | { kind: "not-found" }
  /** A path segment is not valid percent-encoding (`%ZZ`): no route can be told apart. */
  | { kind: "malformed"; detail: string };

export class Router<R extends BaseRoute<unknown> = Route<unknown>> {
  private readonly compiled: Array<Compiled<R>> = [];

  constructor(routes: R[]) {
    for (const r of routes) {
      const names: string[] = [];
      const source = r.path
        .split("/")
        .map((segment) => {
          if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          names.push(segment.slice(1));
          return "([^/]+)";
        })
        .join("/");
      this.compiled.push({ route: r, pattern: new RegExp(`^${source}/?$`), names });
    }
  }

  match(method: string, path: string): Match<R> {
    try {
      decodeURIComponent(path);
    } catch {
      return { kind: "malformed", detail: `The path ${path} is not valid percent-encoding` };
    }
    const allowed: Method[] = [];
    for (const c of this.compiled) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      if (c.route.method !== method) {
        allowed.push(c.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      c.names.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]);
      });
      return { kind: "found", route: c.route, params };
    }
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" };
  }
}
