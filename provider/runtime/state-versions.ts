/**
 * Which version of its shape a resource's recorded state is, and the migrations that bring an
 * older one to today's before anything reads it (Terraform's state upgraders, pulumi-go-provider's
 * state migrations). A state lives in a user's stack for months and is a contract, as the API is:
 * every build reads every earlier build's states.
 *
 * - The version is the definition's `migrations.length + 1`, stated nowhere else, and recorded in
 *   each state the runtime writes under `__stateVersion` (a key the engine treats as internal: it
 *   shows in no diff). A state without it was written before versions existed: version 1.
 * - `diff`, `read`, `update` and `delete` see the recorded state upgraded in place; what they
 *   write carries today's version.
 * - A state of a later version than this build knows was written by a newer build: refused with
 *   what to do, never guessed at.
 * - What is versioned is the state the runtime records (the outputs, which repeat the inputs the
 *   resource was last made or updated with). The inputs the engine keeps beside it, which `check`
 *   and the native plugin's detailed diff compare, carry no version and are never migrated: a
 *   renamed or reshaped input is a change of the input list and the schema (the schema gate
 *   names it), not a migration alone.
 */
import type { ResourceDefinition } from "../resources/definition";
import type { Props } from "../resources/definition";

/** Where a state records its version. */
export const STATE_VERSION_KEY = "__stateVersion";

/** The version of the state this build writes for `definition`. */
export function stateVersion(definition: Pick<ResourceDefinition, "kind" | "migrations">): number {
  return (definition.migrations?.length ?? 0) + 1;
}

/** The recorded state `props` in today's shape, with today's version. */
export function upgradedState(definition: Pick<ResourceDefinition, "kind" | "migrations">, props: Props): Props {
  const current = stateVersion(definition);
  const recorded = props[STATE_VERSION_KEY] ?? 1;
  if (typeof recorded !== "number" || !Number.isInteger(recorded) || recorded < 1) {
    throw new Error(`the recorded state of this ${definition.kind} has ${STATE_VERSION_KEY} ${JSON.stringify(recorded)}: a state version is a whole number from 1 (docs/upgrades.md)`);
  }
  if (recorded > current) {
    throw new Error(
      `the recorded state of this ${definition.kind} is version ${recorded}, written by a later build of pulumi-compute than this one (it reads versions 1 to ${current}): ` +
        "install the build that wrote it, or a later one, before refresh, preview, up or destroy (docs/upgrades.md)",
    );
  }
  let state = props;
  for (let version = recorded; version < current; version++) state = definition.migrations![version - 1]!(state);
  return withStateVersion(definition, state);
}

/** `outputs` recorded as this build's version of the state. */
export function withStateVersion(definition: Pick<ResourceDefinition, "kind" | "migrations">, outputs: Props): Props {
  return { ...outputs, [STATE_VERSION_KEY]: stateVersion(definition) };
}
