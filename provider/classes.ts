/**
 * The TypeScript dynamic resource classes, one per registry entry (provider/resources/), made by
 * one factory: the class's args are typed from the input list, its output properties from the
 * output list, and its recorded provider forwards to the runtime by type token (provider/forwarder.ts).
 * `classes` holds one per entry, by name, with no edit here for a new one; the named exports
 * below give each of today's kinds its own typed name.
 */
import * as pulumi from "@pulumi/pulumi";
import { forwardingProvider, providerText } from "./forwarder";
import { MAYBE_SECRET } from "./functions";
import { RESOURCES } from "./resources";
import { clusterResource } from "./resources/cluster";
import { podResource } from "./resources/pod";
import { sandboxResource } from "./resources/sandbox";
import { networkVolumeResource } from "./resources/network-volume";
import { registryCredentialResource } from "./resources/registry-credential";
import { serverlessEndpointResource } from "./resources/serverless-endpoint";
import { sshKeyResource } from "./resources/ssh-key";
import { templateResource } from "./resources/template";
import { dynamicToken, secretInputs, secretOutputs, unresolved, type ArgOf, type ArgsOf, type InputList, type OutputList, type OutputProperties } from "./resources/definition";
import { skipLeakReportStacks } from "./registration-stacks";
import { ownerMarkOf, secretInputNames } from "./stack-identity";

/** A resource object: its outputs, and `name` where it has that input (echoed with the name `check` resolved). */
export type ResourceObject<I extends InputList, O extends OutputList> = pulumi.dynamic.Resource &
  OutputProperties<O> &
  (I extends { name: unknown } ? { readonly name: pulumi.Output<string> } : unknown);

/** A resource class: `new Pod(name, args, opts)`, with `provider` the object its recorded `__provider` text yields. */
export interface ResourceClass<I extends InputList, O extends OutputList> {
  new (name: string, args: ArgsOf<I>, opts?: pulumi.CustomResourceOptions): ResourceObject<I, O>;
  /**
   * The live object with this id, which the stack does not own: read (at preview too), never
   * created, updated or deleted. A missing id fails the run in one line naming the kind and the id.
   */
  get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): ResourceObject<I, O>;
  readonly provider: pulumi.dynamic.ResourceProvider;
}

/**
 * The class of one definition. Output properties come from registering every output as
 * `undefined` (Pulumi then gives the object an output property per name); the owner mark and
 * the names of the inputs given as secrets go to the provider with the args.
 */
function makeClass(definition: { name: string; inputs: InputList; outputs: OutputList; idOutput: string }): AnyResourceClass {
  const token = dynamicToken(definition);
  // Inputs that are always secret are kept secret in the state whatever the program passed.
  const alwaysSecret = secretInputs(definition.inputs);
  const secrets = [...secretOutputs(definition.outputs), ...alwaysSecret];
  // Read by id, the inputs come from the live object, whose maker's secrets it cannot tell apart.
  const lookupSecrets = MAYBE_SECRET.filter((key) => key in definition.inputs);
  const placeholders = { ...unresolved(definition.outputs), ...("name" in definition.inputs ? { name: undefined } : {}) };
  /**
   * What the constructor registers. With `opts.id` it is a read (`get`): the engine's read step
   * calls the provider's `read` with the id and these properties, which then hold only the
   * serialized provider (undefined values are not sent), so `read`, knowing no recorded state,
   * takes the inputs from the live object. Those come from whoever made it, whose secrets it
   * cannot tell apart: each input that may hold one stays secret whole.
   */
  function registration(name: string, given: Record<string, unknown>, opts: pulumi.CustomResourceOptions): [Record<string, unknown>, pulumi.CustomResourceOptions] {
    const secretOutputsOf = (extra: readonly string[]) => ({ ...opts, additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...secrets, ...extra] });
    if (opts.id !== undefined) return [{ ...placeholders }, secretOutputsOf(lookupSecrets)];
    const args: Record<string, unknown> = { ...given };
    for (const key of alwaysSecret) if (args[key] !== undefined) args[key] = pulumi.secret(args[key]);
    return [{ ...placeholders, ...args, namePrefix: name, ownerMark: ownerMarkOf(name, token, opts), secretInputs: secretInputNames(args) }, secretOutputsOf([])];
  }
  /**
   * A dynamic resource, registered as `pulumi.dynamic.Resource` registers one (its type token,
   * `pulumi-nodejs:dynamic/compute:<Name>`, and the provider's code under `__provider`), with the
   * code written by provider/forwarder.ts instead of serialized by Pulumi: about 150 bytes
   * per resource instead of about three thousand, twice.
   */
  const made = class extends pulumi.CustomResource {
    static get provider(): pulumi.dynamic.ResourceProvider {
      return forwardingProvider(token);
    }
    /** The live object `id`, which the stack does not own: read, never created (see `ResourceClass.get`). */
    static get(name: string, id: pulumi.Input<pulumi.ID>, opts: pulumi.CustomResourceOptions = {}) {
      return new made(name, {}, { ...opts, id });
    }
    constructor(name: string, given: Record<string, unknown>, opts: pulumi.CustomResourceOptions = {}) {
      const [props, options] = registration(name, given, opts);
      const restoreStacks = skipLeakReportStacks();
      try {
        // Made per resource: it names the stack, which is known once the program runs.
        super(token, name, { ...props, __provider: providerText(token) }, options);
      } finally {
        restoreStacks();
      }
      // The id output is the resource's id: known in the preview of an update too, where the
      // dynamic-provider host leaves every other output unknown (it has no preview of updates).
      Object.defineProperty(this, definition.idOutput, { value: this.id, enumerable: true });
    }
  };
  Object.defineProperty(made, "name", { value: definition.name });
  // Still a `pulumi.dynamic.Resource` to `instanceof`, as the classes of 0.3.0 and before were:
  // that class adds nothing to `pulumi.CustomResource` but its constructor, which is skipped
  // (the constructor above calls CustomResource's).
  Object.setPrototypeOf(made.prototype, pulumi.dynamic.Resource.prototype);
  return made;
}

/** The classes made, one per definition: a named export and `classes` are the same class. */
const classesMade = new Map<object, AnyResourceClass>();

/** The class of a definition, made once. */
function classOf(definition: { name: string; inputs: InputList; outputs: OutputList; idOutput: string }): AnyResourceClass {
  let found = classesMade.get(definition);
  if (!found) classesMade.set(definition, (found = makeClass(definition)));
  return found;
}

/**
 * The class of a definition, typed from its lists: its args from the input list, its output
 * properties from the output list (the class itself takes any property bag; the type is the
 * promise, kept by test/provider/outputs.test.ts).
 */
export function resourceClass<I extends InputList, O extends OutputList>(definition: { name: string; inputs: I; outputs: O; idOutput: string }): ResourceClass<I, O> {
  return classOf(definition) as unknown as ResourceClass<I, O>;
}

/** A resource class whose kind the caller does not know: its args are a property bag. */
export interface AnyResourceClass {
  new (name: string, args: Record<string, unknown>, opts?: pulumi.CustomResourceOptions): pulumi.dynamic.Resource;
  get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): pulumi.dynamic.Resource;
  readonly provider: pulumi.dynamic.ResourceProvider;
}

/** Every resource class of the registry, by its name (`classes.Pod`); the named exports below type each one. */
export const classes: Readonly<Record<string, AnyResourceClass>> = Object.fromEntries(RESOURCES.map((definition) => [definition.name, classOf(definition)]));

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

/** `compute.NetworkVolume`: storage in one data center that pods and endpoints mount (docs/provider.md). */
export const NetworkVolume = resourceClass(networkVolumeResource);
export type NetworkVolume = InstanceType<typeof NetworkVolume>;
export type NetworkVolumeArgs = ArgsOf<typeof networkVolumeResource.inputs>;

/** `compute.Template`: a container configuration pods, sandboxes and endpoints start from (docs/provider.md). */
export const Template = resourceClass(templateResource);
export type Template = InstanceType<typeof Template>;
export type TemplateArgs = ArgsOf<typeof templateResource.inputs>;

/** `compute.RegistryCredential`: a private registry's username and password, write-only (docs/provider.md). */
export const RegistryCredential = resourceClass(registryCredentialResource);
export type RegistryCredential = InstanceType<typeof RegistryCredential>;
export type RegistryCredentialArgs = ArgsOf<typeof registryCredentialResource.inputs>;

/** `compute.SshKey`: one SSH public key among the account's keys (docs/provider.md). */
export const SshKey = resourceClass(sshKeyResource);
export type SshKey = InstanceType<typeof SshKey>;
export type SshKeyArgs = ArgsOf<typeof sshKeyResource.inputs>;

/** `compute.ServerlessEndpoint`: queue or load-balanced serverless workers (docs/provider.md). */
export const ServerlessEndpoint = resourceClass(serverlessEndpointResource);
export type ServerlessEndpoint = InstanceType<typeof ServerlessEndpoint>;
export type ServerlessEndpointArgs = ArgsOf<typeof serverlessEndpointResource.inputs>;

/** `compute.Cluster`: identical GPU pods on one overlay network, as Slurm, Ray, training or an application (docs/provider.md). */
export const Cluster = resourceClass(clusterResource);
export type Cluster = InstanceType<typeof Cluster>;
export type ClusterArgs = ArgsOf<typeof clusterResource.inputs>;
export type ClusterComputeArgs = ArgOf<typeof clusterResource.inputs.compute>;
