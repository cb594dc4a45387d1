/**
 * What a dynamic resource records under `__provider`: the code the engine's dynamic-provider
 * host loads to serve it (`require-from-string`, then `.handler()`), and runs again from the
 * state for `refresh` and `destroy`. It only forwards to this package's runtime, required by
 * package name, so the installed package's current runtime is what runs, and it captures no SDK,
 * schema, configuration or secret: only the type token, the build and the stack's name.
 *
 * Written here as one line of text rather than serialized by Pulumi from a provider object
 * (what `pulumi.dynamic.Resource` does): the serializer wraps each captured method in its own
 * environment, about 3 kB per resource, and the state holds the text twice (inputs and
 * outputs), so the engine's checkpoint after every step rewrote 6 kB per resource of a stack
 * (docs/benchmarks.md, scenario 9). This text is about 150 bytes.
 */
import type * as pulumi from "@pulumi/pulumi";
import { packageBuild } from "../sdk/version";

/** The runtime's module, by package name: resolved from the program's folder, as the host does. */
export const RUNTIME_MODULE = "pulumi-compute/provider-runtime";

/**
 * The stack the program runs, captured: `refresh` and `destroy` configure the provider with the
 * settings recorded at the last `up`, and when that key was rotated away the runtime reads this
 * stack's current `compute:apiKey` (provider/runtime/credentials.ts). The dynamic host tells a
 * provider nothing else about the stack. Empty outside a Pulumi program.
 */
function currentStack(): string {
  try {
    return (require("@pulumi/pulumi") as typeof pulumi).getStack() ?? "";
  } catch {
    return "";
  }
}

/**
 * The `__provider` text of the resource type `token` (its dynamic type token,
 * `pulumi-nodejs:dynamic/compute:Pod`). The runtime finds the resource's definition by the token,
 * and the policy pack recognises the resource by it (policy/resources.ts). The build
 * (`pulumi-compute@0.4.0`) makes the text change with the package version, so `diff` notices a
 * new build and the `up` records the new text.
 */
export function providerText(token: string): string {
  const args = [token, packageBuild(), currentStack()].map((value) => JSON.stringify(value)).join(", ");
  return `exports.handler = () => require(${JSON.stringify(RUNTIME_MODULE)}).forward(${args});\n`;
}

/** The provider object the text of `token` yields, from this copy of the runtime (in-process callers). */
export function forwardingProvider(token: string): pulumi.dynamic.ResourceProvider {
  return (require("./runtime") as typeof import("./runtime")).forward(token, packageBuild(), currentStack());
}
