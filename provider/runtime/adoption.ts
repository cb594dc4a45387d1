/**
 * What an interrupted create left behind, found by the owner mark (sdk/ownership.ts) and
 * brought under the stack instead of created again.
 *
 * A create that runs again for the same stack resource (after a killed `up`, a crashed
 * provider host, a cancelled CI job) looks, before it creates, for a live pod or sandbox of
 * the same base and generation whose settings match, and adopts it. What else of that stack
 * resource it finds is a stray, terminated only once the create has succeeded (so a failed
 * create never costs a working resource):
 * - A replacement (a later generation): strays are resources of exactly its generation (an
 *   earlier attempt of this same replacement with other settings). The resource it replaces
 *   carries an earlier generation and is left to the engine.
 * - A first generation (the state holds no resource of this URN, or a targeted `--replace`):
 *   every other live resource of the base is a stray: it is either left behind by an
 *   interrupted run, or the resource a targeted replace is about to delete anyway.
 * The list is taken once per run and family, and shared by every create of the run
 * (shared-reads.ts `forRun` says why that is safe). Ids the engine's diff said are being replaced are never taken, and a resource adopted in
 * this process is not deleted by it (a targeted replace cannot tell the provider which
 * resource it replaces, and may hand the adopted one to `delete`).
 */
import { ComputeError, NotFoundError, isFirstGeneration, parseOwnerMark, splitMarkedName, type ComputeClient, type SetAside } from "../../sdk";
import type { ResourceDefinition } from "../resources/definition";
import { report } from "./progress";
import { forRun } from "./shared-reads";
import { processSlot } from "./process-memory";

const REPLACING = "replacing";
const ADOPTED = "adopted";

function registry(key: typeof REPLACING | typeof ADOPTED): Set<string> {
  // The diff that marks a replacement, and the create and delete that read the marks, are
  // separate calls: any copy of the runtime may serve each (process-memory.ts).
  return processSlot(key, () => new Set<string>());
}

/** The engine's diff said the resource with this id is replaced in this run. */
export function markReplacing(id: string): void {
  registry(REPLACING).add(id);
}

/** Whether a create of this process adopted the resource with this id. */
export function wasAdopted(id: string): boolean {
  return registry(ADOPTED).has(id);
}

interface Marked {
  id: string;
  /** Kinds without a creation time (volumes, templates) sort as the oldest. */
  createdAt?: string;
}

export interface LeftBehind<T> {
  adopt?: T;
  /** Terminate once the create has succeeded. */
  strays: T[];
}

/** Sorts what carries the base of `wanted` into the one to adopt and the strays. */
export function leftBehind<T extends Marked>(items: T[], markOf: (item: T) => string | undefined, wanted: string): LeftBehind<T> {
  const target = parseOwnerMark(wanted);
  if (!target) return { strays: [] };
  const sameBase = items
    .filter((item) => parseOwnerMark(markOf(item))?.base === target.base && !registry(REPLACING).has(item.id))
    .sort((a, b) => (Date.parse(b.createdAt ?? "") || 0) - (Date.parse(a.createdAt ?? "") || 0));
  const sameGeneration = sameBase.filter((item) => parseOwnerMark(markOf(item))!.generation === target.generation);
  const adopt = sameGeneration.find((item) => parseOwnerMark(markOf(item))!.spec === target.spec);
  const candidates = isFirstGeneration(wanted) ? sameBase : sameGeneration;
  return { adopt, strays: candidates.filter((item) => item !== adopt) };
}

/**
 * A list item the SDK could not read may be what the interrupted create made: rather than risk
 * a second resource, refuse (the error says which item and why; `compute ps` shows it too).
 */
function refuseOverUnreadable(kind: string, name: string, setAside: SetAside[]): void {
  // A kind that carries its mark in its name lists it as `<name>~…`.
  const suspect = setAside.find((item) => item.name === undefined || item.name === name || splitMarkedName(item.name).name === name);
  if (suspect) {
    throw new ComputeError(
      `${kind} ${name}: the ${kind} list holds an item that cannot be read (${suspect.id ?? "no id"}: ${suspect.violations.join("; ")}); ` +
        `it may be what an interrupted run created for this resource, so no second one is created`,
    );
  }
}

export interface Found<T> {
  adopted?: T;
  /** Terminates the strays; call once the created or adopted resource is ready. */
  settle(): Promise<void>;
}

/**
 * Before a create: what an interrupted create of `mark` made, if anything. Live resources of
 * the definition's family are candidates to adopt; ended ones that still list (its `clutter`
 * states, a FAILED sandbox) and broken ones (a cluster with a failed node) are the account's
 * clutter, terminated with the strays.
 */
export async function findLeftBehind<T extends Marked>(definition: ResourceDefinition<any, T>, api: ComputeClient, name: string, mark: string): Promise<Found<T>> {
  const { kind, states, owner } = definition;
  const family = definition.family(api);
  const page = await forRun(api, `adoption:${kind}`, () => family.page());
  refuseOverUnreadable(kind, name, page.setAside);
  const wanted = owner.compact?.(mark) ?? mark;
  const broken = (item: T) => states.broken?.has(states.of(item)) ?? false;
  const usable = leftBehind(page.items.filter((item) => !states.ended.has(states.of(item)) && !broken(item)), owner.read, wanted);
  // A broken one can never become ready: it is cleared away with the strays, never adopted.
  const clutter = leftBehind(page.items.filter((item) => (states.clutter?.has(states.of(item)) ?? false) || broken(item)), owner.read, wanted);
  let brokeSince: T | undefined;
  if (usable.adopt) {
    // The list is the run's (taken at its first create): the resource may have ended or gone
    // since (an idle timeout, a delete-first replacement). Adopt it only as it is now.
    const now = await family.get(usable.adopt.id).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    if (now && !states.ended.has(states.of(now)) && !broken(now)) {
      usable.adopt = now;
      registry(ADOPTED).add(now.id);
      report(kind, name, `adopted ${kind} ${now.id}, which an interrupted run created for this resource`);
    } else {
      if (now && broken(now)) brokeSince = now;
      usable.adopt = undefined;
    }
  }
  const strays = [...usable.strays, ...(clutter.adopt ? [clutter.adopt] : []), ...clutter.strays, ...(brokeSince ? [brokeSince] : [])];
  return {
    adopted: usable.adopt,
    settle: async () => {
      for (const stray of strays) {
        if (definition.strays === "report") {
          report(kind, name, `warning: ${kind} ${stray.id} was created for this resource by an earlier run with other settings and no state holds it; it is kept (its data may matter): delete it, or import it, yourself`);
          continue;
        }
        report(kind, name, `terminating ${kind} ${stray.id}: an earlier run created it for this resource and no state holds it`);
        await family.delete(stray.id).catch(() => undefined);
      }
    },
  };
}
