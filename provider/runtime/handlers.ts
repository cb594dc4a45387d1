/**
 * One set of provider methods for every resource of the registry (provider/resources/): check,
 * diff, create, read, update and delete, run the same way for a pod, a sandbox and whatever the
 * registry gains next. A definition says what its resource is (inputs, outputs, family, states,
 * owner mark, readiness) and hooks in only where this path cannot decide.
 *
 * What holds for every resource, stated here once:
 * - check: name and owner mark resolved, every rule at once (the contract's, then the provider
 *   settings' from their specs), nothing resting on a value unknown at preview, an estimate line;
 * - diff: from each input's change effect unless the definition decides; a replaced resource
 *   is never what its replacement's create adopts;
 * - create: an adopt-by-id input, or the owner-marked resource an interrupted run left behind,
 *   or a new one; then one wait with one deadline; a failure once the resource exists is a
 *   partial failure that records it (never a leak), and strays are settled only after success;
 * - read: gone or ended is dropped from the state; an import gets the shortest inputs, and a
 *   read by id alone (an import, a static `get`) of what is gone or ended fails in one line;
 * - delete: idempotent, and never of what a replacement adopted in this process;
 * - every method but check and create reads the recorded state in today's shape, and every
 *   state written carries today's version (state-versions.ts).
 */
import { ComputeError, CreatedButUnreadableError, NotFoundError, withSpec } from "../../sdk";
import { createRequestOf, diffOf, inputsOf, nativeToken, type InputList, type Props, type ResourceDefinition } from "../resources/definition";
import { readinessInputViolations } from "../resources/readiness";
import { findLeftBehind, markReplacing, wasAdopted } from "./adoption";
import { proveKeyFor } from "./credentials";
import { endedLookup, notFound } from "./errors";
import { toCheckFailures, type CheckFailure } from "../resources/check-failures";
import { reportEstimate } from "./cost-estimate";
import { WaitFailed, endedBecause, readyTimeoutSeconds } from "./wait";
import { PartialFailure, plain, unreadableCreate } from "./partial";
import { probeReadiness, readinessOf } from "./readiness";
import { forget, report, reportTransition } from "./progress";
import { readById } from "./shared-reads";
import { PROVIDER_KEY, resolveName, resolveOwnerMark, withoutProvider } from "./props";
import { client } from "./settings";
import { hookContext } from "./context";
import { isUnknown } from "../resources/unknowns";
import { upgradedState, withStateVersion } from "./state-versions";
import { rememberFailedPlacement } from "./recovery";
import { recoveryRefusal } from "../resources/recovery";
import { forgetCapacityDeadline } from "./capacity-wait";
import { EXPIRED, expiredRecord, expiryDiff, expiryOutput, heldByLifetime, lifetimeCheck, needsRetag, retag, tagAdopted, tagCreateRequest } from "./lifetime";

export interface Handlers {
  check(olds: Props, news: Props): Promise<{ inputs: Props; failures: CheckFailure[] }>;
  diff(id: string, olds: Props, news: Props): Promise<{ changes: boolean; replaces: string[]; deleteBeforeReplace: boolean }>;
  create(props: Props): Promise<{ id: string; outs: Props }>;
  read(id: string, props: Props): Promise<{ id: string; props?: Props; inputs?: Props }>;
  update(id: string, olds: Props, news: Props): Promise<{ outs: Props }>;
  remove(id: string, props: Props): Promise<void>;
}

/** Failures of the provider's own settings, from their specs: enum values and positive numbers. */
export function providerSettingFailures(list: InputList, inputs: Props): CheckFailure[] {
  const out: CheckFailure[] = [];
  for (const [key, spec] of Object.entries(list)) {
    const value = inputs[key];
    if (spec.sent !== "provider" || value === undefined || isUnknown(value)) continue;
    if (spec.type === "string" && spec.enum && !spec.enum.includes(value as string)) {
      out.push({ property: key, reason: `must be ${spec.enum.map((v) => JSON.stringify(v)).join(" or ")}` });
    }
    if (spec.positive && !(typeof value === "number" && value > 0)) out.push({ property: key, reason: "must be a number > 0" });
  }
  return out;
}

/** The handlers of a definition: any of the registry's (each is typed in its own terms; here they are alike). */
export function handlersOf(definition: ResourceDefinition): Handlers {
  /** A live object as every definition's has it. */
  type Live = { id: string; createdAt?: string };
  type Inputs = Props;
  type Facts = Props;
  const { kind } = definition;
  const family = () => definition.family(client());
  const stateOf = (live: Live) => definition.states.of(live);
  const ended = (live: Live) => definition.states.ended.has(stateOf(live));

  /** `ready`: what the last probing found (true, false), null without probes; only for a definition with readiness. */
  type Ready = boolean | null;
  function outputsOf(inputs: Props, live: Live, previous?: Partial<Facts>, ready?: Ready): Props {
    return plain(withStateVersion(definition, { ...inputs, ...definition.facts(live, previous), ...(definition.readiness ? { ready: ready ?? null } : {}), ...expiryOutput(definition, live) }));
  }

  /** A failure once the resource exists: recorded with the last object seen, never leaked (and, where it probes, not ready). */
  function partial(inputs: Props, providerText: unknown, live: Live, facts: Partial<Facts> | undefined, error: Error): PartialFailure {
    const properties = { ...outputsOf(inputs, live, facts, probing(inputs) ? false : null), [PROVIDER_KEY]: providerText };
    return new PartialFailure(error.message, live.id, properties, [error.message]);
  }

  /** What a hook is handed for the resource with these inputs (context.ts); a failure it reports goes through `partial`. */
  function contextOf(inputs: Props, providerText: unknown, facts: () => Partial<Facts> | undefined) {
    return hookContext(definition, inputs, (live, error) => partial(inputs, providerText, live, facts(), error));
  }

  /** The inputs ask for probes and they apply (provider/runtime/readiness.ts). */
  function probing(inputs: Props): boolean {
    return definition.readiness !== undefined && readinessOf(inputs) !== undefined && (definition.probesApply?.(inputs) ?? true);
  }

  /** One deadline for the state wait and the probes after it. */
  function deadlineOf(inputs: Props): number {
    return Date.now() + readyTimeoutSeconds(definition, inputs) * 1000;
  }

  async function settle(context: ReturnType<typeof contextOf>, inputs: Inputs, live: Live): Promise<Live> {
    if (definition.settle) return definition.settle(context, inputs, live);
    if (!definition.ready) return live;
    return context.awaitState(live.id, definition.ready(inputs), live);
  }

  async function check(olds: Props, news: Props) {
    const inputs = withoutProvider(news) as Inputs;
    // The inputs the engine kept from the last run: not versioned, so never migrated
    // (state-versions.ts says why a renamed input is a schema change, not a migration).
    const previous = withoutProvider(olds);
    resolveOwnerMark(inputs, previous);
    // A resource without a `name` input (an SSH key) gets none: it would be a change of its own.
    if ("name" in definition.inputs) resolveName(inputs, previous, kind);
    const failures = [
      ...toCheckFailures(definition.violations(inputs), inputs),
      ...(definition.readiness ? toCheckFailures(readinessInputViolations(definition.readiness, inputs), inputs) : []),
      ...providerSettingFailures(definition.inputs, inputs),
      ...lifetimeCheck(definition, inputs, previous),
      ...((await definition.checkHook?.(contextOf(inputs, undefined, () => undefined), inputs, previous)) ?? []),
    ];
    // Printed, never recorded: a price change alone must not be a diff (cost-estimate.ts).
    if (failures.length === 0) await reportEstimate(definition, inputs);
    return { inputs: { ...inputs, [PROVIDER_KEY]: news[PROVIDER_KEY] }, failures };
  }

  async function diff(id: string, recorded: Props, news: Props) {
    const olds = upgradedState(definition, recorded);
    const inputs = withoutProvider(news) as Inputs;
    const result = diffOf(definition, olds, inputs);
    // Recorded as ended or broken (a failed start, or a change that ended it): it cannot be
    // brought back in place, so the next `up` replaces it.
    const recordedState = String(olds[definition.states.output]);
    if (definition.states.ended.has(recordedState) || definition.states.broken?.has(recordedState)) result.replaces.push(definition.states.output);
    // Found in ERROR with `recovery: REPLACE`: a new one, which tries where this one failed last (recovery.ts).
    if (recordedState === "ERROR" && inputs.recovery === "REPLACE" && "recovery" in definition.inputs) {
      result.replaces.push("recovery");
      // The candidate it was created on (one of the list, as given): the replacement tries it last.
      const where = (olds.placementChosen ?? {}) as { gpuTypeId?: string; dataCenterId?: string };
      rememberFailedPlacement(inputs.ownerMark, where);
      const spot = where.gpuTypeId !== undefined || where.dataCenterId !== undefined ? `; the new one tries ${where.gpuTypeId ?? "(its GPU type)"} in ${where.dataCenterId ?? "(any data center)"}, where this one was placed, last` : "";
      report(kind, String(inputs.name ?? id), `is in ERROR: replaced (recovery REPLACE)${spot}`);
    }
    // Probes that did not pass (or never ran): the next `up` probes again, in place.
    if (probing(inputs) && olds.ready !== true && !result.updates.includes("readiness")) result.updates.push("readiness");
    // Expired by its lifetime: held as it is until the lifetime changes (lifetime.ts).
    expiryDiff(definition, olds, inputs, result);
    // The replacement's create must never take this resource (see adoption.ts).
    if (result.replaces.length > 0) markReplacing(id);
    await definition.previewDiff?.(contextOf(inputs, news[PROVIDER_KEY], () => olds), id, olds, inputs, result);
    // A new provider build must reach the state even when nothing else changed.
    const providerChanged = olds[PROVIDER_KEY] !== news[PROVIDER_KEY];
    return { changes: result.replaces.length > 0 || result.updates.length > 0 || providerChanged, replaces: result.replaces, deleteBeforeReplace: false };
  }

  /**
   * A partial failure records the resource with the properties it carries, whichever path made
   * them (the handlers' own, a definition's hook, an unreadable answer): written with today's
   * state version like every other state, so a later migration never runs on it twice.
   */
  function versioned(error: unknown): unknown {
    return error instanceof PartialFailure ? new PartialFailure(error.message, error.id, withStateVersion(definition, error.properties), error.reasons) : error;
  }

  async function create(props: Props) {
    return createOrAdopt(props).catch((error: unknown) => Promise.reject(versioned(error)));
  }

  async function createOrAdopt(props: Props) {
    const inputs = withoutProvider(props) as Inputs;
    const name = String(inputs.name ?? inputs.namePrefix ?? kind);
    let live: Live;
    let facts: Partial<Facts> | undefined;
    const context = contextOf(inputs, props[PROVIDER_KEY], () => facts);
    let settleStrays: (() => Promise<void>) | undefined;
    const adoptId = definition.adoptInput ? (inputs[definition.adoptInput] as string | undefined) : undefined;
    if (adoptId) {
      live = await family().get(adoptId);
      if (ended(live)) throw new ComputeError(`${definition.adoptInput} ${adoptId}: the ${kind} is ${stateOf(live)} and cannot be adopted`);
      report(kind, name, `adopted existing ${kind} ${live.id}`);
    } else {
      // The mark records who owns the resource and from which settings, so that this create,
      // run again after an interrupted `up`, takes what the first attempt made (adoption.ts).
      const request = createRequestOf(definition.inputs, inputs);
      const mark = typeof inputs.ownerMark === "string" ? withSpec(inputs.ownerMark, definition.markSpec(request, inputs)) : undefined;
      const found = mark ? await findLeftBehind(definition, context.api, name, mark) : undefined;
      settleStrays = found?.settle;
      // What an interrupted run made carries the rule of its day: today's is written if it differs.
      if (found?.adopted) {
        live = await tagAdopted(definition, inputs, found.adopted);
        // Made by an interrupted run that was waiting for capacity: that wait is over.
        await forgetCapacityDeadline(inputs.ownerMark);
      }
      else {
        if (mark) definition.owner.write(request, mark);
        tagCreateRequest(definition, request, inputs);
        const created = await definition.create(context, request, inputs).catch((error: unknown) => {
          if (error instanceof CreatedButUnreadableError) throw unreadableCreate(inputs, definition.idOutput, error.resourceId, props[PROVIDER_KEY], error);
          throw error;
        });
        live = created.live;
        facts = created.facts;
      }
    }
    reportTransition(kind, name, live.id, stateOf(live));
    definition.afterCreate?.(context, inputs, live);
    const deadline = deadlineOf(inputs);
    try {
      live = await settle(context, inputs, live);
      if (probing(inputs)) live = await probeReadiness(definition, inputs, live, deadline);
    } catch (error) {
      if (error instanceof WaitFailed && error.ended && definition.discardIfEndedAtCreate) {
        // It cannot run any more and the stack never knew it: terminated, not left behind.
        await family()
          .delete(live.id)
          .catch(() => undefined);
        throw new ComputeError(error.message);
      }
      const last = error instanceof WaitFailed && error.live ? (error.live as Live) : live;
      throw partial(inputs, props[PROVIDER_KEY], last, facts, error as Error);
    }
    // Only now that it is ready: a failed create must never have cost a working resource.
    await settleStrays?.();
    return { id: live.id, outs: outputsOf(inputs, live, facts, probing(inputs) ? true : null) };
  }

  async function read(id: string, recorded: Props) {
    const props = upgradedState(definition, recorded);
    // Shared with the other reads of the family under way: a refresh of 1000 resources is a few lists.
    const api = client();
    let missing: NotFoundError | undefined;
    const found = await readById(api, `read:${kind}`, definition.family(api), id)
      .catch((error: unknown) => {
        if (!(error instanceof NotFoundError)) throw error;
        missing = error;
        return undefined;
      });
    // A rotated key's 404 may be another account's answer: never a reason to forget (credentials.ts).
    await proveKeyFor(kind, String(props.name ?? id), id, async () => found !== undefined);
    // A read with nothing recorded (an import, a static `get`, YAML's `get`: the id alone) looks
    // an object up: one that is not there is a failure there, not a removal from the state.
    const lookingUp = Object.keys(withoutProvider(recorded)).length === 0;
    // Ended by its lifetime: kept, with when and why, so the next `up` does not recreate it unasked.
    const expired = lookingUp || (found && !ended(found)) ? undefined : expiredRecord(definition, props, found);
    if (expired) return { id, props: plain(withStateVersion(definition, expired)), inputs: plain(inputsOf(definition.inputs, props)) };
    if (!found) {
      if (lookingUp) throw notFound(nativeToken(definition), id, missing);
      return { id: "" };
    }
    const live: Live = found;
    if (ended(live)) {
      if (lookingUp) throw endedLookup(nativeToken(definition), id, `${stateOf(live)}${endedBecause(definition, live)}`);
      report(kind, String(props.name ?? id), `is ${stateOf(live)}${endedBecause(definition, live)}: removed from the stack`);
      return { id: "" };
    }
    // Refresh knows the recorded outputs; an import or a `get` knows only the id.
    const importing = props[definition.idOutput] === undefined;
    const inputs = (importing ? definition.imported(live) : (definition.refreshed?.(props, live) ?? inputsOf(definition.inputs, props))) as Props;
    // What the last probing found stands until the next create or update probes again.
    const ready = importing ? null : ((props.ready as Ready | undefined) ?? null);
    return { id, props: outputsOf(inputs, live, importing ? undefined : (props as Partial<Facts>), ready), inputs: plain({ ...inputs }) };
  }

  async function update(id: string, recorded: Props, news: Props) {
    return updateInPlace(id, upgradedState(definition, recorded), news).catch((error: unknown) => Promise.reject(versioned(error)));
  }

  async function updateInPlace(id: string, olds: Props, news: Props) {
    const inputs = withoutProvider(news) as Inputs;
    const deadline = deadlineOf(inputs);
    // Nothing to ask the service: the new inputs replace the old ones whole (a removed setting
    // must not linger), next to the recorded facts.
    const recordedOnly = (ready: unknown) => {
      const facts = Object.fromEntries(Object.entries(olds).filter(([key]) => !(key in inputsOf(definition.inputs, olds)) && key !== PROVIDER_KEY));
      return { outs: plain(withStateVersion(definition, { ...facts, ...inputs, ...(definition.readiness ? { ready } : {}) })) };
    };
    // Stopped or ended by its lifetime, the same lifetime declared: held, nothing brought back and
    // nothing probed; what the service no longer has is not asked about (lifetime.ts).
    const held = heldByLifetime(definition, olds, inputs);
    if (held && String(olds[definition.states.output]) === EXPIRED) return recordedOnly(olds.ready ?? null);
    // Recorded in ERROR under `recovery: FAIL`: nothing at all is asked of the service.
    const refusal = "recovery" in definition.inputs ? recoveryRefusal(kind, id, olds[definition.states.output], inputs.recovery) : undefined;
    if (refusal) throw new ComputeError(refusal);
    try {
      // A changed lifetime is a rename, made first: what comes back from an expiry must not read
      // as expired, to a reaper, while it starts.
      const retagged = needsRetag(definition, olds, inputs) ? await retag(definition, olds, inputs, await family().get(id)) : undefined;
      const known = retagged?.olds ?? olds;
      let updated = await definition.update?.(contextOf(inputs, news[PROVIDER_KEY], () => known as Partial<Facts>), id, known, inputs);
      if (!updated && retagged) updated = { live: retagged.live };
      if (probing(inputs) && !held) {
        // Probed again after every update: a restarted container must answer before dependents go on.
        const live = await probeReadiness(definition, inputs, updated?.live ?? (await family().get(id)), deadline);
        return { outs: outputsOf(inputs, live, { ...(olds as Partial<Facts>), ...updated?.facts }, true) };
      }
      const ready = held ? ((olds.ready as Ready | undefined) ?? null) : null;
      if (!updated) return recordedOnly(ready);
      return { outs: outputsOf(inputs, updated.live, { ...(olds as Partial<Facts>), ...updated.facts }, ready) };
    } catch (error) {
      if (error instanceof WaitFailed && error.live) throw partial(inputs, news[PROVIDER_KEY], error.live as Live, olds as Partial<Facts>, error);
      throw error;
    }
  }

  async function remove(id: string, recorded: Props) {
    const props = upgradedState(definition, recorded);
    const name = String(props.name ?? id);
    if (wasAdopted(id)) {
      // A targeted replace (`--replace`, taint) runs no diff, so its create could not tell
      // this resource from one an interrupted run left, and adopted it: it is the stack's now.
      report(kind, name, `kept ${kind} ${id}: its replacement adopted it (to force a new one, change an input that replaces it)`);
      return;
    }
    // With a rotated key, first proof that it sees this resource: its 404 below would skip a billing one.
    await proveKeyFor(kind, name, id, () => family().get(id).then(() => true, (error: unknown) => (error instanceof NotFoundError ? false : Promise.reject(error))));
    try {
      await family().delete(id);
    } catch (error) {
      if (error instanceof NotFoundError) return; // already gone: deleting is idempotent
      throw error;
    }
    const watcher = family().watcher;
    if (definition.deleteWaitsForGone && watcher) {
      // Until the service reports it gone, so `destroy` ends with nothing billing.
      try {
        await watcher.waitFor(id, () => false, { missingTolerance: 0, signal: AbortSignal.timeout(10 * 60_000) });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    reportTransition(kind, name, id, definition.deletedAs);
    forget(kind, id);
  }

  return { check, diff, create, read, update, remove };
}
