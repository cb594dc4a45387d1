/**
 * The TypeScript dynamic resource classes, one per registry entry (provider/resources/), made by
 * one factory: the class's args are typed from the input list, its output properties from the
 * output list, and its provider forwards to the runtime by type token (provider/forwarder.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { forwardingProvider } from "./forwarder";
import { podResource } from "./resources/pod";
import { sandboxResource } from "./resources/sandbox";
import { dynamicToken, secretOutputs, unresolved, type ArgOf, type ArgsOf, type InputList, type OutputList, type OutputProperties } from "./resources/definition";
import { ownerMarkOf, secretInputNames } from "./stack-identity";
import { DYNAMIC_MODULE } from "./tokens";

/** A resource object: its outputs, and `name` (the input, echoed with the name `check` resolved). */
export type ResourceObject<O extends OutputList> = pulumi.dynamic.Resource & OutputProperties<O> & { readonly name: pulumi.Output<string> };

/** A resource class: `new Pod(name, args, opts)`, with `provider` the one object Pulumi serializes for it. */
export interface ResourceClass<I extends InputList, O extends OutputList> {
  new (name: string, args: ArgsOf<I>, opts?: pulumi.CustomResourceOptions): ResourceObject<O>;
  readonly provider: pulumi.dynamic.ResourceProvider;
}

/**
 * The class of one definition. Output properties come from registering every output as
 * `undefined` (Pulumi then gives the object an output property per name); the owner mark and
 * the names of the inputs given as secrets go to the provider with the args.
 */
export function resourceClass<I extends InputList, O extends OutputList>(definition: { name: string; inputs: I; outputs: O }): ResourceClass<I, O> {
  const token = dynamicToken(definition);
  // One provider object per type: Pulumi caches its serialization per object.
  const provider = forwardingProvider(token);
  const secrets = secretOutputs(definition.outputs);
  const placeholders = { ...unresolved(definition.outputs), name: undefined };
  const made = class extends pulumi.dynamic.Resource {
    static readonly provider = provider;
    constructor(name: string, args: ArgsOf<I>, opts: pulumi.CustomResourceOptions = {}) {
      super(
        provider,
        name,
        { ...placeholders, ...args, namePrefix: name, ownerMark: ownerMarkOf(name, token, opts), secretInputs: secretInputNames(args) },
        { ...opts, additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...secrets] },
        DYNAMIC_MODULE,
        definition.name,
      );
    }
  };
  Object.defineProperty(made, "name", { value: definition.name });
  return made as unknown as ResourceClass<I, O>;
}

/** `compute.Pod`: a GPU or CPU pod managed by Pulumi (docs/provider.md). */
export const Pod = resourceClass(podResource);
export type Pod = InstanceType<typeof Pod>;
export type PodArgs = ArgsOf<typeof podResource.inputs>;
export type PodGpuArgs = ArgOf<typeof podResource.inputs.gpu>;
export type PodCpuArgs = ArgOf<typeof podResource.inputs.cpu>;
export type PodMountsArgs = ArgOf<typeof podResource.inputs.mounts>;

/** `compute.Sandbox`: a short-lived container with an idle timeout and a maximum lifetime (docs/provider.md). */
export const Sandbox = resourceClass(sandboxResource);
export type Sandbox = InstanceType<typeof Sandbox>;
export type SandboxArgs = ArgsOf<typeof sandboxResource.inputs>;
