/**
 * Who is calling, for which account, with which scopes (contract: Authentication).
 *
 * - API keys carry scopes and an optional expiry; a key created in a team acts for the team.
 * - Console sessions act for the signed-in user; `X-Team-Id` switches to a team only when the
 *   user owns or belongs to it, otherwise it is ignored and the user's own account is used.
 * - Scopes: `*`, a family (`pods`: read and write) or a family's read half (`pods:read`).
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Accounts } from "./accounts/store";
import { ApiError } from "./http";

/** Resource families a key's scopes grant (`pods`, `pods:read`, ... or `*`); each API route names one. */
export type ScopeFamily = "pods" | "sandboxes" | "catalog" | "templates" | "network-volumes" | "serverless" | "hub" | "account" | "clusters" | "registries" | "billing";

export interface Principal {
  userId: string;
  /** The account the request acts for: resources are looked up and created here. */
  accountId: string;
  credential: "api-key" | "session";
  scopes: ReadonlySet<string>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const unauthorized = (detail: string) =>
  new ApiError(401, detail, { headers: { "WWW-Authenticate": 'Bearer realm="compute"' } });

export function authenticate(accounts: Accounts, headers: IncomingHttpHeaders, now: number): Principal {
  const header = headers.authorization;
  if (!header) throw unauthorized("Missing bearer token: send Authorization: Bearer <API key>");
  const match = BEARER.exec(header);
  if (!match) throw unauthorized("Malformed Authorization header: expected Bearer <API key>");
  const token = match[1];

  const key = accounts.apiKeys.get(token);
  if (key) {
    if (key.expiresAt !== undefined && key.expiresAt <= now) throw unauthorized("API key has expired");
    return { userId: key.userId, accountId: key.accountId, credential: "api-key", scopes: new Set(key.scopes) };
  }
  const session = accounts.sessions.get(token);
  if (session) {
    if (session.expiresAt !== undefined && session.expiresAt <= now) throw unauthorized("Console session has expired");
    const user = accounts.users.get(session.userId);
    if (!user) throw unauthorized("Invalid bearer token");
    const teamId = headerValue(headers["x-team-id"]);
    const accountId = teamId && accounts.isMember(teamId, user.id) ? teamId : user.accountId;
    return { userId: user.id, accountId, credential: "session", scopes: new Set(["*"]) };
  }
  throw unauthorized("Invalid API key");
}

/** The caller's account without failing: for request-log entries of requests a fault cut short. */
export function identify(accounts: Accounts, headers: IncomingHttpHeaders, now: number): string | null {
  try {
    return authenticate(accounts, headers, now).accountId;
  } catch {
    return null;
  }
}

export function authorize(principal: Principal, family: ScopeFamily, access: "read" | "write"): void {
  const scopes = principal.scopes;
  if (scopes.has("*") || scopes.has(family)) return;
  if (access === "read" && scopes.has(`${family}:read`)) return;
  if (scopes.has(`${family}:read`)) throw new ApiError(403, `This API key has read-only access to ${family}`);
  throw new ApiError(403, `This API key has no access to ${family}`);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
}
