/**
 * `compute.Sandbox`: a short-lived container with an idle timeout and a maximum lifetime
 * (see docs/provider.md).
 */
import * as pulumi from "@pulumi/pulumi";
import { forwardingProvider } from "./forwarder";
import { SANDBOX_OUTPUTS, secretOutputs, unresolved, type OutputProperties } from "./outputs";
import { ownerMarkOf, secretInputNames } from "./stack-identity";

/** One provider object per type at module level: Pulumi caches its serialization per object. */
export const sandboxProvider = forwardingProvider("sandbox");

export interface SandboxArgs {
  /** Sandbox name; default: the resource name plus a random suffix. */
  name?: pulumi.Input<string>;
  /** Container image; required unless `templateId` is set. */
  image?: pulumi.Input<string>;
  templateId?: pulumi.Input<string>;
  compute: pulumi.Input<{ vcpuCount: pulumi.Input<number>; memoryInGb: pulumi.Input<number>; containerDiskInGb: pulumi.Input<number> }>;
  dataCenterIds?: pulumi.Input<pulumi.Input<string>[]>;
  ports?: pulumi.Input<pulumi.Input<string>[]>;
  /** Environment variables. Values given as secrets stay secret in state. */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  egressPolicy?: pulumi.Input<{ mode?: pulumi.Input<"ALLOW_ALL" | "DENY_ALL" | "ALLOW_LIST">; allow?: pulumi.Input<pulumi.Input<string>[]> }>;
  /** Idle timeout in seconds; updated in place. The service clamps it (`MIN_IDLE_TIMEOUT_SECONDS` .. account maximum, contract/sandboxes.ts). */
  idleTimeoutSeconds?: pulumi.Input<number>;
  /** Total lifetime in seconds (`MIN_MAX_LIFETIME_SECONDS` .. account maximum). Grows in place; a decrease replaces. */
  maxLifetimeSeconds?: pulumi.Input<number>;
  labels?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** How long create may wait for RUNNING. Default 600 s. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** Bring an existing sandbox under the stack instead of creating one. */
  adoptSandboxId?: pulumi.Input<string>;
}

/** The type token Pulumi gives a dynamic resource of module `compute`, type `Sandbox`. */
const SANDBOX_TYPE = "pulumi-nodejs:dynamic/compute:Sandbox";

/**
 * The output properties, typed from the output list (provider/outputs.ts); see `Pod` for why
 * an interface merged with the class. `name` is the input, echoed with the name `check`
 * resolved.
 */
export interface Sandbox extends OutputProperties<typeof SANDBOX_OUTPUTS> {
  readonly name: pulumi.Output<string>;
}

export class Sandbox extends pulumi.dynamic.Resource {
  constructor(name: string, args: SandboxArgs, opts: pulumi.CustomResourceOptions = {}) {
    const outputs = { ...unresolved(SANDBOX_OUTPUTS), name: undefined };
    super(
      sandboxProvider,
      name,
      { ...outputs, ...args, namePrefix: name, ownerMark: ownerMarkOf(name, SANDBOX_TYPE, opts), secretInputs: secretInputNames(args) },
      // None of its outputs is secret today; the list decides.
      { ...opts, additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...secretOutputs(SANDBOX_OUTPUTS)] },
      "compute",
      "Sandbox",
    );
  }
}
