/**
 * The `lifetime` and `idle` inputs and the `expiry` output, for the kinds that bill by the hour
 * and have no limit of their own on the service (a pod, a cluster, a serverless endpoint; a
 * sandbox has its own `maxLifetimeSeconds` and idle timeout, which the service enforces). The
 * rule and the tag the service name carries are contract/lifetime.ts; the runtime writes the tag
 * (provider/runtime/lifetime.ts), `compute reap` acts on it (sdk/lifetimes.ts).
 *
 * Opt-in only: without these inputs nothing is tagged and nothing is ever stopped.
 */
import { LIFETIME_ACTIONS, effectiveDeadline, splitLifetimeTag, tagDeadline, tagTime, type IdleInput, type LifetimeAction, type LifetimeInput, type LifetimeSupport, type LifetimeTag } from "../../contract/lifetime";
import type { InputSpec, LifetimeHooks, OutputList, Props } from "./definition";

/** The `lifetime` input of a kind whose deadline does `support.actions`. */
export function lifetimeInput<const A extends readonly LifetimeAction[]>(support: LifetimeSupport & { actions: A }, what: string) {
  return {
    type: "object",
    properties: {
      maxDurationSeconds: { type: "integer", optional: true },
      expiresAt: { type: "string", optional: true },
      action: { type: "string", enum: support.actions },
    },
    onChange: "update",
    sent: "provider",
    doc:
      `How long ${what} may bill: \`maxDurationSeconds\` from the start of its current run, or an absolute \`expiresAt\` (RFC 3339), and the \`action\` at the deadline (${support.actions.map((a) => `\`${a}\``).join(" or ")}: ${support.actionsBecause}). ` +
      "Recorded on the service object; `compute reap` enforces it. A change (an extension) is a rename, never a restart, and brings back what expired. See docs/provider.md, \"Lifetimes\".",
  } as const satisfies InputSpec;
}

/** The `idle` input (a pod's GPUs). */
export const idleInput = {
  type: "object",
  properties: {
    gpuUtilBelowPercent: { type: "integer" },
    forSeconds: { type: "integer" },
    action: { type: "string", enum: LIFETIME_ACTIONS },
  },
  onChange: "update",
  sent: "provider",
  doc: "Stop or terminate the pod when every GPU stays under `gpuUtilBelowPercent` for `forSeconds` (at least 300), as `compute reap` samples it. See docs/provider.md, \"Lifetimes\".",
} as const satisfies InputSpec;

export const LIFETIME_OUTPUTS = {
  expiry: {
    type: "object",
    nullable: true,
    properties: {
      deadline: { type: "string", nullable: true },
      action: { type: "string", nullable: true },
      idle: { type: "string", nullable: true },
      expiredAt: { type: "string", nullable: true },
      reason: { type: "string", nullable: true },
    },
    doc: "The lifetime as the service object carries it: the `deadline` and its `action`, the `idle` rule, and once a reaper acted, when (`expiredAt`) and why (`reason`: `lifetime` or `idle`). Null without `lifetime` or `idle`.",
  },
} as const satisfies OutputList;

export type ExpiryFact = { deadline: string | null; action: string | null; idle: string | null; expiredAt: string | null; reason: string | null };

/** The `expiry` output of a tag, the deadline counted from `runStart` (ms) where it is a duration. */
export function expiryOf(tag: LifetimeTag | undefined, runStart?: number): ExpiryFact | null {
  if (!tag) return null;
  const deadline = effectiveDeadline(tag, runStart);
  return {
    deadline: deadline !== undefined ? tagTime(deadline) : null,
    action: tag.until ? (tag.then ?? null) : null,
    idle: tag.idle ? `${tag.idle.action} under ${tag.idle.belowPercent}% for ${tag.idle.forSeconds}s` : null,
    expiredAt: tag.expired?.at ?? null,
    reason: tag.expired?.reason ?? null,
  };
}

/** The tag a live object's name carries. */
export function tagOf<Live>(hooks: LifetimeHooks<Live>, live: Live): LifetimeTag | undefined {
  return splitLifetimeTag(hooks.serviceName(live)).tag;
}

const declaration = (values: Props) => JSON.stringify([values.lifetime ?? null, values.idle ?? null]);

/** Whether the recorded state says a reaper acted on it (read at the last refresh). */
export function recordedExpired(olds: Props): boolean {
  return typeof (olds.expiry as ExpiryFact | null | undefined)?.expiredAt === "string";
}

/**
 * Expired, and the program declares the same lifetime as when it expired: the next `up` must not
 * bring it back (it says so instead). A changed `lifetime` or `idle` brings it back. `liveName`:
 * the service name read now, for a state recorded before the reaper acted (an `up` without
 * `--refresh`).
 */
export function heldExpired(olds: Props, news: Props, liveName?: string): boolean {
  const expired = recordedExpired(olds) || (liveName !== undefined && splitLifetimeTag(liveName).tag?.expired !== undefined);
  return expired && declaration(olds) === declaration(news);
}

/** Whether the lifetime declaration changed (what renames, and what brings back an expired resource). */
export function declarationChanged(olds: Props, news: Props): boolean {
  return declaration(olds) !== declaration(news);
}

/** The recorded deadline (ms), if any. */
export function recordedDeadline(olds: Props): number | undefined {
  const deadline = (olds.expiry as ExpiryFact | null | undefined)?.deadline;
  return typeof deadline === "string" ? tagDeadline({ until: deadline, other: [] }) : undefined;
}

export type { IdleInput, LifetimeInput };
