/**
 * The context a definition's hooks are called with (`HookContext`, provider/resources/definition.ts):
 * the runtime's services bound to one resource, so that a definition imports none of them.
 */
import type { HookContext, Props, ResourceDefinition } from "../resources/definition";
import { report } from "./progress";
import { client } from "./settings";
import { forSeconds } from "./shared-reads";
import { templateChanges } from "./template-changes";
import { awaitState } from "./wait";
import { capacityDeadline } from "./capacity-wait";
import { failedPlacementOf } from "./recovery";

/**
 * The context for a call about the resource with these `inputs`; `failed` is the handlers' one
 * partial-failure builder (the resource exists: record it with the last object seen).
 */
export function hookContext<Live extends { id: string; createdAt?: string }>(
  definition: ResourceDefinition<any, Live>,
  inputs: Props,
  failed: (live: Live, error: Error) => Error,
): HookContext<Live> {
  const name = String(inputs.name ?? inputs.namePrefix ?? definition.kind);
  const timeout = typeof inputs.readyTimeoutSeconds === "number" ? inputs.readyTimeoutSeconds : undefined;
  return {
    // Made on first use: a check that reads nothing must not need a configured client.
    get api() {
      return client();
    },
    report: (message) => report(definition.kind, name, message),
    awaitState: (id, wait, seen) => awaitState(definition, { name, readyTimeoutSeconds: timeout }, id, wait, seen),
    cached: (key, seconds, read) => forSeconds(client(), key, seconds, read),
    failed: (live, message) => failed(live, new Error(message)),
    templates: templateChanges,
    capacityDeadline: (timeoutSeconds) => capacityDeadline(inputs.ownerMark, timeoutSeconds, client().http.serverNow()),
    ...(failedPlacementOf(inputs.ownerMark) ? { failedPlacement: failedPlacementOf(inputs.ownerMark) } : {}),
  };
}
