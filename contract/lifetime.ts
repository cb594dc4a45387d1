/**
 * Lifetimes: how long a pod, a cluster or a serverless endpoint may bill, declared in the stack
 * and carried by the resource itself, so that an enforcer with nothing but an API key
 * (`compute reap`) can act on it. The service has no scheduled stop (neither document has a
 * field for one), so this is the project's own convention, stated here once: the provider
 * writes it, the reaper reads and acts on it, the CLI shows it.
 *
 * **Where it lives: the end of the service name.** The name is the one field every kind of them
 * returns and can change without a restart: a pod's PATCH restarts the container for any
 * container field (`env` included) but not for `name`; a cluster's PATCH is a rename and nothing
 * else; an endpoint's `name` changes no worker. So extending a lifetime is a rename, never a
 * restart. The tag follows the program's name (and the owner mark, where the name carries one):
 *
 *     trainer [lifetime until=2026-11-28T12:00:00Z then=STOP max=7200]
 *     trainer [lifetime idle=10%/1800s/STOP idleSince=2026-11-28T10:00:00Z]
 *     trainer [lifetime until=2026-11-28T12:00:00Z then=STOP expired=2026-11-28T12:05:00Z/lifetime]
 *
 * - `until`, `then`: the deadline (absolute, UTC) and what happens at it; `max`: the
 *   `maxDurationSeconds` it came from, for people (absent for an `expiresAt`).
 * - `idle`: stop or terminate when every GPU stays under `<pct>%` for `<seconds>`.
 *   `idleSince`: when a reaper first saw it under (cleared when it sees it busy): the reaper
 *   samples, so the window is measured between its runs.
 * - `expired`: when a reaper acted, and why (`lifetime` or `idle`): what `refresh` shows, and
 *   what keeps the next `up` from silently bringing it back.
 * - `claim`: a reaper's claim while it acts (two reapers at once act once).
 * Members this build does not know are kept as they are (a later build's).
 */
import { parseMillis } from "./time";

/** What happens at a deadline: `STOP` keeps the disk (an endpoint: zero workers); `TERMINATE` ends it. */
export const LIFETIME_ACTIONS = ["STOP", "TERMINATE"] as const;
export type LifetimeAction = (typeof LIFETIME_ACTIONS)[number];

/** Why a reaper acted. */
export type ExpiryReason = "lifetime" | "idle";

/** The program's `lifetime` input. */
export interface LifetimeInput {
  maxDurationSeconds?: number;
  expiresAt?: string;
  action: LifetimeAction;
}

/** The program's `idle` input. */
export interface IdleInput {
  gpuUtilBelowPercent: number;
  forSeconds: number;
  action: LifetimeAction;
}

/** The tag a service name carries. */
export interface LifetimeTag {
  /** The deadline, RFC 3339 UTC; absent for an idle rule alone. */
  until?: string;
  then?: LifetimeAction;
  /** The `maxDurationSeconds` the deadline came from. */
  max?: number;
  idle?: { belowPercent: number; forSeconds: number; action: LifetimeAction };
  idleSince?: string;
  expired?: { at: string; reason: ExpiryReason };
  claim?: { by: string; at: string };
  /** Members of a later build, kept as written. */
  other: string[];
}

/** The smallest idle window: a reaper samples, and a shorter window than its runs means nothing. */
export const MIN_IDLE_SECONDS = 300;
/** The smallest lifetime: shorter than this, a deadline is a race with the create itself. */
export const MIN_LIFETIME_SECONDS = 60;

const TAG = / \[lifetime((?: [A-Za-z]+=[^\s\]]*)*)\]$/;
const ISO_UTC = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The service name split into the rest (program name and owner mark) and the lifetime tag it carries. */
export function splitLifetimeTag(serviceName: string): { rest: string; tag?: LifetimeTag } {
  const match = TAG.exec(serviceName);
  if (!match) return { rest: serviceName };
  const tag: LifetimeTag = { other: [] };
  for (const member of match[1]!.trim().split(" ").filter(Boolean)) {
    const [key, value = ""] = [member.slice(0, member.indexOf("=")), member.slice(member.indexOf("=") + 1)];
    if (!readMember(tag, key, value)) tag.other.push(member);
  }
  return { rest: serviceName.slice(0, match.index), tag };
}

const isAction = (value: string): value is LifetimeAction => (LIFETIME_ACTIONS as readonly string[]).includes(value);
const isTime = (value: string) => parseMillis(value) !== undefined;

function readMember(tag: LifetimeTag, key: string, value: string): boolean {
  switch (key) {
    case "until":
      if (!isTime(value)) return false;
      tag.until = value;
      return true;
    case "then":
      if (!isAction(value)) return false;
      tag.then = value;
      return true;
    case "max":
      if (!/^\d+$/.test(value)) return false;
      tag.max = Number(value);
      return true;
    case "idle": {
      const idle = /^(\d+)%\/(\d+)s\/([A-Z]+)$/.exec(value);
      if (!idle || !isAction(idle[3]!)) return false;
      tag.idle = { belowPercent: Number(idle[1]), forSeconds: Number(idle[2]), action: idle[3] };
      return true;
    }
    case "idleSince":
      if (!isTime(value)) return false;
      tag.idleSince = value;
      return true;
    case "expired": {
      const [at = "", reason = ""] = value.split("/");
      if (!isTime(at) || (reason !== "lifetime" && reason !== "idle")) return false;
      tag.expired = { at, reason };
      return true;
    }
    case "claim": {
      const [by = "", at = ""] = value.split("/");
      if (!/^[0-9a-z]+$/.test(by) || !isTime(at)) return false;
      tag.claim = { by, at };
      return true;
    }
    default:
      return false;
  }
}

/** The tag as a name carries it (` [lifetime …]`), or "" for a tag with nothing in it. */
export function formatLifetimeTag(tag: LifetimeTag): string {
  const members: string[] = [];
  if (tag.until) members.push(`until=${tag.until}`);
  if (tag.then) members.push(`then=${tag.then}`);
  if (tag.max !== undefined) members.push(`max=${tag.max}`);
  if (tag.idle) members.push(`idle=${tag.idle.belowPercent}%/${tag.idle.forSeconds}s/${tag.idle.action}`);
  if (tag.idleSince) members.push(`idleSince=${tag.idleSince}`);
  if (tag.expired) members.push(`expired=${tag.expired.at}/${tag.expired.reason}`);
  if (tag.claim) members.push(`claim=${tag.claim.by}/${tag.claim.at}`);
  members.push(...tag.other);
  return members.length === 0 ? "" : ` [lifetime ${members.join(" ")}]`;
}

/** `serviceName` with `tag` in place of the one it carries (none: the tag removed). */
export function withLifetimeTag(serviceName: string, tag: LifetimeTag | undefined): string {
  return splitLifetimeTag(serviceName).rest + (tag ? formatLifetimeTag(tag) : "");
}

/**
 * The tag the program's `lifetime` and `idle` ask for, with the deadline counted from
 * `runStart` (ms: when the current run started; a new run: now). Undefined when neither is set.
 */
export function declaredTag(lifetime: LifetimeInput | undefined | null, idle: IdleInput | undefined | null, runStart: number): LifetimeTag | undefined {
  if (!lifetime && !idle) return undefined;
  const tag: LifetimeTag = { other: [] };
  if (lifetime) {
    const until = lifetime.expiresAt !== undefined ? parseMillis(lifetime.expiresAt) : runStart + (lifetime.maxDurationSeconds ?? 0) * 1000;
    if (until !== undefined) tag.until = ISO_UTC(until);
    tag.then = lifetime.action;
    if (lifetime.expiresAt === undefined && lifetime.maxDurationSeconds !== undefined) tag.max = lifetime.maxDurationSeconds;
  }
  if (idle) tag.idle = { belowPercent: idle.gpuUtilBelowPercent, forSeconds: idle.forSeconds, action: idle.action };
  return tag;
}

/** Whether two tags declare the same rule (the reapers' bookkeeping, `idleSince` and `claim`, aside). */
export function sameDeclaration(a: LifetimeTag | undefined, b: LifetimeTag | undefined): boolean {
  const declared = (tag: LifetimeTag | undefined) => (tag ? formatLifetimeTag({ until: tag.until, then: tag.then, max: tag.max, idle: tag.idle, other: [] }) : "");
  return declared(a) === declared(b);
}

/** What a kind accepts (the definition says; the rule is stated here). */
export interface LifetimeSupport {
  readonly actions: readonly LifetimeAction[];
  /** Why another action is refused (`a cluster's members cannot be stopped`). */
  readonly actionsBecause: string;
  /** Whether `idle` applies (GPU utilisation is a pod's). */
  readonly idle: boolean;
}

/**
 * Every violation of `lifetime` and `idle`, as `field: rule`. `now`: a new deadline in the past
 * is refused (`previousExpiresAt`, the recorded one, is not new: an expired resource keeps it).
 */
export function lifetimeViolations(
  support: LifetimeSupport,
  lifetime: Partial<LifetimeInput> | undefined | null,
  idle: Partial<IdleInput> | undefined | null,
  now: number,
  previousExpiresAt?: string,
): string[] {
  const out: string[] = [];
  if (lifetime) {
    const hasMax = lifetime.maxDurationSeconds !== undefined;
    const hasAt = lifetime.expiresAt !== undefined;
    if (hasMax === hasAt) out.push("lifetime: give exactly one of maxDurationSeconds or expiresAt");
    if (hasMax && !(Number.isInteger(lifetime.maxDurationSeconds) && lifetime.maxDurationSeconds! >= MIN_LIFETIME_SECONDS)) {
      out.push(`lifetime.maxDurationSeconds: must be a whole number of seconds, at least ${MIN_LIFETIME_SECONDS}`);
    }
    if (hasAt) {
      const at = typeof lifetime.expiresAt === "string" ? parseMillis(lifetime.expiresAt) : undefined;
      if (at === undefined) out.push("lifetime.expiresAt: must be an RFC 3339 date-time with a zone (2026-12-01T18:00:00Z)");
      else if (at <= now && lifetime.expiresAt !== previousExpiresAt) out.push(`lifetime.expiresAt: ${lifetime.expiresAt} is already past`);
    }
    out.push(...actionViolations(support, "lifetime.action", lifetime.action));
  }
  if (idle) {
    if (!support.idle) out.push("idle: applies to a pod's GPUs only (use lifetime here)");
    else {
      const pct = idle.gpuUtilBelowPercent;
      if (!(Number.isInteger(pct) && pct! >= 1 && pct! <= 100)) out.push("idle.gpuUtilBelowPercent: must be a whole number from 1 to 100");
      const window = idle.forSeconds;
      if (!(Number.isInteger(window) && window! >= MIN_IDLE_SECONDS)) out.push(`idle.forSeconds: must be a whole number of seconds, at least ${MIN_IDLE_SECONDS}`);
      out.push(...actionViolations(support, "idle.action", idle.action));
    }
  }
  return out;
}

function actionViolations(support: LifetimeSupport, field: string, action: unknown): string[] {
  if (typeof action !== "string" || !isAction(action)) return [`${field}: must be ${LIFETIME_ACTIONS.map((a) => `"${a}"`).join(" or ")}`];
  if (!support.actions.includes(action)) return [`${field}: must be ${support.actions.map((a) => `"${a}"`).join(" or ")} (${support.actionsBecause})`];
  return [];
}

/** What a live resource tells a reaper: whether it bills, its rate, and its GPUs' utilisation now (null: unknown). */
export interface LifetimeObservation {
  billing: boolean;
  costPerHour: number;
  gpuUtil: number[] | null;
  /** When its current run started (ms; a pod's `startedAt`), where known: what a `max` counts from. */
  runStart?: number;
}

/** What a reaper does with one resource. */
export type LifetimeVerdict =
  | { do: "nothing"; why: string }
  | { do: "act"; action: LifetimeAction; reason: ExpiryReason; since: number }
  | { do: "markIdle" }
  | { do: "clearIdle" };

/**
 * The rule a reaper applies, stated once: act when the deadline has passed, or when every GPU
 * stayed under the threshold for the window (measured from the `idleSince` a reaper recorded);
 * only on what still bills. A lifetime's deadline wins over an idle rule due at the same time.
 */
export function lifetimeVerdict(tag: LifetimeTag, seen: LifetimeObservation, now: number): LifetimeVerdict {
  if (!seen.billing) return { do: "nothing", why: tag.expired ? `expired ${tag.expired.at}` : "not billing" };
  const until = effectiveDeadline(tag, seen.runStart);
  // A deadline whose action this build cannot read (a later build's, a hand edit) is never guessed at.
  if (until !== undefined && until <= now) return tag.then ? { do: "act", action: tag.then, reason: "lifetime", since: until } : { do: "nothing", why: "a deadline without an action this build knows" };
  if (tag.idle && seen.gpuUtil && seen.gpuUtil.length > 0) {
    const idleNow = seen.gpuUtil.every((util) => util < tag.idle!.belowPercent);
    const recorded = tag.idleSince ? parseMillis(tag.idleSince) : undefined;
    // An idle record from before this run (the pod was stopped and started since) is not this run's.
    // (Tags hold whole seconds: compared with the run's start cut to its second.)
    const since = recorded !== undefined && seen.runStart !== undefined && recorded < Math.floor(seen.runStart / 1000) * 1000 ? undefined : recorded;
    if (!idleNow) return since === undefined ? { do: "nothing", why: "busy" } : { do: "clearIdle" };
    if (since === undefined) return { do: "markIdle" };
    if (now - since >= tag.idle.forSeconds * 1000) return { do: "act", action: tag.idle.action, reason: "idle", since: since + tag.idle.forSeconds * 1000 };
    return { do: "nothing", why: `idle since ${tag.idleSince}` };
  }
  return { do: "nothing", why: until !== undefined ? `until ${tagTime(until)}` : "no deadline" };
}

/** The deadline's time in ms, as the tag writes it. */
export function tagDeadline(tag: LifetimeTag | undefined): number | undefined {
  return tag?.until ? parseMillis(tag.until) : undefined;
}

/**
 * The deadline that holds now: a `max` counts from the start of the current run when that is
 * known (a pod stopped and started again, or restarted by a change, has a new run), else the
 * tag's `until` as written.
 */
export function effectiveDeadline(tag: LifetimeTag | undefined, runStart?: number): number | undefined {
  if (!tag?.until) return undefined;
  return tag.max !== undefined && runStart !== undefined ? runStart + tag.max * 1000 : parseMillis(tag.until);
}

/** `2 h 10 m`, `45 s`: a span for people. */
export function humanSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} m`;
  if (m > 0) return `${m} m`;
  return `${s} s`;
}

/** The rule in words (`STOP at 2026-11-28T12:00:00Z (2 h lifetime); idle: STOP under 10% for 30 m`). */
export function describeTag(tag: LifetimeTag): string {
  const parts: string[] = [];
  if (tag.until) parts.push(`${tag.then ?? "STOP"} at ${tag.until}${tag.max !== undefined ? ` (${humanSpan(tag.max * 1000)} lifetime)` : ""}`);
  if (tag.idle) parts.push(`idle: ${tag.idle.action} under ${tag.idle.belowPercent}% GPU for ${humanSpan(tag.idle.forSeconds * 1000)}`);
  return parts.join("; ");
}

/** `stops in 2 h 10 m`, `stops at the next reap (due 5 m ago)`: a deadline as people read it. */
export function untilWords(tag: LifetimeTag, now: number, runStart?: number): string | undefined {
  const deadline = effectiveDeadline(tag, runStart);
  if (deadline === undefined) return undefined;
  const verb = tag.then === "TERMINATE" ? "terminates" : "stops";
  return deadline > now ? `${verb} in ${humanSpan(deadline - now)}` : `${verb} at the next reap (due ${humanSpan(now - deadline)} ago)`;
}

/** The ISO UTC form tags use. */
export const tagTime = ISO_UTC;
