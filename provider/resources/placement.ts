/**
 * Ordered placement candidates, as the resources that take them (pods, clusters) share them:
 * the input, the outputs that record what the create tried, the facts it returns, and the rule
 * every candidate obeys. The candidate loop itself is the SDK's (sdk/placement.ts).
 */
import type { PlacementAttempt, PlacementCandidate } from "../../sdk";
import type { CheckFailure } from "./check-failures";
import { containsUnknown, isUnknown } from "./unknowns";
import { same, type DiffResult, type InputSpec, type OutputList } from "./definition";

const candidate = {
  type: "object",
  properties: { gpuTypeId: { type: "string", optional: true }, dataCenterId: { type: "string", optional: true } },
} as const;

/** The `placement` input of a resource that `fits` on a candidate (`one pod`, `every node`). */
export function placementInput(noun: string, fits: string) {
  return {
    type: "array",
    items: candidate,
    // Replaces only when the current placement is no longer among the candidates.
    onChange: "depends",
    sent: "provider",
    doc: `Ordered placement candidates, each a GPU type and/or a data center, tried in turn until one has room for ${fits}. Changing the list never moves a ${noun} unless its current placement is no longer in it.`,
  } as const satisfies InputSpec;
}

/** The outputs recording the candidate chosen and every one tried. */
export function placementOutputs(noun: string, chosenNote = "") {
  return {
    placementChosen: { ...candidate, doc: `The candidate the ${noun} was created on (\`{}\` without \`placement\`${chosenNote}).` },
    placementAttempts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          gpuTypeId: { type: "string", optional: true },
          dataCenterId: { type: "string", optional: true },
          outcome: { type: "string" },
          status: { type: "number", optional: true },
        },
      },
      doc: "Each candidate tried at create, in order, with its outcome and HTTP status.",
    },
  } as const satisfies OutputList;
}

/** What a placed create records of its candidates. */
export function placementFacts(result: { chosen: PlacementCandidate; attempts: PlacementAttempt[] }) {
  return {
    placementChosen: result.chosen,
    placementAttempts: result.attempts.map((a) => ({ ...a.candidate, outcome: a.outcome, status: a.status })),
  };
}

/** Every candidate names a GPU type, a data center or both (`extra`: a resource's own rule per candidate). */
export function candidateFailures(placement: unknown, extra?: (candidate: PlacementCandidate, path: string) => CheckFailure | undefined): CheckFailure[] {
  if (!Array.isArray(placement)) return [];
  const out: CheckFailure[] = [];
  placement.forEach((c: PlacementCandidate | undefined, i) => {
    if (containsUnknown(c)) return;
    if (!c || (c.gpuTypeId === undefined && c.dataCenterId === undefined)) out.push({ property: `placement[${i}]`, reason: "must name a gpuTypeId, a dataCenterId or both" });
    else {
      const failure = extra?.(c, `placement[${i}]`);
      if (failure) out.push(failure);
    }
  });
  return out;
}

/** Whether the current placement is still among the allowed candidates (none: anywhere). */
export function placementAllowed(chosen: PlacementCandidate | undefined, candidates: PlacementCandidate[] | undefined): boolean {
  if (!candidates || candidates.length === 0 || !chosen) return true;
  return candidates.some(
    (c) => (c.gpuTypeId === undefined || c.gpuTypeId === chosen.gpuTypeId) && (c.dataCenterId === undefined || c.dataCenterId === chosen.dataCenterId),
  );
}

/**
 * Where a resource runs, as a candidate: the one it was created on, with what that candidate
 * left open (all of it without `placement`: `{}`) taken from where the service placed it. A
 * pod made without a list runs somewhere all the same: a list added later that allows where it
 * runs must keep it there, not replace it.
 */
export function currentPlacement(chosen: PlacementCandidate | undefined, placed: { gpuTypeId?: string | null; dataCenterId?: string | null }): PlacementCandidate | undefined {
  if (!chosen) return undefined;
  const gpuTypeId = chosen.gpuTypeId ?? placed.gpuTypeId ?? undefined;
  const dataCenterId = chosen.dataCenterId ?? placed.dataCenterId ?? undefined;
  return { ...(gpuTypeId !== undefined ? { gpuTypeId } : {}), ...(dataCenterId !== undefined ? { dataCenterId } : {}) };
}

/**
 * The `placement` input's own diff (its change effect `depends`): a list the current placement
 * (`chosen`) is no longer in replaces; any other change is the provider's own setting, recorded
 * in place. At preview, a candidate not known yet may or may not allow it: the current placement
 * stays only if a known candidate allows it (adding candidates never removes one that does).
 */
export function placementDiff(chosen: PlacementCandidate | undefined, before: unknown, after: PlacementCandidate[] | undefined, result: DiffResult): void {
  if (isUnknown(after)) {
    result.replaces.push("placement");
    return;
  }
  const candidates = after ?? [];
  const known = candidates.filter((candidate) => !containsUnknown(candidate));
  const stays = known.length === candidates.length ? placementAllowed(chosen, candidates) : !chosen || known.some((candidate) => placementAllowed(chosen, [candidate]));
  if (!stays) result.replaces.push("placement");
  else if (!same(before, after)) result.updates.push("placement");
}

/**
 * Whether the candidates alone choose the GPU type: there are some, and each names one. Else
 * the resource's own GPU type (a pod's `gpu.id`, a cluster's `compute.gpuTypeId`) is what a
 * candidate without one places, and a change of it is a change of the resource.
 */
export function candidatesChooseGpuType(placement: ReadonlyArray<PlacementCandidate | undefined> | undefined): boolean {
  return Array.isArray(placement) && placement.length > 0 && placement.every((c) => c?.gpuTypeId !== undefined);
}
