/**
 * The inputs of each resource, listed once as data, in the vocabulary of the output lists
 * (provider/properties.ts): the native plugin's package schema (provider/native/schema.ts) is
 * generated from these lists and from provider/outputs.ts. The args interfaces (`PodArgs`,
 * `SandboxArgs`) stay the TypeScript resources' own types; a type-level check below fails
 * compilation when a list and its interface disagree on any name, type, enum value or
 * requiredness, at any depth.
 *
 * No input is secret by itself: any value (an `env` entry typically) may be given as a secret,
 * and stays one in state (docs/provider.md, "Settings and secrets").
 *
 * `onChange` says what changing the input does, as the update/replace table of
 * docs/provider.md states it (decided by `diffPod` in provider/runtime/pod-model.ts and
 * `diffSandbox` in provider/runtime/sandbox-handlers.ts; test/provider/schema.test.ts holds the
 * two to each other): `update` in place, `replace`, `depends` on the old and new values (see
 * the table), `nothing`.
 *
 * Plain data, types only from elsewhere.
 */
import type { Unwrap } from "@pulumi/pulumi";
import type { PodArgs } from "./pod";
import type { FieldSpec, ValueOf } from "./properties";
import type { SandboxArgs } from "./sandbox";

export type ChangeEffect = "update" | "replace" | "depends" | "nothing";

/** One input: its type, what it means, whether the program must give it, and what a change does. */
export type InputSpec = FieldSpec & {
  readonly doc: string;
  readonly required?: true;
  readonly secret?: true;
  readonly onChange: ChangeEffect;
};

export type InputList = Readonly<Record<string, InputSpec>>;

const strings = { type: "array", items: { type: "string" } } as const;
const stringMap = { type: "map", additionalProperties: { type: "string" } } as const;

export const POD_INPUTS = {
  name: { type: "string", onChange: "update", doc: "Pod name; default: the resource name plus a random suffix, generated once and kept for the pod's life." },
  image: { type: "string", onChange: "update", doc: "Container image; required unless `templateId` is set." },
  templateId: { type: "string", onChange: "update", doc: "Template to start from (the caller's own or public). Applied once; no link is kept." },
  args: { type: "string", onChange: "update", doc: "The command as one raw string (shell form, or the JSON exec form)." },
  cmd: { ...strings, onChange: "update", doc: "Exec-form CMD; compares equal to the same command written as `args`." },
  entrypoint: { ...strings, onChange: "update", doc: "Exec-form ENTRYPOINT." },
  disk: { type: "integer", onChange: "update", doc: "Container disk in GB (ephemeral)." },
  env: { ...stringMap, onChange: "update", doc: "Environment variables. Values given as secrets stay secret in state." },
  ports: { ...strings, onChange: "update", doc: "Exposed ports, each `port/protocol` (`8888/http`, `22/tcp`)." },
  registry: { type: "string", onChange: "update", doc: "Registry credential id for private images." },
  gpu: {
    type: "object",
    properties: {
      id: { type: "string" },
      count: { type: "integer", optional: true },
      allowedCudaVersions: { ...strings, optional: true },
      minCudaVersion: { type: "string", optional: true },
      minRamPerGpu: { type: "integer", optional: true },
      minVcpuCountPerGpu: { type: "integer", optional: true },
    },
    // `gpu.id` does not replace while `placement` candidates choose it.
    onChange: "depends",
    doc: "A GPU pod: GPU type id (catalog `gpus[].id`), count, CUDA and per-GPU filters. Exactly one of `gpu` or `cpu`.",
  },
  cpu: {
    type: "object",
    properties: { id: { type: "string" }, vcpuCount: { type: "integer" } },
    onChange: "replace",
    doc: "A CPU pod: CPU flavor id (catalog `cpus[].id`) and vCPUs (at least 2, a power of two, within the flavor's range).",
  },
  cloud: { type: "string", enum: ["SECURE", "COMMUNITY"], onChange: "replace", doc: "`SECURE` (default) or `COMMUNITY`." },
  dataCenterIds: { ...strings, onChange: "replace", doc: "Preferred data centers, in order." },
  globalNetworking: { type: "boolean", onChange: "update", doc: "Join the global network (needs an NVIDIA GPU and a data center with global networking); a change restarts the pod." },
  mounts: {
    type: "object",
    properties: {
      persistent: { type: "object", optional: true, properties: { size: { type: "integer" }, path: { type: "string" } } },
      network: { type: "array", optional: true, items: { type: "object", properties: { volumeId: { type: "string" }, path: { type: "string" } } } },
      global: {
        type: "array",
        optional: true,
        items: { type: "object", properties: { volumeId: { type: "string" }, path: { type: "string", optional: true } } },
      },
    },
    // A mount path updates in place; the kind, a volume id or the persistent size replaces.
    onChange: "depends",
    doc: "Volumes: `persistent` (host-local, GPU pods only) or `network` / `global` volumes, at most one of each.",
  },
  startSsh: { type: "boolean", onChange: "replace", doc: "Inject the account's SSH keys as `PUBLIC_KEY`. Fixed at create." },
  startJupyter: { type: "boolean", onChange: "replace", doc: "Start Jupyter with a generated password (output `jupyterPassword`, secret). Fixed at create." },
  locked: { type: "boolean", onChange: "update", doc: "Prevent stop and restart." },
  desiredState: { type: "string", enum: ["RUNNING", "STOPPED"], onChange: "update", doc: "`RUNNING` (default) or `STOPPED`: the provider starts or stops the pod to match." },
  placement: {
    type: "array",
    items: { type: "object", properties: { gpuTypeId: { type: "string", optional: true }, dataCenterId: { type: "string", optional: true } } },
    // Replaces only when the pod's current placement is no longer among the candidates.
    onChange: "depends",
    doc: "Ordered placement candidates, each a GPU type and/or a data center, tried in turn until one has capacity. Changing the list never moves a pod unless its current placement is no longer in it.",
  },
  readyTimeoutSeconds: { type: "number", onChange: "update", doc: "How long create/update may wait for the desired state, in seconds. Default 900." },
  adoptPodId: { type: "string", onChange: "nothing", doc: "Bring an existing pod under the stack instead of creating one (see docs/provider.md)." },
} as const satisfies InputList;

export const SANDBOX_INPUTS = {
  name: { type: "string", onChange: "replace", doc: "Sandbox name; default: the resource name plus a random suffix." },
  image: { type: "string", onChange: "replace", doc: "Container image; required unless `templateId` is set." },
  templateId: { type: "string", onChange: "replace", doc: "Template to start from." },
  compute: {
    type: "object",
    properties: { vcpuCount: { type: "integer" }, memoryInGb: { type: "number" }, containerDiskInGb: { type: "integer" } },
    required: true,
    onChange: "replace",
    doc: "vCPUs, memory (GB) and container disk (GB) of the sandbox.",
  },
  dataCenterIds: { ...strings, onChange: "replace", doc: "Preferred data centers, in order." },
  ports: { ...strings, onChange: "replace", doc: "Exposed ports, each `port/protocol`." },
  env: { ...stringMap, onChange: "replace", doc: "Environment variables. Values given as secrets stay secret in state." },
  egressPolicy: {
    type: "object",
    properties: {
      mode: { type: "string", enum: ["ALLOW_ALL", "DENY_ALL", "ALLOW_LIST"], optional: true },
      allow: { ...strings, optional: true },
    },
    onChange: "replace",
    doc: "Outbound traffic: `mode` (default `ALLOW_ALL`) and, for `ALLOW_LIST` only, the allowed destinations.",
  },
  idleTimeoutSeconds: { type: "integer", onChange: "update", doc: "Idle timeout in seconds (default 600); the service clamps it (contract/sandboxes.ts)." },
  // Grows in place (extend); a decrease replaces.
  maxLifetimeSeconds: { type: "integer", onChange: "depends", doc: "Total lifetime in seconds (default 3600, at least `MIN_MAX_LIFETIME_SECONDS`, at most the account maximum). Grows in place; a decrease replaces." },
  labels: { ...stringMap, onChange: "replace", doc: "Labels (at most 63 of your own; the key `pulumi-compute/owner` is the provider's)." },
  readyTimeoutSeconds: { type: "number", onChange: "update", doc: "How long create may wait for RUNNING, in seconds. Default 600." },
  adoptSandboxId: { type: "string", onChange: "update", doc: "Bring an existing sandbox under the stack instead of creating one." },
} as const satisfies InputList;

type RequiredKeys<L> = { [K in keyof L]: L[K] extends { required: true } ? K : never }[keyof L];
type Flatten<T> = { [K in keyof T]: T[K] };

/** The program's values of a list's inputs (what `Unwrap<Args>` is). */
export type InputValues<L extends InputList> = Flatten<
  { -readonly [K in RequiredKeys<L>]: ValueOf<L[K]> } & { -readonly [K in Exclude<keyof L, RequiredKeys<L>>]?: ValueOf<L[K]> }
>;

/**
 * `true` when `A` and `B` are the same shape: the same keys at every depth, each optional in
 * both or in neither, and mutually assignable leaves (so enum values and nullability count).
 * Else the first disagreement found, to read in the compiler's message.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? Deep<A, B> : { differs: [A, B] }) : { differs: [A, B] };

type Deep<A, B> = [A] extends [never]
  ? true
  : [A] extends [readonly unknown[]]
    ? SameShape<A[number], B extends readonly unknown[] ? B[number] : never>
    : [A] extends [object]
      ? [keyof A] extends [keyof B]
        ? [keyof B] extends [keyof A]
          ? AllTrue<{ [K in keyof A]-?: SameShape<NonNullable<A[K]>, NonNullable<B[K & keyof B]>> }>
          : { extraKeys: Exclude<keyof B, keyof A> }
        : { missingKeys: Exclude<keyof A, keyof B> }
      : true;

type AllTrue<R> = Exclude<R[keyof R], true> extends never ? true : Exclude<R[keyof R], true>;

// An arg added, removed or retyped in `PodArgs` / `SandboxArgs` and not here (or the other way round) fails to compile.
true satisfies SameShape<InputValues<typeof POD_INPUTS>, Unwrap<PodArgs>>;
true satisfies SameShape<InputValues<typeof SANDBOX_INPUTS>, Unwrap<SandboxArgs>>;
