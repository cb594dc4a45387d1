/**
 * The provider object Pulumi serializes into the state for each resource type. It only
 * forwards to this package's runtime, required by package name inside each method, so the
 * serialized text holds a few hundred bytes of code and captures no SDK, schema, configuration
 * or secret; the installed package's current runtime is what runs. The captured build string
 * changes with the package version, so `diff` notices a new build and the state is updated.
 */
import type * as pulumi from "@pulumi/pulumi";

const PROVIDER_BUILD = "pulumi-compute@0.1.0";

type RuntimeModule = typeof import("./runtime");

export function forwardingProvider(kind: "pod" | "sandbox"): pulumi.dynamic.ResourceProvider {
  return {
    async configure(req) {
      void PROVIDER_BUILD;
      (require("pulumi-compute/provider-runtime") as RuntimeModule).configure(req.config);
    },
    async check(olds, news) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule)[kind].check(olds, news);
    },
    async diff(id, olds, news) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule)[kind].diff(id, olds, news);
    },
    async create(inputs) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule)[kind].create(inputs);
    },
    async read(id, props) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule)[kind].read(id, props ?? {});
    },
    async update(id, olds, news) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule)[kind].update(id, olds, news);
    },
    async delete(id, props) {
      return (require("pulumi-compute/provider-runtime") as RuntimeModule)[kind].remove(id, props);
    },
  };
}
