/** `compute.Pod`: a GPU or CPU pod managed by Pulumi (see docs/provider.md). */
import * as pulumi from "@pulumi/pulumi";
import type { PlacementCandidate } from "../sdk";
import { forwardingProvider } from "./forwarder";
import { POD_OUTPUTS, secretOutputs, unresolved, type OutputProperties } from "./outputs";
import { ownerMarkOf, secretInputNames } from "./stack-identity";

/** One provider object per type at module level: Pulumi caches its serialization per object. */
export const podProvider = forwardingProvider("pod");

export interface PodGpuArgs {
  /** GPU type id (catalog `gpus[].id`). With `placement`, the candidates decide it. */
  id: pulumi.Input<string>;
  count?: pulumi.Input<number>;
  /** Exact CUDA versions accepted (`major.minor`); not together with `minCudaVersion`. */
  allowedCudaVersions?: pulumi.Input<pulumi.Input<string>[]>;
  minCudaVersion?: pulumi.Input<string>;
  minRamPerGpu?: pulumi.Input<number>;
  minVcpuCountPerGpu?: pulumi.Input<number>;
}

export interface PodCpuArgs {
  /** CPU flavor id (catalog `cpus[].id`). */
  id: pulumi.Input<string>;
  /** At least 2, a power of two, within the flavor's range. */
  vcpuCount: pulumi.Input<number>;
}

export interface PodMountsArgs {
  /** Host-local storage (deprecated by the service); GPU pods only. */
  persistent?: pulumi.Input<{ size: pulumi.Input<number>; path: pulumi.Input<string> }>;
  network?: pulumi.Input<pulumi.Input<{ volumeId: pulumi.Input<string>; path: pulumi.Input<string> }>[]>;
  global?: pulumi.Input<pulumi.Input<{ volumeId: pulumi.Input<string>; path?: pulumi.Input<string> }>[]>;
}

export interface PodArgs {
  /** Pod name; default: the resource name plus a random suffix, kept for the pod's life. */
  name?: pulumi.Input<string>;
  /** Container image; required unless `templateId` is set. */
  image?: pulumi.Input<string>;
  /** Template to start from (the caller's own or public). Applied once; no link is kept. */
  templateId?: pulumi.Input<string>;
  /** The command as one raw string (shell form, or the JSON exec form). */
  args?: pulumi.Input<string>;
  /** Exec-form CMD; compares equal to the same command written as `args`. */
  cmd?: pulumi.Input<pulumi.Input<string>[]>;
  /** Exec-form ENTRYPOINT. */
  entrypoint?: pulumi.Input<pulumi.Input<string>[]>;
  /** Container disk in GB (ephemeral). */
  disk?: pulumi.Input<number>;
  /** Environment variables. Values given as secrets stay secret in state. */
  env?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** Exposed ports, each `port/protocol` (`8888/http`, `22/tcp`). */
  ports?: pulumi.Input<pulumi.Input<string>[]>;
  /** Registry credential id for private images. */
  registry?: pulumi.Input<string>;
  /** Exactly one of `gpu` or `cpu`. */
  gpu?: pulumi.Input<PodGpuArgs>;
  cpu?: pulumi.Input<PodCpuArgs>;
  cloud?: pulumi.Input<"SECURE" | "COMMUNITY">;
  /** Preferred data centers, in order. */
  dataCenterIds?: pulumi.Input<pulumi.Input<string>[]>;
  globalNetworking?: pulumi.Input<boolean>;
  mounts?: pulumi.Input<PodMountsArgs>;
  /** Inject the account's SSH keys as `PUBLIC_KEY`. Fixed at create. */
  startSsh?: pulumi.Input<boolean>;
  /** Start Jupyter with a generated password (output `jupyterPassword`, secret). Fixed at create. */
  startJupyter?: pulumi.Input<boolean>;
  /** Prevent stop and restart. */
  locked?: pulumi.Input<boolean>;
  /** `RUNNING` (default) or `STOPPED`: the provider starts or stops the pod to match. */
  desiredState?: pulumi.Input<"RUNNING" | "STOPPED">;
  /**
   * Ordered placement candidates: each a GPU type and/or a data center, tried in turn until one
   * has capacity. Changing the list never moves a pod unless its current placement is no
   * longer in it.
   */
  placement?: pulumi.Input<pulumi.Input<PlacementCandidate>[]>;
  /** How long create/update may wait for the desired state. Default 900 s. */
  readyTimeoutSeconds?: pulumi.Input<number>;
  /** Bring an existing pod under the stack instead of creating one (see docs/provider.md). */
  adoptPodId?: pulumi.Input<string>;
}

/** The type token Pulumi gives a dynamic resource of module `compute`, type `Pod`. */
const POD_TYPE = "pulumi-nodejs:dynamic/compute:Pod";

/**
 * The output properties, typed from the output list (provider/outputs.ts). Declaration
 * merging rather than `declare readonly` fields: TypeScript cannot generate class fields from
 * a value, and a merged interface adds exactly the members, with no emitted field (the same as
 * `declare`), so the list is the only place an output is named. `name` is the input, echoed
 * with the name `check` resolved.
 */
export interface Pod extends OutputProperties<typeof POD_OUTPUTS> {
  readonly name: pulumi.Output<string>;
}

export class Pod extends pulumi.dynamic.Resource {
  constructor(name: string, args: PodArgs, opts: pulumi.CustomResourceOptions = {}) {
    const outputs = { ...unresolved(POD_OUTPUTS), name: undefined };
    super(
      podProvider,
      name,
      { ...outputs, ...args, namePrefix: name, ownerMark: ownerMarkOf(name, POD_TYPE, opts), secretInputs: secretInputNames(args) },
      { ...opts, additionalSecretOutputs: [...(opts.additionalSecretOutputs ?? []), ...secretOutputs(POD_OUTPUTS)] },
      "compute",
      "Pod",
    );
  }
}
