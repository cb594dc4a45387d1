/**
 * What an interrupted create left behind, found by the owner mark (sdk/ownership.ts) and
 * brought under the stack instead of created again.
 *
 * A create that runs again for the same stack resource (after a killed `up`, a crashed
 * provider host, a cancelled CI job) looks, before it creates, for a live pod or sandbox that
 * carries its mark:
 * - First generation (the resource was not in the state when checked): no resource of this
 *   stack resource can be in the state, so every live one with the same base was left behind.
 *   The newest whose settings match is adopted; the others are terminated (they bill, and no
 *   state will ever know them).
 * - Later generation (a replacement): only a resource carrying exactly this generation can be
 *   the interrupted attempt's; the resource being replaced carries an earlier one and is never
 *   touched here.
 * A match whose settings differ from what is now wanted (the program changed between the
 * interrupted run and this one) is terminated and created anew rather than adopted as if it
 * matched.
 */
import { POD_OWNER_ENV, SANDBOX_OWNER_LABEL, isFirstGeneration, parseOwnerMark, type ComputeClient, type Pod, type Sandbox } from "../../sdk";
import { report } from "./progress";

interface Marked {
  id: string;
  createdAt: string;
}

interface Found<T> {
  adopt?: T;
  discard: T[];
}

/** Sorts what carries the mark `wanted` (with its spec) into the one to adopt and the rest. */
export function leftBehind<T extends Marked>(items: T[], markOf: (item: T) => string | undefined, wanted: string): Found<T> {
  const target = parseOwnerMark(wanted);
  if (!target) return { discard: [] };
  const first = isFirstGeneration(wanted);
  const mine = items.filter((item) => {
    const mark = parseOwnerMark(markOf(item));
    if (!mark || mark.base !== target.base) return false;
    return first || mark.generation === target.generation;
  });
  const newestFirst = [...mine].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const adopt = newestFirst.find((item) => parseOwnerMark(markOf(item))?.spec === target.spec);
  return { adopt, discard: newestFirst.filter((item) => item !== adopt) };
}

/** A live pod the interrupted create of `mark` made, if any; strays of the same resource are terminated. */
export async function takeLeftBehindPod(api: ComputeClient, name: string, mark: string): Promise<Pod | undefined> {
  const live = (await api.pods.list()).filter((pod) => pod.status !== "TERMINATED");
  const found = leftBehind(live, (pod) => pod.env?.[POD_OWNER_ENV], mark);
  for (const stray of found.discard) {
    report("pod", name, `terminating pod ${stray.id}: an interrupted run created it for this resource with other settings`);
    await api.pods.delete(stray.id).catch(() => undefined);
  }
  if (found.adopt) report("pod", name, `adopted pod ${found.adopt.id}, which an interrupted run created for this resource`);
  return found.adopt;
}

/** The same for sandboxes (the list holds only live ones: CREATING, RUNNING and FAILED). */
export async function takeLeftBehindSandbox(api: ComputeClient, name: string, mark: string): Promise<Sandbox | undefined> {
  const live = await api.sandboxes.list();
  const found = leftBehind(
    live.filter((sandbox) => sandbox.state === "CREATING" || sandbox.state === "RUNNING"),
    (sandbox) => sandbox.labels?.[SANDBOX_OWNER_LABEL],
    mark,
  );
  const failed = leftBehind(
    live.filter((sandbox) => sandbox.state === "FAILED"),
    (sandbox) => sandbox.labels?.[SANDBOX_OWNER_LABEL],
    mark,
  );
  for (const stray of [...found.discard, ...(failed.adopt ? [failed.adopt] : []), ...failed.discard]) {
    report("sandbox", name, `terminating sandbox ${stray.id}: an interrupted run created it for this resource and it is not usable`);
    await api.sandboxes.delete(stray.id).catch(() => undefined);
  }
  if (found.adopt) report("sandbox", name, `adopted sandbox ${found.adopt.id}, which an interrupted run created for this resource`);
  return found.adopt;
}
