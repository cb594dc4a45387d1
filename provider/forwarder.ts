/**
 * The provider object Pulumi serializes into the state for each resource type. It only
 * forwards to this package's runtime, required by package name inside each method, so the
 * serialized text holds a few hundred bytes of code and captures no SDK, schema, configuration
 * or secret (only the build, the type token and the stack's name); the installed package's current runtime is what runs. The captured build string
 * changes with the package version, so `diff` notices a new build and the state is updated.
 */
import type * as pulumi from "@pulumi/pulumi";
import { packageBuild } from "../sdk/version";

/** `name@version` of the installed package (sdk/version.ts), read once at module load; captured by the serialized methods. */
const PROVIDER_BUILD: string = packageBuild();

/**
 * The stack the program runs, captured too: `refresh` and `destroy` configure the provider
 * with the settings recorded at the last `up`, and when that key was rotated away the runtime
 * reads this stack's current `compute:apiKey` (provider/runtime/credentials.ts). The dynamic
 * host tells a provider nothing else about the stack. Empty outside a Pulumi program.
 */
const STACK: string = (() => {
  try {
    return (require("@pulumi/pulumi") as typeof pulumi).getStack() ?? "";
  } catch {
    return "";
  }
})();

type RuntimeModule = typeof import("./runtime");

/**
 * The provider of the resource type `token` (its dynamic type token, `pulumi-nodejs:dynamic/compute:Pod`).
 * The token is the one value captured besides the build: the runtime finds the resource's
 * definition by it, and the policy pack recognises the resource by it (policy/resources.ts).
 */
export function forwardingProvider(token: string): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req) {
      void PROVIDER_BUILD;
      (require("pulumi-compute/provider-runtime") as RuntimeModule).configure(req.config, { stack: STACK || undefined });
    },
    async check(olds, news) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule).handlersFor(token).check(olds, news);
    },
    async diff(id, olds, news) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule).handlersFor(token).diff(id, olds, news);
    },
    async create(inputs) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule).handlersFor(token).create(inputs);
    },
    async read(id, props) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule).handlersFor(token).read(id, props ?? {});
    },
    async update(id, olds, news) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule).handlersFor(token).update(id, olds, news);
    },
    async delete(id, props) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule).handlersFor(token).remove(id, props);
    },
  };
}
