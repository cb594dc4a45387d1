/**
 * A pod's `recovery` (what the next `up` does with it found in ERROR), as the definitions and the
 * runtime share it: the input, and the refusal `FAIL` gives. The runtime keeps where a replaced
 * pod failed (provider/runtime/recovery.ts).
 */
import type { InputSpec } from "./definition";

export const recoveryInput = {
  type: "string",
  enum: ["RESTART", "REPLACE", "FAIL"],
  onChange: "update",
  sent: "provider",
  unset: "RESTART",
  doc: "What the next `up` does with the pod found in ERROR (by a refresh, or by that update): `RESTART` (default, as before this input existed) starts it again; `REPLACE` makes a new one, which tries the failed placement last; `FAIL` stops the `up` and touches nothing.",
} as const satisfies InputSpec;

/**
 * The refusal of an update of a resource recorded in ERROR under `recovery: FAIL`, made before
 * anything is asked of the service (a rename of its lifetime included); undefined otherwise.
 */
export function recoveryRefusal(kind: string, id: string, recordedState: unknown, recovery: unknown): string | undefined {
  if (recordedState !== "ERROR" || recovery !== "FAIL") return undefined;
  return `${kind} ${id} is in ERROR and its recovery is FAIL: nothing was changed; look at it (compute ps, its logs), then set recovery to RESTART or REPLACE, or fix it by hand`;
}

