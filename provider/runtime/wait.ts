/**
 * Waits as data (the model: Terraform's StateChangeConf, pulumi-kubernetes' await): a
 * definition says which state it wants and which ones fail the wait; this polls through the
 * SDK's shared watcher with one deadline, reports each transition once, and on failure hands
 * back the last object seen, so the resource is recorded, never leaked.
 */
import type { InputList, ResourceDefinition, Wait } from "../resources/definition";
import { reportTransition } from "./progress";
import { MAX_TIMER_MS } from "./timers";
import { client } from "./settings";

/** A wait that ended without the target: the last object seen travels with it. */
export class WaitFailed extends Error {
  constructor(
    message: string,
    readonly live: unknown,
    /** The resource ended (it can never reach the target). */
    readonly ended: boolean,
  ) {
    super(message);
  }
}

/** How long a create may settle where the definition has no `readyTimeoutSeconds` input (it settles at once). */
const WITHOUT_INPUT_SECONDS = 60;

/** How long a resource may take to be ready: the inputs' `readyTimeoutSeconds`, else that input's `unset`. */
export function readyTimeoutSeconds(definition: { inputs: InputList }, inputs: { readyTimeoutSeconds?: unknown }): number {
  if (typeof inputs.readyTimeoutSeconds === "number") return inputs.readyTimeoutSeconds;
  const unset = definition.inputs.readyTimeoutSeconds?.unset;
  return typeof unset === "number" ? unset : WITHOUT_INPUT_SECONDS;
}

/** ` (<reason>)` where the service says why a resource ended. */
export function endedBecause<Live>(definition: ResourceDefinition<any, Live & { id: string; createdAt?: string }>, live: Live): string {
  const reason = definition.states.reason?.(live as Live & { id: string; createdAt?: string });
  return reason ? ` (${reason})` : "";
}

/**
 * Until the resource `id` is in `wait.target` or one of `wait.failed`, within the inputs'
 * `readyTimeoutSeconds` (else the definition's default). `seen` is the object last read, what
 * a failure before the first poll hands back.
 */
export async function awaitState<Live extends { id: string; createdAt?: string }>(
  definition: ResourceDefinition<any, Live>,
  inputs: { name: string; readyTimeoutSeconds?: number },
  id: string,
  wait: Wait,
  seen?: Live,
): Promise<Live> {
  const { kind } = definition;
  const stateOf = (live: Live) => definition.states.of(live);
  const seconds = readyTimeoutSeconds(definition, inputs);
  // Node's timers cannot wait longer than MAX_TIMER_MS (a longer one fires at once).
  const signal = AbortSignal.timeout(Math.min(seconds * 1000, MAX_TIMER_MS));
  const { name } = inputs;
  let last: Live | undefined = seen;
  try {
    const watcher = definition.family(client()).watcher;
    if (!watcher) throw new Error(`${kind} has no states to wait for: its definition must settle itself`);
    const live = await watcher.waitFor(id, (item) => stateOf(item) === wait.target || wait.failed.has(stateOf(item)), {
      signal,
      // Waits from one state to another take alike long: the watcher polls the next one first around then.
      expect: `${seen ? stateOf(seen) : "unknown"} to ${wait.target}`,
      onUpdate: (item) => {
        last = item;
        reportTransition(kind, name, id, definition.states.progress?.(item) ?? stateOf(item));
      },
    });
    const state = stateOf(live);
    if (state === wait.target) return live;
    const ended = definition.states.ended.has(state);
    const message = ended
      ? `${kind} ${name} (${id}) ended ${state}${endedBecause(definition, live)} instead of ${wait.target}`
      : `${kind} ${name} (${id}) went to ${state}${endedBecause(definition, live)} while waiting for ${wait.target}`;
    throw new WaitFailed(message, live, ended);
  } catch (error) {
    if (error instanceof WaitFailed) throw error;
    if (signal.aborted) {
      throw new WaitFailed(
        `${kind} ${name} (${id}) was not ${wait.target} within ${seconds} s (last status ${last ? (definition.states.progress?.(last) ?? stateOf(last)) : "unknown"}); raise readyTimeoutSeconds if it needs longer`,
        last,
        false,
      );
    }
    throw new WaitFailed(
      `${kind} ${name} (${id}): waiting for ${wait.target} failed (${(error as Error).message}); it is recorded, and the next \`pulumi up\` resumes the wait`,
      last,
      false,
    );
  }
}
