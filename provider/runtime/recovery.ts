/**
 * Recovery of a pod found in ERROR (its `recovery` input): `RESTART` (the default: what `up` has
 * always done, converging it back to RUNNING, so a stack made before `recovery` existed behaves
 * the same), `REPLACE` (a new pod, placed elsewhere when another candidate has room) or `FAIL`
 * (the `up` stops and says so; nothing is touched).
 *
 * Where a replaced pod failed is kept in this process between the diff that decides the
 * replacement and the create that makes it (the engine runs both in one provider process during
 * an `up`), keyed by the stack resource (its owner mark's base, shared by every generation): the
 * create tries that placement last.
 */
import { parseOwnerMark } from "../../sdk";
import type { PlacementCandidateLike } from "../resources/definition";

export const RECOVERY_POLICIES = ["RESTART", "REPLACE", "FAIL"] as const;
export type RecoveryPolicy = (typeof RECOVERY_POLICIES)[number];

const failed = new Map<string, PlacementCandidateLike>();

const baseOf = (mark: unknown) => (typeof mark === "string" ? parseOwnerMark(mark)?.base : undefined);

/** Records where the stack resource carrying `mark` failed. */
export function rememberFailedPlacement(mark: unknown, placement: PlacementCandidateLike): void {
  const base = baseOf(mark);
  if (base) failed.set(base, placement);
}

/** Where the stack resource carrying `mark` failed before, if its replacement is being made. */
export function failedPlacementOf(mark: unknown): PlacementCandidateLike | undefined {
  const base = baseOf(mark);
  return base ? failed.get(base) : undefined;
}
