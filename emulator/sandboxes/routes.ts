/** `/v2/sandboxes`: list, create, get, PATCH (idle timeout), extend, delete and the log stream. */
import {
  CreateSandboxRequest,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  DEFAULT_MAX_LIFETIME_SECONDS,
  ExtendSandboxRequest,
  SandboxState,
  UpdateSandboxRequest,
  createSandboxViolations,
} from "../../contract";
import type { Services } from "../family";
import { json, noContent } from "../http";
import { streamReply } from "../logs/route";
import { readQuery, type QueryReader } from "../query";
import { familyRoutes, type Operation } from "../router";
import { profileOf } from "../shape";
import { checkExtension, clampIdle, placeSandbox, type SandboxRulesWorld } from "./rules";
import type { Sandboxes } from "./store";
import { sandboxView } from "./view";

/** What the sandbox routes use of the world. */
export interface SandboxRoutesWorld extends SandboxRulesWorld, Pick<Services, "clock" | "timings" | "logStreams" | "takeFailNext" | "persist"> {
  readonly sandboxes: Sandboxes;
}

/** `labels=key=value` filters, repeated; a value may itself hold `=` or `,`. */
function labelFilters(q: QueryReader): Array<[string, string]> {
  const labels: Array<[string, string]> = [];
  for (const pair of q.repeated("labels")) {
    const at = pair.indexOf("=");
    if (at <= 0) q.fail("labels", `"${pair}" must be key=value`);
    else labels.push([pair.slice(0, at), pair.slice(at + 1)]);
  }
  return labels;
}

/** The public document has no sandboxes: their stream is framed as the seed says, in every shape. */
const SANDBOX_STREAM_STYLE = profileOf("seed").podLogs;

export const sandboxRoutes = familyRoutes("sandboxes", (route, world: SandboxRoutesWorld) => {
  /** The account's sandbox the path names (404 for an unknown id or another account's). */
  const sandboxOf = (op: Operation<unknown>) => world.sandboxes.find(op.account.id, op.params.id);
  return [
    route({
      method: "GET",
      path: "/v2/sandboxes",
      handle: (op) => {
        const { state, labels } = readQuery(op.query, (q) => ({ state: q.enumValue("state", SandboxState.options), labels: labelFilters(q) }));
        const listed = world.sandboxes.list(op.account.id, op.now, state, labels);
        return json(200, { sandboxes: listed.map((sb) => sandboxView(world.sandboxes, sb, op.now)) });
      },
    }),
    route({
      method: "POST",
      path: "/v2/sandboxes",
      body: CreateSandboxRequest,
      // Rules that need the account (maximum lifetime) are 422 too, reported with the schema's.
      violations: (raw, op) =>
        typeof raw === "object" && raw !== null && !Array.isArray(raw)
          ? createSandboxViolations(raw as CreateSandboxRequest, op.account.maxLifetimeSeconds)
          : [],
      handle: (op) => {
        const { body, account, now } = op;
        const { template, dataCenterId, costPerHr } = placeSandbox(world, account, body);
        const sb = world.sandboxes.create({
          accountId: account.id,
          name: body.name,
          templateId: template?.id ?? null,
          image: body.image ?? template!.image,
          env: { ...(template?.env ?? {}), ...(body.env ?? {}) },
          dataCenterId,
          compute: { ...body.compute, costPerHr },
          ports: body.ports ?? template?.ports ?? [],
          egressPolicy: { mode: body.egressPolicy?.mode ?? "ALLOW_ALL", allow: body.egressPolicy?.allow ?? [] },
          idleTimeoutSeconds: clampIdle(body.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS, account),
          maxLifetimeSeconds: body.maxLifetimeSeconds ?? Math.min(DEFAULT_MAX_LIFETIME_SECONDS, account.maxLifetimeSeconds),
          labels: body.labels ?? {},
          createdAt: now,
          creatingMs: world.timings.sandboxCreatingMs,
          logIntervalMs: world.timings.logIntervalMs,
          failStart: world.takeFailNext("sandbox"),
          lastActivityAt: now,
          updatedAt: now,
        });
        return json(201, sandboxView(world.sandboxes, sb, now));
      },
    }),
    route({
      method: "GET",
      path: "/v2/sandboxes/:id",
      handle: (op) => json(200, sandboxView(world.sandboxes, sandboxOf(op), op.now)),
    }),
    route({
      method: "PATCH",
      path: "/v2/sandboxes/:id",
      body: UpdateSandboxRequest,
      // decisions: anything but {idleTimeoutSeconds: integer} is a malformed request (400).
      invalidStatus: 400,
      handle: (op) => {
        const sb = sandboxOf(op);
        world.sandboxes.setIdleTimeout(sb, clampIdle(op.body.idleTimeoutSeconds, op.account), op.now);
        return json(200, sandboxView(world.sandboxes, sb, op.now));
      },
    }),
    route({
      method: "POST",
      path: "/v2/sandboxes/:id/extend",
      body: ExtendSandboxRequest,
      handle: (op) => {
        const sb = sandboxOf(op);
        const wanted = op.body.maxLifetimeSeconds;
        world.sandboxes.extend(sb, wanted, op.now, (current) => checkExtension(wanted, current, op.account));
        return json(200, sandboxView(world.sandboxes, sb, op.now));
      },
    }),
    route({
      method: "DELETE",
      path: "/v2/sandboxes/:id",
      handle: (op) => {
        world.sandboxes.remove(sandboxOf(op), op.now);
        return noContent();
      },
    }),
    route({
      method: "GET",
      path: "/v2/sandboxes/:id/logs",
      handle: (op) =>
        streamReply(
          world.logStreams,
          op,
          () => world.sandboxes.logSubject(sandboxOf(op), () => world.clock.now(), () => world.persist()),
          SANDBOX_STREAM_STYLE,
        ),
    }),
  ];
});
