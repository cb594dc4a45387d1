/**
 * What the serialized providers call, loaded by package name (`pulumi-compute/provider-runtime`)
 * inside the dynamic-provider process. Not a public API.
 *
 * Every method goes through `guarded`: it learns which input values are secret before anything
 * runs, and nothing leaves it (errors, check failures) without those values replaced.
 */
import { RESOURCES, resourceByToken } from "../resources";
import { nativeToken } from "../resources/definition";
import type { CheckFailure } from "./check-failures";
import { handlersOf, type Handlers } from "./handlers";
import type { Props } from "./props";
import { learnSecrets, redact, redactError } from "./secrets";
export { configure } from "./settings";
export type { Handlers } from "./handlers";

/**
 * Check failures go to the engine without a `property`: the engine prints the named
 * property's value next to the reason (`property args value {…} has a problem`), and a secret
 * value would be printed in plaintext. The reason names the field instead.
 */
function engineFailures(failures: CheckFailure[]): CheckFailure[] {
  return failures.map((failure) => ({ property: "", reason: redact(`${failure.property}: ${failure.reason}`) }));
}

function guarded(handlers: Handlers): Handlers {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(handlers)) {
    if (typeof method !== "function") {
      wrapped[name] = method;
      continue;
    }
    wrapped[name] = async (...args: unknown[]) => {
      for (const arg of args) if (arg && typeof arg === "object") learnSecrets(arg as Props);
      try {
        const result = await (method as (...a: unknown[]) => Promise<unknown>)(...args);
        if (name === "check") {
          const checked = result as { inputs: Props; failures: CheckFailure[] };
          return { inputs: checked.inputs, failures: engineFailures(checked.failures) };
        }
        return result;
      } catch (error) {
        throw redactError(error);
      }
    };
  }
  return wrapped as unknown as Handlers;
}

/** Each registered resource's provider methods, by kind (`resources.pod`). */
export const resources: Readonly<Record<string, Handlers>> = Object.fromEntries(RESOURCES.map((definition) => [definition.kind, guarded(handlersOf(definition))]));

/** The methods of the resource a type token names (native or dynamic), or an error naming what this package serves. */
export function handlersFor(token: string): Handlers {
  const definition = resourceByToken(token);
  if (!definition) throw new Error(`unknown resource type ${token}: this package serves ${RESOURCES.map(nativeToken).join(", ")}`);
  return resources[definition.kind]!;
}
