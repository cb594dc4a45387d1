/**
 * Lifetimes in the generic handlers (handlers.ts), for a definition with `lifetime`: the rules of
 * the inputs at check, the tag in the create request, the rename when the declaration changes,
 * the `expiry` output, and what refresh and the next `up` do with what a reaper stopped or ended.
 *
 * - check: every violation of `lifetime` and `idle` at once (contract/lifetime.ts), with the
 *   deadline a change gives printed at preview, so an extension that is already past shows.
 * - create: the tag goes in the create request's name (deadline: now + maxDurationSeconds), so a
 *   killed `up` never leaves a resource without the deadline its stack declared.
 * - update: a changed declaration renames (never a restart); the deadline is counted from the
 *   current run's start, or from now for what comes back from an expiry.
 * - read: a resource a reaper ended (gone, or ended, with `TERMINATE` in its tag or past the
 *   recorded deadline) stays in the stack as `EXPIRED` with when and why, instead of being
 *   dropped (which would make the next `up` recreate it); a stopped one keeps its recorded state.
 * - diff: an expired resource is not brought back (a line says so) until `lifetime` or `idle`
 *   changes; then a stopped one updates (starts, scales back), an ended one is replaced.
 */
import { declaredTag, describeTag, lifetimeViolations, splitLifetimeTag, tagTime, withLifetimeTag, type IdleInput, type LifetimeInput, type LifetimeTag } from "../../contract/lifetime";
import type { LifetimeHooks, Props, ResourceDefinition } from "../resources/definition";
import { declarationChanged, expiryOf, heldExpired, recordedDeadline, recordedExpired, type ExpiryFact } from "../resources/lifetime";
import { containsUnknown } from "../resources/unknowns";
import { toCheckFailures, type CheckFailure } from "../resources/check-failures";
import { report } from "./progress";
import { parseMillis } from "../../contract/time";
import { client } from "./settings";

/** The state a resource a reaper ended is kept in (never a service state). */
export const EXPIRED = "EXPIRED";

type Definition = ResourceDefinition;
type Live = { id: string };

/** The service's clock (its `Date` answers), which the reapers read too: a laptop's skew never moves a deadline. */
const serviceNow = () => client().http.serverNow();

const hooksOf = (definition: Definition) => definition.lifetime as LifetimeHooks<Live> | undefined;
const lifetimeOf = (inputs: Props) => inputs.lifetime as LifetimeInput | undefined;
const idleOf = (inputs: Props) => inputs.idle as IdleInput | undefined;

/** Every violation of the two inputs; for a new resource, the line that says when its deadline falls. */
export function lifetimeCheck(definition: Definition, inputs: Props, previous: Props): CheckFailure[] {
  const hooks = hooksOf(definition);
  // A name that reads as a tag would give the resource a lifetime nobody declared.
  if (hooks && typeof inputs.name === "string" && splitLifetimeTag(inputs.name).tag) return toCheckFailures(["name: must not end in \" [lifetime …]\", the provider's lifetime tag (use the lifetime input)"], inputs);
  if (!hooks || (inputs.lifetime === undefined && inputs.idle === undefined)) return [];
  if (containsUnknown(inputs.lifetime) || containsUnknown(inputs.idle)) return [];
  const previousAt = (previous.lifetime as LifetimeInput | undefined)?.expiresAt;
  const violations = lifetimeViolations(hooks, lifetimeOf(inputs), idleOf(inputs), Date.now(), previousAt);
  // The reaper acts only on what carries a stack's owner mark, which an adopted resource never gets.
  if (definition.adoptInput && inputs[definition.adoptInput] !== undefined) violations.push(`${inputs.lifetime !== undefined ? "lifetime" : "idle"}: a resource brought in with ${definition.adoptInput} carries no owner mark, so no reaper acts on it: create it from the stack to give it a lifetime`);
  // A resource that exists has its line at diff, which knows when its current run started.
  const isNew = Object.keys(previous).length === 0;
  if (violations.length === 0 && isNew) {
    const tag = declaredTag(lifetimeOf(inputs), idleOf(inputs), Date.now());
    if (tag) report(definition.kind, String(inputs.name ?? inputs.namePrefix ?? definition.kind), `lifetime: ${describeTag(tag)}`);
  }
  return toCheckFailures(violations, inputs);
}

/**
 * The deadline a changed declaration gives a resource that runs: from its current run's start as
 * recorded (a pod's `startedAt`, else its `createdAt`), so a deadline already past says so.
 */
function reportNewDeadline(definition: Definition, olds: Props, news: Props): void {
  const recordedStart = [olds.startedAt, olds.createdAt].find((value): value is string => typeof value === "string");
  const start = recordedStart ? parseMillis(recordedStart) : undefined;
  const tag = declaredTag(lifetimeOf(news), idleOf(news), start ?? Date.now());
  if (!tag) return;
  const deadline = tag.until ? parseMillis(tag.until) : undefined;
  const past = deadline !== undefined && deadline <= Date.now() ? "; already past: the next `compute reap --apply` acts on it" : "";
  report(definition.kind, String(news.name ?? definition.kind), `lifetime: ${describeTag(tag)}${recordedStart ? ` (from its current run's start, ${recordedStart})` : ""}${past}`);
}

/**
 * What an interrupted run left, adopted by the create, carries the rule of that run's day: the
 * declared rule is written when it differs, the deadline from its current run's start.
 */
export async function tagAdopted<L extends Live>(definition: Definition, inputs: Props, live: L): Promise<L> {
  const hooks = hooksOf(definition) as LifetimeHooks<L> | undefined;
  if (!hooks) return live;
  const current = splitLifetimeTag(hooks.serviceName(live)).tag;
  const wanted = declaredTag(lifetimeOf(inputs), idleOf(inputs), hooks.runStart(live) ?? serviceNow());
  if (sameRule(current, wanted)) return live;
  const tag: LifetimeTag | undefined = wanted && { ...wanted, other: current?.other ?? [] };
  report(definition.kind, String(inputs.name ?? definition.kind), tag ? `lifetime now ${describeTag(tag)}` : "lifetime removed");
  return hooks.rename(client(), live, withLifetimeTag(hooks.serviceName(live), tag));
}

/** The same rule: the action, the duration (its deadline counted from a start either way) or the same absolute deadline, the idle rule; not expired. */
function sameRule(a: LifetimeTag | undefined, b: LifetimeTag | undefined): boolean {
  if (!a || !b) return a === b;
  const rule = (tag: LifetimeTag) => JSON.stringify([tag.then ?? null, tag.max ?? null, tag.max === undefined ? (tag.until ?? null) : null, tag.idle ?? null]);
  return rule(a) === rule(b) && !a.expired;
}

/** The tag into a create request's name. */
export function tagCreateRequest(definition: Definition, request: Props, inputs: Props): void {
  const tag = hooksOf(definition) ? declaredTag(lifetimeOf(inputs), idleOf(inputs), serviceNow()) : undefined;
  if (tag && typeof request.name === "string") request.name = withLifetimeTag(request.name, tag);
}

/** The `expiry` output, from the live tag (null without one), for a definition with lifetimes. */
export function expiryOutput(definition: Definition, live: Live): { expiry?: ExpiryFact | null } {
  const hooks = hooksOf(definition);
  return hooks ? { expiry: expiryOf(splitLifetimeTag(hooks.serviceName(live)).tag, hooks.runStart(live)) } : {};
}

/**
 * After an update: the tag the program now declares, renamed onto the service when the
 * declaration changed or the resource comes back from an expiry (`needsRetag`).
 */
/** Expired by its lifetime and held: the same lifetime declared (provider/resources/lifetime.ts). */
export function heldByLifetime(definition: Definition, olds: Props, news: Props): boolean {
  return hooksOf(definition) !== undefined && heldExpired(olds, news);
}

export function needsRetag(definition: Definition, olds: Props, news: Props): boolean {
  return hooksOf(definition) !== undefined && (declarationChanged(olds, news) || comesBack(olds, news));
}

const comesBack = (olds: Props, news: Props) => recordedExpired(olds) && !heldExpired(olds, news);

export async function retag<L extends Live>(definition: Definition, olds: Props, news: Props, live: L): Promise<{ live: L; olds: Props }> {
  const hooks = hooksOf(definition) as LifetimeHooks<L> | undefined;
  if (!hooks || !needsRetag(definition, olds, news)) return { live, olds };
  const current = splitLifetimeTag(hooks.serviceName(live)).tag;
  const runStart = comesBack(olds, news) || current?.expired ? serviceNow() : (hooks.runStart(live) ?? serviceNow());
  const wanted = declaredTag(lifetimeOf(news), idleOf(news), runStart);
  // The reapers' bookkeeping (idle since, a claim) is theirs: kept unless the rule is gone.
  const tag: LifetimeTag | undefined = wanted && { ...wanted, idleSince: wanted.idle ? current?.idleSince : undefined, other: current?.other ?? [] };
  // A reaper acted after the state was last recorded (an `up` without `--refresh`): the update
  // that follows must know, to bring it back, as if refresh had recorded it.
  const known = current?.expired && !recordedExpired(olds) ? { ...olds, expiry: { ...(expiryOf(current) ?? {}), expiredAt: current.expired.at, reason: current.expired.reason } } : olds;
  const name = withLifetimeTag(hooks.serviceName(live), tag);
  if (name === hooks.serviceName(live)) return { live, olds: known };
  const renamed = await hooks.rename(client(), live, name);
  report(definition.kind, String(news.name ?? definition.kind), tag ? `lifetime now ${describeTag(tag)}` : "lifetime removed");
  return { live: renamed, olds: known };
}

/**
 * A resource read as gone or ended: kept as `EXPIRED` when its lifetime ended it (a reaper's
 * `TERMINATE`, or past the recorded deadline with `TERMINATE`), else undefined (dropped as today).
 */
export function expiredRecord(definition: Definition, recorded: Props, live: Live | undefined): Props | undefined {
  const hooks = hooksOf(definition);
  if (!hooks) return undefined;
  const liveTag = live ? splitLifetimeTag(hooks.serviceName(live)).tag : undefined;
  const fact = recorded.expiry as ExpiryFact | null | undefined;
  const lifetime = lifetimeOf(recorded);
  const deadline = recordedDeadline(recorded);
  const expired =
    liveTag?.expired ??
    (fact?.expiredAt ? { at: fact.expiredAt, reason: fact.reason === "idle" ? ("idle" as const) : ("lifetime" as const) } : undefined) ??
    (lifetime?.action === "TERMINATE" && deadline !== undefined && deadline <= serviceNow() ? { at: tagTime(deadline), reason: "lifetime" as const } : undefined) ??
    // Gone with nothing left to read while an idle rule could end it: held rather than recreated on a guess.
    (idleOf(recorded)?.action === "TERMINATE" ? { at: tagTime(serviceNow()), reason: "idle" as const } : undefined);
  // Only a TERMINATE ends a resource: one declared to STOP that is gone was deleted by someone (dropped, as any).
  const action = expired?.reason === "idle" ? idleOf(recorded)?.action : lifetime?.action;
  if (!expired || action !== "TERMINATE") return undefined;
  report(definition.kind, String(recorded.name ?? definition.kind), `expired at ${expired.at} (${expired.reason}): ended, kept in the stack as ${EXPIRED}; change \`lifetime\` to create it again`);
  const before = fact ?? expiryOf(liveTag) ?? { deadline: null, action: null, idle: null };
  return { ...recorded, [definition.states.output]: EXPIRED, expiry: { ...before, expiredAt: expired.at, reason: expired.reason } };
}

/**
 * The diff's part: an expired resource held (a line says why nothing happens), or brought back
 * (ended: replaced; stopped: updated). Returns whether the recorded ended state must not replace.
 */
export function expiryDiff(definition: Definition, olds: Props, news: Props, result: { replaces: string[]; updates: string[] }): { hold: boolean } {
  if (hooksOf(definition) && declarationChanged(olds, news) && !comesBack(olds, news)) reportNewDeadline(definition, olds, news);
  if (!hooksOf(definition) || !recordedExpired(olds)) return { hold: false };
  const name = String(news.name ?? definition.kind);
  const at = (olds.expiry as ExpiryFact).expiredAt;
  if (heldExpired(olds, news)) {
    report(definition.kind, name, `expired at ${at} (${(olds.expiry as ExpiryFact).reason}): not brought back; change \`lifetime\` (or \`idle\`) to bring it back`);
    // Only what the program changed besides: never the convergence back to running.
    const drop = new Set([definition.states.output, "desiredState", "workers", "readiness"]);
    result.updates.splice(0, result.updates.length, ...result.updates.filter((key) => !drop.has(key)));
    return { hold: true };
  }
  if (String(olds[definition.states.output]) === EXPIRED) {
    if (!result.replaces.includes("lifetime")) result.replaces.push("lifetime");
  } else if (!result.updates.includes("lifetime")) result.updates.push("lifetime");
  return { hold: false };
}
