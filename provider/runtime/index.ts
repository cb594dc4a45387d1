/**
 * What the serialized providers call, loaded by package name (`pulumi-compute/provider-runtime`)
 * inside the dynamic-provider process. Not a public API.
 *
 * Every method goes through `guarded`: it learns which input values are secret before anything
 * runs, and nothing leaves it (errors, check failures) without those values replaced.
 */
import type * as pulumi from "@pulumi/pulumi";
import { RESOURCES, resourceByToken } from "../resources";
import { nativeToken } from "../resources/definition";
import type { CheckFailure } from "../resources/check-failures";
import { handlersOf, type Handlers } from "./handlers";
import type { Props } from "../resources/definition";
import { ownedByStack } from "./props";
export { ownedByStack } from "./props";
import { credentials, requireConfiguredKey } from "./credentials";
import { userFacing, withoutHostPrint } from "./errors";
import { learnSecrets, redact, redactError } from "./secrets";
import { configure } from "./settings";
export { configure };
export { credentials } from "./credentials";
export type { Handlers } from "./handlers";

/**
 * Check failures go to the engine without a `property`: the engine prints the named
 * property's value next to the reason (`property args value {…} has a problem`), and a secret
 * value would be printed in plaintext. The reason names the field instead.
 */
function engineFailures(failures: CheckFailure[]): CheckFailure[] {
  return failures.map((failure) => ({ property: "", reason: redact(`${failure.property}: ${failure.reason}`) }));
}

/**
 * Methods only a program run calls (`up`, `preview`): they act with the configured key, never a
 * stand-in (credentials.ts). Not `diff`: `refresh` diffs what it read, too.
 */
const PROGRAM_RUN_METHODS = new Set(["check", "create", "update"]);
/** How each method is named in an error line. */
const OPERATIONS: Record<string, string> = { check: "check", diff: "diff", create: "create", read: "read", update: "update", remove: "delete" };

/** The resource a call is about, for its messages: the bag it was given (the last one that is an object) names it. */
function resourceName(args: unknown[]): string {
  const bags = args.filter((arg): arg is Props => !!arg && typeof arg === "object");
  const bag = bags[bags.length - 1] ?? {};
  const id = args.find((arg) => typeof arg === "string");
  return String(bag.name ?? bag.namePrefix ?? id ?? "");
}

function guarded(kind: string, handlers: Handlers): Handlers {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(handlers)) {
    if (typeof method !== "function") {
      wrapped[name] = method;
      continue;
    }
    wrapped[name] = async (...args: unknown[]) => {
      for (const arg of args) if (arg && typeof arg === "object") learnSecrets(arg as Props);
      try {
        // Before the first resource step of the run: a refused key or an unreachable service
        // fails here, in one line, with nothing sent that changes anything.
        if (PROGRAM_RUN_METHODS.has(name)) await requireConfiguredKey();
        else await credentials();
        const result = await (method as (...a: unknown[]) => Promise<unknown>)(...args);
        if (name === "check") {
          const checked = result as { inputs: Props; failures: CheckFailure[] };
          return { inputs: checked.inputs, failures: engineFailures(checked.failures) };
        }
        return result;
      } catch (error) {
        throw withoutHostPrint(redactError(userFacing(error, kind, resourceName(args), OPERATIONS[name] ?? name)));
      }
    };
  }
  return wrapped as unknown as Handlers;
}

/** Each registered resource's provider methods, by kind (`resources.pod`). */
export const resources: Readonly<Record<string, Handlers>> = Object.fromEntries(RESOURCES.map((definition) => [definition.kind, guarded(definition.kind, handlersOf(definition))]));

/**
 * What the forwarders serialized into states by earlier builds call, kept for good: `refresh`
 * and `destroy` run the `__provider` a state recorded, not the program's, so every shape a
 * build ever wrote is a stable surface (docs/upgrades.md; test/upgrades/ runs each one):
 * - builds up to 2026-11-23 (0.1.0 to 2eca3dc): `configure(config)`, then `pod.<method>` or
 *   `sandbox.<method>`, the two kinds those builds had;
 * - builds of 2026-11-25 before the credentials change (afcc84d to a43e3ca): `configure(config)`,
 *   then `handlersFor(token).<method>`;
 * - builds of 2026-11-25 to 0.3.0: `configure(config, { stack })`, then `handlersFor(token).<method>`;
 * - builds since: `forward(token, build, stack)`, the provider object below (provider/forwarder.ts).
 * The methods are the Handlers interface's, by those names (`remove` for delete).
 */
export const pod: Handlers = resources.pod!;
export const sandbox: Handlers = resources.sandbox!;

/** The methods of the resource a type token names, or an error naming what this package serves. */
function handlersOfToken(token: string): Handlers {
  const definition = resourceByToken(token);
  if (!definition) throw new Error(`unknown resource type ${token}: this package serves ${RESOURCES.map(nativeToken).join(", ")}`);
  return resources[definition.kind]!;
}

/**
 * The methods the dynamic provider's forwarders call (TypeScript stacks). One difference from
 * the native plugin's: the read of an object the stack does not own (a static `get`, or its
 * refresh; recorded without the owner mark every resource the stack makes carries) returns no
 * inputs. The dynamic provider host cannot mark an input secret, so the inputs read from
 * someone else's object (its `env`, say) would land in the state in plaintext; without them the
 * engine keeps the program's, and the read outputs carry the values, secret where the class said.
 */
export function handlersFor(token: string): Handlers {
  const handlers = handlersOfToken(token);
  return {
    ...handlers,
    async read(id, recorded) {
      const read = await handlers.read(id, recorded);
      if (ownedByStack(recorded) || !("inputs" in read)) return read;
      const { inputs: _foreign, ...rest } = read;
      return rest;
    },
  };
}

/**
 * The provider object a dynamic resource's recorded `__provider` text yields (provider/forwarder.ts):
 * the engine's dynamic-provider host configures it once per text, then calls its methods.
 * `build` is the package build that wrote the text; only the text's change matters (it makes
 * `diff` record a new build), so it is not read here.
 */
export function forward(token: string, _build: string, stack: string): pulumi.dynamic.ResourceProvider {
  return {
    async configure(request) {
      configure(request.config, { stack: stack || undefined });
    },
    check: (olds, news) => handlersFor(token).check(olds, news),
    diff: (id, olds, news) => handlersFor(token).diff(id, olds, news),
    create: (inputs) => handlersFor(token).create(inputs),
    read: (id, props) => handlersFor(token).read(id, props ?? {}),
    update: (id, olds, news) => handlersFor(token).update(id, olds, news),
    delete: (id, props) => handlersFor(token).remove(id, props),
  };
}

/**
 * The methods the native plugin calls (provider/native/server.ts): a read returns the inputs of
 * any object, which an import prints, and the plugin marks an unowned object's `env` secret itself.
 */
export const nativeHandlersFor = handlersOfToken;
